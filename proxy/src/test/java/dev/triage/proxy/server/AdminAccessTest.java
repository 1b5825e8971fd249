package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.triage.proxy.api.TriageError;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class AdminAccessTest {

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("10.1.2.3", 40000);

    private static HttpRequest request(String authorization) {
        return request(authorization, "127.0.0.1:8080", null);
    }

    private static HttpRequest request(String authorization, String host, String origin) {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/triage/queue");
        request.headers().set("host", host);
        if (origin != null) {
            request.headers().set("origin", origin);
        }
        if (authorization != null) {
            request.headers().set("authorization", authorization);
        }
        return request;
    }

    @Test
    void withoutATokenOnlyLocalClientsMayAsk() {
        AdminAccess access = new AdminAccess("", "127.0.0.1");
        assertNull(access.check(request(null), LOOPBACK));
        assertNull(access.check(request(null), new InetSocketAddress("::1", 1)));
        assertEquals(TriageError.FORBIDDEN, access.check(request(null), REMOTE));
        assertEquals(TriageError.FORBIDDEN, access.check(request("Bearer anything"), REMOTE));
    }

    @Test
    void withATokenAnyClientWithItMayAskAndNoOneElse() {
        AdminAccess access = new AdminAccess("tok-123", "0.0.0.0");
        assertNull(access.check(request("Bearer tok-123"), REMOTE));
        assertNull(access.check(request("bearer tok-123"), LOOPBACK));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request(null), LOOPBACK));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request("Bearer tok-12"), REMOTE));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request("Basic dG9rLTEyMw=="), REMOTE));
    }

    @Test
    void withoutATokenTheHostMustBeALoopbackNameOrTheListenHost() {
        AdminAccess access = new AdminAccess("", "triage.local");
        assertNull(access.check(request(null, "localhost:8080", null), LOOPBACK));
        assertNull(access.check(request(null, "[::1]:8080", null), LOOPBACK));
        assertNull(access.check(request(null, "127.0.0.2", null), LOOPBACK));
        assertNull(access.check(request(null, "triage.local:8080", null), LOOPBACK));
        // DNS rebinding: the attacker's name now resolves to 127.0.0.1, and the browser sends that name.
        assertEquals(TriageError.ADMIN_CROSS_ORIGIN, access.check(request(null, "evil.example:8080", null), LOOPBACK));
        assertEquals(TriageError.ADMIN_CROSS_ORIGIN, access.check(request(null, "127.0.0.1.evil.example", null), LOOPBACK));
    }

    @Test
    void aBrowserRequestFromAnotherOriginIsRefusedTokenOrNot() {
        for (AdminAccess access : new AdminAccess[] {new AdminAccess("", "127.0.0.1"), new AdminAccess("tok-123", "0.0.0.0")}) {
            String auth = "Bearer tok-123";
            assertEquals(TriageError.ADMIN_CROSS_ORIGIN,
                    access.check(request(auth, "127.0.0.1:8080", "http://evil.example"), LOOPBACK));
            assertEquals(TriageError.ADMIN_CROSS_ORIGIN, access.check(request(auth, "127.0.0.1:8080", "null"), LOOPBACK));
            assertEquals(TriageError.ADMIN_CROSS_ORIGIN,
                    access.check(request(auth, "127.0.0.1:8080", "http://127.0.0.1:9999"), LOOPBACK));
            assertNull(access.check(request(auth, "127.0.0.1:8080", "http://127.0.0.1:8080"), LOOPBACK), "same origin");
        }
    }
}
