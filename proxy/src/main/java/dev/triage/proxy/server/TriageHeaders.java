package dev.triage.proxy.server;

import io.netty.util.AsciiString;

/** The headers Triage adds to every scheduled response. */
public final class TriageHeaders {

    /** The expected output tokens the request was scheduled by. */
    public static final AsciiString ESTIMATE_TOKENS = AsciiString.cached("x-triage-estimate-tokens");
    /** Milliseconds the request waited in Triage's queue. */
    public static final AsciiString QUEUE_MS = AsciiString.cached("x-triage-queue-ms");
    /** The request's place in the queue's dispatch order when it arrived (1 is next); 0 when it found a slot at once. */
    public static final AsciiString QUEUE_POSITION = AsciiString.cached("x-triage-queue-position");
    /** Milliseconds the request was expected to wait when it arrived, by the backend's learned service time. */
    public static final AsciiString EXPECTED_WAIT_MS = AsciiString.cached("x-triage-expected-wait-ms");
    /** The id the request goes by in Triage's log and queue view. */
    public static final AsciiString REQUEST_ID = AsciiString.cached("x-triage-request-id");
    /** The scheduling policy in force. */
    public static final AsciiString POLICY = AsciiString.cached("x-triage-policy");

    private TriageHeaders() {}
}
