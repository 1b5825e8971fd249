# Sourced by the scripts: Maven as they run it.
#   mvn_plain [MAVEN ARGS...]
# Batch mode and no colour, so that what Maven prints is plain text in a terminal, a pipe or a log;
# jansi.noreset stops Maven 3.8 from writing colour resets (ESC[0m) even then.

mvn_plain() {
    MAVEN_OPTS="-Djansi.noreset=true ${MAVEN_OPTS:-}" mvn -B -Dstyle.color=never "$@"
}
