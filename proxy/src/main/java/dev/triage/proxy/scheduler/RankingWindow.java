package dev.triage.proxy.scheduler;

import dev.triage.model.LengthClass;
import java.util.Optional;

/**
 * Clairvoyant's ranking accuracy, live: over the last {@code capacity} completed requests whose real
 * length is known, the share of (short, long) pairs — short below 200 tokens, long from 800, by real
 * length — in which the estimate of the long one was strictly higher. 0.5 is what a random order
 * scores; an operator watching it fall sees the estimator stop fitting the traffic.
 *
 * <p>Each addition updates the pair counts in O(capacity). Not thread-safe: one thread feeds it.
 */
public final class RankingWindow {

    private final double[] estimates;
    private final LengthClass[] classes;
    private int next;
    private long pairs;
    private long correct;
    private int shorts;
    private int longs;

    public RankingWindow(int capacity) {
        this.estimates = new double[capacity];
        this.classes = new LengthClass[capacity];
    }

    /** Adds a completed request, evicting the oldest when full. */
    public void add(double estimatedTokens, double actualTokens) {
        add(estimatedTokens, LengthClass.of(actualTokens));
    }

    private void add(double estimatedTokens, LengthClass actual) {
        if (classes[next] != null) {
            count(next, -1);
        }
        estimates[next] = estimatedTokens;
        classes[next] = actual;
        count(next, +1);
        next = (next + 1) % estimates.length;
    }

    /** The window's requests, oldest first, as pairs of the estimate and the real length's class ordinal: what is saved. */
    public double[] state() {
        double[] state = new double[2 * size()];
        int at = 0;
        for (int k = 0; k < estimates.length; k++) {
            int i = (next + k) % estimates.length;
            if (classes[i] != null) {
                state[at++] = estimates[i];
                state[at++] = classes[i].ordinal();
            }
        }
        return state;
    }

    /** A window of {@code capacity} holding what {@link #state()} saved; empty when the state does not fit. */
    public static Optional<RankingWindow> restored(int capacity, double[] state) {
        if (state.length % 2 != 0 || state.length > 2 * capacity) {
            return Optional.empty();
        }
        RankingWindow window = new RankingWindow(capacity);
        LengthClass[] values = LengthClass.values();
        for (int at = 0; at < state.length; at += 2) {
            double ordinal = state[at + 1];
            if (!(state[at] >= 0) || !Double.isFinite(state[at]) || ordinal != Math.rint(ordinal) || ordinal < 0 || ordinal >= values.length) {
                return Optional.empty();
            }
            window.add(state[at], values[(int) ordinal]);
        }
        return Optional.of(window);
    }

    private int size() {
        int size = 0;
        for (LengthClass lengthClass : classes) {
            size += lengthClass == null ? 0 : 1;
        }
        return size;
    }

    /** The accuracy over the window, or NaN while it holds no (short, long) pair. */
    public double accuracy() {
        return pairs == 0 ? Double.NaN : (double) correct / pairs;
    }

    /** Requests in the window of the rarer of the two classes that pairs are made of (short and long). */
    public int rarerClassCount() {
        return Math.min(shorts, longs);
    }

    /** Adds ({@code sign} +1) or removes (-1) the pairs slot {@code i} forms with the others in the window. */
    private void count(int i, int sign) {
        LengthClass mine = classes[i];
        shorts += mine == LengthClass.SHORT ? sign : 0;
        longs += mine == LengthClass.LONG ? sign : 0;
        if (mine == LengthClass.MEDIUM) {
            return;
        }
        // Every other filled slot is in the window: the window fills slots in order and evicts in place.
        for (int j = 0; j < classes.length; j++) {
            LengthClass other = classes[j];
            if (j == i || other == null || other == mine || other == LengthClass.MEDIUM) {
                continue;
            }
            double shortEstimate = mine == LengthClass.SHORT ? estimates[i] : estimates[j];
            double longEstimate = mine == LengthClass.LONG ? estimates[i] : estimates[j];
            pairs += sign;
            if (longEstimate > shortEstimate) {
                correct += sign;
            }
        }
    }
}
