package dev.triage.proxy.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BoundedWorkerTest {

    @Test
    void runsWhatItIsOfferedInOrderAndASubmittedTaskWithoutGathering() throws Exception {
        BoundedWorker worker = new BoundedWorker("test-worker", 100);
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 50; i++) {
            int task = i;
            assertTrue(worker.offer(() -> ran.add(task)));
        }
        worker.submit(() -> ran.add(50)).get(10, TimeUnit.SECONDS);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i <= 50; i++) {
            expected.add(i);
        }
        assertEquals(expected, ran);
        assertTrue(worker.close(Duration.ofSeconds(10)));
    }

    @Test
    void refusesBeyondItsCapacityWhileBusyAndKeepsWhatItTook() throws Exception {
        BoundedWorker worker = new BoundedWorker("test-worker", 3);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        worker.submit(() -> {
            running.countDown();
            await(release);
        });
        assertTrue(running.await(10, TimeUnit.SECONDS));
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            assertTrue(worker.offer(ran::countDown));
        }
        assertFalse(worker.offer(ran::countDown), "a fourth task waiting");
        assertThrows(RejectedExecutionException.class, () -> worker.submit(ran::countDown));
        release.countDown();
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        assertTrue(worker.close(Duration.ofSeconds(10)));
    }

    @Test
    void aFailingTaskDoesNotStopTheWorker() throws Exception {
        BoundedWorker worker = new BoundedWorker("test-worker", 10);
        assertTrue(worker.offer(() -> {
            throw new IllegalStateException("a task's own failure");
        }));
        worker.submit(() -> {}).get(10, TimeUnit.SECONDS);
        assertTrue(worker.close(Duration.ofSeconds(10)));
    }

    @Test
    void closeRunsWhatWasAcceptedThenRefusesMore() {
        BoundedWorker worker = new BoundedWorker("test-worker", 10);
        CountDownLatch ran = new CountDownLatch(5);
        for (int i = 0; i < 5; i++) {
            assertTrue(worker.offer(ran::countDown));
        }
        assertTrue(worker.close(Duration.ofSeconds(10)));
        assertEquals(0, ran.getCount());
        assertTrue(worker.isClosed());
        assertFalse(worker.offer(() -> {}));
        assertThrows(RejectedExecutionException.class, () -> worker.submit(() -> {}));
    }

    @Test
    void closeSaysWhenATaskOutlastsItsTimeout() {
        BoundedWorker worker = new BoundedWorker("test-worker", 10);
        CountDownLatch release = new CountDownLatch(1);
        worker.submit(() -> await(release));
        assertFalse(worker.close(Duration.ofMillis(50)));
        release.countDown();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
