package dev.triage.bench.chaos;

import dev.triage.bench.replay.ReplayBackend;

/**
 * What the operations of a run act on and report to.
 *
 * @param port Triage's port on loopback
 * @param canary a word in every prompt of the run, which must never appear in Triage's log
 */
record ChaosTarget(int port, ReplayBackend backend, ForwardingLedger ledger, ChaosSettings settings, String canary,
        AudioSamples audio) {}
