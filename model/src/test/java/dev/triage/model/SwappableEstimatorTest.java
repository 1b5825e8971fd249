package dev.triage.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SwappableEstimatorTest {

    /** Estimates a text by its length times a factor, and counts its closes: a stand-in for a model's sessions. */
    private static final class CountedModel implements JobEstimator<String> {
        private final double factor;
        private final AtomicInteger closes = new AtomicInteger();

        CountedModel(double factor) {
            this.factor = factor;
        }

        @Override
        public String name() {
            return "counted";
        }

        @Override
        public Estimate estimate(String input) {
            return Estimate.ofTokens(factor * input.length());
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void aSwapServesTheNewModelAndClosesTheOldOnce() {
        CountedModel first = new CountedModel(1);
        CountedModel second = new CountedModel(2);
        SwappableEstimator<String> estimator = new SwappableEstimator<>(first);
        assertEquals(4, estimator.estimate("four").expectedTokens(), 1e-9);
        estimator.swap(second);
        assertEquals(8, estimator.estimate("four").expectedTokens(), 1e-9);
        assertEquals(1, first.closes.get());
        estimator.close();
        estimator.close();
        assertEquals(1, second.closes.get(), "closed once, however often the estimator is");
    }

    @Test
    void aCallAfterCloseFailsAtOnceAndASwapThenClosesWhatItWasGiven() {
        CountedModel model = new CountedModel(1);
        SwappableEstimator<String> estimator = new SwappableEstimator<>(model);
        estimator.close();
        // It spun forever here, looking for a lease that no swap would ever install.
        IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(IllegalStateException.class, () -> estimator.estimate("late")));
        assertEquals("the estimator is closed", e.getMessage());

        CountedModel late = new CountedModel(2);
        assertThrows(IllegalStateException.class, () -> estimator.swap(late));
        assertEquals(1, late.closes.get());
        assertEquals(1, model.closes.get());
    }
}
