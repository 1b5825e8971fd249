package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.LapsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LapsTuningTest {

    @TempDir
    Path dir;

    /** Ten short jobs behind a long one that the estimate calls the shortest: what pausing is for. */
    private static Workload misjudgedLongFirst(double longSeconds) {
        List<SimRequest> requests = new ArrayList<>();
        requests.add(new SimRequest(0, 0, "long", longSeconds, 0.5));
        for (int i = 1; i <= 10; i++) {
            requests.add(new SimRequest(i, 0, "short", 1 + 0.1 * i, 2));
        }
        return new Workload(requests);
    }

    @Test
    void theDescentFindsSettingsThatPauseTheMisjudgedJob() throws Exception {
        LapsTuning tuning = new LapsTuning(List.of(new LapsStudy.Case("misjudged", "test",
                List.of(misjudgedLongFirst(20), misjudgedLongFirst(30)))));
        double sjf = tuning.score(PolicyVariant.parse("sjf", Duration.ZERO));
        LapsSettings tuned = tuning.tune(LapsStudy.START);
        assertTrue(tuning.score(tuned) <= tuning.score(LapsStudy.START));
        assertTrue(tuning.score(tuned) < sjf, "tuned " + tuning.score(tuned) + " vs sjf " + sjf);
        assertTrue(tuned.preemptiveLevels() >= 2);

        Path csv = dir.resolve("tuning.csv");
        tuning.writeCsv(csv);
        List<String> lines = Files.readAllLines(csv);
        assertEquals("settings,objective", lines.get(0));
        assertTrue(lines.stream().anyMatch(line -> line.startsWith("\"" + tuned.describe() + "\",")), lines.toString());
    }
}
