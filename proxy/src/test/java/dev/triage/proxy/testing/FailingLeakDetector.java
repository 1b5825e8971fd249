package dev.triage.proxy.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak detector, made to remember what it reports so that {@link LeakCheckExtension} can fail
 * the test class that leaked. Installed for every test JVM by the build
 * ({@code -Dio.netty.customResourceLeakDetector}), with detection at {@code paranoid}.
 */
public final class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new ArrayList<>();

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    // Reports go to the failing test class (with Netty's access records) rather than to the log.
    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        record("LEAK: " + resourceType + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        record("LEAK: " + resourceType + " (no records)");
    }

    private static void record(String leak) {
        synchronized (LEAKS) {
            LEAKS.add(leak);
        }
    }

    /** Leaks reported since the last call. */
    static List<String> takeLeaks() {
        synchronized (LEAKS) {
            List<String> taken = new ArrayList<>(LEAKS);
            LEAKS.clear();
            return taken;
        }
    }
}
