package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesTest {

    private static List<Integer> read(String text) throws IOException {
        return JsonLines.read(new BufferedReader(new StringReader(text)), "rows.jsonl", row -> {
            if (!row.path("n").isInt()) {
                throw new IllegalArgumentException("n: " + row.path("n") + " (expected: an integer)");
            }
            return row.path("n").asInt();
        });
    }

    @Test
    void eachLineIsOneRowAndBlankLinesAreSkipped() throws IOException {
        assertEquals(List.of(1, 2, 3), read("{\"n\": 1}\n\n  \n{\"n\": 2}\r\n{\"n\": 3}"));
    }

    @Test
    void aLineThatIsNotJsonIsNamedWithItsNumber() {
        IOException e = assertThrows(IOException.class, () -> read("{\"n\": 1}\n\n{\"n\": \n"));
        assertEquals("rows.jsonl:3: not a JSON line", e.getMessage().substring(0, e.getMessage().indexOf(" (")));
    }

    @Test
    void aLogsLastLineLeftWithoutItsNewlineIsLeftOut(@TempDir Path directory) throws IOException {
        Path torn = directory.resolve("torn.jsonl");
        Files.writeString(torn, "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3, \"te");
        assertEquals(List.of(1, 2), JsonLines.readLog(torn, row -> row.path("n").asInt()));
        assertThrows(IOException.class, () -> JsonLines.read(torn, row -> row.path("n").asInt()), "a data file is read whole or not at all");
        Path finished = directory.resolve("finished.jsonl");
        Files.writeString(finished, "{\"n\": 1}\n{\"n\": 3, \"te\n");
        assertThrows(IOException.class, () -> JsonLines.readLog(finished, row -> row.path("n").asInt()),
                "a line with its newline was finished: not JSON, it is an error");
        Path whole = directory.resolve("whole.jsonl");
        Files.writeString(whole, "{\"n\": 1}\n{\"n\": 2}");
        assertEquals(List.of(1, 2), JsonLines.readLog(whole, row -> row.path("n").asInt()));
    }

    @Test
    void aRowTheReaderRefusesIsNamedWithItsNumberAndReason() {
        IOException e = assertThrows(IOException.class, () -> read("{\"n\": 1}\n{\"n\": \"two\"}\n"));
        assertEquals("rows.jsonl:2: n: \"two\" (expected: an integer)", e.getMessage());
    }
}
