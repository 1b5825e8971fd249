# Sourced by scripts/container-check and scripts/compose-check: podman set up for this machine, base images
# made from Debian's packages, and the images of docker/ built on them.
#
# No container registry need be reachable: the base image is a Debian root file system made by debootstrap
# (a JDK, Maven and Prometheus from Debian's packages), imported into podman and passed to the Dockerfiles as
# their FROM build arguments, so the Dockerfiles users build against real registries are the ones checked.
# Podman keeps its images, containers and networks in target/containers/ of this clone, apart from any other
# use of podman on the machine; the base image and the build's layers stay there for the next run.

source "$(dirname "${BASH_SOURCE[0]}")/java.sh"

CHECK_DIR="$ROOT/target/containers"
BASE_IMAGE=localhost/triage-check-base:bookworm
TRIAGE_IMAGE=localhost/triage:local
REPLAY_IMAGE=localhost/triage-replay-backend:local
# Triage's build stage, whose compiled modules the replay backend's build starts from.
TRIAGE_BUILD_IMAGE=localhost/triage-build:local
# Debian's packages standing in for the images: a JDK and Maven for maven:*-temurin-17 and the Temurin JRE,
# Prometheus for prom/prometheus.
BASE_PACKAGES=openjdk-17-jdk-headless,maven,prometheus

# check_log NAME MESSAGE: one line of progress, with the seconds since the check started.
check_log() {
    printf '%s: [%3ds] %s\n' "$1" "$SECONDS" "$2"
}

# containers_available NAME: installs podman and the rest (scripts/install-test-deps --containers) and
# configures it, or prints one line saying why the check is skipped and returns 1.
containers_available() {
    local name="$1"
    if [[ $(id -u) -ne 0 ]]; then
        echo "$name: skipped: needs root (podman's storage, debootstrap and a private network namespace)"
        return 1
    fi
    mkdir -p "$CHECK_DIR"
    if ! "$ROOT/scripts/install-test-deps" --containers > "$CHECK_DIR/install.log" 2>&1; then
        echo "$name: skipped: podman could not be installed here (see $CHECK_DIR/install.log)"
        return 1
    fi
    if ! unshare --net true 2>/dev/null; then
        echo "$name: skipped: no network namespace can be made here (unshare --net failed)"
        return 1
    fi
    # runc: crun refuses the hybrid cgroups of some hosts; cgroupfs: no systemd; no default ulimits, which
    # an unprivileged host may not grant; netavark with aardvark-dns: containers reach each other by name.
    mkdir -p "$CHECK_DIR/storage" "$CHECK_DIR/run" "$CHECK_DIR/networks"
    cat > "$CHECK_DIR/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
tmp_dir = "$CHECK_DIR/run/libpod"
[network]
network_backend = "netavark"
network_config_dir = "$CHECK_DIR/networks"
CONF
    cat > "$CHECK_DIR/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$CHECK_DIR/storage"
runroot = "$CHECK_DIR/run/storage"
CONF
    export CONTAINERS_CONF="$CHECK_DIR/containers.conf" CONTAINERS_STORAGE_CONF="$CHECK_DIR/storage.conf"
}

# base_image NAME: makes $BASE_IMAGE from Debian's packages, unless it was made before with these packages
# (4 to 6 minutes on 2 cores).
base_image() {
    local name="$1" recipe="bookworm-minbase-${BASE_PACKAGES//,/-}"
    if [[ $(podman image inspect --format '{{index .Labels "triage.recipe"}}' "$BASE_IMAGE" 2>/dev/null) == "$recipe" ]]; then
        return 0
    fi
    check_log "$name" "making the base image from Debian's packages with debootstrap ($BASE_PACKAGES; 4 to 6 minutes)"
    local rootfs="$CHECK_DIR/rootfs"
    rm -rf "$rootfs"
    if ! debootstrap --variant=minbase --include="$BASE_PACKAGES" bookworm "$rootfs" > "$CHECK_DIR/debootstrap.log" 2>&1; then
        tail -20 "$CHECK_DIR/debootstrap.log"
        echo "$name: failed: debootstrap (log: $CHECK_DIR/debootstrap.log)"
        return 1
    fi
    # What an image does not need: downloaded packages, documentation, manual pages.
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
    check_log "$name" "importing the base image $BASE_IMAGE"
    tar -C "$rootfs" -c . | podman import --quiet --change "LABEL triage.recipe=$recipe" - "$BASE_IMAGE" > /dev/null
    rm -rf "$rootfs"
}

# build_image NAME DOCKERFILE TAG [BUILD_IMAGE [TARGET]]: builds an image of docker/ on the base image (or
# its build stage on BUILD_IMAGE), with the host's Maven repository mounted so that the build stage
# downloads only what Maven has not cached yet. Docker format: podman's default OCI format drops HEALTHCHECK.
build_image() {
    local name="$1" dockerfile="$2" tag="$3" build_base="${4:-$BASE_IMAGE}" target=()
    local log="$CHECK_DIR/build-${tag##*/}.log"
    [[ -n ${5:-} ]] && target=(--target "$5")
    check_log "$name" "building $tag from $dockerfile"
    mkdir -p "$HOME/.m2"
    if ! podman build --format docker --network host --volume "$HOME/.m2:/root/.m2" "${target[@]}" \
            --build-arg BUILD_IMAGE="$build_base" --build-arg RUNTIME_IMAGE="$BASE_IMAGE" \
            -f "$ROOT/$dockerfile" -t "$tag" "$ROOT" > "$log" 2>&1; then
        tail -30 "$log"
        echo "$name: failed: podman build of $dockerfile (log: $log)"
        return 1
    fi
}

# answers_200 URL: whether a GET of URL is answered 200.
answers_200() {
    [[ $(curl --silent --output /dev/null --max-time 5 --write-out '%{http_code}' "$1" || true) == 200 ]]
}

# estimator_ready URL: /readyz at URL says the configured estimator is loaded (not loading, not unavailable).
estimator_ready() {
    curl --silent --max-time 5 "$1" | grep -q '"estimator_state":"ready"'
}

# await NAME WHAT SECONDS COMMAND...: runs COMMAND every half second until it succeeds, failing after SECONDS.
await() {
    local name="$1" what="$2" deadline=$((SECONDS + $3))
    shift 3
    until "$@"; do
        if ((SECONDS > deadline)); then
            echo "$name: failed: timed out waiting for $what"
            return 1
        fi
        sleep 0.5
    done
}
