package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RankingWindowTest {

    /** Algorithm 1 of the Clairvoyant paper, over a plain list, as the reference. */
    private static double reference(List<double[]> samples) {
        long pairs = 0;
        long correct = 0;
        for (double[] s : samples) {
            for (double[] l : samples) {
                if (s[1] < 200 && l[1] >= 800) {
                    pairs++;
                    if (l[0] > s[0]) {
                        correct++;
                    }
                }
            }
        }
        return pairs == 0 ? Double.NaN : (double) correct / pairs;
    }

    @Test
    void unknownUntilAShortAndALongHaveBeenSeen() {
        RankingWindow window = new RankingWindow(10);
        assertTrue(Double.isNaN(window.accuracy()));
        window.add(100, 50);
        window.add(300, 500); // medium: never paired
        assertTrue(Double.isNaN(window.accuracy()));
        window.add(900, 1200);
        assertEquals(1.0, window.accuracy());
        window.add(950, 20); // a short one estimated above the long one
        assertEquals(0.5, window.accuracy());
    }

    @Test
    void matchesThePapersDefinitionOverASlidingWindow() {
        SplittableRandom random = new SplittableRandom(7);
        RankingWindow window = new RankingWindow(50);
        List<double[]> all = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            double actual = random.nextDouble() < 0.5 ? random.nextDouble(0, 400) : random.nextDouble(600, 2000);
            double estimate = actual + random.nextDouble(-500, 500);
            window.add(estimate, actual);
            all.add(new double[] {estimate, actual});
            List<double[]> last = all.subList(Math.max(0, all.size() - 50), all.size());
            double expected = reference(last);
            if (Double.isNaN(expected)) {
                assertTrue(Double.isNaN(window.accuracy()));
            } else {
                assertEquals(expected, window.accuracy(), 1e-12, "after " + (i + 1));
            }
        }
    }

    @Test
    void aRestoredWindowCountsAndEvictsAsTheSavedOne() {
        SplittableRandom random = new SplittableRandom(11);
        RankingWindow saved = new RankingWindow(40);
        for (int i = 0; i < 100; i++) {
            double actual = random.nextDouble(0, 2000);
            saved.add(Math.max(1, actual + random.nextDouble(-600, 600)), actual);
        }
        RankingWindow restored = RankingWindow.restored(40, saved.state()).orElseThrow();
        assertEquals(saved.accuracy(), restored.accuracy());
        assertEquals(saved.rarerClassCount(), restored.rarerClassCount());
        for (int i = 0; i < 30; i++) {
            double actual = random.nextDouble(0, 2000);
            double estimate = Math.max(1, actual + random.nextDouble(-600, 600));
            saved.add(estimate, actual);
            restored.add(estimate, actual);
            assertEquals(saved.accuracy(), restored.accuracy(), "the oldest go first in both");
        }
        assertTrue(RankingWindow.restored(40, new double[] {100, 3}).isEmpty(), "no fourth length class");
        assertTrue(RankingWindow.restored(1, new double[] {100, 0, 900, 2}).isEmpty(), "more than the window holds");
    }
}
