package dev.triage.proxy.scheduler.ewsjf;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.SplittableRandom;
import org.ojalgo.random.Normal;
import org.ojalgo.random.Normal1D;
import org.ojalgo.random.process.GaussianField;
import org.ojalgo.type.keyvalue.EntryPair.KeyedPrimitive;

/**
 * EWSJF's Bayesian meta-optimizer (§4.4.2): each trial's parameters Θ and the reward they earned are
 * observations of an unknown reward landscape, modelled by a Gaussian process over Θ scaled to the
 * unit cube (ojAlgo's {@link GaussianField}, squared-exponential kernel, observation noise); the next
 * Θ is the candidate of highest expected improvement over the best reward so far. The first trials
 * explore at random, as Bayesian optimisation needs a few points before its model means anything.
 * Only the latest {@code memory} trials are modelled, so that a workload that shifts is followed.
 *
 * <p>Not thread-safe: one thread observes and proposes (the policy's background thread).
 *
 * <pre>{@code
 * MetaOptimizer optimizer = new MetaOptimizer(seed, 3, 40);
 * optimizer.observe(theta, reward);
 * Theta next = optimizer.propose();
 * }</pre>
 */
public final class MetaOptimizer {

    /** Kernel length scale in the unit cube: a fifth of each parameter's range moves the reward little. */
    static final double LENGTH_SCALE = 0.25;
    /** Observation noise as a share of the rewards' variance: trials under live traffic are noisy. */
    static final double NOISE = 0.2;
    /** Expected improvement asked beyond the best, in standard deviations of the rewards. */
    static final double XI = 0.01;
    static final int RANDOM_CANDIDATES = 768;
    static final int LOCAL_CANDIDATES = 256;
    static final double LOCAL_SPREAD = 0.08;
    private static final int BATCH = 128;
    private static final Normal STANDARD = Normal.standard();

    private final SplittableRandom random;
    private final int randomTrials;
    private final int memory;
    private final Deque<Observation> observations = new ArrayDeque<>();
    private int observed;

    private record Observation(UnitPoint point, Theta theta, double reward) {}

    /**
     * @param seed the seed of the random candidates: the same trials give the same proposals
     * @param randomTrials trials proposed at random before the model proposes, at least 1
     * @param memory the latest trials modelled, at least {@code randomTrials + 1}
     */
    public MetaOptimizer(long seed, int randomTrials, int memory) {
        if (randomTrials < 1 || memory <= randomTrials) {
            throw new IllegalArgumentException("random trials " + randomTrials + ", memory " + memory
                    + " (expected: random trials >= 1, memory > random trials)");
        }
        this.random = new SplittableRandom(seed);
        this.randomTrials = randomTrials;
        this.memory = memory;
    }

    /** Records the reward the parameters earned in a trial; a non-finite reward is ignored. */
    public void observe(Theta theta, double reward) {
        if (!Double.isFinite(reward)) {
            return;
        }
        observations.addLast(new Observation(new UnitPoint(theta.toUnit()), theta, reward));
        if (observations.size() > memory) {
            observations.removeFirst();
        }
        observed++;
    }

    /** The parameters to try next. */
    public Theta propose() {
        if (observed < randomTrials || observations.size() < 2) {
            return Theta.fromUnit(randomPoint());
        }
        double mean = 0;
        for (Observation o : observations) {
            mean += o.reward();
        }
        mean /= observations.size();
        double variance = 0;
        for (Observation o : observations) {
            variance += (o.reward() - mean) * (o.reward() - mean);
        }
        double sd = Math.sqrt(variance / observations.size());
        if (!(sd > 0)) {
            return Theta.fromUnit(randomPoint());
        }
        GaussianField<UnitPoint> field = new GaussianField<>(new SquaredExponential());
        double bestStandardised = Double.NEGATIVE_INFINITY;
        for (Observation o : observations) {
            double standardised = (o.reward() - mean) / sd;
            field.addObservation(o.point(), standardised);
            bestStandardised = Math.max(bestStandardised, standardised);
        }
        UnitPoint[] candidates = candidates(best().toUnit());
        UnitPoint chosen = candidates[0];
        double chosenImprovement = Double.NEGATIVE_INFINITY;
        for (int from = 0; from < candidates.length; from += BATCH) {
            UnitPoint[] batch = Arrays.copyOfRange(candidates, from, Math.min(candidates.length, from + BATCH));
            Normal1D posterior = field.getDistribution(batch);
            for (int i = 0; i < batch.length; i++) {
                double improvement = expectedImprovement(posterior.getExpected().doubleValue(i),
                        posterior.getStandardDeviation().doubleValue(i), bestStandardised);
                if (improvement > chosenImprovement) {
                    chosenImprovement = improvement;
                    chosen = batch[i];
                }
            }
        }
        return Theta.fromUnit(chosen.coordinates());
    }

    /** The parameters of the best reward among the trials modelled; {@link Theta#DEFAULT} before any. */
    public Theta best() {
        Observation best = null;
        for (Observation o : observations) {
            if (best == null || o.reward() > best.reward()) {
                best = o;
            }
        }
        return best == null ? Theta.DEFAULT : best.theta();
    }

    static double expectedImprovement(double mean, double sd, double best) {
        if (!(sd > 0)) {
            return Math.max(0, mean - best - XI);
        }
        double z = (mean - best - XI) / sd;
        return (mean - best - XI) * STANDARD.getDistribution(z) + sd * STANDARD.getDensity(z);
    }

    private UnitPoint[] candidates(double[] around) {
        UnitPoint[] candidates = new UnitPoint[RANDOM_CANDIDATES + LOCAL_CANDIDATES];
        for (int i = 0; i < RANDOM_CANDIDATES; i++) {
            candidates[i] = new UnitPoint(randomPoint());
        }
        for (int i = 0; i < LOCAL_CANDIDATES; i++) {
            double[] point = new double[around.length];
            for (int d = 0; d < point.length; d++) {
                point[d] = Math.min(1, Math.max(0, around[d] + LOCAL_SPREAD * gaussian()));
            }
            candidates[RANDOM_CANDIDATES + i] = new UnitPoint(point);
        }
        return candidates;
    }

    private double[] randomPoint() {
        double[] point = new double[Theta.BOUNDS.length];
        for (int d = 0; d < point.length; d++) {
            point[d] = random.nextDouble();
        }
        return point;
    }

    private double gaussian() {
        // Box–Muller: SplittableRandom has no nextGaussian on Java 17.
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    /** A point of the unit cube, ordered lexicographically as ojAlgo's field keys must be. */
    record UnitPoint(double[] coordinates) implements Comparable<UnitPoint> {

        @Override
        public int compareTo(UnitPoint other) {
            return Arrays.compare(coordinates, other.coordinates);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof UnitPoint point && Arrays.equals(coordinates, point.coordinates);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(coordinates);
        }

        @Override
        public String toString() {
            return Arrays.toString(coordinates);
        }
    }

    /** k(x, y) = exp(−|x − y|² / 2ℓ²) on standardised rewards, plus the noise on the diagonal. */
    private static final class SquaredExponential implements GaussianField.Covariance<UnitPoint> {

        @Override
        public void calibrate(Collection<KeyedPrimitive<UnitPoint>> observations, GaussianField.Mean<UnitPoint> mean) {
            // Fixed hyperparameters: the rewards are standardised and Θ is scaled to the unit cube.
        }

        @Override
        public double invoke(UnitPoint a, UnitPoint b) {
            double squared = 0;
            for (int d = 0; d < a.coordinates().length; d++) {
                double difference = a.coordinates()[d] - b.coordinates()[d];
                squared += difference * difference;
            }
            return Math.exp(-squared / (2 * LENGTH_SCALE * LENGTH_SCALE)) + (a.equals(b) ? NOISE : 0);
        }
    }
}
