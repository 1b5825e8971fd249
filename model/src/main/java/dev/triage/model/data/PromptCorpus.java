package dev.triage.model.data;

import dev.triage.model.LengthClass;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The labeled prompts that training and evaluation read: the loader's answers restricted to the
 * {@link TargetModels}, grouped into one {@link LabeledPrompt} per distinct normalized prompt of a
 * source, each assigned to its {@link PromptSplit}.
 *
 * <pre>{@code
 * PromptCorpus corpus = PromptCorpus.of(PromptResponseLoader.load(dir));
 * List<LabeledPrompt> train = corpus.prompts(PromptSplit.TRAIN);
 * }</pre>
 */
public final class PromptCorpus {

    private final List<LabeledPrompt> prompts;

    private PromptCorpus(List<LabeledPrompt> prompts) {
        this.prompts = Collections.unmodifiableList(prompts);
    }

    public static PromptCorpus of(List<PromptAnswer> answers) {
        Map<String, List<PromptAnswer>> groups = new LinkedHashMap<>();
        for (PromptAnswer answer : answers) {
            if (TargetModels.targets(answer.answeringModel())) {
                String key = answer.source().name() + '\u0000' + PromptText.normalize(answer.prompt());
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(answer);
            }
        }
        List<LabeledPrompt> prompts = new ArrayList<>(groups.size());
        for (List<PromptAnswer> group : groups.values()) {
            String prompt = group.get(0).prompt();
            prompts.add(new LabeledPrompt(prompt, group.get(0).source(), PromptSplit.of(prompt), group));
        }
        return new PromptCorpus(prompts);
    }

    /** Every labeled prompt, in the loader's order. */
    public List<LabeledPrompt> prompts() {
        return prompts;
    }

    public List<LabeledPrompt> prompts(PromptSplit split) {
        return prompts.stream().filter(p -> p.split() == split).toList();
    }

    public List<LabeledPrompt> prompts(PromptSplit split, PromptSource source) {
        return prompts.stream().filter(p -> p.split() == split && p.source() == source).toList();
    }

    /**
     * The mean answer length of each {@link LengthClass} over the prompts' answers, in the class
     * order; a class without answers has the mean of its bounds (0 to 200, 200 to 800) or, for
     * long, twice its lower bound.
     */
    public static double[] meanAnswerTokens(List<LabeledPrompt> prompts) {
        double[] sums = new double[3];
        int[] counts = new int[3];
        for (LabeledPrompt prompt : prompts) {
            for (PromptAnswer answer : prompt.answers()) {
                int lengthClass = LengthClass.of(answer.answerTokens()).ordinal();
                sums[lengthClass] += answer.answerTokens();
                counts[lengthClass]++;
            }
        }
        double[] fallback = {LengthClass.MEDIUM_FROM / 2.0, (LengthClass.MEDIUM_FROM + LengthClass.LONG_FROM) / 2.0,
                2.0 * LengthClass.LONG_FROM};
        double[] means = new double[3];
        for (int c = 0; c < 3; c++) {
            means[c] = counts[c] == 0 ? fallback[c] : sums[c] / counts[c];
        }
        return means;
    }
}
