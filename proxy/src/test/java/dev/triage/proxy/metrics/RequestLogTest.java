package dev.triage.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class RequestLogTest {

    @Test
    void millisecondsHaveOneDecimalRoundedAsFormattingWould() {
        for (long nanos : new long[] {0, 49_999, 50_000, 123_456, 1_949_000, 999_950_000, 5_261_600_000L, 3_600_000_000_000L}) {
            assertEquals(String.format(Locale.ROOT, "%.1f", nanos / 1e6), RequestLog.appendMillis(new StringBuilder(), nanos).toString(),
                    Long.toString(nanos));
        }
    }
}
