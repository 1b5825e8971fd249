package dev.triage.bench.replay;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ReplayBackend} behaves: where it listens, what it answers, and how fast.
 *
 * <pre>{@code
 * ReplayBackendSettings settings = ReplayBackendSettings.builder()
 *         .answers(AnswerBook.of(WorkloadFile.read(workload)))
 *         .slots(1)
 *         .speed(new ServiceTimeModel(0.05, 0.02))   // 50 ms prefill, 50 tokens/s
 *         .build();
 * }</pre>
 *
 * @param host the address to bind
 * @param port the port, 0 for any free one
 * @param answers answer lengths by prompt
 * @param defaultAnswerTokens the length for a prompt the book does not know and that sets no {@code max_tokens}
 * @param slots generations at once: 1 is a serial server, more is continuous batching
 * @param speed prefill seconds ({@code baseSeconds}) and seconds per token for a batch of one
 * @param batchSlowdown how much longer a decoding step takes as the batch grows
 * @param audioBytesPerSecond bytes of an uploaded audio file per second of speech
 * @param tokensPerAudioSecond transcript tokens per second of speech
 * @param maxRequestBytes the largest request body accepted
 * @param model the model name answers carry
 * @param keepAliveTimeout how long a connection may stay idle between requests before the backend closes
 *     it (uvicorn, under vLLM, waits 5 s); zero for as long as the client likes
 */
public record ReplayBackendSettings(String host, int port, AnswerBook answers, int defaultAnswerTokens, int slots,
        ServiceTimeModel speed, BatchSlowdown batchSlowdown, double audioBytesPerSecond, double tokensPerAudioSecond,
        int maxRequestBytes, String model, Duration keepAliveTimeout) {

    public ReplayBackendSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(answers, "answers");
        Objects.requireNonNull(speed, "speed");
        Objects.requireNonNull(batchSlowdown, "batchSlowdown");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(keepAliveTimeout, "keepAliveTimeout");
        check(!keepAliveTimeout.isNegative(), "keep-alive-timeout", keepAliveTimeout, ">= 0");
        check(port >= 0 && port <= 65_535, "port", port, "0 to 65535");
        check(defaultAnswerTokens >= 0, "default-tokens", defaultAnswerTokens, ">= 0");
        check(slots >= 1, "slots", slots, ">= 1");
        check(audioBytesPerSecond > 0 && !Double.isInfinite(audioBytesPerSecond), "audio-bytes-per-second", audioBytesPerSecond, "> 0");
        check(tokensPerAudioSecond >= 0 && !Double.isInfinite(tokensPerAudioSecond), "tokens-per-audio-second", tokensPerAudioSecond, ">= 0");
        check(maxRequestBytes >= 1024, "max-request-bytes", maxRequestBytes, ">= 1024");
    }

    private static void check(boolean valid, String key, Object value, String expected) {
        if (!valid) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: " + expected + ")");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Defaults: loopback, port 0, no answers, 128 tokens by default, one slot, 50 ms + 20 ms/token, 16 kHz
     * 16-bit mono audio, idle connections kept open.
     */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private AnswerBook answers = AnswerBook.empty();
        private int defaultAnswerTokens = 128;
        private int slots = 1;
        private ServiceTimeModel speed = new ServiceTimeModel(0.05, 0.02);
        private BatchSlowdown batchSlowdown = BatchSlowdown.DEFAULT;
        private double audioBytesPerSecond = 32_000;
        private double tokensPerAudioSecond = 3;
        private int maxRequestBytes = 32 * 1024 * 1024;
        private String model = "replay";
        private Duration keepAliveTimeout = Duration.ZERO;

        private Builder() {}

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder answers(AnswerBook answers) {
            this.answers = answers;
            return this;
        }

        public Builder defaultAnswerTokens(int tokens) {
            this.defaultAnswerTokens = tokens;
            return this;
        }

        public Builder slots(int slots) {
            this.slots = slots;
            return this;
        }

        public Builder speed(ServiceTimeModel speed) {
            this.speed = speed;
            return this;
        }

        public Builder batchSlowdown(BatchSlowdown slowdown) {
            this.batchSlowdown = slowdown;
            return this;
        }

        public Builder audio(double bytesPerSecond, double tokensPerSecond) {
            this.audioBytesPerSecond = bytesPerSecond;
            this.tokensPerAudioSecond = tokensPerSecond;
            return this;
        }

        public Builder maxRequestBytes(int bytes) {
            this.maxRequestBytes = bytes;
            return this;
        }

        public Builder model(String model) {
            this.model = model;
            return this;
        }

        public Builder keepAliveTimeout(Duration timeout) {
            this.keepAliveTimeout = timeout;
            return this;
        }

        public ReplayBackendSettings build() {
            return new ReplayBackendSettings(host, port, answers, defaultAnswerTokens, slots, speed, batchSlowdown,
                    audioBytesPerSecond, tokensPerAudioSecond, maxRequestBytes, model, keepAliveTimeout);
        }
    }
}
