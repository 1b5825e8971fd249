package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.triage.features.Prompt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromptResponseLoaderTest {

    private static PromptAnswer answer(String prompt, String answer, PromptSource source, String model) {
        return new PromptAnswer(prompt, AnswerTokens.count(answer), source, model);
    }

    @Test
    void alpacaEvalNamesTheModelByFileAndKeepsOneAnswerPerModelAndPrompt() throws IOException {
        assertEquals(List.of(
                answer("Name a colour.", "Green", PromptSource.ALPACA_EVAL, "alpaca-7b"),
                answer("Name a colour.", "Blue.", PromptSource.ALPACA_EVAL, "model-a"),
                answer("Write a short poem about rain.", "Rain taps the roof,\nsoft and slow.", PromptSource.ALPACA_EVAL, "model-a")),
                PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.ALPACA_EVAL));
    }

    @Test
    void arenaHardReadsOpenAiMessages() throws IOException {
        assertEquals(List.of(answer("Explain recursion.", "Recursion is a function calling itself.",
                        PromptSource.ARENA_HARD_V01, "gpt-x")),
                PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.ARENA_HARD_V01));
    }

    @Test
    void arenaBenchJoinsAnswersToQuestions() throws IOException {
        assertEquals(List.of(
                answer("Compare tea and coffee.", "Tea has less caffeine than coffee.", PromptSource.ARENA_BENCH_V1, "bench-model"),
                answer("Define entropy.", "A measure of disorder.", PromptSource.ARENA_BENCH_V1, "bench-model")),
                PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.ARENA_BENCH_V1));
    }

    @Test
    void shareGptGivesEveryAnsweredHumanTurnOnceWithTheConversationBeforeIt() throws IOException {
        String model = PromptResponseLoader.SHAREGPT_MODEL;
        String cutOff = "An answer whose question was cut off.";
        assertEquals(List.of(
                new PromptAnswer(new Prompt("What is 2+2?", 1, 0, cutOff.length() + 12), AnswerTokens.count("4"),
                        PromptSource.SHAREGPT, model),
                new PromptAnswer(new Prompt("continue", 2, 0, cutOff.length() + 12 + 1 + 8),
                        AnswerTokens.count("There is nothing more to add."), PromptSource.SHAREGPT, model)),
                PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.SHAREGPT));
    }

    @Test
    void curatedSetsJoinInstructionAndInput() throws IOException {
        assertEquals(List.of(
                answer("Reverse a string in Python.\n\ns = 'abc'", "s[::-1]", PromptSource.CURATED,
                        PromptResponseLoader.CODEALPACA_MODEL),
                answer("Give a synonym of fast.", "Quick.", PromptSource.CURATED, PromptResponseLoader.ALPACA_GPT4_MODEL),
                answer("Give a synonym of fast.", "Rapid.", PromptSource.CURATED, PromptResponseLoader.ALPACA_CLEANED_MODEL),
                answer("Write a haiku about autumn.", "Leaves drift and settle.", PromptSource.CURATED,
                        PromptResponseLoader.MT_BENCH_MODEL)),
                PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.CURATED));
    }

    @Test
    void loadingEverythingReadsEachSourceInOrder() throws IOException {
        List<PromptAnswer> all = PromptResponseLoader.load(Fixtures.promptResponse());
        assertEquals(12, all.size());
        assertEquals(PromptSource.ALPACA_EVAL, all.get(0).source());
        assertEquals(PromptSource.CURATED, all.get(all.size() - 1).source());
    }

    @Test
    void aMissingFolderIsNamed(@TempDir Path empty) {
        IOException e = assertThrows(IOException.class, () -> PromptResponseLoader.load(empty, PromptSource.SHAREGPT));
        assertTrue(e.getMessage().contains(empty.resolve("sharegpt_1k_marugannwg").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("no such folder"), e.getMessage());
    }

    @Test
    void aMalformedLineIsNamedWithItsNumber(@TempDir Path root) throws IOException {
        Path folder = Files.createDirectories(root.resolve("sharegpt_1k_marugannwg"));
        Files.writeString(folder.resolve("sharegpt_sample_1000.jsonl"), "{\"id\": \"ok\", \"conversations\": []}\n{oops\n");
        IOException e = assertThrows(IOException.class, () -> PromptResponseLoader.load(root, PromptSource.SHAREGPT));
        assertTrue(e.getMessage().contains("sharegpt_sample_1000.jsonl:2: not a JSON line"), e.getMessage());
    }

    @Test
    void aRowWithoutItsFieldIsNamed(@TempDir Path root) throws IOException {
        Path folder = Files.createDirectories(root.resolve("alpaca_eval_outputs"));
        Files.writeString(folder.resolve("m.json"), "[{\"instruction\": \"hi\"}]");
        IOException e = assertThrows(IOException.class, () -> PromptResponseLoader.load(root, PromptSource.ALPACA_EVAL));
        assertTrue(e.getMessage().contains("field 'output' missing"), e.getMessage());
    }

    @Test
    void theSharedArenaHardAnswersLoadWhenPresent() throws IOException {
        Optional<Path> shared = SharedData.promptResponse();
        assumeTrue(shared.isPresent(), "shared data not found (../shared/data or TRIAGE_DATA): skipped");
        List<PromptAnswer> answers = PromptResponseLoader.load(shared.get(), PromptSource.ARENA_HARD_V01);
        Map<String, Long> perModel = answers.stream().collect(Collectors.groupingBy(PromptAnswer::answeringModel, Collectors.counting()));
        assertEquals(Map.of("gpt-3.5-turbo-0125", 500L, "gpt-4-0314", 500L, "gpt-4-0613", 500L), perModel);
        assertTrue(answers.stream().allMatch(a -> a.answerTokens() > 0));
    }
}
