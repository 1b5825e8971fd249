package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BatchingEstimatorTest {

    /**
     * The baseline estimator, held at a gate before each batch and recording batch sizes: lets a test
     * line up arrivals while a batch is being scored.
     */
    private static final class GatedBaseline implements JobEstimator<Prompt> {
        final BaselineEstimator baseline = new BaselineEstimator();
        final List<Integer> batches = new CopyOnWriteArrayList<>();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

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
            entered.countDown();
            try {
                gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            batches.add(prompts.size());
            return baseline.estimateAll(prompts);
        }

        @Override
        public boolean expensive() {
            return true;
        }
    }

    @Test
    void promptsArrivingWhileABatchIsScoredAreScoredTogetherNext() throws Exception {
        GatedBaseline estimator = new GatedBaseline();
        try (BatchingEstimator batcher = new BatchingEstimator(estimator, 8, 100)) {
            CompletableFuture<Estimate> first = batcher.estimate(new Prompt("first"));
            assertTrue(estimator.entered.await(10, TimeUnit.SECONDS));
            List<CompletableFuture<Estimate>> waiting = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                waiting.add(batcher.estimate(new Prompt("x".repeat(4 * i))));
            }
            estimator.gate.countDown();
            assertEquals(128 + 2 * 2, first.get(10, TimeUnit.SECONDS).expectedTokens(), "five characters are two prompt tokens");
            for (int i = 0; i < waiting.size(); i++) {
                assertEquals(128 + 2 * i, waiting.get(i).get(10, TimeUnit.SECONDS).expectedTokens(), "prompt " + i);
            }
            assertEquals(List.of(1, 8, 3), estimator.batches, "the waiting 11 in batches of at most 8");
        }
    }

    @Test
    void aFullWaitingRoomRefusesAndAFailureReachesEveryPromptOfItsBatch() throws Exception {
        GatedBaseline estimator = new GatedBaseline();
        try (BatchingEstimator batcher = new BatchingEstimator(estimator, 8, 2)) {
            batcher.estimate(new Prompt("running"));
            assertTrue(estimator.entered.await(10, TimeUnit.SECONDS));
            batcher.estimate(new Prompt("a"));
            batcher.estimate(new Prompt("b"));
            CompletableFuture<Estimate> refused = batcher.estimate(new Prompt("c"));
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(10, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, e.getCause());
            estimator.gate.countDown();
        }
        JobEstimator<Prompt> broken = new JobEstimator<>() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public Estimate estimate(Prompt prompt) {
                throw new IllegalStateException("model crashed");
            }
        };
        try (BatchingEstimator batcher = new BatchingEstimator(broken, 8, 10)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> batcher.estimate(new Prompt("x")).get(10, TimeUnit.SECONDS));
            assertEquals("model crashed", e.getCause().getMessage());
            // The worker survives a failing batch.
            assertThrows(ExecutionException.class, () -> batcher.estimate(new Prompt("y")).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void closingAnswersWhatStillWaits() throws Exception {
        GatedBaseline estimator = new GatedBaseline();
        BatchingEstimator batcher = new BatchingEstimator(estimator, 8, 10);
        batcher.estimate(new Prompt("running"));
        assertTrue(estimator.entered.await(10, TimeUnit.SECONDS));
        CompletableFuture<Estimate> waiting = batcher.estimate(new Prompt("waiting"));
        batcher.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, e.getCause());
        estimator.gate.countDown();
    }
}
