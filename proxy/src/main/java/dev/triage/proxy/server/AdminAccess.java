package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may use Triage's admin API ({@code /triage/...}). Without an admin token, only clients on the
 * same host (loopback) may; with one, any client that sends {@code Authorization: Bearer <token>}
 * may, and no one else.
 */
public final class AdminAccess {

    private final byte[] token;

    /** @param token the admin token, or null or empty for local-only access */
    public AdminAccess(String token) {
        this.token = token == null || token.isEmpty() ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    /** Null when the request may go ahead, else the error to answer with. */
    TriageError check(HttpRequest request, SocketAddress remote) {
        if (token == null) {
            boolean local = remote instanceof InetSocketAddress inet && inet.getAddress() != null
                    && inet.getAddress().isLoopbackAddress();
            return local ? null : TriageError.FORBIDDEN;
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION, "");
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return TriageError.UNAUTHORIZED;
        }
        byte[] offered = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        // Constant-time comparison: the time taken must not reveal how much of the token matched.
        return MessageDigest.isEqual(token, offered) ? null : TriageError.UNAUTHORIZED;
    }
}
