package dev.triage.proxy.learning;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.data.FeedbackAnswers;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.concurrent.BoundedWorker;
import dev.triage.proxy.metrics.RequestObserver;
import dev.triage.proxy.metrics.RequestRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An opt-in record of completed chat requests for retraining the shipped estimators on the
 * backend's own answers ({@code scripts/train --feedback FILE}): one JSON line per request whose
 * answer ended whole, with the request's features ({@link RequestFeatures}, by name), the prompt's
 * {@link PromptFingerprint}, the estimate it was scheduled by and the estimator's own, the tokens
 * the backend wrote and the seconds it took. The prompt's text only when asked for as well: a
 * prompt is the user's data.
 *
 * <p>Written on a thread of its own: a request's end takes the prompt's features, unless its costing
 * or the learner took them first (a few microseconds: they read a bounded window of the text), and
 * hands the line's facts over, never waiting; when the writer falls {@value #WAITING} lines or
 * {@value #WAITING_PROMPT_CHARS} characters of prompts behind, a line is dropped and counted. Once the file
 * passes {@link #rotateBytes} it is moved to {@code FILE.1} (replacing the one before) and a new one
 * is started, so the log takes at most twice that on disk.
 *
 * <pre>{@code
 * FeedbackLog feedback = FeedbackLog.open(Path.of("feedback.jsonl"), false, FeedbackLog.ROTATE_BYTES);
 * RequestObserver observer = metrics.andThen(feedback);
 * }</pre>
 */
public final class FeedbackLog implements RequestObserver, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FeedbackLog.class);

    /** The format every line names: the one training reads ({@link FeedbackAnswers}). */
    public static final String FORMAT = FeedbackAnswers.FORMAT;
    /** Lines that may wait for the writer; beyond, one is dropped and counted. */
    static final int WAITING = 4096;
    /** Characters of prompt text that may wait for the writer, so that long prompts cannot pile up in memory. */
    static final long WAITING_PROMPT_CHARS = 16L << 20;
    /** The size past which the file is rotated: 64 MiB, a few hundred thousand lines. */
    public static final long ROTATE_BYTES = 64L << 20;

    private final Path file;
    private final boolean prompts;
    private final long rotateBytes;
    private final BoundedWorker writer;
    private final LongAdder dropped = new LongAdder();
    private final AtomicLong waitingPromptChars = new AtomicLong();
    // The writer's thread only. out is null once a rotation could not open the file again: the next line opens it.
    private FileChannel out;
    /** Where the next line goes: the end of the last whole line. */
    private long size;
    private boolean failing;

    private FeedbackLog(Path file, boolean prompts, long rotateBytes) throws IOException {
        this.file = file;
        this.prompts = prompts;
        this.rotateBytes = rotateBytes;
        open();
        this.writer = new BoundedWorker("triage-feedback", WAITING);
    }

    /**
     * Opens the log for appending, creating it (and its directory) if need be.
     *
     * @param prompts true to write each prompt's text too
     * @throws IOException when the file cannot be opened for writing
     */
    public static FeedbackLog open(Path file, boolean prompts, long rotateBytes) throws IOException {
        return new FeedbackLog(file, prompts, rotateBytes);
    }

    /** Lines not written because the writer was behind or the file could not be written. */
    public long dropped() {
        return dropped.sum();
    }

    /** Takes a finished request's record; cheap, and safe on any thread. */
    @Override
    public void finished(RequestRecord record) {
        if (record.prompt().prompt().isEmpty() || record.wholeAnswerTokens().isEmpty() || record.estimate() == null
                || record.queuedNanos() < 0 || writer.isClosed()) {
            return; // only a whole answer says how long this prompt's answer is
        }
        OptionalInt cap = record.outputCap();
        if (cap.isPresent() && record.actualTokens().getAsLong() >= cap.getAsInt()) {
            return; // cut at the request's own limit: its length is not the answer's
        }
        Prompt prompt = record.prompt().prompt().get();
        String text = prompts ? prompt.text() : null;
        if (text != null && waitingPromptChars.addAndGet(text.length()) > WAITING_PROMPT_CHARS) {
            waitingPromptChars.addAndGet(-text.length());
            dropped.increment();
            return;
        }
        Feedback feedback = new Feedback(Instant.now(), record.backend(), record.prompt().get().orElseThrow(), prompt.userTurns(),
                prompt.systemChars(), prompt.conversationChars(), text, record.fingerprint(), cap, record.estimate().expectedTokens(),
                record.frozenTokens(), record.actualTokens().getAsLong(), record.servedNanos() / 1e9,
                record.runningAtDispatch());
        if (!writer.offer(() -> write(feedback))) {
            release(feedback); // the writer is behind, or closed meanwhile
            dropped.increment();
        }
    }

    /**
     * What one line says, taken from the record on the request's thread; it is written on the writer's.
     *
     * @param prompt the prompt's text, or null when prompts are not written
     */
    private record Feedback(Instant time, String backend, float[] features, int userTurns, int systemChars, int conversationChars,
            String prompt, OptionalLong fingerprint, OptionalInt outputCap, double estimateTokens, double estimatorTokens,
            long actualTokens, double serviceSeconds, int running) {}

    private void release(Feedback feedback) {
        if (feedback.prompt() != null) {
            waitingPromptChars.addAndGet(-feedback.prompt().length());
        }
    }

    private void write(Feedback feedback) {
        byte[] line = line(feedback);
        release(feedback);
        try {
            if (out == null) {
                open();
            } else if (out.size() < size) {
                size = endOfLastLine(out); // emptied from outside (": > feedback.jsonl" after a training): go on at its end
            }
            if (size > 0 && size + line.length > rotateBytes) {
                rotate();
            }
            ByteBuffer bytes = ByteBuffer.wrap(line);
            while (bytes.hasRemaining()) {
                out.write(bytes, size + bytes.position());
            }
            size += line.length;
            failing = false;
        } catch (IOException e) {
            dropped.increment();
            cutPartialLine();
            if (!failing) {
                log.warn("the feedback log {} cannot be written; lines are dropped until it can: {}", file, e.toString());
                failing = true;
            }
        }
    }

    /** Takes back what a failed write left of its line (a full disk), so that the next line does not join it. */
    private void cutPartialLine() {
        if (out != null) {
            try {
                out.truncate(size);
            } catch (IOException e) {
                // Opening the file again cuts it: see open().
            }
        }
    }

    private byte[] line(Feedback feedback) {
        ObjectNode line = Json.MAPPER.createObjectNode()
                .put("format", FORMAT)
                .put("time", feedback.time().toString())
                .put("backend", feedback.backend());
        feedback.fingerprint().ifPresent(fingerprint -> line.put("fingerprint", HexFormat.of().toHexDigits(fingerprint)));
        line.put("userTurns", feedback.userTurns()).put("systemChars", feedback.systemChars())
                .put("conversationChars", feedback.conversationChars());
        ObjectNode features = line.putObject("features").put("schema", RequestFeatures.SCHEMA_VERSION);
        float[] values = feedback.features();
        for (int i = 0; i < values.length; i++) {
            features.put(RequestFeatures.NAMES.get(i), values[i]);
        }
        feedback.outputCap().ifPresent(cap -> line.put("maxTokens", cap));
        line.put("estimateTokens", feedback.estimateTokens())
                .put("estimatorTokens", feedback.estimatorTokens())
                .put("actualTokens", feedback.actualTokens())
                .put("serviceSeconds", feedback.serviceSeconds())
                .put("running", feedback.running());
        if (feedback.prompt() != null) {
            line.put("prompt", feedback.prompt());
        }
        return (line + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private void rotate() throws IOException {
        FileChannel full = out;
        out = null; // opened again by the next line, however the move goes
        full.close();
        Files.move(file, file.resolveSibling(file.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
        open();
    }

    /**
     * Opens the log (and its directory) for writing after its last whole line: a line cut short, by a
     * kill in the middle of a write or by a full disk, is dropped rather than joined to the next, which
     * would make the file unreadable for training.
     */
    private void open() throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        try {
            size = endOfLastLine(channel);
            channel.truncate(size);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        out = channel;
    }

    private static long endOfLastLine(FileChannel channel) throws IOException {
        ByteBuffer block = ByteBuffer.allocate(8192);
        for (long end = channel.size(); end > 0; ) {
            long start = Math.max(0, end - block.capacity());
            block.clear().limit((int) (end - start));
            while (block.hasRemaining() && channel.read(block, start + block.position()) >= 0) {
                // fills the block
            }
            for (int i = block.position() - 1; i >= 0; i--) {
                if (block.get(i) == '\n') {
                    return start + i + 1;
                }
            }
            end = start;
        }
        return 0;
    }

    /** Writes what it was given and closes the file. */
    @Override
    public void close() {
        if (!writer.close(Duration.ofSeconds(10))) {
            log.warn("the feedback log {} was closed with lines still waiting", file);
        }
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException e) {
            log.warn("the feedback log {} was not closed cleanly: {}", file, e.toString());
        }
    }
}
