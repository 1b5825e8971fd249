package dev.triage.proxy.learning;

import dev.triage.model.ranker.ScoreCalibration;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What a backend answered to prompts seen before, by {@link PromptFingerprint}: for templated and
 * agent traffic, where one prompt comes back again and again, its own past answers say more about
 * the next one than any model of prompts in general. A bounded table of {@value #CAPACITY}
 * fingerprints, each with the mean log length of its last answers (up to {@value #REMEMBERED}); a
 * fingerprint lands in one set of {@value #WAYS} places, and a new one takes the place learned from
 * least recently. About 200 KB in memory when full.
 *
 * <p>The estimate for a repeat blends, in log tokens, the remembered mean (weight: its answers) with
 * the model's estimate (weight {@value #MODEL_WEIGHT}): a prompt seen once is estimated halfway
 * between its answer and the model, one seen {@value #REMEMBERED} times nearly at its answers' mean.
 * A shadow evaluation guards it as the calibration is guarded: for every completed repeat, the
 * blended estimate and the model's are both scored before the answer is learned from, and the
 * memory serves only while its running error is the lower one (traffic whose repeats answer very
 * differently each time, "continue" in a chat, keeps the model's estimates).
 *
 * <p>One thread learns; any thread reads ({@link #tokens}) without a lock: a place holds an immutable
 * entry, replaced whole.
 */
final class RepeatMemory {

    static final int WAYS = 2;
    static final int SETS = 2048;
    static final int CAPACITY = WAYS * SETS;
    /** Answers a fingerprint's mean follows: older ones fade, so a prompt whose answers change is followed. */
    static final int REMEMBERED = 8;
    static final double MODEL_WEIGHT = 1;
    /** Numbers saved per entry: the fingerprint's two halves, its mean log tokens, its answers and when it was last learned from. */
    private static final int SAVED_PER_ENTRY = 5;
    private static final int SAVED_HEADER = 4;

    /** One fingerprint's answers. */
    private record Repeat(long fingerprint, double logTokens, int answers, long lastLearned) {}

    private final AtomicReferenceArray<Repeat> places = new AtomicReferenceArray<>(CAPACITY);
    private long learnedCount;
    private volatile boolean serving;
    private volatile double repeatLogError = Double.NaN;
    private volatile double modelLogError = Double.NaN;

    /** The tokens to expect for a prompt the model estimates at {@code modelTokens}: blended with its repeats' when it has some and they serve. */
    double tokens(long fingerprint, double modelTokens) {
        if (!serving) {
            return modelTokens;
        }
        Repeat repeat = find(fingerprint);
        return repeat == null ? modelTokens : blend(repeat, modelTokens);
    }

    /**
     * Scores the memory's estimate of a completed request against the model's (when the prompt is a
     * repeat), then learns its answer.
     *
     * @param modelTokens what the model (calibrated, when that serves) estimated the request at
     */
    void learn(long fingerprint, double modelTokens, long actualTokens) {
        double actual = Math.min(Math.max(actualTokens, 1), ScoreCalibration.MAX_TOKENS);
        Repeat repeat = find(fingerprint);
        if (repeat != null) {
            repeatLogError = BackendLearner.running(repeatLogError, BackendLearner.logRatio(blend(repeat, modelTokens), actual));
            modelLogError = BackendLearner.running(modelLogError, BackendLearner.logRatio(modelTokens, actual));
            serving = repeatLogError < (serving ? 1 : 1 - BackendLearner.SWITCH_MARGIN) * modelLogError;
        }
        learnedCount++;
        double logActual = Math.log(actual);
        if (repeat != null) {
            int answers = Math.min(repeat.answers() + 1, REMEMBERED);
            put(new Repeat(fingerprint, repeat.logTokens() + (logActual - repeat.logTokens()) / answers, answers, learnedCount));
        } else {
            put(new Repeat(fingerprint, logActual, 1, learnedCount));
        }
    }

    /** Whether the memory's estimates serve for repeats now. */
    boolean serving() {
        return serving;
    }

    /** Running mean |ln(estimate / actual)| of the memory's estimates for completed repeats; NaN before the first. */
    double repeatLogError() {
        return repeatLogError;
    }

    /** The same for the model's estimates of those repeats. */
    double modelLogError() {
        return modelLogError;
    }

    /** Fingerprints remembered. */
    int size() {
        int size = 0;
        for (int i = 0; i < CAPACITY; i++) {
            if (places.get(i) != null) {
                size++;
            }
        }
        return size;
    }

    private static double blend(Repeat repeat, double modelTokens) {
        double logModel = Math.log(Math.min(Math.max(modelTokens, 1), ScoreCalibration.MAX_TOKENS));
        return Math.exp((repeat.answers() * repeat.logTokens() + MODEL_WEIGHT * logModel) / (repeat.answers() + MODEL_WEIGHT));
    }

    private static int firstPlace(long fingerprint) {
        // The fingerprint is a hash already: its low bits spread evenly.
        return (int) (fingerprint & (SETS - 1)) * WAYS;
    }

    private Repeat find(long fingerprint) {
        int first = firstPlace(fingerprint);
        for (int way = 0; way < WAYS; way++) {
            Repeat repeat = places.get(first + way);
            if (repeat != null && repeat.fingerprint() == fingerprint) {
                return repeat;
            }
        }
        return null;
    }

    /** Puts an entry in its own fingerprint's place, or in an empty one, or in the one learned from least recently. */
    private void put(Repeat entry) {
        int first = firstPlace(entry.fingerprint());
        int chosen = first;
        for (int way = 0; way < WAYS; way++) {
            Repeat held = places.get(first + way);
            if (held == null || held.fingerprint() == entry.fingerprint()) {
                chosen = first + way;
                break;
            }
            if (held.lastLearned() < places.get(chosen).lastLearned()) {
                chosen = first + way;
            }
        }
        places.set(chosen, entry);
    }

    /**
     * For saving: the shadow evaluation (the memory's and the model's running errors, 1 when the
     * memory serves) and the count of answers learned, then each entry's fingerprint (its high and low
     * 32 bits), mean log tokens, answers and when it was last learned from.
     */
    double[] state() {
        int size = size();
        double[] state = new double[SAVED_HEADER + SAVED_PER_ENTRY * size];
        state[0] = repeatLogError;
        state[1] = modelLogError;
        state[2] = serving ? 1 : 0;
        state[3] = learnedCount;
        int at = SAVED_HEADER;
        for (int i = 0; i < CAPACITY; i++) {
            Repeat repeat = places.get(i);
            if (repeat != null) {
                state[at++] = repeat.fingerprint() >>> 32;
                state[at++] = repeat.fingerprint() & 0xFFFF_FFFFL;
                state[at++] = repeat.logTokens();
                state[at++] = repeat.answers();
                state[at++] = repeat.lastLearned();
            }
        }
        return state;
    }

    /** Restores what {@link #state()} saved into an empty memory; false, changing nothing, when it does not fit. */
    boolean restore(double[] state) {
        if (state.length < SAVED_HEADER || (state.length - SAVED_HEADER) % SAVED_PER_ENTRY != 0
                || (state.length - SAVED_HEADER) / SAVED_PER_ENTRY > CAPACITY) {
            return false;
        }
        double count = state[3];
        boolean shadowFits = (state[2] == 0 || state[2] == 1) && (state[2] == 0 || state[0] >= 0 && state[1] >= 0);
        if (!shadowFits || !isCount(count, Long.MAX_VALUE / 2)) {
            return false;
        }
        Repeat[] entries = new Repeat[(state.length - SAVED_HEADER) / SAVED_PER_ENTRY];
        for (int e = 0; e < entries.length; e++) {
            int at = SAVED_HEADER + e * SAVED_PER_ENTRY;
            double logTokens = state[at + 2];
            // What learn() can have written: halves of 32 bits, an answer of 1 to a million tokens, 1 to REMEMBERED answers.
            if (!isCount(state[at], 0xFFFF_FFFFL) || !isCount(state[at + 1], 0xFFFF_FFFFL) || !(logTokens >= 0 && logTokens <= 14)
                    || !isCount(state[at + 3], REMEMBERED) || state[at + 3] < 1 || !isCount(state[at + 4], count)) {
                return false;
            }
            entries[e] = new Repeat(((long) state[at] << 32) | (long) state[at + 1], logTokens, (int) state[at + 3], (long) state[at + 4]);
        }
        for (int i = 0; i < CAPACITY; i++) {
            places.set(i, null);
        }
        for (Repeat entry : entries) {
            put(entry);
        }
        repeatLogError = state[0];
        modelLogError = state[1];
        serving = state[2] == 1;
        learnedCount = (long) count;
        return true;
    }

    private static boolean isCount(double value, double max) {
        return value >= 0 && value <= max && value == Math.rint(value);
    }
}
