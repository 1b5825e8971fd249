package dev.triage.proxy;

import dev.triage.features.Prompt;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.model.DurationEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.proxy.sizing.AudioSizer;
import dev.triage.proxy.sizing.AudioUploadReader;
import dev.triage.proxy.config.AudioConfig;
import dev.triage.proxy.config.EstimatorConfig;
import dev.triage.proxy.sizing.ChatEstimation;
import dev.triage.proxy.sizing.ChatEstimators;
import dev.triage.proxy.sizing.ModelReloader;
import dev.triage.proxy.sizing.ModelWatcher;
import dev.triage.proxy.config.LearningConfig;
import dev.triage.proxy.config.TenantConfig;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.FeedbackLog;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.learning.OnlineLearning;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.server.Backend;
import dev.triage.proxy.metrics.RequestLog;
import dev.triage.proxy.metrics.RequestObserver;
import dev.triage.proxy.metrics.TriageMetrics;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.server.AdminAccess;
import dev.triage.proxy.sizing.ChatSizer;
import dev.triage.proxy.server.LocalRoutes;
import dev.triage.proxy.server.RouteKind;
import dev.triage.proxy.server.RouteTable;
import dev.triage.proxy.server.ScheduledTarget;
import dev.triage.proxy.server.BackendGroup;
import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.server.ServerContext;
import dev.triage.proxy.server.TenantKeys;
import dev.triage.proxy.server.TriageServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Triage: the estimators, the dispatch loop, the backends, the metrics and the server,
 * assembled from a {@link TriageConfig}. {@link Main} runs one per process; tests and benchmarks run
 * one in-process.
 *
 * <pre>{@code
 * try (Triage triage = Triage.start(config)) {
 *     int port = triage.address().getPort();
 *     ...
 * }
 * }</pre>
 */
public final class Triage implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Triage.class);

    /** How long stopping waits for the client connections to close. */
    static final Duration CLOSE_CONNECTIONS = Duration.ofSeconds(5);

    /** Uploads being read at once, and waiting to be read, before a new one is refused with a 429. */
    static final int AUDIO_READERS = Math.max(2, Runtime.getRuntime().availableProcessors());
    static final int AUDIO_READS_WAITING = 64;
    /** The prompt and answer tokens of the request that backends of different speeds are compared by. */
    private static final int TYPICAL_TOKENS = 200;

    private final TriageConfig config;
    private final TriageMetrics metrics;
    private final ChatEstimation chatEstimation;
    private final ModelReloader modelReloader;
    private final ModelWatcher modelWatcher;
    private final DispatchLoop dispatchLoop;
    private final Backends backends;
    private final AudioSizer audioSizer;
    private final OnlineLearning learning;
    private final RequestLog requestLog = new RequestLog();
    /** Null unless {@code --feedback-log} names a file. */
    private final FeedbackLog feedbackLog;
    private final AtomicInteger openExchanges = new AtomicInteger();
    private final ChannelGroup clients = new DefaultChannelGroup("triage-clients", GlobalEventExecutor.INSTANCE);
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final TriageServer server;
    /** The admin API's own listener, or null when it is served on {@link #server}. */
    private TriageServer adminServer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean stopping;

    private Triage(TriageConfig config, JobEstimator<Prompt> customEstimator) throws InterruptedException {
        this.config = config;
        EstimatorConfig estimator = config.estimator();
        feedbackLog = feedbackLog(config.learning()); // first: a file that cannot be opened stops the start before anything runs
        metrics = new TriageMetrics();
        try {
            chatEstimation = chatEstimation(estimator, customEstimator);
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
        if (customEstimator == null && estimator.hasModel()) {
            modelReloader = new ModelReloader(this::installModel, ChatEstimators.reloader(estimator),
                    ChatEstimators.modelLocation(estimator));
            modelWatcher = estimator.watch() ? watch(estimator.model().orElseThrow()) : null;
        } else {
            modelReloader = null;
            modelWatcher = null;
        }
        dispatchLoop = new DispatchLoop(Clock.system());
        backends = new Backends(config, dispatchLoop, metrics, this::expectedChatSeconds);
        audioSizer = audioSizer(config.audio(), metrics);
        learning = learning(config, chatEstimation.name(), backends, DurationEstimator.NAME);
        learning.learners().forEach(metrics::bindLearner);
        RouteTable.Builder routes = operationRoutes(RouteTable.standard(), chatEstimation);
        // With an admin address of its own, the admin API is served there alone, beside the operation routes.
        RouteTable.Builder adminRoutes = config.adminListen() == null ? routes
                : operationRoutes(RouteTable.builder().passingNothingThrough(), chatEstimation);
        adminRoutes
                .admin(HttpMethod.GET, "/triage/queue", LocalRoutes.queue(dispatchLoop.backends()))
                .admin(HttpMethod.GET, "/triage/ewsjf", LocalRoutes.ewsjf(dispatchLoop.backends()))
                .admin(HttpMethod.GET, "/triage/config", LocalRoutes.config(config.settings()))
                .admin(HttpMethod.POST, "/triage/reload", LocalRoutes.reload(modelReloader));
        acceptors = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("triage-accept"), NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("triage-io"), NioIoHandler.newFactory());
        metrics.bindEventLoops(workers);
        ServerContext context = new ServerContext(routes.build(), Map.of(RouteKind.CHAT, chatTarget(), RouteKind.AUDIO, audioTarget()),
                backends::passThrough, config.policy(), config.upstreamTimeout(), config.clientLimits(),
                observers(),
                new AdminAccess(config.adminToken(), config.listen().getHostString()), openExchanges, clients,
                tenantKeys(config.tenants()));
        try {
            server = TriageServer.bind("listen", config.listen(), context, acceptors, workers);
            if (config.adminListen() != null) {
                adminServer = TriageServer.bind("admin-listen", config.adminListen(), context.forListener(adminRoutes.build(),
                        new AdminAccess(config.adminToken(), config.adminListen().getHostString())), acceptors, workers);
            }
        } catch (RuntimeException | Error | InterruptedException e) {
            // The event loops' threads are not daemons: left running, they would keep a failed process alive.
            releaseResources();
            throw e;
        }
        log.info("listening on {}, {}, policy {}, starvation timeout {}, estimator {}, preemption {}",
                server.address(), describe(config), config.policy().label(),
                config.starvationTimeout().isZero() ? "off" : config.starvationTimeout(), chatEstimation.name(),
                config.preemption().label());
        if (adminServer != null) {
            log.info("admin API on {}", adminServer.address());
        }
        // Only once serving: a start that fails exits at once, never while a native library is loading.
        if (modelReloader != null && chatEstimation.state() == ChatEstimation.State.LOADING) {
            loadInBackground(estimator);
        }
    }

    /** The chat backends as the start-up line names them: where each is, and its slots. */
    private static String describe(TriageConfig config) {
        List<BackendConfig> backends = config.backends();
        List<String> described = new ArrayList<>();
        for (BackendConfig backend : backends) {
            int slots = backend.maxConcurrency();
            String auto = config.adaptiveConcurrency().map(bounds -> "auto: " + bounds.min() + " to ").orElse("");
            described.add((backends.size() == 1 ? "backend " : backend.name() + " ") + backend.url() + " (" + auto + slots + " slot"
                    + (slots == 1 ? "" : "s") + (backend.models().isEmpty() ? "" : ", models " + String.join("|", backend.models())) + ")");
        }
        return String.join(", ", described);
    }

    /**
     * What a typical chat request (200 prompt and 200 answer tokens) is expected to take at the chat
     * backend of this name now, by what its learner has learned: of several backends with a free
     * slot, the one with the least takes the next request.
     */
    private double expectedChatSeconds(String backend) {
        return learning.learner(backend, RouteKind.CHAT.label()).serviceTime().seconds(TYPICAL_TOKENS, TYPICAL_TOKENS, 1);
    }

    /** Adds the routes that tell how the process fares: health, readiness and metrics. */
    private RouteTable.Builder operationRoutes(RouteTable.Builder routes, ChatEstimation chatEstimation) {
        return routes
                .local(HttpMethod.GET, "/healthz", LocalRoutes.healthz())
                .local(HttpMethod.GET, "/readyz", LocalRoutes.readyz(this::ready, () -> Map.of("estimator", chatEstimation.name(),
                        "estimator_state", chatEstimation.state().label())))
                .local(HttpMethod.GET, "/metrics", LocalRoutes.metrics(metrics));
    }

    /**
     * The chat estimation: the caller's estimator, or the configured one loaded now when it is a fast
     * one, each with the fallback should it fail; or the fallback until the configured one has loaded in
     * the background.
     *
     * @throws dev.triage.model.classifier.ModelLoadException when a model loaded now, or the file of one
     *     to load in the background, cannot be read
     */
    private ChatEstimation chatEstimation(EstimatorConfig estimator, JobEstimator<Prompt> customEstimator) {
        if (customEstimator == null && estimator.loadsInBackground()) {
            ChatEstimators.requireModelFiles(estimator);
            return ChatEstimation.loading(estimator.name(), ChatEstimators.fallback(estimator), metrics::estimatorTimer,
                    metrics::estimatorFallbacks);
        }
        JobEstimator<Prompt> configured = customEstimator != null ? customEstimator : ChatEstimators.load(estimator);
        JobEstimator<Prompt> fallback = configured.name().equals(estimator.fallback()) ? null : ChatEstimators.fallback(estimator);
        return ChatEstimation.ready(configured, fallback, metrics::estimatorTimer, metrics::estimatorFallbacks);
    }

    /**
     * Serves a newly loaded model. What was learned of an old model's tokens does not hold for the new
     * one's, so the chat calibration starts again (the fallback's tokens teach it nothing). The first
     * load of a model that loads in the background is no new model: it is the configured one, as it is
     * for an estimator that loads before Triage serves, and what was restored for it stays. A first load
     * can also finish before the learners exist.
     */
    private void installModel(JobEstimator<Prompt> model) {
        // No model served yet: the background load, or a reload after it failed, of the configured model.
        boolean first = chatEstimation.state() != ChatEstimation.State.READY;
        OnlineLearning learners = learning;
        if (!first && learners != null) {
            // Before the model serves, so that once it is seen serving the forgetting is queued.
            backends.chat().forEach(group -> group.backends().forEach(
                    backend -> learners.modelChanged(backend.name(), RouteKind.CHAT.label())));
        }
        chatEstimation.install(model);
    }

    /** The learners of every backend, with what they learned; for a look, or a flush, from outside. */
    public OnlineLearning learning() {
        return learning;
    }

    /** Loads the configured model off the start-up path; Triage serves meanwhile, the fallback sizing its requests. */
    private void loadInBackground(EstimatorConfig estimator) {
        log.info("loading the {} estimator's model in the background; the {} estimator sizes requests until it is ready",
                estimator.name(), estimator.fallback());
        modelReloader.reload().thenAccept(result -> {
            if (!result.reloaded()) {
                chatEstimation.loadFailed();
                log.error("the {} estimator's model could not be loaded ({}); the {} estimator sizes every request until "
                        + "a reload (POST /triage/reload) succeeds", estimator.name(), result.message(), estimator.fallback());
            }
        });
    }

    private ModelWatcher watch(Path model) {
        try {
            return ModelWatcher.start(Set.of(model, ModelFiles.metadataPath(model)), modelReloader::reload);
        } catch (IOException e) {
            throw new UncheckedIOException("model-watch: cannot watch " + model.getParent(), e);
        }
    }

    private static TenantKeys tenantKeys(TenantConfig tenants) {
        if (!tenants.fairShare()) {
            return TenantKeys.NONE;
        }
        return tenants.header().map(TenantKeys::byHeader).orElseGet(TenantKeys::byApiKey);
    }

    /** What hears every finished request: the metrics, the request log, the learners and the feedback log, in that order. */
    private RequestObserver observers() {
        RequestObserver observers = metrics.andThen(requestLog).andThen(learning);
        return feedbackLog == null ? observers : observers.andThen(feedbackLog);
    }

    private static FeedbackLog feedbackLog(LearningConfig learning) {
        if (learning.feedbackLog().isEmpty()) {
            return null;
        }
        Path file = learning.feedbackLog().get();
        try {
            return FeedbackLog.open(file, learning.feedbackPrompts(), FeedbackLog.ROTATE_BYTES);
        } catch (IOException e) {
            throw new UncheckedIOException("feedback-log: cannot open " + file + " for writing (" + e + ")", e);
        }
    }

    private static OnlineLearning learning(TriageConfig config, String chatEstimator, Backends backends, String audioEstimator) {
        LearningConfig learning = config.learning();
        List<BackendLearner> learners = new ArrayList<>();
        backends.chat().forEach(group -> group.backends().forEach(backend ->
                learners.add(learner(backend, RouteKind.CHAT, chatEstimator, config.serviceTime(), learning.online()))));
        backends.audio().backends().forEach(backend ->
                learners.add(learner(backend, RouteKind.AUDIO, audioEstimator, config.audio().serviceTime(), learning.online())));
        return OnlineLearning.start(learning.stateDirectory(), learners);
    }

    private static BackendLearner learner(Backend backend, RouteKind kind, String estimator, ServiceTimeModel configured,
            boolean online) {
        return new BackendLearner(OnlineLearning.key(backend.name(), kind.label()), backend.config().url() + " " + estimator,
                LearnedServiceTime.of(configured), online);
    }

    /** A group of backends with the learners of this kind of request at each. */
    private BackendGroup group(Backends.Group group, RouteKind kind) {
        return new BackendGroup(group.queue(), group.backends(),
                group.backends().stream().map(backend -> learning.learner(backend.name(), kind.label())).toList(), group.models());
    }

    private ScheduledTarget chatTarget() {
        return new ScheduledTarget(backends.chat().stream().map(group -> group(group, RouteKind.CHAT)).toList(),
                new ChatSizer(chatEstimation), config.maxBody(), config.preemption(), config.forwardPriority());
    }

    private static AudioSizer audioSizer(AudioConfig audio, TriageMetrics metrics) {
        DurationEstimator estimator = new DurationEstimator(audio.tokenRates());
        return new AudioSizer(new AudioUploadReader(new AudioDurationReader(), audio.maxBody(), audio.voiceActivity()),
                estimator, metrics.estimatorTimer(estimator.name()), metrics.audioUnreadable(), AUDIO_READERS, AUDIO_READS_WAITING);
    }

    private ScheduledTarget audioTarget() {
        return new ScheduledTarget(List.of(group(backends.audio(), RouteKind.AUDIO)), audioSizer, config.audio().maxBody(),
                PreemptionDialect.OFF, false);
    }

    /**
     * Starts Triage as configured.
     *
     * @throws InterruptedException if interrupted while binding
     * @throws RuntimeException if the listen address cannot be bound
     */
    public static Triage start(TriageConfig config) throws InterruptedException {
        return new Triage(config, null);
    }

    /**
     * Starts Triage with a chat estimator of the caller's own instead of the configured one (for
     * embedding, and for benchmarks that size requests by their known lengths). Triage closes it.
     */
    public static Triage start(TriageConfig config, JobEstimator<Prompt> chatEstimator) throws InterruptedException {
        return new Triage(config, chatEstimator);
    }

    /** The address the server listens on (with the real port when the configured one was 0). */
    public InetSocketAddress address() {
        return server.address();
    }

    /** Where the admin API listens, when it has an address of its own. */
    public Optional<InetSocketAddress> adminAddress() {
        return Optional.ofNullable(adminServer).map(TriageServer::address);
    }

    /** Every backend's queue, the chat backend's first. */
    public List<BackendQueue> queues() {
        return dispatchLoop.backends();
    }

    /** Chat requests sized by the fallback estimator because the configured one could not in time. */
    public long estimatorFallbacks() {
        return chatEstimation.fallbacks();
    }

    /** Ready: not stopping, and every backend answered its last probe. */
    public boolean ready() {
        return !stopping && backends.allUp();
    }

    /**
     * Stops gracefully: no new connections, waiting requests answered 503, requests in flight given
     * up to the configured grace to finish; then everything is closed.
     */
    public void shutdown() {
        stopping = true;
        closeListeners();
        dispatchLoop.refuseAll();
        long deadline = System.nanoTime() + config.shutdownGrace().toNanos();
        // Refused requests leave within a moment; what stays open is in flight.
        while (openExchanges.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        int unfinished = openExchanges.get();
        if (unfinished > 0) {
            log.warn("shutting down with {} request{} still in flight after {}", unfinished, unfinished == 1 ? "" : "s",
                    config.shutdownGrace());
        }
        close();
    }

    /** Stops at once: waiting requests are refused and open connections closed. */
    @Override
    public void close() {
        stopping = true;
        closeListeners();
        dispatchLoop.refuseAll();
        releaseResources();
    }

    private void closeListeners() {
        server.close();
        if (adminServer != null) {
            adminServer.close();
        }
    }

    private void releaseResources() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // Closing the connections lets every exchange end (and free its slot and buffers) while the
        // event loops still run its callbacks.
        clients.close().awaitUninterruptibly(CLOSE_CONNECTIONS.toMillis());
        acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        audioSizer.close();
        if (modelWatcher != null) {
            modelWatcher.close();
        }
        if (modelReloader != null) {
            modelReloader.close();
        }
        dispatchLoop.close();
        requestLog.close();
        learning.close();
        if (feedbackLog != null) {
            feedbackLog.close();
        }
        backends.close();
        metrics.close();
        chatEstimation.close();
    }
}
