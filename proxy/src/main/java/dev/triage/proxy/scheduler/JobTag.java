package dev.triage.proxy.scheduler;

/**
 * How a waiting job is named in the queue view: never its prompt.
 *
 * @param id the request's id, as in the request log
 * @param routeKind {@code chat} or {@code audio}
 * @param tenant whom the request is served for, when the backend's time is shared among tenants
 *     ({@link FairShareJobs}); never a secret, only a name or a hash of one
 */
public record JobTag(String id, String routeKind, String tenant) {

    /** The tenant of requests that name none. */
    public static final String DEFAULT_TENANT = "default";

    /** A job of the default tenant. */
    public JobTag(String id, String routeKind) {
        this(id, routeKind, DEFAULT_TENANT);
    }
}
