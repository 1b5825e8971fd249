package dev.triage.model;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How many transcript tokens a second of speech yields, per language: the κ of the ASR scheduling
 * paper's {@code tokens = duration × κ(language)}. Immutable; {@link #withRate} gives a copy with one
 * rate set, for configuration.
 *
 * <p>Where the defaults come from ({@code scripts/measure-speech-token-rates} reproduces them):
 * <ul>
 *   <li>{@code en} 2.9: measured on the read and spontaneous English speech of {@code shared/data/asr}
 *       (30 clips, 144.6 s: LibriSpeech, LJSpeech, LibriVox, speechbrain, the JFK sample), the
 *       transcripts in Whisper's sentence case counted with GPT-2's vocabulary (r50k_base), which is
 *       Whisper's English tokenizer. LibriSpeech alone gives 3.1.</li>
 *   <li>{@code es} 4.2, {@code hi} 13.0, {@code ar} 7.5, {@code sv} 4.2, {@code ja} 6.4: the English
 *       rate times the ratio of tokens (cl100k_base) of translated to original text over the gettext
 *       catalogs of a Debian system (6,000 to 75,000 messages per language), on the premise that the
 *       same content takes about as long to say in any language (Coupé et al., Science Advances 2019).
 *       Checks against real clips in the shared data: Swedish 4.0 (4 clips, 26 s), Spanish 5.3 and
 *       Japanese 5.7 (one clip each).</li>
 * </ul>
 * The paper plots κ for English, Spanish, Hindi and Arabic (its Figure 2) without giving the numbers.
 * Any other language gets the English rate; set a rate for it where its speakers are common.
 *
 * <p>Languages are named as OpenAI's API sends them: ISO-639-1 ({@code "en"}), a tag with a region
 * ({@code "en-US"}), or an English name ({@code "english"}, {@code "Spanish"}, Whisper's aliases such
 * as {@code "castilian"}), in any case.
 */
public final class SpeechTokenRates {

    /** The language whose rate stands in for any language without one. */
    public static final String FALLBACK_LANGUAGE = "en";

    private static final Map<String, Double> DEFAULTS = defaultRates();
    private static final Map<String, String> CODES_BY_NAME = codesByName();

    private final Map<String, Double> rates;

    private SpeechTokenRates(Map<String, Double> rates) {
        this.rates = Collections.unmodifiableMap(rates);
    }

    public static SpeechTokenRates defaults() {
        return new SpeechTokenRates(new LinkedHashMap<>(DEFAULTS));
    }

    /**
     * A copy with {@code language}'s rate set.
     *
     * @throws IllegalArgumentException naming the language or the value when either is not valid
     */
    public SpeechTokenRates withRate(String language, double tokensPerSecond) {
        String code = languageCode(language).orElseThrow(() -> new IllegalArgumentException(
                "speech token rate language: '" + language + "' (expected: an ISO-639-1 code or an English language name)"));
        if (!(tokensPerSecond > 0) || Double.isInfinite(tokensPerSecond)) {
            throw new IllegalArgumentException("speech token rate for " + code + ": " + tokensPerSecond + " (expected: finite, > 0)");
        }
        Map<String, Double> copy = new LinkedHashMap<>(rates);
        copy.put(code, tokensPerSecond);
        return new SpeechTokenRates(copy);
    }

    /** κ for the request's {@code language}; the English rate for an unknown, missing or unlisted language. */
    public double tokensPerSecond(String language) {
        return languageCode(language).map(rates::get).orElse(rates.get(FALLBACK_LANGUAGE));
    }

    /** The table, by ISO-639-1 code, in the order the rates were set. */
    public Map<String, Double> rates() {
        return rates;
    }

    /** The ISO-639 code for a language code, tag or English name; empty when it names no language. */
    public static Optional<String> languageCode(String language) {
        if (language == null) {
            return Optional.empty();
        }
        String name = language.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        String primary = name.split("-", 2)[0];
        if (CODES_BY_NAME.containsValue(primary)) {
            return Optional.of(primary);
        }
        return Optional.ofNullable(CODES_BY_NAME.get(name));
    }

    private static Map<String, Double> defaultRates() {
        Map<String, Double> rates = new LinkedHashMap<>();
        rates.put("en", 2.9);
        rates.put("es", 4.2);
        rates.put("hi", 13.0);
        rates.put("ar", 7.5);
        rates.put("sv", 4.2);
        rates.put("ja", 6.4);
        return rates;
    }

    /** English names of the ISO-639-1 languages (from the JDK), plus the aliases Whisper accepts. */
    private static Map<String, String> codesByName() {
        Map<String, String> codes = new HashMap<>();
        for (String code : Locale.getISOLanguages()) {
            codes.put(Locale.forLanguageTag(code).getDisplayLanguage(Locale.ENGLISH).toLowerCase(Locale.ROOT), code);
        }
        codes.put("castilian", "es");
        codes.put("valencian", "ca");
        codes.put("flemish", "nl");
        codes.put("haitian", "ht");
        codes.put("haitian creole", "ht");
        codes.put("letzeburgesch", "lb");
        codes.put("luxembourgish", "lb");
        codes.put("pushto", "ps");
        codes.put("panjabi", "pa");
        codes.put("moldavian", "ro");
        codes.put("moldovan", "ro");
        codes.put("sinhalese", "si");
        codes.put("mandarin", "zh");
        codes.put("burmese", "my");
        codes.put("cantonese", "yue");
        codes.put("hawaiian", "haw");
        return codes;
    }
}
