package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.testing.FailingEstimator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BatchingEstimatorTest {

    private static final Duration MAX_WAIT = Duration.ofMillis(250);

    /**
     * The baseline estimator at a set cost per prompt on a clock of its own, each batch held until
     * the test lets it through, recording batch sizes: lets a test line up arrivals while a batch
     * is being scored, and decide what the batches measure.
     */
    private static final class GatedBaseline implements JobEstimator<Prompt> {
        final BaselineEstimator baseline = new BaselineEstimator();
        final List<Integer> batches = new CopyOnWriteArrayList<>();
        final AtomicInteger entered = new AtomicInteger();
        final Semaphore gate = new Semaphore(0);
        final AtomicLong now = new AtomicLong();
        final long nanosPerPrompt;

        GatedBaseline(Duration perPrompt) {
            this.nanosPerPrompt = perPrompt.toNanos();
        }

        Clock clock() {
            return now::get;
        }

        /** Lets {@code batches} batches through, the one being scored first, and waits until the next one has begun. */
        void pass(int batches) {
            int before = entered.get();
            gate.release(batches);
            await(before + batches);
        }

        void await(int batchesEntered) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (entered.get() < batchesEntered) {
                assertTrue(System.nanoTime() < deadline, "batch " + batchesEntered + " never began");
                Thread.onSpinWait();
            }
        }

        @Override
        public String name() {
            return "gated-baseline";
        }

        @Override
        public Estimate estimate(Prompt prompt) {
            return estimateAll(List.of(prompt)).get(0);
        }

        @Override
        public List<Estimate> estimateAll(List<Prompt> prompts) {
            entered.incrementAndGet();
            try {
                gate.tryAcquire(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            batches.add(prompts.size());
            now.addAndGet(nanosPerPrompt * prompts.size());
            return baseline.estimateAll(prompts);
        }

        @Override
        public boolean expensive() {
            return true;
        }
    }

    private static BatchingEstimator batcher(GatedBaseline estimator, int maxBatch, int maxWaiting) {
        return new BatchingEstimator(estimator, maxBatch, maxWaiting, MAX_WAIT, estimator.clock());
    }

    /** Scores a first prompt alone, so that the batcher has timed one batch. */
    private static void timeOneBatch(BatchingEstimator batcher, GatedBaseline estimator) throws Exception {
        CompletableFuture<Estimate> warm = batcher.tryEstimate(new Prompt("warm")).orElseThrow();
        estimator.await(1);
        estimator.gate.release();
        warm.get(10, TimeUnit.SECONDS);
    }

    /**
     * A burst at start-up, while the first batch is being scored: a batcher that has timed nothing
     * takes one batch and leaves the rest to the caller; one timed on warm-up prompts takes what it
     * scores in the bound (here 249 prompts at 1 ms each).
     */
    @Test
    void aBatcherTimedOnWarmUpPromptsTakesABurstByItsMeasuredTime() throws Exception {
        assertEquals(8, acceptedDuringTheFirstBatch(List.of()));
        assertEquals(100, acceptedDuringTheFirstBatch(List.of(new Prompt("a"), new Prompt("b"), new Prompt("c"))));
    }

    /** Of 100 prompts offered while the first real batch is scored, how many the batcher takes. */
    private static int acceptedDuringTheFirstBatch(List<Prompt> warmUp) throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(1));
        try (BatchingEstimator batcher = new BatchingEstimator(estimator, 8, 300, MAX_WAIT, estimator.clock(), warmUp)) {
            if (!warmUp.isEmpty()) {
                estimator.await(1);
                estimator.gate.release();
            }
            batcher.tryEstimate(new Prompt("first")).orElseThrow();
            estimator.await(warmUp.isEmpty() ? 1 : 2);
            int accepted = 0;
            for (int i = 0; i < 100; i++) {
                accepted += batcher.tryEstimate(new Prompt("burst " + i)).isPresent() ? 1 : 0;
            }
            estimator.gate.release(100);
            return accepted;
        }
    }

    @Test
    void promptsArrivingWhileABatchIsScoredAreScoredTogetherNext() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(1));
        try (BatchingEstimator batcher = batcher(estimator, 8, 100)) {
            timeOneBatch(batcher, estimator);
            CompletableFuture<Estimate> first = batcher.tryEstimate(new Prompt("first")).orElseThrow();
            estimator.await(2);
            List<CompletableFuture<Estimate>> waiting = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                waiting.add(batcher.tryEstimate(new Prompt("x".repeat(4 * i))).orElseThrow());
            }
            estimator.gate.release(3);
            assertEquals(128 + 2 * 2, first.get(10, TimeUnit.SECONDS).expectedTokens(), "five characters are two prompt tokens");
            for (int i = 0; i < waiting.size(); i++) {
                assertEquals(128 + 2 * i, waiting.get(i).get(10, TimeUnit.SECONDS).expectedTokens(), "prompt " + i);
            }
            assertEquals(List.of(1, 1, 8, 3), estimator.batches, "the waiting 11 in batches of at most 8");
        }
    }

    @Test
    void untilABatchHasBeenTimedAtMostOneBatchWaits() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(1));
        try (BatchingEstimator batcher = batcher(estimator, 4, 100)) {
            batcher.tryEstimate(new Prompt("running")).orElseThrow();
            estimator.await(1);
            for (int i = 0; i < 4; i++) {
                assertTrue(batcher.tryEstimate(new Prompt("waiting " + i)).isPresent(), "prompt " + i);
            }
            assertTrue(batcher.tryEstimate(new Prompt("one too many")).isEmpty());
            estimator.gate.release(2);
        }
    }

    @Test
    void aPromptExpectedToWaitLongerThanTheBoundIsNotTaken() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(100));
        try (BatchingEstimator batcher = batcher(estimator, 8, 100)) {
            timeOneBatch(batcher, estimator);
            CompletableFuture<Estimate> running = batcher.tryEstimate(new Prompt("running")).orElseThrow();
            estimator.await(2);
            // At 100 ms a prompt, the first two waiting expect their estimate within 250 ms, the third would not.
            CompletableFuture<Estimate> a = batcher.tryEstimate(new Prompt("a")).orElseThrow();
            CompletableFuture<Estimate> b = batcher.tryEstimate(new Prompt("b")).orElseThrow();
            assertTrue(batcher.tryEstimate(new Prompt("c")).isEmpty());
            estimator.pass(1);
            estimator.gate.release();
            for (CompletableFuture<Estimate> taken : List.of(running, a, b)) {
                taken.get(10, TimeUnit.SECONDS);
            }
            assertEquals(List.of(1, 1, 2), estimator.batches);
            assertTrue(batcher.tryEstimate(new Prompt("d")).isPresent(), "taken again once the queue has drained");
            estimator.gate.release();
        }
    }

    @Test
    void aSparePromptIsTakenOnlyWhenNothingElseIsScoredAndWithinItsShareOfTheEstimatorsTime() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(10));
        try (BatchingEstimator batcher = batcher(estimator, 8, 100)) {
            timeOneBatch(batcher, estimator);
            CompletableFuture<Estimate> spare = batcher.trySpare(new Prompt("spare")).orElseThrow();
            estimator.await(2);
            assertTrue(batcher.trySpare(new Prompt("while busy")).isEmpty(), "never queued behind another prompt");
            estimator.gate.release();
            spare.get(10, TimeUnit.SECONDS);

            // Back to back, each 10 ms prompt takes 10 ms / SPARE_SHARE of the share while the clock moves 10 ms: the
            // burst (SPARE_BURST of the estimator's time) lets about SPARE_BURST / 10 ms through, then the share holds them back.
            long burst = BatchingEstimator.SPARE_BURST.toMillis() / 10;
            long sharePerPrompt = Math.round(Duration.ofMillis(10).toNanos() / BatchingEstimator.SPARE_SHARE);
            estimator.gate.release(1_000);
            int taken = 0;
            Optional<CompletableFuture<Estimate>> next;
            while ((next = batcher.trySpare(new Prompt("spare " + taken))).isPresent()) {
                next.get().get(10, TimeUnit.SECONDS);
                taken++;
                assertTrue(taken < 2 * burst, "the share holds spare prompts back");
            }
            assertTrue(taken >= 0.9 * burst, "a burst after a quiet spell: " + taken);
            assertTrue(batcher.tryEstimate(new Prompt("waiting")).orElseThrow().get(10, TimeUnit.SECONDS) != null,
                    "a prompt that waits is taken whatever the spare prompts took");
            assertTrue(batcher.trySpare(new Prompt("too soon")).isEmpty());
            estimator.now.addAndGet(2 * sharePerPrompt);
            assertTrue(batcher.trySpare(new Prompt("later")).isPresent(), "taken again as the share allows");
        }
    }

    @Test
    void aFullWaitingRoomRefusesWhateverTheTimeAndAFailureReachesEveryPromptOfItsBatch() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofNanos(1));
        try (BatchingEstimator batcher = batcher(estimator, 8, 2)) {
            timeOneBatch(batcher, estimator);
            batcher.tryEstimate(new Prompt("running")).orElseThrow();
            estimator.await(2);
            assertTrue(batcher.tryEstimate(new Prompt("a")).isPresent());
            assertTrue(batcher.tryEstimate(new Prompt("b")).isPresent());
            assertTrue(batcher.tryEstimate(new Prompt("c")).isEmpty());
            estimator.gate.release(2);
        }
        JobEstimator<Prompt> broken = new FailingEstimator<>("broken", () -> {
            throw new IllegalStateException("model crashed");
        });
        try (BatchingEstimator batcher = new BatchingEstimator(broken, 8, 10, MAX_WAIT, Clock.system())) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> batcher.tryEstimate(new Prompt("x")).orElseThrow().get(10, TimeUnit.SECONDS));
            assertEquals("model crashed", e.getCause().getMessage());
            // The worker survives a failing batch.
            assertThrows(ExecutionException.class, () -> batcher.tryEstimate(new Prompt("y")).orElseThrow().get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void closingAnswersWhatStillWaits() throws Exception {
        GatedBaseline estimator = new GatedBaseline(Duration.ofMillis(1));
        BatchingEstimator batcher = batcher(estimator, 8, 10);
        batcher.tryEstimate(new Prompt("running")).orElseThrow();
        estimator.await(1);
        CompletableFuture<Estimate> waiting = batcher.tryEstimate(new Prompt("waiting")).orElseThrow();
        batcher.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, e.getCause());
        estimator.gate.release();
    }
}
