package dev.triage.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triage.features.Prompt;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Checks that an estimator called from many threads at once answers as it does from one. */
public final class ConcurrentEstimates {

    private static final String[] WORDS = {"write", "what", "explain", "code", "table", "why", "essay", "list", "brief",
        "detailed", "?"};

    private ConcurrentEstimates() {}

    /** {@code prompts} random prompts of up to {@code maxWords} words, estimated by {@code threads} threads at once. */
    public static void assertSameAsSequential(JobEstimator<Prompt> estimator, int prompts, int maxWords, int threads)
            throws Exception {
        List<Prompt> inputs = new ArrayList<>();
        Random random = new Random(1);
        for (int i = 0; i < prompts; i++) {
            StringBuilder text = new StringBuilder();
            for (int w = random.nextInt(maxWords); w >= 0; w--) {
                text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            inputs.add(new Prompt(text.toString()));
        }
        List<Estimate> sequential = inputs.stream().map(estimator::estimate).toList();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Estimate>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> inputs.stream().map(estimator::estimate).toList()));
            }
            for (Future<List<Estimate>> result : results) {
                assertEquals(sequential, result.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
