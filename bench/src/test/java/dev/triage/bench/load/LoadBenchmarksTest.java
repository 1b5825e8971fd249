package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.bench.PcmWav;
import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.AudioFile;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.features.ChatBody;
import dev.triage.proxy.Triage;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ContinuingBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load generator over real HTTP, through Triage and directly, against the replay backend. */
class LoadBenchmarksTest {

    /** The replay backend's speed in the order tests: 2 ms of prefill, then 5 ms a token. */
    private static final ServiceTimeModel SPEED = new ServiceTimeModel(0.002, 0.005);
    /**
     * A first answer of 6 s, which holds the serial backend's slot while the burst is queued behind it:
     * the burst takes a quarter of a second to send, and a loaded machine may take many times that.
     */
    private static final int BLOCKER_TOKENS = 1_200;
    private static final double BURST_SPACING_SECONDS = 0.03;
    /** Answer lengths of a burst, in tokens, in the order they are sent. */
    private static final List<Integer> BURST_TOKENS = List.of(7, 3, 120, 40, 15, 80, 1, 60);

    @TempDir
    Path dir;

    private static List<WorkloadEntry> workload() {
        List<WorkloadEntry> entries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            entries.add(new WorkloadEntry("short question " + i, 5 + i, "short", "test"));
            entries.add(new WorkloadEntry("long essay " + i, 600 + 10 * i, "long", "test"));
        }
        return entries;
    }

    /** A burst keeps its shuffled order on the wire: one request after the other, a fixed spacing apart. */
    @Test
    void aBurstIsSentInItsShuffledOrderAFixedSpacingApart() {
        List<LoadRequest> burst = BurstBenchmark.burst(workload(), 3);
        List<LoadRequest> again = BurstBenchmark.burst(workload(), 3);
        assertEquals(burst, again, "the run's seed decides the order");
        assertFalse(burst.stream().map(LoadRequest::entry).toList().equals(workload()), "shuffled");
        for (int i = 0; i < burst.size(); i++) {
            assertEquals(i * BurstBenchmark.SPACING_SECONDS, burst.get(i).sendAtSeconds(), 1e-12);
        }
    }

    /**
     * What the burst benchmark reports, not how fast: its timing ratios are the benchmark's findings
     * ({@code scripts/bench burst}), measured on a quiet machine, never asserted by a test.
     */
    @Test
    void aBurstReportsEveryVariantAndClassWithItsFindings() throws Exception {
        List<LoadVariant> variants = List.of(LoadVariant.parse("direct", Duration.ZERO), LoadVariant.parse("fcfs", Duration.ZERO),
                LoadVariant.parse("oracle-sjf", Duration.ZERO));
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(workload(), variants, 1,
                new ServiceTimeModel(0.002, 0.0005), 1, List.of(), ChatApi.OPENAI));
        for (String variant : List.of("direct", "fcfs", "oracle-sjf")) {
            for (String jobClass : List.of("short", "long")) {
                assertEquals(8, result.endToEnd().stream().filter(r -> r.policy().equals(variant) && r.jobClass().equals(jobClass))
                        .findFirst().orElseThrow().requests(), variant + " " + jobClass);
            }
        }
        assertTrue(result.firstToken().stream().allMatch(r -> r.seconds(Statistic.P50) > 0));
        assertTrue(result.findings().contains("oracle-sjf       short P50 "), result.findings());
    }

    /**
     * Through Triage with an oracle, the serial backend serves a queued burst shortest first: its own
     * log of completed answers is in ascending length.
     */
    @Test
    void anOracleServesAQueuedBurstShortestFirstByTheBackendsOwnLog() throws Exception {
        List<WorkloadEntry> burst = BURST_TOKENS.stream()
                .map(tokens -> new WorkloadEntry("question " + tokens, tokens, tokens < 50 ? "short" : "long", "test")).toList();
        List<Integer> shortestFirst = new ArrayList<>(List.of(BLOCKER_TOKENS));
        shortestFirst.addAll(BURST_TOKENS.stream().sorted().toList());
        assertEquals(shortestFirst, servedBehindABlocker("oracle-sjf", ChatApi.OPENAI, burst));
    }

    /** The replay backend sends a role-only chunk when a request starts; the first token is the first text, after the fixed cost. */
    @Test
    void aChatsFirstTokenIsItsFirstTextNotTheRoleChunkBeforeIt() throws Exception {
        WorkloadEntry chat = new WorkloadEntry("a question", 5, "short", "test");
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().answers(AnswerBook.of(List.of(chat)))
                .speed(new ServiceTimeModel(0.3, 0.002)).build())) {
            LoadResult result = new LoadGenerator(ChatApi.OPENAI).run(URI.create("http://127.0.0.1:" + backend.port()),
                    List.of(new LoadRequest(chat, 0))).get(0);
            assertEquals(200, result.status());
            assertTrue(result.firstTokenSeconds() >= 0.3 && result.firstTokenSeconds() <= result.endToEndSeconds(), result.toString());
        }
    }

    @Test
    void anAudioEntryIsTranscribedWithItsRecordedLength() throws Exception {
        WorkloadEntry speech = audioEntry("tone.wav", 2.0, 50, "long");
        AnswerBook answers = AnswerBook.of(List.of(speech));
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().answers(answers)
                .speed(new ServiceTimeModel(0, 0.002)).build())) {
            LoadResult result = new LoadGenerator(ChatApi.OPENAI).run(URI.create("http://127.0.0.1:" + backend.port()),
                    List.of(new LoadRequest(speech, 0))).get(0);
            assertEquals(200, result.status());
            assertEquals("long", result.jobClass());
            // The recorded 50 tokens, not the size rule's 2 s x 3 tokens/s.
            assertEquals(List.of(50), backend.completedTokens());
            assertTrue(result.firstTokenSeconds() > 0 && result.firstTokenSeconds() <= result.endToEndSeconds(), result.toString());
        }
    }

    /**
     * Chat (by OpenAI's API or Ollama's) and speech share one serial backend behind Triage, with its
     * own estimators and with an oracle: in each kind the short request is served before the long one
     * that arrived first.
     */
    @Test
    void aMixedBurstOfChatByEitherApiAndAudioIsServedShortBeforeLongInEachKind() throws Exception {
        // The long ones are sent first, so first-come-first-served would serve them first.
        List<WorkloadEntry> burst = List.of(
                new WorkloadEntry("Write a detailed, multi-part essay on the history of jazz, covering its origins, "
                        + "its major eras, its key musicians, and its influence on other genres.", 60, "long", "test"),
                audioEntry("long.wav", 8.0, 30, "long"),
                new WorkloadEntry("Summarize the history of jazz in one sentence.", 4, "short", "test"),
                audioEntry("short.wav", 0.5, 3, "short"));
        for (String variant : List.of("sjf", "oracle-sjf")) {
            for (ChatApi api : ChatApi.values()) {
                String run = variant + " " + api;
                List<Integer> served = servedBehindABlocker(variant, api, burst);
                assertEquals(BLOCKER_TOKENS, served.get(0), run + ": " + served);
                assertTrue(served.indexOf(4) < served.indexOf(60), run + ", chat served in the order " + served);
                assertTrue(served.indexOf(3) < served.indexOf(30), run + ", speech served in the order " + served);
            }
        }
    }

    /**
     * Sends {@code burst} through Triage (as {@code variant}) to a serial replay backend whose slot a
     * long first answer already holds, so that the whole burst waits in Triage's queue and is released
     * by its policy alone; returns the backend's log of the answer lengths it completed, in order.
     */
    private static List<Integer> servedBehindABlocker(String variant, ChatApi api, List<WorkloadEntry> burst) throws Exception {
        WorkloadEntry blocker = new WorkloadEntry("the answer that holds the slot", BLOCKER_TOKENS, "long", "test");
        List<WorkloadEntry> entries = new ArrayList<>(burst);
        entries.add(blocker);
        AnswerBook answers = AnswerBook.of(entries);
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().answers(answers).speed(SPEED).build());
                Triage triage = LoadSession.startTriage(backend, answers, LoadVariant.parse(variant, Duration.ZERO), List.of())) {
            URI base = URI.create("http://127.0.0.1:" + triage.address().getPort());
            LoadSession.awaitReady(base); // else a ranker still loading leaves the burst to its fallback
            BackendQueue queue = triage.queues().get(0);
            CompletableFuture<List<LoadResult>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return new LoadGenerator(api).run(base, List.of(new LoadRequest(blocker, 0)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            Await.until("the first answer holds the backend's slot", () -> queue.busySlots() == 1);
            // In the burst's order, a little apart, so that first-come-first-served would keep that order.
            List<LoadRequest> requests = new ArrayList<>();
            for (int i = 0; i < burst.size(); i++) {
                requests.add(new LoadRequest(burst.get(i), i * BURST_SPACING_SECONDS));
            }
            List<LoadResult> results = new ArrayList<>(new LoadGenerator(api).run(base, requests));
            results.addAll(first.join());
            assertTrue(results.stream().allMatch(r -> r.status() == 200 && r.firstTokenSeconds() > 0), variant + " " + api + ": " + results);
            return backend.completedTokens();
        }
    }

    private WorkloadEntry audioEntry(String name, double seconds, int transcriptTokens, String jobClass) throws IOException {
        Path clip = dir.resolve(name);
        Files.write(clip, PcmWav.tone(seconds, 440, 16_000));
        return new WorkloadEntry("a tone of " + seconds + " s", transcriptTokens, jobClass, "test", Optional.of(AudioFile.read(clip)));
    }

    @Test
    void poissonArrivalsKeepTheirRateAndRepeatBySeed() {
        List<LoadRequest> requests = PoissonBenchmark.arrivals(workload(), 20_000, 4.0, 7);
        double span = requests.get(requests.size() - 1).sendAtSeconds();
        assertEquals(20_000 / 4.0, span, 20_000 / 4.0 * 0.03);
        assertEquals(requests, PoissonBenchmark.arrivals(workload(), 20_000, 4.0, 7));
    }

    /**
     * Every answer a server that generates what it is asked for completes has its workload's length,
     * which only the relay's header carried; the findings compare each variant run by run.
     */
    @Test
    void aBurstAtAServerThatGeneratesWhatItIsAskedForGetsTheLengthsThroughTheRelay() throws Exception {
        // A replay backend that knows no prompt generates each request's own limit, as llama-server does.
        try (ReplayBackend server = ReplayBackend.start(ReplayBackendSettings.builder().answers(AnswerBook.of(List.of()))
                .speed(new ServiceTimeModel(0.002, 0.0002)).defaultAnswerTokens(1).build())) {
            List<LoadVariant> variants = List.of(LoadVariant.parse("fcfs", Duration.ZERO),
                    LoadVariant.parse("sjf:baseline", Duration.ZERO), LoadVariant.parse("oracle-sjf", Duration.ZERO));
            int runs = 2;
            BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.ServerSettings(workload(), variants, runs,
                    URI.create("http://127.0.0.1:" + server.port()), List.of(), Optional.empty()));
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < variants.size() * runs; i++) {
                workload().forEach(entry -> expected.add(entry.answerTokens()));
            }
            assertEquals(expected.stream().sorted().toList(), server.completedTokens().stream().sorted().toList());
            assertTrue(result.findings().contains("sjf:baseline     short P50 "), result.findings());
            assertTrue(result.findings().contains("vs oracle-sjf (runs "), result.findings());
            assertTrue(result.findings().contains("by burst length: short P50 "), result.findings());
        }
    }

    /**
     * A Poisson run at a server that continues answers, as llama.cpp does: Triage under a laps variant
     * is told the server's dialect, so it pauses a long answer for the short ones that arrive behind
     * it, and each resumed request, carrying the answer so far, asks the server only for the rest of
     * the length that the relay set.
     */
    @Test
    void aPoissonLapsRunPausesOnTheServerAndAResumeAsksOnlyForTheRest() throws Exception {
        int longTokens = 600;
        // One long answer of 3 s in four: at this rate several short requests arrive while one runs.
        List<WorkloadEntry> workload = List.of(new WorkloadEntry("long essay", longTokens, "long", "test"),
                new WorkloadEntry("short question 1", 2, "short", "test"), new WorkloadEntry("short question 2", 2, "short", "test"),
                new WorkloadEntry("short question 3", 2, "short", "test"));
        ServiceTimeModel speed = new ServiceTimeModel(0.002, 0.005);
        try (ContinuingBackend server = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, Duration.ofMillis(5))) {
            List<PoissonBenchmark.Point> points = PoissonBenchmark.run(new PoissonBenchmark.Settings(workload,
                    List.of(LoadVariant.parse("laps:baseline", Duration.ZERO)), List.of(0.9), 12, 1, speed, 1, 1,
                    BatchSlowdown.DEFAULT, List.of("--laps", "levels=2,first-level=300ms,window-tokens=2,preemptive-levels=2"),
                    ChatApi.OPENAI, URI.create(server.url()), Optional.of(PreemptionDialect.LLAMA_CPP.label())));

            // A resume carries the answer so far as token ids after the templated chat (or, before the
            // template has come, as a trailing assistant message).
            List<JsonNode> continuations = server.bodies().stream()
                    .filter(body -> body.path("prompt").isArray()
                            || body.path("messages").path(body.path("messages").size() - 1).path("role").asText().equals("assistant"))
                    .toList();
            assertFalse(continuations.isEmpty(), "no request was resumed: " + server.bodies());
            for (JsonNode continuation : continuations) {
                JsonNode messages = continuation.path("messages");
                int soFar = continuation.path("prompt").isArray() ? continuation.path("prompt").size() - 1
                        : messages.path(messages.size() - 1).path("content").asText().split(" ").length;
                int asked = continuation.path("max_tokens").asInt();
                // The relay counts what it delivered, which may run ahead of the text Triage kept by the tokens
                // written while Triage paused it: a few, or more on a loaded machine (100 are half a second).
                assertTrue(soFar + asked <= longTokens && soFar + asked >= longTokens - 100,
                        asked + " tokens asked for after " + soFar + " of " + longTokens);
            }
            String figures = points.get(0).figures();
            assertTrue(figures.contains("pauses per run: laps:baseline " + continuations.size() + ".0 ± "), figures);
            assertTrue(figures.contains("resumes per run: laps:baseline " + continuations.size() + ".0 ± "), figures);
        }
    }

    @Test
    void findingsCompareRunByRunAndTakeOutTheDriftOfTheServersSpeed() {
        // In the second variant the server ran at half speed: its bursts last twice as long.
        RunSummaries fcfs = new RunSummaries("fcfs");
        RunSummaries sjf = new RunSummaries("sjf");
        for (int run = 0; run < 2; run++) {
            fcfs.add(new LoadSession.Outcome(List.of(new LoadResult("short", 0, 1, 10, 200), new LoadResult("long", 0, 1, 20, 200)), 0, 0, 1,
                    LoadSession.Preemptions.NONE));
            sjf.add(new LoadSession.Outcome(List.of(new LoadResult("short", 0, 1, 5 + run, 200), new LoadResult("long", 0, 1, 40, 200)), 0,
                    3 * run, 1, LoadSession.Preemptions.NONE));
        }
        Map<String, RunSummaries> variants = new LinkedHashMap<>();
        variants.put("fcfs", fcfs);
        variants.put("sjf", sjf);
        String findings = new BurstBenchmark.Result(variants).findings();
        assertTrue(findings.startsWith("burst length (s): fcfs 20.0 ± 0.0; sjf 40.0 ± 0.0\n"
                + "throughput (requests/s): fcfs 0.10 ± 0.00; sjf 0.05 ± 0.00\n"
                + "Triage's slots at the end: fcfs 1.0 ± 0.0; sjf 1.0 ± 0.0\n"
                + "sized by the fallback estimator, per run: fcfs 0.0; sjf 1.5\n"), findings);
        assertTrue(findings.contains("sjf              short P50 -45.0% vs fcfs (runs -50.0% to -40.0%)"), findings);
        assertTrue(findings.contains("by burst length: short P50 -72.5% vs fcfs (runs -75.0% to -70.0%)"), findings);
    }

    @Test
    void aClassMissingFromSomeRunsHasItsRowOverTheRunsThatHadIt() {
        RunSummaries sjf = new RunSummaries("sjf");
        sjf.add(new LoadSession.Outcome(List.of(new LoadResult("short", 0, 1, 2, 200)), 0, 0, 1, LoadSession.Preemptions.NONE));
        sjf.add(new LoadSession.Outcome(List.of(new LoadResult("short", 0, 1, 4, 200), new LoadResult("long", 0, 1, 30, 200)), 0, 0, 1,
                LoadSession.Preemptions.NONE));
        Map<String, SummaryRow> rows = sjf.endToEnd().stream().collect(Collectors.toMap(SummaryRow::jobClass, row -> row));
        assertEquals(Set.of("short", "long", "all"), rows.keySet());
        assertEquals(3.0, rows.get("short").seconds(Statistic.P50), 1e-9);
        assertEquals(30.0, rows.get("long").seconds(Statistic.P50), 1e-9);
        assertEquals(1.0, rows.get("long").requests(), 1e-9);
    }

    @Test
    void aChatRequestNeverCarriesItsLengthWhereTriageReadsIt() {
        WorkloadEntry entry = new WorkloadEntry("long essay", 900, "long", "test");
        ObjectNode body = LoadGenerator.chatBody(entry, false);
        for (String limit : List.of("max_tokens", "max_completion_tokens", "n_predict", "options", "priority")) {
            assertFalse(body.has(limit), limit + " in " + body);
        }
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body, ChatBody.Api.OPENAI));
        assertEquals(900, LoadGenerator.chatBody(entry, true).path("priority").asInt(), "an oracle's priority is the length");
    }

    @Test
    void variantNames() {
        LoadVariant tau = LoadVariant.parse("hrrn-tau", Duration.ofSeconds(5));
        assertEquals("hrrn", tau.policy());
        assertEquals(Duration.ofSeconds(5), tau.tau());
        assertTrue(LoadVariant.parse("oracle-sjf", Duration.ZERO).oracle());
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("lifo", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("sjf-tau", Duration.ZERO));
        LoadVariant ranker = LoadVariant.parse("sjf-tau:ranker", Duration.ofSeconds(5));
        assertEquals("sjf", ranker.policy());
        assertEquals(Optional.of("ranker"), ranker.estimator());
        List<String> flags = ranker.triageFlags("http://backend", List.of("--estimator", "classifier"));
        assertEquals("ranker", flags.get(flags.lastIndexOf("--estimator") + 1), "the variant's estimator wins: " + flags);
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("sjf:oracle", Duration.ZERO));
        LoadVariant frozen = LoadVariant.parse("hrrn-tau:lexical@frozen", Duration.ofSeconds(5));
        assertEquals(Optional.of("lexical"), frozen.estimator());
        List<String> frozenFlags = frozen.triageFlags("http://backend", List.of());
        assertEquals("false", frozenFlags.get(frozenFlags.indexOf("--online-learning") + 1), frozenFlags.toString());
        List<String> learningFlags = tau.triageFlags("http://backend", List.of());
        assertEquals("true", learningFlags.get(learningFlags.indexOf("--online-learning") + 1), learningFlags.toString());
    }
}
