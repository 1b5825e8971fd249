package dev.triage.model.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.features.Prompt;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Reads the prompt/answer collections of {@code shared/data/prompt_response} (see its README and
 * STATS.md) into {@link PromptAnswer}s: one per answer, with the answer's length counted by
 * {@link AnswerTokens}.
 *
 * <p>What it keeps: every answer whose prompt and answer are not blank, once per answering model:
 * when a model answered the same {@link PromptText normalized} prompt twice in one source (ShareGPT
 * users repeat "continue"), the first answer in file order is kept. Chat collections give their
 * first user turn; ShareGPT gives every human turn that a gpt turn answers, since Triage scores a
 * conversation's last user message whatever its position.
 *
 * <pre>{@code
 * List<PromptAnswer> answers = PromptResponseLoader.load(Path.of("../shared/data/prompt_response"));
 * }</pre>
 */
public final class PromptResponseLoader {

    /** The answering model of the ShareGPT conversations: ChatGPT as users shared it in early 2023. */
    public static final String SHAREGPT_MODEL = "chatgpt-2023";
    /** CodeAlpaca's answers: text-davinci-003 generating an instruction-tuning set. */
    public static final String CODEALPACA_MODEL = "codealpaca-data (text-davinci-003)";
    /** GPT-4-LLM's answers to the Alpaca instructions. */
    public static final String ALPACA_GPT4_MODEL = "alpaca-gpt4-data (gpt-4)";
    /** Alpaca's text-davinci-003 answers as cleaned by the alpaca-cleaned project. */
    public static final String ALPACA_CLEANED_MODEL = "alpaca-cleaned-data (text-davinci-003)";
    /** MT-Bench's GPT-4 reference answers. */
    public static final String MT_BENCH_MODEL = "mt-bench-reference (gpt-4)";

    private static final ObjectMapper JSON = new ObjectMapper();

    private PromptResponseLoader() {}

    /** Every source under {@code promptResponse}, in {@link PromptSource} order. */
    public static List<PromptAnswer> load(Path promptResponse) throws IOException {
        List<PromptAnswer> answers = new ArrayList<>();
        for (PromptSource source : PromptSource.values()) {
            if (source.shared()) {
                answers.addAll(load(promptResponse, source));
            }
        }
        return answers;
    }

    /** One source; a missing folder or a malformed file is an {@link IOException} naming the file. */
    public static List<PromptAnswer> load(Path promptResponse, PromptSource source) throws IOException {
        if (!source.shared()) {
            throw new IllegalArgumentException(source.id() + " is not in the shared data");
        }
        Path folder = promptResponse.resolve(source.folder());
        if (!Files.isDirectory(folder)) {
            throw new IOException(folder + ": no such folder (source " + source.id() + ")");
        }
        Collector collector = new Collector(source);
        switch (source) {
            case ALPACA_EVAL -> readAlpacaEval(folder, collector);
            case ARENA_HARD_V01 -> readArenaHard(folder, collector);
            case ARENA_BENCH_V1 -> readFastChatAnswers(folder, "model_answer", null, collector);
            case SHAREGPT -> readShareGpt(folder.resolve("sharegpt_sample_1000.jsonl"), collector);
            case CURATED -> readCurated(folder, collector);
        }
        return collector.answers;
    }

    /** alpaca_eval: one JSON list per model, {@code {instruction, output}}; the file names the model. */
    private static void readAlpacaEval(Path folder, Collector collector) throws IOException {
        for (Path file : files(folder, ".json")) {
            String model = stripExtension(file);
            for (JsonNode row : readJson(file)) {
                collector.add(text(row, "instruction", file), text(row, "output", file), model);
            }
        }
    }

    /** arena-hard v0.1: {@code model_answer/*.jsonl} with OpenAI-style messages. */
    private static void readArenaHard(Path folder, Collector collector) throws IOException {
        for (Path file : files(folder.resolve("model_answer"), ".jsonl")) {
            for (JsonNode row : JsonLines.read(file, Function.identity())) {
                JsonNode messages = row.path("messages");
                JsonNode answer = messages.path(1).path("content");
                collector.add(text(messages.path(0), "content", file),
                        answer.isObject() ? text(answer, "answer", file) : answer.asText(""),
                        text(row, "model", file));
            }
        }
    }

    /**
     * FastChat's answer format (arena-bench-v1, MT-Bench references): {@code question.jsonl} beside
     * an answer folder or file, each answer's first turn answering the question's first turn. The
     * answering model is each row's {@code model_id}, or {@code model} when that is not null.
     */
    private static void readFastChatAnswers(Path folder, String answers, String model, Collector collector)
            throws IOException {
        Map<String, String> questions = new HashMap<>();
        Path questionFile = folder.resolve("question.jsonl");
        for (JsonNode question : JsonLines.read(questionFile, Function.identity())) {
            questions.put(question.path("question_id").asText(), question.path("turns").path(0).asText(""));
        }
        Path answerPath = folder.resolve(answers);
        List<Path> answerFiles = Files.isDirectory(answerPath) ? files(answerPath, ".jsonl") : List.of(answerPath);
        for (Path file : answerFiles) {
            for (JsonNode row : JsonLines.read(file, Function.identity())) {
                String id = row.path("question_id").asText();
                String prompt = questions.get(id);
                if (prompt == null) {
                    throw new IOException(file + ": answer to unknown question_id " + id + " (not in " + questionFile + ")");
                }
                collector.add(prompt, row.path("choices").path(0).path("turns").path(0).asText(""),
                        model != null ? model : text(row, "model_id", file));
            }
        }
    }

    /**
     * ShareGPT: conversations of {@code {from, value}} turns; each human turn answered by a gpt turn,
     * with the conversation so far as its shape (user turns and characters up to and including it).
     */
    private static void readShareGpt(Path file, Collector collector) throws IOException {
        for (JsonNode row : JsonLines.read(file, Function.identity())) {
            JsonNode turns = row.path("conversations");
            int userTurns = 0;
            int conversationChars = 0;
            for (int i = 0; i < turns.size(); i++) {
                String text = turns.get(i).path("value").asText("");
                conversationChars += text.length();
                if (!"human".equals(turns.get(i).path("from").asText())) {
                    continue;
                }
                userTurns++;
                if (i + 1 < turns.size() && "gpt".equals(turns.get(i + 1).path("from").asText())) {
                    collector.add(new Prompt(text, userTurns, 0, conversationChars), turns.get(i + 1).path("value").asText(""),
                            SHAREGPT_MODEL);
                }
            }
        }
    }

    /** The curated instruction sets, each written by one model; and MT-Bench's reference answers. */
    private static void readCurated(Path folder, Collector collector) throws IOException {
        readInstructionSet(folder.resolve("codealpaca/code_alpaca_2k.json"), CODEALPACA_MODEL, collector);
        readInstructionSet(folder.resolve("alpaca_gpt4_1k_llamafactory/alpaca_en_demo.json"), ALPACA_GPT4_MODEL, collector);
        readInstructionSet(folder.resolve("alpaca_cleaned_1k_fastchat/alpaca_data_cleaned_1000.json"),
                ALPACA_CLEANED_MODEL, collector);
        readFastChatAnswers(folder.resolve("mt_bench"), "reference_answer_gpt-4.jsonl", MT_BENCH_MODEL, collector);
    }

    /** Alpaca's {@code {instruction, input, output}}: the prompt is the instruction, then the input. */
    private static void readInstructionSet(Path file, String model, Collector collector) throws IOException {
        for (JsonNode row : readJson(file)) {
            String instruction = text(row, "instruction", file);
            String input = row.path("input").asText("");
            collector.add(input.isBlank() ? instruction : instruction + "\n\n" + input, text(row, "output", file), model);
        }
    }

    /** Gathers answers, dropping blanks and a model's repeated answers to the same prompt. */
    private static final class Collector {
        final PromptSource source;
        final List<PromptAnswer> answers = new ArrayList<>();
        final Set<String> seen = new HashSet<>();

        Collector(PromptSource source) {
            this.source = source;
        }

        void add(String prompt, String answer, String model) {
            add(new Prompt(prompt), answer, model);
        }

        void add(Prompt request, String answer, String model) {
            if (request.text().isBlank() || answer.isBlank()) {
                return;
            }
            if (seen.add(model + '\u0000' + PromptText.normalize(request.text()))) {
                answers.add(new PromptAnswer(request, AnswerTokens.count(answer), source, model));
            }
        }
    }

    private static String text(JsonNode node, String field, Path file) throws IOException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IOException(file + ": field '" + field + "' missing or not a string in " + abbreviate(node));
        }
        return value.asText();
    }

    private static String abbreviate(JsonNode node) {
        String text = node.toString();
        return text.length() <= 120 ? text : text.substring(0, 120) + "...";
    }

    private static JsonNode readJson(Path file) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(file + ": not readable as JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new IOException(file + ": expected a JSON list");
        }
        return root;
    }

    private static List<Path> files(Path folder, String extension) throws IOException {
        try (Stream<Path> listing = Files.list(folder)) {
            List<Path> files = listing.filter(p -> p.getFileName().toString().endsWith(extension)).sorted().toList();
            if (files.isEmpty()) {
                throw new IOException(folder + ": no *" + extension + " files");
            }
            return files;
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static String stripExtension(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, name.lastIndexOf('.'));
    }
}
