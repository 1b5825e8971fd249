package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;

import dev.triage.model.classifier.ClassifierMetadata;
import dev.triage.model.data.AnswerTokens;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.data.TargetModels;
import dev.triage.model.evaluation.Figures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The markdown report of {@link EvaluateCommand}: the setup, the test-split tables, the
 * cross-dataset matrix and how the classifier compares with the targets. Everything in it is
 * computed; nothing is written by hand, so the report cannot drift from the figures.
 */
final class EvaluationReport {

    /** Clairvoyant's in-distribution and cross-dataset ranking accuracies (Tables 5 and 6). */
    static final double PAPER_IN_DISTRIBUTION = 0.76;
    static final double PAPER_CROSS_DATASET = 0.60;

    private static final String CLASSIFIER = "classifier";
    private static final String PROMPT_LENGTH = "baseline";

    private final StringBuilder text = new StringBuilder();
    private final List<String> targets = new ArrayList<>();

    EvaluationReport(PromptCorpus corpus, ClassifierMetadata metadata, Path modelFile) {
        ClassifierMetadata.Training training = metadata.training();
        text.append("# Length classifier: evaluation\n\n")
                .append("Written by `scripts/evaluate` for the model `").append(modelFile).append("` (")
                .append(training.trees()).append(" rounds, depth ").append(training.maxDepth()).append(", learning rate ")
                .append(training.learningRate()).append(", seed ").append(training.seed()).append("; trained on ")
                .append(String.format(Locale.ROOT, "%,d", training.prompts())).append(" prompts, ")
                .append(String.format(Locale.ROOT, "%,d", training.answers())).append(" answers). ")
                .append("Do not edit by hand: run the command again.\n\n");
        metadata.evaluation().stream()
                .filter(f -> f.split().equals("validation") && f.source().equals("all"))
                .findFirst()
                .ifPresent(validation -> text.append("On the validation split, where training choices are made, its ranking accuracy is ")
                        .append(percent(validation.figures().rankingAccuracy())).append(" (")
                        .append(percent(validation.figures().rankingAccuracyByExpectedTokens()))
                        .append(" by expected tokens) over ").append(String.format(Locale.ROOT, "%,d", validation.figures().pairs()))
                        .append(" pairs.\n\n"));
        text.append("## Setup\n\n")
                .append("- **Data**: `shared/data/prompt_response` (AlpacaEval, arena-hard v0.1, arena-bench v1, ShareGPT, ")
                .append("curated instruction sets). Answer lengths are counted with ").append(AnswerTokens.TOKENIZER)
                .append("; classes: short < 200, medium 200-799, long >= 800 tokens.\n")
                .append("- **Target models**: every answering model except ").append(TargetModels.EXCLUDED.size())
                .append(" that are not chat assistants as Triage serves them (instruction-set generators, a base model, ")
                .append("prompted concise/verbose variants, a mixture-of-agents pipeline); see `TargetModels`. ")
                .append("This leaves the curated instruction sets out.\n")
                .append("- **Split**: by prompt (SHA-256 of the normalized text): 70% train, 10% validation, 20% test; ")
                .append("every answer to a prompt is on the prompt's side. Prompts per split: ")
                .append(String.format(Locale.ROOT, "%,d / %,d / %,d", corpus.prompts(PromptSplit.TRAIN).size(),
                        corpus.prompts(PromptSplit.VALIDATION).size(), corpus.prompts(PromptSplit.TEST).size()))
                .append(". Baselines are fit on train; test is only scored.\n")
                .append("- **Ranking accuracy**: Clairvoyant's Algorithm 1 — the share of (short, long) answer pairs whose ")
                .append("long answer scored strictly higher (ties count as wrong) — on each answering model's test answers, ")
                .append("pooled over models (a Triage instance schedules for one model). Score: P(long) where the method ")
                .append("has one, else its expected tokens. *By expected tokens*: the same with expected tokens, the key ")
                .append("Triage's SJF sorts by.\n")
                .append("- **3-class accuracy**: share of answers whose class the method names. **Kendall's τ_b**: expected ")
                .append("tokens vs true length, per answering model, averaged weighted by answers.\n")
                .append("- **Methods**: `classifier` (this model); `baseline` (the prompt's length as a continuous score: ")
                .append("Triage's baseline estimator, 128 + 2 × prompt tokens); the prompt-length rule (long at or above a ")
                .append("threshold fit on train); the keyword heuristic (long when a code keyword occurs); `random` (FCFS). ")
                .append("*Prompt-only ceiling* is a reference, not a method: each answer scored by the other target ")
                .append("models' mean answer length to the same prompt.\n\n");
    }

    void testSplit(String scope, Map<String, Figures> methods, Figures ceiling) {
        Figures any = methods.values().iterator().next();
        text.append("## Test split: ").append(scope).append("\n\n")
                .append(String.format(Locale.ROOT, "%,d prompts, %,d answers (%,d short, %,d long), %,d short×long pairs.%n%n",
                        any.prompts(), any.answers(), any.shortAnswers(), any.longAnswers(), any.pairs()))
                .append("| method | ranking accuracy | by expected tokens | 3-class accuracy | Kendall τ_b |\n")
                .append("|---|---|---|---|---|\n");
        for (Map.Entry<String, Figures> method : methods.entrySet()) {
            row(method.getKey(), method.getValue());
        }
        row("*prompt-only ceiling (reference)*", ceiling);
        text.append('\n');
        Double classifier = methods.get(CLASSIFIER).rankingAccuracy();
        Double promptLength = methods.get(PROMPT_LENGTH).rankingAccuracy();
        if (classifier != null && promptLength != null) {
            targets.add(String.format(Locale.ROOT, "test split, %s: classifier %s vs prompt length %s (%s); vs Clairvoyant's 76%%: %s",
                    scope, percent(classifier), percent(promptLength), classifier > promptLength ? "above" : "NOT above",
                    difference(classifier, PAPER_IN_DISTRIBUTION)));
        }
    }

    private void row(String name, Figures figures) {
        text.append("| ").append(name).append(" | ").append(percent(figures.rankingAccuracy())).append(" | ")
                .append(percent(figures.rankingAccuracyByExpectedTokens())).append(" | ")
                .append(percent(figures.classAccuracy())).append(" | ").append(decimal(figures.kendallTauB())).append(" |\n");
    }

    void crossDataset(List<PromptSource> sources, Map<String, Map<PromptSource, Figures>> rows) {
        text.append("## Cross-dataset ranking accuracy\n\n")
                .append("Train on one source's training split (rows), test on each source's test split (columns); the ")
                .append("shape of Clairvoyant's Table 6, but the diagonal is held-out test prompts too. Ranking accuracy ")
                .append("as above; \"n/a\" where the test split has no (short, long) pair.\n\n")
                .append("| train ↓ / test → |");
        for (PromptSource source : sources) {
            text.append(' ').append(source.id()).append(" |");
        }
        text.append("\n|---|");
        text.append("---|".repeat(sources.size())).append('\n');
        Map<PromptSource, Figures> promptLength = rows.get("prompt length (no training)");
        for (Map.Entry<String, Map<PromptSource, Figures>> row : rows.entrySet()) {
            text.append("| ").append(row.getKey()).append(" |");
            for (PromptSource test : sources) {
                Double accuracy = row.getValue().get(test).rankingAccuracy();
                text.append(' ').append(percent(accuracy)).append(" |");
                boolean crossCell = sources.stream().anyMatch(s -> s.id().equals(row.getKey())) && !row.getKey().equals(test.id());
                Double lengthAccuracy = promptLength.get(test).rankingAccuracy();
                if (crossCell && accuracy != null && lengthAccuracy != null) {
                    targets.add(String.format(Locale.ROOT, "cross-dataset, %s → %s: classifier %s vs prompt length %s (%s); vs Clairvoyant's 60%%: %s",
                            row.getKey(), test.id(), percent(accuracy), percent(lengthAccuracy),
                            accuracy > lengthAccuracy ? "above" : "NOT above", difference(accuracy, PAPER_CROSS_DATASET)));
                }
            }
            text.append('\n');
        }
        text.append('\n');
    }

    String markdown() {
        StringBuilder out = new StringBuilder(text);
        out.append("## Against the targets\n\n");
        for (String target : targets) {
            out.append("- ").append(target).append('\n');
        }
        return out.toString();
    }

    private static String difference(double accuracy, double target) {
        double points = 100 * (accuracy - target);
        return points >= 0 ? String.format(Locale.ROOT, "reached (+%.1f pp)", points)
                : String.format(Locale.ROOT, "short by %.1f pp", -points);
    }

}
