package dev.triage.proxy.scheduler.ewsjf;

/**
 * The paper's reward for one trial interval, R = λ1·C + λ2·L − λ3·S − λ4·U, with its terms as
 * measured from the jobs that completed in the interval:
 *
 * @param compactness C = 1 / (1 + the job-weighted mean coefficient of variation of the sizes within
 *     each queue): 1 when every queue holds one size
 * @param balance L = 1 / (1 + the coefficient of variation, across queues, of the mean wait in units
 *     of the job's cost): 1 when every queue waits alike relative to its work
 * @param proliferation S = queues in force / {@code max-queues}
 * @param latency U = the mean of ln(sojourn / service) over the completed jobs: 0 when none waited
 * @param reward R
 */
public record TrialReward(double compactness, double balance, double proliferation, double latency, double reward) {

    static TrialReward of(double compactness, double balance, double proliferation, double latency, RewardWeights weights) {
        double reward = weights.compactness() * compactness + weights.balance() * balance
                - weights.proliferation() * proliferation - weights.latency() * latency;
        return new TrialReward(compactness, balance, proliferation, latency, reward);
    }
}
