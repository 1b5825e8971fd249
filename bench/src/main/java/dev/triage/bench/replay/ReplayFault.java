package dev.triage.bench.replay;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Locale;

/**
 * A way to misbehave that a request asks of the replay backend in its {@value #HEADER} header: the
 * failures of a model server that a proxy in front of it must survive, for fault-injection runs.
 *
 * <ul>
 *   <li>{@code status=CODE}: answers CODE at once, with an OpenAI-style error body;</li>
 *   <li>{@code garbage}: writes bytes that are not HTTP, then closes the connection;</li>
 *   <li>{@code reset}: resets the connection (TCP RST) without answering;</li>
 *   <li>{@code stall}: never answers, and keeps the connection open;</li>
 *   <li>{@code die-after=N}, {@code reset-after=N}, {@code stall-after=N}: the answer starts as usual;
 *       after N tokens (streamed, N events; in one body, before it is written) the connection is
 *       closed, reset, or falls silent.</li>
 * </ul>
 *
 * @param kind what goes wrong
 * @param afterTokens for the {@code -after} kinds, the tokens produced before it does
 * @param status for {@link Kind#STATUS}, the status answered
 */
record ReplayFault(Kind kind, int afterTokens, int status) {

    static final String HEADER = "x-replay-fault";

    enum Kind { STATUS, GARBAGE, RESET, STALL, DIE_AFTER, RESET_AFTER, STALL_AFTER }

    /** The fault a request asks for; null when it asks for none. */
    static ReplayFault of(HttpHeaders headers) throws RequestReader.BadRequestException {
        String value = headers.get(HEADER);
        if (value == null) {
            return null;
        }
        String spec = value.trim().toLowerCase(Locale.ROOT);
        int equals = spec.indexOf('=');
        String name = equals < 0 ? spec : spec.substring(0, equals);
        String argument = equals < 0 ? null : spec.substring(equals + 1);
        return switch (name) {
            case "garbage" -> new ReplayFault(Kind.GARBAGE, 0, 0);
            case "reset" -> new ReplayFault(Kind.RESET, 0, 0);
            case "stall" -> new ReplayFault(Kind.STALL, 0, 0);
            case "status" -> new ReplayFault(Kind.STATUS, 0, number(value, argument, 100, 599));
            case "die-after" -> new ReplayFault(Kind.DIE_AFTER, number(value, argument, 0, Integer.MAX_VALUE), 0);
            case "reset-after" -> new ReplayFault(Kind.RESET_AFTER, number(value, argument, 0, Integer.MAX_VALUE), 0);
            case "stall-after" -> new ReplayFault(Kind.STALL_AFTER, number(value, argument, 0, Integer.MAX_VALUE), 0);
            default -> throw unknown(value);
        };
    }

    /** True for the faults that strike before the answer starts. */
    boolean immediate() {
        return kind == Kind.STATUS || kind == Kind.GARBAGE || kind == Kind.RESET || kind == Kind.STALL;
    }

    private static int number(String value, String argument, int min, int max) throws RequestReader.BadRequestException {
        try {
            int n = Integer.parseInt(argument);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw unknown(value);
    }

    private static RequestReader.BadRequestException unknown(String value) {
        return new RequestReader.BadRequestException(HEADER + ": " + value + " (expected: status=CODE, garbage, reset, stall, "
                + "die-after=N, reset-after=N or stall-after=N)", null);
    }
}
