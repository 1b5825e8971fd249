package dev.triage.proxy.server;

import dev.triage.model.Estimate;
import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.metrics.ResponseTokenCounter;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.JobListener;
import dev.triage.proxy.scheduler.JobTag;
import dev.triage.proxy.scheduler.Refusal;
import dev.triage.proxy.scheduler.Slot;
import dev.triage.proxy.scheduler.Ticket;
import dev.triage.proxy.sizing.RequestRejectedException;
import dev.triage.proxy.sizing.SizedJob;
import dev.triage.proxy.upstream.UpstreamCall;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request on a scheduled route: its body is gathered (up to the route's limit), sized, queued at
 * its backend, and relayed once the scheduler gives it a slot. The slot is released exactly once,
 * whichever way the exchange ends; a client that leaves while queued is withdrawn and never sent.
 * Whatever happens is written down in a {@link RequestRecord} and reported once at the end.
 *
 * <p>State lives on the client connection's event loop; the scheduler delivers its decisions there, and
 * a sizer that works elsewhere completes back onto it.
 */
final class ScheduledExchange extends BodyGatheringExchange implements JobListener, UpstreamCall.Listener {

    private static final Logger log = LoggerFactory.getLogger(ScheduledExchange.class);

    private enum State { RECEIVING, SIZING, QUEUED, RELAYING, OVER }

    private final ScheduledTarget target;
    private final ServerContext context;
    private final RequestRecord record;
    private final ResponseTokenCounter tokenCounter = new ResponseTokenCounter();
    private State state = State.RECEIVING;
    private SizedJob job;
    private long submittedNanos;
    private Ticket ticket;
    private Slot slot;
    private UpstreamCall call;

    ScheduledExchange(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head,
            RouteKind kind, ServerContext context) {
        super(receiver, ctx, head, context.target(kind).maxBody());
        this.target = context.target(kind);
        this.context = context;
        this.record = new RequestRecord(RequestIds.of(head), RouteTable.pathOf(head.uri()), kind.label(),
                target.backend().name(), System.nanoTime());
    }

    @Override
    void bodyTooLarge() {
        // Answered at once; the receiver reads and drops the rest of the body, so that the client
        // (still sending) gets this answer rather than a reset connection.
        reject(TriageError.BODY_TOO_LARGE, errorResponse(TriageError.BODY_TOO_LARGE,
                "request body exceeds " + maxBody() + " bytes", null));
    }

    @Override
    void bodyComplete() {
        state = State.SIZING;
        CompletableFuture<SizedJob> sizing;
        try {
            // A sizer that reads the body after returning holds its own reference to it.
            sizing = target.sizer().size(head, body.bytes());
        } catch (RuntimeException e) {
            sizing = CompletableFuture.failedFuture(e);
        }
        if (sizing.isDone()) {
            sized(sizing);
        } else {
            CompletableFuture<SizedJob> pending = sizing;
            pending.whenCompleteAsync((result, error) -> sized(pending), ctx.executor());
        }
    }

    private void sized(CompletableFuture<SizedJob> sizing) {
        if (state != State.SIZING) {
            return; // the client left meanwhile
        }
        try {
            job = sizing.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RequestRejectedException rejected) {
                FullHttpResponse response = errorResponse(rejected.error(), rejected.getMessage(), rejected.param());
                if (rejected.error() == TriageError.QUEUE_FULL) {
                    response.headers().set(HttpHeaderNames.RETRY_AFTER, 1); // a busy reader or estimator clears fast
                }
                reject(rejected.error(), response);
            } else {
                log.warn("sizing a {} request failed", record.path(), e.getCause());
                reject(TriageError.INTERNAL, errorResponse(TriageError.INTERNAL, "the request could not be sized", null));
            }
            return;
        }
        BackendLearner learner = target.learner();
        double estimatorTokens = job.estimate().expectedTokens();
        Estimate scheduledBy = job.estimate().withTokens(learner.tokens(estimatorTokens, job.outputCap()));
        record.sized(scheduledBy, job.priority(), estimatorTokens, job.promptTokens(), job.outputCap());
        double tokens = scheduledBy.expectedTokens();
        BackendQueue queue = target.backend().queue();
        int running = Math.min(queue.settings().slots(), queue.busySlots() + 1);
        LearnedServiceTime serviceTime = learner.serviceTime();
        JobCost cost = new JobCost(job.promptTokens(), tokens, serviceTime.prefillSeconds(job.promptTokens()),
                serviceTime.seconds(job.promptTokens(), tokens, running));
        state = State.QUEUED;
        submittedNanos = System.nanoTime();
        ticket = queue.submit(new JobTag(record.id(), record.routeKind()), job.priority(), cost, ctx.executor(), this);
    }

    @Override
    public void dispatched(Slot granted) {
        if (state != State.QUEUED) {
            granted.release();
            return;
        }
        slot = granted;
        state = State.RELAYING;
        record.dispatched(granted.queuedNanos(), granted.starvationPromoted(), granted.running());
        FullHttpRequest forwarded = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, head.method(), head.uri(),
                body.bytes().retainedDuplicate(), head.headers().copy(), EmptyHttpHeaders.INSTANCE);
        HttpUtil.setContentLength(forwarded, forwarded.content().readableBytes());
        call = UpstreamCall.start(target.backend().pool(), target.backend().config(), ctx.channel(), forwarded,
                context.upstreamTimeout(), this::addTriageHeaders, this);
    }

    @Override
    public void refused(Refusal refusal) {
        if (state != State.QUEUED) {
            return;
        }
        switch (refusal.reason()) {
            case QUEUE_FULL -> {
                FullHttpResponse response = errorResponse(TriageError.QUEUE_FULL,
                        "the queue for this backend is full; retry later", null);
                response.headers().set(HttpHeaderNames.RETRY_AFTER, refusal.retryAfterSeconds());
                reject(TriageError.QUEUE_FULL, response);
            }
            case QUEUE_TIMEOUT -> reject(TriageError.QUEUE_TIMEOUT,
                    errorResponse(TriageError.QUEUE_TIMEOUT, "the request waited too long in the queue", null));
            case SHUTTING_DOWN -> reject(TriageError.SHUTTING_DOWN,
                    errorResponse(TriageError.SHUTTING_DOWN, "the proxy is shutting down", null));
        }
    }

    @Override
    public void responseStarted(HttpResponse head) {
        record.firstByte(System.nanoTime());
        record.responded(head.status().code());
    }

    @Override
    public void responseContent(ByteBuf content) {
        tokenCounter.accept(content);
    }

    @Override
    public void finished(UpstreamCall.Ending ending) {
        slot.release();
        switch (ending) {
            case OK -> { } // relayed() follows once the client has the last byte
            case CANCELLED -> clientGone();
            default -> failRelay(UpstreamFailure.of(ending));
        }
    }

    @Override
    public void relayed() {
        record.actualTokens(tokenCounter.tokens());
        end(record.status() >= 500 ? Outcome.UPSTREAM_ERROR : Outcome.OK, null);
        if (record.status() < 400) {
            record.actualTokens().ifPresent(actual ->
                    target.backend().queue().feedback(record.estimate().expectedTokens(), actual));
        }
        receiver.exchangeDone(this);
    }

    @Override
    public void onClientGone() {
        switch (state) {
            case QUEUED -> ticket.cancel();
            case RELAYING -> call.cancel();
            default -> { }
        }
        clientGone();
    }

    private void clientGone() {
        end(Outcome.CLIENT_GONE, null);
    }

    /** After a backend failure: an error response if nothing was sent yet, else all we can do is close. */
    private void failRelay(UpstreamFailure failure) {
        if (call.responseStarted()) {
            end(failure.outcome(), null);
            ctx.close();
        } else {
            FullHttpResponse response = errorResponse(failure.error(), failure.message(target.backend().config()), null);
            record.responded(response.status().code());
            end(failure.outcome(), null);
            receiver.respond(this, response);
        }
    }

    private void reject(TriageError error, FullHttpResponse response) {
        record.responded(response.status().code());
        end(Outcome.REJECTED, error.code());
        receiver.respond(this, response);
    }

    private FullHttpResponse errorResponse(TriageError error, String message, String param) {
        FullHttpResponse response = Responses.error(ctx.alloc(), error, message, param);
        response.headers().set(TriageHeaders.REQUEST_ID, record.id());
        if (record.estimate() != null) {
            addTriageHeaders(response);
        }
        return response;
    }

    private void addTriageHeaders(HttpResponse response) {
        long queuedNanos = slot != null ? slot.queuedNanos() : System.nanoTime() - submittedNanos;
        response.headers()
                .set(TriageHeaders.REQUEST_ID, record.id())
                .set(TriageHeaders.ESTIMATE_TOKENS, Math.round(record.estimate().expectedTokens()))
                .set(TriageHeaders.QUEUE_MS, Math.round(queuedNanos / 1e6))
                .set(TriageHeaders.POLICY, context.policy().label());
    }

    /** The one way an exchange ends: its body freed, its record reported. */
    private void end(Outcome outcome, String reason) {
        state = State.OVER;
        if (body != null) {
            body.release();
        }
        if (record.end(outcome, reason, System.nanoTime())) {
            context.observer().finished(record);
        }
    }
}
