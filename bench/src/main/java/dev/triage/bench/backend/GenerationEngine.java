package dev.triage.bench.backend;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A model server's timing without the model: {@code slots} generations run at once, the rest wait
 * first-come-first-served, as they do inside Ollama, llama.cpp or vLLM. The replay backend serves
 * answers with it and the simulator runs its backends with it: one timing model for both.
 *
 * <p>The timing model: a generation that gets a slot first spends its prefill time (the backend's
 * {@code ServiceTimeModel.prefillSeconds} of its prompt) on its own, then joins the decoding batch at
 * the next step boundary. Each decoding step produces one token for every generation in the batch and
 * lasts {@code secondsPerToken × batchSlowdown.factor(n)} for a batch of n ({@link BatchSlowdown}): with one slot a
 * request takes exactly {@code prefill + perToken × tokens}; with more, every request slows down as
 * the batch grows, which is how continuous batching trades latency for throughput. A generation
 * leaves the batch with its last token, and its slot goes to the oldest waiting request.
 *
 * <p>Every method runs on the engine's one thread, and time passes only through its
 * {@link EngineTimers}, so nothing ever sleeps and tests and the simulator drive it on a virtual clock.
 */
public final class GenerationEngine {

    /** How many completed generations the engine remembers, in order, for {@link #completedTokens()}. */
    static final int COMPLETED_KEPT = 1024;

    private final EngineTimers timers;
    private final int slots;
    private final double secondsPerToken;
    private final BatchSlowdown batchSlowdown;
    private final ArrayDeque<Generation> waiting = new ArrayDeque<>();
    private final List<Generation> decoding = new ArrayList<>();
    private final List<Generation> joining = new ArrayList<>();
    /** Written on the engine's thread only; read by anyone. */
    private final ConcurrentLinkedDeque<Integer> completed = new ConcurrentLinkedDeque<>();
    private int completedCount;
    private int busySlots;
    private EngineTimers.Timer step;
    private long stepEndNanos;

    /**
     * @param secondsPerToken the duration of a decoding step for a batch of one
     * @param batchSlowdown how much longer a step takes as the batch grows
     */
    public GenerationEngine(EngineTimers timers, int slots, double secondsPerToken, BatchSlowdown batchSlowdown) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
        }
        if (!(secondsPerToken >= 0) || Double.isInfinite(secondsPerToken)) {
            throw new IllegalArgumentException("seconds per token: " + secondsPerToken + " (expected: >= 0)");
        }
        this.timers = timers;
        this.slots = slots;
        this.secondsPerToken = secondsPerToken;
        this.batchSlowdown = Objects.requireNonNull(batchSlowdown, "batchSlowdown");
    }

    public void submit(Generation generation) {
        waiting.add(generation);
        admit();
    }

    /** Stops a generation wherever it is; a slot it held goes to the next waiting request. */
    public void cancel(Generation generation) {
        switch (generation.state) {
            case WAITING -> waiting.remove(generation);
            case PREFILLING -> {
                generation.prefill.cancel();
                busySlots--;
            }
            case DECODING -> {
                decoding.remove(generation);
                joining.remove(generation);
                busySlots--;
            }
            case DONE, CANCELLED -> {
                return;
            }
        }
        generation.state = Generation.State.CANCELLED;
        admit();
    }

    public int waitingCount() {
        return waiting.size();
    }

    public int busySlots() {
        return busySlots;
    }

    /** The answer lengths of the last {@link #COMPLETED_KEPT} generations completed, in completion order. */
    public List<Integer> completedTokens() {
        return List.copyOf(completed);
    }

    private void admit() {
        while (busySlots < slots && !waiting.isEmpty()) {
            Generation generation = waiting.poll();
            busySlots++;
            generation.state = Generation.State.PREFILLING;
            generation.prefill = timers.schedule(() -> prefilled(generation), nanos(generation.prefillSeconds()));
            generation.listener().started();
        }
    }

    private void prefilled(Generation generation) {
        if (generation.state != Generation.State.PREFILLING) {
            return;
        }
        if (generation.complete()) {
            finish(generation);
            admit();
            return;
        }
        generation.state = Generation.State.DECODING;
        if (step == null) {
            decoding.add(generation);
            startStep(timers.nanoTime());
        } else {
            joining.add(generation);
        }
    }

    private void startStep(long startNanos) {
        long duration = nanos(secondsPerToken * batchSlowdown.factor(decoding.size()));
        stepEndNanos = startNanos + duration;
        // From the planned end, not from now: a late timer does not slow the generation down.
        long delay = Math.max(0, stepEndNanos - timers.nanoTime());
        step = timers.schedule(this::endStep, delay);
    }

    private void endStep() {
        step = null;
        for (Generation generation : List.copyOf(decoding)) {
            generation.emit();
            if (generation.state == Generation.State.DECODING && generation.complete()) {
                decoding.remove(generation);
                finish(generation);
            }
        }
        decoding.addAll(joining);
        joining.clear();
        admit();
        if (!decoding.isEmpty()) {
            startStep(stepEndNanos);
        }
    }

    private void finish(Generation generation) {
        generation.state = Generation.State.DONE;
        busySlots--;
        completed.addLast(generation.targetTokens());
        if (++completedCount > COMPLETED_KEPT) {
            completed.pollFirst();
            completedCount--;
        }
        generation.listener().finished();
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }
}
