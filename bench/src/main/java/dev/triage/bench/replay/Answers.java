package dev.triage.bench.replay;

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
}
