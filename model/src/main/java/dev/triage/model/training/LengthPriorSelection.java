package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;

import dev.triage.model.Estimate;
import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the ranker's length prior ({@link RankerSettings#lengthPrior}, {@link
 * RankerSettings#lengthPriorThreshold}) by how the score generalizes, never by the test split: leave
 * one source out on the training and validation splits. For each source, a head is trained on the
 * other sources' training split and scores the held-out source's training and validation prompts,
 * which it never saw; ShareGPT is scored on its conversations' first turns, the closest stand-in here
 * for real users' first requests. The prior chosen is the one whose worst held-out ranking accuracy
 * is best (ties: the best mean τ_b). ShareGPT's answers are almost all under 800 tokens, so its first
 * turns have no short×long pairs and count through τ_b alone.
 *
 * <p>Because the prior is added after training, one head per held-out source scores every prior.
 */
final class LengthPriorSelection {

    /** The weights compared: z is in standard deviations of the training prompts' log length. */
    static final double[] WEIGHTS = {0, 0.25, 0.5, 1, 2};

    /** The thresholds compared, in the same unit: the prior counts only prompts longer than mean + c · sd. */
    static final double[] THRESHOLDS = {-3, 0, 0.5, 1, 1.5};

    /** One prior: {@code w · max(0, z − c)}. */
    record Prior(double weight, double threshold) {

        static final Prior LENGTH_ALONE = new Prior(Double.POSITIVE_INFINITY, 0);

        double score(double head, double length) {
            return Double.isInfinite(weight) ? length : head + weight * Math.max(0, length - threshold);
        }

        @Override
        public String toString() {
            return Double.isInfinite(weight) ? "prompt length alone"
                    : weight == 0 ? "none" : String.format(Locale.ROOT, "%.2f · max(0, z − %.1f)", weight, threshold);
        }
    }

    /** One held-out set of prompts with the head's score and the standardized log length of each. */
    private record Cell(String name, List<LabeledPrompt> prompts, double[] head, double[] length) {

        Figures figures(Prior prior) {
            double[] scores = new double[head.length];
            for (int i = 0; i < scores.length; i++) {
                scores[i] = prior.score(head[i], length[i]);
            }
            // Expected tokens must be >= 0; only the order counts, so shift every score by the lowest.
            double lowest = Arrays.stream(scores).min().orElse(0);
            return Evaluation.evaluate(prompts, (index, answer) -> Estimate.ofTokens(scores[index] - lowest));
        }
    }

    private final List<Cell> cells;

    private LengthPriorSelection(List<Cell> cells) {
        this.cells = cells;
    }

    static LengthPriorSelection run(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings settings) {
        List<PromptSource> sources = EvaluateCommand.sourcesWithTestPrompts(corpus);
        Progress progress = Progress.start("length prior: a head without each source", sources.size(), Duration.ofMinutes(6));
        List<Cell> cells = sources.parallelStream().map(heldOut -> {
            Cell cell = cell(heldOutName(heldOut), RankerTrainer.trainingPrompts(corpus, trainingWithout(corpus, heldOut), settings),
                    unseen(corpus, heldOut), embeddings, settings);
            progress.step();
            return cell;
        }).toList();
        progress.done();
        return new LengthPriorSelection(cells);
    }

    /** The training split of every source but {@code heldOut}. */
    static List<LabeledPrompt> trainingWithout(PromptCorpus corpus, PromptSource heldOut) {
        return corpus.prompts(PromptSplit.TRAIN).stream().filter(p -> p.source() != heldOut).toList();
    }

    /** The held-out source's training and validation prompts (ShareGPT's first turns); never its test split. */
    static List<LabeledPrompt> unseen(PromptCorpus corpus, PromptSource heldOut) {
        return corpus.prompts().stream()
                .filter(p -> p.source() == heldOut && p.split() != PromptSplit.TEST)
                .filter(p -> heldOut != PromptSource.SHAREGPT || p.request().userTurns() == 1)
                .toList();
    }

    static String heldOutName(PromptSource heldOut) {
        return heldOut == PromptSource.SHAREGPT ? heldOut.id() + ", first turns" : heldOut.id();
    }

    private static Cell cell(String name, List<LabeledPrompt> train, List<LabeledPrompt> unseen, PromptEmbeddings embeddings,
            RankerSettings settings) {
        float[][] trainFeatures = LexicalTrainer.featureRows(train);
        FeatureScaling scaling = RankerTrainer.featureScaling(train, trainFeatures);
        RankingHead head = RankerTrainer.trainHead(train, scaling.inputs(embeddings.of(train), trainFeatures),
                settings.withLengthPrior(0, 0));
        float[][] inputs = scaling.inputs(embeddings.of(unseen), LexicalTrainer.featureRows(unseen));
        double[] scores = new double[inputs.length];
        double[] lengths = new double[inputs.length];
        int lengthInput = RankerTrainer.lengthInput(settings.encoder());
        for (int i = 0; i < inputs.length; i++) {
            scores[i] = head.score(inputs[i]);
            lengths[i] = inputs[i][lengthInput];
        }
        return new Cell(name, unseen, scores, lengths);
    }

    private static List<Prior> candidates() {
        List<Prior> priors = new ArrayList<>();
        priors.add(new Prior(0, 0));
        for (double threshold : THRESHOLDS) {
            for (double weight : WEIGHTS) {
                if (weight > 0) {
                    priors.add(new Prior(weight, threshold));
                }
            }
        }
        return priors;
    }

    /** The prior whose worst held-out ranking accuracy is best; ties go to the best mean τ_b. */
    Prior best() {
        Prior best = null;
        for (Prior prior : candidates()) {
            if (best == null || worstAccuracy(prior) > worstAccuracy(best)
                    || (worstAccuracy(prior) == worstAccuracy(best) && meanTau(prior) > meanTau(best))) {
                best = prior;
            }
        }
        return best;
    }

    private double worstAccuracy(Prior prior) {
        return cells.stream().map(cell -> cell.figures(prior).rankingAccuracy()).filter(a -> a != null)
                .mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    private double meanTau(Prior prior) {
        return cells.stream().map(cell -> cell.figures(prior).kendallTauB()).filter(t -> t != null)
                .mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    /** The table of every prior on every held-out source, the prompt's length alone last. */
    String markdown(Prior shipped) {
        StringBuilder text = new StringBuilder("## Choosing the length prior: leave one source out\n\n")
                .append("`score = head + w · max(0, z − c)`, z the prompt's log length standardized over the training prompts. ")
                .append("Each column: a head trained on the training split of the other sources, scored on the held-out ")
                .append("source's training and validation prompts (never the test split); ShareGPT on its conversations' ")
                .append("first turns. Ranking accuracy, then Kendall's τ_b. The prior chosen is the one whose worst ranking ")
                .append("accuracy is best (ties: the best mean τ_b): **").append(best()).append("**; the evaluated model has ")
                .append(shipped).append(".\n\n| prior |");
        cells.forEach(cell -> text.append(' ').append(cell.name()).append(" |"));
        text.append(" worst accuracy | mean τ_b |\n|---|").append("---|".repeat(cells.size() + 2)).append('\n');
        List<Prior> rows = new ArrayList<>(candidates());
        rows.add(Prior.LENGTH_ALONE);
        for (Prior prior : rows) {
            text.append("| ").append(prior).append(" |");
            for (Cell cell : cells) {
                Figures figures = cell.figures(prior);
                text.append(' ').append(percent(figures.rankingAccuracy())).append(", ")
                        .append(decimal(figures.kendallTauB()))
                        .append(" |");
            }
            text.append(' ').append(percent(worstAccuracy(prior)))
                    .append(String.format(Locale.ROOT, " | %.3f |%n", meanTau(prior)));
        }
        return text.append('\n').toString();
    }
}
