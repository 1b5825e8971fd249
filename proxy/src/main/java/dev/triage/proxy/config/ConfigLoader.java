package dev.triage.proxy.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.TenantWeights;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.scheduler.ewsjf.SizeFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the {@link TriageConfig} from defaults &lt; YAML file ({@code --config}) &lt; environment
 * ({@code TRIAGE_*}) &lt; flags. Every layer supplies text that goes through the same parsers, so a
 * value is validated the same way wherever it came from, and a bad one stops start-up with one line.
 *
 * <pre>{@code
 * TriageConfig config = ConfigLoader.load(args, System.getenv());
 * }</pre>
 */
public final class ConfigLoader {

    static final String CONFIG_KEY = "config";

    static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("listen", "127.0.0.1:8080", "address clients connect to: host:port, :port for all interfaces"),
            new ConfigOption("backend", "http://127.0.0.1:11434", "the inference server's base URL (Ollama's default); repeat for "
                    + "several: URL[,max-concurrency=N][,models=a|b][,name=label]"),
            new ConfigOption("max-concurrency", "1",
                    "requests the backend runs at once: 1 serial, N batched, or auto[:MIN..MAX] (1..64) to find it"),
            new ConfigOption("policy", "sjf", "order of waiting requests: fcfs, sjf, hrrn, laps or ewsjf"),
            new ConfigOption("laps", "", "laps settings over the defaults, e.g. levels=2,first-level=8s (see the README)"),
            new ConfigOption("preemption", "off", "how the backend continues a paused stream under laps: off, llama.cpp, llama.cpp-token-ids, vllm or ollama"),
            new ConfigOption("fair-share", "off", "off, or tenant: share each backend's time among tenants by weight, the policy's order within each"),
            new ConfigOption("tenant-header", "", "fair-share: the header that names a request's tenant, e.g. X-Team; unset, a hash of its API key"),
            new ConfigOption("tenant-weights", "", "fair-share: tenant=weight pairs, e.g. team-a=3,team-b=1 (default weight 1)"),
            new ConfigOption("starvation-timeout", "60s", "a request waiting longer goes first, oldest first; off to disable"),
            new ConfigOption("max-queue", "512", "requests that may wait per backend; beyond, 429"),
            new ConfigOption("max-queue-wait", "off", "longest wait in the queue before a 504; off for no limit"),
            new ConfigOption("estimator", "ranker", "how chat requests are sized: classifier, ranker, lexical or baseline"),
            new ConfigOption("model", "", "the estimator's model file; unset, the model shipped with Triage"),
            new ConfigOption("estimator-fallback", "lexical",
                    "sizes a request while the estimator loads or cannot keep up: classifier, lexical or baseline"),
            new ConfigOption("model-watch", "false", "reload the model when its file changes (true/false; needs --model)"),
            new ConfigOption("service-time-base", "0.5", "backend seconds every request costs (prefill)"),
            new ConfigOption("service-time-per-prompt-token", "0", "backend seconds per prompt token (prefill)"),
            new ConfigOption("service-time-per-token", "0.02", "backend seconds per generated token"),
            new ConfigOption("online-learning", "true", "learn service time and estimate calibration from every answer (true/false)"),
            new ConfigOption("state-dir", "", "directory where what was learned is kept across restarts; unset, memory only"),
            new ConfigOption("feedback-log", "", "file where completed chat requests are written for scripts/train --feedback; unset, none"),
            new ConfigOption("feedback-log-prompts", "false", "write each prompt's text to the feedback log too (true/false)"),
            new ConfigOption("ewsjf-size", "prompt", "ewsjf: what sizes a job: prompt (tokens) or estimate (expected ms)"),
            new ConfigOption("ewsjf-max-queues", "32", "ewsjf: most queues Refine-and-Prune leaves"),
            new ConfigOption("ewsjf-refine-interval", "5m", "ewsjf: how often the queues are learnt anew"),
            new ConfigOption("ewsjf-trial-interval", "10m", "ewsjf: how long the meta-optimizer tries one set of parameters"),
            new ConfigOption("ewsjf-tune", "true", "ewsjf: let the meta-optimizer tune the score (true/false)"),
            new ConfigOption("audio-backend", "", "speech-to-text server; unset, audio shares the backend and its slots"),
            new ConfigOption("audio-max-concurrency", "1", "requests the audio backend runs at once"),
            new ConfigOption("max-audio-body", "25MB", "largest audio upload; beyond, 413"),
            new ConfigOption("audio-vad", "false", "schedule PCM audio by its speech-active seconds (true/false)"),
            new ConfigOption("audio-service-time-base", "0.2", "audio backend seconds every request costs"),
            new ConfigOption("audio-service-time-per-token", "0.01", "audio backend seconds per transcript token"),
            new ConfigOption("speech-token-rates", "", "transcript tokens per second of speech, e.g. es=4.2,fr=3.6"),
            new ConfigOption("upstream-timeout", "600s", "longest the backend may stay silent before a 504"),
            new ConfigOption("client-write-timeout", "60s", "longest a client may take no response bytes before it is disconnected"),
            new ConfigOption("client-header-timeout", "30s", "longest a request head may take from its first byte; then 408 and close"),
            new ConfigOption("client-body-timeout", "60s", "longest a request body may stall while Triage reads it; then close"),
            new ConfigOption("max-connections", "4096", "client connections open at once; one more is answered 503 and closed"),
            new ConfigOption("max-body", "4MB", "largest request body on a scheduled route; beyond, 413"),
            new ConfigOption("admin-token", "", "bearer token for /triage/...; unset, the admin API answers local clients only"),
            new ConfigOption("admin-listen", "", "a separate address for the admin API (/triage/...): host:port; unset, it is on --listen"),
            new ConfigOption("health-path", "/v1/models", "backend path the readiness probe asks; up when it answers 2xx"),
            new ConfigOption("audio-health-path", "", "the audio backend's path for the readiness probe; unset, --health-path "
                    + "(whisper.cpp's server answers /)"),
            new ConfigOption("probe-interval", "5s", "how often the readiness probe asks each backend"),
            new ConfigOption("shutdown-grace", "30s", "on SIGTERM, how long in-flight requests may finish"),
            new ConfigOption("vllm-metrics", "false", "also export the chat queue under vLLM's metric names, for routers that read them (true/false)"),
            new ConfigOption("forward-priority", "false",
                    "write the scheduling rank into chat bodies' priority, for vLLM --scheduling-policy priority (true/false)"),
            new ConfigOption(CONFIG_KEY, "", "YAML file with any of these keys"));

    /**
     * Keys that may be given several times, as repeated flags or a YAML list: their values are kept
     * together, separated by {@link #LIST_SEPARATOR} (the environment gives the list that way).
     */
    static final Set<String> LISTS = Set.of("backend");
    static final String LIST_SEPARATOR = " ";

    /** Keys whose values /triage/config must not show. */
    static final Set<String> SECRETS = Set.of("admin-token");

    private static final Pattern AUTO_BOUNDS = Pattern.compile("auto(?::(\\d{1,6})\\.\\.(\\d{1,6}))?");

    /** An HTTP header name: a token of RFC 9110. */
    private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]+");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ConfigLoader() {}

    /**
     * The configuration the command line, the environment and the YAML file it names describe.
     *
     * @throws ConfigException naming the first bad key
     */
    public static TriageConfig load(String[] args, Map<String, String> environment) {
        Map<String, String> flags = parseFlags(args);
        Map<String, String> values = new LinkedHashMap<>();
        for (ConfigOption option : OPTIONS) {
            values.put(option.key(), option.defaultValue());
        }
        String configFile = Optional.ofNullable(flags.get(CONFIG_KEY))
                .orElse(environment.getOrDefault(option(CONFIG_KEY).environmentVariable(), ""));
        if (!configFile.isBlank()) {
            values.putAll(readYaml(Path.of(configFile)));
        }
        for (ConfigOption option : OPTIONS) {
            String fromEnvironment = environment.get(option.environmentVariable());
            if (fromEnvironment != null) {
                values.put(option.key(), fromEnvironment);
            }
        }
        values.putAll(flags);
        return build(values);
    }

    /** True when the command line asks for the usage text instead of a start. */
    public static boolean wantsHelp(String[] args) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /** The {@code --help} text: every option with its default and environment variable. */
    public static String usage() {
        StringBuilder text = new StringBuilder("""
                Usage: triage [--key value | --key=value]...

                Triage queues the requests an OpenAI-compatible server cannot start yet and sends them
                shortest-job-first. Every key can also come from the environment (TRIAGE_KEY) or a YAML
                file (--config); flags win over the environment, which wins over the file.

                """);
        for (ConfigOption option : OPTIONS) {
            String def = option.defaultValue().isEmpty() ? "" : " (default: " + option.defaultValue() + ")";
            text.append(String.format("  %-28s %s%s%n  %-28s env %s%n", option.flag() + " <value>", option.help(), def,
                    "", option.environmentVariable()));
        }
        return text.toString();
    }

    static TriageConfig build(Map<String, String> v) {
        Optional<AdaptiveConcurrency> adaptive = adaptiveConcurrency(v);
        int maxConcurrency = adaptive.isPresent() ? adaptive.get().max() : ValueParsers.integer("max-concurrency", v.get("max-concurrency"));
        require(BackendConfig.isConcurrency(maxConcurrency), "max-concurrency", v, BackendConfig.CONCURRENCY_RANGE);
        int maxQueue = ValueParsers.integer("max-queue", v.get("max-queue"));
        // Audio, and every request under ewsjf, laps or fair shares, enters the queue even when a slot is free: 0 refused them all.
        require(maxQueue >= 1, "max-queue", v, ">= 1");
        ServiceTimeModel serviceTime = serviceTime(v, "service-time-base", "service-time-per-token");
        double perPromptToken = ValueParsers.decimal("service-time-per-prompt-token", v.get("service-time-per-prompt-token"));
        require(perPromptToken >= 0, "service-time-per-prompt-token", v, "seconds >= 0");
        serviceTime = new ServiceTimeModel(serviceTime.baseSeconds(), perPromptToken, serviceTime.secondsPerToken());
        Duration upstreamTimeout = positiveDuration(v, "upstream-timeout");
        long maxBody = ValueParsers.size("max-body", v.get("max-body"));
        require(maxBody > 0 && maxBody <= Integer.MAX_VALUE, "max-body", v, "a size > 0 and < 2GB");
        EstimatorConfig estimator = estimator(v);
        Policy policy;
        try {
            policy = Policy.parse(v.get("policy"));
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid("policy", v.get("policy"), "fcfs, sjf, hrrn, laps or ewsjf");
        }
        LapsSettings laps;
        try {
            laps = LapsSettings.DEFAULTS.with(v.get("laps"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("laps: " + e.getMessage());
        }
        PreemptionDialect preemption;
        try {
            preemption = PreemptionDialect.parse(v.get("preemption"));
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid("preemption", v.get("preemption"), "off, llama.cpp, llama.cpp-token-ids, vllm or ollama");
        }
        require(preemption == PreemptionDialect.OFF || policy == Policy.LAPS, "preemption", v, "off unless --policy laps");
        String healthPath = ValueParsers.urlPath("health-path", v.get("health-path"));
        Duration shutdownGrace = ValueParsers.duration("shutdown-grace", v.get("shutdown-grace"));
        Duration probeInterval = positiveDuration(v, "probe-interval");
        List<BackendConfig> backends = BackendSpecs.parse("backend", v.get("backend"), maxConcurrency);
        require(adaptive.isEmpty() || backends.size() == 1, "max-concurrency", v, "a number when there are several backends");
        // A backend's own max-concurrency= caps what auto may try: the server runs no more than that.
        int backendSlots = backends.get(0).maxConcurrency();
        require(adaptive.isEmpty() || adaptive.get().min() <= backendSlots, "max-concurrency", v,
                "auto:MIN..MAX with MIN at most the backend's own max-concurrency=" + backendSlots);
        adaptive = adaptive.map(bounds -> new AdaptiveConcurrency(bounds.min(), Math.min(bounds.max(), backendSlots)));
        return new TriageConfig(
                ValueParsers.listenAddress("listen", v.get("listen")),
                backends,
                serviceTime,
                audio(v, healthPath),
                policy,
                laps,
                preemption,
                ewsjf(v),
                ValueParsers.durationOrOff("starvation-timeout", v.get("starvation-timeout")),
                maxQueue,
                ValueParsers.durationOrOff("max-queue-wait", v.get("max-queue-wait")),
                estimator,
                learning(v),
                upstreamTimeout,
                clientLimits(v),
                maxBody,
                v.get("admin-token").trim(), // as a client's is read: a token from a file or a Secret often ends in a newline
                v.get("admin-listen").isBlank() ? null : ValueParsers.listenAddress("admin-listen", v.get("admin-listen")),
                healthPath,
                probeInterval,
                shutdownGrace,
                ValueParsers.bool("vllm-metrics", v.get("vllm-metrics")),
                ValueParsers.bool("forward-priority", v.get("forward-priority")),
                tenants(v, policy),
                adaptive,
                redacted(v));
    }

    /** {@code auto} or {@code auto:MIN..MAX}; empty for a number. */
    private static Optional<AdaptiveConcurrency> adaptiveConcurrency(Map<String, String> v) {
        String value = v.get("max-concurrency").trim();
        if (!value.startsWith("auto")) {
            return Optional.empty();
        }
        Matcher bounds = AUTO_BOUNDS.matcher(value);
        require(bounds.matches(), "max-concurrency", v, "a number, auto, or auto:MIN..MAX");
        if (bounds.group(1) == null) {
            return Optional.of(AdaptiveConcurrency.DEFAULT);
        }
        int min = ValueParsers.integer("max-concurrency", bounds.group(1));
        int max = ValueParsers.integer("max-concurrency", bounds.group(2));
        require(min >= 1 && max >= min && BackendConfig.isConcurrency(max), "max-concurrency", v,
                "auto:MIN..MAX with 1 <= MIN <= MAX <= " + BackendConfig.MAX_CONCURRENCY);
        return Optional.of(new AdaptiveConcurrency(min, max));
    }

    private static TenantConfig tenants(Map<String, String> v, Policy policy) {
        String mode = v.get("fair-share").trim();
        require(mode.equals("off") || mode.equals("tenant"), "fair-share", v, "off or tenant");
        boolean fairShare = mode.equals("tenant");
        require(!fairShare || policy == Policy.FCFS || policy == Policy.SJF || policy == Policy.HRRN, "fair-share", v,
                "off unless --policy is fcfs, sjf or hrrn");
        String header = v.get("tenant-header").trim();
        require(header.isEmpty() || HEADER_NAME.matcher(header).matches(), "tenant-header", v, "a header name");
        TenantWeights weights;
        try {
            weights = TenantWeights.parse(v.get("tenant-weights"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("tenant-weights: " + e.getMessage());
        }
        require(fairShare || header.isEmpty(), "tenant-header", v, "unset unless --fair-share tenant");
        require(fairShare || weights.named().isEmpty(), "tenant-weights", v, "unset unless --fair-share tenant");
        return new TenantConfig(fairShare, header.isEmpty() ? Optional.empty() : Optional.of(header), weights);
    }

    private static ClientLimits clientLimits(Map<String, String> v) {
        Duration writeTimeout = positiveDuration(v, "client-write-timeout");
        Duration headerTimeout = positiveDuration(v, "client-header-timeout");
        Duration bodyTimeout = positiveDuration(v, "client-body-timeout");
        int maxConnections = ValueParsers.integer("max-connections", v.get("max-connections"));
        require(maxConnections >= 1, "max-connections", v, ">= 1");
        return new ClientLimits(writeTimeout, headerTimeout, bodyTimeout, maxConnections);
    }

    private static Duration positiveDuration(Map<String, String> v, String key) {
        Duration duration = ValueParsers.duration(key, v.get(key));
        require(!duration.isZero(), key, v, "a duration > 0");
        return duration;
    }

    private static EwsjfSettings ewsjf(Map<String, String> v) {
        SizeFeature size;
        try {
            size = SizeFeature.parse(v.get("ewsjf-size"));
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid("ewsjf-size", v.get("ewsjf-size"), "prompt or estimate");
        }
        int maxQueues = ValueParsers.integer("ewsjf-max-queues", v.get("ewsjf-max-queues"));
        require(maxQueues >= 1, "ewsjf-max-queues", v, ">= 1");
        Duration refine = positiveDuration(v, "ewsjf-refine-interval");
        Duration trial = positiveDuration(v, "ewsjf-trial-interval");
        EwsjfSettings defaults = EwsjfSettings.defaults();
        return new EwsjfSettings(size, maxQueues, defaults.minQueueWidth(), defaults.bubbleWidth(), defaults.window(),
                defaults.minSamples(), refine, trial, defaults.minTrialCompletions(), ValueParsers.bool("ewsjf-tune", v.get("ewsjf-tune")),
                defaults.initialTheta(), defaults.reward(), defaults.seed());
    }

    private static EstimatorConfig estimator(Map<String, String> v) {
        String name = v.get("estimator").trim();
        require(EstimatorConfig.NAMES.contains(name), "estimator", v, "one of " + String.join(", ", EstimatorConfig.NAMES));
        String model = v.get("model").trim();
        String fallback = v.get("estimator-fallback").trim();
        require(EstimatorConfig.FALLBACKS.contains(fallback), "estimator-fallback", v,
                "one of " + String.join(", ", EstimatorConfig.FALLBACKS));
        boolean watch = ValueParsers.bool("model-watch", v.get("model-watch"));
        require(!watch || !model.isEmpty(), "model-watch", v, "false unless --model names a file to watch");
        return new EstimatorConfig(name, model.isEmpty() ? Optional.empty() : Optional.of(Path.of(model)), fallback, watch);
    }

    private static LearningConfig learning(Map<String, String> v) {
        String stateDirectory = v.get("state-dir").trim();
        String feedbackLog = v.get("feedback-log").trim();
        boolean feedbackPrompts = ValueParsers.bool("feedback-log-prompts", v.get("feedback-log-prompts"));
        require(!feedbackPrompts || !feedbackLog.isEmpty(), "feedback-log-prompts", v, "false unless --feedback-log names a file");
        return new LearningConfig(ValueParsers.bool("online-learning", v.get("online-learning")),
                stateDirectory.isEmpty() ? Optional.empty() : Optional.of(Path.of(stateDirectory)),
                feedbackLog.isEmpty() ? Optional.empty() : Optional.of(Path.of(feedbackLog)), feedbackPrompts);
    }

    private static AudioConfig audio(Map<String, String> v, String chatHealthPath) {
        String url = v.get("audio-backend").trim();
        String healthPath = v.get("audio-health-path").isBlank() ? "" : ValueParsers.urlPath("audio-health-path", v.get("audio-health-path"));
        int concurrency = ValueParsers.integer("audio-max-concurrency", v.get("audio-max-concurrency"));
        require(BackendConfig.isConcurrency(concurrency), "audio-max-concurrency", v, BackendConfig.CONCURRENCY_RANGE);
        Optional<BackendConfig> backend = url.isEmpty() ? Optional.empty()
                : Optional.of(new BackendConfig(ValueParsers.backendUrl("audio-backend", url), concurrency));
        long maxBody = ValueParsers.size("max-audio-body", v.get("max-audio-body"));
        require(maxBody > 0 && maxBody <= Integer.MAX_VALUE, "max-audio-body", v, "a size > 0 and < 2GB");
        return new AudioConfig(backend, healthPath.isEmpty() ? chatHealthPath : healthPath, maxBody,
                ValueParsers.bool("audio-vad", v.get("audio-vad")),
                serviceTime(v, "audio-service-time-base", "audio-service-time-per-token"),
                ValueParsers.speechTokenRates("speech-token-rates", v.get("speech-token-rates")));
    }

    private static ServiceTimeModel serviceTime(Map<String, String> v, String baseKey, String perTokenKey) {
        double base = ValueParsers.decimal(baseKey, v.get(baseKey));
        require(base >= 0, baseKey, v, "seconds >= 0");
        double perToken = ValueParsers.decimal(perTokenKey, v.get(perTokenKey));
        require(perToken >= 0 && base + perToken > 0, perTokenKey, v, "seconds >= 0, and not 0 when " + baseKey + " is 0");
        return new ServiceTimeModel(base, perToken);
    }

    private static Map<String, String> redacted(Map<String, String> values) {
        Map<String, String> shown = new LinkedHashMap<>();
        values.forEach((key, value) -> shown.put(key, SECRETS.contains(key) && !value.isEmpty() ? "<redacted>" : value));
        return shown;
    }

    private static void require(boolean ok, String key, Map<String, String> values, String expected) {
        if (!ok) {
            throw ConfigException.invalid(key, values.get(key), expected);
        }
    }

    private static Map<String, String> parseFlags(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new ConfigException(arg + ": unexpected argument (expected: --key value; see --help)");
            }
            String key;
            String value;
            int equals = arg.indexOf('=');
            if (equals > 0) {
                key = arg.substring(2, equals);
                value = arg.substring(equals + 1);
            } else {
                key = arg.substring(2);
                if (i + 1 >= args.length) {
                    throw new ConfigException(key + ": missing value (expected: --" + key + " <value>)");
                }
                value = args[++i];
            }
            option(key);
            if (LISTS.contains(key)) {
                flags.merge(key, value, (earlier, later) -> earlier + LIST_SEPARATOR + later);
            } else {
                flags.put(key, value);
            }
        }
        return flags;
    }

    private static Map<String, String> readYaml(Path file) {
        try (JsonParser yaml = YAML.createParser(Files.readAllBytes(file))) {
            return readMapping(yaml, file);
        } catch (IOException e) {
            throw new ConfigException("config: " + file + " (" + e.getMessage().lines().findFirst().orElse("unreadable") + ")");
        }
    }

    /**
     * The file's keys with each value as written. A scalar's own text is taken, not the value YAML
     * makes of it: YAML 1.1 reads {@code off} as false, {@code 0123} as 83 and {@code 1_000} as 1000,
     * so {@code starvation-timeout: off} would fail and an admin token of digits would change.
     */
    private static Map<String, String> readMapping(JsonParser yaml, Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        JsonToken root = yaml.nextToken();
        if (root == null || root == JsonToken.VALUE_NULL) {
            return values;
        }
        if (root != JsonToken.START_OBJECT) {
            throw ConfigException.invalid("config", file.toString(), "a YAML mapping of keys to values");
        }
        while (yaml.nextToken() == JsonToken.FIELD_NAME) {
            String key = yaml.currentName();
            if (key.equals(CONFIG_KEY)) {
                throw new ConfigException("config: " + file + " (expected: no nested config key)");
            }
            option(key);
            JsonToken value = yaml.nextToken();
            if (value == JsonToken.VALUE_NULL) {
                continue; // "key:" with nothing after it (an empty template value): the option keeps its default, not "null"
            }
            if (value == JsonToken.START_ARRAY && LISTS.contains(key)) {
                values.put(key, listValue(key, yaml));
            } else if (value.isScalarValue()) {
                values.put(key, yaml.getText());
            } else {
                throw ConfigException.invalid(key, YAML.readTree(yaml).toString(), "a single value");
            }
        }
        return values;
    }

    /** A YAML list's items, as written, joined as repeated flags' values are. */
    private static String listValue(String key, JsonParser yaml) throws IOException {
        StringBuilder joined = new StringBuilder();
        for (JsonToken item = yaml.nextToken(); item != JsonToken.END_ARRAY; item = yaml.nextToken()) {
            if (item == JsonToken.VALUE_NULL || !item.isScalarValue()) {
                String written = item == JsonToken.VALUE_NULL ? "null" : YAML.readTree(yaml).toString();
                throw ConfigException.invalid(key, written, "a list of single values");
            }
            joined.append(joined.isEmpty() ? "" : LIST_SEPARATOR).append(yaml.getText());
        }
        return joined.toString();
    }

    private static ConfigOption option(String key) {
        for (ConfigOption option : OPTIONS) {
            if (option.key().equals(key)) {
                return option;
            }
        }
        throw new ConfigException(key + ": unknown option (see --help)");
    }
}
