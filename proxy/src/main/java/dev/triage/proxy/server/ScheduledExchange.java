package dev.triage.proxy.server;

import dev.triage.features.PromptFeatures;
import dev.triage.model.Estimate;
import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.metrics.ResponseTokenCounter;
import dev.triage.proxy.preemption.ResumableRequest;
import dev.triage.proxy.preemption.StreamSplicer;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.CostSource;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.JobListener;
import dev.triage.proxy.scheduler.JobTag;
import dev.triage.proxy.scheduler.Refusal;
import dev.triage.proxy.scheduler.Slot;
import dev.triage.proxy.scheduler.Ticket;
import dev.triage.proxy.sizing.CheckedRequest;
import dev.triage.proxy.sizing.RequestRejectedException;
import dev.triage.proxy.sizing.SizedJob;
import dev.triage.proxy.upstream.BackendFetch;
import dev.triage.proxy.upstream.UpstreamCall;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request on a scheduled route: its body is gathered (up to the route's limit), sized, queued at
 * its backend, and relayed once the scheduler gives it a slot. The slot is released exactly once,
 * whichever way the exchange ends; a client that leaves while queued is withdrawn and never sent.
 * Whatever happens is written down in a {@link RequestRecord} and reported once at the end.
 *
 * <p>A streamed request that its backend can continue ({@link ResumableRequest}) may be paused when
 * the scheduler asks: its backend connection is closed (the backend stops), its slot goes back, and
 * it waits again; once dispatched again, a continuation request asks for the rest, and its stream is
 * spliced into the client's ({@link StreamSplicer}), which sees one answer. A client that leaves
 * while paused is withdrawn; a continuation that fails ends the client's stream the way any failure
 * after the response has started does, by closing the connection.
 *
 * <p>A request that finds a slot free and nobody waiting is sent at once and sized after: its estimate
 * then serves the response headers (when known by the time the answer starts), the record and the
 * ranking feedback, and the record is reported once both the exchange and its sizing have ended. Such
 * a request has no place in the queue, so it is never paused.
 *
 * <p>State lives on the client connection's event loop; the scheduler delivers its decisions there, and
 * a sizer that works elsewhere completes back onto it.
 */
final class ScheduledExchange extends BodyGatheringExchange implements JobListener, UpstreamCall.Listener {

    private static final Logger log = LoggerFactory.getLogger(ScheduledExchange.class);

    private enum State { RECEIVING, SIZING, QUEUED, RELAYING, PAUSED, OVER }

    /**
     * The cost a request that was sent before it was sized waits again with, when its backend failed
     * it before a byte was sent: next to nothing, since it had a slot before anyone now waiting.
     */
    private static final double UNSIZED_RETRY_SECONDS = 1e-3;
    /** The backend label of a request answered before its model chose its backends. */
    private static final String UNROUTED = "none";

    private final ScheduledTarget target;
    /** The backends serving the request's model, and their queue; null until the body has been read. */
    private BackendGroup group;
    /** The backend of the latest run. */
    private Backend sentTo;
    /** A run failed before a byte reached its backend, and the request waited again for another. */
    private boolean retriedElsewhere;
    private final ServerContext context;
    private final RequestRecord record;
    private final ResponseTokenCounter tokenCounter = new ResponseTokenCounter();
    private State state = State.RECEIVING;
    private SizedJob job;
    /** The prompt's features, extracted once for every costing of this request; null until it is sized. */
    private PromptFeatures promptFeatures;
    private long submittedNanos;
    /** When the run in progress was sent to its backend. */
    private long runStartedNanos;
    private Ticket ticket;
    private Slot slot;
    private UpstreamCall call;
    /** The request's continuation and its spliced stream while it can be paused; null otherwise. */
    private ResumableRequest resumable;
    private StreamSplicer splicer;
    private boolean clientHeadSent;
    private boolean upstreamDone;
    private boolean pausing;
    private boolean resumeFailed;
    private boolean reportedThisRun;
    private long reportedTokens;
    /**
     * Where the queue placed it when it arrived (0: sent at once), and its expected wait then; -1 while
     * the queue has not said, and then no header tells it.
     */
    private int admittedPosition;
    private double admittedWaitSeconds;
    /** Sent before it was sized, and the size is not known yet: the record waits for it. */
    private boolean sizingAfterSend;

    ScheduledExchange(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head,
            RouteKind kind, ServerContext context) {
        super(receiver, ctx, head, context.target(kind).maxBody());
        this.target = context.target(kind);
        this.context = context;
        this.record = new RequestRecord(RequestIds.of(head), RouteTable.pathOf(head.uri()), kind.label(),
                target.routesByModel() ? UNROUTED : target.onlyGroup().queue().name(), System.nanoTime());
    }

    @Override
    void bodyTooLarge() {
        // Answered at once; the receiver reads and drops the rest of the body, so that the client
        // (still sending) gets this answer rather than a reset connection.
        reject(TriageError.BODY_TOO_LARGE, closingIfBodyWithheld(errorResponse(TriageError.BODY_TOO_LARGE,
                "request body exceeds " + maxBody() + " bytes", null)));
    }

    @Override
    void bodyComplete() {
        group = groupServing();
        if (group == null) {
            return;
        }
        state = State.SIZING;
        CheckedRequest checked;
        try {
            checked = target.sizer().check(head, body.bytes());
        } catch (RuntimeException e) {
            sized(CompletableFuture.failedFuture(e));
            return;
        }
        Slot idle = checked == null ? null : group.queue().takeIdleSlot();
        if (idle != null) {
            sendBeforeSized(idle, checked);
            return;
        }
        // A sizer that reads the body after returning holds its own reference to it.
        size(() -> checked != null ? checked.size() : target.sizer().size(head, body.bytes()), this::sized);
    }

    /**
     * The backends that serve the request's model; null, with the client answered, when none does.
     * Where every backend serves every model the body is not read for it; where there is one group, a
     * request that names no model goes to it.
     */
    private BackendGroup groupServing() {
        if (!target.routesByModel()) {
            return target.onlyGroup();
        }
        Optional<String> model = RequestedModel.of(body.bytes());
        Optional<BackendGroup> serving = target.group(model);
        if (serving.isEmpty()) {
            String message = model.map(name -> "no backend serves the model '" + name + "'")
                    .orElse("the request names no model, and the backends serve different models");
            reject(TriageError.MODEL_NOT_SERVED, errorResponse(TriageError.MODEL_NOT_SERVED, message, "model"));
            return null;
        }
        record.boundTo(serving.get().queue().name());
        return serving.get();
    }

    /** Starts a sizing and hands it to {@code then} on the event loop once done: at once if it already is. */
    private void size(Supplier<CompletableFuture<SizedJob>> start, Consumer<CompletableFuture<SizedJob>> then) {
        CompletableFuture<SizedJob> sizing;
        try {
            sizing = start.get();
        } catch (RuntimeException e) {
            sizing = CompletableFuture.failedFuture(e);
        }
        if (sizing.isDone()) {
            then.accept(sizing);
        } else {
            CompletableFuture<SizedJob> pending = sizing;
            pending.whenCompleteAsync((result, error) -> then.accept(pending), ctx.executor());
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
        recordSized(job);
        resumable = ResumableRequest.of(target.preemption(), record.path(), body.bytes()).orElse(null);
        splicer = resumable == null ? null : resumable.splicer();
        waitInQueue(job.priority(), costs(job));
        // Only a request that waits can go by the configured estimator's estimate: ask for it now.
        job.better().ask().ifPresent(better -> better.thenAcceptAsync(this::resized, ctx.executor()));
    }

    /** The configured estimator's own estimate, made after the fallback's: a request still waiting goes by it. */
    private void resized(Estimate better) {
        if (state != State.QUEUED) {
            return;
        }
        job = job.withEstimate(better);
        recordSized(job);
        ticket.resize(costs(job));
    }

    /**
     * What the job is expected to cost this backend, by what its learner serves when the queue asks:
     * on admission, and again whenever the learner has moved while the job waits.
     */
    private CostSource costs(SizedJob sized) {
        BackendLearner learner = group.costLearner();
        BackendQueue queue = group.queue();
        PromptFeatures features = features(sized);
        return new CostSource() {
            @Override
            public JobCost cost() {
                int running = Math.min(queue.settings().slots(), queue.busySlots() + 1);
                return learner.cost(sized.estimate().expectedTokens(), features, sized.fingerprint(), sized.outputCap(), sized.promptTokens(), running);
            }

            @Override
            public long version() {
                return learner.version();
            }
        };
    }

    /**
     * Relays the request in the slot it found free, and only then sizes it: a microsecond estimator
     * runs while the backend works, an expensive one on its own thread when it has nothing else to
     * score (else the fallback sizes it).
     */
    private void sendBeforeSized(Slot idle, CheckedRequest checked) {
        sizingAfterSend = true;
        relay(idle);
        size(checked::sizeSent, this::sizedAfterSend);
    }

    private void sizedAfterSend(CompletableFuture<SizedJob> sizing) {
        sizingAfterSend = false;
        try {
            job = sizing.join();
            recordSized(job);
        } catch (CompletionException e) {
            log.debug("a {} request sent before it was sized could not be sized", record.path(), e.getCause());
        }
        if (state == State.OVER) {
            report();
        }
    }

    private PromptFeatures features(SizedJob sized) {
        if (promptFeatures == null) {
            promptFeatures = new PromptFeatures(sized.prompt());
        }
        return promptFeatures;
    }

    /** Records the job's estimate as this backend's learned calibration serves it. */
    private void recordSized(SizedJob sized) {
        double estimatorTokens = sized.estimate().expectedTokens();
        Estimate served = sized.estimate().withTokens(group.costLearner().tokens(estimatorTokens, features(sized), sized.fingerprint(), sized.outputCap()));
        record.sized(served, sized.priority(), estimatorTokens, sized.byFallback(), sized.promptTokens(), sized.outputCap());
        record.measured(sized.measured());
        record.prompt(features(sized), sized.fingerprint());
    }

    @Override
    public void admitted(int position, double expectedWaitSeconds) {
        admittedPosition = position;
        admittedWaitSeconds = expectedWaitSeconds;
    }

    @Override
    public void dispatched(Slot granted) {
        if (state == State.QUEUED) {
            relay(granted);
        } else if (state == State.PAUSED) {
            // Resuming: ask for the rest of the answer the client has part of (all of it if none yet).
            splicer.startRun();
            if (splicer.tokens() == 0) {
                send(granted, head.uri(), firstRunBody());
            } else {
                ResumableRequest.Continuation rest = resumable.continuation(splicer);
                send(granted, rest.uri(head.uri()), Unpooled.wrappedBuffer(rest.body()));
            }
        } else {
            granted.release();
        }
    }

    /** Sends the request as the client sent it (with what a resume will need asked for too), in its first slot. */
    private void relay(Slot granted) {
        record.dispatched(granted.queuedNanos(), granted.starvationPromoted(), granted.running());
        send(granted, head.uri(), firstRunBody());
    }

    /** What a run from the start asks: the client's body, with what a resume will need asked for too. */
    private ByteBuf firstRunBody() {
        return resumable != null ? resumable.firstRun(body.bytes()) : body.bytes().retainedDuplicate();
    }

    /** A request to this request's backend, with the client's headers (an API key, say) and {@code content}'s length. */
    private FullHttpRequest toBackend(HttpMethod method, String uri, ByteBuf content) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri, content, head.headers().copy(),
                EmptyHttpHeaders.INSTANCE);
        HttpUtil.setContentLength(request, content.readableBytes());
        return request;
    }

    /** Starts a run of the request in {@code granted}: {@code requestBody} sent to {@code uri}. */
    private void send(Slot granted, String uri, ByteBuf requestBody) {
        slot = granted;
        runStartedNanos = System.nanoTime();
        state = State.RELAYING;
        upstreamDone = false;
        resumeFailed = false;
        reportedThisRun = false;
        FullHttpRequest forwarded = toBackend(head.method(), uri,
                target.forwardPriority() ? ForwardedPriority.write(requestBody, scheduledTokens()) : requestBody);
        sentTo = group.backend(granted);
        record.boundTo(sentTo.name());
        call = UpstreamCall.start(sentTo.pool(), sentTo.config(), ctx.channel(), forwarded,
                context.upstreamTimeout(), this::relayToClient, this);
    }

    /**
     * Asks the backend, while the request is paused, for its chat as the model's template renders it:
     * the prompt a resume by token ids needs. Without an answer in time, the resume sends the text instead.
     */
    private void askTemplate(byte[] templateBody) {
        FullHttpRequest ask = toBackend(HttpMethod.POST, ResumableRequest.TEMPLATE_PATH, Unpooled.wrappedBuffer(templateBody));
        Backend backend = sentTo;
        BackendFetch.start(backend.pool(), backend.config(), ctx.channel(), ask, context.upstreamTimeout())
                .whenComplete((answer, failure) -> {
                    if (failure == null) {
                        resumable.templated(answer);
                    } else {
                        log.debug("backend {} gave no chat template ({}): resumes of {} send text", backend.name(),
                                failure.getMessage(), record.id());
                    }
                });
    }

    /** The answer's tokens the request was scheduled by; empty for a request sent before it was sized. */
    private OptionalDouble scheduledTokens() {
        return record.estimate() == null ? OptionalDouble.empty() : OptionalDouble.of(record.estimate().expectedTokens());
    }

    /** Stops the backend (closing its connection) and gives the slot back, keeping what the client has. */
    @Override
    public void pauseRequested(Slot asked) {
        if (state != State.RELAYING || slot != asked || upstreamDone || splicer == null || !splicer.pausable()
                || resumable.limitReached(splicer.tokens())) {
            asked.declinePause();
            return;
        }
        pausing = true;
        call.cancel(); // finished(CANCELLED) follows at once, and completes the pause
    }

    /**
     * Writes a message of the backend's response to the client. A stream that can be paused goes
     * through its splicer: whole events only, and a resumed run's head and second role dropped.
     */
    private ChannelFuture relayToClient(Object message) {
        if (splicer != null && message instanceof HttpResponse head) {
            boolean stream = head.status().code() == HttpResponseStatus.OK.code() && !(message instanceof HttpContent)
                    && !HttpUtil.isContentLengthSet(head);
            if (!clientHeadSent && !stream) {
                splicer = null; // not a stream after all (an error, a whole body): relayed as it is, never paused
            } else if (clientHeadSent) {
                resumeFailed = !stream;
            }
        }
        if (splicer == null) {
            if (message instanceof HttpResponse head) {
                addTriageHeaders(head);
                clientHeadSent = true;
            }
            if (message instanceof HttpContent content) {
                tokenCounter.accept(content.content());
            }
            return ctx.channel().write(message);
        }
        if (message instanceof HttpResponse head) {
            if (clientHeadSent) {
                // A resumed run's head: the client has had its own.
                return ctx.channel().newSucceededFuture();
            }
            addTriageHeaders(head);
            clientHeadSent = true;
            return ctx.channel().write(head);
        }
        HttpContent content = (HttpContent) message;
        if (resumeFailed) {
            content.release();
            return ctx.channel().newSucceededFuture();
        }
        boolean last = content instanceof LastHttpContent;
        ByteBuf out = ctx.alloc().buffer();
        try {
            splicer.append(content.content(), out);
            if (last) {
                splicer.end(out);
            }
        } catch (RuntimeException e) {
            out.release();
            throw e;
        } finally {
            content.release();
        }
        reportProgress();
        tokenCounter.accept(out);
        if (!last && !out.isReadable()) {
            out.release();
            return ctx.channel().newSucceededFuture();
        }
        return ctx.channel().write(last ? new DefaultLastHttpContent(out) : new DefaultHttpContent(out));
    }

    /** Tells the scheduler how far the answer has got: at a run's first token, then every window of tokens. */
    private void reportProgress() {
        BackendQueue queue = group.queue();
        long tokens = splicer.tokens();
        if (!queue.reportsProgress() || tokens <= reportedTokens
                || reportedThisRun && tokens < reportedTokens + queue.settings().laps().windowTokens()) {
            return;
        }
        slot.progress(tokens);
        reportedTokens = tokens;
        reportedThisRun = true;
    }

    @Override
    public void refused(Refusal refusal) {
        if (state == State.PAUSED) {
            // Shutting down with the answer part sent: all that is left is to end the stream.
            end(Outcome.REJECTED, TriageError.SHUTTING_DOWN.code());
            ctx.close();
            return;
        }
        if (state != State.QUEUED) {
            return;
        }
        if (refusal.reason() != Refusal.Reason.QUEUE_FULL) {
            leftQueue(); // it waited, and was then turned away
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
        if (!clientHeadSent) {
            record.firstByte(System.nanoTime());
            record.responded(head.status().code());
        }
    }

    @Override
    public void finished(UpstreamCall.Ending ending) {
        upstreamDone = true;
        record.ran(System.nanoTime() - runStartedNanos);
        if (pausing) {
            pausing = false;
            state = State.PAUSED;
            Slot paused = slot;
            slot = null;
            paused.pause(splicer.tokens());
            resumable.templateRequest().ifPresent(this::askTemplate);
            return;
        }
        slot.release();
        switch (ending) {
            case OK -> {
                if (resumeFailed) {
                    failRelay(UpstreamFailure.BROKEN); // the client's stream has started: it is closed
                }
                // else relayed() follows once the client has the last byte
            }
            case CANCELLED -> clientGone();
            default -> failRelay(UpstreamFailure.of(ending));
        }
    }

    @Override
    public void finishedUnsent(UpstreamCall.Ending ending) {
        if (!clientHeadSent && !retriedElsewhere && group.hasAlternatives()) {
            upstreamDone = true;
            waitForAnotherBackend();
        } else {
            finished(ending);
        }
    }

    /**
     * After a run that failed before a byte reached its backend: the backend is ejected (its probe
     * readmits it), its slot freed, and the request waits again in its queue to be bound to another
     * of its group. Only once: a second such failure is the client's.
     */
    private void waitForAnotherBackend() {
        retriedElsewhere = true;
        log.info("backend {} failed before a request was sent to it; the request waits for another", sentTo.name());
        group.queue().eject(slot.backend()); // first, so that the freed slot is not bound again
        Slot failed = slot;
        slot = null;
        failed.release();
        waitInQueue(job != null ? job.priority() : 0,
                job != null ? costs(job) : CostSource.fixed(JobCost.ofAnswer(0, UNSIZED_RETRY_SECONDS)));
    }

    /**
     * Puts the request in its queue, its wait counted from now: a request sent before it was sized, or
     * sent once already, has not waited in this queue before.
     */
    private void waitInQueue(int priority, CostSource cost) {
        state = State.QUEUED;
        admittedPosition = -1;
        submittedNanos = System.nanoTime();
        ticket = group.queue().submit(tag(), priority, cost, resumable != null, ctx.executor(), this);
    }

    /** The request as its queue knows it: its id, its kind and its tenant. */
    private JobTag tag() {
        return new JobTag(record.id(), record.routeKind(), context.tenants().of(head.headers()));
    }

    @Override
    public void relayed() {
        if (state == State.OVER) {
            return;
        }
        record.actualTokens(tokenCounter.tokens());
        end(Outcome.relayed(record.status(), tokenCounter.reportedError()), null);
        receiver.exchangeDone(this);
    }

    @Override
    public void onClientGone() {
        switch (state) {
            case QUEUED -> {
                leftQueue(); // the wait it gave up on
                ticket.cancel();
            }
            case PAUSED -> ticket.cancel();
            case RELAYING -> call.cancel();
            default -> { }
        }
        clientGone();
    }

    /** Records the time waited in the queue by a request that leaves it without a slot. */
    private void leftQueue() {
        record.leftQueue(System.nanoTime() - submittedNanos);
    }

    private void clientGone() {
        end(Outcome.CLIENT_GONE, null);
    }

    /** After a backend failure: an error response if nothing was sent yet, else all we can do is close. */
    private void failRelay(UpstreamFailure failure) {
        if (clientHeadSent) {
            end(failure.outcome(), null);
            ctx.close();
        } else {
            FullHttpResponse response = errorResponse(failure.error(), failure.message(sentTo.config()), null);
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
        FullHttpResponse response = Responses.error(ctx.alloc(), record.path(), error, message, param);
        response.headers().set(TriageHeaders.REQUEST_ID, record.id());
        if (job != null || slot != null) {
            addTriageHeaders(response);
        }
        return response;
    }

    /** The estimate header is left out when the request was sent before its estimate was known. */
    private void addTriageHeaders(HttpResponse response) {
        long queuedNanos = slot != null ? record.queuedNanos() : System.nanoTime() - submittedNanos;
        response.headers()
                .set(TriageHeaders.REQUEST_ID, record.id())
                .set(TriageHeaders.QUEUE_MS, Math.round(queuedNanos / 1e6))
                .set(TriageHeaders.POLICY, context.policy().label());
        if (admittedPosition >= 0) {
            response.headers().set(TriageHeaders.QUEUE_POSITION, admittedPosition)
                    .set(TriageHeaders.EXPECTED_WAIT_MS, Math.round(admittedWaitSeconds * 1e3));
        }
        if (record.estimate() != null) {
            response.headers().set(TriageHeaders.ESTIMATE_TOKENS, Math.round(record.estimate().expectedTokens()));
        }
    }

    /** The one way an exchange ends: its body freed, its record reported. */
    private void end(Outcome outcome, String reason) {
        state = State.OVER;
        if (body != null) {
            body.release();
        }
        if (record.end(outcome, reason, System.nanoTime()) && !sizingAfterSend) {
            report();
        }
    }

    /**
     * Reports the ended record, and a completed answer's real length against its estimate with the
     * time it held its slots: as a task of the event loop, which runs it after the reads at hand, so
     * that a client's next request on this loop is not held behind the bookkeeping of the last.
     */
    private void report() {
        ctx.executor().execute(this::reportNow);
    }

    private void reportNow() {
        context.observer().finished(record);
        if (record.estimate() != null) {
            record.wholeAnswerTokens().ifPresent(actual ->
                    group.queue().feedback(record.estimate().expectedTokens(), actual, record.servedNanos() / 1e9));
        }
    }
}
