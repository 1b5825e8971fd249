package dev.triage.model.evaluation;

import dev.triage.features.LexicalFeatures;
import dev.triage.features.PromptTokens;
import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Clairvoyant's prompt-length rule (Table 7): a prompt of at least {@code threshold} tokens is long,
 * any shorter one short, with the threshold that maximizes Algorithm 1's ranking accuracy on the
 * training prompts (within each answering model, as {@link Evaluation} measures).
 */
public final class PromptLengthRule {

    private PromptLengthRule() {}

    public static TwoClassRule fit(List<LabeledPrompt> train, double[] meanAnswerTokens) {
        int threshold = bestThreshold(train);
        return new TwoClassRule("prompt-length rule (>= " + threshold + " tokens)",
                features -> features[LexicalFeatures.PROMPT_TOKEN_LEN] >= threshold, meanAnswerTokens);
    }

    static int bestThreshold(List<LabeledPrompt> train) {
        Map<String, List<Integer>> shortLengths = new LinkedHashMap<>();
        Map<String, List<Integer>> longLengths = new LinkedHashMap<>();
        TreeSet<Integer> candidates = new TreeSet<>();
        for (LabeledPrompt prompt : train) {
            int length = PromptTokens.approximate(prompt.prompt());
            candidates.add(length);
            for (PromptAnswer answer : prompt.answers()) {
                String model = answer.modelKey();
                LengthClass truth = LengthClass.of(answer.answerTokens());
                if (truth == LengthClass.SHORT) {
                    shortLengths.computeIfAbsent(model, k -> new ArrayList<>()).add(length);
                } else if (truth == LengthClass.LONG) {
                    longLengths.computeIfAbsent(model, k -> new ArrayList<>()).add(length);
                }
            }
        }
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("train: no prompts (expected: at least one)");
        }
        List<int[]> shorts = new ArrayList<>();
        List<int[]> longs = new ArrayList<>();
        for (String model : longLengths.keySet()) {
            if (shortLengths.containsKey(model)) {
                shorts.add(sorted(shortLengths.get(model)));
                longs.add(sorted(longLengths.get(model)));
            }
        }
        int best = candidates.first();
        long bestCorrect = -1;
        for (int threshold : candidates) {
            long correct = 0;
            for (int m = 0; m < shorts.size(); m++) {
                // Correct: the long answer's prompt is at or above the threshold, the short one's below it.
                long longsAbove = longs.get(m).length - countBelow(longs.get(m), threshold);
                correct += longsAbove * countBelow(shorts.get(m), threshold);
            }
            if (correct > bestCorrect) {
                bestCorrect = correct;
                best = threshold;
            }
        }
        return best;
    }

    private static int[] sorted(List<Integer> values) {
        int[] array = values.stream().mapToInt(Integer::intValue).toArray();
        Arrays.sort(array);
        return array;
    }

    private static int countBelow(int[] sorted, int value) {
        int index = Arrays.binarySearch(sorted, value);
        if (index < 0) {
            return -index - 1;
        }
        while (index > 0 && sorted[index - 1] == value) {
            index--;
        }
        return index;
    }
}
