package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptText;
import dev.triage.model.evaluation.PromptCeiling;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

/**
 * What the scheduler is told about each job when it arrives: its expected service time. Oracle
 * policies ignore it and see the true time; every other policy orders jobs by it.
 *
 * <p>A whole workload is estimated in one call, so an estimator that scores a batch faster than one
 * prompt at a time (the ranker's encoder) can do so. Estimates are drawn from their own random stream,
 * so changing the estimate model never changes arrivals or sizes.
 */
public interface EstimateModel {

    /** How the estimate is made, for reports: {@code exact}, {@code lognormal(0.5)}, an estimator's name. */
    String label();

    /** Expected service seconds for each job, in order, each positive. */
    double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random);

    /** The true service time: what an oracle knows. */
    record Exact() implements EstimateModel {
        @Override
        public String label() {
            return "exact";
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            return jobs.stream().mapToDouble(JobSize::serviceSeconds).toArray();
        }
    }

    /**
     * The true time times a log-normal error, {@code S · exp(σZ)} with Z standard normal: a length
     * regressor whose error is proportional to the length. The median estimate is the true time; σ = 0.5
     * puts two estimates in three within a factor 1.65 of the truth.
     */
    record LogNormalNoise(double sigma) implements EstimateModel {
        public LogNormalNoise {
            if (!(sigma >= 0) || Double.isInfinite(sigma)) {
                throw new IllegalArgumentException("sigma: " + sigma + " (expected: >= 0)");
            }
        }

        @Override
        public String label() {
            return String.format(Locale.ROOT, "lognormal(%s)", sigma);
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            double[] seconds = new double[jobs.size()];
            for (int i = 0; i < seconds.length; i++) {
                seconds[i] = jobs.get(i).serviceSeconds() * Math.exp(sigma * random.nextGaussian());
            }
            return seconds;
        }
    }

    /**
     * A short/long classifier, as Clairvoyant's simulator models it: P(long) is 0.9 for a job of class
     * {@code long} and 0.1 for any other, plus Gaussian noise of sd σ, clipped to [0, 1]. The estimate is
     * the expected service time under that probability, {@code (1 − p) · shortSeconds + p · longSeconds},
     * which orders jobs exactly as P(long) does (the paper's simulator sorts by P(long)). Within a class
     * the order is therefore random: the classifier knows the class, not the length.
     */
    record ClassifierNoise(double sigma, double shortSeconds, double longSeconds) implements EstimateModel {

        /** The class a classifier calls long; every other class counts as short. */
        public static final String LONG_CLASS = "long";

        public ClassifierNoise {
            if (!(sigma >= 0) || Double.isInfinite(sigma)) {
                throw new IllegalArgumentException("sigma: " + sigma + " (expected: >= 0)");
            }
            if (!(shortSeconds > 0) || !(longSeconds > shortSeconds)) {
                throw new IllegalArgumentException("class means " + shortSeconds + " s, " + longSeconds
                        + " s (expected: 0 < short < long)");
            }
        }

        @Override
        public String label() {
            return String.format(Locale.ROOT, "classifier(%s)", sigma);
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            double[] seconds = new double[jobs.size()];
            for (int i = 0; i < seconds.length; i++) {
                double truth = LONG_CLASS.equals(jobs.get(i).jobClass()) ? 0.9 : 0.1;
                double longProbability = Math.min(1, Math.max(0, truth + sigma * random.nextGaussian()));
                seconds[i] = shortSeconds + longProbability * (longSeconds - shortSeconds);
            }
            return seconds;
        }
    }

    /**
     * A real estimator run on each job's prompt, its expected tokens turned into seconds by the
     * backend's service-time model. Needs a workload whose sizes carry prompts (a workload file).
     * Each distinct prompt is estimated once: the workloads of every seed draw from the same prompts.
     */
    final class FromEstimator implements EstimateModel {
        private final JobEstimator<Prompt> estimator;
        private final ServiceTimeModel serviceTime;
        private final Map<String, Double> expectedTokens = new ConcurrentHashMap<>();

        public FromEstimator(JobEstimator<Prompt> estimator, ServiceTimeModel serviceTime) {
            this.estimator = Objects.requireNonNull(estimator, "estimator");
            this.serviceTime = Objects.requireNonNull(serviceTime, "serviceTime");
        }

        /** The estimator the prompts are run on. */
        public JobEstimator<Prompt> estimator() {
            return estimator;
        }

        @Override
        public String label() {
            return estimator.name();
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            Set<String> unseen = new LinkedHashSet<>();
            for (JobSize job : jobs) {
                if (job.prompt() == null) {
                    throw new IllegalArgumentException("estimator " + estimator.name()
                            + " needs prompts, but these job sizes have none (use a workload file)");
                }
                if (!expectedTokens.containsKey(job.prompt())) {
                    unseen.add(job.prompt());
                }
            }
            List<String> prompts = List.copyOf(unseen);
            List<Estimate> estimates = estimator.estimateAll(prompts.stream().map(Prompt::new).toList());
            for (int i = 0; i < prompts.size(); i++) {
                expectedTokens.put(prompts.get(i), estimates.get(i).expectedTokens());
            }
            return jobs.stream().mapToDouble(job -> serviceTime.seconds(expectedTokens.get(job.prompt()))).toArray();
        }
    }

    /**
     * A reference, not an estimator: each job estimated at the mean length of the other target models'
     * answers to its prompt ({@link PromptCeiling}), so a policy ordered by it shows what knowing how
     * long a prompt's answers usually are is worth, the most that an estimator reading only the prompt
     * can be expected to know. A job's own answer is its prompt's answer of the job's length: the
     * workload must come from the labeled prompts given (as {@code bench workload} builds one).
     */
    final class OtherAnswers implements EstimateModel {
        private final Map<String, List<LabeledPrompt>> byText;
        private final ServiceTimeModel serviceTime;

        public OtherAnswers(List<LabeledPrompt> prompts, ServiceTimeModel serviceTime) {
            this.byText = prompts.stream().collect(Collectors.groupingBy(p -> PromptText.normalize(p.prompt())));
            this.serviceTime = Objects.requireNonNull(serviceTime, "serviceTime");
        }

        @Override
        public String label() {
            return "prompt-ceiling";
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            return jobs.stream().mapToDouble(job -> serviceTime.seconds(othersMean(job))).toArray();
        }

        private double othersMean(JobSize job) {
            List<LabeledPrompt> labeled = job.prompt() == null ? List.of()
                    : byText.getOrDefault(PromptText.normalize(job.prompt()), List.of());
            for (LabeledPrompt prompt : labeled) {
                for (PromptAnswer answer : prompt.answers()) {
                    if (answer.answerTokens() == job.outputTokens()) {
                        return PromptCeiling.othersMean(prompt, answer).orElseThrow(() -> new IllegalArgumentException(
                                "no other answer to the prompt of a job of " + job.outputTokens() + " tokens"));
                    }
                }
            }
            throw new IllegalArgumentException("no answer of " + job.outputTokens() + " tokens to the prompt \""
                    + (job.prompt() == null ? "" : job.prompt().substring(0, Math.min(60, job.prompt().length())))
                    + "\" in the shared data (the prompt-ceiling needs a workload built from it)");
        }
    }

    /** One estimate a real estimator made of a held-out answer, and the answer's real length. */
    record Measured(double estimatedTokens, double actualTokens) {
        public Measured {
            if (!(estimatedTokens > 0) || !(actualTokens > 0)) {
                throw new IllegalArgumentException("estimate " + estimatedTokens + ", actual " + actualTokens + " (expected: both > 0)");
            }
        }
    }

    /**
     * A real estimator's errors, moved onto jobs that have no prompt (a trace's, a synthetic mix's):
     * a job of true length L tokens borrows the estimate of one of the {@link #NEIGHBOURS} held-out
     * answers whose real length is nearest L (in ratio, drawn at random), scaled by L over that
     * answer's length. An estimator's error depends on the length (the ranker's estimates shrink
     * towards the middle, the classifier's cluster on its classes), so borrowing from answers of the
     * same length keeps both its ranking and its bias.
     *
     * @param label the estimator's name, for reports
     * @param measured the estimator's estimates of held-out answers, with their real lengths
     * @param serviceTime turns a job's seconds into tokens and the borrowed tokens back into seconds
     */
    record Transplanted(String label, List<Measured> measured, ServiceTimeModel serviceTime) implements EstimateModel {

        /** How many answers of nearby length a job borrows from. */
        public static final int NEIGHBOURS = 10;

        public Transplanted {
            if (measured.size() < NEIGHBOURS) {
                throw new IllegalArgumentException(measured.size() + " measured estimates (expected: at least " + NEIGHBOURS + ")");
            }
            measured = measured.stream().sorted(Comparator.comparingDouble(Measured::actualTokens)).toList();
        }

        @Override
        public double[] expectedSeconds(List<JobSize> jobs, RandomGenerator random) {
            double[] seconds = new double[jobs.size()];
            for (int i = 0; i < seconds.length; i++) {
                double tokens = Math.max(1, (jobs.get(i).serviceSeconds() - serviceTime.baseSeconds()) / serviceTime.secondsPerToken());
                Measured lender = measured.get(nearest(tokens) + random.nextInt(NEIGHBOURS));
                seconds[i] = serviceTime.seconds(lender.estimatedTokens() * tokens / lender.actualTokens());
            }
            return seconds;
        }

        /** The first of the {@link #NEIGHBOURS} measured answers nearest {@code tokens} in log length. */
        private int nearest(double tokens) {
            int low = 0;
            int high = measured.size();
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (measured.get(middle).actualTokens() < tokens) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            int from = low;
            int to = low;
            double logTokens = Math.log(tokens);
            while (to - from < NEIGHBOURS) {
                boolean canLeft = from > 0;
                boolean canRight = to < measured.size();
                if (canLeft && (!canRight || logTokens - Math.log(measured.get(from - 1).actualTokens())
                        <= Math.log(measured.get(to).actualTokens()) - logTokens)) {
                    from--;
                } else {
                    to++;
                }
            }
            return from;
        }
    }
}
