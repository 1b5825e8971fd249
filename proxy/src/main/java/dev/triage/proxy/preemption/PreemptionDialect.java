package dev.triage.proxy.preemption;

import java.util.Locale;

/**
 * How the backend continues an answer from its prefix, which is what pausing a streamed request
 * needs ({@code --preemption}). Every family continues a completion's prompt with the text so far;
 * they differ on chat:
 *
 * <ul>
 *   <li>{@code llama.cpp}: a trailing assistant message is continued (llama-server's assistant prefill);</li>
 *   <li>{@code llama.cpp-token-ids}: llama-server again, but the answer so far goes back as the ids of
 *       the tokens it was generated as, which its prefix cache recognises (see {@link ResumableRequest}).
 *       Every run then asks for {@code logprobs}, and llama-server ranks its whole vocabulary for
 *       each token it generates: worth it where reading a prompt token again is dear and the
 *       vocabulary small (a CPU server), not where prefill is cheap and the vocabulary large;</li>
 *   <li>{@code vllm}: a trailing assistant message with {@code continue_final_message: true} and
 *       {@code add_generation_prompt: false};</li>
 *   <li>{@code ollama}: a trailing assistant message, on {@code /api/chat} and the OpenAI routes, and
 *       a {@code raw} prompt with the text so far on {@code /api/generate}.</li>
 * </ul>
 * {@code off} (the default) never pauses a request.
 */
public enum PreemptionDialect {
    OFF("off"),
    LLAMA_CPP("llama.cpp"),
    LLAMA_CPP_TOKEN_IDS("llama.cpp-token-ids"),
    VLLM("vllm"),
    OLLAMA("ollama");

    private final String label;

    PreemptionDialect(String label) {
        this.label = label;
    }

    /** As in configuration: {@code off}, {@code llama.cpp}, {@code llama.cpp-token-ids}, {@code vllm}, {@code ollama}. */
    public String label() {
        return label;
    }

    /** Parses a configuration value, any case. */
    public static PreemptionDialect parse(String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (PreemptionDialect dialect : values()) {
            if (dialect.label.equals(wanted)) {
                return dialect;
            }
        }
        throw new IllegalArgumentException(value);
    }
}
