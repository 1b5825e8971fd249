package dev.triage.bench.replay;

/** What the replay backend "generates": a fixed cycle of words, one word per token, each with its leading space. */
final class AnswerText {

    private static final String[] WORDS = {"the", "queue", "moves", "short", "jobs", "first", "while", "long", "ones", "wait"};

    private AnswerText() {}

    /** The text of token {@code index}: a word with its leading space. */
    static String token(int index) {
        return " " + WORDS[index % WORDS.length];
    }

    /** The whole text of {@code tokens} tokens, without the first token's leading space. */
    static String text(int tokens) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < tokens; i++) {
            text.append(token(i));
        }
        return text.toString().stripLeading();
    }
}
