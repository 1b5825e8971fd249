package dev.triage.proxy.config;

import java.util.Locale;

/**
 * One configuration key: its flag ({@code --key}), YAML key ({@code key:}) and environment variable
 * ({@code TRIAGE_KEY}) are all derived from the same name.
 *
 * @param key kebab-case name
 * @param defaultValue the value when nothing sets it
 * @param help one line for {@code --help}
 */
record ConfigOption(String key, String defaultValue, String help) {

    String flag() {
        return "--" + key;
    }

    String environmentVariable() {
        return "TRIAGE_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }
}
