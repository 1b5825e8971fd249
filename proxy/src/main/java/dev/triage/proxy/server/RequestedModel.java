package dev.triage.proxy.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The {@code model} a JSON request body names (OpenAI's and Ollama's APIs alike put it at the top
 * level): what decides which backends may serve it when they serve different models. Reads the body
 * as a stream, skipping every other field's value, and leaves the buffer as it was. Of several
 * {@code model} fields the last counts, as it does for the backends' JSON parsers: the first would
 * queue a request for one model's backends and have them run another.
 */
final class RequestedModel {

    private static final JsonFactory JSON = new JsonFactory();

    private RequestedModel() {}

    /** The body's top-level {@code model} string; empty when it has none, names none ({@code ""}) or is not a JSON object. */
    static Optional<String> of(ByteBuf body) {
        try (JsonParser parser = JSON.createParser((InputStream) new ByteBufInputStream(body.duplicate()))) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            Optional<String> model = Optional.empty();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("model")) {
                    model = value == JsonToken.VALUE_STRING ? Optional.of(parser.getText()).filter(name -> !name.isEmpty()) : Optional.empty();
                }
                parser.skipChildren();
            }
            return model;
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
