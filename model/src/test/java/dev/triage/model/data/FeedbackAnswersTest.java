package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeedbackAnswersTest {

    private static final String WITH_PROMPT = """
            {"format":"triage-feedback/1","backend":"chat","userTurns":1,"systemChars":0,"conversationChars":14,\
            "actualTokens":412,"prompt":"Explain tides."}""";
    private static final String WITHOUT_PROMPT = """
            {"format":"triage-feedback/1","backend":"chat","userTurns":1,"systemChars":0,"conversationChars":14,\
            "actualTokens":40}""";

    @TempDir
    Path directory;

    @Test
    void linesWithTheirPromptBecomeAnswersOfTheFeedbackSource() throws IOException {
        Path file = Files.writeString(directory.resolve("feedback.jsonl"), WITH_PROMPT + "\n" + WITHOUT_PROMPT + "\n");
        assertEquals(List.of(new PromptAnswer(new Prompt("Explain tides."), 412, PromptSource.FEEDBACK, "feedback:chat")),
                FeedbackAnswers.load(file));
    }

    @Test
    void feedbackAnswersJoinTheCorpusAsASourceOfTheirOwn() throws IOException {
        Path file = Files.writeString(directory.resolve("feedback.jsonl"), WITH_PROMPT + "\n");
        List<PromptAnswer> answers = new ArrayList<>(PromptResponseLoader.load(Fixtures.promptResponse()));
        answers.addAll(FeedbackAnswers.load(file));
        PromptCorpus corpus = PromptCorpus.of(answers);
        List<LabeledPrompt> fed = corpus.prompts().stream().filter(p -> p.source() == PromptSource.FEEDBACK).toList();
        assertEquals(1, fed.size());
        assertEquals(PromptSplit.of("Explain tides."), fed.get(0).split());
    }

    @Test
    void aLogWithoutPromptsOrOfAnotherFormatIsAnError() throws IOException {
        Path withoutPrompts = Files.writeString(directory.resolve("bare.jsonl"), WITHOUT_PROMPT + "\n");
        IOException bare = assertThrows(IOException.class, () -> FeedbackAnswers.load(withoutPrompts));
        assertTrue(bare.getMessage().contains("--feedback-log-prompts"), bare.getMessage());
        Path foreign = Files.writeString(directory.resolve("foreign.jsonl"), WITH_PROMPT + "\n{\"format\":\"other\"}\n");
        IOException other = assertThrows(IOException.class, () -> FeedbackAnswers.load(foreign));
        assertTrue(other.getMessage().contains("foreign.jsonl:2"), other.getMessage());
    }

    @Test
    void theSharedDataLoaderDoesNotLookForTheFeedbackSource() {
        assertThrows(IllegalArgumentException.class, () -> PromptResponseLoader.load(Fixtures.promptResponse(), PromptSource.FEEDBACK));
    }
}
