package dev.triage.model.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlagsTest {

    @Test
    void readsNamedValuesWithDefaultsAndPositionalWords() {
        Flags flags = Flags.parse(new String[] {"run", "--trees", "50", "--rho=0.5,0.9"});
        assertEquals(List.of("run"), flags.positional());
        assertEquals(50, flags.integer("trees", 300));
        assertEquals(List.of(0.5, 0.9), flags.numbers("rho", List.of()));
        assertEquals("x", flags.string("data", "x"));
        flags.finish();
    }

    @Test
    void badFlagsAreOneLineErrors() {
        assertEquals("--tres: unknown option", assertThrows(IllegalArgumentException.class, () -> {
            Flags flags = Flags.parse(new String[] {"--tres", "5"});
            flags.integer("trees", 1);
            flags.finish();
        }).getMessage());
        assertEquals("--trees: no value (expected: --trees VALUE)",
                assertThrows(IllegalArgumentException.class, () -> Flags.parse(new String[] {"--trees"})).getMessage());
        assertEquals("--trees given twice", assertThrows(IllegalArgumentException.class,
                () -> Flags.parse(new String[] {"--trees", "1", "--trees", "2"})).getMessage());
        assertEquals("--trees: many (expected: an integer)", assertThrows(IllegalArgumentException.class,
                () -> Flags.parse(new String[] {"--trees", "many"}).integer("trees", 1)).getMessage());
        assertEquals("--seeds: 0 (expected: >= 1)", assertThrows(IllegalArgumentException.class,
                () -> Flags.parse(new String[] {"--seeds", "0"}).positiveInteger("seeds", 3)).getMessage());
        assertEquals(3, Flags.parse(new String[] {}).positiveInteger("seeds", 3));
        assertEquals("--rate: NaN (expected: a number)", assertThrows(IllegalArgumentException.class,
                () -> Flags.parse(new String[] {"--rate", "NaN"}).number("rate", 1)).getMessage());
    }
}
