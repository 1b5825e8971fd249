package dev.triage.bench.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import java.io.IOException;

/**
 * What the relay does to a request: the output limit the server is to honour, taken from
 * {@link AnswerLengthRelay#ANSWER_TOKENS} less what the request id has already streamed, written
 * into the body. Pure: it reads the counts, it does not change them.
 */
final class AnswerLimit {

    private AnswerLimit() {}

    /**
     * The request to send upstream, a new message the caller owns; {@code request} is left as it
     * was (the caller still releases it).
     *
     * @throws IllegalArgumentException with the reason, for a 400, when the header is not a
     *     positive integer or the body is not a JSON object
     */
    static FullHttpRequest apply(FullHttpRequest request, StreamedTokens streamed) {
        String header = request.headers().get(AnswerLengthRelay.ANSWER_TOKENS);
        if (header == null) {
            return request.retainedDuplicate();
        }
        int total;
        try {
            total = Integer.parseInt(header.trim());
        } catch (NumberFormatException e) {
            total = 0;
        }
        if (total < 1) {
            throw new IllegalArgumentException(AnswerLengthRelay.ANSWER_TOKENS + ": " + header + " (expected: an integer >= 1)");
        }
        String id = request.headers().get(AnswerLengthRelay.REQUEST_ID);
        // An id that has streamed its whole length still asks for a token: a stream paused after its last
        // token but before its end is resumed, and a server asked to continue generates at least one.
        int rest = Math.max(1, total - streamed.get(id));
        ObjectNode body = body(request);
        body.put("max_tokens", rest);
        body.put("n_predict", rest);
        body.remove("max_completion_tokens");
        byte[] bytes = Json.bytes(body);
        FullHttpRequest limited = new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                Unpooled.wrappedBuffer(bytes), request.headers().copy(), request.trailingHeaders().copy());
        limited.headers().remove(AnswerLengthRelay.ANSWER_TOKENS);
        HttpUtil.setTransferEncodingChunked(limited, false);
        HttpUtil.setContentLength(limited, bytes.length);
        return limited;
    }

    private static ObjectNode body(FullHttpRequest request) {
        JsonNode body;
        try {
            body = Json.readTree(request.content());
        } catch (IOException e) {
            throw new IllegalArgumentException("body: not JSON (" + Json.problem(e) + ")");
        }
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("body: expected a JSON object beside " + AnswerLengthRelay.ANSWER_TOKENS);
        }
        return (ObjectNode) body;
    }
}
