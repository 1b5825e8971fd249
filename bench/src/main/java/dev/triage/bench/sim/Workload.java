package dev.triage.bench.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The jobs of one simulated run, in arrival order. Every policy of an experiment runs the very same
 * workload, so differences between policies are never differences of luck.
 *
 * <pre>{@code
 * Workload workload = Workload.synthetic(new ArrivalProcess.Poisson(0.12), sizes, new EstimateModel.Exact(), 2000, seed);
 * }</pre>
 */
public record Workload(List<SimRequest> requests) {

    public Workload {
        requests = List.copyOf(requests);
        for (int i = 1; i < requests.size(); i++) {
            if (requests.get(i).arrivalSeconds() < requests.get(i - 1).arrivalSeconds()) {
                throw new IllegalArgumentException("job " + i + " arrives before job " + (i - 1) + " (expected: arrival order)");
            }
        }
    }

    /**
     * Draws {@code count} jobs. Arrivals, sizes and estimates use three independent streams split from
     * the seed, so a different size distribution or estimate model leaves the arrival times unchanged.
     */
    public static Workload synthetic(ArrivalProcess arrivals, JobSizes sizes, EstimateModel estimates, int count, long seed) {
        SplittableRandom root = new SplittableRandom(seed);
        SplittableRandom arrivalStream = root.split();
        SplittableRandom sizeStream = root.split();
        SplittableRandom estimateStream = root.split();
        double[] times = arrivals.times(count, arrivalStream);
        List<JobSize> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            jobs.add(sizes.draw(sizeStream));
        }
        return of(times, jobs, estimates.expectedSeconds(jobs, estimateStream));
    }

    /** A workload of given arrival times and sizes, estimated with a stream of its own from the seed. */
    public static Workload of(double[] times, List<JobSize> jobs, EstimateModel estimates, long seed) {
        return of(times, jobs, estimates.expectedSeconds(jobs, new SplittableRandom(seed)));
    }

    private static Workload of(double[] times, List<JobSize> jobs, double[] estimates) {
        if (times.length != jobs.size() || estimates.length != jobs.size()) {
            throw new IllegalArgumentException(times.length + " arrival times, " + jobs.size() + " jobs, "
                    + estimates.length + " estimates (expected: as many of each)");
        }
        List<SimRequest> requests = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            requests.add(new SimRequest(i, times[i], jobs.get(i), estimates[i]));
        }
        return new Workload(requests);
    }

    public int size() {
        return requests.size();
    }

    /** The classes present, in the order {@code short}, {@code medium}, {@code long}, then others by name. */
    public List<String> classes() {
        return JobClasses.ordered(requests.stream().map(SimRequest::jobClass).distinct().toList());
    }
}
