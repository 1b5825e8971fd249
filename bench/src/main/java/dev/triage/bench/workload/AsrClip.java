package dev.triage.bench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.model.data.JsonLines;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;

/**
 * One clip of the shared data's speech collection, as its {@code asr/manifest.jsonl} lists it.
 *
 * @param source the collection it comes from ({@code fsdd}, {@code mfa-tests}, ...)
 * @param path the audio file, relative to the {@code asr} directory
 * @param durationSeconds the duration the manifest gives, if any
 * @param transcript what is said; empty where the manifest has none
 * @param license the clip's licence, for provenance
 */
public record AsrClip(String source, String path, OptionalDouble durationSeconds, String transcript, String license) {

    /** The isolated-word sets (spoken digits, card names): single words, not running speech. */
    public static final List<String> WORD_LISTS = List.of("fsdd", "pocketsphinx-cards");

    public boolean isWordList() {
        return WORD_LISTS.contains(source);
    }

    /** Every clip of {@code asr}'s manifest, in its order. */
    public static List<AsrClip> readManifest(Path asr) throws IOException {
        return JsonLines.read(asr.resolve("manifest.jsonl"), clip -> {
            JsonNode duration = clip.path("duration_s");
            return new AsrClip(clip.path("source").asText(), clip.path("path").asText(),
                    duration.isNumber() ? OptionalDouble.of(duration.asDouble()) : OptionalDouble.empty(),
                    clip.path("transcript").asText(""), clip.path("license").asText(""));
        });
    }
}
