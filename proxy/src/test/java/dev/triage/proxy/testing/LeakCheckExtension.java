package dev.triage.proxy.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty found a leaked buffer while it ran. Registered for every test class
 * through the service loader. After the class, it collects garbage, waits until the collector has
 * queued a sentinel reference (so the leaked buffers' references are queued too), and allocates a
 * few buffers, which is when Netty polls its queue and reports.
 */
public final class LeakCheckExtension implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            fail(leaks.size() + " leaked buffer(s) in " + context.getDisplayName() + ":\n" + String.join("\n", leaks));
        }
    }

    /** Leaks that Netty reports once unreachable buffers have been collected. */
    static List<String> collectLeaks() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            collectGarbage();
            provokeLeakReports();
        }
        return FailingLeakDetector.takeLeaks();
    }

    private static void collectGarbage() throws InterruptedException {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        System.gc();
        if (queue.remove(2_000) == null) {
            System.gc();
        }
        sentinel.clear();
    }

    private static void provokeLeakReports() {
        for (int i = 0; i < 4; i++) {
            ByteBuf pooled = PooledByteBufAllocator.DEFAULT.buffer(8);
            pooled.release();
            ByteBuf unpooled = UnpooledByteBufAllocator.DEFAULT.buffer(8);
            unpooled.release();
        }
    }
}
