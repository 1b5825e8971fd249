package dev.triage.bench.sim;

import dev.triage.bench.workload.WorkloadFile;
import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.SharedData;
import dev.triage.proxy.config.EstimatorConfig;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.sizing.ChatEstimators;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * The workload of {@code simulate run} and {@code simulate sweep}, read from the command line:
 *
 * <ul>
 *   <li>{@code --arrivals poisson} (default; rate from {@code --rho}, or {@code --rate} per second),
 *       {@code burst} (all at t = 0), or {@code trace:FILE} (a real trace's times and output lengths,
 *       time-scaled to {@code --rho} when given).</li>
 *   <li>{@code --sizes clairvoyant} (default: 50/50 N(3.5 s, 0.8 s) / N(8.9 s, 2.0 s)), a distribution of
 *       service seconds {@code normal:MEAN:SD} or {@code gamma:SHAPE:SCALE}, a mix of classes
 *       {@code short@0.8=normal:2:0.5,long@0.2=gamma:4:5}, or real lengths {@code workload:FILE} /
 *       {@code trace:FILE} in tokens.</li>
 *   <li>{@code --service-base}, {@code --service-per-prompt-token} and {@code --service-per-token}:
 *       seconds = base + per-prompt-token × prompt tokens + per-token × tokens, for sizes in tokens
 *       (defaults 0.1 s, 0 and 0.02 s).</li>
 *   <li>{@code --slots} (default 1) and {@code --batch-slowdown} (default 0): the backend, see
 *       {@link SimulatedBackend}.</li>
 *   <li>{@code --estimate exact} (default), {@code lognormal:SIGMA}, {@code classifier:SIGMA}, or the name of one
 *       of Triage's estimators with its shipped model ({@code ranker}, {@code lexical}, {@code classifier},
 *       {@code baseline}), run on the workload file's prompts; or {@code prompt-ceiling}, the other target
 *       models' mean answer to each prompt of a workload built from the shared data
 *       ({@link EstimateModel.OtherAnswers}).</li>
 *   <li>{@code --requests} per run (default 2000).</li>
 *   <li>{@code --prefill-rate} (tokens a second a resume re-reads, default 1000) and
 *       {@code --kv-spare-slots} (KV caches kept for paused jobs, default 0): what preemption costs
 *       (see {@link SimulatedBackend}).</li>
 * </ul>
 */
public final class WorkloadOptions implements AutoCloseable {

    static final String SINGLE_CLASS = "job";

    private final String arrivals;
    private final JobSizes sizes;
    private final TraceFile arrivalTrace;
    private final ServiceTimeModel serviceTime;
    private final EstimateModel estimates;
    private final int requests;
    private final SimulatedBackend backend;
    private final double rate;

    private WorkloadOptions(Flags flags) throws IOException {
        this.serviceTime = new ServiceTimeModel(flags.number("service-base", 0.1), flags.number("service-per-prompt-token", 0),
                flags.number("service-per-token", 0.02));
        this.requests = flags.integer("requests", 2000);
        int slots = flags.integer("slots", 1);
        if (requests < 1 || slots < 1) {
            throw new IllegalArgumentException("--requests " + requests + ", --slots " + slots + " (expected: both >= 1)");
        }
        double prefillRate = flags.number("prefill-rate", SimulatedBackend.DEFAULT_PREFILL_RATE);
        int spareSlots = flags.integer("kv-spare-slots", 0);
        if (!(prefillRate > 0) || spareSlots < 0) {
            throw new IllegalArgumentException("--prefill-rate " + prefillRate + ", --kv-spare-slots " + spareSlots
                    + " (expected: > 0 tokens/s, >= 0)");
        }
        this.backend = new SimulatedBackend(slots, serviceTime.secondsPerToken(), flags.number("batch-slowdown", 0),
                serviceTime.baseSeconds(), prefillRate, spareSlots);
        this.rate = flags.number("rate", Double.NaN);
        this.arrivals = flags.string("arrivals", "poisson");
        String sizeSpec = flags.optional("sizes").orElse(null);
        if (arrivals.startsWith("trace:")) {
            if (sizeSpec != null) {
                throw new IllegalArgumentException("--sizes: " + sizeSpec + " (expected: none with --arrivals trace:, whose sizes come from the trace)");
            }
            this.arrivalTrace = TraceFile.read(Path.of(arrivals.substring("trace:".length())));
            this.sizes = arrivalTrace.sizes(serviceTime);
        } else if (arrivals.equals("poisson") || arrivals.equals("burst")) {
            this.arrivalTrace = null;
            this.sizes = sizes(sizeSpec == null ? "clairvoyant" : sizeSpec, serviceTime);
        } else {
            throw new IllegalArgumentException("--arrivals: " + arrivals + " (expected: poisson, burst or trace:FILE)");
        }
        this.estimates = estimates(flags.string("estimate", "exact"), sizes, serviceTime);
    }

    /** Reads the workload options; the caller still reads its own and calls {@link Flags#finish()}. */
    public static WorkloadOptions fromFlags(Flags flags) throws IOException {
        return new WorkloadOptions(flags);
    }

    /** Closes the estimator that {@code --estimate} loaded, where it named one. */
    @Override
    public void close() {
        if (estimates instanceof EstimateModel.FromEstimator loaded) {
            loaded.estimator().close();
        }
    }

    /** The simulated backend: slots, decoding speed, batch slowdown, and what a resume costs. */
    public SimulatedBackend backend() {
        return backend;
    }

    /** The workload in a line, without its load: {@code poisson arrivals, 2000 requests, 1 slot(s), estimate exact}. */
    public String describe() {
        return arrivals + " arrivals, " + requests + " requests, " + backend.describe() + ", estimate " + estimates.label();
    }

    /** The load {@link #at} gives for ρ, in words. */
    public String load(double rho) {
        if (arrivals.equals("burst")) {
            return "all at t = 0";
        }
        if (!Double.isNaN(rho)) {
            return "ρ = " + rho;
        }
        return arrivalTrace != null ? "the trace's own times" : "λ = " + rate + "/s";
    }

    /**
     * The workload for each seed at utilisation ρ. Poisson arrivals need ρ or {@code --rate}; a trace
     * keeps its real times when ρ is NaN; a burst ignores ρ.
     */
    public LongFunction<Workload> at(double rho) {
        if (arrivalTrace != null) {
            double timeScale = Double.isNaN(rho) ? 1 : arrivalTrace.utilisation(requests, serviceTime, backend.slots()) / rho;
            return seed -> arrivalTrace.workload(requests, serviceTime, timeScale, estimates, seed);
        }
        ArrivalProcess process;
        if (arrivals.equals("burst")) {
            process = new ArrivalProcess.Burst();
        } else if (!Double.isNaN(rho)) {
            process = ArrivalProcess.Poisson.atUtilisation(rho, sizes.meanServiceSeconds(), backend.slots());
        } else if (!Double.isNaN(rate)) {
            process = new ArrivalProcess.Poisson(rate);
        } else {
            throw new IllegalArgumentException("--rho or --rate: missing (expected: the load of Poisson arrivals)");
        }
        return seed -> Workload.synthetic(process, sizes, estimates, requests, seed);
    }

    static JobSizes sizes(String spec, ServiceTimeModel serviceTime) throws IOException {
        if (spec.equals("clairvoyant")) {
            return ClairvoyantTable9.sizes();
        }
        if (spec.startsWith("workload:")) {
            return JobSizes.Resampled.fromWorkload(WorkloadFile.read(Path.of(spec.substring("workload:".length()))), serviceTime);
        }
        if (spec.startsWith("trace:")) {
            return TraceFile.read(Path.of(spec.substring("trace:".length()))).sizes(serviceTime);
        }
        List<JobSizes.ClassMixture.Component> components = new ArrayList<>();
        if (!spec.contains("=")) {
            components.add(new JobSizes.ClassMixture.Component(SINGLE_CLASS, 1, distribution(spec)));
        } else {
            for (String part : spec.split(",")) {
                int at = part.indexOf('@');
                int equals = part.indexOf('=');
                if (at <= 0 || equals < at) {
                    throw new IllegalArgumentException("--sizes: " + part + " (expected: CLASS@WEIGHT=DISTRIBUTION)");
                }
                components.add(new JobSizes.ClassMixture.Component(part.substring(0, at),
                        number("--sizes", part.substring(at + 1, equals)), distribution(part.substring(equals + 1))));
            }
        }
        return new JobSizes.ClassMixture(components);
    }

    static Distribution distribution(String spec) {
        String[] parts = spec.split(":");
        if (parts.length == 3 && parts[0].equals("normal")) {
            return new Distribution.Normal(number("--sizes", parts[1]), number("--sizes", parts[2]));
        }
        if (parts.length == 3 && parts[0].equals("gamma")) {
            return new Distribution.Gamma(number("--sizes", parts[1]), number("--sizes", parts[2]));
        }
        throw new IllegalArgumentException("--sizes: " + spec + " (expected: normal:MEAN:SD or gamma:SHAPE:SCALE, in seconds)");
    }

    static EstimateModel estimates(String spec, JobSizes sizes, ServiceTimeModel serviceTime) throws IOException {
        String[] parts = spec.split(":");
        if (parts.length == 1 && parts[0].equals("exact")) {
            return new EstimateModel.Exact();
        }
        if (parts.length == 1 && parts[0].equals("prompt-ceiling")) {
            return new EstimateModel.OtherAnswers(PromptCorpus.of(PromptResponseLoader.load(SharedData.requirePromptResponse())).prompts(),
                    serviceTime);
        }
        if (parts.length == 1 && EstimatorConfig.NAMES.contains(parts[0])) {
            JobEstimator<Prompt> estimator = ChatEstimators.load(new EstimatorConfig(parts[0], Optional.empty(), BaselineEstimator.NAME,
                    false));
            return new EstimateModel.FromEstimator(estimator, serviceTime);
        }
        if (parts.length == 2 && parts[0].equals("lognormal")) {
            return new EstimateModel.LogNormalNoise(number("--estimate", parts[1]));
        }
        if (parts.length == 2 && parts[0].equals("classifier")) {
            String longClass = EstimateModel.ClassifierNoise.LONG_CLASS;
            double longSeconds = sizes.meanServiceSeconds(longClass::equals);
            double shortSeconds = sizes.meanServiceSeconds(jobClass -> !jobClass.equals(longClass));
            if (Double.isNaN(longSeconds) || Double.isNaN(shortSeconds)) {
                throw new IllegalArgumentException("--estimate: " + spec + " (expected: sizes with a class \"long\" and at least one other)");
            }
            return new EstimateModel.ClassifierNoise(number("--estimate", parts[1]), shortSeconds, longSeconds);
        }
        throw new IllegalArgumentException("--estimate: " + spec + " (expected: exact, lognormal:SIGMA, classifier:SIGMA, prompt-ceiling or one of "
                + EstimatorConfig.NAMES + ")");
    }

    private static double number(String flag, String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": " + text + " (expected: a number)");
        }
    }
}
