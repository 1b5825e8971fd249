package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.BaselineEstimator;
import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.config.ClientLimits;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.sizing.ChatEstimation;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.sizing.ChatSizer;
import dev.triage.proxy.upstream.UpstreamPool;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The receiver on an {@link EmbeddedChannel}: routing, Triage's own answers, limits, pipelining and
 * keep-alive, without a network. Every test ends with nothing left unreleased.
 */
class ClientRequestReceiverTest {

    private final List<RequestRecord> records = new CopyOnWriteArrayList<>();
    private final AtomicInteger openExchanges = new AtomicInteger();
    private DispatchLoop dispatchLoop;
    private UpstreamPool pool;
    private EmbeddedChannel channel;

    @BeforeEach
    void setUp() {
        BackendConfig backendConfig = new BackendConfig(URI.create("http://127.0.0.1:9"), 1);
        dispatchLoop = new DispatchLoop(Clock.system());
        pool = new UpstreamPool(backendConfig, Duration.ofSeconds(1), Duration.ofSeconds(30));
        Backend backend = new Backend("chat", backendConfig, pool,
                dispatchLoop.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 10, 1), Duration.ZERO));
        RouteTable routes = RouteTable.standard()
                .local(HttpMethod.GET, "/healthz", LocalRoutes.healthz())
                .local(HttpMethod.GET, "/readyz", LocalRoutes.readyz(() -> false, Map::of))
                .admin(HttpMethod.GET, "/triage/config", LocalRoutes.config(Map.of("policy", "sjf")))
                .build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ServerContext context = new ServerContext(routes,
                Map.of(RouteKind.CHAT, new ScheduledTarget(backend, new ChatSizer(ChatEstimation.ready(new BaselineEstimator(), null,
                        registry::timer, registry::counter)), 256,
                        new BackendLearner("chat/chat", "test", LearnedServiceTime.of(new ServiceTimeModel(0.5, 0.02)), false),
                        PreemptionDialect.OFF, false)),
                () -> backend, Policy.SJF, Duration.ofSeconds(5), new ClientLimits(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5), 100), records::add,
                new AdminAccess("s3cret", "127.0.0.1"), openExchanges,
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), TenantKeys.NONE);
        channel = new EmbeddedChannel(new HttpServerCodec(), new HttpServerKeepAliveHandler(), new ClientHttpVersion(),
                new ClientRequestReceiver(context));
    }

    @AfterEach
    void tearDown() {
        assertFalse(channel.finishAndReleaseAll(), "no message left unreleased in the channel");
        assertEquals(0, openExchanges.get(), "every exchange ended");
        dispatchLoop.close();
        pool.close();
    }

    private void send(String raw) {
        channel.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
    }

    private String response() {
        StringBuilder text = new StringBuilder();
        ByteBuf out;
        while ((out = channel.readOutbound()) != null) {
            text.append(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        return text.toString();
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    @Test
    void localRoutesAnswerAndKeepTheConnection() {
        send("GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
        String first = response();
        assertTrue(first.startsWith("HTTP/1.1 200 OK"), first);
        assertTrue(first.endsWith("{\"status\":\"ok\"}"), first);
        send("GET /readyz?verbose HTTP/1.1\r\nhost: t\r\n\r\n");
        String second = response();
        assertTrue(second.startsWith("HTTP/1.1 503"), second);
        assertTrue(second.contains("\"code\":\"not_ready\""), second);
        assertTrue(channel.isOpen());
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        send("GET /readyz HTTP/1.1\r\nhost: t\r\n\r\nGET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
        String both = response();
        int notReady = both.indexOf("HTTP/1.1 503");
        int ok = both.indexOf("HTTP/1.1 200");
        assertTrue(notReady >= 0 && ok > notReady, both);
    }

    @Test
    void malformedJsonOnAScheduledRouteIs400AndKeepsTheConnection() {
        send(post("/v1/chat/completions", "{\"messages\": [ oops"));
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request"), answer);
        assertTrue(answer.contains("\"type\":\"invalid_request_error\""), answer);
        assertTrue(answer.contains("\"param\":null"), answer);
        assertFalse(answer.contains("x-triage-estimate-tokens"), "no estimate was made");
        assertEquals(0, dispatchLoop.backends().get(0).waitingCount());
        assertTrue(channel.isOpen());
        assertEquals(1, records.size());
        assertEquals(Outcome.REJECTED, records.get(0).outcome());
        assertEquals("invalid_request", records.get(0).reason());
        assertEquals(400, records.get(0).status());
        assertEquals("unknown", records.get(0).classLabel());
    }

    @Test
    void nonIntegerPriorityNamesTheParameter() {
        send(post("/v1/chat/completions", "{\"messages\":[],\"priority\":1.5}"));
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertTrue(answer.contains("\"param\":\"priority\""), answer);
    }

    @Test
    void declaredOversizedBodyIs413AtOnceAndTheRestIsDroppedBeforeTheNextRequest() {
        send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-length: 1000\r\n\r\n{\"messages\":");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(channel.isOpen(), "the client is still sending: reading on lets it see the answer");
        send("x".repeat(1000 - 12) + "GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
        assertTrue(response().startsWith("HTTP/1.1 200"), "the connection goes on after the dropped body");
    }

    @Test
    void chunkedBodyFoundTooLargeMidwayIs413() {
        send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n"
                + "c8\r\n" + "a".repeat(200) + "\r\n" + "c8\r\n" + "b".repeat(200) + "\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        send("0\r\n\r\nGET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
        assertTrue(response().startsWith("HTTP/1.1 200"));
    }

    @Test
    void anEndlessRejectedBodyIsCutOff() {
        send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n");
        String chunk = "100000\r\n" + "z".repeat(0x100000) + "\r\n";
        assertTrue(channel.isOpen());
        for (int i = 0; i < 70 && channel.isOpen(); i++) {
            send(chunk);
        }
        assertTrue(response().startsWith("HTTP/1.1 413"));
        assertFalse(channel.isOpen(), "closed once more than 64 MB of rejected body went by");
    }

    @Test
    void wrongMethodOnALocalRouteIs405() {
        send(post("/healthz", "{}"));
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 405"), answer);
        assertTrue(answer.contains("allow: GET"), answer);
    }

    @Test
    void anUnknownAdminPathIs404AndNeverReachesTheBackend() {
        send("GET /triage/nothing HTTP/1.1\r\nhost: t\r\n\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 404"), answer);
        assertTrue(answer.contains("\"code\":\"not_found\""), answer);
        assertTrue(channel.isOpen());
    }

    @Test
    void malformedHttpIs400AndCloses() {
        send("THIS IS NOT HTTP AT ALL\r\n\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertFalse(channel.isOpen());
    }

    @Test
    void badChunkFramingIs400AndClosesWithoutAnsweringWhatFollows() {
        send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n"
                + "zz\r\n{\"messages\":[]}\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertTrue(answer.contains("connection: close"), answer);
        assertTrue(answer.contains("malformed HTTP request"), answer);
        assertFalse(answer.contains("HTTP/1.1 200"), "nothing after the broken framing is read as a request: " + answer);
        assertFalse(channel.isOpen());
        assertEquals(0, dispatchLoop.backends().get(0).waitingCount(), "never queued, so never forwarded");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET / HTTP/9.9\r\nhost: t\r\n\r\n"})
    void requestLinesOfAnotherHttpMajorVersionAre505AndClose(String requestLine) {
        send(requestLine);
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 505"), answer);
        assertTrue(answer.contains("\"code\":\"http_version_not_supported\""), answer);
        assertFalse(channel.isOpen());
        assertEquals(0, openExchanges.get(), "never handed to an exchange, so never forwarded");
        // An embedded channel closes at once, mid-decode: the request's empty end then meets no handler.
        channel.releaseInbound();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions/", "//v1/chat/completions", "/v1//chat/completions",
        "/v1/chat/%63ompletions", "/v1/chat/completions;x", "/v1/audio/transcriptions/", "/api//chat"})
    void anotherSpellingOfAScheduledRouteIsRefusedNeverPassedThrough(String path) {
        send(post(path, "{\"messages\":[]}"));
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertTrue(answer.contains("is another spelling of"), answer);
        assertTrue(channel.isOpen());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/triage//config", "/triage/%63onfig", "/triage/config/", "//triage/config"})
    void anotherSpellingOfAnAdminPathIsRefusedNeverPassedThrough(String path) {
        send("GET " + path + " HTTP/1.1\r\nhost: t\r\nauthorization: Bearer s3cret\r\n\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertFalse(answer.contains("sjf"), answer);
    }

    @Test
    void anAbsoluteFormTargetIsRoutedByItsPath() {
        send(post("http://triage:8080/v1/chat/completions", "{\"messages\": [ oops"));
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        assertEquals(1, records.size(), "scheduled: sized, and refused for its body");
        assertEquals("/v1/chat/completions", records.get(0).path());
        send("GET http://triage/triage/config HTTP/1.1\r\nhost: t\r\nauthorization: Bearer s3cret\r\n\r\n");
        assertTrue(response().endsWith("{\"policy\":\"sjf\"}"));
    }

    @Test
    void anHttp10ClientIsAnsweredInHttp10() {
        send("GET /healthz HTTP/1.0\r\n\r\n");
        String answer = response();
        assertTrue(answer.startsWith("HTTP/1.0 200"), answer);
        assertTrue(answer.contains("content-length: 15"), answer);
        assertFalse(channel.isOpen(), "HTTP/1.0 without keep-alive closes after the answer");
    }

    @Test
    void aClientLeavingMidBodyLeavesNothingBehind() {
        send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-length: 200\r\n\r\n{\"messages\":[");
        channel.close();
        assertEquals("", response());
    }

    @Test
    void theAdminApiWantsItsToken() {
        send("GET /triage/config HTTP/1.1\r\nhost: t\r\n\r\n");
        String anonymous = response();
        assertTrue(anonymous.startsWith("HTTP/1.1 401"), anonymous);
        assertTrue(anonymous.contains("www-authenticate: Bearer"), anonymous);
        send("GET /triage/config HTTP/1.1\r\nhost: t\r\nauthorization: Bearer wrong\r\n\r\n");
        assertTrue(response().startsWith("HTTP/1.1 401"));
        send("GET /triage/config HTTP/1.1\r\nhost: t\r\nauthorization: Bearer s3cret\r\n\r\n");
        String allowed = response();
        assertTrue(allowed.startsWith("HTTP/1.1 200"), allowed);
        assertTrue(allowed.endsWith("{\"policy\":\"sjf\"}"), allowed);
    }

    @Test
    void connectionCloseIsHonoured() {
        send("GET /healthz HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n");
        assertTrue(response().startsWith("HTTP/1.1 200"));
        assertFalse(channel.isOpen());
    }
}
