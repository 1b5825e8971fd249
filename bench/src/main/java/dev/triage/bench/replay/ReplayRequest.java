package dev.triage.bench.replay;

/**
 * What one request asks the replay backend for, once parsed: which API, how many tokens to generate,
 * and how to answer.
 *
 * @param api the endpoint's response format
 * @param tokens tokens to generate
 * @param cutShort true when the request's own limit stopped the answer ({@code finish_reason: length})
 * @param promptTokens the prompt's length, for {@code usage}
 * @param stream answer as a stream of events (server-sent events, or Ollama's JSON lines)
 * @param includeUsage add a {@code usage} chunk before {@code [DONE]} ({@code stream_options.include_usage})
 * @param plainText answer a transcription as {@code text/plain} ({@code response_format=text})
 * @param model the model name to answer with
 */
record ReplayRequest(Api api, int tokens, boolean cutShort, int promptTokens, boolean stream, boolean includeUsage,
        boolean plainText, String model) {

    /** The endpoints the replay backend serves, each with its own answer format. */
    enum Api {
        CHAT, COMPLETION, TRANSCRIPTION, OLLAMA_CHAT, OLLAMA_GENERATE;

        /** Ollama's native API: streams unless asked not to, one JSON object per line. */
        boolean ollama() {
            return this == OLLAMA_CHAT || this == OLLAMA_GENERATE;
        }
    }
}
