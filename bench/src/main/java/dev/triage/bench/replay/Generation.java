package dev.triage.bench.replay;

import java.util.concurrent.ScheduledFuture;

/** One request's answer as the {@link GenerationEngine} produces it. Confined to the engine's event loop. */
final class Generation {

    enum State { WAITING, PREFILLING, DECODING, DONE, CANCELLED }

    private final int targetTokens;
    private final GenerationListener listener;
    private int emitted;
    State state = State.WAITING;
    ScheduledFuture<?> prefill;

    Generation(int targetTokens, GenerationListener listener) {
        if (targetTokens < 0) {
            throw new IllegalArgumentException("targetTokens: " + targetTokens + " (expected: >= 0)");
        }
        this.targetTokens = targetTokens;
        this.listener = listener;
    }

    int targetTokens() {
        return targetTokens;
    }

    GenerationListener listener() {
        return listener;
    }

    boolean complete() {
        return emitted >= targetTokens;
    }

    void emit() {
        listener.token(emitted++);
    }
}
