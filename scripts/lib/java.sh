# Sourced by the scripts: builds a module's jar when it is missing or older than the checkout's sources, and runs
# Java from it.
#   run_jar MODULE JAR [ARGS...]          java -jar JAR
#   run_main MODULE JAR MAIN [ARGS...]    java -cp JAR MAIN
# JAR is relative to the repository root; its manifest class path names the module's lib/.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/maven.sh"

ensure_built() {
    local module="$1" jar="$2"
    if [[ ! -f "$ROOT/$jar" ]]; then
        echo "building $module (first run, 1 to 3 minutes)..." >&2
    elif [[ -n "$(newer_source "$ROOT/$jar")" ]]; then
        # After a pull, a merge or an edit, a jar built before would run the old code and models without a word.
        echo "building $module (sources changed since its jar was built)..." >&2
    else
        return 0
    fi
    (cd "$ROOT" && mvn_plain -q -pl "$module" -am package -DskipTests) >&2
}

# The first main source, resource or POM of any module that is newer than FILE; nothing when there is none.
newer_source() {
    find "$ROOT" \( -name target -o -name .git -o -name node_modules \) -prune \
        -o \( -path '*/src/main/*' -o -name pom.xml \) -type f -newer "$1" -print -quit
}

# -Dtriage.terminal=true when standard output is a terminal: long commands then draw a progress bar.
terminal_option() {
    if [[ -t 1 ]]; then echo -Dtriage.terminal=true; else echo -Dtriage.terminal=false; fi
}

run_jar() {
    local module="$1" jar="$2"
    shift 2
    ensure_built "$module" "$jar"
    exec "${JAVA:-java}" "$(terminal_option)" ${JAVA_OPTS:-} -jar "$ROOT/$jar" "$@"
}

run_main() {
    local module="$1" jar="$2" main="$3"
    shift 3
    ensure_built "$module" "$jar"
    exec "${JAVA:-java}" -Djava.awt.headless=true "$(terminal_option)" ${JAVA_OPTS:-} -cp "$ROOT/$jar" "$main" "$@"
}
