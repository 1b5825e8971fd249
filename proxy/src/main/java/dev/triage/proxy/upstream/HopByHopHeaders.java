package dev.triage.proxy.upstream;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a proxy must not pass on: the headers that describe one hop (RFC 9110 §7.6.1), plus whatever
 * the {@code Connection} header names. Everything else, {@code Authorization} included, goes through
 * untouched. Message framing is re-stated for the next hop rather than copied: a body with a known
 * length keeps its {@code Content-Length}, any other body is sent chunked.
 */
public final class HopByHopHeaders {

    private static final Set<AsciiString> HOP_BY_HOP = Set.of(
            HttpHeaderNames.CONNECTION,
            HttpHeaderNames.KEEP_ALIVE,
            HttpHeaderNames.PROXY_AUTHENTICATE,
            HttpHeaderNames.PROXY_AUTHORIZATION,
            HttpHeaderNames.TE,
            HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING,
            HttpHeaderNames.UPGRADE,
            AsciiString.cached("proxy-connection"));

    private HopByHopHeaders() {}

    /** True when a request carries a body: it states a length or is chunked. */
    public static boolean requestHasBody(HttpMessage request) {
        return HttpUtil.isContentLengthSet(request) || HttpUtil.isTransferEncodingChunked(request);
    }

    /**
     * Removes the hop-by-hop headers from a message about to be forwarded, then restates its framing:
     * chunked unless it has a {@code Content-Length} or carries no body at all.
     *
     * @param hasBody whether the message carries a body: false for a request with neither length
     *     nor chunking, and for responses that cannot have one (to HEAD, 1xx, 204, 304)
     */
    public static void strip(HttpMessage message, boolean hasBody) {
        HttpHeaders headers = message.headers();
        List<String> named = new ArrayList<>();
        for (String connection : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : connection.split(",")) {
                if (!token.isBlank()) {
                    named.add(token.trim());
                }
            }
        }
        for (String name : named) {
            headers.remove(name);
        }
        for (AsciiString name : HOP_BY_HOP) {
            headers.remove(name);
        }
        if (hasBody && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
    }
}
