package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;
import static dev.triage.model.training.ReportCells.tauAndAccuracy;

import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.training.RankerEvaluateCommand.Variant;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The markdown report of {@link RankerEvaluateCommand}: the shipped ranker on the test split, the
 * training objectives side by side in the shape of PARS's Table II (τ_b) and Table IV (the δ filter),
 * the same with ranking accuracy, and the cross-dataset matrix. Everything in it is computed.
 */
final class RankerEvaluationReport {

    /** PARS's Table II: τ_b of its pairwise predictor, lowest and highest over its datasets and models. */
    static final double PARS_LOWEST = 0.50;
    static final double PARS_HIGHEST = 0.96;

    private static final String CLASSIFIER = "classifier";
    private static final String BASELINE = "baseline";

    private final StringBuilder text = new StringBuilder();
    private final List<String> findings = new ArrayList<>();
    private final int seeds;

    RankerEvaluationReport(PromptCorpus corpus, RankerMetadata metadata, Path modelFile, int seeds, Figures validation) {
        this.seeds = seeds;
        RankerMetadata.Training training = metadata.training();
        text.append("# Ranker: evaluation\n\n")
                .append("Written by `scripts/evaluate --estimator ranker` for the model `").append(modelFile).append("` (")
                .append(metadata.objective()).append(", margin ").append(metadata.margin()).append(", δ = ")
                .append(metadata.minLengthDifference()).append("; head ").append(metadata.dimensions()).append(" → ")
                .append(training.hiddenUnits()).append(" ReLU → 1, Adam at ").append(training.learningRate()).append(" for ")
                .append(String.format(Locale.ROOT, "%,d", training.steps())).append(" steps of ").append(training.batchSize())
                .append(" prompts, seed ").append(training.seed()).append("; trained on ")
                .append(String.format(Locale.ROOT, "%,d prompts, %,d answers", training.prompts(), training.answers()))
                .append("). Do not edit by hand: run the command again.\n\n")
                .append("On the validation split, where training choices are made, its ranking accuracy is ")
                .append(percent(validation.rankingAccuracy())).append(" and its Kendall τ_b ")
                .append(decimal(validation.kendallTauB())).append(".\n\n");
        text.append("## Setup\n\n")
                .append("- **Encoder**: ").append(metadata.encoder()).append(tuning(metadata.tunedEncoder())).append(metadata.pooling())
                .append("; prompts of more than ").append(metadata.maxTokens()).append(" tokens encoded from their ")
                .append(metadata.truncation()).append(". Chosen among the encoders of `EncoderSpec` by measurement: ")
                .append("[ranker-encoders.md](ranker-encoders.md) (`--compare-encoders true`).\n")
                .append("- **Request features** beside the embedding, standardized: ")
                .append(String.join(", ", metadata.featureNames())).append(" (`RequestFeatures`).\n")
                .append(training.stylesBalanced()
                        ? "- **Answering styles balanced**: the long-answer style's models drawn as often in all as the chat style's.\n"
                        : "- **Answering models** drawn in proportion to their answers, whatever their style.\n")
                .append(stacking(training.stacking()))
                .append("- **Data, split, metrics**: as in [classifier-evaluation.md](classifier-evaluation.md) — the same ")
                .append("target models, the same split by prompt (")
                .append(String.format(Locale.ROOT, "%,d / %,d / %,d", corpus.prompts(PromptSplit.TRAIN).size(),
                        corpus.prompts(PromptSplit.VALIDATION).size(), corpus.prompts(PromptSplit.TEST).size()))
                .append(" prompts), ranking accuracy by Clairvoyant's Algorithm 1 within each answering model, Kendall's ")
                .append("τ_b of expected tokens and true length within each answering model, averaged weighted by answers. ")
                .append("The ranker's expected tokens are its score through a strictly increasing calibration, so both ")
                .append("figures measure the score's order.\n")
                .append("- **Objectives** (PARS §IV-A), each training the same head on the same embeddings with the same ")
                .append("steps, batch and seed: *pairwise* — margin ranking loss, margin ").append(metadata.margin())
                .append(", on pairs of prompts answered by the same model, labeled by which answer is longer; *δ filter* — ")
                .append("only pairs whose lengths differ by at least δ relative to the longer (PARS's ")
                .append("`min_length_difference`); *pointwise* — L1 between score and ln(1 + answer tokens); *listwise* — ")
                .append("ListMLE on lists of ").append(training.listSize()).append(" prompts answered by one model. Heads ")
                .append("are trained on the training split and calibrated on the validation split; the test split is ")
                .append("only scored.\n")
                .append(seeds == 0 ? "- **Objectives not compared in this run** (`--compare-objectives false`).\n"
                        : "- **Seeds**: each objective on all sources is trained with " + seeds + " seeds (" + training.seed()
                                + " to " + (training.seed() + seeds - 1) + "); a cell is their mean, with the lowest and highest in "
                                + "brackets. The cross-dataset heads use seed " + training.seed() + ".\n")
                .append("- **Also shown**: `classifier` (the shipped XGBoost model on 19 lexical features) and `baseline` ")
                .append("(the prompt's length).\n\n");
    }

    private static String stacking(RankerMetadata.Stacking stacking) {
        if (stacking == null) {
            return "- **No trees stacked**: the head's score is the model's.\n";
        }
        return String.format(Locale.ROOT, "- **Stacked trees** (XGBoost, %d of depth %d, learning rate %s, exported as an ONNX "
                + "`TreeEnsembleRegressor` in the head's graph): %s; %d folds.\n", stacking.trees(), stacking.maxDepth(),
                stacking.learningRate(), stacking.method(), stacking.folds());
    }

    void shippedModel(Map<String, Figures> byScope) {
        text.append("## The shipped model on the test split\n\n")
                .append("| test split | prompts | answers | short×long pairs | ranking accuracy | 3-class accuracy | Kendall τ_b |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (Map.Entry<String, Figures> scope : byScope.entrySet()) {
            Figures f = scope.getValue();
            text.append("| ").append(scopeName(scope.getKey())).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d | %,d | %,d | ", f.prompts(), f.answers(), f.pairs()))
                    .append(percent(f.rankingAccuracy())).append(" | ").append(percent(f.classAccuracy())).append(" | ")
                    .append(decimal(f.kendallTauB())).append(" |\n");
        }
        text.append('\n');
    }

    void objectives(List<String> scopes, Map<Variant, List<Map<String, Figures>>> bySeed, Map<String, Figures> classifier,
            Map<String, Figures> baseline) {
        table("Kendall's τ_b by training objective (PARS Table II)", scopes, bySeed, classifier, baseline,
                Figures::kendallTauB, ReportCells::decimal);
        table("Ranking accuracy by training objective", scopes, bySeed, classifier, baseline,
                Figures::rankingAccuracy, ReportCells::percent);

        SeedSpread pairwise = spread(bySeed.get(Variant.PAIRWISE), RankerEvaluateCommand.ALL, Figures::kendallTauB);
        Double classifierTau = classifier.get(RankerEvaluateCommand.ALL).kendallTauB();
        if (pairwise != null) {
            findings.add(String.format(Locale.ROOT, "τ_b of the pairwise ranker with the δ filter, test split, all sources: %s "
                    + "(PARS Table II: %.2f to %.2f, with all of BERT fine-tuned for each model and dataset)",
                    pairwise.format(ReportCells::decimal), PARS_LOWEST, PARS_HIGHEST));
            for (Variant other : List.of(Variant.POINTWISE, Variant.LISTWISE)) {
                SeedSpread spread = spread(bySeed.get(other), RankerEvaluateCommand.ALL, Figures::kendallTauB);
                if (spread != null) {
                    findings.add(String.format(Locale.ROOT, "pairwise (δ filter) vs %s: τ_b %s (%s: %s)", other.label,
                            signed(pairwise.mean() - spread.mean()), other.label, spread.format(ReportCells::decimal)));
                }
            }
            if (classifierTau != null) {
                findings.add(String.format(Locale.ROOT, "pairwise (δ filter) vs the classifier: τ_b %s, ranking accuracy %s vs %s",
                        signed(pairwise.mean() - classifierTau),
                        spread(bySeed.get(Variant.PAIRWISE), RankerEvaluateCommand.ALL, Figures::rankingAccuracy)
                                .format(ReportCells::percent),
                        percent(classifier.get(RankerEvaluateCommand.ALL).rankingAccuracy())));
            }
        }
    }

    private void table(String title, List<String> scopes, Map<Variant, List<Map<String, Figures>>> bySeed,
            Map<String, Figures> classifier, Map<String, Figures> baseline, Function<Figures, Double> figure,
            Function<Double, String> format) {
        text.append("## ").append(title).append("\n\n| test split |");
        for (Variant variant : Variant.values()) {
            text.append(' ').append(variant.label).append(" |");
        }
        text.append(' ').append(CLASSIFIER).append(" | ").append(BASELINE).append(" |\n|---|")
                .append("---|".repeat(Variant.values().length + 2)).append('\n');
        for (String scope : scopes) {
            text.append("| ").append(scopeName(scope)).append(" |");
            for (Variant variant : Variant.values()) {
                SeedSpread spread = spread(bySeed.get(variant), scope, figure);
                text.append(' ').append(spread == null ? "n/a" : spread.format(format)).append(" |");
            }
            text.append(' ').append(format.apply(figure.apply(classifier.get(scope)))).append(" | ")
                    .append(format.apply(figure.apply(baseline.get(scope)))).append(" |\n");
        }
        text.append('\n');
    }

    void deltaFilter(List<String> scopes, List<Map<String, Figures>> without, List<Map<String, Figures>> with) {
        text.append("## With and without the δ filter (PARS Table IV)\n\n")
                .append("Kendall's τ_b of the pairwise head trained on every pair of different lengths, and on the pairs ")
                .append("that differ by at least δ.\n\n")
                .append("| test split | without filtering | with filtering | difference (means) |\n|---|---|---|---|\n");
        for (String scope : scopes) {
            SeedSpread off = spread(without, scope, Figures::kendallTauB);
            SeedSpread on = spread(with, scope, Figures::kendallTauB);
            text.append("| ").append(scopeName(scope)).append(" | ")
                    .append(off == null ? "n/a" : off.format(ReportCells::decimal)).append(" | ")
                    .append(on == null ? "n/a" : on.format(ReportCells::decimal)).append(" | ")
                    .append(off == null || on == null ? "n/a" : signed(on.mean() - off.mean()))
                    .append(" |\n");
            if (off != null && on != null) {
                boolean overlap = on.lowest() <= off.highest() && off.lowest() <= on.highest();
                findings.add(String.format(Locale.ROOT, "δ filter, %s: τ_b %s (%s)", scopeName(scope), signed(on.mean() - off.mean()),
                        overlap ? "within the seeds' spread" : on.mean() > off.mean() ? "helps beyond the seeds' spread"
                                : "hurts beyond the seeds' spread"));
            }
        }
        text.append('\n');
    }

    /**
     * How the encoder was trained: frozen, or tuned with the head, and which of the heads trained again read a tuned
     * encoder that saw the source they leave out.
     */
    private static String tuning(RankerMetadata.TunedEncoder tuned) {
        if (tuned == null) {
            return ", frozen; ";
        }
        return String.format(Locale.ROOT, ", its %d layers tuned for answer length with a throwaway head (%,d steps of %d pairs, "
                + "Adam at %s; that head's validation accuracy %s before, %s after; %s; `%s`, SHA-256 %s…). Across sources, "
                + "the encoder is tuned again without the held-out source; every other head this report trains reads the "
                + "shipped tuned encoder, which saw every source's training prompts (so the length prior's leave-one-source-out "
                + "choice below is made with an encoder that saw the held-out source); ",
                tuned.layers(), tuned.steps(), tuned.pairsPerStep(), tuned.learningRate(), percent(tuned.validationAccuracy().get(0)),
                percent(tuned.validationAccuracy().get(1)), tuned.quantization(), tuned.file(), tuned.sha256().substring(0, 12));
    }

    void crossDataset(List<PromptSource> sources, Map<Variant, Map<PromptSource, Map<String, Figures>>> cross,
            Map<String, Map<PromptSource, Figures>> classifier) {
        text.append("## Cross-dataset\n\n")
                .append("Each head trained on one source's training split (calibrated on its validation split), tested on ")
                .append("each source's test split; the classifier trained the same way with the shipped classifier's ")
                .append("settings. Cells: Kendall's τ_b · ranking accuracy (\"n/a\" where the test split has no short×long ")
                .append("pair).\n\n| train → test |");
        for (Variant variant : Variant.values()) {
            text.append(' ').append(variant.label).append(" |");
        }
        text.append(' ').append(CLASSIFIER).append(" |\n|---|").append("---|".repeat(Variant.values().length + 1)).append('\n');
        for (PromptSource train : sources) {
            for (PromptSource test : sources) {
                text.append("| ").append(train.id()).append(" → ").append(test.id()).append(" |");
                for (Variant variant : Variant.values()) {
                    text.append(' ').append(tauAndAccuracy(cross.get(variant).get(train).get(test.id()))).append(" |");
                }
                text.append(' ').append(tauAndAccuracy(classifier.get(train.id()).get(test))).append(" |\n");
            }
        }
        text.append('\n');
    }

    String markdown() {
        StringBuilder out = new StringBuilder(text);
        if (!findings.isEmpty()) {
            // Only the comparison of objectives has findings; a report without it has no such section.
            out.append("## Findings\n\n");
            for (String finding : findings) {
                out.append("- ").append(finding).append('\n');
            }
        }
        return out.toString();
    }

    private static String scopeName(String scope) {
        return scope.equals(RankerEvaluateCommand.ALL) ? "all sources" : scope;
    }

    /** A figure of a scope over the seeds; null when no seed has it. */
    private static SeedSpread spread(List<Map<String, Figures>> bySeed, String scope, Function<Figures, Double> figure) {
        return SeedSpread.of(bySeed.stream().map(m -> figure.apply(m.get(scope))).toList());
    }

    /** A difference with its sign, never "-0.000". */
    private static String signed(double difference) {
        return String.format(Locale.ROOT, "%+.3f", Math.round(difference * 1000) / 1000.0 + 0.0);
    }

}
