package dev.triage.bench.replay;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.model.cli.Flags;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/** {@code scripts/replay-backend}: runs a {@link ReplayBackend} until the process is stopped. */
public final class ReplayBackendCommand {

    static final String USAGE = """
            usage: replay-backend [--workload FILE.jsonl] [--host 127.0.0.1] [--port 8000] [--slots 1]
                                  [--prefill-seconds 0.05] [--seconds-per-prompt-token 0] [--seconds-per-token 0.02] [--batch-slowdown 0.05]
                                  [--compute-bound-batch 0]
                                  [--default-tokens 128] [--audio-bytes-per-second 32000] [--tokens-per-audio-second 3]
                                  [--max-request-bytes 33554432] [--model replay] [--keep-alive-timeout 0]
            """;

    private ReplayBackendCommand() {}

    public static void main(String[] args) throws InterruptedException {
        ReplayBackendSettings settings;
        try {
            settings = settings(Flags.parse(args));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("replay-backend: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        ReplayBackend backend = ReplayBackend.start(settings);
        Runtime.getRuntime().addShutdownHook(new Thread(backend::close, "replay-backend-shutdown"));
        System.out.println(describe(backend));
        backend.awaitClose();
    }

    static ReplayBackendSettings settings(Flags flags) throws IOException {
        Optional<String> workload = flags.optional("workload");
        ReplayBackendSettings.Builder builder = ReplayBackendSettings.builder()
                .host(flags.string("host", "127.0.0.1"))
                .port(flags.integer("port", 8000))
                .slots(flags.integer("slots", 1))
                .speed(new ServiceTimeModel(flags.number("prefill-seconds", 0.05), flags.number("seconds-per-prompt-token", 0),
                        flags.number("seconds-per-token", 0.02)))
                .batchSlowdown(BatchSlowdown.read(flags))
                .defaultAnswerTokens(flags.integer("default-tokens", 128))
                .audio(flags.number("audio-bytes-per-second", 32_000), flags.number("tokens-per-audio-second", 3))
                .maxRequestBytes(flags.integer("max-request-bytes", 32 * 1024 * 1024))
                .model(flags.string("model", "replay"))
                .keepAliveTimeout(Duration.ofNanos(Math.round(flags.number("keep-alive-timeout", 0) * 1e9)));
        if (!flags.positional().isEmpty()) {
            throw new IllegalArgumentException("unexpected " + flags.positional());
        }
        flags.finish();
        if (workload.isPresent()) {
            builder.answers(AnswerBook.of(WorkloadFile.read(Path.of(workload.get()))));
        }
        return builder.build();
    }

    /** Where it listens, what to give Triage, and how it behaves. */
    static String describe(ReplayBackend backend) {
        ReplayBackendSettings settings = backend.settings();
        return String.format(Locale.ROOT,
                "replay backend on %1$s (OpenAI API under %1$s/v1, Ollama's under %1$s/api)%n"
                        + "  put Triage in front of it with: scripts/triage --backend %1$s%n"
                        + "  %2$d prompts and %3$d audio files known, %4$d slot(s), %5$.0f ms + %6$.3f ms/prompt token prefill + %7$.1f ms/token "
                        + "(%8$s), %9$d tokens for unknown prompts without max_tokens",
                backend.uri(), settings.answers().size(), settings.answers().audioFiles(), settings.slots(), settings.speed().baseSeconds() * 1000,
                settings.speed().secondsPerPromptToken() * 1000, settings.speed().secondsPerToken() * 1000, settings.batchSlowdown(),
                settings.defaultAnswerTokens());
    }
}
