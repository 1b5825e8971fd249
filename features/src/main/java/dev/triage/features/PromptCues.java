package dev.triage.features;

import java.util.List;

/**
 * Two things a prompt's words say about its answer's length that neither its length nor
 * Clairvoyant's lexical features carry, read by {@link RequestFeatures}:
 * <ul>
 *   <li>{@link #requestedWords}: the number of words it asks for, where it names one ("a 1,000-word
 *       story", "in 300 words", "a 2k words essay"). Clairvoyant's {@code has_length_constraint}
 *       says only that a count precedes a unit, and "in 5 words" and "a 2,000-word essay" are at the
 *       two ends of the scale; the count itself is the length the client asked for.</li>
 *   <li>{@link #posesMath}: whether it poses a mathematical problem, by an arithmetic expression or
 *       equation ({@code 3x + 2 = 11}, {@code 2^10}, {@code x = 4}) or by the vocabulary of one
 *       ({@link #MATH_WORDS}, "how many"). Reasoning-style models answer such problems step by
 *       step, at a length the prompt's own length does not suggest.</li>
 * </ul>
 *
 * <p>Both read the windows {@link LexicalFeatures} reads (its head and tail of a long prompt), for
 * the same reason and at the same bounded cost: the instruction sits there, not in pasted material.
 * Words are ASCII letter-and-digit runs matched without regard to case; the scan allocates nothing.
 */
public final class PromptCues {

    /** Words that name a mathematical problem. */
    public static final List<String> MATH_WORDS = List.of("solve", "calculate", "compute", "equation", "equations",
            "probability", "integral", "derivative", "prove", "proof", "theorem");

    /** Operators that join two terms of an expression: {@code 3 + 4}, {@code 2^10}, {@code x = 4}. */
    private static final String OPERATORS = "+-*/^=\u00d7\u00f7";

    private PromptCues() {}

    /** The largest number of words {@code text} asks for, or 0 where it names none. */
    public static long requestedWords(String text) {
        long requested = 0;
        for (int window = 0; window < 2; window++) {
            int from = windowStart(text, window);
            int to = windowEnd(text, window);
            for (int i = from; i < to; i++) {
                if (isDigit(text.charAt(i)) && (i == 0 || !isWordChar(text.charAt(i - 1)))) {
                    requested = Math.max(requested, wordsCountedAt(text, i, to));
                }
            }
        }
        return requested;
    }

    /** Whether {@code text} poses a mathematical problem. */
    public static boolean posesMath(String text) {
        for (int window = 0; window < 2; window++) {
            int to = windowEnd(text, window);
            int i = windowStart(text, window);
            while (i < to) {
                if (!isWordChar(text.charAt(i))) {
                    i++;
                    continue;
                }
                int start = i;
                i = wordEnd(text, start, to);
                if (isDigit(text.charAt(i - 1)) && joinsATerm(text, i, to)
                        || i - start == 1 && isLetter(text.charAt(start)) && assignsANumber(text, i, to)
                        || isMathWord(text, start, i)
                        || isWord(text, start, i, "how") && followedBy(text, i, to, "many")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The words counted by the number that starts at {@code start} ("1,000", "300", "2k"), if
     * "word" or "words" follows it after white space or a hyphen; else 0.
     */
    private static long wordsCountedAt(String text, int start, int to) {
        long value = 0;
        int i = start;
        while (i < to && isDigit(text.charAt(i))) {
            value = Math.min(value * 10 + (text.charAt(i) - '0'), Integer.MAX_VALUE);
            i++;
            if (isThousandsSeparator(text, i, to)) {
                i++;
            }
        }
        if (i < to && (text.charAt(i) == 'k' || text.charAt(i) == 'K')) {
            value *= 1000;
            i++;
        }
        i = skipSpaces(text, i, to);
        if (i < to && text.charAt(i) == '-') {
            i = skipSpaces(text, i + 1, to);
        }
        int end = wordEnd(text, i, to);
        return isWord(text, i, end, "word") || isWord(text, i, end, "words") ? value : 0;
    }

    /** A comma followed by exactly three digits: "1,000". */
    private static boolean isThousandsSeparator(String text, int i, int to) {
        return i + 3 < to && text.charAt(i) == ',' && isDigit(text.charAt(i + 1)) && isDigit(text.charAt(i + 2))
                && isDigit(text.charAt(i + 3)) && (i + 4 == to || !isDigit(text.charAt(i + 4)));
    }

    /**
     * Whether an operator and then a term (a digit, a letter, an opening parenthesis) follow {@code i}. A hyphen
     * directly before a letter joins a compound ("3-day", "1,000-word"), not two terms.
     */
    private static boolean joinsATerm(String text, int i, int to) {
        int operator = skipSpaces(text, i, to);
        if (operator >= to || OPERATORS.indexOf(text.charAt(operator)) < 0) {
            return false;
        }
        int term = skipSpaces(text, operator + 1, to);
        if (term >= to) {
            return false;
        }
        char c = text.charAt(term);
        boolean compound = text.charAt(operator) == '-' && term == operator + 1 && isLetter(c);
        return !compound && (isDigit(c) || isLetter(c) || c == '(');
    }

    /** Whether {@code =} or {@code ^} and then a digit follow {@code i}: {@code x = 4}, {@code n^2}. */
    private static boolean assignsANumber(String text, int i, int to) {
        int operator = skipSpaces(text, i, to);
        if (operator >= to || text.charAt(operator) != '=' && text.charAt(operator) != '^') {
            return false;
        }
        int term = skipSpaces(text, operator + 1, to);
        return term < to && isDigit(text.charAt(term));
    }

    private static boolean isMathWord(String text, int start, int end) {
        for (String word : MATH_WORDS) {
            if (isWord(text, start, end, word)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code text[start, end)} is {@code word}, in any case. */
    private static boolean isWord(String text, int start, int end, String word) {
        return end - start == word.length() && text.regionMatches(true, start, word, 0, word.length());
    }

    /** Whether white space and then {@code word} follow {@code i}. */
    private static boolean followedBy(String text, int i, int to, String word) {
        int next = skipSpaces(text, i, to);
        return next > i && isWord(text, next, wordEnd(text, next, to), word);
    }

    /** The end of the run of word characters that starts at {@code start}. */
    private static int wordEnd(String text, int start, int to) {
        int end = start;
        while (end < to && isWordChar(text.charAt(end))) {
            end++;
        }
        return end;
    }

    private static int skipSpaces(String text, int i, int to) {
        while (i < to && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Window 0 is the head of the text (all of a short one), window 1 its tail (empty for a short one). */
    private static int windowStart(String text, int window) {
        return window == 0 ? 0 : LexicalFeatures.tailStart(text);
    }

    private static int windowEnd(String text, int window) {
        return window == 0 ? LexicalFeatures.headEnd(text) : text.length();
    }

    private static boolean isWordChar(char c) {
        return isDigit(c) || isLetter(c);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLetter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }
}
