package dev.triage.bench.overhead;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * CPU time used so far by the live threads whose names start with a prefix: Triage's own threads, in
 * a process that runs its clients and its backend too. Triage's threads live as long as it does, and
 * ONNX Runtime runs on the thread that calls it, so their sum is Triage's whole CPU time.
 */
final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {}

    static long nanos(String namePrefix) {
        long total = 0;
        for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (thread != null && thread.getThreadName().startsWith(namePrefix)) {
                total += Math.max(0, THREADS.getThreadCpuTime(thread.getThreadId())); // -1 once it has ended
            }
        }
        return total;
    }
}
