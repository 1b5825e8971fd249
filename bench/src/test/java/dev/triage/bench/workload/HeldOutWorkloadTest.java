package dev.triage.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.PromptTokens;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeldOutWorkloadTest {

    private static final String MODEL = HeldOutWorkload.DEFAULT_MODEL;
    private static final Set<PromptSource> SOURCES = Set.of(PromptSource.ALPACA_EVAL);

    /** A held-out prompt of about {@code characters} characters. */
    private static String heldOutPrompt(int characters) {
        for (int i = 0; ; i++) {
            String prompt = "prompt " + i + " " + "x".repeat(Math.max(0, characters - 10));
            if (PromptSplit.of(prompt) != PromptSplit.TRAIN) {
                return prompt;
            }
        }
    }

    private static PromptAnswer answer(int promptCharacters, int answerTokens) {
        return new PromptAnswer(heldOutPrompt(promptCharacters), answerTokens, PromptSource.ALPACA_EVAL, MODEL);
    }

    @Test
    void pairsEachLongAnswerWithTheShortOneWhosePromptIsAsLong() {
        List<PromptAnswer> answers = new ArrayList<>(List.of(answer(40, 900), answer(400, 1200), answer(4000, 2000)));
        for (int characters : new int[] {12, 44, 380, 1000, 4100, 9000}) {
            answers.add(answer(characters, 50));
        }
        answers.add(answer(400, 500)); // medium: never in a burst
        PromptCorpus corpus = PromptCorpus.of(answers);

        List<WorkloadEntry> entries = HeldOutWorkload.lengthMatchedBurst(corpus, SOURCES, MODEL, 3, 7);

        assertEquals(6, entries.size());
        for (int pair = 0; pair < 3; pair++) {
            WorkloadEntry shortOne = entries.get(2 * pair);
            WorkloadEntry longOne = entries.get(2 * pair + 1);
            assertEquals("short", shortOne.jobClass());
            assertEquals("long", longOne.jobClass());
            double ratio = (double) PromptTokens.approximate(shortOne.prompt()) / PromptTokens.approximate(longOne.prompt());
            // The nearest other short prompt is more than twice as long or short.
            assertTrue(ratio > 0.85 && ratio < 1.18, "pair " + pair + ": prompt lengths " + shortOne.prompt().length() + " and "
                    + longOne.prompt().length());
        }
        assertThrows(IllegalArgumentException.class, () -> HeldOutWorkload.lengthMatchedBurst(corpus, SOURCES, MODEL, 4, 7));
    }
}
