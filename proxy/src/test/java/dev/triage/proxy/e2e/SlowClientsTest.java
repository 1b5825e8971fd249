package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    void aRequestPipelinedBehindALongAnswerIsNotTimedWhileItWaits() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(10));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--client-header-timeout", "1s");
                RawClient client = new RawClient(triage.port())) {
            // The first answer takes 3 s; the second request's head and half its body come with the
            // first, and the rest of its body is read only once the first answer is out. Its answer
            // takes 2 s: time enough for a header timeout wrongly started by that rest to strike.
            String second = ChatRequests.chat("second", 200, false);
            int half = second.length() / 2;
            client.send(post(ChatRequests.chat("long", 300, false), ChatRequests.chat("long", 300, false).length(), "keep-alive")
                    + post(second.substring(0, half), second.length(), "close"));
            Await.until("the first answer is being made", () -> backend.started().contains("long"));
            client.send(second.substring(half));
            Matcher statusLines = Pattern.compile("HTTP/1\\.1 (\\d{3}) ").matcher(client.readRest());
            List<String> statuses = new ArrayList<>();
            while (statusLines.find()) {
                statuses.add(statusLines.group(1));
            }
            assertEquals(List.of("200", "200"), statuses);
            assertEquals(List.of("long", "second"), backend.finished());
        }
    }

    /** A chat request's head, declaring {@code length} bytes of body, and {@code body} (all or part of it). */
    private static String post(String body, int length, String connection) {
        return "POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\nconnection: "
                + connection + "\r\ncontent-length: " + length + "\r\n\r\n" + body;
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
