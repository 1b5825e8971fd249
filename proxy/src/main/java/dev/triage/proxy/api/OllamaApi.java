package dev.triage.proxy.api;

/**
 * Ollama's own API, beside the OpenAI one Ollama also serves: its requests set their limits in its
 * own fields, and its clients read errors in its own shape.
 */
public final class OllamaApi {

    private static final String PREFIX = "/api/";

    private OllamaApi() {}

    /** True for a path of Ollama's own API ({@code /api/chat}, {@code /api/tags}, ...). */
    public static boolean owns(String path) {
        return path.startsWith(PREFIX);
    }
}
