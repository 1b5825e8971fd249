package dev.triage.proxy.sizing;

import dev.triage.features.audio.AudioClip;
import dev.triage.features.audio.AudioDuration;
import java.util.OptionalDouble;

/**
 * What Triage reads from a {@code /v1/audio/transcriptions} or {@code /v1/audio/translations}
 * upload: the form fields scheduling or logging may use, and the audio's duration. Holds no buffers:
 * the body itself is forwarded untouched by the caller.
 *
 * @param model the {@code model} field, empty when absent
 * @param language the {@code language} field as sent, empty when absent
 * @param responseFormat the {@code response_format} field, empty when absent
 * @param stream true when the {@code stream} field is {@code true}
 * @param priority the {@code priority} field (vLLM's convention: lower is sooner), 0 when absent
 * @param fileName the file part's file name as the client gave it (never used to detect the format)
 * @param fileBytes the file part's size
 * @param duration the audio's duration, read from its container or estimated from its size
 * @param speechSeconds the speech-active seconds when voice-activity detection is on and the audio is
 *     PCM WAV; empty otherwise
 */
public record AudioUpload(String model, String language, String responseFormat, boolean stream, int priority, String fileName,
                          long fileBytes, AudioDuration duration, OptionalDouble speechSeconds) {

    /**
     * The input of the {@code duration} estimator: speech-active seconds where they were measured,
     * the container's duration otherwise.
     */
    public AudioClip clip() {
        return new AudioClip(speechSeconds.orElse(duration.seconds()), language, duration.estimated());
    }

    /** True when the container could not be read and the duration is the byte-size fallback (count it). */
    public boolean durationEstimated() {
        return duration.estimated();
    }
}
