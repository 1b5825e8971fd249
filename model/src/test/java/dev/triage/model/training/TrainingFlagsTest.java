package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triage.model.cli.Flags;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingFlagsTest {

    @Test
    void theEstimatorIsTheClassifierUnlessNamed() {
        assertEquals("classifier", TrainingFlags.estimator(Flags.parse(new String[0])));
        assertEquals("ranker", TrainingFlags.estimator(Flags.parse(new String[] {"--estimator", "ranker"})));
        assertEquals("--estimator: baseline (expected: classifier, ranker or lexical)", assertThrows(IllegalArgumentException.class,
                () -> TrainingFlags.estimator(Flags.parse(new String[] {"--estimator", "baseline"}))).getMessage());
    }

    @Test
    void dataMustHoldThePromptResponseFolder(@TempDir Path empty) {
        Flags flags = Flags.parse(new String[] {"--data", empty.toString()});
        assertEquals("--data: " + empty + " (expected: a directory with prompt_response/)",
                assertThrows(IllegalArgumentException.class, () -> TrainingFlags.promptResponse(flags)).getMessage());
    }
}
