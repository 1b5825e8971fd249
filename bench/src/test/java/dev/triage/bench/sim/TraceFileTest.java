package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.SharedDataFiles;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFileTest {

    private static final ServiceTimeModel SERVICE_TIME = new ServiceTimeModel(0.1, 0.02);

    @TempDir
    Path dir;

    @Test
    void readsAnAzureTraceWithTimesFromTheFirstRequest() throws IOException {
        Path file = dir.resolve("trace.csv");
        Files.write(file, List.of("TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900,374,44",
                "2023-11-16 18:15:50.9951690,396,1109",
                "2023-11-16 18:15:47.0000000,10,250"));
        TraceFile trace = TraceFile.read(file);
        assertEquals(List.of(new TraceFile.Record(0, 374, 44), new TraceFile.Record(0.31941, 10, 250), new TraceFile.Record(4.314579, 396, 1109)),
                trace.records().stream()
                        .map(r -> new TraceFile.Record(Math.round(r.arrivalSeconds() * 1e6) / 1e6, r.promptTokens(), r.outputTokens())).toList());
    }

    @Test
    void readsAMooncakeTraceInMilliseconds() throws IOException {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, List.of("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 500, \"hash_ids\": [0]}",
                "{\"timestamp\": 3000, \"input_length\": 7322, \"output_length\": 5, \"hash_ids\": [1]}"));
        assertEquals(List.of(new TraceFile.Record(0, 10, 500), new TraceFile.Record(3, 7322, 5)), TraceFile.read(file).records());
    }

    @Test
    void aTimeScaleStretchesTheArrivalsToTheTargetLoad() throws IOException {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, List.of("{\"timestamp\": 0, \"input_length\": 50, \"output_length\": 95}",
                "{\"timestamp\": 1000, \"input_length\": 50, \"output_length\": 295}",
                "{\"timestamp\": 2000, \"input_length\": 500, \"output_length\": 795}"));
        TraceFile trace = TraceFile.read(file);
        // Two gaps in 2 s: 1 request/s. Mean service (2 + 6 + 16) / 3 = 8 s on one slot.
        double utilisation = trace.utilisation(3, SERVICE_TIME, 1);
        assertEquals(8, utilisation, 1e-9);
        Workload workload = trace.workload(3, SERVICE_TIME, utilisation / 0.5, new EstimateModel.Exact(), 1);
        assertEquals(2 * utilisation / 0.5, workload.requests().get(2).arrivalSeconds(), 1e-9);
        assertEquals(List.of("short", "medium"), workload.requests().stream().limit(2).map(SimRequest::jobClass).toList());
        assertEquals(16, workload.requests().get(2).serviceSeconds(), 1e-9);
        assertEquals(500, workload.requests().get(2).size().promptTokens());
        assertEquals(795, workload.requests().get(2).size().outputTokens());
    }

    @Test
    void aPromptCostSlowsTheFirstTokenOfLongPrompts() throws IOException {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, List.of("{\"timestamp\": 0, \"input_length\": 5000, \"output_length\": 10}",
                "{\"timestamp\": 1000, \"input_length\": 50, \"output_length\": 10}"));
        ServiceTimeModel withPrefill = new ServiceTimeModel(0.1, 0.0002, 0.02);
        JobSize size = TraceFile.read(file).workload(2, withPrefill, 1, new EstimateModel.Exact(), 0).requests().get(0).size();
        assertEquals(1.1, size.prefillSeconds(), 1e-9);
        assertEquals(1.3, size.serviceSeconds(), 1e-9);
    }

    @Test
    void badLinesAreReportedWithTheLine() throws IOException {
        Path csv = dir.resolve("bad.csv");
        Files.write(csv, List.of("TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:15:46.68,1,2", "yesterday,1,2"));
        IOException e = assertThrows(IOException.class, () -> TraceFile.read(csv));
        assertTrue(e.getMessage().startsWith(csv + ":3: "), e.getMessage());

        Path header = dir.resolve("header.csv");
        Files.write(header, List.of("time,tokens"));
        assertThrows(IOException.class, () -> TraceFile.read(header));
        assertThrows(IOException.class, () -> TraceFile.read(dir.resolve("trace.txt")));
    }

    @Test
    void readsTheSharedAzureConversationTrace() throws IOException {
        TraceFile trace = TraceFile.read(SharedDataFiles.require("traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv"));
        assertEquals(19_366, trace.records().size());
        double hours = trace.records().get(trace.records().size() - 1).arrivalSeconds() / 3600;
        assertEquals(1, hours, 0.05);
    }

    @Test
    void readsTheSharedMooncakeConversationTrace() throws IOException {
        TraceFile trace = TraceFile.read(SharedDataFiles.require("traces/mooncake/conversation_trace.jsonl"));
        assertEquals(12_031, trace.records().size());
    }
}
