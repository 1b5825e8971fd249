package dev.triage.bench.replay;

import dev.triage.bench.backend.Generation;
import dev.triage.bench.backend.GenerationEngine;
import dev.triage.bench.backend.GenerationListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one connection of the replay backend: routes each request, hands generations to the
 * {@link GenerationEngine} and writes its tokens out as they come, streamed as server-sent events or
 * as one body at the end. A connection that closes early cancels its generation, freeing the slot.
 *
 * <p>Answers on a connection go out in request order: a request that arrives while an answer is
 * being generated (HTTP pipelining) waits here, up to {@link #MAX_PIPELINED}. The connection keeps
 * reading meanwhile, so a client that goes away is noticed at once, as a real server notices it.
 *
 * <p>A request may ask the backend to misbehave ({@link ReplayFault}); a connection idle between
 * requests for the keep-alive timeout is closed, as uvicorn (under vLLM) closes them.
 */
final class ReplayRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(ReplayRequestHandler.class);

    private final GenerationEngine engine;
    private final RequestReader reader;
    private final ReplayBackendSettings settings;
    static final int MAX_PIPELINED = 16;

    private final AtomicLong ids;
    private final ReplayCounters counters;
    private final RequestListener listener;
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    private Exchange inFlight;

    ReplayRequestHandler(GenerationEngine engine, RequestReader reader, ReplayBackendSettings settings, AtomicLong ids,
            ReplayCounters counters, RequestListener listener) {
        this.engine = engine;
        this.reader = reader;
        this.settings = settings;
        this.ids = ids;
        this.counters = counters;
        this.listener = listener;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        listener.received(request);
        if (inFlight != null || !pipelined.isEmpty()) {
            if (pipelined.size() >= MAX_PIPELINED) {
                log.debug("more than {} pipelined requests; closing the connection", MAX_PIPELINED);
                ctx.close();
                return;
            }
            pipelined.add(request.retain());
            return;
        }
        serve(ctx, request);
    }

    private void servePipelined(ChannelHandlerContext ctx) {
        while (inFlight == null && !pipelined.isEmpty() && ctx.channel().isActive()) {
            FullHttpRequest request = pipelined.poll();
            try {
                serve(ctx, request);
            } finally {
                request.release();
            }
        }
    }

    private void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String path = new QueryStringDecoder(request.uri()).path();
        try {
            switch (path) {
                case "/v1/chat/completions" -> generate(ctx, request, ReplayRequest.Api.CHAT, keepAlive);
                case "/v1/completions" -> generate(ctx, request, ReplayRequest.Api.COMPLETION, keepAlive);
                case "/v1/audio/transcriptions" -> generate(ctx, request, ReplayRequest.Api.TRANSCRIPTION, keepAlive);
                case "/api/chat" -> generate(ctx, request, ReplayRequest.Api.OLLAMA_CHAT, keepAlive);
                case "/api/generate" -> generate(ctx, request, ReplayRequest.Api.OLLAMA_GENERATE, keepAlive);
                case "/v1/models" -> {
                    if (allowed(ctx, request, HttpMethod.GET, keepAlive)) {
                        respond(ctx, HttpResponseStatus.OK, "{\"object\":\"list\",\"data\":[{\"id\":\"" + settings.model()
                                + "\",\"object\":\"model\",\"owned_by\":\"triage-replay\"}]}", keepAlive);
                    }
                }
                case "/api/tags" -> {
                    if (allowed(ctx, request, HttpMethod.GET, keepAlive)) {
                        respond(ctx, HttpResponseStatus.OK, OllamaAnswers.tags(settings.model()), keepAlive);
                    }
                }
                case "/health" -> {
                    if (allowed(ctx, request, HttpMethod.GET, keepAlive)) {
                        respond(ctx, HttpResponseStatus.OK, "{\"status\":\"ok\"}", keepAlive);
                    }
                }
                default -> respond(ctx, HttpResponseStatus.NOT_FOUND, error(path, "no route " + path, null), keepAlive);
            }
        } catch (RequestReader.BadRequestException e) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, error(path, e.getMessage(), e.param()), keepAlive);
        }
    }

    /** An error body in the format of the API the path belongs to: Ollama's under {@code /api/}, else OpenAI's. */
    private static String error(String path, String message, String param) {
        return path.startsWith("/api/") ? OllamaAnswers.error(message) : OpenAiAnswers.error(message, "invalid_request_error", param);
    }

    private void generate(ChannelHandlerContext ctx, FullHttpRequest request, ReplayRequest.Api api, boolean keepAlive)
            throws RequestReader.BadRequestException {
        if (!allowed(ctx, request, HttpMethod.POST, keepAlive)) {
            return;
        }
        ReplayFault fault = ReplayFault.of(request.headers());
        ReplayRequest parsed = api == ReplayRequest.Api.TRANSCRIPTION ? reader.transcription(request) : reader.completion(request, api);
        inFlight = new Exchange(ctx, parsed, answers(parsed), keepAlive, fault);
        if (fault == null || !fault.immediate()) {
            engine.submit(inFlight.generation);
            return;
        }
        counters.faults.incrementAndGet();
        switch (fault.kind()) {
            case STATUS -> {
                inFlight = null;
                String path = new QueryStringDecoder(request.uri()).path();
                respond(ctx, HttpResponseStatus.valueOf(fault.status()),
                        path.startsWith("/api/") ? OllamaAnswers.error("injected fault")
                                : OpenAiAnswers.error("injected fault", "server_error", null), keepAlive);
            }
            case GARBAGE -> writeGarbage(ctx);
            case RESET -> reset(ctx);
            default -> { } // STALL: the exchange stays in flight, silent, until the client leaves
        }
    }

    /** Bytes that are not an HTTP response, written past the HTTP encoder; then the connection closes. */
    private static void writeGarbage(ChannelHandlerContext ctx) {
        ctx.pipeline().firstContext().writeAndFlush(utf8("THIS IS NOT HTTP\r\n\r\n")).addListener(ChannelFutureListener.CLOSE);
    }

    /** Closes with a TCP reset rather than an orderly end, as a crashed server's kernel would. */
    private static void reset(ChannelHandlerContext ctx) {
        ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
        ctx.close();
    }

    private Answers answers(ReplayRequest request) {
        if (request.api().ollama()) {
            return new OllamaAnswers(request, Instant.now(), settings.speed());
        }
        String prefix = switch (request.api()) {
            case CHAT -> "chatcmpl-";
            case COMPLETION -> "cmpl-";
            default -> "trsc-";
        };
        return new OpenAiAnswers(prefix + ids.incrementAndGet(), System.currentTimeMillis() / 1000, request);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (inFlight != null) {
            engine.cancel(inFlight.generation);
            inFlight = null;
        }
        while (!pipelined.isEmpty()) {
            pipelined.poll().release();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && inFlight == null && pipelined.isEmpty()) {
            counters.keepAliveClosures.incrementAndGet();
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("replay connection failed", cause);
        ctx.close();
    }

    private boolean allowed(ChannelHandlerContext ctx, FullHttpRequest request, HttpMethod method, boolean keepAlive) {
        if (request.method().equals(method)) {
            return true;
        }
        FullHttpResponse response = response(HttpResponseStatus.METHOD_NOT_ALLOWED,
                error(new QueryStringDecoder(request.uri()).path(), request.method() + " not allowed (expected: " + method + ")", null),
                HttpHeaderValues.APPLICATION_JSON, keepAlive);
        response.headers().set(HttpHeaderNames.ALLOW, method.name());
        write(ctx, response, keepAlive);
        return false;
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String json, boolean keepAlive) {
        write(ctx, response(status, json, HttpHeaderValues.APPLICATION_JSON, keepAlive), keepAlive);
    }

    private static FullHttpResponse response(HttpResponseStatus status, String body, CharSequence contentType, boolean keepAlive) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        HttpUtil.setContentLength(response, content.readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        return response;
    }

    private static void write(ChannelHandlerContext ctx, Object message, boolean keepAlive) {
        ctx.writeAndFlush(message).addListener(keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
    }

    private static ByteBuf utf8(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
    }

    /** One answer being generated: it writes what the engine produces, in the format the request asked for. */
    private final class Exchange implements GenerationListener {
        private final ChannelHandlerContext ctx;
        private final ReplayRequest request;
        private final Answers answers;
        private final boolean keepAlive;
        private final ReplayFault fault;
        private final Generation generation;
        /** After a stall: nothing more is written, and the connection waits for the client to leave. */
        private boolean silent;

        Exchange(ChannelHandlerContext ctx, ReplayRequest request, Answers answers, boolean keepAlive, ReplayFault fault) {
            this.ctx = ctx;
            this.request = request;
            this.answers = answers;
            this.keepAlive = keepAlive;
            this.fault = fault;
            this.generation = new Generation(settings.speed().takenPrefillSeconds(request.promptTokens()), request.tokens(), this);
        }

        @Override
        public void started() {
            if (request.stream()) {
                writeHead();
            }
            strikeAfter(0);
        }

        private void writeHead() {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, answers.streamContentType());
            head.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
            HttpUtil.setTransferEncodingChunked(head, true);
            HttpUtil.setKeepAlive(head, keepAlive);
            ctx.write(head);
            for (String event : answers.opening()) {
                ctx.write(new DefaultHttpContent(utf8(event)));
            }
            ctx.flush();
        }

        @Override
        public void token(int index) {
            if (silent) {
                return;
            }
            if (request.stream()) {
                ctx.writeAndFlush(new DefaultHttpContent(utf8(answers.token(index)))).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            }
            strikeAfter(index + 1);
        }

        /** Strikes a fault of the {@code -after} kinds once its number of tokens is produced. */
        private void strikeAfter(int produced) {
            if (fault == null || fault.immediate() || fault.afterTokens() != produced || silent) {
                return;
            }
            counters.faults.incrementAndGet();
            switch (fault.kind()) {
                case DIE_AFTER -> ctx.close(); // the generation is cancelled when the channel goes inactive
                case RESET_AFTER -> reset(ctx);
                default -> silent = true;
            }
        }

        @Override
        public void finished() {
            if (silent) {
                return; // still in flight for the connection: it says nothing more
            }
            inFlight = null;
            if (request.stream()) {
                for (String event : answers.closing()) {
                    ctx.write(new DefaultHttpContent(utf8(event)));
                }
                write(ctx, LastHttpContent.EMPTY_LAST_CONTENT, keepAlive);
            } else {
                write(ctx, response(HttpResponseStatus.OK, answers.body(), answers.bodyContentType(), keepAlive), keepAlive);
            }
            if (!pipelined.isEmpty()) {
                // Outside the engine's step, which is still handing out tokens to others.
                ctx.executor().execute(() -> servePipelined(ctx));
            }
        }
    }
}
