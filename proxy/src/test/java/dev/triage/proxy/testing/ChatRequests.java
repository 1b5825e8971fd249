package dev.triage.proxy.testing;

/** JSON bodies of chat requests, as clients send them. */
public final class ChatRequests {

    private ChatRequests() {}

    /** A chat completion with no output cap, so the estimate is the estimator's alone. */
    public static String uncapped(String prompt) {
        return "{\"model\":\"fake\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt.replace("\"", "\\\"") + "\"}]}";
    }

    /** A chat completion whose last user message is {@code prompt}, capped at {@code maxTokens}. */
    public static String chat(String prompt, int maxTokens, boolean stream) {
        return "{\"model\":\"fake\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt.replace("\"", "\\\"") + "\"}]}";
    }
}
