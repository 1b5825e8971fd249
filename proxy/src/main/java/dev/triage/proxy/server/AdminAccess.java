package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Who may use Triage's admin API ({@code /triage/...}). Without an admin token, only clients on the
 * same host (loopback) may, and only by a loopback name or the configured listen host: a web page
 * that rebinds its own name to 127.0.0.1 sends its own name as {@code Host} and is refused. With a
 * token, any client that sends {@code Authorization: Bearer <token>} may, and no one else. Either
 * way, a request a browser sends from another origin ({@code Origin} that is not this host) is
 * refused, so that a page the operator visits cannot reload the model or read the configuration.
 */
public final class AdminAccess {

    private final byte[] token;
    private final String listenHost;

    /**
     * @param token the admin token, or null or empty for local-only access
     * @param listenHost the host Triage listens on, accepted as a {@code Host} besides loopback names
     */
    public AdminAccess(String token, String listenHost) {
        this.token = token == null || token.isEmpty() ? null : token.getBytes(StandardCharsets.UTF_8);
        this.listenHost = listenHost.toLowerCase(Locale.ROOT);
    }

    /** Null when the request may go ahead, else the error to answer with. */
    TriageError check(HttpRequest request, SocketAddress remote) {
        String host = request.headers().get(HttpHeaderNames.HOST);
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        if (origin != null && !sameOrigin(origin, host)) {
            return TriageError.ADMIN_CROSS_ORIGIN;
        }
        if (token == null) {
            boolean local = remote instanceof InetSocketAddress inet && inet.getAddress() != null
                    && inet.getAddress().isLoopbackAddress();
            if (!local) {
                return TriageError.FORBIDDEN;
            }
            return host == null || isLocalName(hostName(host)) ? null : TriageError.ADMIN_CROSS_ORIGIN;
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION, "");
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return TriageError.UNAUTHORIZED;
        }
        byte[] offered = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        // Constant-time comparison: the time taken must not reveal how much of the token matched.
        return MessageDigest.isEqual(token, offered) ? null : TriageError.UNAUTHORIZED;
    }

    private boolean isLocalName(String name) {
        if (name.equals("localhost") || name.equals(listenHost)) {
            return true;
        }
        byte[] address = NetUtil.createByteArrayFromIpAddressString(name);
        try {
            return address != null && InetAddress.getByAddress(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** True when a browser's {@code Origin} names the very host and port the request was sent to. */
    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI uri = new URI(origin);
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                return false;
            }
            String authority = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
            String sentTo = host.endsWith(":80") ? host.substring(0, host.length() - 3) : host;
            return authority.equalsIgnoreCase(sentTo);
        } catch (URISyntaxException e) {
            return false; // "null", or not a URL: not this origin
        }
    }

    /** The name in a {@code Host} header: without its port, an IPv6 literal without brackets. */
    private static String hostName(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(1, end);
        }
        int colon = h.lastIndexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }
}
