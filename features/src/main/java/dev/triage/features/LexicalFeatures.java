package dev.triage.features;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The 19 lexical features of Clairvoyant (§3.2) that the {@code classifier} estimator scores: what a
 * prompt's words say about the length of its answer. Training and serving both call
 * {@link #extract}, so a model never sees features computed differently from the ones it learned,
 * and every word list and rule is defined in this class and nowhere else.
 *
 * <pre>{@code
 * float[] features = LexicalFeatures.of(ChatBody.prompt(body));
 * // features[LexicalFeatures.PROMPT_TOKEN_LEN], ..., one-hot verb in the last 13 columns
 * }</pre>
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li>{@code prompt_token_len}: {@link PromptTokens#approximate} of the whole prompt.</li>
 *   <li>{@code has_code_keyword}: 1 when a word of {@link #CODE_KEYWORDS} occurs.</li>
 *   <li>{@code has_length_constraint}: 1 when a word of {@link #LENGTH_WORDS} or a phrase of
 *       {@link #LENGTH_PHRASES} occurs, or a count ({@link #COUNT_WORDS} or digits) directly precedes
 *       a unit of {@link #LENGTH_UNITS} ("in 3 sentences", "two paragraphs", "a few lines").</li>
 *   <li>{@code ends_with_question}: 1 when the last character that is not white space is a question
 *       mark: ASCII {@code ?}, full-width {@code ？} (Chinese, Japanese) or Arabic {@code ؟}.</li>
 *   <li>{@code has_format_keyword}: 1 when a word of {@link #FORMAT_KEYWORDS} occurs.</li>
 *   <li>{@code clause_count}: how many words of {@link #CLAUSE_WORDS} (subordinating conjunctions and
 *       relative pronouns) occur.</li>
 *   <li>{@code verb_*}: one-hot {@link LeadingVerb} of the prompt's first word, after skipping up to
 *       {@link #MAX_COURTESY_WORDS} words of {@link #COURTESY_WORDS} ("Could you please explain" is
 *       {@code explain}). Words are matched exactly after lower-casing: {@link #VERBS}, with the
 *       British "summarise" as {@code summarize}; every other word, and an empty prompt, is
 *       {@link LeadingVerb#OTHER}.</li>
 * </ul>
 *
 * <p>Matching is by whole word: a word is a maximal run of letters and digits (any script), so
 * "classic" is not "class", "what's" is "what" then "s", "step-by-step" is three words and
 * "my_function" contains "function". Keywords are English; a word with a letter outside ASCII
 * matches none, so non-English prompts keep their length and question mark but little else.
 *
 * <p><b>Bounded scan.</b> The word rules read the first {@link #HEAD_WINDOW_CHARS} and the last
 * {@link #TAIL_WINDOW_CHARS} characters of a longer prompt, not its middle: the instruction of a
 * prompt sits at its start ("Summarize the following: ...") or after pasted material at its end
 * ("... Rewrite this in two paragraphs"), and a pasted document or code listing in the middle says
 * little about the answer that its length does not already say. On the validation split and in
 * cross-validation on the training prompts, scanning whole prompts ranked no better than these
 * windows (within half a point). The cost per prompt is therefore bounded: the same for a 100 KB
 * prompt as for an 8 K one (see {@code FeaturesBenchmark}). A word cut by a window's edge is
 * completed at the head's end and dropped at the tail's start.
 */
public final class LexicalFeatures {

    /**
     * Identifies the feature definitions: the names, their order, the word lists and the rules. A
     * model records the version it was trained with and refuses to load under another. Change it
     * whenever any list or rule here changes.
     */
    public static final String SCHEMA_VERSION = "clairvoyant-lexical-19/1";

    public static final int PROMPT_TOKEN_LEN = 0;
    public static final int HAS_CODE_KEYWORD = 1;
    public static final int HAS_LENGTH_CONSTRAINT = 2;
    public static final int ENDS_WITH_QUESTION = 3;
    public static final int HAS_FORMAT_KEYWORD = 4;
    public static final int CLAUSE_COUNT = 5;
    /** Index of the first one-hot verb column; the columns follow {@link LeadingVerb}'s order. */
    public static final int FIRST_VERB = 6;

    /** Feature names in column order, as Clairvoyant names them. */
    public static final List<String> NAMES = names();

    public static final int COUNT = NAMES.size();

    /** Characters read at a long prompt's start: about 90 words of instruction. */
    public static final int HEAD_WINDOW_CHARS = 512;
    /** Characters read at a long prompt's end: about 45 words, the instruction after pasted material. */
    public static final int TAIL_WINDOW_CHARS = 256;

    /** Programming vocabulary: code questions draw code, explanations and long answers. */
    public static final List<String> CODE_KEYWORDS = List.of(
            "function", "functions", "class", "classes", "method", "methods", "implement", "implementation",
            "algorithm", "algorithms", "code", "coding", "program", "programming", "script", "scripts",
            "snippet", "python", "java", "javascript", "typescript", "golang", "rust", "kotlin", "php",
            "cpp", "csharp", "sql", "regex", "api", "apis", "endpoint", "debug", "debugging", "bug", "bugs",
            "compile", "compiler", "variable", "variables", "array", "arrays", "loop", "loops", "recursion",
            "recursive", "library", "framework", "database", "backend", "frontend", "css", "react",
            "django", "flask", "numpy", "pandas", "docker", "kubernetes", "bash", "git", "github", "def",
            "const", "struct", "lambda", "async", "await", "void", "syntax", "exception", "refactor",
            "unittest", "repository", "npm", "pip", "console", "println", "printf");

    /** Explicit instructions about the answer's length, in either direction. */
    public static final List<String> LENGTH_WORDS = List.of(
            "brief", "briefly", "concise", "concisely", "succinct", "succinctly", "short", "shorter",
            "shortest", "detailed", "elaborate", "thorough", "thoroughly", "comprehensive", "exhaustive",
            "lengthy", "tldr");

    /** Multi-word length instructions. */
    public static final List<String> LENGTH_PHRASES = List.of(
            "in detail", "in depth", "step by step", "at most", "no more than", "no longer than",
            "word limit", "word count", "one liner", "tl dr");

    /** Words that count, before a {@link #LENGTH_UNITS unit}: "two paragraphs", "a few sentences". */
    public static final List<String> COUNT_WORDS = List.of(
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty",
            "fifty", "hundred", "thousand", "single", "few", "couple", "several");

    /** Units of text that, counted, fix an answer's size: "in 3 sentences", "10 ideas". */
    public static final List<String> LENGTH_UNITS = List.of(
            "word", "words", "sentence", "sentences", "paragraph", "paragraphs", "line", "lines", "page",
            "pages", "bullet", "bullets", "character", "characters", "item", "items", "example",
            "examples", "idea", "ideas", "tip", "tips", "step", "steps", "reason", "reasons");

    /** Requests for structured output. */
    public static final List<String> FORMAT_KEYWORDS = List.of(
            "table", "tables", "tabular", "list", "lists", "bullet", "bullets", "bulleted", "numbered",
            "json", "csv", "tsv", "yaml", "xml", "html", "markdown", "latex", "outline", "format",
            "formatted", "formatting", "template", "heading", "headings", "header", "headers", "column",
            "columns", "chart", "diagram", "spreadsheet");

    /** Subordinating conjunctions and relative pronouns: a proxy for a request's complexity. */
    public static final List<String> CLAUSE_WORDS = List.of(
            "after", "although", "because", "before", "if", "once", "since", "that", "though", "unless",
            "until", "when", "whenever", "where", "whereas", "wherever", "whether", "while", "which", "who",
            "whom", "whose");

    /** Opening politeness that is skipped when looking for the leading verb. */
    public static final List<String> COURTESY_WORDS = List.of(
            "please", "kindly", "can", "could", "would", "will", "you", "hi", "hello", "hey");

    /** At most this many courtesy words are skipped before the leading verb. */
    public static final int MAX_COURTESY_WORDS = 4;

    /** The words that name a {@link LeadingVerb} other than {@code OTHER}, in the enum's order. */
    public static final List<String> VERBS = List.of(
            "what", "write", "explain", "summarize", "how", "list", "implement", "compare", "describe",
            "generate", "why", "define");

    private static final String BRITISH_SUMMARIZE = "summarise";

    private static final KeywordTable TABLE = table();

    /** Scratch space for the window being scanned: one per thread, sized for the head window. */
    private static final ThreadLocal<char[]> BUFFER =
            ThreadLocal.withInitial(() -> new char[Math.max(HEAD_WINDOW_CHARS + KeywordTable.MAX_WORD_LENGTH + 1,
                    HEAD_WINDOW_CHARS + TAIL_WINDOW_CHARS)]);

    /** Per ASCII character: its lower case if it is part of a word (a letter or digit), else 0. */
    private static final char[] ASCII_LOWER = asciiLowerCase();

    private LexicalFeatures() {}

    /** The features of a prompt, in the order of {@link #NAMES}. */
    public static float[] of(Prompt prompt) {
        float[] features = new float[COUNT];
        extract(prompt.text(), features);
        return features;
    }

    /** Writes the features of {@code text} into {@code features[0, COUNT)}, overwriting them. */
    public static void extract(String text, float[] features) {
        if (features.length < COUNT) {
            throw new IllegalArgumentException("features: length " + features.length + " (expected: >= " + COUNT + ")");
        }
        Scan scan = new Scan();
        char[] buffer = BUFFER.get();
        int length = text.length();
        if (headEnd(text) == length) {
            scanWords(buffer, copy(text, 0, length, buffer), length, scan);
        } else {
            // The head's last word may run past the window: copy enough to tell a keyword from a longer word.
            scanWords(buffer, copy(text, 0, HEAD_WINDOW_CHARS + KeywordTable.MAX_WORD_LENGTH + 1, buffer), HEAD_WINDOW_CHARS, scan);
            scan.startWindow();
            int tailLength = copy(text, tailStart(text), length, buffer);
            scanWords(buffer, tailLength, tailLength, scan);
        }
        features[PROMPT_TOKEN_LEN] = PromptTokens.approximate(text);
        features[HAS_CODE_KEYWORD] = (scan.flags & KeywordTable.CODE) != 0 ? 1 : 0;
        features[HAS_LENGTH_CONSTRAINT] = (scan.flags & KeywordTable.LENGTH) != 0 ? 1 : 0;
        features[ENDS_WITH_QUESTION] = endsWithQuestion(text) ? 1 : 0;
        features[HAS_FORMAT_KEYWORD] = (scan.flags & KeywordTable.FORMAT) != 0 ? 1 : 0;
        features[CLAUSE_COUNT] = scan.clauses;
        LeadingVerb verb = scan.verb == null ? LeadingVerb.OTHER : scan.verb;
        for (LeadingVerb each : LeadingVerb.values()) {
            features[FIRST_VERB + each.ordinal()] = each == verb ? 1 : 0;
        }
    }

    /** Where the head window of {@code text} ends: its end, where the two windows would cover all of it. */
    static int headEnd(String text) {
        int length = text.length();
        return length <= HEAD_WINDOW_CHARS + TAIL_WINDOW_CHARS ? length : HEAD_WINDOW_CHARS;
    }

    /**
     * Where the tail window of {@code text} starts, past a word its edge cuts; the text's end where the head window
     * holds all of it.
     */
    static int tailStart(String text) {
        int length = text.length();
        if (headEnd(text) == length) {
            return length;
        }
        int start = length - TAIL_WINDOW_CHARS;
        while (start < length && isWordChar(text.charAt(start - 1)) && isWordChar(text.charAt(start))) {
            start++;
        }
        return start;
    }

    /** What one pass over the windows has found so far. */
    private static final class Scan {
        int flags;
        int clauses;
        LeadingVerb verb;
        int courtesySkipped;
        // Phrase state: ids of the previous two words (-1 for a word the table does not know).
        int previousId = -1;
        int beforePreviousId = -1;
        boolean previousIsCount;

        void startWindow() {
            previousId = -1;
            beforePreviousId = -1;
            previousIsCount = false;
        }

        void word(KeywordTable.Entry entry, boolean digits) {
            boolean count = digits;
            int id = -1;
            if (entry != null) {
                id = entry.id;
                int wordFlags = entry.flags;
                flags |= wordFlags;
                if ((wordFlags & KeywordTable.CLAUSE) != 0) {
                    clauses++;
                }
                if ((wordFlags & KeywordTable.UNIT) != 0 && previousIsCount) {
                    flags |= KeywordTable.LENGTH;
                }
                count |= (wordFlags & KeywordTable.NUMBER) != 0;
                for (KeywordTable.Phrase phrase : entry.phrasesEndingHere) {
                    int[] before = phrase.before();
                    boolean matches = before.length == 1
                            ? before[0] == previousId
                            : before[0] == beforePreviousId && before[1] == previousId;
                    if (matches) {
                        flags |= phrase.flags();
                    }
                }
            }
            if (verb == null) {
                if (entry != null && (entry.flags & KeywordTable.COURTESY) != 0 && courtesySkipped < MAX_COURTESY_WORDS) {
                    courtesySkipped++;
                } else {
                    verb = entry != null && entry.verb != null ? entry.verb : LeadingVerb.OTHER;
                }
            }
            beforePreviousId = previousId;
            previousId = id;
            previousIsCount = count;
        }
    }

    /** Copies {@code text[from, to)} to the start of {@code buffer} and returns how many chars that is. */
    private static int copy(String text, int from, int to, char[] buffer) {
        text.getChars(from, to, buffer, 0);
        return to - from;
    }

    /**
     * Reads the words that start in {@code chars[0, to)}, where {@code chars[0, length)} holds the
     * text: the last word is completed past {@code to} only as far as a keyword could reach, since
     * a longer word is never looked up.
     */
    private static void scanWords(char[] chars, int length, int to, Scan scan) {
        int i = 0;
        while (i < to) {
            char c = chars[i];
            if (!isWordChar(c)) {
                i++;
                continue;
            }
            int start = i;
            int hash = 0;
            boolean ascii = true;
            boolean digits = true;
            int limit = Math.min(length, Math.max(to, start + KeywordTable.MAX_WORD_LENGTH + 1));
            while (i < limit) {
                c = chars[i];
                if (c < 128) {
                    char lower = ASCII_LOWER[c];
                    if (lower == 0) {
                        break;
                    }
                    digits &= c <= '9';
                    hash = KeywordTable.hashStep(hash, lower);
                } else if (Character.isLetterOrDigit(c)) {
                    ascii = false;
                    digits = false;
                } else {
                    break;
                }
                i++;
            }
            if (i == limit && i < length && isWordChar(chars[i])) {
                // Cut off: longer than any keyword. Skip the rest of it, within the window.
                while (i < to && isWordChar(chars[i])) {
                    i++;
                }
                scan.word(null, false);
                continue;
            }
            int wordLength = i - start;
            KeywordTable.Entry entry = ascii && wordLength <= KeywordTable.MAX_WORD_LENGTH
                    ? TABLE.find(chars, start, wordLength, hash) : null;
            scan.word(entry, digits);
        }
    }

    private static boolean isWordChar(char c) {
        return c < 128 ? ASCII_LOWER[c] != 0 : Character.isLetterOrDigit(c);
    }

    private static boolean endsWithQuestion(String text) {
        for (int i = text.length() - 1; i >= 0; i--) {
            char c = text.charAt(i);
            if (!Character.isWhitespace(c) && !Character.isSpaceChar(c)) {
                return c == '?' || c == '\uFF1F' || c == '\u061F';
            }
        }
        return false;
    }

    private static List<String> names() {
        List<String> names = new ArrayList<>(List.of("prompt_token_len", "has_code_keyword", "has_length_constraint",
                "ends_with_question", "has_format_keyword", "clause_count"));
        for (LeadingVerb verb : LeadingVerb.values()) {
            names.add(verb.featureName());
        }
        return Collections.unmodifiableList(names);
    }

    private static KeywordTable table() {
        KeywordTable.Builder builder = new KeywordTable.Builder()
                .words(CODE_KEYWORDS, KeywordTable.CODE)
                .words(LENGTH_WORDS, KeywordTable.LENGTH)
                .phrases(LENGTH_PHRASES, KeywordTable.LENGTH)
                .words(COUNT_WORDS, KeywordTable.NUMBER)
                .words(LENGTH_UNITS, KeywordTable.UNIT)
                .words(FORMAT_KEYWORDS, KeywordTable.FORMAT)
                .words(CLAUSE_WORDS, KeywordTable.CLAUSE)
                .words(COURTESY_WORDS, KeywordTable.COURTESY);
        LeadingVerb[] verbs = LeadingVerb.values();
        for (int i = 0; i < VERBS.size(); i++) {
            builder.verb(VERBS.get(i), verbs[i]);
        }
        builder.verb(BRITISH_SUMMARIZE, LeadingVerb.SUMMARIZE);
        return builder.build();
    }

    private static char[] asciiLowerCase() {
        char[] lower = new char[128];
        for (char c = 'a'; c <= 'z'; c++) {
            lower[c] = c;
            lower[Character.toUpperCase(c)] = c;
        }
        for (char c = '0'; c <= '9'; c++) {
            lower[c] = c;
        }
        return lower;
    }
}
