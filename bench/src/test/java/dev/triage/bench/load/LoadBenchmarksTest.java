package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.PcmWav;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.sim.LatencyStats.Statistic;
import dev.triage.bench.workload.AudioFile;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.config.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load generator over real HTTP, through Triage and directly, against the replay backend. */
class LoadBenchmarksTest {

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

    @Test
    void anOracleBurstServesShortRequestsFarSoonerThanFcfs() throws Exception {
        List<LoadVariant> variants = List.of(LoadVariant.parse("direct", Duration.ZERO), LoadVariant.parse("fcfs", Duration.ZERO),
                LoadVariant.parse("oracle-sjf", Duration.ZERO));
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(workload(), variants, 2,
                new ServiceTimeModel(0.002, 0.0005), 1, List.of(), ChatApi.OPENAI));
        double fcfs = result.seconds("fcfs", "short", Statistic.P50).orElseThrow();
        double oracle = result.seconds("oracle-sjf", "short", Statistic.P50).orElseThrow();
        // Generous: the burst's arrivals spread over tens of milliseconds, and the first to arrive runs.
        assertTrue(oracle < fcfs / 2, "oracle short P50 " + oracle + " s vs fcfs " + fcfs + " s");
        double direct = result.seconds("direct", "short", Statistic.P50).orElseThrow();
        // The backend admits requests as their connections arrive, which races; with these two runs' orders
        // its short P50 is about 0.8 s in arrival order against the oracle's 0.35 s, so allow for the race.
        assertTrue(direct > oracle * 1.5, "the backend alone is first-come-first-served: " + direct + " s vs oracle " + oracle + " s");
        double longOracle = result.seconds("oracle-sjf", "long", Statistic.P95).orElseThrow();
        double longFcfs = result.seconds("fcfs", "long", Statistic.P95).orElseThrow();
        assertTrue(longOracle < longFcfs * 1.25, "in a burst the long ones pay little: " + longOracle + " vs " + longFcfs);
        assertEquals(8, result.endToEnd().stream().filter(r -> r.policy().equals("fcfs") && r.jobClass().equals("short"))
                .findFirst().orElseThrow().requests());
        assertTrue(result.firstToken().stream().allMatch(r -> r.seconds(Statistic.P50) > 0));
        assertTrue(result.findings().contains("oracle-sjf   short P50"), result.findings());
    }

    @Test
    void anAudioEntryIsTranscribedWithItsRecordedLength() throws Exception {
        WorkloadEntry speech = audioEntry("tone.wav", 2.0, 50, "long");
        AnswerBook answers = AnswerBook.of(List.of(speech));
        // 50 recorded tokens at 20 ms take at least 1 s; the size rule would give 2 s x 3 tokens/s, 0.12 s.
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().answers(answers)
                .speed(new ServiceTimeModel(0, 0.02)).build())) {
            LoadResult result = new LoadGenerator(ChatApi.OPENAI, false).run(URI.create("http://127.0.0.1:" + backend.port()),
                    List.of(new LoadRequest(speech, 0))).get(0);
            assertEquals(200, result.status());
            assertEquals("long", result.jobClass());
            assertTrue(result.endToEndSeconds() >= 1.0, "the recorded 50 tokens, not the size rule's 6: " + result.endToEndSeconds());
            assertTrue(result.firstTokenSeconds() > 0 && result.firstTokenSeconds() <= result.endToEndSeconds(), result.toString());
        }
    }

    @Test
    void aMixedBurstOfChatByEitherApiAndAudioRunsThroughTriageWithItsEstimatorAndWithAnOracle() throws Exception {
        List<WorkloadEntry> mixed = List.of(new WorkloadEntry("short question", 4, "short", "test"),
                new WorkloadEntry("long essay", 300, "long", "test"), audioEntry("short.wav", 0.5, 3, "short"),
                audioEntry("long.wav", 8.0, 30, "long"));
        AnswerBook answers = AnswerBook.of(mixed);
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().answers(answers)
                .speed(new ServiceTimeModel(0.002, 0.0005)).build())) {
            for (String variant : List.of("sjf", "oracle-sjf")) {
                for (ChatApi api : ChatApi.values()) {
                    LoadSession.Outcome outcome = LoadSession.run("http://127.0.0.1:" + backend.port(), answers,
                            LoadVariant.parse(variant, Duration.ZERO), BurstBenchmark.burst(mixed, 1), List.of(), new LoadGenerator(api, false));
                    assertEquals(List.of(200, 200, 200, 200), outcome.results().stream().map(LoadResult::status).toList(), variant + " " + api);
                    assertEquals(2, outcome.results().stream().filter(r -> r.jobClass().equals("short")).count());
                    assertTrue(outcome.results().stream().allMatch(r -> r.firstTokenSeconds() > 0), variant + " " + api + ": " + outcome.results());
                }
            }
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

    @Test
    void variantNames() {
        LoadVariant tau = LoadVariant.parse("hrrn-tau", Duration.ofSeconds(5));
        assertEquals("hrrn", tau.policy());
        assertEquals(Duration.ofSeconds(5), tau.tau());
        assertTrue(LoadVariant.parse("oracle-sjf", Duration.ZERO).oracle());
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("lifo", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("sjf-tau", Duration.ZERO));
    }
}
