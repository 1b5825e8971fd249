package dev.triage.bench.backend;

/** One request's answer as the {@link GenerationEngine} produces it. Confined to the engine's thread. */
public final class Generation {

    enum State { WAITING, PREFILLING, DECODING, DONE, CANCELLED }

    private final double prefillSeconds;
    private final int targetTokens;
    private final GenerationListener listener;
    private int emitted;
    State state = State.WAITING;
    EngineTimers.Timer prefill;

    /**
     * @param prefillSeconds the time from its slot to its first decoding step, at least 0 (the
     *     backend's {@code ServiceTimeModel.prefillSeconds} of its prompt)
     * @param targetTokens the tokens it generates
     */
    public Generation(double prefillSeconds, int targetTokens, GenerationListener listener) {
        if (!(prefillSeconds >= 0) || Double.isInfinite(prefillSeconds)) {
            throw new IllegalArgumentException("prefillSeconds: " + prefillSeconds + " (expected: finite, >= 0)");
        }
        if (targetTokens < 0) {
            throw new IllegalArgumentException("targetTokens: " + targetTokens + " (expected: >= 0)");
        }
        this.prefillSeconds = prefillSeconds;
        this.targetTokens = targetTokens;
        this.listener = listener;
    }

    public int targetTokens() {
        return targetTokens;
    }

    double prefillSeconds() {
        return prefillSeconds;
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
