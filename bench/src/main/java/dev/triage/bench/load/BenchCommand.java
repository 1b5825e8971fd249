package dev.triage.bench.load;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.plot.LatencyVsLoadChart;
import dev.triage.bench.sim.LoadSweep;
import dev.triage.bench.sim.SummaryCsv;
import dev.triage.bench.sim.SummaryTable;
import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.workload.HeldOutWorkload;
import dev.triage.bench.workload.SpeechWorkload;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.SharedData;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code scripts/bench}: load through the real proxy and the replay backend, over loopback HTTP.
 *
 * <pre>
 * bench workload --out FILE [--model M] [--short 35] [--long 35 | --length-matched-pairs 20] [--seed 42] [--sources alpaca_eval,...]
 * bench speech-workload --out FILE [--short 20] [--long 20]
 * bench burst    [load options] [--runs 5] [--out DIR]
 * bench poisson  [load options] [--rho 0.5,0.7,0.8,0.9] [--requests 200] [--seeds 2] [--backend URL [--preemption DIALECT]]
 *                [--out DIR]
 * bench tenants  [load options] [--seconds 60] [--steady-rho 0.8] [--tenant-weights W] [--seed 1] [--out DIR]
 * bench real-burst --backend URL [--workload FILE] [--estimator E,...] [--variants V,...] [--preemption DIALECT]
 *                  [--answer-scale 1] [--runs 3] [--out DIR]
 * bench pool     [--workload FILE] [--slowdown 2] [--kill-at 0.3] [--slots 1] [--runs 2] [speed options] [--out DIR]
 * load options: --workload FILE --variants V,... --tau 5 --slots 1 --backend-slots N --batch-slowdown 0.05
 *               --compute-bound-batch 0 --prefill-seconds 0.01 --seconds-per-prompt-token 0 --seconds-per-token 0.0005
 *               --estimator NAME
 * </pre>
 */
public final class BenchCommand {

    static final String USAGE = """
            usage: bench workload --out FILE [--model M] [--short 35] [--long 35] [--seed 42] [--sources S,...]
                   bench workload --out FILE --length-matched-pairs 20 [--model M] [--seed 42] [--sources S,...]
                          (pairs of a short and a long answer whose prompts have about the same length)
                   bench speech-workload --out FILE [--short 20] [--long 20]   (the shared data's shortest and longest ASR clips)
                   bench burst    [load options] [--runs 5] [--out DIR]
                   bench poisson  [load options] [--rho R,...] [--requests 200] [--seeds 2] [--out DIR]
                                  [--backend URL]   (a real server instead of the replay backend, through a relay that
                                                     sets each request's max_tokens to its recorded answer's length)
                                  [--preemption DIALECT]   (with --backend: how the server continues a stream that a
                                                     laps variant paused, llama.cpp say; the relay's count of tokens
                                                     streamed per request id makes a resumed one ask for the rest)
                   bench tenants  [load options] [--seconds 60] [--steady-rho 0.8] [--tenant-weights W] [--seed 1] [--out DIR]
                          (one tenant floods a serial backend with short requests, another sends a steady stream
                          at --steady-rho for --seconds: each one's share of the backend, with and without
                          --fair-share tenant)
                   bench real-burst --backend URL [--workload FILE] [--estimator E,...] [--variants V,...]
                                  [--preemption DIALECT] [--answer-scale 1] [--runs 3] [--out DIR]
                          (a burst at a real server that generates exactly max_tokens, through a relay that sets it;
                          default workload: 20 short and 20 long held-out answers, prompt lengths matched pair by pair;
                          variants fcfs, sjf:baseline, sjf:E for each estimator (default: Triage's), oracle-sjf, or
                          those of --variants (laps with --preemption llama.cpp, say; the oracle is the client
                          priority, which outranks any policy, so oracle-sjf is the only oracle, here and with poisson --backend);
                          --answer-scale multiplies every answer's length, classes kept, to fit a slow server)
                   bench pool [--workload FILE] [--slowdown 2] [--kill-at 0.3] [--slots 1] [--runs 2] [--out DIR]
                                  [--prefill-seconds 0.01 --seconds-per-prompt-token 0 --seconds-per-token 0.0005] [--estimator NAME]
                          (two replay backends behind one Triage, the second --slowdown times slower per token: the burst
                          on each alone, on both, and on both with the slow one killed at --kill-at of the fast one's burst)
            load options: --workload FILE (default: the held-out burst of 35 short and 35 long answers in the bench jar)
                   --variants V,... (direct, [oracle-]fcfs|sjf|hrrn|ewsjf|laps[-tau][:estimator][@frozen][@slots=N|auto])
                          (@frozen: Triage with --online-learning false; @slots: its own --max-concurrency)   --tau SECONDS (5)
                   --answer-scale 1 (every answer's length times this, classes kept: for a slow server)
                   --slots 1  --prefill-seconds 0.01  --seconds-per-prompt-token 0  --seconds-per-token 0.0005
                          (--slots: Triage's --max-concurrency, the replay backend's slots, and what rho counts)
                   --backend-slots N (the replay backend's own slots, if not --slots: more than Triage sends, to give
                          it everything at once)   --batch-slowdown 0.05 (each further generation slows a decoding step)
                   --compute-bound-batch K (past K generations a step lasts in proportion to the batch; 0: never)
                   --estimator NAME (Triage's default)
                   --api openai|ollama (the chat route: /v1/chat/completions or Ollama's /api/chat; openai)
            """;

    /** The workload used when none is named: held-out prompts, 35 short and 35 long answers of one model. */
    static final String DEFAULT_WORKLOAD = "/workloads/burst.jsonl";

    static final List<String> DEFAULT_VARIANTS = List.of("fcfs", "sjf", "sjf-tau", "hrrn", "oracle-sjf");

    /**
     * The real-server burst's workload when none is named: held-out prompts, 20 short and 20 long
     * answers of one model in pairs of matched prompt length.
     */
    static final String LENGTH_MATCHED_WORKLOAD = "/workloads/length-matched.jsonl";

    /** What burst and Poisson runs share. */
    record LoadOptions(List<WorkloadEntry> workload, List<LoadVariant> variants, int slots, int backendSlots,
            BatchSlowdown batchSlowdown, ServiceTimeModel speed, List<String> triageFlags, ChatApi api, Path out) {

        /** Flags for every Triage started: as many slots as the backend has, and the estimator asked for. */
        static List<String> triageFlags(Flags flags, int slots) {
            List<String> triage = new ArrayList<>(List.of("--max-concurrency", Integer.toString(slots)));
            flags.optional("estimator").ifPresent(estimator -> triage.addAll(List.of("--estimator", estimator)));
            return triage;
        }

        /** The replay backend's speed, or the real backend's as far as the arrival rate is concerned. */
        static ServiceTimeModel speed(Flags flags) {
            return new ServiceTimeModel(flags.number("prefill-seconds", 0.01), flags.number("seconds-per-prompt-token", 0),
                    flags.number("seconds-per-token", 0.0005));
        }

        static LoadOptions read(Flags flags) throws IOException {
            Path file = flags.optional("workload").map(Path::of).orElse(null);
            Duration tau = Duration.ofMillis((long) (flags.number("tau", 5) * 1000));
            int slots = flags.integer("slots", 1);
            int backendSlots = flags.integer("backend-slots", slots);
            BatchSlowdown batchSlowdown = BatchSlowdown.read(flags);
            List<LoadVariant> variants = flags.words("variants", DEFAULT_VARIANTS).stream()
                    .map(name -> LoadVariant.parse(name, tau)).toList();
            return new LoadOptions(answersScaled(file != null ? WorkloadFile.read(file) : WorkloadFile.readResource(DEFAULT_WORKLOAD),
                    flags), variants, slots, backendSlots, batchSlowdown, speed(flags),
                    triageFlags(flags, slots),
                    ChatApi.parse(flags.string("api", "openai")), flags.optional("out").map(Path::of).orElse(null));
        }
    }

    private BenchCommand() {}

    public static void main(String[] args) {
        try {
            System.out.print(run(Flags.parse(args)));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.exit(130);
        }
    }

    static String run(Flags flags) throws IOException, InterruptedException {
        List<String> words = flags.positional();
        if (words.size() != 1) {
            throw new IllegalArgumentException("expected one command, got " + words);
        }
        return switch (words.get(0)) {
            case "workload" -> workload(flags);
            case "speech-workload" -> speechWorkload(flags);
            case "burst" -> burst(flags);
            case "poisson" -> poisson(flags);
            case "tenants" -> tenants(flags);
            case "real-burst" -> realBurst(flags);
            case "pool" -> pool(flags);
            default -> throw new IllegalArgumentException("unknown command " + words.get(0));
        };
    }

    private static String workload(Flags flags) throws IOException {
        Path file = Path.of(flags.required("out", "the workload file to write"));
        int pairs = flags.integer("length-matched-pairs", 0);
        int shorts = pairs > 0 ? pairs : flags.integer("short", 35);
        int longs = pairs > 0 ? pairs : flags.integer("long", 35);
        String model = flags.string("model", HeldOutWorkload.DEFAULT_MODEL);
        long seed = flags.integer("seed", 42);
        Set<PromptSource> sources = flags.optional("sources").map(BenchCommand::sources).orElse(HeldOutWorkload.LICENSED);
        flags.finish();
        PromptCorpus corpus = PromptCorpus.of(PromptResponseLoader.load(SharedData.requirePromptResponse()));
        List<WorkloadEntry> entries = pairs > 0 ? HeldOutWorkload.lengthMatchedBurst(corpus, sources, model, pairs, seed)
                : HeldOutWorkload.burst(corpus, sources, model, shorts, longs, seed);
        WorkloadFile.write(file, entries);
        return "wrote " + entries.size() + " held-out answers of " + model + " (" + shorts + " short, " + longs + " long"
                + (pairs > 0 ? ", in pairs of matched prompt length" : "") + ") to " + file + "\n";
    }

    private static String speechWorkload(Flags flags) throws IOException {
        Path file = Path.of(flags.required("out", "the workload file to write"));
        int shorts = flags.integer("short", 20);
        int longs = flags.integer("long", 20);
        flags.finish();
        Path asr = SharedData.locate().map(data -> data.resolve("asr")).filter(Files::isDirectory)
                .orElseThrow(() -> new IllegalArgumentException("no shared data at ../shared/data/asr (or under $"
                        + SharedData.ENVIRONMENT_VARIABLE + ")"));
        List<WorkloadEntry> entries = SpeechWorkload.burst(asr, shorts, longs);
        WorkloadFile.write(file, entries);
        return "wrote " + entries.size() + " clips of " + asr + " (" + shorts + " shortest, " + longs + " longest) to " + file
                + ", their paths relative to it\n";
    }

    private static Set<PromptSource> sources(String ids) {
        Set<PromptSource> sources = EnumSet.noneOf(PromptSource.class);
        for (String id : ids.split(",")) {
            sources.add(Arrays.stream(PromptSource.values()).filter(s -> s.id().equals(id.trim())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--sources: " + id + " (expected: "
                            + Arrays.stream(PromptSource.values()).map(PromptSource::id).toList() + ")")));
        }
        return sources;
    }

    private static String burst(Flags flags) throws IOException, InterruptedException {
        LoadOptions options = LoadOptions.read(flags);
        int runs = flags.positiveInteger("runs", 5);
        flags.finish();
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(options.workload(), options.variants(),
                runs, options.speed(), options.slots(), options.backendSlots(), options.batchSlowdown(), options.triageFlags(),
                options.api()));
        return report(result, runs, options.out(), "burst");
    }

    private static String tenants(Flags flags) throws IOException, InterruptedException {
        refuse(flags, List.of("variants", "api", "backend-slots", "batch-slowdown", "compute-bound-batch"),
                "bench tenants, which runs sjf and oracle-sjf, with and without fair shares, by OpenAI's API on one serial replay backend");
        LoadOptions options = LoadOptions.read(flags);
        double seconds = flags.number("seconds", 60);
        double steadyRho = flags.number("steady-rho", 0.8);
        String weights = flags.string("tenant-weights", "");
        long seed = flags.integer("seed", 1);
        flags.finish();
        if (options.slots() != 1) {
            throw new IllegalArgumentException("--slots: " + options.slots() + " (expected: 1; tenants share a serial backend)");
        }
        if (!(seconds > 0) || !(steadyRho > 0)) {
            throw new IllegalArgumentException("--seconds and --steady-rho: " + seconds + ", " + steadyRho + " (expected: > 0)");
        }
        List<TenantShareBenchmark.TenantRow> rows = TenantShareBenchmark.run(new TenantShareBenchmark.Settings(options.workload(),
                options.speed(), options.triageFlags(), seconds, steadyRho, weights, seed));
        String report = "one tenant floods, one sends a steady stream at rho " + steadyRho + " for " + seconds
                + " s; shares of the backend's time in that window\n" + TenantShareBenchmark.table(rows);
        if (options.out() != null) {
            Files.createDirectories(options.out());
            Files.writeString(options.out().resolve("tenants.md"), report);
        }
        return report;
    }

    /** Refuses the options a command would read and then ignore. */
    private static void refuse(Flags flags, List<String> names, String why) {
        for (String name : names) {
            if (flags.optional(name).isPresent()) {
                throw new IllegalArgumentException("--" + name + ": not with " + why);
            }
        }
    }

    private static String realBurst(Flags flags) throws IOException, InterruptedException {
        URI server = URI.create(flags.required("backend", "the server's URL, http://host:port"));
        Path file = flags.optional("workload").map(Path::of).orElse(null);
        List<String> estimators = flags.words("estimator", List.of(ConfigLoader.load(new String[0], Map.of()).estimator().name()));
        List<WorkloadEntry> workload = answersScaled(file != null ? WorkloadFile.read(file)
                : WorkloadFile.readResource(LENGTH_MATCHED_WORKLOAD), flags);
        int runs = flags.positiveInteger("runs", 3);
        Path out = flags.optional("out").map(Path::of).orElse(null);
        List<String> names = new ArrayList<>(List.of("fcfs", "sjf:baseline"));
        estimators.stream().map(estimator -> "sjf:" + estimator).filter(name -> !names.contains(name)).forEach(names::add);
        names.add("oracle-sjf");
        List<String> variants = flags.words("variants", names);
        Optional<String> preemption = flags.optional("preemption");
        flags.finish();
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.ServerSettings(workload, LoadVariant.forRealServer(
                variants.stream().map(name -> LoadVariant.parse(name, Duration.ZERO)).toList()), runs, server, List.of(), preemption));
        return report(result, runs, out, "real-burst");
    }

    private static String pool(Flags flags) throws IOException, InterruptedException {
        Path file = flags.optional("workload").map(Path::of).orElse(null);
        List<WorkloadEntry> workload = answersScaled(file != null ? WorkloadFile.read(file) : WorkloadFile.readResource(DEFAULT_WORKLOAD),
                flags);
        double slowdown = flags.number("slowdown", 2);
        double killAt = flags.number("kill-at", 0.3);
        if (!(slowdown >= 1) || !(killAt > 0 && killAt < 1)) {
            throw new IllegalArgumentException("--slowdown: " + slowdown + ", --kill-at: " + killAt + " (expected: >= 1, and between 0 and 1)");
        }
        int slots = flags.integer("slots", 1);
        int runs = flags.positiveInteger("runs", 2);
        List<String> triageFlags = new ArrayList<>();
        flags.optional("estimator").ifPresent(estimator -> triageFlags.addAll(List.of("--estimator", estimator)));
        ServiceTimeModel speed = LoadOptions.speed(flags);
        Path out = flags.optional("out").map(Path::of).orElse(null);
        flags.finish();
        String report = PoolBenchmark.run(new PoolBenchmark.Settings(workload, speed, slowdown, slots, runs, killAt, triageFlags));
        if (out != null) {
            Files.createDirectories(out);
            Files.writeString(out.resolve("pool.md"), report);
        }
        return report;
    }

    /**
     * The workload with every answer's length multiplied by {@code --answer-scale} (1 unless given), at
     * least one token, each keeping its class: a slow server then serves the same mix sooner.
     */
    private static List<WorkloadEntry> answersScaled(List<WorkloadEntry> workload, Flags flags) {
        double scale = flags.number("answer-scale", 1);
        if (!(scale > 0)) {
            throw new IllegalArgumentException("--answer-scale: " + scale + " (expected: > 0)");
        }
        return workload.stream().map(entry -> new WorkloadEntry(entry.prompt(), Math.max(1, (int) Math.round(scale * entry.answerTokens())),
                entry.jobClass(), entry.source(), entry.audio())).toList();
    }

    /** The burst's tables and findings; written as NAME.md and NAME-e2e.csv, NAME-ttft.csv under {@code out} when given. */
    private static String report(BurstBenchmark.Result result, int runs, Path out, String name) throws IOException {
        String report = "end-to-end latency (s), mean ± sd over " + runs + " runs\n"
                + SummaryTable.markdown(result.endToEnd()) + "\ntime to first token (s)\n"
                + SummaryTable.markdown(result.firstToken()) + "\n" + result.findings();
        if (out != null) {
            Files.createDirectories(out);
            SummaryCsv.write(out.resolve(name + "-e2e.csv"), result.endToEnd());
            SummaryCsv.write(out.resolve(name + "-ttft.csv"), result.firstToken());
            Files.writeString(out.resolve(name + ".md"), report);
        }
        return report;
    }

    private static String poisson(Flags flags) throws IOException, InterruptedException {
        if (flags.optional("backend").isPresent()) {
            refuse(flags, List.of("api", "backend-slots", "batch-slowdown", "compute-bound-batch"),
                    "--backend, a real server: requests go by OpenAI's API, and the server has the slots and speed it has");
        }
        LoadOptions options = LoadOptions.read(flags);
        List<Double> rhos = flags.numbers("rho", List.of(0.5, 0.7, 0.8, 0.9));
        int requests = flags.integer("requests", 200);
        int seeds = flags.integer("seeds", 2);
        URI realBackend = flags.optional("backend").map(URI::create).orElse(null);
        Optional<String> preemption = flags.optional("preemption");
        flags.finish();
        if (preemption.isPresent() && realBackend == null) {
            throw new IllegalArgumentException("--preemption: " + preemption.get() + " (expected: with --backend; the replay"
                    + " backend does not continue a paused stream)");
        }
        if (realBackend != null) {
            LoadVariant.forRealServer(options.variants());
        }
        List<PoissonBenchmark.Point> results = PoissonBenchmark.run(new PoissonBenchmark.Settings(options.workload(),
                options.variants(), rhos, requests, seeds, options.speed(), options.slots(), options.backendSlots(),
                options.batchSlowdown(), options.triageFlags(), options.api(),
                realBackend, preemption));
        List<LoadPoint> points = results.stream().map(PoissonBenchmark.Point::latencies).toList();
        if (options.out() != null) {
            Files.createDirectories(options.out());
            LoadSweep.writeCsv(options.out().resolve("poisson.csv"), points);
            LatencyVsLoadChart.write(options.out().resolve("latency-vs-load.png"), "Through Triage: "
                    + (realBackend == null ? "replay backend, " : realBackend + ", ") + options.slots() + " slot"
                    + (options.slots() == 1 ? "" : "s") + ", Poisson arrivals",
                    points, options.variants().stream().map(LoadVariant::name).toList());
        }
        StringBuilder report = new StringBuilder();
        for (PoissonBenchmark.Point point : results) {
            report.append("rho ").append(point.latencies().rho()).append('\n').append(SummaryTable.markdown(point.latencies().rows()))
                    .append(point.figures()).append("\n\n");
        }
        return report.toString();
    }
}
