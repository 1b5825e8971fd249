package dev.triage.features.audio;

import java.util.Objects;

/**
 * What the {@code duration} estimator reads from a transcription or translation request: how many
 * seconds of audio it carries and in which language.
 *
 * @param seconds the audio's duration (or its speech-active seconds, when voice-activity detection
 *     is on), finite and at least 0
 * @param language the request's {@code language} field as sent (ISO-639-1 such as {@code "en"}, or a
 *     name such as {@code "english"}); empty when the request names none
 * @param durationEstimated true when {@code seconds} is the byte-size fallback because the container
 *     could not be read
 */
public record AudioClip(double seconds, String language, boolean durationEstimated) {

    public AudioClip {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) {
            throw new IllegalArgumentException("seconds: " + seconds + " (expected: finite, >= 0)");
        }
        Objects.requireNonNull(language, "language");
    }
}
