package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the ranker's length prior ({@link RankerSettings#lengthPrior}) by how the score
 * generalizes, never by the test split: leave one source out on the training and validation splits.
 * For each source, a head is trained on the other sources' training split and scores the held-out
 * source's training and validation prompts, which it never saw; ShareGPT is scored on its
 * conversations' first turns, the closest stand-in here for real users' first requests. The weight
 * chosen is the one whose worst held-out source scores best (ties: the best mean).
 *
 * <p>Because the prior is added after training, one head per held-out source scores every weight.
 */
final class LengthPriorSelection {

    /** The weights compared: z is in standard deviations of the training prompts' log length. */
    static final double[] WEIGHTS = {0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3};

    /** One held-out set of prompts with the head's score and the standardized log length of each. */
    private record Cell(String name, List<LabeledPrompt> prompts, double[] head, double[] length) {

        double accuracy(double weight) {
            double[] scores = new double[head.length];
            for (int i = 0; i < scores.length; i++) {
                scores[i] = Double.isInfinite(weight) ? length[i] : head[i] + weight * length[i];
            }
            // Expected tokens must be >= 0; only the order counts, so shift every score by the lowest.
            double lowest = Arrays.stream(scores).min().orElse(0);
            return Evaluation.evaluate(prompts, (index, answer) -> Estimate.ofTokens(scores[index] - lowest)).rankingAccuracy();
        }
    }

    private final List<Cell> cells;

    private LengthPriorSelection(List<Cell> cells) {
        this.cells = cells;
    }

    static LengthPriorSelection run(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings settings) {
        List<PromptSource> sources = Arrays.stream(PromptSource.values())
                .filter(source -> !corpus.prompts(PromptSplit.TEST, source).isEmpty()).toList();
        Progress progress = Progress.start("length prior: a head without each source", sources.size(), Duration.ofMinutes(6));
        List<Cell> cells = sources.parallelStream().map(heldOut -> {
            List<LabeledPrompt> train = corpus.prompts(PromptSplit.TRAIN).stream().filter(p -> p.source() != heldOut).toList();
            List<LabeledPrompt> unseen = corpus.prompts().stream()
                    .filter(p -> p.source() == heldOut && p.split() != PromptSplit.TEST)
                    .filter(p -> heldOut != PromptSource.SHAREGPT || p.request().userTurns() == 1)
                    .toList();
            Cell cell = cell(heldOut == PromptSource.SHAREGPT ? heldOut.id() + ", first turns" : heldOut.id(), train, unseen,
                    embeddings, settings);
            progress.step();
            return cell;
        }).toList();
        progress.done();
        return new LengthPriorSelection(cells);
    }

    private static Cell cell(String name, List<LabeledPrompt> train, List<LabeledPrompt> unseen, PromptEmbeddings embeddings,
            RankerSettings settings) {
        FeatureScaling scaling = FeatureScaling.fit(LexicalTrainer.featureRows(train));
        RankingHead head = RankerTrainer.trainHead(train, scaling.inputs(embeddings.of(train), LexicalTrainer.featureRows(train)),
                settings.withLengthPrior(0));
        float[][] inputs = scaling.inputs(embeddings.of(unseen), LexicalTrainer.featureRows(unseen));
        double[] scores = new double[inputs.length];
        double[] lengths = new double[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            scores[i] = head.score(inputs[i]);
            lengths[i] = inputs[i][RankerTrainer.LENGTH_INPUT];
        }
        return new Cell(name, unseen, scores, lengths);
    }

    /** The weight whose worst held-out source scores best; ties go to the best mean. */
    double best() {
        double best = WEIGHTS[0];
        for (double weight : WEIGHTS) {
            if (worst(weight) > worst(best) || (worst(weight) == worst(best) && mean(weight) > mean(best))) {
                best = weight;
            }
        }
        return best;
    }

    private double worst(double weight) {
        return cells.stream().mapToDouble(cell -> cell.accuracy(weight)).min().orElseThrow();
    }

    private double mean(double weight) {
        return cells.stream().mapToDouble(cell -> cell.accuracy(weight)).average().orElseThrow();
    }

    /** The table of every weight on every held-out source, the prompt's length alone last. */
    String markdown(double shipped) {
        StringBuilder text = new StringBuilder("## Choosing the length prior: leave one source out\n\n")
                .append("`score = head + w · z`, z the prompt's log length standardized over the training prompts. Each column: ")
                .append("a head trained on the training split of the other sources, scored on the held-out source's training ")
                .append("and validation prompts (never the test split); ShareGPT on its conversations' first turns. Ranking ")
                .append("accuracy. The weight chosen is the one whose worst column is best (ties: the best mean): **w = ")
                .append(format(best())).append("**; the evaluated model has w = ").append(format(shipped)).append(".\n\n| w |");
        cells.forEach(cell -> text.append(' ').append(cell.name()).append(" |"));
        text.append(" worst | mean |\n|---|").append("---|".repeat(cells.size() + 2)).append('\n');
        List<Double> rows = new ArrayList<>();
        Arrays.stream(WEIGHTS).forEach(rows::add);
        rows.add(Double.POSITIVE_INFINITY);
        for (double weight : rows) {
            text.append("| ").append(Double.isInfinite(weight) ? "prompt length alone" : format(weight)).append(" |");
            cells.forEach(cell -> text.append(' ').append(HeldOutReport.percent(cell.accuracy(weight))).append(" |"));
            double worst = cells.stream().mapToDouble(cell -> cell.accuracy(weight)).min().orElseThrow();
            double mean = cells.stream().mapToDouble(cell -> cell.accuracy(weight)).average().orElseThrow();
            text.append(' ').append(HeldOutReport.percent(worst)).append(" | ").append(HeldOutReport.percent(mean)).append(" |\n");
        }
        return text.append('\n').toString();
    }

    private static String format(double weight) {
        return String.format(Locale.ROOT, "%.2f", weight);
    }
}
