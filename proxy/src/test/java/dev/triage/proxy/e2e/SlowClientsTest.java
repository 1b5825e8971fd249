package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Clients that send slowly, or not at all, and too many of them: none holds Triage for long. */
class SlowClientsTest {

    @Test
    void aHeadTrickledByteByByteIsCutOffAfterTheHeaderTimeout() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--client-header-timeout", "1s");
                RawClient slow = new RawClient(triage.port())) {
            slow.send("POST /v1/chat/completions HTTP/1.1\r\n");
            try {
                // A header line every 100 ms: the connection never goes quiet, the head never ends.
                for (int i = 0; i < 300; i++) {
                    slow.send("x-slow-" + i + ": y\r\n");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
            } catch (IOException closed) {
                // cut off, as it should be
            }
            String answer = slow.readRest();
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
            assertTrue(answer.contains("\"code\":\"request_timeout\""), answer);
        }
    }

    @Test
    void aBodyThatNeverComesIsCutOffAfterTheBodyTimeout() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--client-body-timeout", "1s");
                RawClient silent = new RawClient(triage.port())) {
            silent.send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                    + "content-length: 30\r\n\r\n");
            assertEquals("", silent.readRest(), "closed without an answer");
            assertEquals(200, triage.get("/healthz").statusCode());
            assertTrue(backend.requestHeaders().isEmpty(), "nothing was forwarded");
        }
    }

    @Test
    void aConnectionPastTheLimitIsAnswered503AndClosed() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-connections", "2");
                RawClient first = new RawClient(triage.port());
                RawClient second = new RawClient(triage.port())) {
            for (RawClient open : new RawClient[] {first, second}) {
                open.send("GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
                open.readLineStartingWith("HTTP/1.1 200");
            }
            try (RawClient third = new RawClient(triage.port())) {
                String answer = third.readRest();
                assertTrue(answer.startsWith("HTTP/1.1 503"), answer);
                assertTrue(answer.contains("\"code\":\"too_many_connections\""), answer);
            }
            first.close();
            Await.until("a connection is free again", () -> {
                try (RawClient next = new RawClient(triage.port())) {
                    next.send("GET /healthz HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n");
                    return next.readRest().startsWith("HTTP/1.1 200");
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }
}
