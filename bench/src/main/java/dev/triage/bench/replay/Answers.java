package dev.triage.bench.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One request's answer in the wire format of the API it came by: a whole body, or a stream of framed
 * events (server-sent events for OpenAI's API, one JSON object per line for Ollama's), each event
 * complete with its framing.
 */
interface Answers {

    /** The media type of a streamed answer. */
    String streamContentType();

    /** The events before the first token (OpenAI's chat: a chunk with the assistant's role). */
    List<String> opening();

    /** The event carrying token {@code index} (0-based). */
    String token(int index);

    /** The events after the last token, ending the stream. */
    List<String> closing();

    /** The media type of an answer in one body. */
    String bodyContentType();

    /** The whole answer in one body. */
    String body();

    /** Builds the answers' JSON trees. */
    ObjectMapper JSON = new ObjectMapper();

    /** A tree of strings and numbers as JSON text. */
    static String json(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serialises", e);
        }
    }
}
