package dev.triage.model.data;

import dev.triage.model.LengthClass;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The labeled prompts that training and evaluation read: the loader's answers restricted to the
 * {@link TargetModels}, grouped into one {@link LabeledPrompt} per distinct normalized prompt of a
 * source, each assigned to its {@link PromptSplit}.
 *
 * <p>Apart from those, the {@link PromptSource#CURATED curated instruction sets}' prompts with their
 * generators' answers ({@link #instructionSetPrompts}): not the chat models Triage schedules for, so
 * never evaluated, but within one generator a longer answer still marks a prompt that asks for more,
 * and a ranker may learn that order from them.
 *
 * <pre>{@code
 * PromptCorpus corpus = PromptCorpus.of(PromptResponseLoader.load(dir));
 * List<LabeledPrompt> train = corpus.prompts(PromptSplit.TRAIN);
 * }</pre>
 */
public final class PromptCorpus {

    private final List<LabeledPrompt> prompts;
    private final List<LabeledPrompt> instructionSetPrompts;

    private PromptCorpus(List<LabeledPrompt> prompts, List<LabeledPrompt> instructionSetPrompts) {
        this.prompts = Collections.unmodifiableList(prompts);
        this.instructionSetPrompts = Collections.unmodifiableList(instructionSetPrompts);
    }

    public static PromptCorpus of(List<PromptAnswer> answers) {
        Map<String, List<PromptAnswer>> groups = new LinkedHashMap<>();
        Map<String, List<PromptAnswer>> instructionSets = new LinkedHashMap<>();
        Set<String> targetTexts = new HashSet<>();
        for (PromptAnswer answer : answers) {
            String text = PromptText.normalize(answer.prompt());
            if (TargetModels.targets(answer.answeringModel())) {
                groups.computeIfAbsent(answer.source().name() + '\u0000' + text, k -> new ArrayList<>()).add(answer);
                targetTexts.add(text);
            } else if (answer.source() == PromptSource.CURATED) {
                instructionSets.computeIfAbsent(text, k -> new ArrayList<>()).add(answer);
            }
        }
        // A text that a target model answered too is that source's: held out with it, never learned from twice.
        instructionSets.keySet().removeAll(targetTexts);
        return new PromptCorpus(labeled(groups.values()), labeled(instructionSets.values()));
    }

    private static List<LabeledPrompt> labeled(Collection<List<PromptAnswer>> groups) {
        List<LabeledPrompt> prompts = new ArrayList<>(groups.size());
        for (List<PromptAnswer> group : groups) {
            String prompt = group.get(0).prompt();
            prompts.add(new LabeledPrompt(prompt, group.get(0).source(), PromptSplit.of(prompt), group));
        }
        return prompts;
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
     * The instruction sets' prompts of a split, each with its generators' answers; none whose text a
     * target model answered.
     */
    public List<LabeledPrompt> instructionSetPrompts(PromptSplit split) {
        return instructionSetPrompts.stream().filter(p -> p.split() == split).toList();
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
