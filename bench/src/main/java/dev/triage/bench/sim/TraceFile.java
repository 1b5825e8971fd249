package dev.triage.bench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.model.data.JsonLines;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.model.LengthClass;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A real arrival trace with prompt and output token counts: the Azure LLM inference trace 2023 (CSV:
 * {@code TIMESTAMP,ContextTokens,GeneratedTokens}) or a Mooncake trace (JSON Lines with
 * {@code timestamp} in milliseconds, {@code input_length} and {@code output_length}). Arrival times are
 * made relative to the first request; jobs are classed by {@link LengthClass} of their output.
 *
 * <pre>{@code
 * TraceFile trace = TraceFile.read(Path.of("../shared/data/traces/mooncake/conversation_trace.jsonl"));
 * double timeScale = trace.utilisation(2000, serviceTime, 1) / 0.8;   // load one slot to ρ = 0.8
 * Workload workload = trace.workload(2000, serviceTime, timeScale, new EstimateModel.Exact(), seed);
 * }</pre>
 */
public record TraceFile(String name, List<Record> records) {

    /** One request of a trace. */
    public record Record(double arrivalSeconds, int promptTokens, int outputTokens) {}

    private static final DateTimeFormatter AZURE_TIME = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
            .toFormatter();

    public TraceFile {
        if (records.size() < 2) {
            throw new IllegalArgumentException("trace " + name + " has " + records.size() + " requests (expected: at least 2)");
        }
        records = List.copyOf(records);
    }

    /** Reads a {@code .csv} (Azure) or {@code .jsonl} (Mooncake) trace. */
    public static TraceFile read(Path file) throws IOException {
        String name = file.getFileName().toString();
        List<Record> records;
        if (name.endsWith(".csv")) {
            records = readAzure(file);
        } else if (name.endsWith(".jsonl")) {
            records = readMooncake(file);
        } else {
            throw new IOException(file + ": unknown trace format (expected: an Azure .csv or a Mooncake .jsonl)");
        }
        records.sort(Comparator.comparingDouble(Record::arrivalSeconds));
        if (records.size() < 2) {
            throw new IOException(file + ": " + records.size() + " requests (expected: at least 2)");
        }
        double start = records.get(0).arrivalSeconds();
        List<Record> relative = records.stream()
                .map(r -> new Record(r.arrivalSeconds() - start, r.promptTokens(), r.outputTokens())).toList();
        return new TraceFile(name, relative);
    }

    /** The trace's output lengths as job sizes, for Poisson arrivals with real sizes. */
    public JobSizes.Resampled sizes(ServiceTimeModel serviceTime) {
        return new JobSizes.Resampled(records.stream().map(r -> size(r, serviceTime)).toList());
    }

    /**
     * The utilisation of {@code slots} servers under the first {@code count} requests at their real
     * times: arrival rate over the window times mean service time, over the slots.
     */
    public double utilisation(int count, ServiceTimeModel serviceTime, int slots) {
        List<Record> window = window(count);
        double span = window.get(count - 1).arrivalSeconds() - window.get(0).arrivalSeconds();
        double meanService = window.stream().mapToDouble(r -> serviceTime.seconds(r.promptTokens(), r.outputTokens())).average().orElseThrow();
        return (count - 1) / span * meanService / slots;
    }

    /**
     * The first {@code count} requests with their real arrival pattern, every time multiplied by
     * {@code timeScale}: {@code utilisation(...) / ρ} loads the servers to ρ.
     */
    public Workload workload(int count, ServiceTimeModel serviceTime, double timeScale, EstimateModel estimates, long seed) {
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("time scale: " + timeScale + " (expected: > 0)");
        }
        double[] times = window(count).stream().mapToDouble(r -> r.arrivalSeconds() * timeScale).toArray();
        return Workload.of(times, jobs(count, serviceTime), estimates, seed);
    }

    /** The first {@code count} requests' sizes, in trace order. */
    public List<JobSize> jobs(int count, ServiceTimeModel serviceTime) {
        return window(count).stream().map(r -> size(r, serviceTime)).toList();
    }

    private List<Record> window(int count) {
        if (count < 2 || count > records.size()) {
            throw new IllegalArgumentException("requests: " + count + " (expected: 2 to " + records.size() + " for " + name + ")");
        }
        return records.subList(0, count);
    }

    private static JobSize size(Record record, ServiceTimeModel serviceTime) {
        return JobSize.ofTokens(LengthClass.of(record.outputTokens()).label(), record.promptTokens(), record.outputTokens(),
                serviceTime, null);
    }

    private static List<Record> readAzure(Path file) throws IOException {
        List<Record> records = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = reader.readLine();
            if (header == null || !header.trim().equals("TIMESTAMP,ContextTokens,GeneratedTokens")) {
                throw new IOException(file + ":1: header " + header + " (expected: TIMESTAMP,ContextTokens,GeneratedTokens)");
            }
            String line;
            int number = 1;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                String[] fields = line.split(",");
                try {
                    if (fields.length != 3) {
                        throw new IllegalArgumentException(fields.length + " fields");
                    }
                    LocalDateTime time = LocalDateTime.parse(fields[0].trim(), AZURE_TIME);
                    double seconds = time.toEpochSecond(ZoneOffset.UTC) + time.getNano() / 1e9;
                    records.add(new Record(seconds, tokens(Integer.parseInt(fields[1].trim())), tokens(Integer.parseInt(fields[2].trim()))));
                } catch (DateTimeParseException | IllegalArgumentException e) {
                    throw new IOException(file + ":" + number + ": " + e.getMessage()
                            + " (expected: TIMESTAMP,ContextTokens,GeneratedTokens)", e);
                }
            }
        }
        return records;
    }

    private static List<Record> readMooncake(Path file) throws IOException {
        return JsonLines.read(file, node -> {
            JsonNode timestamp = node.path("timestamp");
            JsonNode input = node.path("input_length");
            JsonNode output = node.path("output_length");
            if (!timestamp.isNumber() || !input.isIntegralNumber() || !output.isIntegralNumber()) {
                throw new IllegalArgumentException("timestamp " + timestamp + ", input_length " + input + ", output_length " + output
                        + " (expected: {\"timestamp\": ms, \"input_length\": tokens, \"output_length\": tokens, ...})");
            }
            return new Record(timestamp.asDouble() / 1000, tokens(input.asInt()), tokens(output.asInt()));
        });
    }

    private static int tokens(int tokens) {
        if (tokens < 0) {
            throw new IllegalArgumentException("token count " + tokens + " (expected: >= 0)");
        }
        return tokens;
    }
}
