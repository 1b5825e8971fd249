package dev.triage.proxy.learning;

import dev.triage.model.ranker.ScoreCalibration;
import java.util.Arrays;

/**
 * This backend's own order, learned from its recent answers: the last {@value #WINDOW} completed
 * prompts' features ({@link dev.triage.features.RequestFeatures}) and how far each answer was from
 * its frozen estimate (the log ratio). A new prompt's estimate moves the calibrated one by how far
 * the mean log ratio of its {@value #NEIGHBOURS} nearest neighbours (features scaled by their spread
 * over the window) lies from the window's median ratio, shrunk with the weight of {@value #PRIOR}
 * neighbours at the median. The calibration sets the scale, band by band of the frozen estimate;
 * this moves an estimate by what the prompt is like around that scale, so it can reorder what the
 * frozen estimator ranked wrongly for this backend's model, and whether it serves or not, the
 * estimates stay on one scale.
 *
 * <p>One thread learns; readers take the last published {@link Snapshot}, immutable, with no lock.
 * Memory: {@value #WINDOW} feature vectors and ratios, about 60 KB.
 */
final class NeighbourMemory {

    static final int WINDOW = 512;
    static final int NEIGHBOURS = 16;
    static final double PRIOR = 4;
    static final int PUBLISH_ALWAYS = 64;
    static final int PUBLISH_EVERY = 8;

    private final float[][] features = new float[WINDOW][];
    private final double[] logRatios = new double[WINDOW];
    private long observations;
    private volatile Snapshot published = Snapshot.EMPTY;

    /** The memory as last published: what readers estimate by. */
    Snapshot snapshot() {
        return published;
    }

    /** Adds one answer: its prompt's features, the frozen estimate it was scheduled by and the tokens written. */
    void learn(float[] promptFeatures, double frozenTokens, long actualTokens) {
        int slot = (int) (observations % WINDOW);
        features[slot] = promptFeatures;
        logRatios[slot] = logTokens(actualTokens) - logTokens(frozenTokens);
        observations++;
        // Publishing copies the window's references and sorts its ratios: after every answer while
        // each one moves the memory most, then after every PUBLISH_EVERY-th.
        if (observations <= PUBLISH_ALWAYS || observations % PUBLISH_EVERY == 0) {
            published = publish();
        }
    }

    /** Forgets every answer. */
    void forget() {
        observations = 0;
        Arrays.fill(features, null);
        published = Snapshot.EMPTY;
    }

    private Snapshot publish() {
        int size = (int) Math.min(observations, WINDOW);
        int dimensions = features[0].length;
        double[] mean = new double[dimensions];
        double[] square = new double[dimensions];
        for (int i = 0; i < size; i++) {
            for (int d = 0; d < dimensions; d++) {
                mean[d] += features[i][d];
                square[d] += (double) features[i][d] * features[i][d];
            }
        }
        double[] inverseSpread = new double[dimensions];
        for (int d = 0; d < dimensions; d++) {
            double variance = square[d] / size - (mean[d] / size) * (mean[d] / size);
            // A feature that does not vary over the window tells no prompts apart: it counts for nothing.
            inverseSpread[d] = variance > 1e-12 ? 1 / Math.sqrt(variance) : 0;
        }
        double[] ratios = Arrays.copyOf(logRatios, size);
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        double median = size % 2 == 1 ? sorted[size / 2] : (sorted[size / 2 - 1] + sorted[size / 2]) / 2;
        return new Snapshot(Arrays.copyOf(features, size), ratios, inverseSpread, median);
    }

    static double logTokens(double tokens) {
        return Math.log(Math.min(Math.max(tokens, 1), ScoreCalibration.MAX_TOKENS));
    }

    /**
     * The memory at one moment.
     *
     * @param features the remembered prompts' features, never modified
     * @param logRatios each one's log ratio of actual to frozen tokens
     * @param inverseSpread per feature, 1 / its standard deviation over the window (0 for a constant one)
     * @param medianLogRatio the window's median log ratio, from which the neighbours' departure moves an estimate
     */
    record Snapshot(float[][] features, double[] logRatios, double[] inverseSpread, double medianLogRatio) {

        static final Snapshot EMPTY = new Snapshot(new float[0][], new double[0], new double[0], 0);

        /** The tokens to expect for a prompt of these features that the calibration puts at {@code calibratedTokens}. */
        double tokens(float[] promptFeatures, double calibratedTokens) {
            int size = features.length;
            if (size == 0) {
                return calibratedTokens;
            }
            int k = Math.min(NEIGHBOURS, size);
            // The k nearest so far, as a list sorted by distance: k is small, so an insertion beats a heap.
            double[] nearest = new double[k];
            double[] nearestRatio = new double[k];
            Arrays.fill(nearest, Double.POSITIVE_INFINITY);
            for (int i = 0; i < size; i++) {
                float[] other = features[i];
                double distance = 0;
                for (int d = 0; d < inverseSpread.length && distance < nearest[k - 1]; d++) {
                    double difference = (promptFeatures[d] - other[d]) * inverseSpread[d];
                    distance += difference * difference;
                }
                if (distance < nearest[k - 1]) {
                    int at = k - 1;
                    while (at > 0 && nearest[at - 1] > distance) {
                        nearest[at] = nearest[at - 1];
                        nearestRatio[at] = nearestRatio[at - 1];
                        at--;
                    }
                    nearest[at] = distance;
                    nearestRatio[at] = logRatios[i];
                }
            }
            double sum = 0;
            for (double ratio : nearestRatio) {
                sum += ratio;
            }
            double shift = (sum - k * medianLogRatio) / (k + PRIOR);
            return Math.min(ScoreCalibration.MAX_TOKENS, Math.exp(logTokens(calibratedTokens) + shift));
        }
    }
}
