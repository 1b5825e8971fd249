package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;

import dev.triage.model.BaselineEstimator;
import dev.triage.model.Estimate;
import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.evaluation.ModelFamily;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The sections of an estimator's evaluation report that say how it generalizes, for any estimator
 * that can be trained again: the test split overall and per source against the prompt's length, per
 * answering-model family and answer style, the cross-source matrix (trained without a source, tested
 * on it), ties, and latency. Every figure is computed; nothing is written by hand.
 */
final class HeldOutReport {

    /** The targets: overall, margin over the prompt's length per source, every cross-source cell. */
    static final double TARGET_OVERALL = 0.92;
    static final double TARGET_MARGIN = 0.05;
    static final double TARGET_CROSS = 0.80;
    static final double TARGET_UNSEEN = 0.85;

    /** Trains an estimator on training and validation prompts and returns what estimates a list of prompts. */
    interface Fitter {
        Function<List<LabeledPrompt>, List<Estimate>> fit(List<LabeledPrompt> train, List<LabeledPrompt> validation);
    }

    private final StringBuilder text = new StringBuilder();
    private final List<String> targets = new ArrayList<>();
    private final PromptCorpus corpus;
    private final String name;

    HeldOutReport(PromptCorpus corpus, String name) {
        this.corpus = corpus;
        this.name = name;
    }

    /** Test split, pooled, per source and per family, for the shipped model. */
    void testSplit(Function<List<LabeledPrompt>, List<Estimate>> shipped) {
        BaselineEstimator baseline = new BaselineEstimator();
        text.append("## Test split\n\n")
                .append("Ranking accuracy (Clairvoyant's Algorithm 1, short < 200 vs long ≥ 800 tokens, within each answering ")
                .append("model) and Kendall's τ_b; *prompt length* is the `baseline` estimator on the same prompts.\n\n")
                .append("| test split | prompts | answers | short×long pairs | ").append(name)
                .append(" | prompt length | margin | τ_b | τ_b, prompt length |\n|---|---|---|---|---|---|---|---|---|\n");
        List<String> scopes = new ArrayList<>();
        scopes.add("all");
        for (PromptSource source : PromptSource.values()) {
            if (!corpus.prompts(PromptSplit.TEST, source).isEmpty()) {
                scopes.add(source.id());
            }
        }
        for (String scope : scopes) {
            List<LabeledPrompt> test = scope.equals("all") ? corpus.prompts(PromptSplit.TEST)
                    : corpus.prompts(PromptSplit.TEST, sourceOf(scope));
            Figures figures = figures(test, shipped.apply(test));
            Figures length = Evaluation.evaluate(baseline, test);
            text.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %s | %s | %s | %s | %s |%n", scope, figures.prompts(),
                    figures.answers(), figures.pairs(), percent(figures.rankingAccuracy()), percent(length.rankingAccuracy()),
                    points(figures.rankingAccuracy(), length.rankingAccuracy()), decimal(figures.kendallTauB()),
                    decimal(length.kendallTauB())));
            if (figures.rankingAccuracy() != null && length.rankingAccuracy() != null) {
                if (scope.equals("all")) {
                    target("test split, all sources ≥ " + percent(TARGET_OVERALL), figures.rankingAccuracy() >= TARGET_OVERALL,
                            percent(figures.rankingAccuracy()));
                }
                target("test split, " + scope + ": ≥ 5 points above the prompt's length",
                        figures.rankingAccuracy() - length.rankingAccuracy() >= TARGET_MARGIN,
                        percent(figures.rankingAccuracy()) + " vs " + percent(length.rankingAccuracy()));
            }
        }
        text.append('\n');
        families(shipped);
    }

    /** Per family and per answer style: the pooled test split, each answering model's pairs within itself. */
    private void families(Function<List<LabeledPrompt>, List<Estimate>> shipped) {
        List<LabeledPrompt> test = corpus.prompts(PromptSplit.TEST);
        List<Estimate> estimates = shipped.apply(test);
        Set<String> longStyle = longStyleModels();
        Map<String, Function<PromptAnswer, Boolean>> groups = new LinkedHashMap<>();
        Set<String> families = new LinkedHashSet<>();
        test.forEach(p -> p.answers().forEach(a -> families.add(ModelFamily.of(a.answeringModel()))));
        for (String family : families.stream().sorted().toList()) {
            groups.put("family " + family, a -> ModelFamily.of(a.answeringModel()).equals(family));
        }
        groups.put("long-answer style (median ≥ " + AnswerStyle.LONG_STYLE_MEDIAN + " tokens)", a -> longStyle.contains(a.modelKey()));
        groups.put("chat style (median < " + AnswerStyle.LONG_STYLE_MEDIAN + " tokens)", a -> !longStyle.contains(a.modelKey()));
        text.append("### Per answering-model family and answer style (test split)\n\n")
                .append("Long-answer style: the answering models whose median answer in the training split is at least ")
                .append(AnswerStyle.LONG_STYLE_MEDIAN).append(" tokens (").append(String.join(", ", longStyle.stream().sorted().toList()))
                .append("); the setup above says how training weighs them.\n\n")
                .append("A group's short×long pairs can rest on a few long answers; *long* counts them.\n\n")
                .append("| answering models | answers | long | short×long pairs | ").append(name)
                .append(" | prompt length | τ_b |\n|---|---|---|---|---|---|---|\n");
        BaselineEstimator baseline = new BaselineEstimator();
        List<Estimate> lengths = baseline.estimateAll(test.stream().map(LabeledPrompt::request).toList());
        for (Map.Entry<String, Function<PromptAnswer, Boolean>> group : groups.entrySet()) {
            Figures figures = Evaluation.evaluate(test, (i, a) -> group.getValue().apply(a) ? estimates.get(i) : null);
            Figures length = Evaluation.evaluate(test, (i, a) -> group.getValue().apply(a) ? lengths.get(i) : null);
            text.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %s | %s | %s |%n", group.getKey(), figures.answers(),
                    figures.longAnswers(), figures.pairs(), percent(figures.rankingAccuracy()), percent(length.rankingAccuracy()),
                    decimal(figures.kendallTauB())));
        }
        text.append('\n');
    }

    private Set<String> longStyleModels() {
        Map<String, List<Integer>> lengths = new LinkedHashMap<>();
        for (LabeledPrompt prompt : corpus.prompts(PromptSplit.TRAIN)) {
            for (PromptAnswer answer : prompt.answers()) {
                lengths.computeIfAbsent(answer.modelKey(), k -> new ArrayList<>()).add(answer.answerTokens());
            }
        }
        Set<String> longStyle = new LinkedHashSet<>();
        lengths.forEach((model, tokens) -> {
            if (AnswerStyle.isLong(tokens.stream().mapToInt(Integer::intValue).toArray())) {
                longStyle.add(model);
            }
        });
        return longStyle;
    }


    /**
     * The cross-source matrix: for each source, a model trained (and calibrated) on the other
     * sources' training and validation splits, scored on every source's test split; the held-out
     * source's cell is the one that counts, and its whole data (every split: none was seen) is
     * scored too, and its first turns alone (the requests that open a conversation, as real users'
     * first requests do).
     */
    void crossSource(Fitter fitter, Duration expected) {
        List<PromptSource> sources = new ArrayList<>();
        for (PromptSource source : PromptSource.values()) {
            if (!corpus.prompts(PromptSplit.TEST, source).isEmpty()) {
                sources.add(source);
            }
        }
        text.append("## Across sources\n\n")
                .append("Each row: trained without one source (on the others' training split, calibrated on their validation ")
                .append("split), scored on each source's test split. The held-out source's cell is in bold; *all of it* scores ")
                .append("every prompt of the held-out source, none of which was seen; *first turns* only the prompts that ")
                .append("open a conversation (every prompt but ShareGPT's later turns). Ranking accuracy; \"n/a\" where there is ")
                .append("no short×long pair.\n\n| trained without ↓ / test → |");
        sources.forEach(source -> text.append(' ').append(source.id()).append(" |"));
        text.append(" held-out source, all of it | prompt length, all of it | first turns | prompt length, first turns |\n|---|")
                .append("---|".repeat(sources.size() + 4)).append('\n');
        BaselineEstimator baseline = new BaselineEstimator();
        Progress progress = Progress.start("cross-source: training without each source", sources.size(), expected);
        for (PromptSource heldOut : sources) {
            List<LabeledPrompt> train = without(corpus.prompts(PromptSplit.TRAIN), heldOut);
            List<LabeledPrompt> validation = without(corpus.prompts(PromptSplit.VALIDATION), heldOut);
            Function<List<LabeledPrompt>, List<Estimate>> model = fitter.fit(train, validation);
            text.append("| ").append(heldOut.id()).append(" |");
            for (PromptSource test : sources) {
                List<LabeledPrompt> prompts = corpus.prompts(PromptSplit.TEST, test);
                Double accuracy = figures(prompts, model.apply(prompts)).rankingAccuracy();
                String cell = percent(accuracy);
                text.append(' ').append(test == heldOut ? "**" + cell + "**" : cell).append(" |");
                if (test == heldOut && accuracy != null) {
                    target("cross-source, trained without " + heldOut.id() + " ≥ " + percent(TARGET_CROSS),
                            accuracy >= TARGET_CROSS, cell);
                }
            }
            List<LabeledPrompt> whole = corpus.prompts().stream().filter(p -> p.source() == heldOut).toList();
            Figures all = figures(whole, model.apply(whole));
            Figures length = Evaluation.evaluate(baseline, whole);
            text.append(' ').append(percent(all.rankingAccuracy())).append(String.format(Locale.ROOT, " (%,d pairs)", all.pairs()))
                    .append(" | ").append(percent(length.rankingAccuracy())).append(" |");
            List<LabeledPrompt> first = whole.stream().filter(p -> p.request().userTurns() == 1).toList();
            Figures firstTurns = figures(first, model.apply(first));
            Figures firstLength = Evaluation.evaluate(baseline, first);
            text.append(' ').append(percent(firstTurns.rankingAccuracy()))
                    .append(String.format(Locale.ROOT, " (%,d pairs)", firstTurns.pairs()))
                    .append(" | ").append(percent(firstLength.rankingAccuracy())).append(" |\n");
            if (firstTurns.rankingAccuracy() != null && firstLength.rankingAccuracy() != null) {
                target("unseen source " + heldOut.id() + ", first turns: ≥ " + percent(TARGET_UNSEEN) + " and above the prompt's length",
                        firstTurns.rankingAccuracy() >= TARGET_UNSEEN && firstTurns.rankingAccuracy() > firstLength.rankingAccuracy(),
                        percent(firstTurns.rankingAccuracy()) + " vs " + percent(firstLength.rankingAccuracy()));
            }
            progress.step();
        }
        progress.done();
        text.append('\n');
    }

    /**
     * How many distinct keys the estimates give: SJF sorts by expected tokens, and two prompts with
     * the same key go by arrival. Rounded: the values {@code x-triage-estimate-tokens} shows.
     */
    void ties(Function<List<LabeledPrompt>, List<Estimate>> shipped) {
        List<LabeledPrompt> test = corpus.prompts(PromptSplit.TEST);
        double[] tokens = shipped.apply(test).stream().mapToDouble(Estimate::expectedTokens).toArray();
        long distinct = Arrays.stream(tokens).distinct().count();
        long rounded = Arrays.stream(tokens).map(Math::round).distinct().count();
        long distinctTexts = test.stream().map(LabeledPrompt::prompt).distinct().count();
        text.append("## Ties\n\n").append(String.format(Locale.ROOT, "Over the %,d test prompts (%,d distinct texts) the estimates "
                + "take %,d distinct values (the key SJF sorts by: a double, never rounded); rounded to whole tokens, as the "
                + "`x-triage-estimate-tokens` header shows them, %,d.%n%n", test.size(), distinctTexts, distinct, rounded));
    }

    /** Latency per request, measured by the command on this machine. */
    void latency(String measured) {
        text.append("## Latency\n\n").append(measured).append("\n\n");
    }

    private static List<LabeledPrompt> without(List<LabeledPrompt> prompts, PromptSource source) {
        return prompts.stream().filter(p -> p.source() != source).toList();
    }

    private static Figures figures(List<LabeledPrompt> prompts, List<Estimate> estimates) {
        return Evaluation.evaluate(prompts, (index, answer) -> estimates.get(index));
    }

    private void target(String what, boolean met, String figure) {
        targets.add(what + ": " + figure + (met ? " (met)" : " (NOT met)"));
    }

    String markdown() {
        StringBuilder out = new StringBuilder(text);
        out.append("## Against the targets\n\n");
        targets.forEach(target -> out.append("- ").append(target).append('\n'));
        return out.toString();
    }

    static PromptSource sourceOf(String id) {
        for (PromptSource source : PromptSource.values()) {
            if (source.id().equals(id)) {
                return source;
            }
        }
        throw new IllegalArgumentException("no source " + id);
    }

    private static String points(Double value, Double reference) {
        return value == null || reference == null ? "n/a" : String.format(Locale.ROOT, "%+.1f", 100 * (value - reference));
    }
}
