package dev.triage.bench.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Preemptive shortest-remaining-processing-time on true sizes, with free preemption: at every
 * moment the {@code slots} jobs with the least remaining service run. On one server it minimises the
 * mean sojourn time over all schedules (Schrage 1968), so it is the bound no real policy reaches:
 * it needs every job's true size, and it pauses and resumes jobs at no cost. The proxy has no such
 * policy; the simulator runs it here, outside the production scheduler.
 */
final class SrptBound {

    private SrptBound() {}

    static SimulationRun run(Workload workload, PolicyVariant variant, SimulatedBackend backend) {
        List<SimRequest> requests = workload.requests();
        PriorityQueue<Present> present = new PriorityQueue<>(
                Comparator.comparingLong((Present p) -> p.remainingNanos).thenComparingInt(p -> p.request.id()));
        List<CompletedRequest> completed = new ArrayList<>(requests.size());
        List<Present> servedBefore = List.of();
        long pauses = 0;
        int next = 0;
        long now = 0;
        while (next < requests.size() || !present.isEmpty()) {
            List<Present> served = new ArrayList<>(backend.slots());
            while (served.size() < backend.slots() && !present.isEmpty()) {
                served.add(present.poll());
            }
            for (Present job : servedBefore) {
                if (job.remainingNanos > 0 && !served.contains(job)) {
                    pauses++;
                }
            }
            long event = next < requests.size() ? Simulation.nanos(requests.get(next).arrivalSeconds()) : Long.MAX_VALUE;
            for (Present job : served) {
                event = Math.min(event, now + job.remainingNanos);
            }
            for (Present job : served) {
                if (job.startNanos < 0) {
                    job.startNanos = now;
                }
                job.remainingNanos -= event - now;
            }
            now = event;
            for (Present job : served) {
                if (job.remainingNanos <= 0) {
                    double start = job.startNanos / 1e9;
                    double finish = now / 1e9;
                    completed.add(new CompletedRequest(job.request, Simulation.nanos(job.request.arrivalSeconds()) / 1e9, start,
                            Math.min(finish, start + job.request.size().prefillSeconds()), finish, false));
                } else {
                    present.add(job);
                }
            }
            while (next < requests.size() && Simulation.nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next++);
                present.add(new Present(request, Math.max(1, Simulation.nanos(request.serviceSeconds()))));
            }
            servedBefore = served;
        }
        return new SimulationRun(variant, backend.slots(), completed, 0, pauses, pauses, 0, List.of(), null);
    }

    private static final class Present {
        private final SimRequest request;
        private long remainingNanos;
        private long startNanos = -1;

        Present(SimRequest request, long serviceNanos) {
            this.request = request;
            this.remainingNanos = serviceNanos;
        }
    }
}
