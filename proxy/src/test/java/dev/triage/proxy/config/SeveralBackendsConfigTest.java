package dev.triage.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several chat backends from repeated flags, a YAML list or the environment, each with its own slots, models and name. */
class SeveralBackendsConfigTest {

    @TempDir
    Path dir;

    private static String failure(String... args) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.load(args, Map.of())).getMessage();
    }

    @Test
    void oneBackendIsTheChatBackendWithTheGlobalConcurrency() {
        TriageConfig config = ConfigLoader.load(new String[] {"--backend", "http://a:8081", "--max-concurrency", "3"}, Map.of());
        assertEquals(1, config.backends().size());
        BackendConfig only = config.backend();
        assertEquals("chat", only.name());
        assertEquals(3, only.maxConcurrency());
        assertEquals(Set.of(), only.models());
        assertEquals(Duration.ofSeconds(5), config.probeInterval());
    }

    @Test
    void repeatedFlagsAddBackendsEachWithItsOwnOptions() {
        TriageConfig config = ConfigLoader.load(new String[] {"--backend", "http://a:8081", "--max-concurrency", "2",
                "--backend=http://b:8082,max-concurrency=4,name=big", "--probe-interval", "250ms"}, Map.of());
        List<BackendConfig> backends = config.backends();
        assertEquals(2, backends.size());
        assertEquals("chat-1", backends.get(0).name());
        assertEquals(2, backends.get(0).maxConcurrency(), "the global --max-concurrency where the backend sets none");
        assertEquals("big", backends.get(1).name());
        assertEquals(4, backends.get(1).maxConcurrency());
        assertEquals("http://b:8082", backends.get(1).url().toString());
        assertEquals(Duration.ofMillis(250), config.probeInterval());
    }

    @Test
    void aYamlListAndTheEnvironmentGiveSeveralBackends() throws Exception {
        Path file = dir.resolve("triage.yaml");
        Files.writeString(file, """
                backend:
                  - http://a:8081,models=llama3|qwen
                  - http://b:8082,models=llama3|qwen,max-concurrency=2
                  - http://c:8083,models=whisper
                """);
        List<BackendConfig> fromFile = ConfigLoader.load(new String[] {"--config", file.toString()}, Map.of()).backends();
        assertEquals(3, fromFile.size());
        assertEquals(Set.of("llama3:latest", "qwen:latest"), fromFile.get(1).models());
        assertTrue(fromFile.get(0).serves("qwen"));
        assertTrue(fromFile.get(0).serves("Qwen:latest"), "Ollama's names: any case, and no tag is :latest");
        assertTrue(!fromFile.get(0).serves("qwen:7b"));
        assertTrue(!fromFile.get(2).serves("qwen"));

        List<BackendConfig> fromEnvironment = ConfigLoader.load(new String[0],
                Map.of("TRIAGE_BACKEND", "http://a:8081 http://b:8082")).backends();
        assertEquals(List.of("chat-1", "chat-2"), fromEnvironment.stream().map(BackendConfig::name).toList());

        List<BackendConfig> flagsWin = ConfigLoader.load(new String[] {"--config", file.toString(), "--backend", "http://d:8084"},
                Map.of()).backends();
        assertEquals(1, flagsWin.size(), "flags replace the file's list, as they replace any value");
    }

    @Test
    void badBackendsAreRefusedWithTheKeyTheValueAndWhatIsExpected() {
        assertEquals("backend: http://b:8082,max-concurrency=0 (expected: max-concurrency 1 to 100000)",
                failure("--backend", "http://a:8081", "--backend", "http://b:8082,max-concurrency=0"));
        assertEquals("backend: http://b:8082,max-concurrency=1500000000 (expected: max-concurrency 1 to 100000)",
                failure("--backend", "http://a:8081", "--backend", "http://b:8082,max-concurrency=1500000000"),
                "two such would overflow the pool's slots");
        assertEquals("backend: http://b:8082,weight=2 (expected: URL[,max-concurrency=N][,models=a|b][,name=label])",
                failure("--backend", "http://a:8081", "--backend", "http://b:8082,weight=2"));
        assertEquals("backend: http://b:8082,name=x (expected: a name no other backend has)",
                failure("--backend", "http://a:8081,name=x", "--backend", "http://b:8082,name=x"));
        assertEquals("backend: http://a:8081,name=a/b (expected: name= 1 to 32 letters, digits, '.', '_' or '-')",
                failure("--backend", "http://a:8081,name=a/b"));
        assertEquals("backend: http://a:8081,models= (expected: models=name|name, no name empty)",
                failure("--backend", "http://a:8081,models="));
        assertEquals("backend: chat-1 serves every model and chat-2 serves llama3:latest (expected: backends that share a model serve the same models)",
                failure("--backend", "http://a:8081", "--backend", "http://b:8082,models=llama3"));
        assertTrue(failure("--backend", "http://a:8081", "--backend", "http://b:8082/v1").startsWith("backend: http://b:8082/v1 (expected:"));
        assertTrue(failure("--backend", "http://a:8081,max-concurrency=two").startsWith("backend max-concurrency: two"));
        assertEquals("probe-interval: 0s (expected: a duration > 0)", failure("--probe-interval", "0s"));
        assertEquals("max-concurrency: auto (expected: a number when there are several backends)",
                failure("--backend", "http://a:8081", "--backend", "http://b:8082", "--max-concurrency", "auto"));
    }
}
