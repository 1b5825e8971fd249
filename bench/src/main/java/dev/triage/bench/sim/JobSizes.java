package dev.triage.bench.sim;

import dev.triage.features.PromptTokens;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.bench.workload.WorkloadEntry;
import java.util.List;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/** Where a synthetic workload's job sizes come from. */
public interface JobSizes {

    JobSize draw(RandomGenerator random);

    /** E[S], the mean service time, which sets the arrival rate for a target utilisation. */
    default double meanServiceSeconds() {
        return meanServiceSeconds(jobClass -> true);
    }

    /** The mean service time of the jobs whose class passes the filter. */
    double meanServiceSeconds(Predicate<String> jobClass);

    /**
     * Classes with fixed shares, each with its own service-time distribution: Clairvoyant's 50/50
     * mix of N(3.5 s, 0.8 s) short and N(8.9 s, 2.0 s) long jobs is two components.
     */
    record ClassMixture(List<Component> components) implements JobSizes {

        /** One class of the mixture: its name, its share (any positive weight) and its service time. */
        public record Component(String jobClass, double weight, Distribution seconds) {
            public Component {
                if (!(weight > 0) || Double.isInfinite(weight)) {
                    throw new IllegalArgumentException("weight of " + jobClass + ": " + weight + " (expected: > 0)");
                }
            }
        }

        public ClassMixture {
            if (components.isEmpty()) {
                throw new IllegalArgumentException("a mixture needs at least one class");
            }
            components = List.copyOf(components);
        }

        @Override
        public JobSize draw(RandomGenerator random) {
            double pick = random.nextDouble() * totalWeight();
            Component chosen = components.get(components.size() - 1);
            for (Component component : components) {
                pick -= component.weight();
                if (pick < 0) {
                    chosen = component;
                    break;
                }
            }
            return JobSize.of(chosen.jobClass(), chosen.seconds().sample(random));
        }

        @Override
        public double meanServiceSeconds(Predicate<String> jobClass) {
            double weighted = 0;
            double weights = 0;
            for (Component component : components) {
                if (jobClass.test(component.jobClass())) {
                    weighted += component.weight() * component.seconds().mean();
                    weights += component.weight();
                }
            }
            return weighted / weights;
        }

        private double totalWeight() {
            return components.stream().mapToDouble(Component::weight).sum();
        }
    }

    /**
     * Real sizes drawn uniformly with replacement: the answers of a workload file, or the output token
     * counts of a trace, turned into seconds by a service-time model.
     */
    record Resampled(List<JobSize> sizes) implements JobSizes {

        public Resampled {
            if (sizes.isEmpty()) {
                throw new IllegalArgumentException("no sizes to resample");
            }
            sizes = List.copyOf(sizes);
        }

        /** The answers of a workload file, with their prompts and classes. */
        public static Resampled fromWorkload(List<WorkloadEntry> entries, ServiceTimeModel serviceTime) {
            return new Resampled(entries.stream()
                    .map(entry -> JobSize.ofTokens(entry.jobClass(), PromptTokens.approximate(entry.prompt()), entry.answerTokens(),
                            serviceTime, entry.prompt()))
                    .toList());
        }

        @Override
        public JobSize draw(RandomGenerator random) {
            return sizes.get(random.nextInt(sizes.size()));
        }

        @Override
        public double meanServiceSeconds(Predicate<String> jobClass) {
            return sizes.stream().filter(size -> jobClass.test(size.jobClass()))
                    .mapToDouble(JobSize::serviceSeconds).average().orElse(Double.NaN);
        }
    }
}
