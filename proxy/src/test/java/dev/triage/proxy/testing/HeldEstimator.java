package dev.triage.proxy.testing;

import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An estimator for tests that says the same number of tokens for everything, and can hold the
 * thread that calls it until the test releases it, fail, or claim to be expensive: lets a test
 * line up what happens while an estimate is being made.
 *
 * <pre>{@code
 * HeldEstimator<Prompt> held = HeldEstimator.<Prompt>held("gated", 7).markedExpensive();
 * ... // start a request; held.entered.await(...) once it is being estimated
 * held.release.countDown();
 * }</pre>
 *
 * @param <I> what it reads
 */
public final class HeldEstimator<I> implements JobEstimator<I> {

    /** Counted down when the first estimate begins. */
    public final CountDownLatch entered = new CountDownLatch(1);
    /** Every estimate waits for it (up to a minute); open from the start unless held. */
    public final CountDownLatch release;

    private final String name;
    private final double tokens;
    private volatile boolean expensive;
    private volatile RuntimeException failure;
    private volatile boolean closed;

    private HeldEstimator(String name, double tokens, boolean held) {
        this.name = name;
        this.tokens = tokens;
        this.release = new CountDownLatch(held ? 1 : 0);
    }

    /** An estimator whose every estimate waits for {@link #release}. */
    public static <I> HeldEstimator<I> held(String name, double tokens) {
        return new HeldEstimator<>(name, tokens, true);
    }

    /** An estimator that answers at once. */
    public static <I> HeldEstimator<I> free(String name, double tokens) {
        return new HeldEstimator<>(name, tokens, false);
    }

    /** Claims to cost milliseconds, so that callers run it on an executor. */
    public HeldEstimator<I> markedExpensive() {
        this.expensive = true;
        return this;
    }

    /** Fails every estimate from now on with {@code failure}. */
    public HeldEstimator<I> failing(RuntimeException failure) {
        this.failure = failure;
        return this;
    }

    public boolean closed() {
        return closed;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Estimate estimate(I input) {
        entered.countDown();
        try {
            release.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        return Estimate.ofTokens(tokens);
    }

    @Override
    public boolean expensive() {
        return expensive;
    }

    @Override
    public void close() {
        closed = true;
    }
}
