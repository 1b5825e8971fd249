package dev.triage.proxy.metrics;

import dev.triage.features.PromptFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What happened to one scheduled request, filled in by its exchange as it goes (on the connection's
 * event loop) and handed to the {@link RequestObserver} once, when it ends. Never holds the audio;
 * holds the prompt the estimator read for the feedback log only, which writes its text only when
 * told to: no other observer reads it.
 */
public final class RequestRecord {

    private final String id;
    private final String path;
    private final String routeKind;
    private String backend;
    private final long arrivalNanos;
    private Estimate estimate;
    private int priority;
    private double frozenTokens = Double.NaN;
    private boolean byFallback;
    private double promptTokens;
    private OptionalInt outputCap = OptionalInt.empty();
    private boolean measured = true;
    private OptionalLong fingerprint = OptionalLong.empty();
    private PromptFeatures prompt = PromptFeatures.NONE;
    private long queuedNanos = -1;
    private boolean starvationPromoted;
    private int runningAtDispatch;
    private long servedNanos;
    private long firstByteNanos = -1;
    private long endNanos = -1;
    private OptionalLong actualTokens = OptionalLong.empty();
    private int status;
    private Outcome outcome;
    private String reason;

    public RequestRecord(String id, String path, String routeKind, String backend, long arrivalNanos) {
        this.id = id;
        this.path = path;
        this.routeKind = routeKind;
        this.backend = backend;
        this.arrivalNanos = arrivalNanos;
    }

    /** The request was sent to {@code bound}: of the backends sharing its queue, the one its slot was bound to. */
    public void boundTo(String bound) {
        this.backend = bound;
    }

    /**
     * @param scheduledBy the estimate the request is scheduled by
     * @param estimatorTokens the estimator's own tokens before a learned calibration
     * @param fallback true when the fallback estimator made them, not the configured one
     * @param prompt the prompt's length in tokens
     * @param cap the request's own output limit, when set
     */
    public void sized(Estimate scheduledBy, int sizedPriority, double estimatorTokens, boolean fallback, double prompt,
            OptionalInt cap) {
        this.estimate = scheduledBy;
        this.priority = sizedPriority;
        this.frozenTokens = estimatorTokens;
        this.byFallback = fallback;
        this.promptTokens = prompt;
        this.outputCap = cap;
    }

    /**
     * @param read the prompt the estimator read and its features, {@link PromptFeatures#NONE} when the request has none
     * @param promptFingerprint its fingerprint (a hash of its normalized text), when it has one
     */
    public void prompt(PromptFeatures read, OptionalLong promptFingerprint) {
        this.prompt = read;
        this.fingerprint = promptFingerprint;
    }

    /** @param running jobs holding a slot of the backend once this one took its own, itself included */
    public void dispatched(long waitedNanos, boolean promoted, int running) {
        this.queuedNanos = waitedNanos;
        this.starvationPromoted = promoted;
        this.runningAtDispatch = running;
    }

    /**
     * A run of the request on its backend ended, its answer whole or paused, after {@code nanos} in its
     * slot: the backend's time, which a client slow to read the last bytes does not lengthen.
     */
    public void ran(long nanos) {
        this.servedNanos += nanos;
    }

    /** The request left the queue without a slot (timed out, refused at shutdown, its client gone) after this wait. */
    public void leftQueue(long waitedNanos) {
        this.queuedNanos = waitedNanos;
    }

    public void firstByte(long nowNanos) {
        if (firstByteNanos < 0) {
            firstByteNanos = nowNanos - arrivalNanos;
        }
    }

    public void responded(int statusCode) {
        this.status = statusCode;
    }

    /**
     * Whether the backend's token count measures the request's answer: not for several answers, whose
     * tokens come summed, nor under caps that disagree, where an answer may have been cut short below
     * the bound the request was sized by.
     */
    public void measured(boolean measures) {
        this.measured = measures;
    }

    public void actualTokens(OptionalLong tokens) {
        this.actualTokens = tokens;
    }

    /**
     * Ends the record; later calls are ignored, so each request is reported once.
     *
     * @param why for a rejection, its reason ({@code queue_full}, ...); null otherwise
     * @return true the first time
     */
    public boolean end(Outcome how, String why, long nowNanos) {
        if (outcome != null) {
            return false;
        }
        this.outcome = how;
        this.reason = why;
        this.endNanos = nowNanos;
        return true;
    }

    public String id() {
        return id;
    }

    public String path() {
        return path;
    }

    public String routeKind() {
        return routeKind;
    }

    public String backend() {
        return backend;
    }

    /** The estimate the request was scheduled by, or null when it was rejected before one was made. */
    public Estimate estimate() {
        return estimate;
    }

    public int priority() {
        return priority;
    }

    /** The estimator's own tokens before a learned calibration; NaN before an estimate. */
    public double frozenTokens() {
        return frozenTokens;
    }

    /**
     * True when the fallback estimator made {@link #frozenTokens}, not the configured one: they say
     * nothing of the configured estimator, whose calibration must not learn from them.
     */
    public boolean byFallback() {
        return byFallback;
    }

    /** The prompt's length in tokens, approximately; 0 for audio. */
    public double promptTokens() {
        return promptTokens;
    }

    /** The request's own output limit, when it set one. */
    public OptionalInt outputCap() {
        return outputCap;
    }

    /** The prompt's fingerprint, when it has one. */
    public OptionalLong fingerprint() {
        return fingerprint;
    }

    /**
     * The prompt the estimator read and its features: the features for learning, the text for the
     * feedback log only.
     */
    public PromptFeatures prompt() {
        return prompt;
    }

    /** Jobs holding a slot of the backend once this one took its own, itself included; 0 before. */
    public int runningAtDispatch() {
        return runningAtDispatch;
    }

    /** Nanoseconds its runs held a backend's slot, from each dispatch to the backend's last byte; 0 before. */
    public long servedNanos() {
        return servedNanos;
    }

    /** Nanoseconds it waited in the queue (until its slot, or until it left without one), or -1 when never queued. */
    public long queuedNanos() {
        return queuedNanos;
    }

    public boolean starvationPromoted() {
        return starvationPromoted;
    }

    /** Nanoseconds from arrival to the backend's first byte, or -1. */
    public long firstByteNanos() {
        return firstByteNanos;
    }

    public long totalNanos() {
        return endNanos - arrivalNanos;
    }

    public OptionalLong actualTokens() {
        return actualTokens;
    }

    /**
     * The answer's length when the backend's whole answer reached the client (outcome {@code ok}): only
     * such an answer tells how long a prompt's answer is and what it cost. Empty for one cut short (the
     * client left, the backend broke off), refused, an error, of unknown length, or not measured by its
     * token count ({@link #measured}).
     */
    public OptionalLong wholeAnswerTokens() {
        return outcome == Outcome.OK && measured ? actualTokens : OptionalLong.empty();
    }

    /** The HTTP status the client got, or 0 when none was sent. */
    public int status() {
        return status;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** For a rejection, why; null otherwise. */
    public String reason() {
        return reason;
    }

    /**
     * The bucket the estimate the request was scheduled by falls in ({@code short} below 200 tokens,
     * {@code medium}, {@code long} from 800), or {@code unknown} before an estimate. Not a
     * classifier's most likely class: an estimate is an expectation over the classes, and it is the
     * estimate that ordered the queue.
     */
    public String classLabel() {
        return estimate == null ? "unknown" : LengthClass.of(estimate.expectedTokens()).label();
    }
}
