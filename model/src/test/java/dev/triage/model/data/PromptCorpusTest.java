package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptCorpusTest {

    @Test
    void groupsTargetModelAnswersByNormalizedPromptAndSource() {
        List<PromptAnswer> answers = List.of(
                new PromptAnswer("Explain tides.", 300, PromptSource.ALPACA_EVAL, "model-a"),
                new PromptAnswer("explain   TIDES.", 900, PromptSource.ALPACA_EVAL, "model-b"),
                new PromptAnswer("Explain tides.", 50, PromptSource.ALPACA_EVAL, "alpaca-7b"),
                new PromptAnswer("Explain tides.", 100, PromptSource.SHAREGPT, PromptResponseLoader.SHAREGPT_MODEL));
        PromptCorpus corpus = PromptCorpus.of(answers);
        assertEquals(2, corpus.prompts().size());
        LabeledPrompt alpaca = corpus.prompts().get(0);
        assertEquals("Explain tides.", alpaca.prompt());
        assertEquals(List.of(answers.get(0), answers.get(1)), alpaca.answers(), "alpaca-7b is not a target model");
        assertEquals(PromptSplit.of("Explain tides."), alpaca.split());
        assertEquals(alpaca.split(), corpus.prompts().get(1).split(), "one prompt, one split, whatever the source");
    }

    @Test
    void instructionSetPromptsStandApartAndNeverRepeatATargetPrompt() {
        List<PromptAnswer> answers = List.of(
                new PromptAnswer("Explain tides.", 300, PromptSource.ALPACA_EVAL, "model-a"),
                new PromptAnswer("explain tides.", 40, PromptSource.CURATED, PromptResponseLoader.ALPACA_GPT4_MODEL),
                new PromptAnswer("Name three colours.", 20, PromptSource.CURATED, PromptResponseLoader.ALPACA_GPT4_MODEL),
                new PromptAnswer("name three   colours.", 25, PromptSource.CURATED, PromptResponseLoader.ALPACA_CLEANED_MODEL),
                new PromptAnswer("Write a story.", 700, PromptSource.ALPACA_EVAL, "alpaca-7b"));
        PromptCorpus corpus = PromptCorpus.of(answers);
        assertEquals(List.of("Explain tides."), corpus.prompts().stream().map(LabeledPrompt::prompt).toList(),
                "instruction sets are never evaluated");
        PromptSplit split = PromptSplit.of("Name three colours.");
        List<LabeledPrompt> instructionSets = corpus.instructionSetPrompts(split);
        assertEquals(1, instructionSets.size(), "a target prompt's text is that source's; other excluded models are not kept");
        assertEquals(List.of(answers.get(2), answers.get(3)), instructionSets.get(0).answers(), "both generators' answers");
        assertEquals(PromptSource.CURATED, instructionSets.get(0).source());
        for (PromptSplit other : PromptSplit.values()) {
            if (other != split) {
                assertTrue(corpus.instructionSetPrompts(other).isEmpty(), other + ": split by text like every prompt");
            }
        }
    }

    @Test
    void theFixturesLeaveOutNonTargetModels() throws IOException {
        PromptCorpus corpus = PromptCorpus.of(PromptResponseLoader.load(Fixtures.promptResponse()));
        assertEquals(7, corpus.prompts().size());
        assertTrue(corpus.prompts().stream().noneMatch(p -> p.source() == PromptSource.CURATED));
        assertEquals(corpus.prompts().size(), corpus.prompts(PromptSplit.TRAIN).size()
                + corpus.prompts(PromptSplit.VALIDATION).size() + corpus.prompts(PromptSplit.TEST).size());
    }

    @Test
    void meanAnswerTokensPerClass() {
        List<LabeledPrompt> prompts = List.of(new LabeledPrompt("p", PromptSource.ALPACA_EVAL, PromptSplit.TRAIN, List.of(
                new PromptAnswer("p", 100, PromptSource.ALPACA_EVAL, "a"),
                new PromptAnswer("p", 50, PromptSource.ALPACA_EVAL, "b"),
                new PromptAnswer("p", 1000, PromptSource.ALPACA_EVAL, "c"))));
        assertArrayEquals(new double[] {75, 500, 1000}, PromptCorpus.meanAnswerTokens(prompts), 1e-9,
                "medium has no answers and takes the middle of its bounds");
    }

    @Test
    void aPromptNeedsAnAnswer() {
        assertThrows(IllegalArgumentException.class,
                () -> new LabeledPrompt("p", PromptSource.SHAREGPT, PromptSplit.TEST, List.of()));
    }
}
