package dev.triage.bench.jmh;

import dev.triage.model.ranker.SentenceEncoder;

/** Benchmark prompts cut to an exact length in the ranker's encoder tokens ([CLS] and [SEP] included). */
final class RankerPrompts {

    private RankerPrompts() {}

    /** The longest start of a realistic prompt that the encoder reads as {@code tokens} tokens. */
    static String ofTokens(SentenceEncoder encoder, int tokens, long seed) {
        String text = BenchmarkPrompts.of(tokens * 12 + 200, seed);
        int low = 0;
        int high = text.length();
        while (low < high) {
            int middle = (low + high + 1) >>> 1;
            if (encoder.tokenCount(text.substring(0, middle)) <= tokens) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        String prompt = text.substring(0, low);
        if (encoder.tokenCount(prompt) != tokens) {
            throw new IllegalStateException("no prefix of " + tokens + " tokens (got " + encoder.tokenCount(prompt) + ")");
        }
        return prompt;
    }
}
