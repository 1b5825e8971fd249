package dev.triage.bench.replay;

import java.util.concurrent.atomic.AtomicLong;

/** What the replay backend's connections did that is not an answer: the faults struck and the idle connections closed. */
final class ReplayCounters {
    final AtomicLong faults = new AtomicLong();
    final AtomicLong keepAliveClosures = new AtomicLong();
}
