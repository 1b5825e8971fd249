package dev.triage.bench.workload;

import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Builds benchmark workloads from prompts no estimator was trained or tuned on (the test and
 * validation splits), with the answers of one answering model: a Triage instance schedules for the
 * one model behind it, and models differ so much in verbosity that a mix of models' answers would
 * rank by model rather than by prompt.
 */
public final class HeldOutWorkload {

    /**
     * The default model: Llama 3.1 8B Instruct, the model Clairvoyant's GPU benchmark served through
     * Ollama, and the target model with the most held-out (short, long) answer pairs in the data.
     */
    public static final String DEFAULT_MODEL = "Meta-Llama-3.1-8B-Instruct-Turbo";

    /**
     * Sources whose content has a clear licence: the default, since workloads may be shipped (a small,
     * attributed sample) and ShareGPT's conversations have none.
     */
    public static final Set<PromptSource> LICENSED = EnumSet.of(PromptSource.ALPACA_EVAL, PromptSource.ARENA_HARD_V01,
            PromptSource.ARENA_BENCH_V1);

    private HeldOutWorkload() {}

    /**
     * {@code shorts} short and {@code longs} long answers of {@code model} to held-out prompts of
     * {@code sources}, chosen in an order set by {@code seed}.
     *
     * @throws IllegalArgumentException when the held-out prompts cannot supply that many
     */
    public static List<WorkloadEntry> burst(PromptCorpus corpus, Set<PromptSource> sources, String model, int shorts,
            int longs, long seed) {
        List<PromptAnswer> shortAnswers = new ArrayList<>();
        List<PromptAnswer> longAnswers = new ArrayList<>();
        for (PromptAnswer answer : answers(corpus, sources, model, List.of(PromptSplit.TEST, PromptSplit.VALIDATION))) {
            LengthClass cls = LengthClass.of(answer.answerTokens());
            if (cls == LengthClass.SHORT) {
                shortAnswers.add(answer);
            } else if (cls == LengthClass.LONG) {
                longAnswers.add(answer);
            }
        }
        if (shortAnswers.size() < shorts || longAnswers.size() < longs) {
            throw new IllegalArgumentException("held-out answers of " + model + " give " + shortAnswers.size() + " short and "
                    + longAnswers.size() + " long; asked for " + shorts + " and " + longs);
        }
        Random random = new Random(seed);
        Collections.shuffle(shortAnswers, random);
        Collections.shuffle(longAnswers, random);
        List<WorkloadEntry> entries = new ArrayList<>();
        shortAnswers.subList(0, shorts).forEach(answer -> entries.add(entry(answer)));
        longAnswers.subList(0, longs).forEach(answer -> entries.add(entry(answer)));
        return entries;
    }

    /** Every answer of {@code model} to a prompt of {@code sources} in the given held-out splits, split by split. */
    public static List<PromptAnswer> answers(PromptCorpus corpus, Set<PromptSource> sources, String model, List<PromptSplit> splits) {
        List<PromptAnswer> answers = new ArrayList<>();
        for (PromptSplit split : splits) {
            for (LabeledPrompt prompt : corpus.prompts(split)) {
                if (!sources.contains(prompt.source())) {
                    continue;
                }
                for (PromptAnswer answer : prompt.answers()) {
                    if (answer.answeringModel().equals(model)) {
                        answers.add(answer);
                    }
                }
            }
        }
        return answers;
    }

    private static WorkloadEntry entry(PromptAnswer answer) {
        return WorkloadEntry.of(answer.prompt(), answer.answerTokens(),
                answer.source().id() + "/" + answer.answeringModel() + " (" + answer.source().licence() + ")");
    }
}
