package dev.triage.proxy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.features.ChatBody;
import dev.triage.proxy.api.OllamaApi;
import dev.triage.proxy.preemption.PreemptionDialect;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A serial backend for tests that continues answers the way real servers do, in one
 * {@link PreemptionDialect}. Every answer is the words {@code w0 w1 w2 ...}, one token each, as many
 * as the request's output limit (16 when none), at {@code perToken} a token; an answer that arrives
 * with some of those words already (a trailing assistant message, the end of a prompt) goes on from
 * where they stop. Streams are what the servers send: OpenAI chunks with an {@code id} and
 * {@code created} of their own per request, a role delta first, a finish reason last, usage when
 * {@code stream_options.include_usage} asks (llama.cpp puts it in the finish chunk of completions),
 * then {@code [DONE]}; Ollama's lines end with {@code done} and the counts.
 *
 * <p>As llama-server does, in the llama.cpp dialects it names each token's id (the word's
 * number) in {@code logprobs} when asked, renders a chat through its template on
 * {@code /apply-template}, and takes a completion prompt of text followed by token ids.
 *
 * <p>It checks the documented shape of a continuation, and answers 400 when it is wrong: for
 * {@code vllm}, {@code continue_final_message: true} with {@code add_generation_prompt: false}
 * beside a trailing assistant message; for {@code ollama}'s {@code /api/generate}, {@code raw}; for
 * a prompt of token ids, the ids of the answer so far in order.
 * {@link #failContinuations} makes every continuation fail with a 500.
 */
public final class ContinuingBackend implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern WORD = Pattern.compile("w(\\d+) ");

    private final PreemptionDialect dialect;
    private final Duration perToken;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final Queue<Runnable> waiting = new ArrayDeque<>();
    private final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    private final AtomicInteger aborted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger templated = new AtomicInteger();
    private boolean busy;
    private volatile boolean failContinuations;

    private ContinuingBackend(PreemptionDialect dialect, Duration perToken) throws InterruptedException {
        this.dialect = dialect;
        this.perToken = perToken;
        this.server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Handler());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    public static ContinuingBackend start(PreemptionDialect dialect, Duration perToken) throws InterruptedException {
        return new ContinuingBackend(dialect, perToken);
    }

    public String url() {
        return "http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Every generation request's body, in arrival order. */
    public List<JsonNode> bodies() {
        return List.copyOf(bodies);
    }

    /** Generations whose client (the proxy) closed the connection before the end: how pauses look from here. */
    public int aborted() {
        return aborted.get();
    }

    /** Chats rendered through the template ({@code /apply-template}). */
    public int templated() {
        return templated.get();
    }

    /** From now on, every request that continues an answer gets a 500. */
    public void failContinuations() {
        failContinuations = true;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One generation at a time, in arrival order, on the server's one thread. */
    private void admit(Runnable generation) {
        if (busy) {
            waiting.add(generation);
        } else {
            busy = true;
            generation.run();
        }
    }

    private void done() {
        Runnable next = waiting.poll();
        if (next == null) {
            busy = false;
        } else {
            next.run();
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            if (request.uri().startsWith("/v1/models")) {
                respond(ctx, HttpResponseStatus.OK, "{\"data\":[]}");
                return;
            }
            if (request.uri().equals("/apply-template") && llamaCpp()) {
                templated.incrementAndGet();
                respond(ctx, HttpResponseStatus.OK, template(request.content().toString(StandardCharsets.UTF_8)));
                return;
            }
            JsonNode body;
            try {
                body = JSON.readTree(request.content().toString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                respond(ctx, HttpResponseStatus.BAD_REQUEST, "{\"error\":\"not json\"}");
                return;
            }
            bodies.add(body);
            String path = request.uri();
            int id = requests.incrementAndGet();
            admit(() -> generate(ctx, path, body, id));
        }

        private void generate(ChannelHandlerContext ctx, String path, JsonNode body, int id) {
            boolean byIds = body.path("prompt").isArray();
            int from = byIds ? body.path("prompt").size() - 1 : words(soFar(path, body));
            String wrong = byIds ? wrongIds(body) : wrongShape(path, body, from > 0);
            if (wrong != null || from > 0 && failContinuations) {
                respond(ctx, wrong != null ? HttpResponseStatus.BAD_REQUEST : HttpResponseStatus.INTERNAL_SERVER_ERROR,
                        "{\"error\":{\"message\":\"" + (wrong != null ? wrong : "cannot continue") + "\"}}");
                done();
                return;
            }
            int tokens = ChatBody.maxOutputTokens(body, ChatBody.Api.of(path, OllamaApi.owns(path))).orElse(16);
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, OllamaApi.owns(path) ? "application/x-ndjson" : "text/event-stream");
            HttpUtil.setTransferEncodingChunked(head, true);
            ctx.writeAndFlush(head);
            Stream stream = new Stream(ctx, path, body, id, from, tokens);
            ctx.channel().closeFuture().addListener(f -> stream.abort());
            stream.next(0);
        }
    }

    /** One streamed answer, a token at a time on the server's thread. */
    private final class Stream {
        private final ChannelHandlerContext ctx;
        private final String path;
        private final JsonNode body;
        private final int id;
        private final int from;
        private final int tokens;
        private boolean over;

        Stream(ChannelHandlerContext ctx, String path, JsonNode body, int id, int from, int tokens) {
            this.ctx = ctx;
            this.path = path;
            this.body = body;
            this.id = id;
            this.from = from;
            this.tokens = tokens;
        }

        void next(int sent) {
            if (over) {
                return;
            }
            if (sent == 0 && path.equals("/v1/chat/completions")) {
                event(chunk().set("choices", JSON.createArrayNode().add(choice().set("delta",
                        JSON.createObjectNode().put("role", "assistant").putNull("content")))));
            }
            if (sent == tokens) {
                finish();
                return;
            }
            ctx.executor().schedule(() -> {
                if (!over) {
                    event(wordEvent(from + sent));
                    next(sent + 1);
                }
            }, perToken.toNanos(), TimeUnit.NANOSECONDS);
        }

        private ObjectNode wordEvent(int number) {
            String word = "w" + number + " ";
            return switch (path) {
                case "/v1/chat/completions" -> chunk().set("choices", JSON.createArrayNode().add(withLogprobs(choice()
                        .set("delta", JSON.createObjectNode().put("content", word)), number, word)));
                case "/v1/completions" -> chunk().set("choices", JSON.createArrayNode().add(withLogprobs(choice().put("text", word),
                        number, word)));
                case "/api/chat" -> ollama(false).set("message", JSON.createObjectNode().put("role", "assistant").put("content", word));
                default -> ollama(false).put("response", word);
            };
        }

        private void finish() {
            over = true;
            ObjectNode usage = JSON.createObjectNode().put("completion_tokens", tokens).put("prompt_tokens", 10 + from)
                    .put("total_tokens", 10 + from + tokens);
            boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
            switch (path) {
                case "/v1/chat/completions" -> {
                    event(chunk().set("choices", JSON.createArrayNode().add(choice().put("finish_reason", "length")
                            .set("delta", JSON.createObjectNode()))));
                    if (includeUsage) {
                        ObjectNode last = chunk();
                        last.putArray("choices");
                        event(last.set("usage", usage));
                    }
                }
                case "/v1/completions" -> event(chunk().<ObjectNode>set("choices", JSON.createArrayNode().add(choice().put("text", "")
                        .put("finish_reason", "length"))).set("usage", usage));
                default -> {
                    ObjectNode last = ollama(true).put("done_reason", "length").put("eval_count", tokens).put("prompt_eval_count", 10 + from);
                    if (path.equals("/api/chat")) {
                        last.set("message", JSON.createObjectNode().put("role", "assistant").put("content", ""));
                    } else {
                        last.put("response", "");
                    }
                    event(last);
                }
            }
            if (!OllamaApi.owns(path)) {
                write("data: [DONE]\n\n");
            }
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            done();
        }

        void abort() {
            if (!over) {
                over = true;
                aborted.incrementAndGet();
                done();
            }
        }

        private ObjectNode chunk() {
            return JSON.createObjectNode().put("id", "cmpl-" + id).put("created", 1_700_000_000 + id).put("model", "fake")
                    .put("object", path.equals("/v1/completions") ? "text_completion" : "chat.completion.chunk");
        }

        /** The token's id and text in the choice's logprobs, when the request asked for them. */
        private ObjectNode withLogprobs(ObjectNode choice, int number, String word) {
            JsonNode asked = body.path("logprobs");
            if (llamaCpp() && (asked.asBoolean(false) || asked.asInt(0) > 0)) {
                ObjectNode token = JSON.createObjectNode().put("id", number).put("token", word).put("logprob", -1.0);
                token.putArray("top_logprobs").addObject().put("id", number).put("token", word).put("logprob", -1.0);
                choice.putObject("logprobs").putArray("content").add(token);
            }
            return choice;
        }

        private ObjectNode choice() {
            return JSON.createObjectNode().put("index", 0).putNull("finish_reason");
        }

        private ObjectNode ollama(boolean done) {
            return JSON.createObjectNode().put("model", "fake").put("created_at", "2026-01-01T00:00:0" + id % 10 + "Z").put("done", done);
        }

        private void event(ObjectNode event) {
            try {
                String json = JSON.writeValueAsString(event);
                write(OllamaApi.owns(path) ? json + "\n" : "data: " + json + "\n\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void write(String text) {
            ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8)));
        }
    }

    /** llama-server, whichever way Triage continues its answers. */
    private boolean llamaCpp() {
        return dialect == PreemptionDialect.LLAMA_CPP || dialect == PreemptionDialect.LLAMA_CPP_TOKEN_IDS;
    }

    /** A chat as this server's template renders it: each message as {@code role: content} on a line, then the answer's start. */
    private static String template(String chat) {
        try {
            StringBuilder prompt = new StringBuilder();
            JsonNode messages = JSON.readTree(chat).path("messages");
            for (JsonNode message : messages) {
                prompt.append(message.path("role").asText()).append(": ").append(message.path("content").asText());
                if (message != messages.get(messages.size() - 1) || !"assistant".equals(message.path("role").asText())) {
                    prompt.append('\n');
                }
            }
            return JSON.createObjectNode().put("prompt", prompt.toString()).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What is wrong with a prompt of text and token ids, or null: the ids must be the answer's, {@code 0, 1, 2...}. */
    private String wrongIds(JsonNode body) {
        JsonNode prompt = body.path("prompt");
        if (!llamaCpp() || !prompt.path(0).isTextual()) {
            return "a prompt of token ids is llama.cpp's, after text";
        }
        for (int i = 1; i < prompt.size(); i++) {
            if (prompt.path(i).asInt(-1) != i - 1) {
                return "token ids out of order";
            }
        }
        return null;
    }

    /** The answer a request already holds: its trailing assistant message, or its prompt. */
    private static String soFar(String path, JsonNode body) {
        if (path.endsWith("/chat/completions") || path.equals("/api/chat")) {
            JsonNode messages = body.path("messages");
            JsonNode last = messages.path(messages.size() - 1);
            return "assistant".equals(last.path("role").asText()) ? last.path("content").asText() : "";
        }
        return body.path("prompt").asText();
    }

    /** How many words of an answer the text holds. */
    private static int words(String text) {
        Matcher matcher = WORD.matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    /** What is wrong with a request's shape for this dialect, or null. */
    private String wrongShape(String path, JsonNode body, boolean continues) {
        if (OllamaApi.owns(path) && dialect != PreemptionDialect.OLLAMA) {
            return "no such route";
        }
        if (!continues) {
            return null;
        }
        if (dialect == PreemptionDialect.VLLM && path.endsWith("/chat/completions")
                && (!body.path("continue_final_message").asBoolean(false) || body.path("add_generation_prompt").asBoolean(true))) {
            return "a final assistant message needs continue_final_message and no generation prompt";
        }
        if (path.equals("/api/generate") && !body.path("raw").asBoolean(false)) {
            return "continuing a prompt needs raw";
        }
        return null;
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String json) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(response, response.content().readableBytes());
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
}
