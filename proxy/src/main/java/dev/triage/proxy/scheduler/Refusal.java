package dev.triage.proxy.scheduler;

/**
 * Why a job will not be sent.
 *
 * @param reason what happened
 * @param retryAfterSeconds for a full queue, a hint for the client's {@code Retry-After}; 0 otherwise
 */
public record Refusal(Reason reason, long retryAfterSeconds) {

    public enum Reason {
        /** The backend's queue already held {@code max-queue} jobs. */
        QUEUE_FULL,
        /** The job waited longer than {@code max-queue-wait}. */
        QUEUE_TIMEOUT,
        /** The proxy is shutting down and sends no more jobs. */
        SHUTTING_DOWN
    }
}
