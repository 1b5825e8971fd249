package dev.triage.proxy.scheduler.ewsjf;

import dev.triage.proxy.scheduler.Job;
import java.util.Locale;

/**
 * What EWSJF measures a job by: the size its queues partition ({@code b} in the paper's score) and
 * the cost its urgency is normalised by ({@code C(b)}).
 *
 * <ul>
 *   <li>{@code prompt} (the paper's): the prompt's tokens, and the expected prefill seconds. Known
 *       exactly on arrival; says nothing of the answer's length.</li>
 *   <li>{@code estimate}: Triage's expected service time S (from the estimator and the backend's
 *       service-time model), in milliseconds, and S itself as the cost: the queues then group jobs of
 *       similar expected work, and the urgency is HRRN's wait over S.</li>
 * </ul>
 *
 * Queue widths ({@code min-queue-width}, {@code bubble-width}) are in the size's unit: tokens for
 * {@code prompt}, milliseconds for {@code estimate}.
 */
public enum SizeFeature {
    PROMPT {
        @Override
        public double size(Job<?> job) {
            return job.promptTokens();
        }

        @Override
        public double cost(Job<?> job) {
            return job.prefillSeconds();
        }
    },
    ESTIMATE {
        @Override
        public double size(Job<?> job) {
            return job.expectedSeconds() * 1000;
        }

        @Override
        public double cost(Job<?> job) {
            return job.expectedSeconds();
        }
    };

    /** The job's size b, at least 0. */
    public abstract double size(Job<?> job);

    /** The job's cost C(b) in seconds, positive: what its wait is measured against. */
    public abstract double cost(Job<?> job);

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code prompt} or {@code estimate}, any case. */
    public static SizeFeature parse(String value) {
        for (SizeFeature feature : values()) {
            if (feature.label().equalsIgnoreCase(value.trim())) {
                return feature;
            }
        }
        throw new IllegalArgumentException(value);
    }
}
