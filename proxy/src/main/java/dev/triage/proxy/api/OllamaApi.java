package dev.triage.proxy.api;

import java.util.List;

/**
 * Ollama's own API, beside the OpenAI one Ollama also serves: its requests set their limits in its
 * own fields, and its clients read errors in its own shape.
 */
public final class OllamaApi {

    private static final String PREFIX = "/api/";
    private static final List<String> MOVES_MODELS = List.of("/api/pull", "/api/push", "/api/create", "/api/blobs/");

    private OllamaApi() {}

    /** True for a path of Ollama's own API ({@code /api/chat}, {@code /api/tags}, ...). */
    public static boolean owns(String path) {
        return path.startsWith(PREFIX);
    }

    /**
     * True for a route that moves a model in or out (a pull, a push, a create, a blob's upload): it
     * may rightly stay silent for as long as a download takes (Ollama's clients pull with
     * {@code "stream": false} by default), so no silence limit applies to it.
     */
    public static boolean movesModels(String path) {
        return MOVES_MODELS.stream().anyMatch(path::startsWith);
    }
}
