package dev.triage.model;

import dev.triage.features.audio.AudioClip;
import java.util.Objects;

/**
 * The {@code duration} estimator for speech-to-text: expected transcript tokens = audio seconds × κ,
 * the language's tokens per second ({@link SpeechTokenRates}). A Whisper-style server's work grows
 * with the tokens it decodes, and those grow linearly with the audio's duration (the ASR scheduling
 * paper, Figure 2), so the duration alone ranks transcription jobs.
 *
 * <pre>{@code
 * JobEstimator<AudioClip> estimator = new DurationEstimator(SpeechTokenRates.defaults());
 * Estimate estimate = estimator.estimate(new AudioClip(12.5, "es", false)); // 12.5 s × 4.2 = 52.5 tokens
 * }</pre>
 */
public final class DurationEstimator implements JobEstimator<AudioClip> {

    public static final String NAME = "duration";

    /** Even silence costs a decoding pass: never less than one token, as in the paper's listing. */
    static final double MINIMUM_TOKENS = 1;

    private final SpeechTokenRates rates;

    public DurationEstimator(SpeechTokenRates rates) {
        this.rates = Objects.requireNonNull(rates, "rates");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Estimate estimate(AudioClip clip) {
        return Estimate.ofTokens(Math.max(MINIMUM_TOKENS, clip.seconds() * rates.tokensPerSecond(clip.language())));
    }
}
