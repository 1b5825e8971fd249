package dev.triage.model.training;

import dev.triage.model.ranker.EncoderSpec;
import java.util.List;

/**
 * How the ranker's head is trained. The defaults are PARS's where PARS sets them (margin 1.0,
 * δ = 0.2, Adam) and were chosen on the validation split where it does not (PARS fine-tunes all of
 * BERT at a learning rate of 2e-5; a small head on a frozen encoder takes larger steps).
 *
 * @param objective the loss
 * @param minLengthDifference δ: pairs whose answer lengths differ by less (relative to the longer)
 *     are left out of pairwise training; 0 keeps every pair of different lengths
 * @param margin the pairwise margin
 * @param hiddenUnits ReLU units of the head's hidden layer
 * @param learningRate Adam's step size
 * @param steps Adam steps
 * @param batchSize prompts scored per step
 * @param listSize prompts per ListMLE list
 * @param weightDecay AdamW's decoupled weight decay
 * @param seed random seed
 * @param encoder the sentence encoder whose embeddings the head reads
 * @param maxTokens where the encoder cuts prompts, in its tokens
 * @param lengthPrior w ≥ 0 in {@code score = head + w · max(0, z − c)}, z the standardized log prompt
 *     length, added after training ({@link RankingHead#withPrior}); 0 leaves the score to the head
 * @param lengthPriorThreshold c: the prior counts only the part of z above it
 * @param balanceStyles draw the answering models of the long-answer style ({@link AnswerStyle}) as often in
 *     all as those of the chat style, instead of every model in proportion to its answers
 * @param stacking the trees stacked on the head's score, or {@link TreeStacking#NONE}
 * @param instructionSets whether the instruction sets' training prompts ({@link
 *     dev.triage.model.data.PromptCorpus#instructionSetPrompts}) join the training prompts, each generator's answers a
 *     group of their own ({@link RankerTrainer#trainingPrompts})
 */
public record RankerSettings(RankingObjective objective, double minLengthDifference, double margin, int hiddenUnits,
        double learningRate, int steps, int batchSize, int listSize, double weightDecay, long seed, EncoderSpec encoder, int maxTokens,
        double lengthPrior, double lengthPriorThreshold, boolean balanceStyles, TreeStacking stacking, boolean instructionSets) {

    /**
     * PARS's loss, margin and δ; the rest chosen on the validation split (mean τ_b over three seeds:
     * 128 hidden units at 3e-4 for 3,000 steps 0.400; 64 at 1e-3 for 2,000 steps 0.381; 256 at 3e-4
     * 0.399; texts cut at 128 tokens instead of 256 cost about 0.01). No trees are stacked on the head, the answering
     * styles are not balanced, and the instruction sets' prompts join training, as {@link TrainingChoices} decides: with
     * them the validation split 91.3% against 90.1%, AlpacaEval held out 89.3% against 82.7%, the worst held-out source
     * 72.9% against 71.5%. The length prior, 0.25 · max(0, z − 1) (only prompts more than a standard deviation longer than
     * the training prompts' mean get it), is the one {@link LengthPriorSelection} chooses by leaving one source out, with
     * the instruction sets in training: its worst held-out source 72.9%, as with 0.25 · max(0, z + 3), which was chosen
     * before them, and against 72.4% without a prior; the better mean τ_b of the two, 0.255 against 0.251.
     */
    public static final RankerSettings DEFAULTS = new RankerSettings(RankingObjective.PAIRWISE, 0.2, 1.0, 128, 3e-4, 3000,
            256, 32, 0.0, 42, EncoderSpec.DEFAULT, 256, 0.25, 1.0, false, TreeStacking.NONE, true);

    public RankerSettings {
        if (!(minLengthDifference >= 0 && minLengthDifference < 1)) {
            throw new IllegalArgumentException("minLengthDifference: " + minLengthDifference + " (expected: in [0, 1))");
        }
        if (!(margin > 0) || Double.isInfinite(margin)) {
            throw new IllegalArgumentException("margin: " + margin + " (expected: finite, > 0)");
        }
        if (hiddenUnits < 1) {
            throw new IllegalArgumentException("hiddenUnits: " + hiddenUnits + " (expected: >= 1)");
        }
        if (!(learningRate > 0 && learningRate < 1)) {
            throw new IllegalArgumentException("learningRate: " + learningRate + " (expected: in (0, 1))");
        }
        if (steps < 1) {
            throw new IllegalArgumentException("steps: " + steps + " (expected: >= 1)");
        }
        if (batchSize < 2) {
            throw new IllegalArgumentException("batchSize: " + batchSize + " (expected: >= 2)");
        }
        if (listSize < 2 || listSize > batchSize) {
            throw new IllegalArgumentException("listSize: " + listSize + " (expected: 2 to the batch size " + batchSize + ")");
        }
        if (!(weightDecay >= 0 && weightDecay < 1)) {
            throw new IllegalArgumentException("weightDecay: " + weightDecay + " (expected: in [0, 1))");
        }
        if (encoder == null) {
            throw new IllegalArgumentException("encoder: null (expected one of " + List.of(EncoderSpec.values()) + ")");
        }
        if (maxTokens < 2 || maxTokens > EncoderSpec.MAX_POSITIONS) {
            throw new IllegalArgumentException("maxTokens: " + maxTokens + " (expected: 2 to " + EncoderSpec.MAX_POSITIONS + ")");
        }
        if (!(lengthPrior >= 0) || Double.isInfinite(lengthPrior)) {
            throw new IllegalArgumentException("lengthPrior: " + lengthPrior + " (expected: finite, >= 0)");
        }
        if (!Double.isFinite(lengthPriorThreshold)) {
            throw new IllegalArgumentException("lengthPriorThreshold: " + lengthPriorThreshold + " (expected: finite)");
        }
        if (stacking == null) {
            throw new IllegalArgumentException("stacking: null (expected: TreeStacking.NONE for the head alone)");
        }
    }

    /** These settings with another objective and δ, for the comparison PARS makes. */
    public RankerSettings with(RankingObjective otherObjective, double otherMinLengthDifference) {
        return new RankerSettings(otherObjective, otherMinLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize,
                listSize, weightDecay, seed, encoder, maxTokens, lengthPrior, lengthPriorThreshold, balanceStyles, stacking, instructionSets);
    }

    /** These settings with another seed. */
    public RankerSettings withSeed(long otherSeed) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, otherSeed, encoder, maxTokens, lengthPrior, lengthPriorThreshold, balanceStyles, stacking, instructionSets);
    }

    /** These settings with another encoder, for the comparison of encoders. */
    public RankerSettings withEncoder(EncoderSpec otherEncoder) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, seed, otherEncoder, maxTokens, lengthPrior, lengthPriorThreshold, balanceStyles, stacking, instructionSets);
    }

    /** These settings with another length prior. */
    public RankerSettings withLengthPrior(double otherLengthPrior, double otherThreshold) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, seed, encoder, maxTokens, otherLengthPrior, otherThreshold, balanceStyles, stacking, instructionSets);
    }

    /** These settings with the answering styles balanced or not. */
    public RankerSettings withBalancedStyles(boolean balanced) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, seed, encoder, maxTokens, lengthPrior, lengthPriorThreshold, balanced, stacking, instructionSets);
    }

    /** These settings with other trees stacked on the head, or none. */
    public RankerSettings withStacking(TreeStacking otherStacking) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, seed, encoder, maxTokens, lengthPrior, lengthPriorThreshold, balanceStyles, otherStacking, instructionSets);
    }

    /** These settings with the instruction sets' prompts in training or not. */
    public RankerSettings withInstructionSets(boolean included) {
        return new RankerSettings(objective, minLengthDifference, margin, hiddenUnits, learningRate, steps, batchSize, listSize,
                weightDecay, seed, encoder, maxTokens, lengthPrior, lengthPriorThreshold, balanceStyles, stacking, included);
    }
}
