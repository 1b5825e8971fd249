package dev.triage.proxy.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;

/** The proxy's one JSON mapper: thread-safe, shared, strict about trailing garbage. */
public final class Json {

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        // Bodies are already bounded by max-body; lift Jackson's own 20 MB string cap so that the
        // configured limit, not the parser, decides.
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxStringLength(Integer.MAX_VALUE).build());
    }

    private Json() {}

    /**
     * A body held in memory, read as a JSON tree; its reader index stays where it was.
     *
     * @throws IOException when the body is not JSON: a {@link JacksonException} for its syntax, or a
     *     {@link java.io.CharConversionException} for bytes in no encoding JSON allows (zero bytes, which
     *     make the parser read UTF-32, then a character above Unicode's last); reading memory fails no
     *     other way
     */
    public static JsonNode readTree(ByteBuf body) throws IOException {
        try (InputStream in = new ByteBufInputStream(body.duplicate())) {
            return MAPPER.readTree(in);
        }
    }

    /** What is wrong with a body {@link #readTree} refused, for an error message: the parser's words without their location. */
    public static String problem(IOException notJson) {
        return notJson instanceof JacksonException syntax ? syntax.getOriginalMessage() : notJson.getMessage();
    }

    /** A tree as JSON text; a tree in memory always writes, so a failure is a bug. */
    public static byte[] bytes(JsonNode tree) {
        try {
            return MAPPER.writeValueAsBytes(tree);
        } catch (JacksonException e) {
            throw new IllegalStateException("writing a JSON tree", e);
        }
    }
}
