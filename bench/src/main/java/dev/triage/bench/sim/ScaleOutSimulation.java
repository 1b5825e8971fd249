package dev.triage.bench.sim;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.backend.Generation;
import dev.triage.bench.backend.GenerationEngine;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation of a pool of backends of different speeds behind Triage's production
 * {@link Scheduler}: either one scheduler per backend, a request routed to one of them when it arrives
 * (a sidecar per backend behind a gateway, or one Triage that routes at once), or one scheduler for the
 * whole pool that binds a request to a backend only when a slot frees ({@link Routing#SHARED_QUEUE}).
 * Each backend is the replay backend's {@link GenerationEngine} on one virtual clock, its prefill and
 * decoding slowed by its relative speed; events at one instant are applied as in {@link Simulation}.
 * Several Triage instances may front the pool together, each with a share of every backend's slots.
 *
 * <pre>{@code
 * SimulationRun run = ScaleOutSimulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO),
 *         SimulatedBackend.of(4), List.of(1.0, 0.5), Routing.SHARED_QUEUE, 7);
 * }</pre>
 */
public final class ScaleOutSimulation {

    private ScaleOutSimulation() {}

    /**
     * Runs the workload to the end on backends like {@code backend}, one per entry of {@code speeds}
     * (1 is the workload's service-time model, 0.5 half as fast).
     *
     * @param seed the draws of {@link Routing#POWER_OF_TWO}
     */
    public static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend, List<Double> speeds,
            Routing routing, long seed) {
        return run(workload, variant, backend, speeds, 1, routing, seed);
    }

    /**
     * As {@link #run(Workload, PolicyVariant, SimulatedBackend, List, Routing, long)}, with {@code sidecars}
     * Triage instances in front of the whole pool, requests given to them in turn (a gateway's round
     * robin): each holds an equal share of every backend's slots and sees only its own requests.
     */
    public static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend, List<Double> speeds,
            int sidecars, Routing routing, long seed) {
        if (speeds.isEmpty() || speeds.stream().anyMatch(speed -> !(speed > 0) || speed.isInfinite())) {
            throw new IllegalArgumentException("backend speeds: " + speeds + " (expected: at least one, each finite and > 0)");
        }
        if (sidecars < 1 || backend.slots() % sidecars != 0) {
            throw new IllegalArgumentException("sidecars: " + sidecars + " (expected: >= 1, dividing the " + backend.slots()
                    + " slots of a backend)");
        }
        if (variant.srpt() || variant.policy() == Policy.LAPS || variant.policy() == Policy.EWSJF) {
            throw new IllegalArgumentException("policy " + variant.name() + " (expected: a non-preemptive policy with one queue: fcfs, sjf, hrrn)");
        }
        VirtualClock clock = new VirtualClock();
        VirtualTimers timers = new VirtualTimers(clock);
        List<GenerationEngine> engines = speeds.stream()
                .map(speed -> new GenerationEngine(timers, backend.slots(), backend.secondsPerToken() / speed,
                        BatchSlowdown.linear(backend.batchSlowdown()))).toList();
        SplittableRandom random = new SplittableRandom(seed);
        List<Sidecar> fronts = new ArrayList<>();
        for (int i = 0; i < sidecars; i++) {
            fronts.add(new Sidecar(variant, routing, engines, speeds, backend.slots() / sidecars, Math.max(1, workload.size()), clock,
                    random.split()));
        }
        List<SimRequest> requests = workload.requests();
        List<CompletedRequest> completed = new ArrayList<>(requests.size());
        int next = 0;
        while (next < requests.size() || completed.size() < requests.size()) {
            long now = timers.nextDueNanos();
            if (next < requests.size()) {
                now = Math.min(now, Simulation.nanos(requests.get(next).arrivalSeconds()));
            }
            if (now == Long.MAX_VALUE) {
                throw new IllegalStateException(completed.size() + " of " + requests.size() + " jobs completed and nothing is left to happen");
            }
            clock.moveTo(now);
            timers.runDue();
            while (next < requests.size() && Simulation.nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next);
                fronts.get(next++ % sidecars).submit(request);
            }
            for (Sidecar sidecar : fronts) {
                sidecar.dispatch(completed);
            }
        }
        return new SimulationRun(variant, backend.slots() * speeds.size(), completed,
                fronts.stream().mapToLong(Sidecar::starvationPromotions).sum(), 0, 0, 0, List.of(), null);
    }

    /** The pool's capacity in backends of speed 1: the sum of the speeds, what loads the pool to ρ. */
    public static double capacity(List<Double> speeds) {
        return speeds.stream().mapToDouble(Double::doubleValue).sum();
    }

    /** One Triage in front of the pool: a scheduler per backend and a router, or one shared scheduler. */
    private static final class Sidecar {
        private final PolicyVariant variant;
        private final VirtualClock clock;
        private final List<Member> members = new ArrayList<>();
        private final Scheduler<SimRequest> shared;
        private final Router router;

        Sidecar(PolicyVariant variant, Routing routing, List<GenerationEngine> engines, List<Double> speeds, int slots, int queueLimit,
                VirtualClock clock, SplittableRandom random) {
            this.variant = variant;
            this.clock = clock;
            for (int i = 0; i < engines.size(); i++) {
                Scheduler<SimRequest> own = routing == Routing.SHARED_QUEUE ? null : new Scheduler<>(settings(slots, queueLimit), clock);
                members.add(new Member(engines.get(i), speeds.get(i), slots, own));
            }
            this.shared = routing == Routing.SHARED_QUEUE ? new Scheduler<>(settings(slots * engines.size(), queueLimit), clock) : null;
            this.router = routing == Routing.SHARED_QUEUE ? null : new Router(routing, members, random);
        }

        private SchedulerSettings settings(int slots, int queueLimit) {
            return new SchedulerSettings(variant.policy(), variant.starvationTimeout(), queueLimit, slots, variant.laps());
        }

        void submit(SimRequest request) {
            if (shared != null) {
                shared.submit(request, 0, Simulation.cost(request, variant, 0)).orElseThrow();
                return;
            }
            double expected = variant.expectedSeconds(request);
            Member member = router.choose(expected);
            member.queue.submit(request, 0, Simulation.cost(request, variant, 0)).orElseThrow();
            member.queuedSeconds += expected;
        }

        void dispatch(List<CompletedRequest> completed) {
            Dispatch<SimRequest> dispatch;
            if (shared != null) {
                while ((dispatch = shared.dispatchNext()) != null) {
                    fastestFree(members).start(dispatch, shared, clock, completed);
                }
                return;
            }
            for (Member member : members) {
                while ((dispatch = member.queue.dispatchNext()) != null) {
                    member.queuedSeconds -= dispatch.job().expectedSeconds();
                    member.start(dispatch, member.queue, clock, completed);
                }
            }
        }

        long starvationPromotions() {
            return shared != null ? shared.starvationPromotions() : members.stream().mapToLong(m -> m.queue.starvationPromotions()).sum();
        }
    }

    private static Member fastestFree(List<Member> members) {
        Member best = null;
        for (Member member : members) {
            if (member.running < member.slots && (best == null || member.speed > best.speed)) {
                best = member;
            }
        }
        if (best == null) {
            throw new IllegalStateException("the shared queue dispatched with every backend's slots taken");
        }
        return best;
    }

    /** One backend as one sidecar sees it: the engine, the sidecar's share of its slots, and what a router may know of it. */
    private static final class Member {
        final GenerationEngine engine;
        final double speed;
        final int slots;
        final Scheduler<SimRequest> queue;
        int running;
        double queuedSeconds;
        double runningSeconds;

        Member(GenerationEngine engine, double speed, int slots, Scheduler<SimRequest> queue) {
            this.engine = engine;
            this.speed = speed;
            this.slots = slots;
            this.queue = queue;
        }

        int outstanding() {
            return running + (queue == null ? 0 : queue.waitingCount());
        }

        /** Seconds until this backend would finish a request of {@code expectedSeconds} sent now, by its estimates. */
        double expectedCompletion(double expectedSeconds) {
            double ahead = outstanding() < slots ? 0 : (queuedSeconds + runningSeconds) / slots;
            return (ahead + expectedSeconds) / speed;
        }

        void start(Dispatch<SimRequest> dispatch, Scheduler<SimRequest> scheduler, VirtualClock clock, List<CompletedRequest> completed) {
            running++;
            double expected = dispatch.job().expectedSeconds();
            runningSeconds += expected;
            JobSize size = dispatch.job().payload().size();
            engine.submit(new Generation(size.prefillSeconds() / speed, size.outputTokens(),
                    new Simulation.Running(dispatch, scheduler, clock, completed, () -> {
                        running--;
                        runningSeconds -= expected;
                    })));
        }
    }

    /** Picks a backend's queue for an arriving request. */
    private static final class Router {
        private final Routing routing;
        private final List<Member> members;
        private final SplittableRandom random;
        private int turn;

        Router(Routing routing, List<Member> members, SplittableRandom random) {
            this.routing = routing;
            this.members = members;
            this.random = random;
        }

        Member choose(double expectedSeconds) {
            switch (routing) {
                case ROUND_ROBIN:
                    return members.get(turn++ % members.size());
                case LEAST_OUTSTANDING:
                    return least(members, expectedSeconds, false);
                case LEAST_EXPECTED_COMPLETION:
                    return least(members, expectedSeconds, true);
                case POWER_OF_TWO: {
                    if (members.size() == 1) {
                        return members.get(0);
                    }
                    int first = random.nextInt(members.size());
                    int second = (first + 1 + random.nextInt(members.size() - 1)) % members.size();
                    return least(List.of(members.get(first), members.get(second)), expectedSeconds, false);
                }
                default:
                    throw new IllegalStateException("a shared queue routes nothing on arrival");
            }
        }

        /** The member with the least outstanding requests or expected completion; ties go to the faster, then the first. */
        private static Member least(List<Member> candidates, double expectedSeconds, boolean byCompletion) {
            Member best = null;
            double bestScore = Double.POSITIVE_INFINITY;
            for (Member member : candidates) {
                double score = byCompletion ? member.expectedCompletion(expectedSeconds) : member.outstanding();
                if (score < bestScore || score == bestScore && member.speed > best.speed) {
                    best = member;
                    bestScore = score;
                }
            }
            return best;
        }
    }
}
