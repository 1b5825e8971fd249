# The replay backend (docs/replay-backend.md) in an image of its own: a stand-in for Ollama that answers on
# Ollama's port with OpenAI's and Ollama's APIs at a known speed, with no model and no GPU. Build from the
# repository root:
#   docker build -f docker/replay-backend.Dockerfile -t triage-replay-backend .
# Arguments after the image name are the replay backend's flags (--slots, --seconds-per-token, ...).
# BUILD_IMAGE may also be docker/Dockerfile's build stage (--target build): Maven then finds the modules
# Triage needs compiled, and builds only the bench module (scripts/compose-check does this).
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre-noble

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY . .
RUN mvn -B -pl bench -am package -DskipTests

FROM ${RUNTIME_IMAGE}
WORKDIR /opt/replay
COPY --from=build /src/bench/target/triage-bench.jar /opt/replay/triage-bench.jar
COPY --from=build /src/bench/target/lib /opt/replay/lib
# nobody:nogroup, which every Debian and Ubuntu image has.
USER 65534:65534
EXPOSE 11434
ENTRYPOINT ["java", "-cp", "/opt/replay/triage-bench.jar", "dev.triage.bench.replay.ReplayBackendCommand", "--host", "0.0.0.0", "--port", "11434"]
