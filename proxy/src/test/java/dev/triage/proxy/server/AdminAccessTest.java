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
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/triage/queue");
        if (authorization != null) {
            request.headers().set("authorization", authorization);
        }
        return request;
    }

    @Test
    void withoutATokenOnlyLocalClientsMayAsk() {
        AdminAccess access = new AdminAccess("");
        assertNull(access.check(request(null), LOOPBACK));
        assertNull(access.check(request(null), new InetSocketAddress("::1", 1)));
        assertEquals(TriageError.FORBIDDEN, access.check(request(null), REMOTE));
        assertEquals(TriageError.FORBIDDEN, access.check(request("Bearer anything"), REMOTE));
    }

    @Test
    void withATokenAnyClientWithItMayAskAndNoOneElse() {
        AdminAccess access = new AdminAccess("tok-123");
        assertNull(access.check(request("Bearer tok-123"), REMOTE));
        assertNull(access.check(request("bearer tok-123"), LOOPBACK));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request(null), LOOPBACK));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request("Bearer tok-12"), REMOTE));
        assertEquals(TriageError.UNAUTHORIZED, access.check(request("Basic dG9rLTEyMw=="), REMOTE));
    }
}
