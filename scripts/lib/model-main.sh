# Runs a main class of the model module with its runtime class path (training and evaluation
# libraries included), building the module first. Sourced by scripts/train and scripts/evaluate.
# Usage: run_model_main CLASS [ARGS...]

source "$(dirname "${BASH_SOURCE[0]}")/java.sh"

run_model_main() {
  local main_class="$1"
  shift
  cd "$ROOT"
  # Maven is incremental: an up-to-date module costs seconds. The class path file lists the
  # reactor's own jars, never a snapshot another checkout installed.
  mvn_plain -q -pl model -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/runtime-classpath.txt -Dmdep.includeScope=runtime >&2
  local classpath
  classpath="$ROOT/model/target/classes:$(cat "$ROOT/model/target/runtime-classpath.txt")"
  exec java "$(terminal_option)" -cp "$classpath" "$main_class" "$@"
}
