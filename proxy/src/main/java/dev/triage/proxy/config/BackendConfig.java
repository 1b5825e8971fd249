package dev.triage.proxy.config;

import java.net.URI;

/**
 * One upstream server and how many requests it runs at once.
 *
 * @param url where it listens: {@code http://host[:port][/path prefix]}
 * @param maxConcurrency how many requests it runs at once: 1 for a serial server, N for a batched one
 */
public record BackendConfig(URI url, int maxConcurrency) {

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
