package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A discrete-event simulation of one backend: jobs arrive, wait in the production {@link Scheduler}
 * on a virtual clock, and hold one of the backend's slots while they generate their tokens. The
 * policy code is the proxy's own; this class only moves time and feeds it events.
 *
 * <p>All events at the same instant are applied before the scheduler decides: slots that free up and
 * progress reports, then arrivals, then as many dispatches as free slots allow, then the pauses a
 * preemptive policy asks for, each followed by the dispatches it makes possible. So jobs that arrive
 * together (a burst) are all in the queue when the first of them is chosen, and a job arriving the
 * moment a slot frees competes for it.
 *
 * <p>Under a preemptive policy ({@code laps}) a running job reports its progress as the proxy does:
 * at its first token and at every multiple of the policy's window of tokens. A pause takes effect at
 * once; the job keeps the tokens it had finished, and its resume pays the prefill {@link SimBackend}
 * charges. Every completed job's real length is fed back to the scheduler, as the proxy feeds back
 * every completed request's.
 *
 * <pre>{@code
 * SimulationRun run = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), 1);
 * }</pre>
 */
public final class Simulation {

    private final Workload workload;
    private final PolicyVariant variant;
    private final SimBackend backend;
    private final VirtualClock clock = new VirtualClock();
    private final Scheduler<SimJob> scheduler;
    private final boolean reportsProgress;
    private final int windowTokens;
    private final PriorityQueue<Run> running = new PriorityQueue<>(
            Comparator.comparingLong(Run::nextEventNanos).thenComparingInt(run -> run.job.request.id()));
    private final Map<SimJob, Boolean> cachedPauses;
    private final List<CompletedRequest> completed;

    private Simulation(Workload workload, PolicyVariant variant, SimBackend backend) {
        this.workload = workload;
        this.variant = variant;
        this.backend = backend;
        SchedulerSettings settings = new SchedulerSettings(variant.policy(), variant.starvationTimeout(),
                Math.max(1, workload.size()), backend.slots(), variant.laps());
        this.scheduler = new Scheduler<>(settings, clock);
        this.reportsProgress = variant.policy() == Policy.LAPS;
        this.windowTokens = variant.laps().windowTokens();
        int spare = backend.spareSlots();
        this.cachedPauses = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SimJob, Boolean> eldest) {
                return size() > spare;
            }
        };
        this.completed = new ArrayList<>(workload.size());
    }

    /** Runs the workload on {@code slots} slots of the default backend; see {@link #run(Workload, PolicyVariant, SimBackend)}. */
    public static SimulationRun run(Workload workload, PolicyVariant variant, int slots) {
        return run(workload, variant, SimBackend.of(slots));
    }

    /** Runs the workload to the end: every job completes (the queue is as long as the workload). */
    public static SimulationRun run(Workload workload, PolicyVariant variant, SimBackend backend) {
        if (variant.srpt()) {
            return SrptBound.run(workload, variant, backend);
        }
        return new Simulation(workload, variant, backend).run();
    }

    private SimulationRun run() {
        List<SimRequest> requests = workload.requests();
        int next = 0;
        while (next < requests.size() || !running.isEmpty()) {
            long now = Long.MAX_VALUE;
            if (next < requests.size()) {
                now = nanos(requests.get(next).arrivalSeconds());
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
            while (next < requests.size() && nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next++);
                SimJob job = new SimJob(request, backend.tokens(request.serviceSeconds()),
                        backend.tokens(variant.expectedSeconds(request)));
                scheduler.submit(job, 0, job.estimatedTokens, variant.expectedSeconds(request), true).orElseThrow();
            }
            dispatchAll(now);
            Dispatch<SimJob> victim;
            while ((victim = scheduler.pauseDue()) != null) {
                pause(victim, now);
                dispatchAll(now);
            }
        }
        return new SimulationRun(variant, backend.slots(), completed, scheduler.starvationPromotions(), scheduler.pauses(),
                scheduler.resumes(), scheduler.reprefilledTokens());
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
            return new Run(dispatch, job, 0, now + nanos(prefill), (service - prefill) * 1e9 / job.tokens,
                    now + Math.max(1, nanos(service)));
        }
        long before = dispatch.resumedTokens();
        boolean cached = cachedPauses.remove(job) != null;
        long prefillEnd = now + nanos(backend.resumePrefillSeconds(before, cached));
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
        cachedPauses.put(run.job, Boolean.TRUE);
    }

    static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /** One job of the workload as the simulator tracks it across its runs. */
    private static final class SimJob {
        private final SimRequest request;
        private final long tokens;
        private final long estimatedTokens;
        private double tokenNanos;
        private long firstStartNanos = -1;

        SimJob(SimRequest request, long tokens, long estimatedTokens) {
            this.request = request;
            this.tokens = tokens;
            this.estimatedTokens = estimatedTokens;
        }

        CompletedRequest complete(long finishNanos, boolean starvationPromoted) {
            return new CompletedRequest(request, nanos(request.arrivalSeconds()) / 1e9, firstStartNanos / 1e9, finishNanos / 1e9,
                    starvationPromoted);
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
            this.nextReportTokens = reportsProgress ? tokensAtStart + 1 : job.tokens;
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
