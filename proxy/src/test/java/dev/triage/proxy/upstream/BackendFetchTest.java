package dev.triage.proxy.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Triage's own small requests to a real socket backend: the answer in memory, or why there is none. */
class BackendFetchTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private FakeOpenAiBackend backend;
    private Channel beside;

    @BeforeEach
    void start() throws Exception {
        backend = FakeOpenAiBackend.start(1, Duration.ZERO);
        beside = new NioSocketChannel(); // never connected: a fetch writes nothing to it
        group.next().register(beside).sync();
    }

    @AfterEach
    void stop() throws Exception {
        beside.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        backend.close();
    }

    /** The fetch's answer, or the exception it failed with; the pool is closed off the event loop afterwards. */
    private byte[] fetch(String url, String body) throws Exception {
        BackendConfig config = new BackendConfig(URI.create(url), 1);
        try (UpstreamPool pool = new UpstreamPool(config, Duration.ofSeconds(5), Duration.ofMinutes(1))) {
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            beside.eventLoop().execute(() -> {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions",
                        Unpooled.wrappedBuffer(bytes));
                request.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                HttpUtil.setContentLength(request, bytes.length);
                BackendFetch.start(pool, config, beside, request, Duration.ofSeconds(30)).whenComplete((bytesBack, failure) -> {
                    if (failure == null) {
                        answer.complete(bytesBack);
                    } else {
                        answer.completeExceptionally(failure);
                    }
                });
            });
            return answer.get(30, TimeUnit.SECONDS);
        }
    }

    private String failure(String url, String body) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> fetch(url, body));
        return failed.getCause().getMessage();
    }

    @Test
    void aWholeAnswerOf200IsKeptInMemory() throws Exception {
        JsonNode answer = JSON.readTree(fetch(backend.url(), ChatRequests.chat("hello", 3, false)));
        assertEquals("t t t", answer.path("choices").path(0).path("message").path("content").asText());
    }

    @Test
    void anyOtherAnswerOrNoneIsAFailureThatSaysWhy() throws Exception {
        assertEquals("backend answered 422", failure(backend.url(), ChatRequests.chat("[reject]", 3, false)));
        assertTrue(failure(backend.url(), ChatRequests.chat("[hangup]", 3, false)).contains("BROKEN"));
        assertTrue(failure(backend.url(), ChatRequests.chat("a long answer", 600_000, false)).contains("more than " + BackendFetch.MAX_BYTES));
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        assertTrue(failure("http://127.0.0.1:" + closedPort, ChatRequests.chat("x", 1, false)).contains("UNREACHABLE"));
    }
}
