package dev.triage.bench.chaos;

import java.io.IOException;
import java.util.Random;

/**
 * One operation of a run: its number, its own random source (so that a run with the same seed does
 * the same things), and what it acts on.
 */
final class Op {

    final int id;
    final Random random;
    final ChaosTarget target;

    Op(int id, Random random, ChaosTarget target) {
        this.id = id;
        this.random = random;
        this.target = target;
    }

    /** The mark of the operation's {@code n}th request, for the {@link ForwardingLedger}. */
    String mark(int n) {
        return id + "." + n;
    }

    HttpConnection connect() throws IOException {
        return HttpConnection.open(target.port(), target.settings().readTimeout());
    }

    /** A request head with the host and the mark, and these further header lines. */
    String head(String method, String requestTarget, String version, String mark, String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(requestTarget).append(' ').append(version)
                .append("\r\nhost: 127.0.0.1:").append(target.port())
                .append("\r\n").append(ForwardingLedger.MARK_HEADER).append(": ").append(mark).append("\r\n");
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        return head.append("\r\n").toString();
    }

    /** A random integer in [from, to]. */
    int between(int from, int to) {
        return from + random.nextInt(to - from + 1);
    }

    /** True with probability {@code p}. */
    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    <T> T pick(T[] choices) {
        return choices[random.nextInt(choices.length)];
    }
}
