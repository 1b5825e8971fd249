package dev.triage.bench.backend;

/** Hears a generation's progress, on the engine's thread. */
public interface GenerationListener {

    /** The generation has a slot; its prefill starts now. */
    void started();

    /** Token {@code index} (0-based) was generated. */
    void token(int index);

    /** The last token was generated; the slot is free again. Not called after a cancellation. */
    void finished();
}
