package dev.triage.model.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.Prompt;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a deployment's own answers from the feedback log Triage writes ({@code --feedback-log FILE
 * --feedback-log-prompts true}, format {@value #FORMAT}) into {@link PromptAnswer}s of the source
 * {@link PromptSource#FEEDBACK}, so that training can take them beside the shared data: each line's
 * prompt, in the shape the estimator read it, and the tokens the backend wrote. The answering model
 * is named after the backend ({@code feedback:chat}). Lines written without their prompt teach no
 * text model and are skipped; the answers' lengths are the backend's own tokens, not cl100k's. A last
 * line that Triage left unfinished (it stopped while writing it) is left out.
 *
 * <pre>{@code
 * List<PromptAnswer> answers = FeedbackAnswers.load(Path.of("feedback.jsonl"));
 * }</pre>
 */
public final class FeedbackAnswers {

    /** The format every line of the log names. */
    public static final String FORMAT = "triage-feedback/1";

    private FeedbackAnswers() {}

    /**
     * The answers of the lines that carry their prompt.
     *
     * @throws IOException when the file cannot be read, a line is not a feedback line, or no line has its prompt
     */
    public static List<PromptAnswer> load(Path file) throws IOException {
        List<Optional<PromptAnswer>> lines = JsonLines.readLog(file, FeedbackAnswers::answer);
        List<PromptAnswer> answers = lines.stream().flatMap(Optional::stream).toList();
        if (!lines.isEmpty() && answers.isEmpty()) {
            throw new IOException(file + ": no line has its prompt (expected: a log written with --feedback-log-prompts true)");
        }
        return answers;
    }

    private static Optional<PromptAnswer> answer(JsonNode line) {
        if (!FORMAT.equals(line.path("format").asText())) {
            throw new IllegalArgumentException("not a " + FORMAT + " line");
        }
        if (!line.path("prompt").isTextual() || line.get("prompt").asText().isBlank()) {
            return Optional.empty();
        }
        String text = line.get("prompt").asText();
        long tokens = number(line, "actualTokens");
        Prompt prompt = new Prompt(text, (int) number(line, "userTurns"), (int) number(line, "systemChars"),
                (int) number(line, "conversationChars"));
        String backend = Objects.requireNonNullElse(line.path("backend").textValue(), "backend");
        return Optional.of(new PromptAnswer(prompt, (int) Math.min(tokens, Integer.MAX_VALUE), PromptSource.FEEDBACK,
                "feedback:" + backend));
    }

    private static long number(JsonNode line, String name) {
        JsonNode value = line.path(name);
        if (!value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: a whole number >= 0)");
        }
        return value.asLong();
    }
}
