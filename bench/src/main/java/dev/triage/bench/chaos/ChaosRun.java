package dev.triage.bench.chaos;

import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A fault-injection run: the replay backend and Triage (a process of its own, with paranoid leak
 * detection) on loopback, then operations drawn from the mix by several clients at once, each
 * checking what it saw; then the invariants, once Triage has come back to idle.
 *
 * <pre>{@code
 * ChaosReport report = ChaosRun.run(settings, () -> { });
 * System.out.print(report.markdown());
 * }</pre>
 */
final class ChaosRun {

    /** Requests sent after the run, and after a garbage collection, to show Triage still serves and to let Netty report leaks. */
    static final int CHECKS_AFTER = 20;

    /** The backend's speed: fast, so that a few thousand operations fit in a minute on one slot. */
    private static final ServiceTimeModel BACKEND_SPEED = new ServiceTimeModel(0.001, 0.0005);
    /**
     * Triage's {@code --starvation-timeout}: under shortest-job-first, a long request waits while shorter
     * ones keep coming, as it should; this bounds the wait well within a client's read timeout.
     */
    private static final Duration STARVATION_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Triage's client write and body timeouts: short, so that a client that stops reading or never sends
     * its body is cut off within the slow-client faults' patience.
     */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
    /**
     * Triage's client header timeout: within the trickled-head fault's patience (12 s), and above the
     * few seconds a pipelined request's head may wait behind the answers before it, whose wait the
     * header timeout counts today (docs/reliability.md).
     */
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(8);
    private static final Duration SETTLE_WITHIN = Duration.ofSeconds(60);
    private static final Duration SAMPLE_EVERY = Duration.ofMillis(500);

    private ChaosRun() {}

    /** Runs it; {@code afterEachOp} hears of every operation that ended. */
    static ChaosReport run(ChaosSettings settings, Runnable afterEachOp) throws IOException, InterruptedException {
        Examples examples = new Examples(3);
        String canary = "canary" + Long.toHexString(new Random(settings.seed()).nextLong() & Long.MAX_VALUE);
        LogScan scan = new LogScan(canary, examples);
        ForwardingLedger ledger = new ForwardingLedger(examples, settings.pausesStreams());
        AudioSamples audio = AudioSamples.load(settings.audio());
        ReplayBackendSettings backendSettings = ReplayBackendSettings.builder()
                .slots(settings.maxConcurrency())
                .speed(BACKEND_SPEED)
                .keepAliveTimeout(settings.backendKeepAlive())
                .maxRequestBytes(ChaosSettings.MAX_AUDIO_BODY_BYTES * 2)
                .build();
        try (ReplayBackend backend = ReplayBackend.start(backendSettings, ledger);
                TriageProcess triage = TriageProcess.start(jvmOptions(), flags(settings, backend),
                        settings.workDir().resolve("triage.log"), scan)) {
            ChaosTarget target = new ChaosTarget(triage.port(), backend, ledger, settings, canary, audio);
            awaitReady(triage.port(), settings.readTimeout());
            ProcessSample start = triage.sample();
            QueueState before = QueueState.read(triage.port(), settings.readTimeout());
            AtomicReference<ProcessSample> peak = new AtomicReference<>(start);
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(new DaemonThreadFactory("chaos-sampler"));
            sampler.scheduleAtFixedRate(() -> peak.accumulateAndGet(triage.sample(), ProcessSample::max),
                    0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            long began = System.nanoTime();
            Map<FaultKind, KindTally> tallies = new EnumMap<>(FaultKind.class);
            settings.kinds().forEach(kind -> tallies.put(kind, new KindTally(kind)));
            AtomicReference<ProcessSample> warm = new AtomicReference<>();
            try {
                runOps(settings, target, tallies, examples, () -> {
                    if (warm.get() == null) {
                        warm.compareAndSet(null, triage.sample());
                    }
                }, afterEachOp);
            } finally {
                sampler.shutdownNow();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            long lastOp = System.nanoTime();
            QueueState after = settle(triage.port(), settings.readTimeout());
            Duration settledAfter = Duration.ofNanos(System.nanoTime() - lastOp);
            triage.collectGarbage();
            int servedAfter = checksAfter(settings, target, examples);
            ProcessSample end = triage.sample();
            long faults = backend.faultsStruck();
            long closures = backend.keepAliveClosures();
            int exitStatus = triage.stop(Duration.ofSeconds(60));
            List<KindTally.Summary> kinds = new ArrayList<>();
            tallies.values().forEach(tally -> kinds.add(tally.summary()));
            return new ChaosReport(settings, took, kinds, ledger.tally(), scan.tally(), before, after, settledAfter, start,
                    warm.get(), peak.get(), end, servedAfter, faults, closures, exitStatus, examples.snapshot());
        }
    }

    /**
     * The operations, {@code clients} at a time. An {@link FaultKind#alone() alone} kind waits for the
     * others in flight to end, and holds the rest back while it runs.
     */
    private static void runOps(ChaosSettings settings, ChaosTarget target, Map<FaultKind, KindTally> tallies, Examples examples,
            Runnable warmedUp, Runnable afterEachOp) throws InterruptedException {
        ExecutorService clients = Executors.newFixedThreadPool(settings.clients(), new DaemonThreadFactory("chaos-client"));
        ReadWriteLock traffic = new ReentrantReadWriteLock(true);
        AtomicInteger done = new AtomicInteger();
        int warmAt = Math.max(1, settings.ops() / 10);
        List<Future<?>> ops = new ArrayList<>();
        for (int id = 0; id < settings.ops(); id++) {
            Random random = new Random(settings.seed() * 1_000_003L + id);
            FaultKind kind = FaultKind.draw(settings.kinds(), random);
            Op op = new Op(id, random, target);
            ops.add(clients.submit(() -> {
                var lock = kind.alone() ? traffic.writeLock() : traffic.readLock();
                lock.lock();
                long opStart = System.nanoTime();
                Verdict verdict;
                try {
                    verdict = kind.run(op);
                } catch (IOException | RuntimeException e) {
                    verdict = Verdict.not(e.getClass().getSimpleName() + ": " + e.getMessage());
                } finally {
                    lock.unlock();
                }
                tallies.get(kind).add(verdict, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opStart));
                if (!verdict.expected()) {
                    examples.add(kind.label(), "op " + op.id + ": " + verdict.seen());
                }
                if (done.incrementAndGet() == warmAt) {
                    warmedUp.run();
                }
                afterEachOp.run();
            }));
        }
        clients.shutdown();
        for (Future<?> op : ops) {
            try {
                op.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("an operation failed outside its checks", e.getCause());
            }
        }
    }

    /** Waits for {@code /readyz} to say 200: Triage has seen the backend up. */
    private static void awaitReady(int port, Duration readTimeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + SETTLE_WITHIN.toNanos();
        while (status(port, "/readyz", readTimeout) != 200) {
            if (System.nanoTime() > deadline) {
                throw new IOException("Triage was not ready within " + SETTLE_WITHIN.toSeconds() + " s");
            }
            Thread.sleep(50); // polling an external process, which has no event to wait on
        }
    }

    private static int status(int port, String path, Duration readTimeout) throws IOException {
        try (HttpConnection connection = HttpConnection.open(port, readTimeout)) {
            connection.write("GET " + path + " HTTP/1.1\r\nhost: 127.0.0.1:" + port + "\r\n\r\n");
            HttpConnection.Response response = connection.readResponse();
            return response == null ? 0 : response.status();
        }
    }

    /** Waits for Triage to come back to idle, and returns how it then stands (or stood when the wait ran out). */
    private static QueueState settle(int port, Duration readTimeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + SETTLE_WITHIN.toNanos();
        QueueState state = QueueState.read(port, readTimeout);
        while (!state.idle() && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling an external process, which has no event to wait on
            state = QueueState.read(port, readTimeout);
        }
        return state;
    }

    /** Well-formed requests after the run: how many were answered whole. */
    private static int checksAfter(ChaosSettings settings, ChaosTarget target, Examples examples) {
        int served = 0;
        for (int i = 0; i < CHECKS_AFTER; i++) {
            int id = settings.ops() + i;
            Op op = new Op(id, new Random(settings.seed() * 1_000_003L + id), target);
            Verdict verdict;
            try {
                verdict = FaultKind.ANSWERED.run(op);
            } catch (IOException e) {
                verdict = Verdict.not(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            if (verdict.expected()) {
                served++;
            } else {
                examples.add("requests after the run", "op " + id + ": " + verdict.seen());
            }
        }
        return served;
    }

    private static List<String> jvmOptions() {
        return List.of("-Xmx256m", "-Dio.netty.leakDetection.level=paranoid", "-Dio.netty.leakDetection.targetRecords=4");
    }

    private static List<String> flags(ChaosSettings settings, ReplayBackend backend) {
        List<String> flags = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--backend", backend.uri().toString(),
                "--max-concurrency", Integer.toString(settings.maxConcurrency()),
                "--upstream-timeout", settings.upstreamTimeout().toMillis() + "ms",
                "--starvation-timeout", STARVATION_TIMEOUT.toMillis() + "ms",
                "--client-write-timeout", CLIENT_TIMEOUT.toMillis() + "ms",
                "--client-header-timeout", HEADER_TIMEOUT.toMillis() + "ms",
                "--client-body-timeout", CLIENT_TIMEOUT.toMillis() + "ms",
                "--max-body", Integer.toString(ChaosSettings.MAX_BODY_BYTES),
                "--max-audio-body", Integer.toString(ChaosSettings.MAX_AUDIO_BODY_BYTES)));
        flags.addAll(settings.triageOptions());
        return flags;
    }
}
