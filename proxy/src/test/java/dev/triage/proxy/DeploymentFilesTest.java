package dev.triage.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The container files under {@code docker/}, checked by parsing them: no Docker engine runs where
 * Triage is built, so these tests are what keeps the image, the compose file, the Prometheus scrape
 * and the Grafana dashboard in step with the code. Where a file makes a claim about Triage (a port, a
 * route, a metric name, a setting), the claim is checked against a running Triage.
 */
class DeploymentFilesTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = repositoryRoot();
    private static final Path DOCKER = ROOT.resolve("docker");

    // --- the image ---------------------------------------------------------------------------------

    @Test
    void imageBuildsTheJarTheScriptsBuildAndShipsItWithItsLibraries() throws Exception {
        Dockerfile dockerfile = Dockerfile.read(DOCKER.resolve("Dockerfile"));
        assertEquals(2, dockerfile.stages().size(), "a build stage and a runtime stage");
        Stage build = dockerfile.stages().get(0);
        Stage runtime = dockerfile.stages().get(1);
        assertTrue(build.image().startsWith("maven:") && build.image().contains("temurin-17"), build.image());
        assertTrue(runtime.image().startsWith("eclipse-temurin:17-jre"), runtime.image());

        // The build runs the command scripts/triage builds its jar with (quiet or not, the same jar).
        String buildCommand = scriptBuildCommand("proxy");
        List<String> runs = build.args("RUN");
        assertEquals(buildCommand, runs.get(runs.size() - 1), "the last build step builds the jar");
        assertTrue(Files.readString(ROOT.resolve("scripts/triage")).contains("run_jar proxy proxy/target/triage.jar"));

        // Every module's pom is in place before the first build step, or the reactor cannot start.
        List<String> copiedBeforeFirstRun = new ArrayList<>();
        for (Instruction instruction : build.instructions()) {
            if (instruction.keyword().equals("RUN")) {
                break;
            }
            if (instruction.keyword().equals("COPY")) {
                copiedBeforeFirstRun.addAll(Copy.parse(instruction.args()).sources());
            }
        }
        List<String> poms = new ArrayList<>(List.of("pom.xml"));
        for (String module : elementTexts(xml(ROOT.resolve("pom.xml")), "module")) {
            poms.add(module + "/pom.xml");
        }
        assertTrue(copiedBeforeFirstRun.containsAll(poms), "poms copied first: " + copiedBeforeFirstRun + ", needed " + poms);

        // What the runtime stage takes from the build is what the proxy's pom produces: the jar and lib/.
        Document proxyPom = xml(ROOT.resolve("proxy/pom.xml"));
        assertEquals(List.of("triage"), elementTexts(proxyPom, "finalName"));
        assertEquals(List.of("lib/"), elementTexts(proxyPom, "classpathPrefix"), "the manifest class path is lib/ beside the jar");
        assertTrue(elementTexts(proxyPom, "outputDirectory").contains("${project.build.directory}/lib"));
        String workdir = build.args("WORKDIR").get(0);
        Map<String, String> fromBuild = new LinkedHashMap<>();
        for (String args : runtime.args("COPY")) {
            Copy copy = Copy.parse(args);
            assertEquals("build", copy.from(), "the runtime stage copies only build outputs: " + args);
            for (String source : copy.sources()) {
                fromBuild.put(Path.of(workdir).relativize(Path.of(source)).toString(), copy.destination());
            }
        }
        assertEquals(Set.of("proxy/target/triage.jar", "proxy/target/lib"), fromBuild.keySet());
        Path jar = Path.of(fromBuild.get("proxy/target/triage.jar"));
        assertEquals(jar.resolveSibling("lib"), Path.of(fromBuild.get("proxy/target/lib")), "lib/ lies beside the jar");

        // The container's arguments follow "java -jar triage.jar": they are Triage's flags.
        JsonNode entrypoint = JSON.readTree(runtime.args("ENTRYPOINT").get(0));
        assertEquals(List.of("java", "-jar", jar.toString()), strings(entrypoint));
        assertTrue(runtime.args("CMD").isEmpty(), "no default arguments; configuration comes from TRIAGE_* variables");

        // The build context leaves out build outputs, but nothing the build copies in.
        List<String> ignored = Files.readAllLines(ROOT.resolve(".dockerignore")).stream()
                .map(String::trim).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        assertTrue(ignored.contains("**/target"), ignored.toString());
        for (String pattern : ignored) {
            for (String needed : List.of("pom.xml", "features", "model", "proxy", "bench", "src")) {
                assertFalse(pattern.equals(needed) || pattern.startsWith(needed + "/") || pattern.startsWith("**/" + needed),
                        ".dockerignore drops " + needed + ": " + pattern);
            }
        }
    }

    @Test
    void imageRunsAsAnUnprivilegedUserReachableOnItsPort() throws Exception {
        Stage runtime = Dockerfile.read(DOCKER.resolve("Dockerfile")).stages().get(1);
        List<String> users = runtime.args("USER");
        assertEquals(1, users.size(), users.toString());
        String[] user = users.get(0).split(":");
        String uid = user[0];
        assertFalse(uid.equals("root") || uid.equals("0"), "runs as root: " + users);
        assertTrue(runtime.args("RUN").stream().anyMatch(run -> run.contains("useradd") && run.contains("--uid " + uid)),
                "the image creates user " + uid);
        if (user.length > 1) {
            // useradd --user-group picks a free GID of its own: the group must be made with the GID named.
            assertTrue(runtime.args("RUN").stream().anyMatch(run -> run.contains("groupadd") && run.contains("--gid " + user[1])),
                    "the image creates group " + user[1]);
        }
        assertTrue(runtime.index("USER") < runtime.index("ENTRYPOINT"));

        TriageConfig config = ConfigLoader.load(new String[0], runtime.environment());
        assertEquals("0.0.0.0", config.listen().getHostString(), "listens on all interfaces, for other containers");
        assertEquals(List.of(String.valueOf(config.listen().getPort())), runtime.args("EXPOSE"));
    }

    @Test
    void healthcheckProbesHealthzOnTheListenPortAndFailsWhenNothingAnswers() throws Exception {
        Stage runtime = Dockerfile.read(DOCKER.resolve("Dockerfile")).stages().get(1);
        List<String> healthchecks = runtime.args("HEALTHCHECK");
        assertEquals(1, healthchecks.size());
        String healthcheck = healthchecks.get(0);
        List<String> probe = strings(JSON.readTree(healthcheck.substring(healthcheck.indexOf("CMD ") + 4)));
        assertEquals(List.of("bash", "-c"), probe.subList(0, 2), "only bash, which the runtime image certainly has");
        assertTrue(probe.get(2).contains("/healthz"), probe.get(2));
        Path bash = Path.of("/bin/bash");
        assumeTrue(Files.isExecutable(bash), "no /bin/bash here to run the probe with");

        try (RunningTriage triage = RunningTriage.start()) {
            // The container's environment, with the port this test's Triage got.
            String listen = runtime.environment().get("TRIAGE_LISTEN").replaceAll(":\\d+$", ":" + triage.port());
            assertEquals(0, runProbe(probe, listen), "the probe passes against a live Triage");
        }
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        assertNotEquals(0, runProbe(probe, "0.0.0.0:" + closedPort), "the probe fails when nothing listens");
    }

    private static int runProbe(List<String> probe, String listen) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(probe).redirectErrorStream(true);
        builder.environment().put("TRIAGE_LISTEN", listen);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("the probe hung: " + output);
        }
        return process.exitValue();
    }

    // --- compose -----------------------------------------------------------------------------------

    @Test
    void composeRunsTriageInFrontOfAnUnpublishedOllama() throws Exception {
        JsonNode compose = YAML.readTree(DOCKER.resolve("docker-compose.yml").toFile());
        JsonNode services = compose.path("services");
        assertEquals(Set.of("triage", "ollama", "prometheus", "grafana"), fieldNames(services));
        JsonNode triage = services.path("triage");
        JsonNode ollama = services.path("ollama");
        for (String name : fieldNames(services)) {
            String restart = services.path(name).path("restart").asText("no");
            assertTrue(Set.of("always", "unless-stopped", "on-failure").contains(restart), name + " restart: " + restart);
        }

        // Built from the repository root with the Dockerfile under test.
        Path context = DOCKER.resolve(triage.path("build").path("context").asText()).normalize();
        assertEquals(ROOT.normalize(), context);
        assertEquals(DOCKER.resolve("Dockerfile"), context.resolve(triage.path("build").path("dockerfile").asText()));

        // Triage's effective configuration in the container: the image's environment, then compose's.
        Map<String, String> environment = new HashMap<>(Dockerfile.read(DOCKER.resolve("Dockerfile")).stages().get(1).environment());
        environment.putAll(textMap(triage.path("environment")));
        TriageConfig config = ConfigLoader.load(new String[0], environment);
        assertEquals(List.of(new PortMapping(8080, config.listen().getPort())), ports(triage.path("ports")),
                "host port 8080 reaches the port Triage listens on");
        assertEquals("ollama", config.backend().host());
        assertEquals(11434, config.backend().port());
        assertTrue(ollama.path("image").asText().startsWith("ollama/ollama"));
        assertEquals(Set.of("ollama"), dependencies(triage));
        assertEquals(Integer.parseInt(textMap(ollama.path("environment")).get("OLLAMA_NUM_PARALLEL")),
                config.backend().maxConcurrency(), "Triage releases as many requests as Ollama runs at once");
        assertTrue(composeDuration(triage.path("stop_grace_period").asText("10s")).compareTo(config.shutdownGrace()) > 0,
                "Docker waits longer than Triage's shutdown grace before it kills");

        // Ollama is reached through Triage only.
        assertTrue(ollama.path("ports").isMissingNode(), "Ollama publishes no port");
        assertFalse(ollama.path("network_mode").asText("").equals("host"));
        assertTrue(strings(ollama.path("volumes")).contains("ollama-models:/root/.ollama"), "Ollama's models live in a volume");
        assertTrue(compose.path("volumes").has("ollama-models"));
    }

    @Test
    void composeMountsFilesThatExistAndVolumesThatAreDeclared() throws Exception {
        JsonNode compose = YAML.readTree(DOCKER.resolve("docker-compose.yml").toFile());
        Set<String> declared = fieldNames(compose.path("volumes"));
        Set<String> used = new HashSet<>();
        for (JsonNode service : compose.path("services")) {
            for (String volume : strings(service.path("volumes"))) {
                String source = volume.split(":")[0];
                if (source.startsWith(".") || source.startsWith("/")) {
                    assertTrue(Files.exists(DOCKER.resolve(source)), "mounted but missing: " + volume);
                } else {
                    assertTrue(declared.contains(source), "volume not declared: " + volume);
                    used.add(source);
                }
            }
        }
        assertEquals(declared, used, "every declared volume is mounted");
    }

    @Test
    void grafanaLoadsTheDashboardFromPrometheus() throws Exception {
        JsonNode compose = YAML.readTree(DOCKER.resolve("docker-compose.yml").toFile());
        Map<String, String> mounts = new HashMap<>();
        for (String volume : strings(compose.path("services").path("grafana").path("volumes"))) {
            String[] parts = volume.split(":");
            mounts.put(parts[0], parts[1]);
        }
        Path provisioning = DOCKER.resolve(provisioningSource(mounts));
        JsonNode provider = YAML.readTree(provisioning.resolve("dashboards/triage.yml").toFile()).path("providers").get(0);
        Path dashboardInContainer = Path.of(mounts.get("./grafana/triage-dashboard.json"));
        assertEquals(Path.of(provider.path("options").path("path").asText()), dashboardInContainer.getParent(),
                "the provider reads the folder the dashboard is mounted in");

        JsonNode datasource = YAML.readTree(provisioning.resolve("datasources/prometheus.yml").toFile()).path("datasources").get(0);
        assertEquals("prometheus", datasource.path("type").asText());
        URI url = URI.create(datasource.path("url").asText());
        assertTrue(compose.path("services").path(url.getHost()).path("image").asText().startsWith("prom/prometheus"),
                "the datasource is the compose file's Prometheus: " + url);
        String uid = datasource.path("uid").asText();
        for (JsonNode panel : dashboard().path("panels")) {
            assertEquals(uid, panel.path("datasource").path("uid").asText(), panel.path("title").asText());
            for (JsonNode target : panel.path("targets")) {
                assertEquals(uid, target.path("datasource").path("uid").asText(), panel.path("title").asText());
            }
        }
    }

    private static String provisioningSource(Map<String, String> mounts) {
        return mounts.entrySet().stream().filter(mount -> mount.getValue().equals("/etc/grafana/provisioning"))
                .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError("no provisioning mount: " + mounts));
    }

    // --- Prometheus and the dashboard against a running Triage -------------------------------------

    @Test
    void prometheusScrapesTriageAndTheDashboardQueriesWhatTriageExposes() throws Exception {
        JsonNode compose = YAML.readTree(DOCKER.resolve("docker-compose.yml").toFile());
        JsonNode scrape = YAML.readTree(DOCKER.resolve("prometheus.yml").toFile()).path("scrape_configs").get(0);
        String metricsPath = scrape.path("metrics_path").asText("/metrics");
        List<String> targets = strings(scrape.path("static_configs").get(0).path("targets"));
        Map<String, String> environment = new HashMap<>(Dockerfile.read(DOCKER.resolve("Dockerfile")).stages().get(1).environment());
        environment.putAll(textMap(compose.path("services").path("triage").path("environment")));
        int listenPort = ConfigLoader.load(new String[0], environment).listen().getPort();
        assertEquals(List.of("triage:" + listenPort), targets, "Prometheus scrapes the triage service on its listen port");

        String metrics;
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(1));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("hello", 4, false)).statusCode());
            assertEquals(400, triage.post("/v1/chat/completions", "{oops").statusCode());
            triage.metricsAfter(2);
            HttpResponse<String> response = triage.get(metricsPath);
            assertEquals(200, response.statusCode(), "Prometheus' path is served: " + metricsPath);
            metrics = response.body();
        }
        Map<String, List<Map<String, String>>> exposed = PrometheusText.series(metrics);

        Set<String> queried = new HashSet<>();
        for (JsonNode panel : dashboard().path("panels")) {
            String title = panel.path("title").asText();
            assertTrue(panel.path("targets").size() > 0, title);
            for (JsonNode target : panel.path("targets")) {
                Query query = Query.parse(target.path("expr").asText());
                String where = title + ": " + target.path("expr").asText();
                assertFalse(query.metrics().isEmpty(), where);
                Set<String> labels = new HashSet<>();
                for (String metric : query.metrics()) {
                    assertTrue(exposed.containsKey(metric), where + ": Triage exposes no " + metric);
                    exposed.get(metric).forEach(series -> labels.addAll(series.keySet()));
                }
                queried.addAll(query.metrics());
                for (LabelMatcher matcher : query.matchers()) {
                    assertTrue(exposed.get(matcher.metric()).stream().anyMatch(series -> matcher.value().equals(series.get(matcher.label()))),
                            where + ": no " + matcher.metric() + " has " + matcher.label() + "=\"" + matcher.value() + "\"");
                }
                assertTrue(labels.containsAll(query.grouping()), where + ": grouped by labels its metrics lack");
                Set<String> legend = legendLabels(target.path("legendFormat").asText());
                Set<String> resultLabels = query.grouping().isEmpty() ? labels : query.grouping();
                assertTrue(resultLabels.containsAll(legend), where + ": the legend names labels the result lacks: " + legend);
            }
        }
        assertTrue(queried.containsAll(Set.of("triage_queue_depth", "triage_inflight", "triage_slots",
                "triage_queue_wait_seconds_bucket", "triage_request_seconds_bucket", "triage_ranking_accuracy",
                "triage_rejected_total", "triage_starvation_promotions_total")), "the dashboard's panels: " + queried);
    }

    private static JsonNode dashboard() throws IOException {
        return JSON.readTree(DOCKER.resolve("grafana/triage-dashboard.json").toFile());
    }

    private static Set<String> legendLabels(String legendFormat) {
        Set<String> labels = new HashSet<>();
        Matcher m = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}").matcher(legendFormat);
        while (m.find()) {
            labels.add(m.group(1));
        }
        return labels;
    }

    /** A label matcher {@code metric{label="value"}} of a query. */
    record LabelMatcher(String metric, String label, String value) {}

    /**
     * What a PromQL expression reads: its metric names, its equality label matchers and the labels it
     * aggregates by. Enough of PromQL for dashboards: selectors, ranges, functions, {@code by}.
     */
    record Query(Set<String> metrics, List<LabelMatcher> matchers, Set<String> grouping) {

        private static final Set<String> FUNCTIONS = Set.of("sum", "avg", "min", "max", "count", "rate", "irate",
                "increase", "delta", "histogram_quantile", "avg_over_time", "max_over_time", "clamp_min", "clamp_max",
                "abs", "topk", "bottomk");
        private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}");
        private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
        private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
        private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
        private static final Pattern NUMBER = Pattern.compile("\\b\\d+(\\.\\d+)?([eE][+-]?\\d+)?\\b");
        private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

        static Query parse(String expr) {
            List<LabelMatcher> matchers = new ArrayList<>();
            Matcher selector = SELECTOR.matcher(expr);
            while (selector.find()) {
                Matcher matcher = MATCHER.matcher(selector.group(2));
                while (matcher.find()) {
                    if (!matcher.group(2).equals("=")) {
                        throw new AssertionError("only = matchers are checked: " + expr);
                    }
                    matchers.add(new LabelMatcher(selector.group(1), matcher.group(1), matcher.group(3)));
                }
            }
            String rest = SELECTOR.matcher(expr).replaceAll("$1");
            Set<String> grouping = new LinkedHashSet<>();
            Matcher group = GROUPING.matcher(rest);
            while (group.find()) {
                for (String label : group.group(1).split(",")) {
                    grouping.add(label.trim());
                }
            }
            grouping.remove("le");
            rest = NUMBER.matcher(RANGE.matcher(GROUPING.matcher(rest).replaceAll(" ")).replaceAll(" ")).replaceAll(" ");
            Set<String> metrics = new LinkedHashSet<>();
            Matcher name = NAME.matcher(rest);
            while (name.find()) {
                boolean call = rest.substring(name.end()).stripLeading().startsWith("(");
                if (call && !FUNCTIONS.contains(name.group())) {
                    throw new AssertionError("not a PromQL function this test knows: " + name.group() + " in " + expr);
                }
                if (!call) {
                    metrics.add(name.group());
                }
            }
            return new Query(metrics, matchers, grouping);
        }
    }

    // --- reading the files -------------------------------------------------------------------------

    /**
     * A Dockerfile as instructions grouped by stage: continuation lines joined, comments dropped, and
     * each stage's image with the defaults of the {@code ARG}s before the first {@code FROM} filled in.
     */
    record Dockerfile(List<Stage> stages) {

        private static final Pattern ARG_REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

        static Dockerfile read(Path file) throws IOException {
            List<Stage> stages = new ArrayList<>();
            Map<String, String> buildArgs = new HashMap<>();
            StringBuilder pending = new StringBuilder();
            for (String line : Files.readAllLines(file)) {
                String trimmed = line.strip();
                if (trimmed.startsWith("#") || (trimmed.isEmpty() && pending.isEmpty())) {
                    continue;
                }
                if (trimmed.endsWith("\\")) {
                    pending.append(trimmed, 0, trimmed.length() - 1).append(' ');
                    continue;
                }
                String text = pending.append(trimmed).toString().strip();
                pending.setLength(0);
                int space = text.indexOf(' ');
                Instruction instruction = new Instruction(text.substring(0, space).toUpperCase(), text.substring(space + 1).strip());
                if (instruction.keyword().equals("FROM")) {
                    Matcher reference = ARG_REFERENCE.matcher(instruction.args().split("\\s+")[0]);
                    String image = reference.replaceAll(arg -> Matcher.quoteReplacement(buildArgs.computeIfAbsent(arg.group(1), name -> {
                        throw new AssertionError("FROM names ${" + name + "}, which no ARG before it sets: " + text);
                    })));
                    stages.add(new Stage(image, new ArrayList<>()));
                } else if (stages.isEmpty() && instruction.keyword().equals("ARG")) {
                    String[] arg = instruction.args().split("=", 2);
                    assertEquals(2, arg.length, "an ARG before FROM has a default, the image users build on: " + text);
                    buildArgs.put(arg[0], arg[1]);
                } else if (stages.isEmpty()) {
                    throw new AssertionError("an instruction before FROM: " + text);
                } else {
                    stages.get(stages.size() - 1).instructions().add(instruction);
                }
            }
            return new Dockerfile(stages);
        }
    }

    record Instruction(String keyword, String args) {}

    /** One stage: the image it starts from and its instructions in order. */
    record Stage(String image, List<Instruction> instructions) {

        List<String> args(String keyword) {
            return instructions.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::args).toList();
        }

        int index(String keyword) {
            for (int i = 0; i < instructions.size(); i++) {
                if (instructions.get(i).keyword().equals(keyword)) {
                    return i;
                }
            }
            throw new AssertionError("no " + keyword);
        }

        /** The variables its ENV instructions set ({@code ENV KEY=VALUE ...} form). */
        Map<String, String> environment() {
            Map<String, String> environment = new LinkedHashMap<>();
            for (String args : args("ENV")) {
                for (String pair : args.split("\\s+")) {
                    int equals = pair.indexOf('=');
                    if (equals < 1) {
                        throw new AssertionError("ENV in KEY=VALUE form, please: " + args);
                    }
                    environment.put(pair.substring(0, equals), pair.substring(equals + 1));
                }
            }
            return environment;
        }
    }

    /** A {@code COPY [--from=stage] source... destination} instruction. */
    record Copy(String from, List<String> sources, String destination) {

        static Copy parse(String args) {
            String from = "";
            List<String> paths = new ArrayList<>();
            for (String word : args.split("\\s+")) {
                if (word.startsWith("--from=")) {
                    from = word.substring("--from=".length());
                } else if (!word.startsWith("--")) {
                    paths.add(word);
                }
            }
            return new Copy(from, paths.subList(0, paths.size() - 1), paths.get(paths.size() - 1));
        }
    }

    /** A published port, {@code "HOST:CONTAINER"} in the compose file. */
    record PortMapping(int host, int container) {}

    private static List<PortMapping> ports(JsonNode ports) {
        List<PortMapping> mappings = new ArrayList<>();
        for (String port : strings(ports)) {
            String[] parts = port.replace("/tcp", "").split(":");
            assertTrue(parts.length >= 2, "a published port names its host port: " + port);
            mappings.add(new PortMapping(Integer.parseInt(parts[parts.length - 2]), Integer.parseInt(parts[parts.length - 1])));
        }
        return mappings;
    }

    private static Set<String> dependencies(JsonNode service) {
        JsonNode dependsOn = service.path("depends_on");
        return dependsOn.isArray() ? new HashSet<>(strings(dependsOn)) : fieldNames(dependsOn);
    }

    /** A compose duration such as {@code 40s} or {@code 1m30s}. */
    private static Duration composeDuration(String text) {
        Matcher part = Pattern.compile("(\\d+)(ms|h|m|s)").matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        while (part.find() && part.start() == end) {
            long amount = Long.parseLong(part.group(1));
            total = total.plus(switch (part.group(2)) {
                case "h" -> Duration.ofHours(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "s" -> Duration.ofSeconds(amount);
                default -> Duration.ofMillis(amount);
            });
            end = part.end();
        }
        assertEquals(text.length(), end, "a compose duration: " + text);
        return total;
    }

    private static Map<String, String> textMap(JsonNode node) {
        assertTrue(node.isObject(), "environment as a map: " + node);
        Map<String, String> map = new LinkedHashMap<>();
        node.fields().forEachRemaining(field -> map.put(field.getKey(), field.getValue().asText()));
        return map;
    }

    // --- the scripts -------------------------------------------------------------------------------

    /**
     * The scripts build a module again when a source or POM is newer than its jar, not only when the jar is
     * missing: after a pull or a merge, a jar built before would run the old code and models without a word.
     */
    @Test
    void theScriptsSeeSourcesNewerThanAJar(@TempDir Path temp) throws Exception {
        Path bash = Path.of("/bin/bash");
        assumeTrue(Files.isExecutable(bash), "no /bin/bash here to source scripts/lib/java.sh with");
        Path older = Files.createFile(temp.resolve("older.jar"));
        Files.setLastModifiedTime(older, FileTime.fromMillis(0));
        Path newer = Files.createFile(temp.resolve("newer.jar"));
        Files.setLastModifiedTime(newer, FileTime.from(Instant.now().plus(Duration.ofDays(1))));

        String found = newerSource(bash, older);
        assertTrue(!found.contains("/target/") && (found.contains("/src/main/") || found.endsWith("/pom.xml")),
                "a source of the checkout, not a build output: " + found);
        assertEquals("", newerSource(bash, newer), "nothing is newer than a jar built after every source");
    }

    private static String newerSource(Path bash, Path jar) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(bash.toString(), "-c", "source scripts/lib/java.sh && newer_source \"$1\"",
                "newer_source", jar.toString()).directory(ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "newer_source hung");
        assertEquals(0, process.exitValue(), output);
        return output;
    }

    private static List<String> strings(JsonNode array) {
        List<String> strings = new ArrayList<>();
        array.forEach(element -> {
            assertTrue(element.isTextual(), "a string: " + element);
            strings.add(element.asText());
        });
        return strings;
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new LinkedHashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /**
     * The command scripts/lib/java.sh builds a module's jar with, for {@code module}, without -q and
     * the options that only keep the scripts' output plain ({@code mvn_plain} adds them to {@code mvn -B}).
     */
    private static String scriptBuildCommand(String module) throws IOException {
        String line = Files.readAllLines(ROOT.resolve("scripts/lib/java.sh")).stream()
                .filter(l -> l.contains("mvn_plain ")).findFirst().orElseThrow();
        Matcher command = Pattern.compile("mvn_plain ([^)]*)\\)").matcher(line);
        assertTrue(command.find(), line);
        assertTrue(Files.readString(ROOT.resolve("scripts/lib/maven.sh")).contains(" mvn -B "), "mvn_plain runs mvn -B");
        return ("mvn -B " + command.group(1)).replace("\"$module\"", module).replace(" -q", "").strip();
    }

    private static Document xml(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static List<String> elementTexts(Document document, String tag) {
        NodeList nodes = document.getElementsByTagName(tag);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(((Element) nodes.item(i)).getTextContent().strip());
        }
        return texts;
    }

    /** The nearest directory, from the working directory up, whose pom lists the proxy module. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<module>proxy</module>")) {
                    return dir;
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + pom, e);
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }
}
