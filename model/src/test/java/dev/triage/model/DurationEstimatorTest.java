package dev.triage.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.audio.AudioClip;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DurationEstimatorTest {

    private final DurationEstimator estimator = new DurationEstimator(SpeechTokenRates.defaults());

    @Test
    void tokensAreSecondsTimesTheLanguagesRate() {
        assertEquals("duration", estimator.name());
        assertEquals(10 * 2.9, estimator.estimate(new AudioClip(10, "en", false)).expectedTokens(), 1e-9);
        assertEquals(10 * 4.2, estimator.estimate(new AudioClip(10, "es", false)).expectedTokens(), 1e-9);
        assertEquals(10 * 13.0, estimator.estimate(new AudioClip(10, "hi", true)).expectedTokens(), 1e-9);
        assertEquals(LengthClass.LONG, estimator.estimate(new AudioClip(600, "ar", false)).lengthClass());
    }

    @Test
    void longerClipsRankLongerInEveryLanguage() {
        for (String language : SpeechTokenRates.defaults().rates().keySet()) {
            assertTrue(estimator.estimate(new AudioClip(3, language, false)).expectedTokens()
                    < estimator.estimate(new AudioClip(30, language, false)).expectedTokens(), language);
        }
    }

    @Test
    void namesTagsAndCodesNameTheSameLanguage() {
        SpeechTokenRates rates = SpeechTokenRates.defaults();
        for (String spanish : new String[] {"es", "ES", "es-MX", "es_ES", "spanish", " Spanish ", "castilian"}) {
            assertEquals(4.2, rates.tokensPerSecond(spanish), spanish);
        }
        assertEquals(Optional.of("ar"), SpeechTokenRates.languageCode("Arabic"));
        assertEquals(Optional.of("yue"), SpeechTokenRates.languageCode("cantonese"));
    }

    @Test
    void unknownMissingAndUnlistedLanguagesGetTheEnglishRate() {
        SpeechTokenRates rates = SpeechTokenRates.defaults();
        assertEquals(2.9, rates.tokensPerSecond(""));
        assertEquals(2.9, rates.tokensPerSecond(null));
        assertEquals(2.9, rates.tokensPerSecond("klingon"));
        assertEquals(2.9, rates.tokensPerSecond("de"), "German has no rate of its own by default");
        assertEquals(2.9 * 4, estimator.estimate(new AudioClip(4, "xx", false)).expectedTokens(), 1e-9);
    }

    @Test
    void ratesAreConfigurableAndValidated() {
        SpeechTokenRates rates = SpeechTokenRates.defaults().withRate("german", 3.3).withRate("en", 3.1);
        assertEquals(3.3, rates.tokensPerSecond("de"));
        assertEquals(3.1, rates.tokensPerSecond("zz"), "the configured English rate is the fallback");
        assertEquals(2.9, SpeechTokenRates.defaults().tokensPerSecond("en"), "defaults are not changed");
        IllegalArgumentException badValue = assertThrows(IllegalArgumentException.class, () -> rates.withRate("fr", -1));
        assertEquals("speech token rate for fr: -1.0 (expected: finite, > 0)", badValue.getMessage());
        IllegalArgumentException badLanguage = assertThrows(IllegalArgumentException.class, () -> rates.withRate("elvish", 2));
        assertTrue(badLanguage.getMessage().startsWith("speech token rate language: 'elvish'"), badLanguage.getMessage());
    }

    @Test
    void silenceStillCostsOneToken() {
        assertEquals(1, estimator.estimate(new AudioClip(0, "en", false)).expectedTokens());
    }
}
