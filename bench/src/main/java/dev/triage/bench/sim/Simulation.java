package dev.triage.bench.sim;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.backend.Generation;
import dev.triage.bench.backend.GenerationEngine;
import dev.triage.bench.backend.GenerationListener;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.Trial;
import java.util.ArrayList;
import java.util.List;

/**
 * A discrete-event simulation of one backend: jobs arrive, wait in the production {@link Scheduler}
 * on a virtual clock, and run on the replay backend's {@link GenerationEngine}, as many at once as the
 * backend has slots. The policy code and the backend's timing model are the proxy's and the replay
 * backend's own; this class only moves time and feeds them events.
 *
 * <p>All events at the same instant are applied before the scheduler decides: slots that free up,
 * then arrivals, then as many dispatches as free slots allow. So jobs that arrive together (a burst)
 * are all in the queue when the first of them is chosen, and a job arriving the moment a slot frees
 * competes for it.
 *
 * <p>A preemptive policy ({@code laps}) pauses jobs between tokens and pays their prefill again when
 * they resume: on the engine when the jobs carry their tokens ({@link EnginePreemption}), token by
 * token from their service times otherwise ({@link PreemptiveSimulation}); the {@code oracle-srpt}
 * bound is run outside the scheduler ({@link SrptBound}).
 *
 * <pre>{@code
 * SimulationRun run = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1));
 * }</pre>
 */
public final class Simulation {

    private Simulation() {}

    /** Runs the workload to the end: every job completes (the queue is as long as the workload). */
    public static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend) {
        if (variant.srpt()) {
            return SrptBound.run(workload, variant, backend);
        }
        if (variant.policy() == Policy.LAPS && !carriesTokens(workload)) {
            return PreemptiveSimulation.run(workload, variant, backend);
        }
        return onEngine(workload, variant, backend, JobCosting.estimates(variant));
    }

    /**
     * Runs the workload to the end with the scheduler told each job's cost by {@code costing}: when it
     * moves, every waiting job is costed again, as the proxy's queue does when its learner moves.
     *
     * @throws IllegalArgumentException for a policy that pauses jobs, which is told their expected tokens on arrival only
     */
    static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend, JobCosting costing) {
        if (variant.srpt() || variant.policy() == Policy.LAPS) {
            throw new IllegalArgumentException("policy " + variant.name() + " with a costing of its own (expected: a policy that does not pause)");
        }
        return onEngine(workload, variant, backend, costing);
    }

    private static SimulationRun onEngine(Workload workload, PolicyVariant variant, SimulatedBackend backend, JobCosting costing) {
        boolean preemptive = variant.policy() == Policy.LAPS;
        VirtualClock clock = new VirtualClock();
        VirtualTimers timers = new VirtualTimers(clock);
        GenerationEngine engine = new GenerationEngine(timers, backend.slots(), backend.secondsPerToken(),
                BatchSlowdown.linear(backend.batchSlowdown()));
        SchedulerSettings settings = new SchedulerSettings(variant.policy(), variant.starvationTimeout(),
                Math.max(1, workload.size()), backend.slots(), variant.laps());
        // The policy's slow loops run inline: a simulation is one thread, and repeatable.
        EwsjfQueues<SimRequest> ewsjf = variant.ewsjf() == null ? null : new EwsjfQueues<>(variant.ewsjf(), clock, Runnable::run);
        Scheduler<SimRequest> scheduler = ewsjf == null ? new Scheduler<>(settings, clock) : new Scheduler<>(settings, clock, ewsjf);
        List<SimRequest> requests = workload.requests();
        List<CompletedRequest> completed = new ArrayList<>(requests.size());
        List<Trial> trials = new ArrayList<>();
        EnginePreemption preemption = preemptive
                ? new EnginePreemption(engine, scheduler, backend, clock, completed, variant.laps().windowTokens())
                : null;
        int next = 0;
        long costedAt = costing.version();
        while (next < requests.size() || completed.size() < requests.size()) {
            long now = timers.nextDueNanos();
            if (next < requests.size()) {
                now = Math.min(now, nanos(requests.get(next).arrivalSeconds()));
            }
            if (now == Long.MAX_VALUE) {
                throw new IllegalStateException(completed.size() + " of " + requests.size() + " jobs completed and nothing is left to happen");
            }
            clock.moveTo(now);
            timers.runDue();
            int running = Math.min(backend.slots(), engine.busySlots() + 1);
            while (next < requests.size() && nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next++);
                JobCost cost = preemption == null ? costing.cost(request, running)
                        : cost(request, variant, preemption.expectedTokens(request, variant.expectedSeconds(request)));
                scheduler.submit(request, 0, cost, preemptive).orElseThrow();
            }
            if (costing.version() != costedAt) {
                costedAt = costing.version();
                scheduler.recost(job -> true, job -> costing.cost(job.payload(), running));
            }
            Dispatch<SimRequest> dispatch;
            while ((dispatch = scheduler.dispatchNext()) != null) {
                JobSize size = dispatch.job().payload().size();
                if (size.outputTokens() > 0 && backend.secondsPerToken() == 0) {
                    throw new IllegalArgumentException("job " + dispatch.job().payload().id() + " has " + size.outputTokens()
                            + " tokens (expected: a backend with a decoding speed, not SimulatedBackend.slots)");
                }
                if (preemption != null) {
                    preemption.start(dispatch);
                } else {
                    engine.submit(new Generation(size.prefillSeconds(), size.outputTokens(), new Running(dispatch, scheduler, clock, completed,
                            () -> costing.completed(completed.get(completed.size() - 1), engine.busySlots() + 1))));
                }
            }
            if (preemption != null) {
                preemption.pauseDue();
            }
            if (ewsjf != null && ewsjf.trialCount() > trials.size()) {
                trials.add(ewsjf.lastTrial());
            }
        }
        return new SimulationRun(variant, backend.slots(), completed, scheduler.starvationPromotions(), scheduler.pauses(),
                scheduler.resumes(), scheduler.reprefilledTokens(), trials,
                ewsjf == null ? null : ewsjf.openTrialReward());
    }

    /**
     * What the scheduler is told: the prompt and its prefill exactly (both known on arrival), the
     * service time as the variant sees it, and the expected answer's tokens. Only {@code laps} reads
     * the tokens (its remaining time); the others compare seconds, and are told none.
     */
    static JobCost cost(SimRequest request, PolicyVariant variant, double expectedTokens) {
        JobSize size = request.size();
        double expected = variant.expectedSeconds(request);
        return new JobCost(size.promptTokens(), expectedTokens, Math.min(size.prefillSeconds(), expected), expected);
    }

    /** True when the workload's jobs carry answer tokens, so that the engine generates them. */
    private static boolean carriesTokens(Workload workload) {
        return workload.requests().stream().anyMatch(request -> request.size().outputTokens() > 0);
    }

    static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /**
     * A dispatched job on the engine: it frees its slot in the scheduler when its last token is out, and
     * then tells {@code whenFinished}.
     */
    static final class Running implements GenerationListener {
        private final Dispatch<SimRequest> dispatch;
        private final Scheduler<SimRequest> scheduler;
        private final VirtualClock clock;
        private final List<CompletedRequest> completed;
        private final Runnable whenFinished;
        private double firstTokenSeconds = Double.NaN;

        Running(Dispatch<SimRequest> dispatch, Scheduler<SimRequest> scheduler, VirtualClock clock, List<CompletedRequest> completed,
                Runnable whenFinished) {
            this.dispatch = dispatch;
            this.scheduler = scheduler;
            this.clock = clock;
            this.completed = completed;
            this.whenFinished = whenFinished;
        }

        @Override
        public void started() {}

        @Override
        public void token(int index) {
            if (index == 0) {
                firstTokenSeconds = clock.nanoTime() / 1e9;
            }
        }

        @Override
        public void finished() {
            scheduler.release(dispatch);
            double finish = clock.nanoTime() / 1e9;
            completed.add(new CompletedRequest(dispatch.job().payload(), dispatch.job().arrivalNanos() / 1e9,
                    dispatch.dispatchedNanos() / 1e9, Double.isNaN(firstTokenSeconds) ? finish : firstTokenSeconds, finish,
                    dispatch.starvationPromoted()));
            whenFinished.run();
        }
    }
}
