package dev.triage.proxy.scheduler.ewsjf;

import static dev.triage.proxy.scheduler.Dispatches.drainOneByOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Job;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class EwsjfQueuesTest {

    private static final Executor INLINE = Runnable::run;

    private long now = 1_000_000_000L;
    private final Clock clock = () -> now;

    private void advance(double seconds) {
        now += Math.round(seconds * 1e9);
    }

    /** Prompt-sized settings that partition after {@code minSamples} jobs and never re-tune unless asked. */
    private static EwsjfSettings settings(int minSamples) {
        return new EwsjfSettings(SizeFeature.PROMPT, 8, 16, 128, 500, minSamples, Duration.ofHours(1), Duration.ofHours(1),
                1, false, Theta.DEFAULT, RewardWeights.DEFAULT, 0);
    }

    private Scheduler<String> scheduler(EwsjfQueues<String> queues, int slots) {
        return new Scheduler<>(new SchedulerSettings(Policy.EWSJF, Duration.ZERO, 10_000, slots), clock, queues);
    }

    /** A chat job: prompt tokens, and prefill at 0.1 s + 0.2 ms a prompt token; 100 answer tokens at 20 ms. */
    private static JobCost cost(int promptTokens) {
        double prefill = 0.1 + 0.0002 * promptTokens;
        return new JobCost(promptTokens, 100, prefill, prefill + 2);
    }

    /** Holds the only slot with a job, so that what follows waits. */
    private static Dispatch<String> occupy(Scheduler<String> scheduler) {
        scheduler.submit("occupant", 0, cost(50));
        return scheduler.dispatchNext();
    }

    @Test
    void untilEnoughSizesAreSeenOneQueueServesInArrivalOrder() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(50), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        s.submit("long", 0, cost(4000));
        s.submit("short", 0, cost(20));
        s.submit("medium", 0, cost(600));
        s.release(busy);
        assertEquals(List.of("long", "short", "medium"), drainOneByOne(s));
        assertEquals(1, queues.queueCount());
    }

    @Test
    void onceTheQueuesAreLearntShortPromptsGoFirst() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(20), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        for (int i = 0; i < 10; i++) {
            s.submit("long-" + i, 0, cost(3000 + i));
            s.submit("short-" + i, 0, cost(50 + i));
        }
        s.release(busy);
        List<String> order = drainOneByOne(s);
        assertTrue(queues.queueCount() >= 2, "k-means seeds three clusters, two of them short: " + queues.queueCount());
        for (int i = 0; i < 10; i++) {
            assertEquals("short-" + i, order.get(i), "shorts first, oldest first: " + order);
            assertEquals("long-" + i, order.get(10 + i));
        }
    }

    @Test
    void theQueueViewListsJobsInTheOrderTheyAreSent() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(8), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        for (int i = 0; i < 12; i++) {
            s.submit("job-" + i, i % 5 == 0 ? 1 : 0, cost(i % 3 == 0 ? 2500 + i : 30 + 40 * i));
            advance(0.7);
        }
        List<String> predicted = s.waitingInDispatchOrder().stream().map(Job::payload).toList();
        s.release(busy);
        assertEquals(predicted, drainOneByOne(s));
    }

    @Test
    void aLongJobIsNotStarvedByAStreamOfShortJobsThatSjfWouldServeForever() {
        // One slot; a short job arrives the instant the previous one ends, so a short job always waits.
        // SJF (no τ) never sends the long job; EWSJF's score of the waiting long job grows until it wins.
        assertEquals(-1, longJobStart(new Scheduler<>(new SchedulerSettings(Policy.SJF, Duration.ZERO, 100, 1), clock), 5000));
        now = 1_000_000_000L;
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(16), clock, INLINE);
        int start = longJobStart(scheduler(queues, 1), 5000);
        assertTrue(start > 0 && start < 5000, "the long job started after " + start + " short jobs");
    }

    /**
     * How many short jobs ran before the long one, or -1 if it never ran in {@code horizon} of them. A
     * warm-up of short jobs comes first, so that EWSJF has learnt its queues.
     */
    private int longJobStart(Scheduler<String> s, int horizon) {
        for (int i = 0; i < 20; i++) {
            s.submit("warm-up", 0, new JobCost(40, 40, 0.1, 1));
            Dispatch<String> running = s.dispatchNext();
            advance(1);
            s.release(running);
        }
        s.submit("long", 0, new JobCost(4000, 800, 1.0, 17));
        s.submit("short", 0, new JobCost(40, 40, 0.1, 1));
        for (int served = 0; served < horizon; served++) {
            Dispatch<String> running = s.dispatchNext();
            if (running.job().payload().equals("long")) {
                return served;
            }
            advance(1);
            s.release(running);
            s.submit("short", 0, new JobCost(40, 40, 0.1, 1));
        }
        return -1;
    }

    /**
     * Three modes of prompt: small (2 jobs), medium (4) and large (4), the large ones waiting 1,000 s
     * longer, while every slot is held. Occupants and cancelled samples are history, so the window has
     * the three modes when the queues are made. Returns the held dispatches.
     */
    private List<Dispatch<String>> threeModes(Scheduler<String> s, int slots) {
        List<Dispatch<String>> held = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            s.submit("occupant", 0, cost(15));
            held.add(s.dispatchNext());
        }
        for (int i = 0; i < 4; i++) {
            s.submit("large-" + i, 0, cost(6000 + i));
        }
        for (int i = 0; i < 20; i++) {
            s.submit("sample", 0, cost(i < 10 ? 12 + i : 5994 + i));
        }
        s.waitingInDispatchOrder().stream().filter(j -> j.payload().equals("sample")).toList().forEach(s::cancel);
        advance(1000);
        for (int i = 0; i < 4; i++) {
            s.submit("medium-" + i, 0, cost(700 + i));
        }
        s.submit("small-0", 0, cost(20));
        s.submit("small-1", 0, cost(21));
        return held;
    }

    @Test
    void slotsFreeTogetherAreFilledFromOneQueueThenItsNeighbours() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(30), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 3);
        List<Dispatch<String>> held = threeModes(s, 3);
        assertEquals(3, queues.queueCount());
        held.forEach(s::release);
        List<String> batch = List.of(s.dispatchNext().job().payload(), s.dispatchNext().job().payload(),
                s.dispatchNext().job().payload());
        assertEquals(List.of("small-0", "small-1", "medium-0"), batch, "the small queue, then its neighbour");
    }

    @Test
    void oneSlotAtATimeEachJobIsChosenByScore() {
        // The same jobs, but slots free one by one: after the small jobs the large ones, which waited
        // 1,000 s, outscore the fresh medium ones.
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(30), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        threeModes(s, 1).forEach(s::release);
        List<String> order = drainOneByOne(s);
        assertEquals(List.of("small-0", "small-1", "large-0"), order.subList(0, 3), order.toString());
    }

    @Test
    void aLowerClientPriorityGoesFirstWhateverItsQueue() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(20), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        for (int i = 0; i < 10; i++) {
            s.submit("short-" + i, 0, cost(50 + i));
            s.submit("long-" + i, i == 7 ? -1 : 0, cost(3000 + i));
        }
        s.release(busy);
        assertEquals("long-7", drainOneByOne(s).get(0));
    }

    @Test
    void aJobInAGapGetsABubbleQueueThatLaterJobsOfItsSizeJoin() {
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(20), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        for (int i = 0; i < 10; i++) {
            s.submit("short-" + i, 0, cost(50 + i));
            s.submit("long-" + i, 0, cost(3000 + i));
        }
        s.submit("trigger", 0, cost(55)); // the first decision after the window filled installs the queues
        int learnt = queues.queueCount();
        assertTrue(learnt >= 2);
        s.submit("gap-a", 0, cost(800));
        assertEquals(learnt + 1, queues.queueCount(), "a bubble queue for 800");
        EwsjfStatus.Queue bubble = queues.status(now).queues().get(learnt - 1);
        assertTrue(bubble.range().bubble() && bubble.range().contains(800), bubble.toString());
        assertEquals(1, bubble.waiting());
        s.submit("gap-b", 0, cost(830));
        assertEquals(learnt + 1, queues.queueCount(), "830 joins the bubble");
        assertEquals(2, queues.status(now).queues().get(learnt - 1).waiting());
        assertEquals(0, queues.status(now).trialMillis(), "no trial runs with tuning off");
        s.release(busy);
        List<String> order = drainOneByOne(s);
        assertEquals(23, order.size(), "every job is sent");
        assertTrue(order.indexOf("gap-a") < order.indexOf("gap-b"));
    }

    @Test
    void refinementRunsOffTheDispatchThreadAndIsSwappedInWhole() {
        List<Runnable> background = new ArrayList<>();
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(20), clock, background::add);
        Scheduler<String> s = scheduler(queues, 1);
        Dispatch<String> busy = occupy(s);
        for (int i = 0; i < 10; i++) {
            s.submit("long-" + i, 0, cost(3000 + i));
            s.submit("short-" + i, 0, cost(50 + i));
        }
        s.submit("short-10", 0, cost(60));
        assertEquals(1, background.size(), "a refinement was handed to the background executor");
        assertEquals(1, queues.queueCount(), "and nothing changed on the dispatch thread meanwhile");
        background.remove(0).run();
        s.release(busy);
        List<String> order = drainOneByOne(s);
        assertTrue(queues.queueCount() >= 2, "the new queues were installed at the next decision");
        assertEquals(21, order.size(), "no job was lost in the swap");
        assertEquals("short-0", order.get(0));
    }

    @Test
    void aClosedBackgroundExecutorLeavesTheQueuesAsTheyAre() {
        Executor closed = task -> {
            throw new RejectedExecutionException("closed");
        };
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(20), clock, closed);
        Scheduler<String> s = scheduler(queues, 1);
        for (int i = 0; i < 30; i++) {
            s.submit("job-" + i, 0, cost(i % 2 == 0 ? 40 : 3000));
        }
        assertEquals(30, drainOneByOne(s).size());
        assertEquals(1, queues.queueCount());
    }

    @Test
    void withTuningEachTrialIsScoredAndTheOptimizerPicksTheNextParameters() {
        EwsjfSettings tuned = settings(16).withIntervals(Duration.ofSeconds(30), Duration.ofSeconds(20)).withTuning(true, Theta.DEFAULT);
        EwsjfQueues<String> queues = new EwsjfQueues<>(tuned, clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        assertNull(queues.lastTrial());
        for (int i = 0; i < 400; i++) {
            s.submit("job-" + i, 0, cost(i % 4 == 0 ? 2000 + i : 30 + i % 50));
            Dispatch<String> d = s.dispatchNext();
            advance(0.5);
            if (d != null) {
                s.release(d);
            }
        }
        assertTrue(queues.trialCount() >= 5, queues.trialCount() + " trials in 200 s of 20 s trials");
        Trial last = queues.lastTrial();
        assertNotNull(last);
        assertTrue(Double.isFinite(last.reward().reward()) && last.completions() > 0, last.toString());
        EwsjfStatus status = queues.status(now);
        assertEquals(queues.trialCount(), status.trials().size());
        assertEquals(Theta.DEFAULT, status.trials().get(0).theta(), "the first trial runs the initial parameters");
        assertNotEquals(Theta.DEFAULT, queues.theta(), "later ones the optimizer's");
    }

    @Test
    void withoutTuningTheParametersStay() {
        Theta fixed = new Theta(0.1, 0.2, 0, 0.05, 4);
        EwsjfQueues<String> queues = new EwsjfQueues<>(settings(16).withTuning(false, fixed), clock, INLINE);
        Scheduler<String> s = scheduler(queues, 1);
        for (int i = 0; i < 100; i++) {
            s.submit("job-" + i, 0, cost(30 + i));
            s.release(s.dispatchNext());
            advance(100);
        }
        assertEquals(fixed, queues.theta());
        assertEquals(0, queues.trialCount());
    }
}
