package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestTargetTest {

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions/", "//v1/chat/completions", "/v1//chat/completions",
        "/v1/chat/%63ompletions", "/v1/chat/completions;x", "/v1/chat%2Fcompletions", "/v1/./chat/completions",
        "/v1/x/../chat/completions", "/v1/chat/completions/?stream=1", "/%76%31/chat/completions"})
    void spellingsABackendWouldServeAsTheRouteHaveItsCanonicalPath(String uri) throws Exception {
        RequestTarget target = RequestTarget.parse(uri);
        assertEquals("/v1/chat/completions", target.canonicalPath());
        assertFalse(target.isCanonical(), uri);
    }

    @Test
    void absoluteFormIsTakenInOriginForm() throws Exception {
        RequestTarget target = RequestTarget.parse("http://triage:8080/v1/chat/completions?x=1");
        assertEquals("/v1/chat/completions?x=1", target.originForm());
        assertTrue(target.isCanonical());
        assertEquals("/?q", RequestTarget.parse("HTTP://host?q").originForm());
        assertEquals("/", RequestTarget.parse("https://host").originForm());
    }

    @Test
    void aPlainPathIsCanonicalAndForwardedAsSent() throws Exception {
        RequestTarget target = RequestTarget.parse("/v1/models?limit=2");
        assertTrue(target.isCanonical());
        assertEquals("/v1/models?limit=2", target.originForm());
        assertTrue(RequestTarget.parse("/").isCanonical());
        assertTrue(RequestTarget.parse("/v1/.well-known/x").isCanonical(), "a segment that only starts with a dot");
    }

    @Test
    void targetsThatAreNotPathsAreUnroutable() {
        assertThrows(RequestTarget.Unroutable.class, () -> RequestTarget.parse("*"));
        assertThrows(RequestTarget.Unroutable.class, () -> RequestTarget.parse("host:443"));
        assertThrows(RequestTarget.Unroutable.class, () -> RequestTarget.parse("v1/chat/completions"));
    }
}
