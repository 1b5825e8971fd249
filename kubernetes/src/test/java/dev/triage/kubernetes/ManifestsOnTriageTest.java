package dev.triage.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each Deployment's Triage, started with the configuration its manifest gives it: the probes the pod
 * declares answer, and every metric that a router, an autoscaler or an adapter rule names is one
 * this Triage exports.
 */
class ManifestsOnTriageTest {

    /** Where a metric's name starts a PromQL selector or a picker's metric flag (labels may follow). */
    private static final Pattern METRIC_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)");
    /** Triage's settings that point outside the pod: the test's loopback port and fake backend stand in. */
    private static final Set<String> POD_ONLY = Set.of("TRIAGE_LISTEN", "TRIAGE_BACKEND", "TRIAGE_HEALTH_PATH");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static FakeOpenAiBackend backend;

    @BeforeAll
    static void startBackend() throws Exception {
        backend = FakeOpenAiBackend.start(1, Duration.ZERO);
    }

    @AfterAll
    static void stopBackend() throws Exception {
        backend.close();
    }

    @Test
    void everyProbeAnswersAndEveryMetricNamedForAPodExists() throws Exception {
        int checked = 0;
        for (Deployment deployment : Manifests.all(Deployment.class)) {
            Container container = Manifests.triage(deployment).orElse(null);
            if (container == null) {
                continue;
            }
            String name = deployment.getMetadata().getName();
            try (RunningTriage triage = RunningTriage.start(flags(Manifests.triageEnvironment(container)))) {
                Await.until(name + " ready", () -> status(triage, "/readyz") == 200);
                assertEquals(200, status(triage, container.getLivenessProbe().getHttpGet().getPath()), name);
                assertEquals(200, status(triage, container.getReadinessProbe().getHttpGet().getPath()), name);

                Set<String> exported = PrometheusText.series(triage.get("/metrics").body()).keySet();
                for (String metric : metricsNamedFor(deployment)) {
                    assertTrue(exported.contains(metric), name + " exports no " + metric);
                    checked++;
                }
            }
        }
        assertTrue(checked >= 4, "the picker's three metrics and the autoscaler's, at least: " + checked);
    }

    private static String[] flags(Map<String, String> environment) {
        List<String> flags = new ArrayList<>(List.of("--backend", backend.url(), "--health-path", "/v1/models"));
        environment.forEach((variable, value) -> {
            if (!POD_ONLY.contains(variable)) {
                flags.add("--" + variable.substring("TRIAGE_".length()).toLowerCase(Locale.ROOT).replace('_', '-'));
                flags.add(value);
            }
        });
        return flags.toArray(String[]::new);
    }

    private static int status(RunningTriage triage, String path) {
        try {
            return triage.get(path).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The metrics that an endpoint picker of a pool holding these pods, or an autoscaler of them, reads. */
    private static Set<String> metricsNamedFor(Deployment deployment) throws Exception {
        Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        Set<String> metrics = new HashSet<>();
        for (Manifests.Document document : Manifests.documents()) {
            if (document.kind().equals("InferencePool")
                    && podLabels.entrySet().containsAll(InferencePool.of(document.tree()).selector().matchLabels().entrySet())) {
                metrics.addAll(pickerMetrics(InferencePool.of(document.tree())));
            }
        }
        for (HorizontalPodAutoscaler autoscaler : Manifests.all(HorizontalPodAutoscaler.class)) {
            if (autoscaler.getSpec().getScaleTargetRef().getName().equals(deployment.getMetadata().getName())) {
                autoscaler.getSpec().getMetrics().forEach(m -> metrics.add(m.getPods().getMetric().getName()));
                metrics.addAll(adapterRuleMetrics());
            }
        }
        return metrics;
    }

    private static Set<String> pickerMetrics(InferencePool pool) {
        Set<String> metrics = new HashSet<>();
        Service pickerService = (Service) Manifests.named("Service", pool.endpointPickerRef().name()).resource();
        Deployment picker = Manifests.selectedBy(pickerService.getSpec().getSelector()).get(0);
        for (String arg : picker.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs()) {
            int equals = arg.indexOf('=');
            if (arg.endsWith("-metric=") || equals < 0 || !arg.substring(0, equals).endsWith("-metric")) {
                continue;
            }
            metrics.add(name(arg.substring(equals + 1)));
        }
        assertFalse(metrics.isEmpty(), "the picker names no metric");
        return metrics;
    }

    private static Set<String> adapterRuleMetrics() throws Exception {
        Set<String> metrics = new HashSet<>();
        for (ConfigMap configMap : Manifests.all(ConfigMap.class)) {
            for (String text : configMap.getData().values()) {
                for (JsonNode rule : YAML.readTree(text).path("rules")) {
                    metrics.add(name(rule.path("seriesQuery").asText()));
                }
            }
        }
        return metrics;
    }

    private static String name(String selector) {
        Matcher name = METRIC_NAME.matcher(selector);
        assertTrue(name.find(), "no metric name in " + selector);
        return name.group(1);
    }
}
