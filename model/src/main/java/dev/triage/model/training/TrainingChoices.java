package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;

import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.RankerModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Weighs ways of training the ranker against a reference by how each generalizes, never by the test
 * split: each is trained on the training split and scored on the validation split, and, as the length
 * prior is chosen ({@link LengthPriorSelection}), trained without each source and scored on that
 * source's unseen prompts. A choice is taken only when it ranks the validation split better
 * <em>and</em> its worst held-out source is no worse than the reference's: a scheduler meets traffic
 * unlike its training data, so a gain in distribution that costs a source it never saw is not taken.
 *
 * <p>The choices weighed by {@code scripts/evaluate --estimator ranker}: trees stacked on the head
 * ({@link TreeStacking}), the answering styles balanced in training ({@link AnswerStyle}), and the instruction sets'
 * prompts in training or not ({@link RankerTrainer#trainingPrompts}).
 */
final class TrainingChoices {

    /** One way of training, named for the report. */
    record Choice(String name, RankerSettings settings) {}

    /** Where a choice is trained and scored: the validation split, or one source held out. */
    private record Scope(String name, PromptSource heldOut) {}

    private record Job(Choice choice, Scope scope) {}

    private final Choice reference;
    private final List<Choice> others;
    private final List<Scope> scopes;
    private final Map<Job, Figures> figures;

    private TrainingChoices(Choice reference, List<Choice> others, List<Scope> scopes, Map<Job, Figures> figures) {
        this.reference = reference;
        this.others = others;
        this.scopes = scopes;
        this.figures = figures;
    }

    /** Trains {@code reference} and each of {@code others} in every scope. */
    static TrainingChoices run(PromptCorpus corpus, PromptEmbeddings embeddings, Choice reference, List<Choice> others) {
        List<Scope> scopes = new ArrayList<>();
        scopes.add(new Scope("validation", null));
        EvaluateCommand.sourcesWithTestPrompts(corpus)
                .forEach(source -> scopes.add(new Scope(LengthPriorSelection.heldOutName(source), source)));
        List<Job> jobs = new ArrayList<>();
        for (Scope scope : scopes) {
            jobs.add(new Job(reference, scope));
            others.forEach(choice -> jobs.add(new Job(choice, scope)));
        }
        Progress progress = Progress.start("training choices: " + (others.size() + 1) + " ways, on validation and without each source",
                jobs.size(), Duration.ofMinutes(15));
        // The jobs are independent and seeded, so the order they run in changes nothing (a head trains on one core;
        // XGBoost's stacked trees take every core, briefly).
        Map<Job, Figures> figures = jobs.parallelStream().collect(Collectors.toMap(job -> job, job -> {
            Figures result = score(corpus, embeddings, job.choice().settings(), job.scope());
            progress.step();
            return result;
        }));
        progress.done();
        return new TrainingChoices(reference, List.copyOf(others), scopes, figures);
    }

    private static Figures score(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings settings, Scope scope) {
        List<LabeledPrompt> train = RankerTrainer.trainingPrompts(corpus, scope.heldOut() == null ? corpus.prompts(PromptSplit.TRAIN)
                : LengthPriorSelection.trainingWithout(corpus, scope.heldOut()), settings);
        List<LabeledPrompt> validation = corpus.prompts(PromptSplit.VALIDATION).stream()
                .filter(p -> p.source() != scope.heldOut()).toList();
        List<LabeledPrompt> scored = scope.heldOut() == null ? corpus.prompts(PromptSplit.VALIDATION)
                : LengthPriorSelection.unseen(corpus, scope.heldOut());
        TrainedRanker trained = RankerTrainer.train(train, embeddings.of(train), validation, embeddings.of(validation), settings);
        try (RankerModel model = trained.model("training choice")) {
            return RankerTrainCommand.figures(model, scored, embeddings);
        }
    }

    /** Whether {@code choice} is taken over the reference by the rule of this class. */
    boolean taken(Choice choice) {
        Double ours = validation(choice);
        Double theirs = validation(reference);
        return ours != null && theirs != null && ours > theirs && worstHeldOut(choice) >= worstHeldOut(reference);
    }

    private Double validation(Choice choice) {
        return figures.get(new Job(choice, scopes.get(0))).rankingAccuracy();
    }

    private double worstHeldOut(Choice choice) {
        return scopes.subList(1, scopes.size()).stream().map(scope -> figures.get(new Job(choice, scope)).rankingAccuracy())
                .filter(Objects::nonNull).mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    /** The table of every choice in every scope, and what the rule decides. */
    String markdown() {
        StringBuilder text = new StringBuilder("## Training choices: validation and leave one source out\n\n")
                .append("Each way of training against the reference, **").append(reference.name()).append("**. Validation: ")
                .append("trained on the training split. Each other column: trained on the training split of the other sources ")
                .append("(calibrated on their validation split), scored on the held-out source's training and validation ")
                .append("prompts (never the test split); ShareGPT on its conversations' first turns. Ranking accuracy, then ")
                .append("Kendall's τ_b. A way is taken when it ranks the validation split better and its worst held-out source ")
                .append("is no worse.\n\n| training |");
        scopes.forEach(scope -> text.append(' ').append(scope.name()).append(" |"));
        text.append(" worst held out | taken |\n|---|").append("---|".repeat(scopes.size() + 2)).append('\n');
        List<Choice> rows = new ArrayList<>();
        rows.add(reference);
        rows.addAll(others);
        for (Choice choice : rows) {
            text.append("| ").append(choice.name()).append(" |");
            for (Scope scope : scopes) {
                Figures cell = figures.get(new Job(choice, scope));
                text.append(' ').append(percent(cell.rankingAccuracy())).append(", ")
                        .append(decimal(cell.kendallTauB())).append(" |");
            }
            text.append(String.format(Locale.ROOT, " %s | %s |%n", percent(worstHeldOut(choice)),
                    choice == reference ? "reference" : taken(choice) ? "**yes**" : "no"));
        }
        return text.append('\n').toString();
    }
}
