package dev.triage.bench.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The engine's timing model on a virtual clock: the embedded event loop's, which moves only when told. */
class GenerationEngineTest {

    private EmbeddedChannel channel;
    private long origin;
    private double prefillSeconds;

    @BeforeEach
    void freezeTime() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        origin = channel.eventLoop().ticker().nanoTime();
    }

    @AfterEach
    void close() {
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aSerialSlotServesOneRequestAtATimeInArrivalOrder() {
        GenerationEngine engine = engine(1, new ServiceTimeModel(1, 0.5), 0);
        Recorder a = submit(engine, 3);
        Recorder b = submit(engine, 3);
        Recorder c = submit(engine, 1);
        runUntilIdle();
        assertEquals(List.of(0.0, 1.5, 2.0, 2.5, 2.5), a.times(), "started, three tokens, finished");
        assertEquals(List.of(2.5, 4.0, 4.5, 5.0, 5.0), b.times());
        assertEquals(List.of(5.0, 6.5, 6.5), c.times());
    }

    @Test
    void eachStepOfABatchSlowsDownWithTheBatchSize() {
        // Two slots, 1 s per token alone, +50% per extra request in the batch, 0.5 s prefill.
        GenerationEngine engine = engine(2, new ServiceTimeModel(0.5, 1), 0.5);
        Recorder a = submit(engine, 2);
        Recorder b = submit(engine, 2);
        runUntilIdle();
        // A starts decoding alone at 0.5 (token at 1.5); B, prefilled at the same instant, joins the next
        // step: [1.5, 3.0] with two in the batch (1.5 s). B finishes alone: [3.0, 4.0].
        assertEquals(List.of(0.0, 1.5, 3.0, 3.0), a.times());
        assertEquals(List.of(0.0, 3.0, 4.0, 4.0), b.times());
    }

    @Test
    void eachGenerationHasThePrefillOfItsOwnPrompt() {
        GenerationEngine engine = engine(2, new ServiceTimeModel(0.5, 1), 0);
        Recorder longPrompt = new Recorder(new Generation(2.0, 1, null));
        Recorder shortPrompt = new Recorder(new Generation(0.25, 1, null));
        engine.submit(longPrompt.generation);
        engine.submit(shortPrompt.generation);
        runUntilIdle();
        assertEquals(List.of(0.0, 1.25, 1.25), shortPrompt.times(), "decodes alone from 0.25");
        assertEquals(List.of(0.0, 3.0, 3.0), longPrompt.times(), "prefilled at 2.0, decodes alone after");
    }

    @Test
    void aRequestForNoTokensFinishesAfterItsPrefill() {
        GenerationEngine engine = engine(1, new ServiceTimeModel(0.25, 1), 0);
        Recorder empty = submit(engine, 0);
        runUntilIdle();
        assertEquals(List.of(0.0, 0.25), empty.times());
    }

    @Test
    void cancellingFreesTheSlotForTheNextWaitingRequest() {
        GenerationEngine engine = engine(1, new ServiceTimeModel(1, 1), 0);
        Recorder running = submit(engine, 100);
        Recorder waiting = submit(engine, 1);
        Recorder next = submit(engine, 1);
        advance(3.0);
        engine.cancel(waiting.generation);
        engine.cancel(running.generation);
        assertEquals(0, engine.waitingCount());
        runUntilIdle();
        assertEquals(List.of(0.0, 2.0, 3.0), running.times(), "two tokens, then nothing: no finish after a cancel");
        assertTrue(waiting.times().isEmpty(), "a cancelled waiting request never starts");
        assertEquals(List.of(3.0, 5.0, 5.0), next.times());
        assertEquals(0, engine.busySlots());
    }

    @Test
    void aRequestCancelledDuringItsPrefillReleasesItsSlot() {
        GenerationEngine engine = engine(1, new ServiceTimeModel(1, 1), 0);
        Recorder prefilling = submit(engine, 5);
        Recorder next = submit(engine, 1);
        advance(0.5);
        engine.cancel(prefilling.generation);
        runUntilIdle();
        assertEquals(List.of(0.0), prefilling.times());
        assertEquals(List.of(0.5, 2.5, 2.5), next.times());
    }

    private GenerationEngine engine(int slots, ServiceTimeModel speed, double batchSlowdown) {
        prefillSeconds = speed.prefillSeconds(0);
        return new GenerationEngine(new NettyTimers(channel.eventLoop()), slots, speed.secondsPerToken(),
                BatchSlowdown.linear(batchSlowdown));
    }

    private Recorder submit(GenerationEngine engine, int tokens) {
        Recorder recorder = new Recorder(tokens);
        engine.submit(recorder.generation);
        return recorder;
    }

    private void advance(double seconds) {
        long target = origin + Math.round(seconds * 1e9);
        while (true) {
            long next = channel.runScheduledPendingTasks();
            long now = channel.eventLoop().ticker().nanoTime();
            if (next < 0 || now + next > target) {
                channel.advanceTimeBy(target - now, TimeUnit.NANOSECONDS);
                channel.runScheduledPendingTasks();
                return;
            }
            channel.advanceTimeBy(next, TimeUnit.NANOSECONDS);
        }
    }

    private void runUntilIdle() {
        long next;
        while ((next = channel.runScheduledPendingTasks()) >= 0) {
            channel.advanceTimeBy(next, TimeUnit.NANOSECONDS);
        }
    }

    /** Records when each event happened, in seconds since the test began. */
    private final class Recorder implements GenerationListener {
        final Generation generation;
        private final List<Double> times = new ArrayList<>();

        Recorder(int tokens) {
            generation = new Generation(prefillSeconds, tokens, this);
        }

        /** A recorder for a generation of its own prefill; the listener given to it is replaced by this one. */
        Recorder(Generation shape) {
            generation = new Generation(shape.prefillSeconds(), shape.targetTokens(), this);
        }

        @Override
        public void started() {
            record();
        }

        @Override
        public void token(int index) {
            record();
        }

        @Override
        public void finished() {
            record();
        }

        private void record() {
            times.add((channel.eventLoop().ticker().nanoTime() - origin) / 1e9);
        }

        List<Double> times() {
            return times;
        }
    }
}
