package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.List;

/** Test helpers that run a scheduler's decisions. */
public final class Dispatches {

    private Dispatches() {}

    /** Sends every waiting job, one slot at a time, releasing each at once; returns the payloads in the order sent. */
    public static <T> List<T> drainOneByOne(Scheduler<T> scheduler) {
        List<T> order = new ArrayList<>();
        Dispatch<T> next;
        while ((next = scheduler.dispatchNext()) != null) {
            order.add(next.job().payload());
            scheduler.release(next);
        }
        return order;
    }
}
