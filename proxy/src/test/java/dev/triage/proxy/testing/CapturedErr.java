package dev.triage.proxy.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what is written to {@code System.err} (where Triage's log goes) while it is open, passing it
 * on as well, so that a test can wait for a log line. Open one at a time.
 */
public final class CapturedErr implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    public CapturedErr() {
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (copy) {
                    copy.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                synchronized (copy) {
                    copy.write(bytes, offset, length);
                }
                original.write(bytes, offset, length);
            }
        }, true, StandardCharsets.UTF_8));
    }

    /** Everything written so far. */
    public String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
