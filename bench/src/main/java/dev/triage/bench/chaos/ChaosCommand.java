package dev.triage.bench.chaos;

import dev.triage.model.cli.Flags;
import dev.triage.model.cli.Progress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * {@code scripts/chaos}: a fault-injection run against Triage on loopback. Prints the report (and
 * writes it, with Triage's log, under {@code --out}); exits 1 when an invariant broke or an operation
 * saw Triage do what it must not, 2 on a bad command line.
 */
public final class ChaosCommand {

    private static final String USAGE = """
            usage: chaos [--ops 3000] [--max-concurrency 1] [--clients 16] [--seed 1] [--kinds all|KIND,...] [--skip KIND,...]
                         [--upstream-timeout 2] [--backend-keep-alive 5] [--read-timeout 30] [--audio features/src/test/resources/audio]
                         [--out target/chaos] [--triage-options "--flag value ..."]
            kinds: %s
            """;

    private ChaosCommand() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        ChaosSettings settings;
        try {
            settings = settings(Flags.parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println("chaos: " + e.getMessage());
            System.err.printf(USAGE, String.join(", ", EnumSet.allOf(FaultKind.class).stream().map(FaultKind::label).toList()));
            System.exit(2);
            return;
        }
        Progress progress = Progress.start("chaos operations", settings.ops(), null);
        ChaosReport report = ChaosRun.run(settings, progress::step);
        progress.done();
        String markdown = report.markdown();
        Files.writeString(settings.workDir().resolve("report.md"), markdown, StandardCharsets.UTF_8);
        System.out.print(markdown);
        System.out.println("\nreport and Triage's log in " + settings.workDir());
        System.exit(report.broken().isEmpty() && report.unexpected() == 0 ? 0 : 1);
    }

    static ChaosSettings settings(Flags flags) throws IOException {
        List<String> kinds = flags.words("kinds", List.of("all"));
        Set<FaultKind> chosen = kinds.equals(List.of("all")) ? EnumSet.allOf(FaultKind.class) : EnumSet.copyOf(FaultKind.of(kinds));
        chosen.removeAll(FaultKind.of(flags.words("skip", List.of())));
        String audio = flags.string("audio", "features/src/test/resources/audio");
        Path out = flags.path("out", "target/chaos");
        String triageOptions = flags.string("triage-options", "").strip();
        ChaosSettings settings = new ChaosSettings(
                flags.integer("ops", 3_000),
                flags.integer("max-concurrency", 1),
                flags.integer("clients", 16),
                flags.integer("seed", 1),
                chosen,
                seconds(flags.number("upstream-timeout", 2)),
                seconds(flags.number("backend-keep-alive", 5)),
                seconds(flags.number("read-timeout", 30)),
                audio.isEmpty() ? null : Path.of(audio),
                out,
                triageOptions.isEmpty() ? List.of() : List.of(triageOptions.split("\\s+")));
        if (!flags.positional().isEmpty()) {
            throw new IllegalArgumentException("unexpected " + flags.positional());
        }
        flags.finish();
        Files.createDirectories(out);
        return settings;
    }

    private static Duration seconds(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }
}
