package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.SwappableEstimator;
import dev.triage.proxy.scheduler.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An estimate for every chat prompt, in time. The configured estimator sizes a prompt whenever it
 * can: a cheap one on the calling thread (the event loop), an expensive one on its
 * {@link BatchingEstimator}. When it cannot — its model is still loading, its executor is
 * saturated, it failed on the prompt, or its model could not be loaded — the fallback, a cheap
 * estimator, sizes the prompt on the calling thread instead, and the reason is counted. No request is
 * refused or held back for want of an estimate. For a prompt the fallback sized because the executor
 * was saturated, the configured estimator's own estimate can be asked for, made once it has caught up,
 * so that a request still waiting by then is placed by it ({@link Estimated#better}). A request sent
 * to a free slot before it was sized is sized by the expensive estimator only when it has time to
 * spare ({@link #estimateSent}).
 *
 * <pre>{@code
 * ChatEstimation estimation = ChatEstimation.loading("ranker", lexical, metrics::estimatorTimer,
 *         metrics::estimatorFallbacks);
 * estimation.estimate(prompt);          // the lexical trees' estimate, counted as reason "loading"
 * estimation.install(ranker);           // from the loading thread; later prompts go to the ranker
 * }</pre>
 */
public final class ChatEstimation implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ChatEstimation.class);

    /** An expensive estimator scores at most this many prompts per call; at most this many wait. */
    static final int BATCH = 32;
    static final int MAX_WAITING = 1024;

    /** The longest a prompt is expected to wait for an expensive estimator before the fallback sizes it. */
    static final Duration MAX_WAIT = Duration.ofMillis(250);

    /** Why the fallback sized a prompt; the {@code reason} label of {@code triage_estimator_fallbacks_total}. */
    public enum FallbackReason {
        /** The configured estimator's model is still loading. */
        LOADING,
        /** Its executor has more prompts waiting than it scores in {@link #MAX_WAIT}. */
        SATURATED,
        /** It failed on the prompt. */
        FAILED,
        /** Its model could not be loaded; a successful reload ends this. */
        UNAVAILABLE,
        /** The request was sent already, to a free slot, and the estimator was busy with others. */
        SENT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The configured estimator's state, as {@code /readyz} reports it. */
    public enum State {
        LOADING, READY, UNAVAILABLE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The configured estimator once loaded, and its executor when it is expensive. */
    private record Configured(SwappableEstimator<Prompt> estimator, BatchingEstimator batcher) {}

    private final String name;
    private final JobEstimator<Prompt> fallback;
    private final Function<String, Timer> timers;
    private final Map<FallbackReason, Counter> fallbacks = new EnumMap<>(FallbackReason.class);
    private volatile Configured configured;
    private volatile boolean unavailable;
    private boolean closed;

    private ChatEstimation(String name, JobEstimator<Prompt> fallback, Function<String, Timer> timers,
            Function<String, Counter> fallbackCounters) {
        this.name = name;
        this.fallback = fallback;
        this.timers = timers;
        for (FallbackReason reason : FallbackReason.values()) {
            fallbacks.put(reason, fallbackCounters.apply(reason.label()));
        }
    }

    /**
     * The configured estimator, already loaded.
     *
     * @param fallback sizes a prompt the estimator cannot; null for none (an estimator that runs on
     *     the event loop is never loading nor saturated, and a failure is then the request's)
     * @param timers the timer a named estimator's time per request is recorded in; for an expensive
     *     one the time includes the wait for its batch
     * @param fallbackCounters the counter of the fallbacks of a reason, by its label
     */
    public static ChatEstimation ready(JobEstimator<Prompt> estimator, JobEstimator<Prompt> fallback,
            Function<String, Timer> timers, Function<String, Counter> fallbackCounters) {
        ChatEstimation estimation = new ChatEstimation(estimator.name(), fallback, timers, fallbackCounters);
        estimation.install(estimator);
        return estimation;
    }

    /** The configured estimator {@code name} whose model is yet to be {@link #install installed}; {@code fallback} sizes until then. */
    public static ChatEstimation loading(String name, JobEstimator<Prompt> fallback, Function<String, Timer> timers,
            Function<String, Counter> fallbackCounters) {
        return new ChatEstimation(name, Objects.requireNonNull(fallback, "fallback"), timers, fallbackCounters);
    }

    /**
     * Makes {@code model} the configured estimator's, the first one or a replacement; from any
     * thread. A model installed after {@link #close} is closed at once.
     */
    public synchronized void install(JobEstimator<Prompt> model) {
        if (closed) {
            model.close();
            return;
        }
        Configured current = configured;
        if (current != null) {
            current.estimator().swap(model);
            return;
        }
        SwappableEstimator<Prompt> estimator = new SwappableEstimator<>(model);
        configured = new Configured(estimator, model.expensive()
                ? new BatchingEstimator(estimator, BATCH, MAX_WAITING, MAX_WAIT, Clock.system(), ModelReloader.CANARIES) : null);
    }

    /** The first model could not be loaded: the fallback sizes every prompt until an {@link #install}. */
    public synchronized void loadFailed() {
        if (configured == null) {
            unavailable = true;
        }
    }

    /** How many prompts the fallback has sized, for every reason. */
    public long fallbacks() {
        return Math.round(fallbacks.values().stream().mapToDouble(Counter::count).sum());
    }

    /** The configured estimator's name. */
    public String name() {
        return name;
    }

    public State state() {
        return configured != null ? State.READY : unavailable ? State.UNAVAILABLE : State.LOADING;
    }

    /**
     * The prompt's estimate: completed at once when a cheap estimator or the fallback made it, on the
     * expensive estimator's thread otherwise. It fails only when the configured estimator failed and
     * there is no fallback.
     */
    public CompletableFuture<Estimated> estimate(Prompt prompt) {
        Configured current = configured;
        if (current == null) {
            return CompletableFuture.completedFuture(Estimated.ofFallback(fallBack(prompt, unavailable ? FallbackReason.UNAVAILABLE
                    : FallbackReason.LOADING)));
        }
        if (current.batcher() == null) {
            try {
                return CompletableFuture.completedFuture(Estimated.of(timed(current.estimator(), prompt)));
            } catch (RuntimeException e) {
                if (fallback != null) {
                    log.warn("the {} estimator failed on a prompt; the {} estimator sized it", current.estimator().name(),
                            fallback.name(), e);
                }
                return failed(prompt, e);
            }
        }
        long started = System.nanoTime();
        Optional<CompletableFuture<Estimate>> scored = current.batcher().tryEstimate(prompt);
        if (scored.isEmpty()) {
            Estimate now = fallBack(prompt, FallbackReason.SATURATED);
            return CompletableFuture.completedFuture(new Estimated(now, true, () -> current.batcher().tryRefine(prompt)));
        }
        return scoredOrFallen(current, prompt, started, scored.get());
    }

    /** The expensive estimator's estimate once scored, timed from {@code started}, or the fallback's if it failed. */
    private CompletableFuture<Estimated> scoredOrFallen(Configured current, Prompt prompt, long started,
            CompletableFuture<Estimate> scored) {
        return scored.handle((estimate, error) -> {
            if (error == null) {
                timers.apply(current.estimator().name()).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                return CompletableFuture.completedFuture(Estimated.of(estimate));
            }
            return failed(prompt, error); // the batcher logged it, once for its batch
        }).thenCompose(Function.identity());
    }

    /**
     * The estimate of a prompt whose request was sent already, for its record, metrics and learning
     * only: the configured estimator's when it is cheap or has time to spare
     * ({@link BatchingEstimator#trySpare}), the fallback's otherwise, at once on the calling thread.
     * An expensive estimator's time goes to the prompts of requests that wait, and is never queued for
     * one that no longer does.
     */
    public CompletableFuture<Estimated> estimateSent(Prompt prompt) {
        Configured current = configured;
        if (current == null || current.batcher() == null || fallback == null) {
            return estimate(prompt);
        }
        long started = System.nanoTime();
        return current.batcher().trySpare(prompt).map(scored -> scoredOrFallen(current, prompt, started, scored))
                .orElseGet(() -> CompletableFuture.completedFuture(Estimated.ofFallback(fallBack(prompt, FallbackReason.SENT))));
    }

    /** The configured estimator failed on the prompt: the fallback's estimate, or the failure when there is none. */
    private CompletableFuture<Estimated> failed(Prompt prompt, Throwable error) {
        if (fallback == null) {
            return CompletableFuture.failedFuture(error);
        }
        return CompletableFuture.completedFuture(Estimated.ofFallback(fallBack(prompt, FallbackReason.FAILED)));
    }

    private Estimate fallBack(Prompt prompt, FallbackReason reason) {
        fallbacks.get(reason).increment();
        return timed(fallback, prompt);
    }

    private Estimate timed(JobEstimator<Prompt> estimator, Prompt prompt) {
        return timers.apply(estimator.name()).record(() -> estimator.estimate(prompt));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Configured current = configured;
        if (current != null) {
            if (current.batcher() != null) {
                current.batcher().close();
            }
            current.estimator().close();
        }
        if (fallback != null) {
            fallback.close();
        }
    }
}
