package dev.triage.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The manifests under {@code kubernetes/manifests}, each document read into the Kubernetes model
 * class its {@code apiVersion} and {@code kind} name (a generic resource where no class is known).
 */
final class Manifests {

    static final Path DIRECTORY = Path.of(System.getProperty("triage.manifests", "manifests"));

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final KubernetesSerialization KUBERNETES = new KubernetesSerialization();

    /** One document of one file: its text as a tree and as a model object. */
    record Document(Path file, JsonNode tree, KubernetesResource resource) {

        String kind() {
            return tree.path("kind").asText();
        }

        String name() {
            return tree.path("metadata").path("name").asText();
        }

        @Override
        public String toString() {
            return file.getFileName() + ": " + kind() + " " + name();
        }
    }

    private Manifests() {}

    static List<Path> files() {
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Document> documents() {
        List<Document> documents = new ArrayList<>();
        for (Path file : files()) {
            try (var parser = YAML.createParser(file.toFile())) {
                for (JsonNode tree : YAML.readValues(parser, JsonNode.class).readAll()) {
                    documents.add(new Document(file, tree, KUBERNETES.convertValue(tree, KubernetesResource.class)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(file.toString(), e);
            }
        }
        return documents;
    }

    static <T> List<T> all(Class<T> type) {
        return documents().stream().map(Document::resource).filter(type::isInstance).map(type::cast).toList();
    }

    static Document named(String kind, String name) {
        return documents().stream().filter(d -> d.kind().equals(kind) && d.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + DIRECTORY));
    }

    /** The Deployments whose pods carry every label of {@code selector}. */
    static List<Deployment> selectedBy(Map<String, String> selector) {
        return all(Deployment.class).stream()
                .filter(d -> d.getSpec().getTemplate().getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .toList();
    }

    /** The container named {@code triage} of a Deployment, if it runs one. */
    static Optional<Container> triage(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals("triage")).findFirst();
    }

    /** A Triage container's configuration: its {@code TRIAGE_*} variables. */
    static Map<String, String> triageEnvironment(Container triage) {
        Map<String, String> environment = new LinkedHashMap<>();
        for (EnvVar variable : triage.getEnv()) {
            if (variable.getName().startsWith("TRIAGE_")) {
                environment.put(variable.getName(), variable.getValue());
            }
        }
        return environment;
    }
}
