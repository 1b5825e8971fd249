package dev.triage.bench.chaos;

import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The kinds of operation a run draws from, each with its weight in the mix. The weights keep rare the
 * kinds that hold a backend slot for a timeout (a stall, a client that stops reading), so that one
 * slot still serves the rest of the mix; {@link #alone() alone} kinds need Triage to themselves while
 * they run.
 */
enum FaultKind {
    ANSWERED("backend", 150, BackendFaults::answered),
    ERROR_STATUS("backend", 40, BackendFaults::errorStatus),
    GARBAGE("backend", 25, BackendFaults::garbage),
    RESET("backend", 25, BackendFaults::reset),
    DIES_BEFORE_THE_ANSWER("backend", 25, BackendFaults::diesBeforeTheAnswer),
    STALL("backend", 1, BackendFaults::stall),
    DIES_MID_STREAM("backend", 30, BackendFaults::diesMidStream),
    RESETS_MID_STREAM("backend", 30, BackendFaults::resetsMidStream),
    STALLS_MID_STREAM("backend", 1, BackendFaults::stallsMidStream),
    BURST_AFTER_IDLE("backend", 1, PoolFaults::burstAfterIdle),
    LEAVES_EARLY("client", 60, ClientFaults::leavesEarly),
    LEAVES_MID_STREAM("client", 40, ClientFaults::leavesMidStream),
    STOPS_READING("client", 2, ClientFaults::stopsReading),
    READS_SLOWLY("client", 15, ClientFaults::readsSlowly),
    MALFORMED_JSON("body", 40, BodyFaults::malformed),
    DEEPLY_NESTED_JSON("body", 25, BodyFaults::deeplyNested),
    ODD_JSON("body", 25, BodyFaults::oddTypes),
    CONTENT_LENGTH_TOO_LONG("protocol", 4, ProtocolFaults::contentLengthTooLong),
    CONTENT_LENGTH_TOO_SHORT("protocol", 20, ProtocolFaults::contentLengthTooShort),
    BAD_CHUNK_FRAMING("protocol", 25, ProtocolFaults::badChunkFraming),
    LENGTH_AND_CHUNKED("protocol", 20, ProtocolFaults::lengthAndChunked),
    HEADERS_TRICKLED_SLOWLY("protocol", 3, ProtocolFaults::headersTrickledSlowly),
    HEADERS_TRICKLED_QUICKLY("protocol", 20, ProtocolFaults::headersTrickledQuickly),
    BAD_REQUEST_LINE("protocol", 30, ProtocolFaults::badRequestLine),
    OVERSIZED_BODY("protocol", 10, ProtocolFaults::oversizedBody),
    PIPELINED("protocol", 40, ProtocolFaults::pipelined),
    HTTP_1_0("protocol", 40, ProtocolFaults::http10),
    LOCAL_ROUTE("route", 40, RouteFaults::local),
    PASSED_THROUGH("route", 40, RouteFaults::passedThrough),
    SCHEDULED_ROUTE_SPELLING("route", 40, RouteFaults::scheduledSpelling),
    ADMIN_PATH_SPELLING("route", 20, RouteFaults::adminSpelling),
    AUDIO_VALID("audio", 40, AudioFaults::valid),
    AUDIO_HOSTILE("audio", 40, AudioFaults::hostile),
    AUDIO_BROKEN_FORM("audio", 20, AudioFaults::brokenForm),
    AUDIO_OVERSIZED("audio", 5, AudioFaults::oversized);

    /** What an operation of a kind does, and what it saw. */
    @FunctionalInterface
    interface Action {
        Verdict run(Op op) throws IOException;
    }

    private final String family;
    private final int weight;
    private final Action action;

    FaultKind(String family, int weight, Action action) {
        this.family = family;
        this.weight = weight;
        this.action = action;
    }

    /** Its name on the command line and in reports: {@code bad-chunk-framing}. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-').replace("http-1-0", "http/1.0");
    }

    /** What fails in it: the backend, the client, the request body or framing, the route, or an upload. */
    String family() {
        return family;
    }

    Verdict run(Op op) throws IOException {
        return action.run(op);
    }

    /** True for a kind that needs no other traffic while it runs: it waits out the backend's keep-alive. */
    boolean alone() {
        return this == BURST_AFTER_IDLE;
    }

    /** The kind named {@code label}, as {@link #label()} writes it. */
    static FaultKind of(String label) {
        for (FaultKind kind : values()) {
            if (kind.label().equals(label)) {
                return kind;
            }
        }
        throw new IllegalArgumentException(label + " (expected one of: "
                + Arrays.stream(values()).map(FaultKind::label).collect(Collectors.joining(", ")) + ")");
    }

    /** The kinds named in a list of labels. */
    static Set<FaultKind> of(List<String> labels) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        labels.forEach(label -> kinds.add(of(label)));
        return kinds;
    }

    /** A kind of {@code kinds}, drawn by weight. */
    static FaultKind draw(Set<FaultKind> kinds, Random random) {
        int total = kinds.stream().mapToInt(kind -> kind.weight).sum();
        int at = random.nextInt(total);
        for (FaultKind kind : kinds) {
            at -= kind.weight;
            if (at < 0) {
                return kind;
            }
        }
        throw new IllegalStateException("weights sum to " + total);
    }
}
