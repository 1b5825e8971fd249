package dev.triage.proxy.metrics;

/** Hears every scheduled request once, when it ends. Called on event loops: must be quick and thread-safe. */
@FunctionalInterface
public interface RequestObserver {

    void finished(RequestRecord record);

    /** Both observers, in order. */
    default RequestObserver andThen(RequestObserver next) {
        return record -> {
            finished(record);
            next.finished(record);
        };
    }
}
