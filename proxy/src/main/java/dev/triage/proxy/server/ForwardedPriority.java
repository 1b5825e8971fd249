package dev.triage.proxy.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.OptionalDouble;

/**
 * The {@code priority} Triage writes into a forwarded JSON body for a vLLM started with
 * {@code --scheduling-policy priority} ({@code --forward-priority}), so that vLLM's own scheduler, which
 * takes waiting requests lowest priority first and preempts the highest first, orders by predicted length
 * too. The rank is {@code clientPriority × 2³² + expected answer tokens}: the client's own priority
 * (vLLM's convention, lower is sooner) still decides first, as it does in Triage's queue, and the
 * predicted length orders requests of equal client priority.
 *
 * <pre>{@code
 * ByteBuf sent = ForwardedPriority.write(body, OptionalDouble.of(120));   // {"priority": 120, ...}
 * }</pre>
 */
final class ForwardedPriority {

    /** Room for the expected tokens below the client's priority. */
    static final long CLIENT_STEP = 1L << 32;

    private ForwardedPriority() {}

    /** The rank of a request of the client's {@code priority} expected to answer {@code expectedTokens}. */
    static long rank(int clientPriority, double expectedTokens) {
        long tokens = (long) Math.min(CLIENT_STEP - 1, Math.max(0, Math.round(expectedTokens)));
        return clientPriority * CLIENT_STEP + tokens;
    }

    /**
     * The body with its {@code priority} set to the rank; the body itself when it is not a JSON object
     * whose {@code priority} is absent or an integer (the backend answers it as the client sent it).
     * Takes ownership of {@code body}: it is released when a new buffer is returned.
     *
     * @param expectedTokens what the request is scheduled by; empty for a request sent before it was sized,
     *     which ranks first among its client priority
     */
    static ByteBuf write(ByteBuf body, OptionalDouble expectedTokens) {
        JsonNode json;
        try {
            json = Json.readTree(body);
        } catch (IOException e) {
            return body; // not JSON: the backend answers it
        }
        if (!(json instanceof ObjectNode object)) {
            return body;
        }
        JsonNode client = object.path("priority");
        if (!client.isMissingNode() && !client.isNull() && !(client.isIntegralNumber() && client.canConvertToInt())) {
            return body;
        }
        object.put("priority", rank(client.asInt(0), expectedTokens.orElse(0)));
        try {
            return Unpooled.wrappedBuffer(Json.bytes(object));
        } finally {
            body.release();
        }
    }
}
