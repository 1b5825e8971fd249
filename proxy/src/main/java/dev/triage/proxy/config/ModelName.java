package dev.triage.proxy.config;

import java.util.Locale;
import java.util.Set;

/**
 * A model's name as Triage routes by it. Ollama reads a name without a tag as its {@code :latest} one,
 * and in any case: {@code llama3.2}, {@code llama3.2:latest} and {@code Llama3.2} are one model there,
 * and a client (Open WebUI, say) may send any of them for a backend configured with another.
 */
public final class ModelName {

    private ModelName() {}

    /**
     * True when a backend serving {@code served} (canonical names; empty for every model) serves a
     * request for {@code model}, however the request spells it.
     */
    public static boolean servedBy(Set<String> served, String model) {
        return served.isEmpty() || served.contains(canonical(model));
    }

    /** The name in lower case, with {@code :latest} where its last path segment has no tag. */
    public static String canonical(String name) {
        String lower = name.trim().toLowerCase(Locale.ROOT);
        return lower.indexOf(':', lower.lastIndexOf('/') + 1) < 0 ? lower + ":latest" : lower;
    }
}
