package dev.triage.bench;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.triage.bench.workload.AsrClip;
import dev.triage.bench.workload.WhisperTranscripts;
import dev.triage.features.audio.AudioDuration;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.model.data.SharedData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Measures where the {@code duration} estimator's default tokens-per-second rates (κ) come from, and
 * prints them: {@code scripts/measure-speech-token-rates}.
 *
 * <ol>
 *   <li><b>Speech.</b> For every clip of {@code asr/manifest.jsonl} with a sentence transcript: the
 *       transcript's tokens over the clip's duration, pooled per language (Σ tokens / Σ seconds).
 *       Transcripts are put the way Whisper writes them (sentence case, no annotation tags). Left
 *       out: the isolated-word sets (spoken digits, card names), since single words say little about
 *       the rate of running speech, and the English recordings of the aligner's test suite, made to
 *       hold breaths, laughter and long pauses on purpose.</li>
 *   <li><b>Parallel text.</b> For languages with few or no clips: the token count of translated
 *       software messages (the gettext catalogs under {@code /usr/share/locale}) over that of their
 *       English originals. Assuming a message takes about as long to say in either language (speech
 *       conveys information at a similar rate across languages: Coupé et al., Science Advances 2019,
 *       about 39 bit/s in 17 languages), κ(language) ≈ κ(English) × that ratio.</li>
 * </ol>
 *
 * Tokens are counted with r50k_base, the GPT-2 vocabulary that Whisper's English models use. Its
 * multilingual models refit a vocabulary of the same size on multilingual text, which splits
 * non-Latin scripts into far fewer tokens than GPT-2's does (GPT-2's count for Hindi would exceed
 * Whisper's own ceiling of 448 tokens per 30-second window at a normal speaking rate), so the
 * parallel-text ratios are also given with cl100k_base, whose vocabulary was fitted on more
 * languages, and the defaults use those.
 */
public final class SpeechTokenRateSurvey {

    private static final Encoding WHISPER_ENGLISH = WhisperTranscripts.ENGLISH_VOCABULARY;
    private static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
    private static final String ALIGNER_TESTS = "mfa-tests";
    private static final List<String> PARALLEL_LANGUAGES = List.of("es", "hi", "ar", "sv", "ja");

    private SpeechTokenRateSurvey() {}

    public static void main(String[] args) throws IOException {
        Path data = args.length > 0 ? Path.of(args[0]) : SharedData.locate().orElseThrow(() -> new IllegalArgumentException(
                "no shared data: pass its directory or set " + SharedData.ENVIRONMENT_VARIABLE));
        Path locales = Path.of(args.length > 1 ? args[1] : "/usr/share/locale");
        Map<String, double[]> speech = speechRates(data.resolve("asr"));
        System.out.println("speech: language, clips, seconds, r50k tokens, r50k tokens/s, cl100k tokens/s");
        speech.forEach((language, sums) -> System.out.printf(Locale.ROOT, "  %s\t%d\t%.1f\t%d\t%.2f\t%.2f%n",
                language, (int) sums[0], sums[1], (int) sums[2], sums[2] / sums[1], sums[3] / sums[1]));
        double english = speech.get("en")[2] / speech.get("en")[1];
        System.out.println("parallel text: language, messages, r50k ratio to English, cl100k ratio,"
                + " κ(en) × r50k ratio, κ(en) × cl100k ratio");
        for (String language : PARALLEL_LANGUAGES) {
            double[] sums = parallelText(locales.resolve(language).resolve("LC_MESSAGES"));
            if (sums[0] > 0) {
                double r50k = sums[2] / sums[1];
                double cl100k = sums[4] / sums[3];
                System.out.printf(Locale.ROOT, "  %s\t%d\t%.2f\t%.2f\t%.2f\t%.2f%n", language, (int) sums[0], r50k, cl100k,
                        english * r50k, english * cl100k);
            }
        }
    }

    /** Per language: {clips, seconds, r50k tokens, cl100k tokens}. */
    private static Map<String, double[]> speechRates(Path asr) throws IOException {
        AudioDurationReader durations = new AudioDurationReader();
        Map<String, double[]> sums = new TreeMap<>();
        for (AsrClip clip : AsrClip.readManifest(asr)) {
            if (clip.transcript().isBlank() || clip.isWordList() || clip.source().equals(ALIGNER_TESTS) && language(clip.path()).equals("en")) {
                continue;
            }
            double seconds;
            if (clip.durationSeconds().isPresent()) {
                seconds = clip.durationSeconds().getAsDouble();
            } else {
                AudioDuration read = durations.read(ByteBuffer.wrap(Files.readAllBytes(asr.resolve(clip.path()))).order(ByteOrder.BIG_ENDIAN));
                if (read.estimated()) {
                    continue;
                }
                seconds = read.seconds();
            }
            String text = WhisperTranscripts.asWhisperWrites(clip.transcript());
            if (text.isEmpty()) {
                continue;
            }
            double[] language = sums.computeIfAbsent(language(clip.path()), key -> new double[4]);
            language[0]++;
            language[1] += seconds;
            language[2] += WhisperTranscripts.englishTokens(text);
            language[3] += CL100K.countTokensOrdinary(" " + text);
        }
        return sums;
    }

    /** The clips' language, from the corpus naming (Common Voice and NST Swedish file names, one Spanish book). */
    private static String language(String path) {
        if (path.contains("common_voice_ja")) {
            return "ja";
        }
        if (path.contains("/se10x016")) {
            return "sv";
        }
        if (path.contains("13697_11991")) {
            return "es";
        }
        return "en";
    }

    /** {messages, English r50k tokens, translated r50k tokens, English cl100k tokens, translated cl100k tokens}. */
    private static double[] parallelText(Path catalogs) throws IOException {
        double[] sums = new double[5];
        if (!Files.isDirectory(catalogs)) {
            return sums;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(catalogs, "*.mo")) {
            for (Path file : files) {
                for (String[] pair : messages(Files.readAllBytes(file))) {
                    sums[0]++;
                    sums[1] += WHISPER_ENGLISH.countTokensOrdinary(pair[0]);
                    sums[2] += WHISPER_ENGLISH.countTokensOrdinary(pair[1]);
                    sums[3] += CL100K.countTokensOrdinary(pair[0]);
                    sums[4] += CL100K.countTokensOrdinary(pair[1]);
                }
            }
        }
        return sums;
    }

    /**
     * The (original, translation) pairs of a GNU .mo catalog: a magic number that gives the byte order,
     * the message count, and two tables of (length, offset) for the originals and the translations.
     * Plural forms and the catalog header (empty original) are skipped.
     */
    private static List<String[]> messages(byte[] mo) {
        ByteBuffer catalog = ByteBuffer.wrap(mo).order(ByteOrder.LITTLE_ENDIAN);
        if (catalog.getInt(0) != 0x950412de) {
            catalog.order(ByteOrder.BIG_ENDIAN);
        }
        int count = catalog.getInt(8);
        int originals = catalog.getInt(12);
        int translations = catalog.getInt(16);
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String original = string(mo, catalog, originals + 8 * i);
            String translation = string(mo, catalog, translations + 8 * i);
            if (!original.isEmpty() && !original.contains("\0") && !translation.isEmpty() && !translation.contains("\0")) {
                pairs.add(new String[] {original, translation});
            }
        }
        return pairs;
    }

    private static String string(byte[] mo, ByteBuffer catalog, int entry) {
        return new String(mo, catalog.getInt(entry + 4), catalog.getInt(entry), StandardCharsets.UTF_8);
    }
}
