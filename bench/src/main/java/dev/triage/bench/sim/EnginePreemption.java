package dev.triage.bench.sim;

import dev.triage.bench.backend.Generation;
import dev.triage.bench.backend.GenerationEngine;
import dev.triage.bench.backend.GenerationListener;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Scheduler;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A preemptive policy ({@code laps}) on the {@link GenerationEngine}, for jobs that carry their prompt
 * and answer tokens: the same timing model, batch slowdown included, as every other policy's runs on
 * those jobs. A running job reports its progress as the proxy does, at its run's first token and at
 * every multiple of the policy's window of tokens; a pause cancels its generation between two tokens,
 * and its resume is a new generation of the tokens left, after the prefill of its prompt and of the
 * tokens it had generated (none when its KV cache survived among the backend's spare slots). Every
 * completed job's real length is fed back to the scheduler.
 */
final class EnginePreemption {

    private final GenerationEngine engine;
    private final Scheduler<SimRequest> scheduler;
    private final SimulatedBackend backend;
    private final VirtualClock clock;
    private final List<CompletedRequest> completed;
    private final int windowTokens;
    private final Map<Dispatch<SimRequest>, Run> running = new HashMap<>();
    private final Map<SimRequest, FirstRun> firstRuns = new HashMap<>();
    private final KeptCaches<SimRequest> cachedPauses;

    EnginePreemption(GenerationEngine engine, Scheduler<SimRequest> scheduler, SimulatedBackend backend, VirtualClock clock,
            List<CompletedRequest> completed, int windowTokens) {
        this.engine = engine;
        this.scheduler = scheduler;
        this.backend = backend;
        this.clock = clock;
        this.completed = completed;
        this.windowTokens = windowTokens;
        this.cachedPauses = new KeptCaches<>(backend.spareSlots());
    }

    /** The expected answer's tokens of a job the variant expects to take {@code expectedSeconds}: what the policy reads. */
    double expectedTokens(SimRequest request, double expectedSeconds) {
        return Math.max(1, Math.round((expectedSeconds - request.size().prefillSeconds()) / backend.secondsPerToken()));
    }

    /** Starts a dispatched job: its first run, or the resume of a paused one. */
    void start(Dispatch<SimRequest> dispatch) {
        SimRequest request = dispatch.job().payload();
        long before = Math.max(0, dispatch.resumedTokens());
        double prefill = dispatch.resumes()
                ? backend.resumePrefillSeconds(request.size().prefillSeconds(), before, cachedPauses.resumes(request))
                : request.size().prefillSeconds();
        firstRuns.computeIfAbsent(request, r -> new FirstRun(clock.nanoTime() / 1e9));
        Run run = new Run(dispatch, before);
        running.put(dispatch, run);
        run.generation = new Generation(prefill, Math.toIntExact(request.size().outputTokens() - before), run);
        engine.submit(run.generation);
    }

    /** Makes every pause the policy asks for now, each followed by the dispatches it makes possible. */
    void pauseDue() {
        Dispatch<SimRequest> victim;
        while ((victim = scheduler.pauseDue()) != null) {
            Run run = running.remove(victim);
            if (run == null) {
                throw new IllegalStateException("asked to pause a job that is not running: " + victim.job());
            }
            engine.cancel(run.generation);
            scheduler.pause(victim, run.tokens());
            cachedPauses.paused(victim.job().payload());
            Dispatch<SimRequest> next;
            while ((next = scheduler.dispatchNext()) != null) {
                start(next);
            }
        }
    }

    /** When a job first got a slot and produced its first token, over all its runs. */
    private static final class FirstRun {
        private final double startSeconds;
        private double firstTokenSeconds = Double.NaN;

        FirstRun(double startSeconds) {
            this.startSeconds = startSeconds;
        }
    }

    /** One run of a job on the engine, from its dispatch to its end or its pause. */
    private final class Run implements GenerationListener {
        private final Dispatch<SimRequest> dispatch;
        private final long tokensAtStart;
        private Generation generation;
        private long generated;

        Run(Dispatch<SimRequest> dispatch, long tokensAtStart) {
            this.dispatch = dispatch;
            this.tokensAtStart = tokensAtStart;
        }

        long tokens() {
            return tokensAtStart + generated;
        }

        @Override
        public void started() {}

        @Override
        public void token(int index) {
            generated = index + 1L;
            FirstRun first = firstRuns.get(dispatch.job().payload());
            if (Double.isNaN(first.firstTokenSeconds)) {
                first.firstTokenSeconds = clock.nanoTime() / 1e9;
            }
            long tokens = tokens();
            if (index == 0 || tokens % windowTokens == 0) {
                scheduler.progress(dispatch, tokens);
            }
        }

        @Override
        public void finished() {
            running.remove(dispatch);
            scheduler.release(dispatch);
            SimRequest request = dispatch.job().payload();
            scheduler.feedback(dispatch.job().expectedTokens(), request.size().outputTokens());
            FirstRun first = firstRuns.remove(request);
            double finish = clock.nanoTime() / 1e9;
            completed.add(new CompletedRequest(request, dispatch.job().arrivalNanos() / 1e9, first.startSeconds,
                    Double.isNaN(first.firstTokenSeconds) ? finish : first.firstTokenSeconds, finish, dispatch.starvationPromoted()));
        }
    }
}
