package dev.triage.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.kubernetes.Manifests.Document;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The manifests as Kubernetes would read them, and as a Triage configuration. */
class ManifestsTest {

    @Test
    void everyDocumentIsAKindKubernetesKnowsWithNoUnknownField() {
        List<Document> documents = Manifests.documents();
        assertTrue(documents.size() >= 10, "documents: " + documents);
        for (Document document : documents) {
            if (document.kind().equals("InferencePool")) {
                assertEquals(InferencePool.API_VERSION, document.tree().path("apiVersion").asText());
                assertEquals(Set.of("apiVersion", "kind", "metadata", "spec"), fieldNames(document));
                InferencePool.of(document.tree());
            } else {
                assertFalse(document.resource() instanceof GenericKubernetesResource, document + " is of no known kind");
                assertEquals(List.of(), StrictModel.unknownFields(document.resource()), document + ": unknown fields");
            }
        }
    }

    @Test
    void aMisspeltFieldIsCaught() {
        Deployment deployment = Manifests.all(Deployment.class).get(0);
        deployment.getSpec().getTemplate().getSpec().getContainers().get(0).setAdditionalProperty("livenesProbe", Map.of());
        assertEquals(List.of("spec.template.spec.containers[0].livenesProbe"), StrictModel.unknownFields(deployment));
    }

    @Test
    void everyTriageContainerIsAValidConfigurationThatOwnsThePodsOnlyWayIn() throws Exception {
        List<Deployment> withTriage = Manifests.all(Deployment.class).stream().filter(d -> Manifests.triage(d).isPresent()).toList();
        assertEquals(3, withTriage.size(), "vLLM, llama.cpp and Ollama");
        String options = ConfigLoader.usage();
        for (Deployment deployment : withTriage) {
            String name = deployment.getMetadata().getName();
            Container triage = Manifests.triage(deployment).orElseThrow();
            Map<String, String> environment = Manifests.triageEnvironment(triage);
            environment.keySet().forEach(variable -> assertTrue(options.contains("env " + variable + "\n"),
                    name + ": " + variable + " is no option of Triage's"));
            TriageConfig config = ConfigLoader.load(new String[0], environment);

            assertTrue(InetAddress.getByName(config.backend().host()).isLoopbackAddress(),
                    name + ": the model server must be reachable through Triage only");
            long grace = deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
            for (Container other : deployment.getSpec().getTemplate().getSpec().getContainers()) {
                if (other != triage) {
                    assertTrue(other.getPorts().isEmpty(), name + ": " + other.getName() + " publishes a port");
                    // Stopped with Triage, the model server would cut the requests Triage lets finish.
                    List<String> preStop = other.getLifecycle().getPreStop().getExec().getCommand();
                    assertEquals("sleep", preStop.get(0), name + ": " + other.getName());
                    long stays = Long.parseLong(preStop.get(1));
                    assertTrue(stays > config.shutdownGrace().toSeconds() && stays < grace,
                            name + ": " + other.getName() + " stays " + stays + " s");
                }
            }
            assertEquals(config.listen().getPort(), triage.getPorts().get(0).getContainerPort(), name);
            assertEquals("http", triage.getPorts().get(0).getName(), name);
            assertProbe("/healthz", triage.getLivenessProbe().getHttpGet(), name);
            assertProbe("/readyz", triage.getReadinessProbe().getHttpGet(), name);
            assertTrue(grace > config.shutdownGrace().toSeconds(), name + ": the pod is killed before Triage has drained");
        }
    }

    private static void assertProbe(String path, HTTPGetAction probe, String deployment) {
        assertEquals(path, probe.getPath(), deployment);
        assertEquals("http", probe.getPort().getStrVal(), deployment);
    }

    @Test
    void everyServiceReachesTriagesPort() {
        for (Service service : Manifests.all(Service.class)) {
            Manifests.selectedBy(service.getSpec().getSelector()).stream()
                    .filter(d -> Manifests.triage(d).isPresent())
                    .forEach(d -> assertEquals("http", service.getSpec().getPorts().get(0).getTargetPort().getStrVal(),
                            service.getMetadata().getName()));
        }
    }

    @Test
    void theInferencePoolRoutesThroughTriageAndItsPickerReadsTriagesQueue() {
        Document poolDocument = Manifests.documents().stream().filter(d -> d.kind().equals("InferencePool")).findFirst().orElseThrow();
        InferencePool pool = InferencePool.of(poolDocument.tree());
        List<Deployment> members = Manifests.selectedBy(pool.selector().matchLabels());
        assertEquals(1, members.size(), "deployments in the pool");
        Deployment pods = members.get(0);
        Container triage = Manifests.triage(pods).orElseThrow();
        assertEquals(List.of(new InferencePool.Port(triage.getPorts().get(0).getContainerPort())), pool.targetPorts());
        assertEquals("true", Manifests.triageEnvironment(triage).get("TRIAGE_VLLM_METRICS"),
                "the picker reads vLLM's metric names: Triage must export them");

        Service picker = (Service) Manifests.named("Service", pool.endpointPickerRef().name()).resource();
        assertEquals(pool.endpointPickerRef().port().number(), picker.getSpec().getPorts().get(0).getPort());
        Deployment pickerPods = Manifests.selectedBy(picker.getSpec().getSelector()).get(0);
        List<String> args = pickerPods.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        assertTrue(args.contains("--pool-name=" + poolDocument.name()), "the picker watches another pool: " + args);

        HTTPRoute route = Manifests.all(HTTPRoute.class).get(0);
        assertEquals(Set.of(poolDocument.name()), route.getSpec().getRules().stream()
                .flatMap(rule -> rule.getBackendRefs().stream())
                .filter(ref -> ref.getKind().equals("InferencePool"))
                .map(ref -> ref.getName()).collect(Collectors.toSet()));
    }

    @Test
    void everyVolumeClaimAPodMountsIsInTheManifestsAndOnlyOnePodMountsItAtATime() {
        for (Deployment deployment : Manifests.all(Deployment.class)) {
            for (Volume volume : deployment.getSpec().getTemplate().getSpec().getVolumes()) {
                if (volume.getPersistentVolumeClaim() != null) {
                    PersistentVolumeClaim claim = (PersistentVolumeClaim) Manifests.named("PersistentVolumeClaim",
                            volume.getPersistentVolumeClaim().getClaimName()).resource();
                    if (claim.getSpec().getAccessModes().contains("ReadWriteOnce")) {
                        // A rolling update starts the new pod beside the old one, which holds the volume.
                        assertEquals("Recreate", deployment.getSpec().getStrategy().getType(), deployment.getMetadata().getName());
                    }
                }
            }
        }
    }

    @Test
    void theAutoscalerScalesADeploymentThatRunsTriage() {
        for (HorizontalPodAutoscaler autoscaler : Manifests.all(HorizontalPodAutoscaler.class)) {
            Deployment target = (Deployment) Manifests.named("Deployment", autoscaler.getSpec().getScaleTargetRef().getName()).resource();
            assertTrue(Manifests.triage(target).isPresent(), autoscaler.getMetadata().getName());
        }
    }

    private static Set<String> fieldNames(Document document) {
        Set<String> names = new TreeSet<>();
        document.tree().fieldNames().forEachRemaining(names::add);
        return names;
    }
}
