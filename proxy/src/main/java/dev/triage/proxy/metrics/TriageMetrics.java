package dev.triage.proxy.metrics;

import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.TenantLedger;
import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.Theta;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyEventExecutorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.concurrent.EventExecutorGroup;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Triage's Prometheus metrics, on one Micrometer registry. Labels are bounded: backend,
 * predicted class (short, medium, long, unknown), outcome, estimator, rejection reason, and the
 * tenants of fair shares (those configured, a few more, the rest as other) — never a prompt, an API
 * key or a request id. The names, as Prometheus sees them, are listed in the README.
 */
public final class TriageMetrics implements RequestObserver, AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

    /*
     * A finished request's meters, each resolved once per label set and then looked up, not built
     * per request. The label values are bounded (the configured backends, the estimate's classes,
     * the outcomes, the rejection reasons), and so are these maps. A meter is still registered when
     * first used, so a scrape shows the same series as before any caching.
     */
    private final Map<String, Timer> estimatorTimers = new ConcurrentHashMap<>();
    private final Map<BackendClass, Timer> queueWaits = new ConcurrentHashMap<>();
    private final Map<BackendClass, Timer> firstBytes = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejections = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> estimatedTokens = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> actualTokens = new ConcurrentHashMap<>();
    private final Map<BackendClassOutcome, Timer> requests = new ConcurrentHashMap<>();

    private record BackendClass(String backend, String lengthClass) {}

    private record BackendClassOutcome(String backend, String lengthClass, Outcome outcome) {}

    public TriageMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // The allocator every channel uses (Netty 4.2's adaptive one unless -Dio.netty.allocator.type says otherwise).
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            new NettyAllocatorMetrics(allocator).bindTo(registry);
        }
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Pending tasks and workers of Netty's event loops. */
    public void bindEventLoops(EventExecutorGroup group) {
        new NettyEventExecutorMetrics(group).bindTo(registry);
    }

    /** The gauges of one backend's queue. */
    public void bindQueue(BackendQueue queue) {
        Tags backend = Tags.of("backend", queue.name());
        Gauge.builder("triage.queue.depth", queue, BackendQueue::waitingCount).tags(backend)
                .description("Requests waiting in Triage's queue").register(registry);
        Gauge.builder("triage.inflight", queue, BackendQueue::busySlots).tags(backend)
                .description("Requests running at the backend").register(registry);
        Gauge.builder("triage.slots", queue, BackendQueue::slots).tags(backend)
                .description("Requests the backend may run at once (max-concurrency, or the limit an adaptive one has found)")
                .register(registry);
        Gauge.builder("triage.ranking.accuracy", queue, BackendQueue::rankingAccuracy).tags(backend)
                .description("Share of (short, long) pairs of recent requests, by real length, whose estimates were in the right order")
                .register(registry);
        FunctionCounter.builder("triage.starvation.promotions", queue, BackendQueue::starvationPromotions).tags(backend)
                .description("Requests sent ahead of the policy because they waited longer than the starvation timeout")
                .register(registry);
        FunctionCounter.builder("triage.preemptions", queue, BackendQueue::pauses).tags(backend)
                .description("Times a running request was paused for another (policy laps)").register(registry);
        FunctionCounter.builder("triage.resumes", queue, BackendQueue::resumes).tags(backend)
                .description("Times a paused request was resumed").register(registry);
        FunctionCounter.builder("triage.reprefilled.tokens", queue, BackendQueue::reprefilledTokens).tags(backend)
                .description("Tokens generated before a pause that resuming sent back to the backend (read again unless its cache holds them)").register(registry);
        queue.ewsjf().ifPresent(ewsjf -> bindEwsjf(ewsjf, backend));
    }

    /** Each backend's share of a queue shared by several: whether jobs are bound to it, and how many it runs. */
    public void bindPoolBackends(BackendQueue queue) {
        for (int i = 0; i < queue.backends().size(); i++) {
            int index = i;
            Tags tags = Tags.of("queue", queue.name(), "backend", queue.backends().get(i).name());
            Gauge.builder("triage.backend.in.service", queue, q -> q.inService(index) ? 1 : 0).tags(tags)
                    .description("1 while jobs are bound to the backend, 0 while it is ejected (its probe failed, or it refused a connection)")
                    .register(registry);
            Gauge.builder("triage.backend.inflight", queue, q -> q.busySlots(index)).tags(tags)
                    .description("Requests running at the backend").register(registry);
            Gauge.builder("triage.backend.slots", queue, q -> q.backends().get(index).slots()).tags(tags)
                    .description("Requests the backend may run at once (its max-concurrency)").register(registry);
        }
    }

    /** EWSJF's learnt state: its queues, its trials, the latest reward and the parameters Θ in force. */
    private void bindEwsjf(EwsjfQueues<?> ewsjf, Tags backend) {
        Gauge.builder("triage.ewsjf.queues", ewsjf, EwsjfQueues::queueCount).tags(backend)
                .description("EWSJF's queues in force, bubble queues included").register(registry);
        FunctionCounter.builder("triage.ewsjf.trials", ewsjf, EwsjfQueues::trialCount).tags(backend)
                .description("Trials EWSJF's meta-optimizer has scored").register(registry);
        Gauge.builder("triage.ewsjf.reward", ewsjf, q -> q.lastTrial() == null ? Double.NaN : q.lastTrial().reward().reward())
                .tags(backend).description("The reward of EWSJF's latest scored trial").register(registry);
        Map<String, ToDoubleFunction<Theta>> parameters = Map.of(
                "urgency_slope", Theta::urgencySlope, "urgency_base", Theta::urgencyBase,
                "fairness_slope", Theta::fairnessSlope, "fairness_base", Theta::fairnessBase, "alpha", Theta::alpha);
        parameters.forEach((name, parameter) -> Gauge.builder("triage.ewsjf.theta", ewsjf, q -> parameter.applyAsDouble(q.theta()))
                .tags(backend.and("parameter", name)).description("The EWSJF parameters in force").register(registry));
    }

    /**
     * The backend time each tenant was served at one backend, and its jobs sent there, under the
     * ledger's bounded labels.
     */
    public void bindTenants(String backend, TenantLedger ledger) {
        ledger.onNewLabel(tenant -> {
            TenantLedger.Account account = ledger.account(tenant);
            Tags tags = Tags.of("backend", backend, "tenant", tenant);
            FunctionCounter.builder("triage.tenant.served", account, TenantLedger.Account::servedSeconds).tags(tags)
                    .baseUnit("seconds").description("Seconds a tenant's requests held a backend slot, counted as each ends")
                    .register(registry);
            FunctionCounter.builder("triage.tenant.dispatched", account, TenantLedger.Account::dispatched).tags(tags)
                    .description("Requests of a tenant given a backend slot").register(registry);
        });
    }

    /** The gauges of what one backend's learner has learned, and how its estimates fare against the frozen ones. */
    public void bindLearner(BackendLearner learner) {
        String[] key = learner.key().split("/", 2);
        Tags tags = Tags.of("backend", key[0], "kind", key[1]);
        String logError = "Running mean |ln(estimate / actual tokens)| of completed requests, each estimate made before its answer";
        Map.<String, ToDoubleFunction<BackendLearner>>of("learned", BackendLearner::learnedLogError, "frozen",
                BackendLearner::frozenLogError).forEach((estimates, error) -> Gauge.builder("triage.learned.log.error", learner, error)
                .tags(tags).tag("estimates", estimates).description(logError).register(registry));
        Gauge.builder("triage.learned.service.log.error", learner, BackendLearner::serviceLogError).tags(tags)
                .description("Running mean |ln(expected / actual seconds)| of completed requests' service times")
                .register(registry);
        Gauge.builder("triage.learned.base", learner, l -> l.serviceTime().baseSeconds()).tags(tags).baseUnit("seconds")
                .description("Learned seconds every request costs the backend").register(registry);
        Gauge.builder("triage.learned.prefill", learner, l -> l.serviceTime().secondsPerPromptToken()).tags(tags)
                .baseUnit("seconds").description("Learned prefill seconds per prompt token").register(registry);
        Gauge.builder("triage.learned.decode", learner, l -> l.serviceTime().secondsPerToken()).tags(tags).baseUnit("seconds")
                .description("Learned seconds per output token with nothing else running").register(registry);
        Gauge.builder("triage.learned.batch.growth", learner, l -> l.serviceTime().growthPerRunning()).tags(tags)
                .description("Learned slowdown of a decode step per further running request").register(registry);
        Map.<String, ToDoubleFunction<BackendLearner>>of("repeats", BackendLearner::repeatLogError, "model",
                BackendLearner::repeatModelLogError).forEach((estimates, error) -> Gauge.builder("triage.learned.repeat.log.error",
                learner, error).tags(tags).tag("estimates", estimates).description(logError + ", over repeated prompts only")
                .register(registry));
        Map.<String, ToDoubleFunction<BackendLearner>>of("frozen", BackendLearner::frozenRankingAccuracy, "adapted",
                BackendLearner::adaptedRankingAccuracy).forEach((estimates, accuracy) -> Gauge.builder(
                "triage.learned.ranking.accuracy", learner, accuracy).tags(tags).tag("estimates", estimates)
                .description("Ranking accuracy over the last 500 answers to prompts, each estimate made before its answer")
                .register(registry));
        Gauge.builder("triage.learned.ranking.adapted.serving", learner, l -> l.adaptationServes() ? 1 : 0).tags(tags)
                .description("1 while the order learned from this backend's answers serves the estimates").register(registry);
        Gauge.builder("triage.learned.repeats", learner, BackendLearner::repeatsRemembered).tags(tags)
                .description("Prompt fingerprints whose answers are remembered").register(registry);
        Gauge.builder("triage.learned.repeats.serving", learner, l -> l.repeatsServe() ? 1 : 0).tags(tags)
                .description("1 while remembered answers serve the estimates of repeated prompts").register(registry);
        FunctionCounter.builder("triage.learned.requests", learner, BackendLearner::learned).tags(tags)
                .description("Completed requests learned from").register(registry);
    }

    /**
     * The chat queue again under the names vLLM gives its own, for a router that reads them from every
     * model-server pod (the Gateway API Inference Extension's endpoint picker does): behind Triage,
     * vLLM's own queue stays empty and the requests that wait are Triage's. Triage cannot see the KV
     * cache; in its place it reports the share of its slots in use, which reaches 1 when the next
     * request would wait, the moment a router should call this pod saturated.
     */
    public void bindVllmNames(BackendQueue queue) {
        Gauge.builder("vllm:num_requests_waiting", queue, BackendQueue::waitingCount)
                .description("Requests waiting in Triage's queue (vLLM's name)").register(registry);
        Gauge.builder("vllm:num_requests_running", queue, BackendQueue::busySlots)
                .description("Requests running at the backend (vLLM's name)").register(registry);
        Gauge.builder("vllm:kv_cache_usage_perc", queue, q -> (double) q.busySlots() / q.slots())
                .description("Share of Triage's slots in use, 0 to 1, in place of the KV cache usage vLLM reports")
                .register(registry);
    }

    /** The timer an estimator's calls are recorded in. */
    public Timer estimatorTimer(String estimator) {
        return estimatorTimers.computeIfAbsent(estimator, name -> Timer.builder("triage.estimator").tag("estimator", name)
                .description("Time to estimate one request")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1_000))
                .maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry));
    }

    /** Counts the chat requests the fallback estimator sized, for one reason ({@code loading}, {@code saturated}, ...). */
    public Counter estimatorFallbacks(String reason) {
        return Counter.builder("triage.estimator.fallbacks").tag("reason", reason)
                .description("Chat requests sized by the fallback estimator because the configured one could not in time")
                .register(registry);
    }

    /** Counts uploads whose audio duration could not be read (estimated from their size instead). */
    public Counter audioUnreadable() {
        return Counter.builder("triage.audio.unreadable")
                .description("Audio uploads whose duration could not be read from the container").register(registry);
    }

    @Override
    public void finished(RequestRecord r) {
        String cls = r.classLabel();
        BackendClass backendClass = new BackendClass(r.backend(), cls);
        if (r.queuedNanos() >= 0) {
            queueWaits.computeIfAbsent(backendClass, k -> latency("triage.queue.wait", "Time a request waited in Triage's queue")
                    .tags("backend", k.backend(), "class", k.lengthClass()).register(registry))
                    .record(r.queuedNanos(), TimeUnit.NANOSECONDS);
        }
        if (r.firstByteNanos() >= 0) {
            firstBytes.computeIfAbsent(backendClass, k -> latency("triage.time.to.first.byte",
                    "Time from a request's arrival to the backend's first byte")
                    .tags("backend", k.backend(), "class", k.lengthClass()).register(registry))
                    .record(r.firstByteNanos(), TimeUnit.NANOSECONDS);
        }
        if (r.outcome() == Outcome.REJECTED) {
            rejections.computeIfAbsent(r.reason(), reason -> Counter.builder("triage.rejected").tag("reason", reason)
                    .description("Requests Triage refused, by reason").register(registry)).increment();
        }
        if (r.estimate() != null && r.outcome() == Outcome.OK) {
            estimatedTokens.computeIfAbsent(r.backend(), backend -> tokens("triage.estimate.tokens",
                    "Expected output tokens of completed requests").tags("backend", backend).register(registry))
                    .record(r.estimate().expectedTokens());
            r.actualTokens().ifPresent(actual -> actualTokens.computeIfAbsent(r.backend(), backend -> tokens(
                    "triage.actual.tokens", "Real output tokens of completed requests (usage, or streamed events)")
                    .tags("backend", backend).register(registry)).record(actual));
        }
        // Last, so that a scrape that counts a request also sees everything else it recorded.
        requests.computeIfAbsent(new BackendClassOutcome(r.backend(), cls, r.outcome()),
                k -> latency("triage.request", "Time from a request's arrival to its end")
                        .tags("backend", k.backend(), "class", k.lengthClass(), "outcome", k.outcome().label())
                        .register(registry))
                .record(r.totalNanos(), TimeUnit.NANOSECONDS);
    }

    private static Timer.Builder latency(String name, String description) {
        return Timer.builder(name).description(description)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(30));
    }

    private static DistributionSummary.Builder tokens(String name, String description) {
        return DistributionSummary.builder(name).description(description).baseUnit("tokens")
                .publishPercentileHistogram()
                .minimumExpectedValue(1.0)
                .maximumExpectedValue(100_000.0);
    }

    /** The exposition text for a scrape that sent {@code accept} (OpenMetrics when it asks for it). */
    public Scrape scrape(String accept) {
        boolean openMetrics = accept != null && accept.contains("application/openmetrics-text");
        String contentType = openMetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        return new Scrape(contentType, registry.scrape(contentType));
    }

    /** A scrape's body and its content type. */
    public record Scrape(String contentType, String body) {}

    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }
}
