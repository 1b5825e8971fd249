package dev.triage.proxy.preemption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One client's stream of one answer, spliced from the backend runs that produce it: the first run,
 * then a run for every resume after a pause. The client sees one stream: only whole events go out
 * (so a pause never leaves half an event behind), with the first run's {@code id} and
 * {@code created}, one role delta, and usage that counts every run's tokens. Along the way it keeps
 * what a continuation needs: the text delivered and its tokens (one per event that carries text, as
 * llama.cpp and vLLM stream them, or as many as the event's {@code logprobs} name), with the tokens'
 * ids where every event named them.
 *
 * <p>A chat resumed through the completions route (by token ids) streams completion chunks: they
 * reach the client as chat chunks. Logprobs asked for on the client's behalf are taken out.
 *
 * <p>Pure bytes in, bytes out, on one thread (the client connection's event loop): the caller owns
 * both buffers.
 *
 * <pre>{@code
 * StreamSplicer splicer = new StreamSplicer(StreamFormat.OPENAI_CHAT, false);
 * splicer.append(chunk, out);            // for every chunk of the first run
 * ... pause: the backend stops, splicer.text() and splicer.tokens() go into the continuation ...
 * splicer.startRun();                     // before the resumed run's first chunk
 * splicer.append(chunk, out); splicer.end(out);
 * }</pre>
 */
public final class StreamSplicer {

    /** A longer event is relayed as it is, and the stream is no longer paused. */
    static final int MAX_EVENT_BYTES = 1 << 20;

    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);

    private final StreamFormat format;
    private final boolean dropsLogprobs;
    private byte[] pending = new byte[1024];
    private int pendingLength;
    private boolean oversized;
    private long tokens;
    private long tokensBeforeRun;
    private final StringBuilder text = new StringBuilder();
    private int[] tokenIds = new int[64];
    /** False once an event carried text without its tokens' ids: the ids are then not the answer's. */
    private boolean idsWhole = true;
    /**
     * The bytes the ids' tokens are, by their logprobs, and the text's own bytes; -1 for the first once
     * a token gave none. llama-server holds back a token that ends inside a UTF-8 character and sends
     * its text with the next one, with or without an event of its own for the held-back id: the ids
     * are the answer's only where the two agree.
     */
    private long idBytes;
    private long textBytes;
    private boolean finished;
    private boolean roleSent;
    private String id;
    private JsonNode created;

    /** @param dropsLogprobs take the choices' {@code logprobs} out of what the client gets */
    public StreamSplicer(StreamFormat format, boolean dropsLogprobs) {
        this.format = format;
        this.dropsLogprobs = dropsLogprobs;
    }

    /** Text-bearing events delivered so far, over every run: the tokens the answer has. */
    public long tokens() {
        return tokens;
    }

    /** The ids of the {@link #tokens()} delivered so far, when every event with text named them; else null. */
    public int[] tokenIds() {
        boolean spelled = idBytes < 0 || idBytes == textBytes;
        return idsWhole && spelled && tokens > 0 ? Arrays.copyOf(tokenIds, (int) tokens) : null;
    }

    /** The answer's text delivered so far, over every run. */
    public String text() {
        return text.toString();
    }

    /** True once an event ended the answer (a finish reason, Ollama's {@code done}): too late to pause. */
    public boolean finished() {
        return finished;
    }

    /** True while the stream can still be paused: it has not ended and every event fit in memory. */
    public boolean pausable() {
        return !finished && !oversized;
    }

    /**
     * Begins a resumed run: what the last run left unfinished was never sent and is dropped, and the
     * usage this run reports will have the tokens delivered before it added.
     */
    public void startRun() {
        pendingLength = 0;
        tokensBeforeRun = tokens;
    }

    /** Reads the readable bytes of {@code chunk} (leaving its indexes alone) and writes the whole events they complete to {@code out}. */
    public void append(ByteBuf chunk, ByteBuf out) {
        int length = chunk.readableBytes();
        if (oversized) {
            out.writeBytes(chunk, chunk.readerIndex(), length);
            return;
        }
        if (pendingLength + length > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + length));
        }
        chunk.getBytes(chunk.readerIndex(), pending, pendingLength, length);
        pendingLength += length;
        int start = 0;
        int end;
        while ((end = eventEnd(start)) >= 0) {
            deliver(start, end, out);
            start = end;
        }
        pendingLength -= start;
        System.arraycopy(pending, start, pending, 0, pendingLength);
        if (pendingLength > MAX_EVENT_BYTES) {
            oversized = true;
            out.writeBytes(pending, 0, pendingLength);
            pendingLength = 0;
        }
    }

    /** The backend's body ended: whatever is left (an event without its final blank line) goes out. */
    public void end(ByteBuf out) {
        if (pendingLength > 0) {
            deliver(0, pendingLength, out);
            pendingLength = 0;
        }
    }

    /** The index just past the next event's terminator at or after {@code from}, or -1 when the event is incomplete. */
    private int eventEnd(int from) {
        for (int i = from; i < pendingLength; i++) {
            if (pending[i] != '\n') {
                continue;
            }
            if (!format.serverSentEvents()) {
                return i + 1;
            }
            // Server-sent events end at a blank line: "\n\n", or "\r\n\r\n".
            int next = i + 1;
            if (next < pendingLength && pending[next] == '\r') {
                next++;
            }
            if (next < pendingLength && pending[next] == '\n') {
                return next + 1;
            }
        }
        return -1;
    }

    private void deliver(int start, int end, ByteBuf out) {
        int payloadStart = format.serverSentEvents() ? dataStart(start, end) : start;
        ObjectNode event = payloadStart < 0 ? null : parse(payloadStart, end);
        if (event == null) {
            out.writeBytes(pending, start, end - start); // a comment, [DONE], or not JSON: as it came
            return;
        }
        boolean secondRole = roleSent && hasRole(event);
        int ids = readTokenIds(event);
        int eventIdBytes = idBytes(event); // before the rewrite, which may take the logprobs out
        idBytes = idBytes < 0 || eventIdBytes < 0 ? -1 : idBytes + eventIdBytes;
        boolean rewritten = rewrite(event);
        if (secondRole && roleOnly(event)) {
            return;
        }
        String piece = format.text(event);
        if (!piece.isEmpty()) {
            text.append(piece);
            textBytes += piece.getBytes(StandardCharsets.UTF_8).length;
            idsWhole &= ids > 0;
        }
        // A reasoning model's thoughts stream apart from its text; a completion by token ids would
        // stream the rest of them as text.
        idsWhole &= !format.reasons(event);
        tokens += ids > 0 ? ids : piece.isEmpty() ? 0 : 1;
        finished |= format.finishes(event);
        if (!rewritten) {
            out.writeBytes(pending, start, end - start);
            return;
        }
        byte[] json = Json.bytes(event);
        if (format.serverSentEvents()) {
            out.writeBytes(DATA).writeByte(' ').writeBytes(json).writeByte('\n').writeByte('\n');
        } else {
            out.writeBytes(json).writeByte('\n');
        }
    }

    /** Where the JSON of a {@code data:} line of the event starts, or -1 when it has none. */
    private int dataStart(int start, int end) {
        for (int line = start; line < end; ) {
            if (end - line >= DATA.length && Arrays.equals(pending, line, line + DATA.length, DATA, 0, DATA.length)) {
                return line + DATA.length;
            }
            while (line < end && pending[line] != '\n') {
                line++;
            }
            line++;
        }
        return -1;
    }

    private ObjectNode parse(int from, int to) {
        // The JSON ends at the line's end; trailing blank lines are whitespace to the parser, but a
        // second field line after data would not be, so cut at the first newline.
        int lineEnd = from;
        while (lineEnd < to && pending[lineEnd] != '\n') {
            lineEnd++;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(pending, from, lineEnd - from);
            return node instanceof ObjectNode object ? object : null;
        } catch (IOException e) {
            return null; // not JSON: its syntax, or bytes in no encoding JSON allows
        }
    }

    /** Keeps the ids of the tokens the first choice's logprobs name; returns how many there were. */
    private int readTokenIds(ObjectNode event) {
        if (!format.serverSentEvents()) {
            return 0;
        }
        JsonNode named = event.path("choices").path(0).path("logprobs").path("content");
        int count = 0;
        for (JsonNode token : named) {
            if (!token.path("id").isIntegralNumber()) {
                return 0;
            }
            count++;
        }
        int at = (int) tokens;
        if (at + count > tokenIds.length) {
            tokenIds = Arrays.copyOf(tokenIds, Math.max(tokenIds.length * 2, at + count));
        }
        for (JsonNode token : named) {
            tokenIds[at++] = token.path("id").asInt();
        }
        return count;
    }

    /** How many bytes the first choice's logprobs give its tokens, or -1 where a token gives none. */
    private static int idBytes(ObjectNode event) {
        int bytes = 0;
        for (JsonNode token : event.path("choices").path(0).path("logprobs").path("content")) {
            JsonNode tokenBytes = token.get("bytes");
            if (tokenBytes == null || !tokenBytes.isArray()) {
                return -1;
            }
            bytes += tokenBytes.size();
        }
        return bytes;
    }

    /** Makes a later run's event look like the first run's; true when it changed anything. */
    private boolean rewrite(ObjectNode event) {
        boolean changed = format == StreamFormat.OPENAI_CHAT && chatFromCompletion(event);
        if (dropsLogprobs) {
            for (JsonNode choice : event.path("choices")) {
                // A completion chunk names logprobs null when none were asked for; a chat chunk leaves them out.
                if (format == StreamFormat.OPENAI_COMPLETION && choice.hasNonNull("logprobs")) {
                    ((ObjectNode) choice).putNull("logprobs");
                    changed = true;
                } else if (format != StreamFormat.OPENAI_COMPLETION && choice.has("logprobs")) {
                    ((ObjectNode) choice).remove("logprobs");
                    changed = true;
                }
            }
        }
        if (format.serverSentEvents()) {
            JsonNode eventId = event.get("id");
            if (eventId != null && eventId.isTextual()) {
                if (id == null) {
                    id = eventId.asText();
                } else if (!id.equals(eventId.asText())) {
                    event.put("id", id);
                    changed = true;
                }
            }
            JsonNode eventCreated = event.get("created");
            if (eventCreated != null) {
                if (created == null) {
                    created = eventCreated;
                } else if (!created.equals(eventCreated)) {
                    event.set("created", created);
                    changed = true;
                }
            }
        }
        if (format == StreamFormat.OPENAI_CHAT) {
            for (JsonNode choice : event.path("choices")) {
                if (choice.path("delta") instanceof ObjectNode delta && delta.has("role")) {
                    if (roleSent) {
                        delta.remove("role");
                        changed = true;
                    } else {
                        roleSent = true;
                    }
                }
            }
        }
        if (tokensBeforeRun > 0) {
            changed |= format.serverSentEvents()
                    ? addTokensBefore(event.path("usage"), "completion_tokens", "prompt_tokens", "total_tokens")
                    : event.path("done").asBoolean(false) && addTokensBefore(event, "eval_count", "prompt_eval_count", null);
        }
        return changed;
    }

    /**
     * Counts the tokens delivered before this run as generated, not as prompt: the backend read them
     * back as part of the continuation's prompt.
     */
    private boolean addTokensBefore(JsonNode counts, String generatedField, String promptField, String totalField) {
        if (!(counts instanceof ObjectNode usage) || !usage.path(generatedField).isIntegralNumber()) {
            return false;
        }
        long generated = usage.path(generatedField).asLong() + tokensBeforeRun;
        usage.put(generatedField, generated);
        if (usage.path(promptField).isIntegralNumber()) {
            long prompt = Math.max(0, usage.path(promptField).asLong() - tokensBeforeRun);
            usage.put(promptField, prompt);
            if (totalField != null && usage.has(totalField)) {
                usage.put(totalField, prompt + generated);
            }
        }
        return true;
    }

    /** A completion chunk (a chat resumed by token ids) made a chat chunk: its choices' text becomes their delta. */
    private static boolean chatFromCompletion(ObjectNode event) {
        if (!"text_completion".equals(event.path("object").asText())) {
            return false;
        }
        event.put("object", "chat.completion.chunk");
        for (JsonNode choice : event.path("choices")) {
            if (choice instanceof ObjectNode object) {
                JsonNode piece = object.remove("text");
                ObjectNode delta = object.putObject("delta");
                if (piece != null && piece.isTextual() && !piece.asText().isEmpty()) {
                    delta.put("content", piece.asText());
                }
            }
        }
        return true;
    }

    private boolean hasRole(ObjectNode event) {
        if (format != StreamFormat.OPENAI_CHAT) {
            return false;
        }
        for (JsonNode choice : event.path("choices")) {
            if (choice.path("delta").has("role")) {
                return true;
            }
        }
        return false;
    }

    /** A chat chunk that, its second role removed, says nothing: no text, no finish, no usage. */
    private static boolean roleOnly(ObjectNode event) {
        JsonNode choices = event.path("choices");
        if (!choices.isArray() || choices.isEmpty() || event.has("usage")) {
            return false;
        }
        for (JsonNode choice : choices) {
            JsonNode reason = choice.get("finish_reason");
            JsonNode delta = choice.path("delta");
            if (reason != null && !reason.isNull() || delta.has("role") || !delta.path("content").asText("").isEmpty()
                    || delta.has("tool_calls")) {
                return false;
            }
        }
        return true;
    }
}
