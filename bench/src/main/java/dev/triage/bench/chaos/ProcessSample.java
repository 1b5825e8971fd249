package dev.triage.bench.chaos;

/**
 * A process's use of the machine at one moment.
 *
 * @param openFiles open file descriptors (sockets included)
 * @param threads live threads
 * @param rssBytes resident memory
 */
record ProcessSample(long openFiles, long threads, long rssBytes) {

    /** The larger of each figure. */
    ProcessSample max(ProcessSample other) {
        if (other == null) {
            return this;
        }
        return new ProcessSample(Math.max(openFiles, other.openFiles), Math.max(threads, other.threads),
                Math.max(rssBytes, other.rssBytes));
    }

    long rssMegabytes() {
        return rssBytes >> 20;
    }
}
