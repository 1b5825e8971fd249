package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.scheduler.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an estimator that takes milliseconds (a transformer's forward pass) off the event loops, on
 * one thread of its own. Requests that arrive while a batch is being scored wait, and are scored
 * together in the next call: under load the batches grow by themselves, at no cost in latency when
 * requests are few. A prompt is taken only if its estimate is expected within {@code maxWait}, by
 * the measured time per prompt and the prompts ahead of it (until a batch has been timed, at most
 * one batch waits: a batcher given warm-up prompts scores them first, for their time alone, so that a
 * burst at start-up is taken by a measured time); otherwise the estimator is saturated and the caller sizes the request
 * another way. At most {@code maxWaiting} prompts wait in any case, so a slow estimator cannot pile
 * up memory. A prompt sized another way may still be {@link #tryRefine refined}: scored when no other
 * prompt waits, for a request that may still be waiting in the queue by then. The prompt of a request
 * already sent is scored only with time to spare ({@link #trySpare}), for its record and learning.
 *
 * <pre>{@code
 * BatchingEstimator batcher = new BatchingEstimator(ranker, 32, 1024, Duration.ofMillis(250), Clock.system());
 * batcher.tryEstimate(prompt).ifPresentOrElse(
 *         estimate -> estimate.thenAccept(...),   // completes on the estimator's thread
 *         () -> ...);                             // saturated
 * }</pre>
 */
public final class BatchingEstimator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchingEstimator.class);

    /** Weight of the latest batch in the running mean of the time per prompt. */
    private static final double SMOOTHING = 0.2;
    /**
     * The most of the estimator's time that goes to {@link #trySpare spare} prompts in the long run:
     * its threads share the cores with the network threads and the backend, and those prompts'
     * requests wait for nothing. Each scoring takes the cores for milliseconds, and whatever the
     * network threads have to do meanwhile waits: with a tenth, a steady stream of small requests to
     * free slots had an added p99 of 2.0 to 2.4 ms through Triage, against 0.9 to 1.5 ms with a
     * hundredth, in alternate runs of {@code scripts/overhead} (the ranker, 2 cores). A hundredth still
     * scores a few sent prompts a second, besides the burst below.
     */
    static final double SPARE_SHARE = 0.01;
    /** The estimator's time that spare prompts may take at once after a quiet spell, beyond their share. */
    static final Duration SPARE_BURST = Duration.ofSeconds(1);
    private static final long SPARE_TOLERANCE_NANOS = Math.round(SPARE_BURST.toNanos() / SPARE_SHARE);

    private record Pending(Prompt prompt, CompletableFuture<Estimate> result) {}

    private final JobEstimator<Prompt> estimator;
    private final int maxBatch;
    private final long maxWaitNanos;
    private final Clock clock;
    private final List<Prompt> warmUp;
    private final BlockingQueue<Pending> waiting;
    private final BlockingQueue<Pending> refinements;
    /** One permit per prompt in either queue, so that the worker sleeps only when both are empty. */
    private final Semaphore queued = new Semaphore(0);
    /** Prompts taken and not yet scored, in either queue or in the batch being scored. */
    private final AtomicInteger unscored = new AtomicInteger();
    private final Thread worker;
    /** Running mean of a batch's time over its prompts; 0 until the first batch has been timed. */
    private volatile double nanosPerPrompt;
    /**
     * The spare prompts' theoretical time (the generic cell rate algorithm): each one taken moves it on
     * by its expected time over {@link #SPARE_SHARE}; one is taken while it runs less than
     * {@link #SPARE_BURST} over the share ahead of the clock.
     */
    private final AtomicLong spareDue;

    /**
     * @param maxBatch the most prompts scored in one call
     * @param maxWaiting the most prompts waiting to be scored
     * @param maxWait the longest a prompt is expected to wait for its estimate
     * @param clock times the batches
     */
    public BatchingEstimator(JobEstimator<Prompt> estimator, int maxBatch, int maxWaiting, Duration maxWait, Clock clock) {
        this(estimator, maxBatch, maxWaiting, maxWait, clock, List.of());
    }

    /** @param warmUp prompts scored before any other, for their time per prompt only; none leaves the first batch to time it */
    public BatchingEstimator(JobEstimator<Prompt> estimator, int maxBatch, int maxWaiting, Duration maxWait, Clock clock,
            List<Prompt> warmUp) {
        this.estimator = estimator;
        this.warmUp = List.copyOf(warmUp);
        this.maxBatch = maxBatch;
        this.maxWaitNanos = maxWait.toNanos();
        this.clock = clock;
        this.spareDue = new AtomicLong(clock.nanoTime());
        this.waiting = new ArrayBlockingQueue<>(maxWaiting);
        this.refinements = new ArrayBlockingQueue<>(maxWaiting);
        this.worker = new DaemonThreadFactory("triage-estimator").newThread(this::work);
        this.worker.start();
    }

    /**
     * The prompt's estimate, completed on the estimator's thread (failed, with every prompt of its
     * batch, when the estimator fails, or when it stops); empty, at once, when the prompt would wait
     * longer than the bound.
     */
    public Optional<CompletableFuture<Estimate>> tryEstimate(Prompt prompt) {
        int ahead = waiting.size();
        double perPrompt = nanosPerPrompt;
        boolean saturated = perPrompt == 0 ? ahead >= maxBatch : (ahead + 1) * perPrompt > maxWaitNanos;
        CompletableFuture<Estimate> result = new CompletableFuture<>();
        if (saturated || !waiting.offer(new Pending(prompt, result))) {
            return Optional.empty();
        }
        unscored.incrementAndGet();
        queued.release();
        return Optional.of(result);
    }

    /**
     * The prompt's estimate, made once no prompt waits for {@link #tryEstimate} (completed and failed
     * as there); empty, at once, when {@code maxWaiting} prompts already wait to be refined.
     */
    public Optional<CompletableFuture<Estimate>> tryRefine(Prompt prompt) {
        CompletableFuture<Estimate> result = new CompletableFuture<>();
        if (!refinements.offer(new Pending(prompt, result))) {
            return Optional.empty();
        }
        unscored.incrementAndGet();
        queued.release();
        return Optional.of(result);
    }

    /**
     * The estimate of a prompt that no request waits for (its request was sent already), made only
     * with time to spare: when no prompt waits and none is being scored, and within
     * {@link #SPARE_SHARE} of the estimator's time (by the measured time per prompt). Completed as
     * {@link #tryEstimate}'s; empty, at once, otherwise.
     */
    public Optional<CompletableFuture<Estimate>> trySpare(Prompt prompt) {
        if (unscored.get() != 0) {
            return Optional.empty();
        }
        long now = clock.nanoTime();
        long due = spareDue.get();
        long from = due - now > 0 ? due : now;
        if (from - now > SPARE_TOLERANCE_NANOS || !spareDue.compareAndSet(due, from + Math.round(nanosPerPrompt / SPARE_SHARE))) {
            return Optional.empty();
        }
        return tryEstimate(prompt);
    }

    private void work() {
        if (!warmUp.isEmpty()) {
            time(warmUp);
        }
        List<Pending> batch = new ArrayList<>(maxBatch);
        try {
            while (true) {
                queued.acquire();
                BlockingQueue<Pending> lane = waiting.isEmpty() ? refinements : waiting;
                Pending first = lane.poll();
                if (first == null) {
                    continue; // taken by close()
                }
                batch.add(first);
                queued.acquire(lane.drainTo(batch, maxBatch - 1));
                score(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            for (Pending pending : batch) {
                pending.result.completeExceptionally(new RejectedExecutionException("the estimator stopped"));
            }
        }
    }

    /** Scores {@code prompts} for their time per prompt alone; if the estimator fails, the first batch times it. */
    private void time(List<Prompt> prompts) {
        long started = clock.nanoTime();
        try {
            estimator.estimateAll(prompts);
        } catch (RuntimeException e) {
            log.debug("the {} estimator failed on its warm-up prompts", estimator.name(), e);
            return;
        }
        nanosPerPrompt = (double) (clock.nanoTime() - started) / prompts.size();
    }

    private void score(List<Pending> batch) {
        List<Estimate> estimates;
        long started = clock.nanoTime();
        try {
            estimates = estimator.estimateAll(batch.stream().map(Pending::prompt).toList());
        } catch (RuntimeException e) {
            unscored.addAndGet(-batch.size());
            log.warn("the {} estimator failed on a batch of {}", estimator.name(), batch.size(), e);
            batch.forEach(pending -> pending.result.completeExceptionally(e));
            return;
        }
        double perPrompt = (double) (clock.nanoTime() - started) / batch.size();
        double before = nanosPerPrompt;
        nanosPerPrompt = before == 0 ? perPrompt : (1 - SMOOTHING) * before + SMOOTHING * perPrompt;
        unscored.addAndGet(-batch.size()); // before the results: a caller that has one finds the estimator free
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).result.complete(estimates.get(i));
        }
    }

    @Override
    public void close() {
        worker.interrupt();
        for (BlockingQueue<Pending> lane : List.of(waiting, refinements)) {
            Pending pending;
            while ((pending = lane.poll()) != null) {
                pending.result.completeExceptionally(new RejectedExecutionException("the estimator stopped"));
            }
        }
    }
}
