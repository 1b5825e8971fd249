package dev.triage.proxy.sizing;

import java.util.concurrent.CompletableFuture;

/**
 * A scheduled request read and found fit to forward, whose size is still to be estimated: before it
 * is queued, or after it was sent at once to a free slot, where its estimate serves the response
 * headers, the metrics, the request log and the ranking feedback.
 */
public interface CheckedRequest {

    /**
     * Sizes the request: on the calling thread when the estimator takes microseconds, else on the
     * estimator's own thread.
     *
     * @return the job's size, or a future failed with {@link RequestRejectedException}
     */
    CompletableFuture<SizedJob> size();

    /**
     * Sizes the request once it was sent, for its record, metrics and learning: as {@link #size}, but
     * an expensive estimator that is busy leaves it to the fallback, at once on the calling thread.
     */
    CompletableFuture<SizedJob> sizeSent();
}
