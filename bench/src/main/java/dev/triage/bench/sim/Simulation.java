package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A discrete-event simulation of one backend: jobs arrive, wait in the production {@link Scheduler}
 * on a virtual clock, and hold one of {@code slots} servers for their true service time. The policy
 * code is the proxy's own; this class only moves time and feeds it events.
 *
 * <p>All events at the same instant are applied before the scheduler decides: slots that free up,
 * then arrivals, then as many dispatches as free slots allow. So jobs that arrive together (a burst)
 * are all in the queue when the first of them is chosen, and a job arriving the moment a slot frees
 * competes for it.
 *
 * <pre>{@code
 * SimulationRun run = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), 1);
 * }</pre>
 */
public final class Simulation {

    private Simulation() {}

    /** Runs the workload to the end: every job completes (the queue is as long as the workload). */
    public static SimulationRun run(Workload workload, PolicyVariant variant, int slots) {
        VirtualClock clock = new VirtualClock();
        SchedulerSettings settings = new SchedulerSettings(variant.policy(), variant.starvationTimeout(),
                Math.max(1, workload.size()), slots);
        Scheduler<SimRequest> scheduler = new Scheduler<>(settings, clock);
        PriorityQueue<Running> running = new PriorityQueue<>(
                Comparator.comparingLong(Running::finishNanos).thenComparingInt(r -> r.request().id()));
        List<SimRequest> requests = workload.requests();
        List<CompletedRequest> completed = new ArrayList<>(requests.size());
        int next = 0;
        while (next < requests.size() || !running.isEmpty()) {
            long now = Long.MAX_VALUE;
            if (next < requests.size()) {
                now = nanos(requests.get(next).arrivalSeconds());
            }
            if (!running.isEmpty()) {
                now = Math.min(now, running.peek().finishNanos());
            }
            clock.moveTo(now);
            while (!running.isEmpty() && running.peek().finishNanos() == now) {
                Running done = running.poll();
                scheduler.release(done.dispatch());
                completed.add(done.complete());
            }
            while (next < requests.size() && nanos(requests.get(next).arrivalSeconds()) == now) {
                SimRequest request = requests.get(next++);
                // Tokens play no part in ordering (policies compare seconds); the proxy only reports them.
                scheduler.submit(request, 0, 0, variant.expectedSeconds(request)).orElseThrow();
            }
            Dispatch<SimRequest> dispatch;
            while ((dispatch = scheduler.dispatchNext()) != null) {
                running.add(new Running(dispatch, now + Math.max(1, nanos(dispatch.job().payload().serviceSeconds()))));
            }
        }
        return new SimulationRun(variant, slots, completed, scheduler.starvationPromotions());
    }

    static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    private record Running(Dispatch<SimRequest> dispatch, long finishNanos) {
        SimRequest request() {
            return dispatch.job().payload();
        }

        CompletedRequest complete() {
            return new CompletedRequest(request(), dispatch.job().arrivalNanos() / 1e9, dispatch.dispatchedNanos() / 1e9,
                    finishNanos / 1e9, dispatch.starvationPromoted());
        }
    }
}
