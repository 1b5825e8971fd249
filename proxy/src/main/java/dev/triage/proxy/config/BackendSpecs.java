package dev.triage.proxy.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the chat backends from the {@code backend} option: one or more specifications separated by
 * spaces (repeated flags and YAML lists arrive that way), each {@code URL[,max-concurrency=N]
 * [,models=a|b][,name=label]}. A backend without {@code max-concurrency} runs the global
 * {@code --max-concurrency}; without {@code models} it serves every model; without a name it is
 * {@code chat} when alone and {@code chat-1}, {@code chat-2}, ... among several.
 *
 * <pre>{@code
 * List<BackendConfig> backends = BackendSpecs.parse("backend",
 *         "http://a:8081 http://b:8082,max-concurrency=2,models=llama3|qwen", 1);
 * }</pre>
 */
final class BackendSpecs {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,32}");
    private static final String FORM = "URL[,max-concurrency=N][,models=a|b][,name=label]";

    private BackendSpecs() {}

    static List<BackendConfig> parse(String key, String value, int defaultConcurrency) {
        String[] specs = value.trim().split("\\s+");
        if (specs.length == 0 || specs[0].isEmpty()) {
            throw ConfigException.invalid(key, value, "at least one " + FORM);
        }
        List<BackendConfig> backends = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < specs.length; i++) {
            String defaultName = specs.length == 1 ? "chat" : "chat-" + (i + 1);
            BackendConfig backend = one(key, specs[i], defaultConcurrency, defaultName);
            if (!names.add(backend.name())) {
                throw ConfigException.invalid(key, ValueParsers.withoutCredentials(specs[i]), "a name no other backend has");
            }
            backends.add(backend);
        }
        requireDisjointOrEqualModels(key, backends);
        return backends;
    }

    private static BackendConfig one(String key, String spec, int defaultConcurrency, String defaultName) {
        String[] parts = spec.split(",");
        // A URL's credentials never reach an error: a password may hold a comma, which splits it off the URL.
        String shown = ValueParsers.withoutCredentials(spec);
        int concurrency = defaultConcurrency;
        String name = defaultName;
        Set<String> models = Set.of();
        for (int i = 1; i < parts.length; i++) {
            int equals = parts[i].indexOf('=');
            String option = equals < 0 ? parts[i] : parts[i].substring(0, equals);
            String optionValue = equals < 0 ? "" : parts[i].substring(equals + 1);
            switch (option) {
                case "max-concurrency" -> {
                    concurrency = ValueParsers.integer(key + " max-concurrency", optionValue);
                    if (!BackendConfig.isConcurrency(concurrency)) {
                        throw ConfigException.invalid(key, shown, "max-concurrency " + BackendConfig.CONCURRENCY_RANGE);
                    }
                }
                case "models" -> {
                    List<String> names = List.of(optionValue.split("\\|"));
                    if (optionValue.isEmpty() || names.stream().anyMatch(String::isBlank)) {
                        throw ConfigException.invalid(key, shown, "models=name|name, no name empty");
                    }
                    models = new LinkedHashSet<>(names.stream().map(ModelName::canonical).toList());
                }
                case "name" -> {
                    if (!NAME.matcher(optionValue).matches()) {
                        throw ConfigException.invalid(key, shown, "name= 1 to 32 letters, digits, '.', '_' or '-'");
                    }
                    name = optionValue;
                }
                default -> throw ConfigException.invalid(key, shown, FORM);
            }
        }
        return new BackendConfig(ValueParsers.backendUrl(key, parts[0]), concurrency, name, models);
    }

    /**
     * Backends that share a model must serve the same models: each set of backends then has one queue
     * of its own, and no backend's slots are split between two queues.
     */
    private static void requireDisjointOrEqualModels(String key, List<BackendConfig> backends) {
        for (int i = 0; i < backends.size(); i++) {
            for (int j = i + 1; j < backends.size(); j++) {
                BackendConfig a = backends.get(i);
                BackendConfig b = backends.get(j);
                if (!a.models().equals(b.models()) && overlap(a.models(), b.models())) {
                    throw new ConfigException(key + ": " + a.name() + " serves " + describe(a.models()) + " and " + b.name()
                            + " serves " + describe(b.models())
                            + " (expected: backends that share a model serve the same models)");
                }
            }
        }
    }

    private static boolean overlap(Set<String> a, Set<String> b) {
        return a.isEmpty() || b.isEmpty() || a.stream().anyMatch(b::contains);
    }

    private static String describe(Set<String> models) {
        return models.isEmpty() ? "every model" : String.join("|", models);
    }
}
