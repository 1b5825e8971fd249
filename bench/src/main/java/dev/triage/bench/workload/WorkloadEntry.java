package dev.triage.bench.workload;

import dev.triage.features.PromptTokens;
import dev.triage.model.LengthClass;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.Objects;
import java.util.Optional;

/**
 * One prompt of a workload and the length of the answer a target model gave it, or one audio file
 * and the length of its transcript. The format of the file these come from is {@link WorkloadFile}'s.
 *
 * @param prompt the text {@link dev.triage.features.ChatBody#prompt} extracts from a request: the last
 *     user message of a chat, or a completion's prompt; for an audio entry, its transcript
 * @param answerTokens the recorded answer's (or transcript's) length in tokens, at least 0
 * @param jobClass the answer's class ({@code short}, {@code medium}, {@code long}, or a workload's own)
 * @param source where the prompt and answer come from, for provenance; may be empty
 * @param audio the audio file to transcribe, for a speech-to-text request; empty for a chat request
 */
public record WorkloadEntry(String prompt, int answerTokens, String jobClass, String source, Optional<AudioFile> audio) {

    public WorkloadEntry {
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(jobClass, "jobClass");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(audio, "audio");
        if (answerTokens < 0) {
            throw new IllegalArgumentException("answer_tokens: " + answerTokens + " (expected: >= 0)");
        }
        if (jobClass.isBlank()) {
            throw new IllegalArgumentException("class: blank (expected: a class name)");
        }
    }

    /** A chat entry. */
    public WorkloadEntry(String prompt, int answerTokens, String jobClass, String source) {
        this(prompt, answerTokens, jobClass, source, Optional.empty());
    }

    /** The seconds a backend of {@code speed} takes to answer this entry alone: its prompt's tokens, then its answer's. */
    public double serviceSeconds(ServiceTimeModel speed) {
        return speed.seconds(PromptTokens.approximate(prompt), answerTokens);
    }

    /** An entry whose class follows from its length, by {@link LengthClass}. */
    public static WorkloadEntry of(String prompt, int answerTokens, String source) {
        return new WorkloadEntry(prompt, answerTokens, LengthClass.of(answerTokens).label(), source);
    }
}
