package dev.triage.proxy.config;

import java.net.URI;
import java.util.Set;

/**
 * One upstream server, how many requests it runs at once, and which models it serves.
 *
 * @param url where it listens: {@code http://host[:port][/path prefix]}
 * @param maxConcurrency how many requests it runs at once: 1 for a serial server, N for a batched one
 * @param name its label in metrics, logs and the queue view; never its URL, which may hold credentials
 * @param models the {@code model} names it serves, {@link ModelName#canonical canonical}; empty for every model
 */
public record BackendConfig(URI url, int maxConcurrency, String name, Set<String> models) {

    /**
     * The most requests a backend may be given at once: far beyond any server's batch, yet small
     * enough that the slots of a pool of backends add up without overflowing.
     */
    public static final int MAX_CONCURRENCY = 100_000;
    /** What a value outside 1 to {@link #MAX_CONCURRENCY} is told. */
    static final String CONCURRENCY_RANGE = "1 to " + MAX_CONCURRENCY;

    /** Whether {@code slots} is a backend's possible max-concurrency. */
    static boolean isConcurrency(int slots) {
        return slots >= 1 && slots <= MAX_CONCURRENCY;
    }

    public BackendConfig {
        models = Set.copyOf(models);
    }

    /** A backend serving every model, named as the queue it serves ({@code chat}, {@code audio}). */
    public BackendConfig(URI url, int maxConcurrency) {
        this(url, maxConcurrency, "", Set.of());
    }

    /** True when it serves requests for {@code model}. */
    public boolean serves(String model) {
        return ModelName.servedBy(models, model);
    }

    public String host() {
        return url.getHost();
    }

    public int port() {
        return url.getPort() < 0 ? 80 : url.getPort();
    }

    /** The URL path to put before every request path, without a trailing slash; empty for none. */
    public String pathPrefix() {
        String path = url.getRawPath();
        if (path == null) {
            return "";
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The {@code Host} header value for requests to this backend. */
    public String authority() {
        return url.getPort() < 0 ? url.getHost() : url.getHost() + ":" + url.getPort();
    }
}
