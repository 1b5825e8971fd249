package dev.triage.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a run's log scan counts: leaks, stack traces (once each), prompts, warnings and the request log's outcomes. */
class LogScanTest {

    private final LogScan scan = new LogScan("canary42", new Examples(2));

    @Test
    void countsEachProblemOnceAndTheOutcomes() {
        scan.accept("2026-11-24T14:35:09.838Z [INFO] requests - id=1 route=/v1/chat/completions status=400 outcome=rejected "
                + "reason=invalid_request");
        scan.accept("2026-11-24T14:35:10.484Z [INFO] requests - id=2 route=/v1/chat/completions status=- outcome=client_gone");
        scan.accept("2026-11-24T14:35:10.500Z [INFO] requests - id=3 route=/v1/completions status=200 outcome=ok");
        scan.accept("2026-11-24T14:35:11.000Z [ERROR] ResourceLeakDetector - LEAK: ByteBuf.release() was not called");
        scan.accept("java.lang.IllegalStateException: boom");
        scan.accept("\tat dev.triage.proxy.server.ScheduledExchange.start(ScheduledExchange.java:42)");
        scan.accept("\tat io.netty.channel.AbstractChannelHandlerContext.invokeChannelRead(AbstractChannelHandlerContext.java:1)");
        scan.accept("Caused by: java.io.IOException: reset");
        scan.accept("\tat java.base/sun.nio.ch.SocketDispatcher.read0(Native Method)");
        scan.accept("2026-11-24T14:35:12.000Z [WARN] UpstreamCall - body of canary42 11 sent");
        scan.accept("\tat dev.triage.proxy.Main.main(Main.java:9)");

        LogScan.Tally tally = scan.tally();

        assertEquals(11, tally.lines());
        assertEquals(1, tally.leaks());
        assertEquals(2, tally.stackTraces(), "a trace's frames and its causes count once; a trace after another line again");
        assertEquals(1, tally.prompts());
        assertEquals(2, tally.warnings());
        assertEquals(Map.of("rejected (invalid_request)", 1L, "client_gone", 1L, "ok", 1L), tally.outcomes());
    }
}
