package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandArgumentsTest {

    private static final Set<String> ACCEPTED = Set.of("data", "trees");

    @Test
    void readsNamedValuesWithDefaults() {
        CommandArguments arguments = new CommandArguments(new String[] {"--trees", "50"}, ACCEPTED);
        assertEquals(50, arguments.getInt("trees", 300));
        assertEquals("x", arguments.get("data", "x"));
    }

    @Test
    void badArgumentsAreOneLineErrors() {
        assertEquals("unknown argument: --tres (expected one of --data, --trees)", assertThrows(IllegalArgumentException.class,
                () -> new CommandArguments(new String[] {"--tres", "5"}, ACCEPTED)).getMessage());
        assertEquals("--trees: missing value", assertThrows(IllegalArgumentException.class,
                () -> new CommandArguments(new String[] {"--trees"}, ACCEPTED)).getMessage());
        assertEquals("--trees: many (expected: an integer)", assertThrows(IllegalArgumentException.class,
                () -> new CommandArguments(new String[] {"--trees", "many"}, ACCEPTED).getInt("trees", 1)).getMessage());
    }

    @Test
    void dataMustHoldThePromptResponseFolder(@TempDir java.nio.file.Path empty) {
        CommandArguments arguments = new CommandArguments(new String[] {"--data", empty.toString()}, ACCEPTED);
        assertEquals("--data: " + empty + " (expected: a directory with prompt_response/)",
                assertThrows(IllegalArgumentException.class, arguments::promptResponse).getMessage());
    }
}
