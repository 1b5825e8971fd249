package dev.triage.model.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong clock = new AtomicLong();

    private String run(boolean terminal, int steps) {
        Progress progress = new Progress(out, terminal, clock::get, "encoding prompts", steps, Duration.ofMinutes(4));
        for (int i = 0; i < steps; i++) {
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            progress.step();
        }
        progress.done();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLogGetsAPlainLineAtEveryTenthWithTheTimeLeft() {
        List<String> lines = run(false, 20).lines().toList();
        assertEquals("encoding prompts: 20 to do, about 4 min", lines.get(0));
        assertEquals(11, lines.size(), "the expectation, nine tenths, the end: " + lines);
        assertEquals("encoding prompts: 50% (10 of 20), about 10 s left", lines.get(5));
        assertEquals("encoding prompts: done, 20 in 20 s", lines.get(10));
        assertFalse(String.join("\n", lines).contains("\r"));
    }

    @Test
    void aTerminalGetsABarRedrawnInPlaceAndNoEscapeCodes() {
        String text = run(true, 8);
        assertTrue(text.contains("\r[###############...............]  50% 4/8 encoding prompts, about 4 s left    "), text);
        assertTrue(text.contains("\r[##############################] 100% 8/8 encoding prompts    \n"), text);
        assertTrue(text.endsWith("\nencoding prompts: done, 8 in 8 s\n"), text);
        assertFalse(text.contains("\u001b"), "no ANSI codes");
    }

    @Test
    void durationsReadAsAPersonSaysThem() {
        assertEquals("45 s", Progress.format(Duration.ofSeconds(45)));
        assertEquals("3 min 20 s", Progress.format(Duration.ofSeconds(200)));
        assertEquals("10 min", Progress.format(Duration.ofMinutes(10)));
        assertEquals("1 h 5 min", Progress.format(Duration.ofMinutes(65)));
    }
}
