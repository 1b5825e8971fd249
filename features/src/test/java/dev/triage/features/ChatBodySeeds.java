package dev.triage.features;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

/**
 * Seeds for the fuzz tests that read chat and completion bodies, here and in the proxy: one body of
 * each shape Triage schedules. Their dictionary is {@link #DICTIONARY}.
 */
public final class ChatBodySeeds {

    /** The libFuzzer dictionary, as a class-path resource. */
    public static final String DICTIONARY = "/dev/triage/features/chat-body.dict";

    private ChatBodySeeds() {}

    /** OpenAI chat (string and array content), completions, and Ollama generate. */
    public static Stream<byte[]> bodies() {
        return Stream.of(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be terse.\"},"
                        + "{\"role\":\"user\",\"content\":\"Write an essay on tides, in three paragraphs.\"}],\"max_tokens\":300}",
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is this?\"},"
                        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:\"}}]}],\"max_completion_tokens\":20,\"priority\":-1}",
                "{\"prompt\":[\"def fib(n):\",\"    return\"],\"n_predict\":64}",
                "{\"model\":\"llama3\",\"prompt\":\"Why is the sky blue?\",\"options\":{\"num_predict\":128},\"priority\":3}")
                .map(body -> body.getBytes(StandardCharsets.UTF_8));
    }
}
