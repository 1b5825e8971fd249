package dev.triage.features.audio;

/** A container whose duration cannot be read: the reason ends up in the debug log, the bytes go upstream. */
final class UnreadableAudioException extends Exception {

    UnreadableAudioException(String message) {
        super(message, null, false, false);
    }

    UnreadableAudioException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
