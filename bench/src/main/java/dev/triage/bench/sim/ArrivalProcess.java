package dev.triage.bench.sim;

import java.util.random.RandomGenerator;

/** When a synthetic workload's jobs arrive. Replayed traces bring their own times ({@link TraceFile}). */
public interface ArrivalProcess {

    /** Arrival times in seconds from the start, non-decreasing. */
    double[] times(int count, RandomGenerator random);

    /**
     * Poisson arrivals: exponential gaps with the given rate. Drawn as unit-rate gaps divided by the
     * rate, so runs at different loads with the same seed see the same arrival pattern, stretched.
     */
    record Poisson(double ratePerSecond) implements ArrivalProcess {

        public Poisson {
            if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
                throw new IllegalArgumentException("arrival rate: " + ratePerSecond + " (expected: > 0)");
            }
        }

        /** The rate that loads {@code slots} servers to utilisation ρ: λ = ρ · slots / E[S]. */
        public static Poisson atUtilisation(double rho, double meanServiceSeconds, int slots) {
            if (!(rho > 0)) {
                throw new IllegalArgumentException("utilisation: " + rho + " (expected: > 0)");
            }
            return new Poisson(rho * slots / meanServiceSeconds);
        }

        @Override
        public double[] times(int count, RandomGenerator random) {
            double[] times = new double[count];
            double now = 0;
            for (int i = 0; i < count; i++) {
                now += random.nextExponential() / ratePerSecond;
                times[i] = now;
            }
            return times;
        }
    }

    /** Every job at time 0, in order: the Clairvoyant burst benchmark and the ASR paper's toy example. */
    record Burst() implements ArrivalProcess {
        @Override
        public double[] times(int count, RandomGenerator random) {
            return new double[count];
        }
    }
}
