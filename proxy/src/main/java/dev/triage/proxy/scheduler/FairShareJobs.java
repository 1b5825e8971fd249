package dev.triage.proxy.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Waiting jobs shared among tenants by weighted fair queuing on estimated seconds: each tenant has a
 * virtual time that a dispatched job advances by its expected seconds over the tenant's weight, and
 * the tenant whose next job would finish soonest in virtual time goes next. Within a tenant, its own
 * jobs go in the policy's order (client priority, then fcfs, sjf or hrrn), and the starvation timeout
 * τ sends a tenant's oldest job first once it has waited longer: across tenants, the shares decide,
 * so a tenant that floods the queue cannot pass its jobs' age off as urgency.
 *
 * <p>A tenant that starts to wait again begins at the system's virtual time (the least virtual time
 * of the tenants waiting), never below: time it left unused is not owed to it later. So while two
 * tenants both wait, each is served backend time in proportion to its weight, whatever the other
 * sends.
 *
 * <pre>{@code
 * var waiting = new FairShareJobs<Request>(Policy.SJF, Request::tenant, TenantWeights.parse("a=3"), tau, ledger);
 * Scheduler<Request> scheduler = new Scheduler<>(settings, clock, waiting);
 * }</pre>
 *
 * <p>A decision scans the tenants that wait: O(tenants) on top of the policy's own cost.
 *
 * @param <T> the scheduler's payload
 */
public final class FairShareJobs<T> extends WaitingJobs<T> {

    private final Function<T, String> tenantOf;
    private final TenantWeights weights;
    private final long starvationNanos;
    private final TenantLedger ledger;
    /** Every tenant that waits, and those that do not but are ahead of the system's virtual time. */
    private final Map<String, TenantJobs<T>> tenants = new HashMap<>();
    private double virtualTime;
    private int size;

    /** One tenant's waiting jobs and how much it has been served, in virtual seconds. */
    private static final class TenantJobs<T> {
        final double weight;
        final WaitingJobs<T> jobs;
        final StarvationGuard<T> guard;
        double virtualFinish;

        TenantJobs(double weight, Policy policy, long starvationNanos) {
            this.weight = weight;
            this.jobs = WaitingJobs.forPolicy(policy);
            this.guard = new StarvationGuard<>(starvationNanos);
        }

        Job<T> head(long nowNanos, int freeSlots) {
            Job<T> starved = guard.starved(nowNanos);
            return starved != null ? starved : jobs.best(nowNanos, freeSlots);
        }

        /** The tenant's virtual time once {@code job} has run. */
        double finishWith(Job<T> job) {
            return virtualFinish + job.expectedSeconds() / weight;
        }
    }

    /**
     * @param policy the order of each tenant's own jobs: fcfs, sjf or hrrn
     * @param tenantOf the tenant a job's payload belongs to
     * @param starvationTimeout τ within a tenant, in nanoseconds; 0 for none
     * @param ledger where the backend time served to each tenant is counted
     */
    public FairShareJobs(Policy policy, Function<T, String> tenantOf, TenantWeights weights, long starvationTimeout,
            TenantLedger ledger) {
        super(policy);
        if (!policy.isOrder() || policy == Policy.LAPS) {
            throw new IllegalArgumentException("policy " + policy.label() + " with fair shares (expected: fcfs, sjf or hrrn)");
        }
        this.tenantOf = tenantOf;
        this.weights = weights;
        this.starvationNanos = starvationTimeout;
        this.ledger = ledger;
    }

    @Override
    public void add(Job<T> job) {
        String name = tenantOf.apply(job.payload());
        TenantJobs<T> tenant = tenants.computeIfAbsent(name, n -> new TenantJobs<>(weights.of(n), policy, starvationNanos));
        if (tenant.jobs.size() == 0) {
            tenant.virtualFinish = Math.max(tenant.virtualFinish, virtualTime);
        }
        tenant.jobs.add(job);
        tenant.guard.add(job);
        size++;
    }

    @Override
    public boolean remove(Job<T> job) {
        TenantJobs<T> tenant = tenants.get(tenantOf.apply(job.payload()));
        if (tenant == null || !tenant.jobs.remove(job)) {
            return false;
        }
        tenant.guard.remove(job);
        size--;
        return true;
    }

    @Override
    public Job<T> best(long nowNanos, int freeSlots) {
        Job<T> best = null;
        double bestFinish = Double.POSITIVE_INFINITY;
        for (TenantJobs<T> tenant : tenants.values()) {
            if (tenant.jobs.size() == 0) {
                continue;
            }
            Job<T> head = tenant.head(nowNanos, freeSlots);
            double finish = tenant.finishWith(head);
            if (finish < bestFinish || finish == bestFinish && head.sequence() < best.sequence()) {
                best = head;
                bestFinish = finish;
            }
        }
        return best;
    }

    /** Charges the job's tenant its expected seconds over its weight, and moves the system's virtual time. */
    @Override
    public void dispatched(Job<T> job, long nowNanos) {
        String name = tenantOf.apply(job.payload());
        TenantJobs<T> tenant = tenants.get(name);
        tenant.virtualFinish = tenant.finishWith(job);
        ledger.dispatched(name);
        double leastWaiting = Double.POSITIVE_INFINITY;
        double mostServed = virtualTime;
        for (TenantJobs<T> t : tenants.values()) {
            mostServed = Math.max(mostServed, t.virtualFinish);
            if (t.jobs.size() > 0) {
                leastWaiting = Math.min(leastWaiting, t.virtualFinish);
            }
        }
        // With nobody waiting, everyone starts level: unused time is owed to no one.
        virtualTime = Math.max(virtualTime, leastWaiting == Double.POSITIVE_INFINITY ? mostServed : leastWaiting);
        tenants.values().removeIf(t -> t.jobs.size() == 0 && t.virtualFinish <= virtualTime);
    }

    @Override
    public void released(Dispatch<T> dispatch, long nowNanos) {
        ledger.served(tenantOf.apply(dispatch.job().payload()), nowNanos - dispatch.dispatchedNanos());
    }

    /** Every job is charged to its tenant, so none may take an idle slot unseen. */
    @Override
    public boolean seesEveryJob() {
        return true;
    }

    @Override
    public boolean ordersStarved() {
        return true;
    }

    /** Whether τ within its tenant chose {@code job} over the job the tenant's policy would send. */
    @Override
    public boolean promotedByAge(Job<T> job, long nowNanos, int freeSlots) {
        TenantJobs<T> tenant = tenants.get(tenantOf.apply(job.payload()));
        return tenant != null && tenant.guard.starved(nowNanos) == job && tenant.jobs.best(nowNanos, freeSlots) != job;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Iterable<Job<T>> all() {
        List<Job<T>> all = new ArrayList<>(size);
        tenants.values().forEach(tenant -> tenant.jobs.all().forEach(all::add));
        return all;
    }

    /** The order of {@link #best} taken again and again, each tenant charged as it would be. */
    @Override
    public List<Job<T>> inOrder(long nowNanos) {
        List<ArrayDeque<Job<T>>> queues = new ArrayList<>();
        List<TenantJobs<T>> owners = new ArrayList<>();
        List<Double> finishes = new ArrayList<>();
        for (TenantJobs<T> tenant : tenants.values()) {
            if (tenant.jobs.size() > 0) {
                queues.add(new ArrayDeque<>(tenantOrder(tenant, nowNanos)));
                owners.add(tenant);
                finishes.add(tenant.virtualFinish);
            }
        }
        List<Job<T>> ordered = new ArrayList<>(size);
        while (ordered.size() < size) {
            int next = -1;
            double nextFinish = Double.POSITIVE_INFINITY;
            for (int i = 0; i < queues.size(); i++) {
                Job<T> head = queues.get(i).peek();
                if (head == null) {
                    continue;
                }
                double finish = finishes.get(i) + head.expectedSeconds() / owners.get(i).weight;
                if (finish < nextFinish || finish == nextFinish && head.sequence() < queues.get(next).peek().sequence()) {
                    next = i;
                    nextFinish = finish;
                }
            }
            ordered.add(queues.get(next).poll());
            finishes.set(next, nextFinish);
        }
        return ordered;
    }

    /** A tenant's jobs in its own order: those past τ oldest first, then the policy's order. */
    private List<Job<T>> tenantOrder(TenantJobs<T> tenant, long nowNanos) {
        List<Job<T>> ordered = tenant.guard.allStarved(nowNanos);
        for (Iterator<Job<T>> it = tenant.jobs.inOrder(nowNanos).iterator(); it.hasNext(); ) {
            Job<T> job = it.next();
            if (!tenant.guard.isStarved(job, nowNanos)) {
                ordered.add(job);
            }
        }
        return ordered;
    }
}
