package dev.triage.proxy.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

class HopByHopHeadersTest {

    @Test
    void dropsHopByHopHeadersAndWhatConnectionNames() {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");
        request.headers()
                .add("connection", "keep-alive, X-Session-Hop")
                .add("keep-alive", "timeout=5")
                .add("x-session-hop", "1")
                .add("te", "trailers")
                .add("upgrade", "h2c")
                .add("proxy-authorization", "Basic xyz")
                .add("authorization", "Bearer sk-1")
                .add("content-length", "12");
        HopByHopHeaders.strip(request, HopByHopHeaders.requestHasBody(request));
        assertEquals("Bearer sk-1", request.headers().get("authorization"));
        assertEquals("12", request.headers().get("content-length"));
        for (String gone : new String[] {"connection", "keep-alive", "x-session-hop", "te", "upgrade", "proxy-authorization",
                "transfer-encoding"}) {
            assertNull(request.headers().get(gone), gone);
        }
    }

    @Test
    void chunkedBodiesStayChunkedAndBodilessRequestsGetNoFraming() {
        HttpRequest chunked = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/embeddings");
        chunked.headers().add("transfer-encoding", "chunked");
        HopByHopHeaders.strip(chunked, HopByHopHeaders.requestHasBody(chunked));
        assertEquals("chunked", chunked.headers().get("transfer-encoding"));

        HttpRequest get = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/v1/models");
        assertFalse(HopByHopHeaders.requestHasBody(get));
        HopByHopHeaders.strip(get, false);
        assertTrue(get.headers().isEmpty());
    }

    @Test
    void aResponseOfUnknownLengthIsChunkedForTheNextHop() {
        HttpResponse closeDelimited = new DefaultHttpResponse(HttpVersion.HTTP_1_0, HttpResponseStatus.OK);
        closeDelimited.headers().add("connection", "close");
        HopByHopHeaders.strip(closeDelimited, true);
        assertEquals("chunked", closeDelimited.headers().get("transfer-encoding"));
        assertNull(closeDelimited.headers().get("connection"));

        HttpResponse noContent = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
        HopByHopHeaders.strip(noContent, false);
        assertNull(noContent.headers().get("transfer-encoding"));
    }
}
