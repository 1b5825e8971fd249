package dev.triage.bench.workload;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;

/**
 * Transcripts the way Whisper writes them, and their length in Whisper's tokens: r50k_base, the GPT-2
 * vocabulary of Whisper's English models.
 *
 * <pre>{@code
 * int tokens = WhisperTranscripts.englishTokens(WhisperTranscripts.asWhisperWrites("HELLO <unk> WORLD"));
 * }</pre>
 */
public final class WhisperTranscripts {

    /** Whisper's English vocabulary. */
    public static final Encoding ENGLISH_VOCABULARY = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.R50K_BASE);

    private WhisperTranscripts() {}

    /** Sentence case for all-capitals transcripts; annotation tags such as {@code <unk>} or {@code [laughter]} dropped. */
    public static String asWhisperWrites(String transcript) {
        String text = transcript.replaceAll("<[^>]*>|\\[[^]]*]", " ").replaceAll("\\s+", " ").strip();
        if (text.isEmpty() || !text.equals(text.toUpperCase(Locale.ROOT))) {
            return text;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    }

    /** The tokens Whisper's English models spend on {@code text}, which they begin with a space. */
    public static int englishTokens(String text) {
        return ENGLISH_VOCABULARY.countTokensOrdinary(" " + text);
    }
}
