package dev.triage.proxy.config;

/**
 * A configuration value that cannot be used. The message is the one line start-up prints, of the form
 * {@code max-queue: -1 (expected: >= 1)}.
 */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    static ConfigException invalid(String key, String value, String expected) {
        return new ConfigException(key + ": " + value + " (expected: " + expected + ")");
    }
}
