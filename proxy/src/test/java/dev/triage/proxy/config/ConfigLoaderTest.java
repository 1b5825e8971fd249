package dev.triage.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.ewsjf.SizeFeature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    private static TriageConfig load(Map<String, String> env, String... args) {
        return ConfigLoader.load(args, env);
    }

    private static String failure(Map<String, String> env, String... args) {
        return assertThrows(ConfigException.class, () -> load(env, args)).getMessage();
    }

    @Test
    void defaultsMatchTheDesign() {
        TriageConfig config = load(Map.of());
        assertEquals("127.0.0.1", config.listen().getHostString());
        assertEquals(8080, config.listen().getPort());
        assertEquals("http://127.0.0.1:11434", config.backend().url().toString());
        assertEquals(Policy.SJF, config.policy());
        assertEquals(Duration.ofSeconds(60), config.starvationTimeout());
        assertEquals(1, config.backend().maxConcurrency());
        assertEquals(Duration.ZERO, config.maxQueueWait());
        assertEquals("ranker", config.estimator().name());
        assertTrue(config.estimator().model().isEmpty(), "the shipped model");
        assertEquals("lexical", config.estimator().fallback());
        assertEquals(4L << 20, config.maxBody());
        assertEquals(PreemptionDialect.OFF, config.preemption());
        assertEquals(LapsSettings.DEFAULTS, config.laps());
    }

    @Test
    void lapsTakesItsSettingsAndADialect() {
        TriageConfig config = load(Map.of("TRIAGE_PREEMPTION", "vLLM"), "--policy", "laps", "--laps", "levels=2,first-level=8s");
        assertEquals(Policy.LAPS, config.policy());
        assertEquals(PreemptionDialect.VLLM, config.preemption());
        assertEquals(LapsSettings.DEFAULTS.with("levels=2,first-level=8"), config.laps());
        assertEquals(config.laps(), config.schedulerSettings(config.backend()).laps());
        assertTrue(config.schedulerSettings(config.backend()).preemptive());
    }

    @Test
    void flagsBeatEnvironmentWhichBeatsTheFileWhichBeatsDefaults() throws Exception {
        Path yaml = Files.writeString(dir.resolve("triage.yaml"), """
                policy: hrrn
                max-queue: 7
                max-concurrency: 3
                starvation-timeout: 2m
                """);
        Map<String, String> env = Map.of("TRIAGE_MAX_QUEUE", "9", "TRIAGE_POLICY", "fcfs");
        TriageConfig config = load(env, "--config", yaml.toString(), "--policy=sjf");
        assertEquals(Policy.SJF, config.policy(), "flag over environment");
        assertEquals(9, config.maxQueue(), "environment over file");
        assertEquals(3, config.backend().maxConcurrency(), "file over default");
        assertEquals(Duration.ofMinutes(2), config.starvationTimeout());
        assertEquals(Duration.ofMinutes(2), load(Map.of("TRIAGE_CONFIG", yaml.toString())).starvationTimeout(),
                "the file can be named by the environment too");
    }

    @Test
    void valueSyntaxes() {
        TriageConfig config = load(Map.of(), "--listen", ":9000", "--backend", "http://gpu-box:8000/v1-prefix/",
                "--starvation-timeout", "off", "--max-queue-wait", "1500ms", "--upstream-timeout", "1.5s",
                "--max-body", "512KB", "--service-time-base", "0", "--service-time-per-token", "0.05");
        assertEquals("0.0.0.0", config.listen().getHostString());
        assertEquals(9000, config.listen().getPort());
        assertEquals("gpu-box:8000", config.backend().authority());
        assertEquals("/v1-prefix", config.backend().pathPrefix());
        assertEquals(Duration.ZERO, config.starvationTimeout());
        assertEquals(Duration.ofMillis(1500), config.maxQueueWait());
        assertEquals(Duration.ofMillis(1500), config.upstreamTimeout());
        assertEquals(512 * 1024, config.maxBody());
        assertEquals(5.0, config.serviceTime().seconds(100), 1e-9);
    }

    @Test
    void healthPathsAreUrlPathsAndTheAdminTokenIsTrimmed() {
        TriageConfig config = load(Map.of("TRIAGE_ADMIN_TOKEN", "s3cret\n"), "--health-path", "/health%20check",
                "--audio-health-path", "/ready?full=1");
        assertEquals("/health%20check", config.healthPath());
        assertEquals("/ready?full=1", config.audio().healthPath());
        assertEquals("s3cret", config.adminToken(), "compared with a client's token, which is trimmed too");
        assertFalse(config.toString().contains("s3cret"), config.toString());
        assertEquals("health-path: /health check (expected: a path starting with /, written as in a URL (%20 for a space))",
                failure(Map.of(), "--health-path", "/health check"));
        assertEquals("audio-health-path: health (expected: a path starting with /, written as in a URL (%20 for a space))",
                failure(Map.of(), "--audio-health-path", "health"));
    }

    /** Timers add a duration to the clock and count whole milliseconds: one too long to add, or too short to count, is refused. */
    @Test
    void aDurationIsAtLeastAMillisecondAndAtMostAYear() {
        assertEquals("max-queue-wait: 9999999999 (expected: a duration of at most 365 days)",
                failure(Map.of(), "--max-queue-wait", "9999999999"));
        assertEquals("shutdown-grace: 9000h (expected: a duration of at most 365 days)", failure(Map.of(), "--shutdown-grace", "9000h"));
        assertEquals("probe-interval: 0.5ms (expected: a duration of at least 1ms)", failure(Map.of(), "--probe-interval", "0.5ms"));
        assertEquals(Duration.ofDays(365), load(Map.of(), "--shutdown-grace", "8760h").shutdownGrace());
        assertEquals(Duration.ofMillis(1), load(Map.of(), "--probe-interval", "1ms").probeInterval());
    }

    @Test
    void ewsjfAndThePromptCostAreConfigured() {
        TriageConfig defaults = load(Map.of());
        assertEquals(SizeFeature.PROMPT, defaults.ewsjf().sizeFeature());
        assertEquals(32, defaults.ewsjf().maxQueues());
        assertTrue(defaults.ewsjf().tune());
        assertEquals(0.5, defaults.serviceTime().prefillSeconds(4000), 1e-9, "prompts cost nothing unless told");
        TriageConfig config = load(Map.of("TRIAGE_EWSJF_TUNE", "false"), "--policy", "ewsjf", "--ewsjf-size", "estimate",
                "--ewsjf-max-queues", "8", "--ewsjf-refine-interval", "90s", "--ewsjf-trial-interval", "15m",
                "--service-time-per-prompt-token", "0.0002");
        assertEquals(Policy.EWSJF, config.policy());
        assertEquals(SizeFeature.ESTIMATE, config.ewsjf().sizeFeature());
        assertEquals(8, config.ewsjf().maxQueues());
        assertEquals(Duration.ofSeconds(90), config.ewsjf().refineInterval());
        assertEquals(Duration.ofMinutes(15), config.ewsjf().trialInterval());
        assertFalse(config.ewsjf().tune());
        assertEquals(0.5 + 0.0002 * 4000, config.serviceTime().prefillSeconds(4000), 1e-9);
        assertEquals(0.5 + 0.0002 * 4000 + 0.02 * 100, config.serviceTime().seconds(4000, 100), 1e-9);
    }

    @Test
    void badValuesStopStartUpWithOneLineNamingKeyValueAndExpectation() {
        assertEquals("max-queue: -1 (expected: >= 1)", failure(Map.of(), "--max-queue", "-1"));
        assertEquals("max-queue: 0 (expected: >= 1)", failure(Map.of(), "--max-queue", "0"));
        assertEquals("max-concurrency: 0 (expected: 1 to 100000)", failure(Map.of(), "--max-concurrency", "0"));
        assertEquals("max-concurrency: 1500000000 (expected: 1 to 100000)", failure(Map.of(), "--max-concurrency", "1500000000"));
        assertEquals("max-concurrency: auto:1..200000 (expected: auto:MIN..MAX with 1 <= MIN <= MAX <= 100000)",
                failure(Map.of(), "--max-concurrency", "auto:1..200000"));
        assertEquals("audio-max-concurrency: 100001 (expected: 1 to 100000)", failure(Map.of(), "--audio-max-concurrency", "100001"));
        assertEquals("policy: lifo (expected: fcfs, sjf, hrrn, laps or ewsjf)", failure(Map.of(), "--policy", "lifo"));
        assertEquals("preemption: llama.cpp (expected: off unless --policy laps)", failure(Map.of(), "--preemption", "llama.cpp"));
        assertEquals("preemption: tgi (expected: off, llama.cpp, llama.cpp-token-ids, vllm or ollama)",
                failure(Map.of(), "--policy", "laps", "--preemption", "tgi"));
        assertEquals("laps: depth=3 (expected: levels, growth, first-level, window-tokens, stable-windows, rate-tolerance, "
                + "preemptive-levels or max-preemptions=VALUE)", failure(Map.of(), "--laps", "depth=3"));
        assertEquals("laps: levels: 0 (expected: >= 1)", failure(Map.of(), "--laps", "levels=0"));
        assertEquals("ewsjf-size: tokens (expected: prompt or estimate)", failure(Map.of(), "--ewsjf-size", "tokens"));
        assertEquals("ewsjf-max-queues: 0 (expected: >= 1)", failure(Map.of(), "--ewsjf-max-queues", "0"));
        assertEquals("service-time-per-prompt-token: -1 (expected: seconds >= 0)",
                failure(Map.of(), "--service-time-per-prompt-token", "-1"));
        assertEquals("max-queue: many (expected: an integer)", failure(Map.of("TRIAGE_MAX_QUEUE", "many")));
        assertEquals("backend: https://x (expected: an http://host[:port][/path] URL)",
                failure(Map.of(), "--backend", "https://x"));
        assertEquals("starvation-timeout: soon (expected: a duration such as 500ms, 60s, 2m or 1h)",
                failure(Map.of(), "--starvation-timeout", "soon"));
        assertEquals("listen: localhost:99999 (expected: a port in 0-65535)", failure(Map.of(), "--listen", "localhost:99999"));
        assertEquals("estimator: oracle (expected: one of classifier, ranker, lexical, baseline)", failure(Map.of(), "--estimator", "oracle"));
        assertEquals("estimator-fallback: yes (expected: one of classifier, lexical, baseline)",
                failure(Map.of(), "--estimator-fallback", "yes"));
        assertEquals("model-watch: true (expected: false unless --model names a file to watch)",
                failure(Map.of(), "--model-watch", "true"));
        assertEquals("max-body: 0 (expected: a size > 0 and < 2GB)", failure(Map.of(), "--max-body", "0"));
        assertEquals("wat: unknown option (see --help)", failure(Map.of(), "--wat", "1"));
        assertEquals("policy: missing value (expected: --policy <value>)", failure(Map.of(), "--policy"));
        assertTrue(failure(Map.of(), "--config", dir.resolve("missing.yaml").toString()).startsWith("config: "));
    }

    @Test
    void aBackendUrlEndingWithAnApiRootIsRefusedWithTheUrlToUseInstead() {
        assertEquals("backend: http://gpu-box:8000/v1 (expected: the server's URL without /v1, as Triage forwards each"
                + " client's own path (/v1/...): here http://gpu-box:8000)", failure(Map.of(), "--backend", "http://gpu-box:8000/v1"));
        assertEquals("audio-backend: http://h/whisper/v1/ (expected: the server's URL without /v1, as Triage forwards"
                + " each client's own path (/v1/...): here http://h/whisper)", failure(Map.of(), "--audio-backend", "http://h/whisper/v1/"));
        assertTrue(failure(Map.of(), "--backend", "http://127.0.0.1:11434/api").endsWith("here http://127.0.0.1:11434)"));
        assertEquals("/v1-prefix", load(Map.of(), "--backend", "http://h/v1-prefix").backend().pathPrefix());
    }

    @Test
    void aBackendUrlWithCredentialsIsRefusedWithoutPrintingThem() {
        String failure = failure(Map.of(), "--backend", "http://user:hunter2@gpu-box:8000");
        assertTrue(failure.startsWith("backend: http://<redacted>@gpu-box:8000 (expected: a URL without credentials"), failure);
        assertFalse(failure.contains("hunter2"), failure);
        assertFalse(failure(Map.of("TRIAGE_AUDIO_BACKEND", "https://u:hunter2@h")).contains("hunter2"));
        // A password written unescaped, with characters that end a URL's authority.
        for (String password : List.of("hun/ter2", "hun?ter2", "hun#ter2", "hun@ter2", "hun,ter2")) {
            String unescaped = failure(Map.of(), "--backend", "http://user:" + password + "@gpu-box:8000");
            assertFalse(unescaped.contains("ter2"), unescaped);
        }
        // Credentials and a mistake in an option: the URL is refused first, redacted.
        String typo = failure(Map.of(), "--backend", "http://user:hunter2@gpu-box:8000,max-concurency=4");
        assertFalse(typo.contains("hunter2"), typo);
    }

    @Test
    void maxConcurrencyIsANumberOrAutoWithinBounds() {
        assertTrue(load(Map.of()).adaptiveConcurrency().isEmpty());
        TriageConfig auto = load(Map.of(), "--max-concurrency", "auto");
        assertEquals(AdaptiveConcurrency.DEFAULT, auto.adaptiveConcurrency().orElseThrow());
        assertEquals(64, auto.backend().maxConcurrency());
        TriageConfig bounded = load(Map.of(), "--max-concurrency", "auto:2..16");
        assertEquals(new AdaptiveConcurrency(2, 16), bounded.adaptiveConcurrency().orElseThrow());
        assertEquals(16, bounded.backend().maxConcurrency());
        assertEquals("max-concurrency: auto:8..4 (expected: auto:MIN..MAX with 1 <= MIN <= MAX <= 100000)",
                failure(Map.of(), "--max-concurrency", "auto:8..4"));
        assertEquals("max-concurrency: auto:0..4 (expected: auto:MIN..MAX with 1 <= MIN <= MAX <= 100000)",
                failure(Map.of(), "--max-concurrency", "auto:0..4"));
        assertEquals("max-concurrency: automatic (expected: a number, auto, or auto:MIN..MAX)",
                failure(Map.of(), "--max-concurrency", "automatic"));
        TriageConfig capped = load(Map.of(), "--max-concurrency", "auto", "--backend", "http://h:8000,max-concurrency=8");
        assertEquals(new AdaptiveConcurrency(1, 8), capped.adaptiveConcurrency().orElseThrow(), "the backend's own limit caps auto");
        assertEquals(8, capped.backend().maxConcurrency());
        assertEquals("max-concurrency: auto:4..16 (expected: auto:MIN..MAX with MIN at most the backend's own max-concurrency=2)",
                failure(Map.of(), "--max-concurrency", "auto:4..16", "--backend", "http://h:8000,max-concurrency=2"));
    }

    @Test
    void fairSharesAmongTenantsAreOffUnlessAskedFor() {
        assertEquals(TenantConfig.OFF, load(Map.of()).tenants());
        TenantConfig byKey = load(Map.of(), "--fair-share", "tenant").tenants();
        assertTrue(byKey.fairShare());
        assertTrue(byKey.header().isEmpty());
        TenantConfig byHeader = load(Map.of("TRIAGE_TENANT_WEIGHTS", "team-a=3, team-b=0.5"), "--fair-share", "tenant",
                "--tenant-header", "X-Team").tenants();
        assertEquals("X-Team", byHeader.header().orElseThrow());
        assertEquals(3.0, byHeader.weights().of("team-a"));
        assertEquals(0.5, byHeader.weights().of("team-b"));
        assertEquals(1.0, byHeader.weights().of("team-c"));
    }

    @Test
    void badTenantSettingsAreNamed() {
        assertEquals("fair-share: user (expected: off or tenant)", failure(Map.of(), "--fair-share", "user"));
        assertEquals("fair-share: tenant (expected: off unless --policy is fcfs, sjf or hrrn)",
                failure(Map.of(), "--fair-share", "tenant", "--policy", "laps"));
        assertEquals("tenant-weights: team-a=0 (expected: tenant=weight, the weight a number from 0.000001 to 1000000)",
                failure(Map.of(), "--fair-share", "tenant", "--tenant-weights", "team-b=2,team-a=0"));
        // A subnormal weight divided a job's seconds to infinity, and the fair order then failed on every dispatch.
        assertEquals("tenant-weights: team-a=1e-320 (expected: tenant=weight, the weight a number from 0.000001 to 1000000)",
                failure(Map.of(), "--fair-share", "tenant", "--tenant-weights", "team-a=1e-320"));
        assertEquals("tenant-header: X Team (expected: a header name)",
                failure(Map.of(), "--fair-share", "tenant", "--tenant-header", "X Team"));
        assertEquals("tenant-weights: a=2 (expected: unset unless --fair-share tenant)",
                failure(Map.of(), "--tenant-weights", "a=2"));
        // A request's tenant is always a plain name (any other header value is hashed): this weight would never apply.
        assertEquals("tenant-weights: Team A=3 (expected: a tenant of letters, digits, '.', '_' or '-', at most 64, and not other)",
                failure(Map.of(), "--fair-share", "tenant", "--tenant-weights", "Team A=3"));
        assertEquals("tenant-weights: other=3 (expected: a tenant of letters, digits, '.', '_' or '-', at most 64, and not other)",
                failure(Map.of(), "--fair-share", "tenant", "--tenant-weights", "other=3"));
    }

    @Test
    void clientLimits() {
        assertEquals(Duration.ofSeconds(60), load(Map.of()).clientLimits().writeTimeout());
        assertEquals(Duration.ofSeconds(5), load(Map.of(), "--client-write-timeout", "5s").clientLimits().writeTimeout());
        assertEquals("client-write-timeout: 0 (expected: a duration > 0)", failure(Map.of(), "--client-write-timeout", "0"));
    }

    @Test
    void audioSharesTheBackendUnlessGivenItsOwn() {
        TriageConfig shared = load(Map.of());
        assertTrue(shared.audio().backend().isEmpty());
        assertEquals(25L << 20, shared.audio().maxBody());
        assertEquals(2.9, shared.audio().tokenRates().tokensPerSecond("en"));
        TriageConfig own = load(Map.of(), "--audio-backend", "http://127.0.0.1:8178", "--audio-max-concurrency", "2",
                "--audio-vad", "true", "--speech-token-rates", "fr=3.6, es=4.0", "--max-audio-body", "10MB");
        assertEquals(2, own.audio().backend().orElseThrow().maxConcurrency());
        assertTrue(own.audio().voiceActivity());
        assertEquals(3.6, own.audio().tokenRates().tokensPerSecond("french"));
        assertEquals(4.0, own.audio().tokenRates().tokensPerSecond("es"));
        assertEquals(10L << 20, own.audio().maxBody());
        assertEquals("audio-vad: yes (expected: true or false)", failure(Map.of(), "--audio-vad", "yes"));
        assertEquals("speech-token-rates: fr (expected: language=tokens per second pairs, e.g. es=4.2,fr=3.6)",
                failure(Map.of(), "--speech-token-rates", "fr"));
        assertEquals("speech-token-rates: speech token rate for fr: -1.0 (expected: finite, > 0)",
                failure(Map.of(), "--speech-token-rates", "fr=-1"));
    }

    @Test
    void badYamlIsNamed() throws Exception {
        Path unknownKey = Files.writeString(dir.resolve("a.yaml"), "polcy: sjf\n");
        assertEquals("polcy: unknown option (see --help)", failure(Map.of(), "--config", unknownKey.toString()));
        Path list = Files.writeString(dir.resolve("b.yaml"), "- sjf\n");
        assertTrue(failure(Map.of(), "--config", list.toString()).contains("expected: a YAML mapping"));
    }

    /** YAML 1.1 reads off as false, 0123 as 83 and 1_0 as 10: every value is taken as written, as a flag's would be. */
    @Test
    void yamlValuesAreTakenAsWritten() throws Exception {
        Path yaml = Files.writeString(dir.resolve("words.yaml"), """
                starvation-timeout: off
                max-queue-wait: off
                preemption: off
                fair-share: off
                admin-token: 0123
                max-queue: 010
                backend: [http://a:1, http://b:2]
                """);
        TriageConfig config = load(Map.of(), "--config", yaml.toString());
        assertEquals(Duration.ZERO, config.starvationTimeout());
        assertEquals(Duration.ZERO, config.maxQueueWait());
        assertEquals(PreemptionDialect.OFF, config.preemption());
        assertEquals("0123", config.adminToken());
        assertEquals(10, config.maxQueue());
        Path yes = Files.writeString(dir.resolve("yes.yaml"), "audio-vad: yes\n");
        assertTrue(failure(Map.of(), "--config", yes.toString()).startsWith("audio-vad: yes "), "refused as the flag refuses it");
    }

    @Test
    void aKeyWithNoValueKeepsItsDefault() throws Exception {
        // YAML reads "admin-token:" as null, which is not the token "null" that a remote client could send.
        Path blank = Files.writeString(dir.resolve("blank.yaml"), "admin-token:\nstate-dir:\nfeedback-log:\n");
        TriageConfig config = load(Map.of(), "--config", blank.toString());
        assertEquals("", config.adminToken());
        assertEquals(Optional.empty(), config.learning().stateDirectory());
        assertEquals(Optional.empty(), config.learning().feedbackLog());
        Path nullItem = Files.writeString(dir.resolve("null-item.yaml"), "backend:\n  - http://a:1\n  -\n");
        assertTrue(failure(Map.of(), "--config", nullItem.toString()).contains("expected: a list of single values"));
    }

    @Test
    void helpListsEveryOptionWithItsEnvironmentVariable() {
        String usage = ConfigLoader.usage();
        for (ConfigOption option : ConfigLoader.OPTIONS) {
            assertTrue(usage.contains(option.flag() + " <value>"), option.key());
            assertTrue(usage.contains(option.environmentVariable()), option.key());
        }
    }
}
