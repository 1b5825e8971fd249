package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * {@link Simulation} under a preemptive policy ({@code laps}): jobs run token by token, so that a
 * pause can cut them between tokens, on the production {@link Scheduler} and a virtual clock.
 *
 * <p>All events at the same instant are applied before the scheduler decides: slots that free up and
 * progress reports, then arrivals, then as many dispatches as free slots allow, then the pauses the
 * policy asks for, each followed by the dispatches it makes possible.
 *
 * <p>A running job reports its progress as the proxy does: at its first token and at every multiple
 * of the policy's window of tokens. A pause takes effect at once; the job keeps the tokens it had
 * finished, and its resume pays the prefill the {@link SimulatedBackend} charges. Every completed
 * job's real length is fed back to the scheduler, as the proxy feeds back every completed request's.
 */
final class PreemptiveSimulation {

    private final Workload workload;
    private final PolicyVariant variant;
    private final SimulatedBackend backend;
    private final VirtualClock clock = new VirtualClock();
    private final Scheduler<SimJob> scheduler;
    private final int windowTokens;
    private final PriorityQueue<Run> running = new PriorityQueue<>(
            Comparator.comparingLong(Run::nextEventNanos).thenComparingInt(run -> run.job.request.id()));
    private final KeptCaches<SimJob> cachedPauses;
    private final List<CompletedRequest> completed;

    private PreemptiveSimulation(Workload workload, PolicyVariant variant, SimulatedBackend backend) {
        if (!(backend.secondsPerToken() > 0) || backend.batchSlowdown() > 0) {
            throw new IllegalArgumentException("policy " + variant.name() + " on a backend of " + backend.secondsPerToken()
                    + " s/token, batch slowdown " + backend.batchSlowdown() + " (expected: > 0 s/token, no batch slowdown)");
        }
        this.workload = workload;
        this.variant = variant;
        this.backend = backend;
        SchedulerSettings settings = new SchedulerSettings(variant.policy(), variant.starvationTimeout(),
                Math.max(1, workload.size()), backend.slots(), variant.laps());
        this.scheduler = new Scheduler<>(settings, clock);
        this.windowTokens = variant.laps().windowTokens();
        this.cachedPauses = new KeptCaches<>(backend.spareSlots());
        this.completed = new ArrayList<>(workload.size());
    }

    /** Runs the workload to the end: every job completes (the queue is as long as the workload). */
    static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend) {
        return new PreemptiveSimulation(workload, variant, backend).run();
    }

    private SimulationRun run() {
        List<SimRequest> requests = workload.requests();
        int next = 0;
        while (next < requests.size() || !running.isEmpty()) {
            long now = Long.MAX_VALUE;
            if (next < requests.size()) {
                now = Simulation.nanos(requests.get(next).arrivalSeconds());
            }
            if (!running.isEmpty()) {
                now = Math.min(now, running.peek().nextEventNanos());
            }
            clock.moveTo(now);
            while (!running.isEmpty() && running.peek().nextEventNanos() == now) {
                Run run = running.poll();
                if (run.finishes()) {
                    scheduler.release(run.dispatch);
                    scheduler.feedback(run.job.estimatedTokens, run.job.tokens);
                    completed.add(run.job.complete(now, run.dispatch.starvationPromoted()));
                } else {
                    scheduler.progress(run.dispatch, run.nextReportTokens);
                    run.reported();
                    running.add(run);
                }
            }
            while (next < requests.size() && Simulation.nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next++);
                SimJob job = new SimJob(request, backend.tokens(request.serviceSeconds()),
                        backend.tokens(variant.expectedSeconds(request)));
                scheduler.submit(job, 0, Simulation.cost(request, variant, job.estimatedTokens), true).orElseThrow();
            }
            dispatchAll(now);
            Dispatch<SimJob> victim;
            while ((victim = scheduler.pauseDue()) != null) {
                pause(victim, now);
                dispatchAll(now);
            }
        }
        return new SimulationRun(variant, backend.slots(), completed, scheduler.starvationPromotions(), scheduler.pauses(),
                scheduler.resumes(), scheduler.reprefilledTokens(), List.of(), null);
    }

    private void dispatchAll(long now) {
        Dispatch<SimJob> dispatch;
        while ((dispatch = scheduler.dispatchNext()) != null) {
            running.add(start(dispatch, now));
        }
    }

    private Run start(Dispatch<SimJob> dispatch, long now) {
        SimJob job = dispatch.job().payload();
        if (job.firstStartNanos < 0) {
            job.firstStartNanos = now;
            double service = job.request.serviceSeconds();
            double prefill = backend.firstPrefillSeconds(service);
            double tokenNanos = (service - prefill) * 1e9 / job.tokens;
            long finish = now + Math.max(1, Simulation.nanos(service));
            // A run is paused only once it has reported a token, so the first token always comes in the first run.
            job.firstTokenNanos = Math.min(finish, now + Simulation.nanos(prefill) + Math.round(tokenNanos));
            return new Run(dispatch, job, 0, now + Simulation.nanos(prefill), tokenNanos, finish);
        }
        long before = dispatch.resumedTokens();
        boolean cached = cachedPauses.resumes(job);
        long prefillEnd = now + Simulation.nanos(backend.resumePrefillSeconds(before, cached));
        double tokenNanos = job.tokenNanos;
        return new Run(dispatch, job, before, prefillEnd, tokenNanos,
                Math.max(now + 1, prefillEnd + Math.round((job.tokens - before) * tokenNanos)));
    }

    private void pause(Dispatch<SimJob> victim, long now) {
        Run run = null;
        for (Run candidate : running) {
            if (candidate.dispatch == victim) {
                run = candidate;
                break;
            }
        }
        if (run == null) {
            throw new IllegalStateException("asked to pause a job that is not running: " + victim.job());
        }
        running.remove(run);
        scheduler.pause(victim, run.tokensAt(now));
        cachedPauses.paused(run.job);
    }

    /** One job of the workload as the simulator tracks it across its runs. */
    private static final class SimJob {
        private final SimRequest request;
        private final long tokens;
        private final long estimatedTokens;
        private double tokenNanos;
        private long firstStartNanos = -1;
        private long firstTokenNanos;

        SimJob(SimRequest request, long tokens, long estimatedTokens) {
            this.request = request;
            this.tokens = tokens;
            this.estimatedTokens = estimatedTokens;
        }

        CompletedRequest complete(long finishNanos, boolean starvationPromoted) {
            return new CompletedRequest(request, Simulation.nanos(request.arrivalSeconds()) / 1e9, firstStartNanos / 1e9,
                    firstTokenNanos / 1e9, finishNanos / 1e9, starvationPromoted);
        }
    }

    /** One run of a job on a slot, from its dispatch to its end or its pause. */
    private final class Run {
        private final Dispatch<SimJob> dispatch;
        private final SimJob job;
        private final long tokensAtStart;
        private final long prefillEndNanos;
        private final double tokenNanos;
        private final long finishNanos;
        private long nextReportTokens;

        Run(Dispatch<SimJob> dispatch, SimJob job, long tokensAtStart, long prefillEndNanos, double tokenNanos,
                long finishNanos) {
            this.dispatch = dispatch;
            this.job = job;
            this.tokensAtStart = tokensAtStart;
            this.prefillEndNanos = prefillEndNanos;
            this.tokenNanos = tokenNanos;
            this.finishNanos = finishNanos;
            job.tokenNanos = tokenNanos;
            this.nextReportTokens = tokensAtStart + 1;
        }

        long nextEventNanos() {
            return finishes() ? finishNanos : Math.min(finishNanos, tokenTime(nextReportTokens));
        }

        /** True when the next event is the end of the job. */
        boolean finishes() {
            return nextReportTokens >= job.tokens || tokenTime(nextReportTokens) >= finishNanos;
        }

        void reported() {
            nextReportTokens = (nextReportTokens / windowTokens + 1) * windowTokens;
        }

        /** When the {@code token}-th token of the answer is finished: after the prefill, one token time each. */
        long tokenTime(long token) {
            return prefillEndNanos + Math.round((token - tokensAtStart) * tokenNanos);
        }

        /** The tokens finished at {@code now}, short of the last (the job would have ended). */
        long tokensAt(long now) {
            if (now < prefillEndNanos) {
                return tokensAtStart;
            }
            if (tokenNanos <= 0) {
                return job.tokens - 1;
            }
            long done = tokensAtStart + (long) ((now - prefillEndNanos) / tokenNanos);
            return Math.min(job.tokens - 1, done);
        }
    }
}
