package dev.triage.proxy.scheduler.ewsjf;

/**
 * One trial of the meta-optimizer: the parameters that were in force for an interval and the reward
 * they earned.
 *
 * @param index 1 for the first trial
 * @param theta the parameters in force
 * @param completions the jobs that completed in the interval
 * @param queues the queues in force at its end
 */
public record Trial(int index, Theta theta, int completions, int queues, TrialReward reward) {}
