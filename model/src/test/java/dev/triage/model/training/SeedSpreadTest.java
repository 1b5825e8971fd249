package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeedSpreadTest {

    @Test
    void theMeanWithTheRangeOfTheSeedsThatHaveTheFigure() {
        assertEquals("91.5% (91.3%–91.6%)", SeedSpread.of(List.of(0.913, 0.916, 0.9155)).format(ReportCells::percent));
        assertEquals("0.435 (0.432–0.438)", SeedSpread.of(Arrays.asList(0.432, null, 0.438)).format(ReportCells::decimal),
                "a seed without the figure takes no part");
        assertEquals("0.420", SeedSpread.of(Arrays.asList(0.42, null)).format(ReportCells::decimal), "one seed: no range");
        assertNull(SeedSpread.of(Arrays.asList((Double) null)));
    }
}
