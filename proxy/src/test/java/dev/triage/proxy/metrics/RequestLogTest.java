package dev.triage.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.Estimate;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RequestLogTest {

    @Test
    void millisecondsHaveOneDecimalRoundedAsFormattingWould() {
        for (long nanos : new long[] {0, 49_999, 50_000, 123_456, 1_949_000, 999_950_000, 5_261_600_000L, 3_600_000_000_000L}) {
            assertEquals(String.format(Locale.ROOT, "%.1f", nanos / 1e6), RequestLog.appendMillis(new StringBuilder(), nanos).toString(),
                    Long.toString(nanos));
        }
    }

    /**
     * A log that cannot be written stops no request: the lines wait for the writer, up to a bound,
     * and beyond it are dropped and counted; those that waited are written once it can.
     */
    @Test
    void aStalledLogHoldsNoRequestBackAndDropsWhatItCannotHold() throws Exception {
        CountDownLatch writable = new CountDownLatch(1);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                try {
                    writable.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (written) {
                    written.write(bytes, offset, length);
                }
            }
        }, true, StandardCharsets.UTF_8));
        int sent = RequestLog.WAITING + 50;
        RequestLog log = new RequestLog();
        try {
            for (int i = 0; i < sent; i++) {
                log.finished(completed("r" + i));
            }
            // The first line is being written (and blocks), up to WAITING wait, the rest are dropped.
            assertTrue(log.dropped() >= 49 && log.dropped() <= 50, "dropped: " + log.dropped());
            writable.countDown();
            log.close();
        } finally {
            System.setErr(original);
        }
        String text;
        synchronized (written) {
            text = written.toString(StandardCharsets.UTF_8);
        }
        assertEquals(sent - log.dropped(), text.lines().filter(line -> line.contains(" outcome=ok")).count());
        assertTrue(text.contains("id=r0 route=/v1/chat/completions kind=chat class=short estimate=120 actual=80 priority=0 "
                + "queue_ms=2.0 total_ms=9.0 status=200 outcome=ok"), text.lines().findFirst().orElse(""));
    }

    private static RequestRecord completed(String id) {
        RequestRecord record = new RequestRecord(id, "/v1/chat/completions", "chat", "chat", 0);
        record.sized(Estimate.ofTokens(120), 0, 120, false, 40, OptionalInt.empty());
        record.dispatched(2_000_000, false, 1);
        record.responded(200);
        record.actualTokens(OptionalLong.of(80));
        record.end(Outcome.OK, null, 9_000_000);
        return record;
    }
}
