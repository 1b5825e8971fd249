package dev.triage.proxy.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

class LeakCheckExtensionTest {

    @Test
    void detectionRunsAtParanoidWithTheFailingDetector() {
        assertTrue(ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID,
                "the build must run tests with -Dio.netty.leakDetection.level=paranoid");
    }

    @Test
    void anUnreleasedBufferIsReported() throws Exception {
        leakOneBuffer();
        var leaks = LeakCheckExtension.collectLeaks();
        assertFalse(leaks.isEmpty(), "a buffer dropped without release() must be reported");
        assertTrue(leaks.get(0).startsWith("LEAK: "), leaks.get(0));
    }

    private static void leakOneBuffer() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(64);
        leaked.writeLong(42);
        // Dropped on purpose.
    }
}
