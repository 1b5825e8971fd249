package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an estimator that takes milliseconds (a transformer's forward pass) off the event loops, on
 * one thread of its own. Requests that arrive while a batch is being scored wait, and are scored
 * together in the next call: under load the batches grow by themselves, at no cost in latency when
 * requests are few. At most {@code maxWaiting} requests wait; beyond that a request is refused,
 * so a slow estimator cannot pile up memory.
 *
 * <pre>{@code
 * BatchingEstimator batcher = new BatchingEstimator(ranker, 32, 1024);
 * batcher.estimate(prompt).thenAccept(estimate -> ...);   // completes on the estimator's thread
 * }</pre>
 */
public final class BatchingEstimator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchingEstimator.class);

    private record Pending(Prompt prompt, CompletableFuture<Estimate> result) {}

    private final JobEstimator<Prompt> estimator;
    private final int maxBatch;
    private final BlockingQueue<Pending> waiting;
    private final Thread worker;

    /**
     * @param maxBatch the most prompts scored in one call
     * @param maxWaiting the most prompts waiting to be scored
     */
    public BatchingEstimator(JobEstimator<Prompt> estimator, int maxBatch, int maxWaiting) {
        this.estimator = estimator;
        this.maxBatch = maxBatch;
        this.waiting = new ArrayBlockingQueue<>(maxWaiting);
        this.worker = new DaemonThreadFactory("triage-estimator").newThread(this::work);
        this.worker.start();
    }

    /**
     * The prompt's estimate, completed on the estimator's thread; failed with a
     * {@link RejectedExecutionException} when too many prompts already wait.
     */
    public CompletableFuture<Estimate> estimate(Prompt prompt) {
        CompletableFuture<Estimate> result = new CompletableFuture<>();
        if (!waiting.offer(new Pending(prompt, result))) {
            result.completeExceptionally(new RejectedExecutionException(waiting.size() + " prompts already wait for the estimator"));
        }
        return result;
    }

    private void work() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        try {
            while (true) {
                batch.add(waiting.take());
                waiting.drainTo(batch, maxBatch - 1);
                score(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            for (Pending pending : batch) {
                pending.result.completeExceptionally(new RejectedExecutionException("the estimator stopped"));
            }
        }
    }

    private void score(List<Pending> batch) {
        List<Estimate> estimates;
        try {
            estimates = estimator.estimateAll(batch.stream().map(Pending::prompt).toList());
        } catch (RuntimeException e) {
            log.warn("the {} estimator failed on a batch of {}", estimator.name(), batch.size(), e);
            batch.forEach(pending -> pending.result.completeExceptionally(e));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).result.complete(estimates.get(i));
        }
    }

    @Override
    public void close() {
        worker.interrupt();
        Pending pending;
        while ((pending = waiting.poll()) != null) {
            pending.result.completeExceptionally(new RejectedExecutionException("the estimator stopped"));
        }
    }
}
