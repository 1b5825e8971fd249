package dev.triage.proxy.learning;

import dev.triage.proxy.concurrent.BoundedWorker;
import dev.triage.proxy.metrics.RequestObserver;
import dev.triage.proxy.metrics.RequestRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns from every completed request, off the event loops and the dispatch thread: the request's
 * end hands its record over ({@link #finished}), and one learner thread of its own updates the
 * {@link BackendLearner} of the request's backend and kind, and saves the learned state under the
 * state directory now and then and on {@link #close()}.
 *
 * <pre>{@code
 * OnlineLearning learning = OnlineLearning.start(Optional.of(stateDir), List.of(chatLearner));
 * RequestObserver observer = metrics.andThen(learning);
 * }</pre>
 */
public final class OnlineLearning implements RequestObserver, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OnlineLearning.class);

    /** Completed requests that may wait for the learner; beyond, one is dropped and counted. */
    static final int WAITING = 4096;
    /** How often, at most, the learner writes its state while requests complete. */
    static final Duration SAVE_INTERVAL = Duration.ofSeconds(30);
    /** How long a shutdown waits for the learner to take in what it was given before saving, and a new model for room in its queue. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** How long a new model's notice waits before it offers itself again to a full queue. */
    private static final Duration QUEUE_FULL_PAUSE = Duration.ofMillis(1);

    private final Map<String, BackendLearner> learners = new LinkedHashMap<>();
    private final LearnedStateFile stateFile;
    private final BoundedWorker thread;
    private final LongAdder dropped = new LongAdder();
    private long lastSaveNanos = System.nanoTime();

    private OnlineLearning(List<BackendLearner> backendLearners, LearnedStateFile stateFile) {
        backendLearners.forEach(learner -> learners.put(learner.key(), learner));
        this.stateFile = stateFile;
        this.thread = new BoundedWorker("triage-learner", WAITING);
    }

    /**
     * Starts learning, first loading what a state directory holds. A state file that cannot be used
     * (unreadable, corrupt, another format) is set aside with one warning line and learning starts
     * from the configured models; a learner whose backend or estimator changed starts afresh, with
     * one warning line too.
     *
     * @param stateDirectory where the learned state is kept; empty to keep it in memory only
     */
    public static OnlineLearning start(Optional<Path> stateDirectory, List<BackendLearner> backendLearners) {
        OnlineLearning learning = new OnlineLearning(backendLearners, stateDirectory.map(LearnedStateFile::new).orElse(null));
        learning.load();
        return learning;
    }

    public BackendLearner learner(String backend, String routeKind) {
        return learners.get(key(backend, routeKind));
    }

    public static String key(String backend, String routeKind) {
        return backend + "/" + routeKind;
    }

    /** Every learner, in the order given. */
    public List<BackendLearner> learners() {
        return List.copyOf(learners.values());
    }

    /** Completed requests not learned from because the learner was behind. */
    public long dropped() {
        return dropped.sum();
    }

    /**
     * Tells a learner that its estimator's model changed: its calibration of the old model's tokens
     * is dropped, on the learner's thread, after the answers already handed over. Called on the thread
     * that loads models, never an event loop, it waits out a full queue: a forgetting dropped would
     * leave the old model's calibration on the new model's tokens for good.
     */
    public void modelChanged(String backend, String routeKind) {
        BackendLearner learner = learners.get(key(backend, routeKind));
        if (learner == null) {
            return;
        }
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        while (!thread.isClosed() && !thread.offer(learner::forgetCalibration)) {
            if (System.nanoTime() - deadline >= 0) {
                log.warn("the learner stayed behind for {}; what it learned of {}'s old model stays with the new one",
                        CLOSE_TIMEOUT, backend);
                return;
            }
            LockSupport.parkNanos(QUEUE_FULL_PAUSE.toNanos());
        }
    }

    /**
     * Takes a finished request's record; cheap, and safe on any thread. The prompt's features are
     * taken here, unless the request's costing already took them (microseconds: they read a bounded
     * window of the text), so that no prompt's text waits in the learner's queue.
     */
    @Override
    public void finished(RequestRecord record) {
        BackendLearner learner = learners.get(key(record.backend(), record.routeKind()));
        if (learner == null || record.wholeAnswerTokens().isEmpty() || record.estimate() == null || record.queuedNanos() < 0
                || thread.isClosed()) {
            return; // an answer cut short, refused or unread tells neither its length nor its cost
        }
        CompletedRequest completed = new CompletedRequest(record.frozenTokens(), record.outputCap(), record.promptTokens(),
                record.wholeAnswerTokens().getAsLong(), record.runningAtDispatch(), record.servedNanos() / 1e9,
                record.fingerprint(), record.byFallback(), record.prompt().get());
        if (!thread.offer(() -> learn(learner, completed))) {
            dropped.increment();
        }
    }

    private void learn(BackendLearner learner, CompletedRequest completed) {
        learner.learn(completed);
        if (stateFile != null && System.nanoTime() - lastSaveNanos >= SAVE_INTERVAL.toNanos()) {
            save();
        }
    }

    /** Waits for the learner to take in what it was given, then saves: a look at what was learned, or the file, waits for it. */
    public void flush() {
        try {
            thread.submit(this::save).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            log.warn("the learned state was not saved: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void load() {
        if (stateFile == null) {
            return;
        }
        Map<String, LearnedStateFile.Entry> saved;
        try {
            saved = stateFile.read();
        } catch (IOException | RuntimeException e) {
            log.warn("ignoring the learned state in {} ({}) and starting from the configured models: {}", stateFile.path(),
                    setAside(), e.getMessage());
            return;
        }
        StringBuilder skipped = new StringBuilder();
        saved.forEach((key, entry) -> {
            BackendLearner learner = learners.get(key);
            if (learner == null || !learner.learning()) {
                return;
            }
            if (!entry.learnedFor().equals(learner.learnedFor())) {
                skipped.append(skipped.isEmpty() ? "" : "; ").append(key).append(" was learned for ").append(entry.learnedFor());
            } else if (!learner.restore(entry.state())) {
                skipped.append(skipped.isEmpty() ? "" : "; ").append(key).append(" does not fit this version");
            }
        });
        if (!skipped.isEmpty()) {
            log.warn("ignoring part of the learned state in {}: {}", stateFile.path(), skipped);
        }
    }

    /**
     * Moves a state file that cannot be used out of the way of the next save, which would replace it: it
     * may be a newer version's, kept for a rollback, or worth a look. Says where it went.
     */
    private String setAside() {
        Path refused = stateFile.path().resolveSibling(stateFile.path().getFileName() + ".refused-" + Instant.now().getEpochSecond());
        try {
            Files.move(stateFile.path(), refused, StandardCopyOption.REPLACE_EXISTING);
            return "set aside as " + refused.getFileName();
        } catch (IOException e) {
            return "not set aside, and the next save replaces it: " + e;
        }
    }

    private void save() {
        lastSaveNanos = System.nanoTime();
        if (stateFile == null) {
            return;
        }
        Map<String, LearnedStateFile.Entry> entries = new LinkedHashMap<>();
        learners.forEach((key, learner) -> {
            if (learner.learning()) {
                entries.put(key, new LearnedStateFile.Entry(learner.learnedFor(), learner.state()));
            }
        });
        if (entries.isEmpty()) {
            return;
        }
        try {
            stateFile.write(entries);
        } catch (IOException | RuntimeException e) {
            log.warn("could not save the learned state to {}: {}", stateFile.path(), e.toString());
        }
    }

    /**
     * Learns what is waiting, stops the learner's thread, and saves on this one: a save handed to the
     * thread would be refused by a full queue, just when the proxy is busiest.
     */
    @Override
    public void close() {
        if (thread.isClosed()) {
            return;
        }
        if (thread.close(CLOSE_TIMEOUT)) {
            save();
        } else {
            log.warn("the learner did not finish what it was given within {}; the learned state was not saved", CLOSE_TIMEOUT);
        }
    }
}
