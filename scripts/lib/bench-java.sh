# Sourced by the bench scripts: runs a main class of the bench module, building its jar first if missing.
# usage: bench_java MAIN_CLASS [ARGS...]

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH_JAR="$ROOT/bench/target/triage-bench.jar"

bench_java() {
    local main="$1"
    shift
    if [[ ! -f "$BENCH_JAR" ]]; then
        echo "building $BENCH_JAR ..." >&2
        (cd "$ROOT" && mvn -B -q -pl bench -am package -DskipTests) >&2
    fi
    exec "${JAVA:-java}" -Djava.awt.headless=true ${JAVA_OPTS:-} -cp "$BENCH_JAR" "$main" "$@"
}
