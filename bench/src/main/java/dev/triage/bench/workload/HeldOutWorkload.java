package dev.triage.bench.workload;

import dev.triage.features.PromptTokens;
import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
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
        HeldOutAnswers answers = HeldOutAnswers.of(corpus, sources, model, seed).requireAtLeast(shorts, longs);
        List<WorkloadEntry> entries = new ArrayList<>();
        answers.shorts().subList(0, shorts).forEach(answer -> entries.add(entry(answer)));
        answers.longs().subList(0, longs).forEach(answer -> entries.add(entry(answer)));
        return entries;
    }

    /**
     * {@code pairs} pairs of a short and a long answer of {@code model} to held-out prompts of
     * {@code sources} whose prompts have about the same length ({@link PromptTokens}), each pair's
     * short entry followed by its long one. Pairs are taken closest first, ties in an order set by
     * {@code seed}, so the prompt's length tells nothing about which of a pair is long: an estimator
     * that orders such a workload well reads more than the length.
     *
     * @throws IllegalArgumentException when the held-out prompts cannot supply that many pairs
     */
    public static List<WorkloadEntry> lengthMatchedBurst(PromptCorpus corpus, Set<PromptSource> sources, String model,
            int pairs, long seed) {
        HeldOutAnswers answers = HeldOutAnswers.of(corpus, sources, model, seed).requireAtLeast(pairs, pairs);
        List<PromptAnswer> shortAnswers = answers.shorts();
        List<PromptAnswer> longAnswers = answers.longs();
        record Candidate(int shortIndex, int longIndex, double distance) {}
        List<Candidate> candidates = new ArrayList<>();
        for (int l = 0; l < longAnswers.size(); l++) {
            for (int s = 0; s < shortAnswers.size(); s++) {
                candidates.add(new Candidate(s, l, Math.abs(logPromptTokens(shortAnswers.get(s)) - logPromptTokens(longAnswers.get(l)))));
            }
        }
        candidates.sort(Comparator.comparingDouble(Candidate::distance));
        boolean[] shortTaken = new boolean[shortAnswers.size()];
        boolean[] longTaken = new boolean[longAnswers.size()];
        List<WorkloadEntry> entries = new ArrayList<>();
        for (Candidate candidate : candidates) {
            if (entries.size() == 2 * pairs) {
                break;
            }
            if (!shortTaken[candidate.shortIndex()] && !longTaken[candidate.longIndex()]) {
                shortTaken[candidate.shortIndex()] = true;
                longTaken[candidate.longIndex()] = true;
                entries.add(entry(shortAnswers.get(candidate.shortIndex())));
                entries.add(entry(longAnswers.get(candidate.longIndex())));
            }
        }
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

    private static double logPromptTokens(PromptAnswer answer) {
        return Math.log(Math.max(1, PromptTokens.approximate(answer.prompt())));
    }

    /** The short and the long held-out answers of one model, each list in an order set by a seed. */
    private record HeldOutAnswers(String model, List<PromptAnswer> shorts, List<PromptAnswer> longs) {

        static HeldOutAnswers of(PromptCorpus corpus, Set<PromptSource> sources, String model, long seed) {
            List<PromptAnswer> shorts = new ArrayList<>();
            List<PromptAnswer> longs = new ArrayList<>();
            for (PromptAnswer answer : answers(corpus, sources, model, List.of(PromptSplit.TEST, PromptSplit.VALIDATION))) {
                LengthClass cls = LengthClass.of(answer.answerTokens());
                (cls == LengthClass.SHORT ? shorts : cls == LengthClass.LONG ? longs : new ArrayList<PromptAnswer>()).add(answer);
            }
            Random random = new Random(seed);
            Collections.shuffle(shorts, random);
            Collections.shuffle(longs, random);
            return new HeldOutAnswers(model, shorts, longs);
        }

        HeldOutAnswers requireAtLeast(int shortCount, int longCount) {
            if (shorts.size() < shortCount || longs.size() < longCount) {
                throw new IllegalArgumentException("held-out answers of " + model + " give " + shorts.size() + " short and "
                        + longs.size() + " long; asked for " + shortCount + " and " + longCount);
            }
            return this;
        }
    }

    private static WorkloadEntry entry(PromptAnswer answer) {
        return WorkloadEntry.of(answer.prompt(), answer.answerTokens(),
                answer.source().id() + "/" + answer.answeringModel() + " (" + answer.source().licence() + ")");
    }
}
