package dev.triage.proxy.scheduler.ewsjf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BubbleRoutingTest {

    private static final List<SizeRange> RANGES = List.of(
            new SizeRange(100, 200, 150, 0.5, false),
            new SizeRange(1000, 1200, 1100, 0.5, false));

    private static BubbleRouting.Route route(double size) {
        return BubbleRouting.route(RANGES, size, 128, true);
    }

    @Test
    void aSizeInsideARangeJoinsThatQueue() {
        assertEquals(new BubbleRouting.Route(0, null), route(100));
        assertEquals(new BubbleRouting.Route(0, null), route(200));
        assertEquals(new BubbleRouting.Route(1, null), route(1100));
    }

    @Test
    void aSizeWithinTenPercentOfANeighbourJoinsIt() {
        assertEquals(new BubbleRouting.Route(0, null), route(220), "220 <= 200 × 1.1");
        assertEquals(new BubbleRouting.Route(1, null), route(900), "900 >= 1000 × 0.9");
        assertEquals(new BubbleRouting.Route(0, null), route(95), "below the first range, within 10%");
        assertEquals(new BubbleRouting.Route(1, null), route(1300), "above the last range, within 10%");
    }

    @Test
    void aSizeInAGapGetsABubbleCentredOnItClippedToTheGap() {
        BubbleRouting.Route middle = route(500);
        assertEquals(1, middle.index(), "inserted between the two queues");
        SizeRange bubble = middle.bubble();
        assertTrue(bubble.bubble());
        assertEquals(436, bubble.lower(), 1e-9);
        assertEquals(564, bubble.upper(), 1e-9);
        assertEquals(500, bubble.meanSize(), 1e-9);
        assertEquals(0, bubble.share());

        // 230 is 30 above the lower queue: the bubble may not reach below 200.
        SizeRange clipped = route(230).bubble();
        assertTrue(clipped.lower() > 200 && clipped.lower() < 200.001, "starts just above the queue below: " + clipped);
        assertEquals(294, clipped.upper(), 1e-9);

        SizeRange high = route(5000).bubble();
        assertEquals(2, route(5000).index(), "above every queue");
        assertEquals(4936, high.lower(), 1e-9);
        SizeRange low = route(10).bubble();
        assertEquals(0, route(10).index());
        assertEquals(0, low.lower(), 1e-9, "never below 0");
    }

    @Test
    void aBubbleNeverOverlapsItsNeighboursInANarrowGap() {
        List<SizeRange> tight = List.of(new SizeRange(100, 200, 150, 0.5, false), new SizeRange(300, 400, 350, 0.5, false));
        SizeRange bubble = BubbleRouting.route(tight, 250, 1000, true).bubble();
        assertTrue(bubble.lower() > 200 && bubble.upper() < 300, bubble.toString());
        new Partition(List.of(tight.get(0), bubble, tight.get(1))); // disjoint and rising, or it throws
    }

    @Test
    void withoutBubblesLeftAJobInAGapJoinsTheNearestQueue() {
        assertEquals(new BubbleRouting.Route(0, null), BubbleRouting.route(RANGES, 400, 128, false));
        assertEquals(new BubbleRouting.Route(1, null), BubbleRouting.route(RANGES, 700, 128, false));
        assertNull(BubbleRouting.route(RANGES, 5000, 128, false).bubble());
    }
}
