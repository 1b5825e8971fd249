package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.upstream.UpstreamCall.Ending;
import org.junit.jupiter.api.Test;

class UpstreamFailureTest {

    @Test
    void eachFailingEndingHasItsStatusCodeAndOutcome() {
        assertEquals(502, UpstreamFailure.of(Ending.UNREACHABLE).error().status().code());
        assertEquals("backend_unreachable", UpstreamFailure.of(Ending.UNREACHABLE).error().code());
        assertEquals(Outcome.UPSTREAM_ERROR, UpstreamFailure.of(Ending.UNREACHABLE).outcome());
        assertEquals(504, UpstreamFailure.of(Ending.TIMEOUT).error().status().code());
        assertEquals("upstream_timeout", UpstreamFailure.of(Ending.TIMEOUT).error().code());
        assertEquals(Outcome.TIMEOUT, UpstreamFailure.of(Ending.TIMEOUT).outcome());
        assertEquals(502, UpstreamFailure.of(Ending.BROKEN).error().status().code());
        assertEquals("backend_error", UpstreamFailure.of(Ending.BROKEN).error().code());
        assertEquals(Outcome.UPSTREAM_ERROR, UpstreamFailure.of(Ending.BROKEN).outcome());
    }

    @Test
    void successAndCancellationAreNotFailures() {
        assertThrows(IllegalArgumentException.class, () -> UpstreamFailure.of(Ending.OK));
        assertThrows(IllegalArgumentException.class, () -> UpstreamFailure.of(Ending.CANCELLED));
    }
}
