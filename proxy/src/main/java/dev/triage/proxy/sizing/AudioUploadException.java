package dev.triage.proxy.sizing;

import java.util.Objects;

/** An audio upload Triage refuses itself: {@link #problem()} gives the status and error fields. */
public final class AudioUploadException extends Exception {

    private final AudioUploadProblem problem;

    AudioUploadException(AudioUploadProblem problem, String detail) {
        super(detail == null ? problem.message() : problem.message() + ": " + detail, null, false, false);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    public AudioUploadProblem problem() {
        return problem;
    }
}
