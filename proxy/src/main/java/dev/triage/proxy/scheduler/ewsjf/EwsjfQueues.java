package dev.triage.proxy.scheduler.ewsjf;

import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.Job;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.WaitingJobs;
import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EWSJF (Effective Workload-based Shortest Job First) as the waiting jobs of a
 * {@link dev.triage.proxy.scheduler.Scheduler}: jobs of similar size share a queue, each queue serves
 * its oldest job first, and the queue whose oldest job has the highest {@link DensityWeightedScore}
 * goes next. When several slots are free at once the chosen queue fills them, then its neighbours
 * (the paper's batch builder), so jobs sent together are alike.
 *
 * <p>Two slow loops run beside the decisions, on the injected clock:
 *
 * <ul>
 *   <li>every {@code refineInterval} the latest sizes are partitioned anew by {@link RefineAndPrune}
 *       on the {@code background} executor, and the new queues are swapped in at the next decision
 *       (waiting jobs are re-queued in arrival order); a job whose size falls into a gap between two
 *       refinements gets a bubble queue ({@link BubbleRouting});</li>
 *   <li>with tuning on, every {@code trialInterval} the parameters Θ in force are scored by the
 *       paper's reward over the jobs that completed, and the {@link MetaOptimizer} picks the next Θ,
 *       also on the background executor.</li>
 * </ul>
 *
 * <p>The live proxy passes a background thread; the simulator passes {@code Runnable::run}, so its runs
 * are deterministic. Every other method runs on the thread that owns the scheduler; {@link #theta()},
 * {@link #queueCount()}, {@link #trialCount()} and {@link #lastTrial()} may be read from any thread.
 *
 * <pre>{@code
 * var queues = new EwsjfQueues<Request>(EwsjfSettings.defaults(), clock, backgroundExecutor);
 * var scheduler = new Scheduler<>(new SchedulerSettings(Policy.EWSJF, tau, maxQueue, slots), clock, queues);
 * }</pre>
 */
public final class EwsjfQueues<T> extends WaitingJobs<T> {

    /** Scored trials kept for the admin API. */
    public static final int HISTORY = 100;

    private static final Logger log = LoggerFactory.getLogger(EwsjfQueues.class);

    private final EwsjfSettings settings;
    private final SizeFeature feature;
    private final Clock clock;
    private final Executor background;
    private final SizeWindow window;
    private final MetaOptimizer optimizer;
    private final Map<Job<T>, SizeQueue<T>> queueOf = new HashMap<>();
    /** Where each dispatched job was sent from, until it is released: the reward is per queue. */
    private final Map<Job<T>, SizeQueue<T>> sentFrom = new HashMap<>();
    private final ArrayDeque<Trial> trials = new ArrayDeque<>();
    private final List<SizeRange> ranges = new AbstractList<>() {
        @Override
        public SizeRange get(int index) {
            return queues.get(index).range;
        }

        @Override
        public int size() {
            return queues.size();
        }
    };
    private List<SizeQueue<T>> queues = new ArrayList<>();
    private int bubbles;
    private int waiting;
    private CompletableFuture<Partition> pendingPartition;
    private CompletableFuture<Theta> pendingTheta;
    private long nextRefineNanos;
    private boolean refineDue = true;
    private TrialMeter meter;
    private long trialStartNanos;
    // The batch being filled: the queue chosen for it and how many of its slots are still free.
    private SizeQueue<T> batchQueue;
    private int batchLeft;
    private boolean proposalOut;

    private volatile Theta theta;
    private volatile int queueCount;
    private volatile int trialCount;
    private volatile Trial lastTrial;

    /**
     * @param clock the scheduler's clock: refinements and trials are timed on it
     * @param background where refinements and the optimizer run: a thread of their own in the proxy,
     *     {@code Runnable::run} in the simulator
     */
    public EwsjfQueues(EwsjfSettings settings, Clock clock, Executor background) {
        super(Policy.EWSJF);
        this.settings = settings;
        this.feature = settings.sizeFeature();
        this.clock = clock;
        this.background = background;
        this.window = new SizeWindow(settings.window());
        this.optimizer = new MetaOptimizer(settings.seed(), EwsjfSettings.RANDOM_TRIALS, EwsjfSettings.OPTIMIZER_MEMORY);
        this.theta = settings.initialTheta();
        install(Partition.single());
        startTrial(clock.nanoTime());
    }

    @Override
    public void add(Job<T> job) {
        maintain(clock.nanoTime());
        double size = feature.size(job);
        window.add(size);
        enqueue(job, size);
    }

    /** Placed by its new size; the window of recent sizes saw the job when it arrived. */
    @Override
    public void addAgain(Job<T> job) {
        maintain(clock.nanoTime());
        enqueue(job, feature.size(job));
    }

    private void enqueue(Job<T> job, double size) {
        place(job, size);
        waiting++;
        batchLeft = 0;
    }

    @Override
    public boolean remove(Job<T> job) {
        SizeQueue<T> queue = queueOf.remove(job);
        if (queue == null) {
            return false;
        }
        queue.remove(job);
        waiting--;
        if (proposalOut) {
            // Removed right after best(): a dispatch (of the proposal, or of a job τ promoted instead).
            proposalOut = false;
            if (settings.tune()) {
                sentFrom.put(job, queue);
            }
        } else {
            batchLeft = 0; // a cancellation between two dispatches ends the batch
        }
        return true;
    }

    @Override
    public Job<T> best(long nowNanos, int freeSlots) {
        maintain(nowNanos);
        if (waiting == 0) {
            return null;
        }
        int priority = lowestPriority();
        SizeQueue<T> chosen = null;
        if (batchLeft > 0 && freeSlots == batchLeft) {
            chosen = backfill(priority);
        }
        if (chosen == null) {
            chosen = highestScore(nowNanos, priority);
            batchQueue = chosen;
        }
        batchLeft = freeSlots - 1;
        proposalOut = true;
        return chosen.head();
    }

    @Override
    public int size() {
        return waiting;
    }

    @Override
    public Iterable<Job<T>> all() {
        return queueOf.keySet();
    }

    /** The order the waiting jobs would leave in, one slot at a time, if nothing changed meanwhile. */
    @Override
    public List<Job<T>> inOrder(long nowNanos) {
        List<Iterator<Job<T>>> rest = new ArrayList<>(queues.size());
        List<Job<T>> heads = new ArrayList<>(queues.size());
        for (SizeQueue<T> queue : queues) {
            Iterator<Job<T>> it = queue.jobs().iterator();
            rest.add(it);
            heads.add(it.hasNext() ? it.next() : null);
        }
        List<Job<T>> ordered = new ArrayList<>(waiting);
        while (ordered.size() < waiting) {
            int priority = Integer.MAX_VALUE;
            for (Job<T> head : heads) {
                if (head != null) {
                    priority = Math.min(priority, head.priority());
                }
            }
            int best = -1;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < heads.size(); i++) {
                Job<T> head = heads.get(i);
                if (head != null && head.priority() == priority) {
                    double score = score(i, head, nowNanos);
                    if (best < 0 || score > bestScore || (score == bestScore && head.sequence() < heads.get(best).sequence())) {
                        best = i;
                        bestScore = score;
                    }
                }
            }
            ordered.add(heads.get(best));
            heads.set(best, rest.get(best).hasNext() ? rest.get(best).next() : null);
        }
        return ordered;
    }

    @Override
    public void released(Dispatch<T> dispatch, long nowNanos) {
        Job<T> job = dispatch.job();
        SizeQueue<T> queue = sentFrom.remove(job);
        if (meter != null && queue != null) {
            meter.completed(queue, feature.size(job), feature.cost(job), dispatch.queuedNanos() / 1e9,
                    (nowNanos - dispatch.dispatchedNanos()) / 1e9);
        }
    }

    /** The parameters in force. */
    public Theta theta() {
        return theta;
    }

    /** The queues in force, bubbles included. */
    public int queueCount() {
        return queueCount;
    }

    /** How many trials the meta-optimizer has scored. */
    public int trialCount() {
        return trialCount;
    }

    /**
     * The reward of the trial in progress, over the jobs completed in it so far; null without tuning.
     * Call on the thread that owns the scheduler.
     */
    public TrialReward openTrialReward() {
        return meter == null ? null : meter.reward(queues.size(), settings.maxQueues(), settings.reward());
    }

    /** The latest scored trial, or null before the first. */
    public Trial lastTrial() {
        return lastTrial;
    }

    public EwsjfSettings settings() {
        return settings;
    }

    /** The queues, Θ and trials as they stand. Call on the thread that owns the scheduler. */
    public EwsjfStatus status(long nowNanos) {
        List<EwsjfStatus.Queue> views = new ArrayList<>(queues.size());
        for (int i = 0; i < queues.size(); i++) {
            views.add(new EwsjfStatus.Queue(i + 1, queues.get(i).range, queues.get(i).size()));
        }
        return new EwsjfStatus(feature.label(), theta, settings.tune(), views, trialCount + 1,
                meter == null ? 0 : (nowNanos - trialStartNanos) / 1_000_000, meter == null ? 0 : meter.completions(),
                List.copyOf(trials));
    }

    /** The score of a queue's head; {@code queueIndex} counts from 0 in rising size order. */
    private double score(int queueIndex, Job<T> head, long nowNanos) {
        return DensityWeightedScore.score(queues.size() - queueIndex, feature.size(head), feature.cost(head),
                Math.max(0, head.waitedNanos(nowNanos)) / 1e9, queues.get(queueIndex).range.meanSize(), theta);
    }

    private int lowestPriority() {
        int priority = Integer.MAX_VALUE;
        for (SizeQueue<T> queue : queues) {
            if (!queue.isEmpty()) {
                priority = Math.min(priority, queue.head().priority());
            }
        }
        return priority;
    }

    private SizeQueue<T> highestScore(long nowNanos, int priority) {
        SizeQueue<T> best = null;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < queues.size(); i++) {
            SizeQueue<T> queue = queues.get(i);
            if (queue.isEmpty() || queue.head().priority() != priority) {
                continue;
            }
            double score = score(i, queue.head(), nowNanos);
            if (best == null || score > bestScore || (score == bestScore && queue.head().sequence() < best.head().sequence())) {
                best = queue;
                bestScore = score;
            }
        }
        return best;
    }

    /** The batch's queue if it still has a job of the lowest priority, else its nearest such neighbour, shorter first. */
    private SizeQueue<T> backfill(int priority) {
        int home = queues.indexOf(batchQueue);
        if (home < 0) {
            return null;
        }
        for (int distance = 0; distance < queues.size(); distance++) {
            for (int index : new int[] {home - distance, home + distance}) {
                if (index >= 0 && index < queues.size()) {
                    SizeQueue<T> queue = queues.get(index);
                    if (!queue.isEmpty() && queue.head().priority() == priority) {
                        return queue;
                    }
                }
            }
        }
        return null;
    }

    private void place(Job<T> job, double size) {
        BubbleRouting.Route route = BubbleRouting.route(ranges, size, settings.bubbleWidth(), bubbles < settings.maxQueues());
        if (route.bubble() != null) {
            queues.add(route.index(), new SizeQueue<>(route.bubble()));
            bubbles++;
            queueCount = queues.size();
        }
        SizeQueue<T> queue = queues.get(route.index());
        queue.add(job);
        queueOf.put(job, queue);
    }

    /** Starts what is due on the slow loops and installs what they have finished. */
    private void maintain(long nowNanos) {
        if (pendingPartition == null && window.count() >= settings.minSamples() && (refineDue || nowNanos >= nextRefineNanos)) {
            double[] sizes = window.snapshot();
            double alpha = theta.alpha();
            pendingPartition = offThread(() -> RefineAndPrune.partition(sizes, alpha, settings.minQueueWidth(), settings.maxQueues()));
            refineDue = false;
            nextRefineNanos = nowNanos + settings.refineInterval().toNanos();
        }
        if (meter != null && pendingTheta == null && nowNanos - trialStartNanos >= settings.trialInterval().toNanos()
                && meter.completions() >= settings.minTrialCompletions()) {
            closeTrial(nowNanos);
        }
        // Asked once whether each is done: the slow loop's thread may finish it at any moment, and a result
        // taken as "not yet" but then found done would be dropped.
        if (pendingPartition != null && pendingPartition.isDone()) {
            Partition partition = result(pendingPartition, "refining the queues");
            pendingPartition = null;
            if (partition != null) {
                install(partition);
            }
        }
        if (pendingTheta != null && pendingTheta.isDone()) {
            Theta next = result(pendingTheta, "choosing the next parameters");
            pendingTheta = null;
            if (next != null) {
                refineDue |= next.alpha() != theta.alpha();
                theta = next;
            }
            startTrial(nowNanos);
        }
    }

    private void closeTrial(long nowNanos) {
        TrialReward reward = meter.reward(queues.size(), settings.maxQueues(), settings.reward());
        Trial trial = new Trial(trialCount + 1, theta, meter.completions(), queues.size(), reward);
        trials.addLast(trial);
        if (trials.size() > HISTORY) {
            trials.removeFirst();
        }
        lastTrial = trial;
        trialCount++;
        meter = null; // the next trial starts when its parameters are in force
        Theta tried = theta;
        pendingTheta = offThread(() -> {
            optimizer.observe(tried, reward.reward());
            return optimizer.propose();
        });
        if (pendingTheta == null) {
            startTrial(nowNanos); // no background thread: the same parameters go on
        }
    }

    private void startTrial(long nowNanos) {
        if (settings.tune()) {
            meter = new TrialMeter();
            trialStartNanos = nowNanos;
        }
    }

    /** Replaces the queues with the partition's; waiting jobs are placed again in arrival order. */
    private void install(Partition partition) {
        List<Job<T>> jobs = new ArrayList<>(queueOf.keySet());
        jobs.sort(Comparator.comparingLong(Job::sequence));
        queueOf.clear();
        queues = new ArrayList<>(partition.size());
        for (SizeRange range : partition.ranges()) {
            queues.add(new SizeQueue<>(range));
        }
        bubbles = 0;
        batchQueue = null;
        batchLeft = 0;
        for (Job<T> job : jobs) {
            place(job, feature.size(job));
        }
        queueCount = queues.size();
    }

    private <R> CompletableFuture<R> offThread(Supplier<R> work) {
        try {
            return CompletableFuture.supplyAsync(work, background);
        } catch (RejectedExecutionException e) {
            log.debug("ewsjf background executor closed; {} skipped", work);
            return null;
        }
    }

    /** A finished task's result, or null when it failed (logged). */
    private static <R> R result(CompletableFuture<R> done, String what) {
        try {
            return done.getNow(null);
        } catch (CompletionException e) {
            log.error("ewsjf: {} failed; the previous ones stay in force", what, e.getCause());
            return null;
        }
    }
}
