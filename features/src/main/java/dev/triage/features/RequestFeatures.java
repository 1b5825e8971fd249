package dev.triage.features;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Everything a chat request says about its answer's length that costs microseconds to read: the
 * prompt's length in tokens (log), Clairvoyant's lexical features of its text
 * ({@link LexicalFeatures}), the shape of the conversation (user turns, system prompt, the last
 * turn's share of it) and two cues of the text ({@link PromptCues}: the words it asks for, whether it
 * poses a mathematical problem). The length estimators that read more than the lexical features (the
 * {@code lexical} tree ensemble, the {@code ranker}'s head beside its embedding) take this vector,
 * in training and in serving alike, so the two cannot drift apart.
 *
 * <pre>{@code
 * float[] features = RequestFeatures.of(ChatBody.prompt(body));
 * }</pre>
 *
 * <p>Lengths enter as {@code ln(1 + tokens)}: answers grow with a prompt's length over orders of
 * magnitude (a one-line question, a pasted report), and a learned model generalises better on a
 * scale where a doubling is the same step everywhere.
 */
public final class RequestFeatures {

    /**
     * Identifies the definitions: names, order, rules, and the lexical schema they build on. A model
     * records the version it was trained with and refuses to load under another.
     */
    public static final String SCHEMA_VERSION = "request-25/1 on " + LexicalFeatures.SCHEMA_VERSION;

    /** {@code ln(1 + prompt tokens)} of the answered text, in the lexical features' first column. */
    public static final int LOG_PROMPT_TOKENS = LexicalFeatures.PROMPT_TOKEN_LEN;
    /**
     * {@code ln(1 + tokens)} of the conversation's user and assistant messages. The system prompt is
     * left out here and in {@link #LAST_TURN_SHARE}: it is mostly a client's fixed preamble, which
     * says little about one answer, and the training data has none, so counting it made a first turn
     * sent with one look like a late turn of a long conversation.
     */
    public static final int LOG_CONVERSATION_TOKENS = LexicalFeatures.COUNT;
    /** User turns, this one included. */
    public static final int USER_TURNS = LexicalFeatures.COUNT + 1;
    /** {@code ln(1 + tokens)} of the system prompt. */
    public static final int LOG_SYSTEM_TOKENS = LexicalFeatures.COUNT + 2;
    /** The answered text's share of the characters of the conversation's user and assistant messages. */
    public static final int LAST_TURN_SHARE = LexicalFeatures.COUNT + 3;
    /** {@code ln(1 + words)} the text asks for ({@link PromptCues#requestedWords}); 0 where it names none. */
    public static final int LOG_REQUESTED_WORDS = LexicalFeatures.COUNT + 4;
    /** 1 when the text poses a mathematical problem ({@link PromptCues#posesMath}). */
    public static final int POSES_MATH = LexicalFeatures.COUNT + 5;

    public static final List<String> NAMES = names();

    public static final int COUNT = NAMES.size();

    /** Scratch space for the lexical features: one per thread. */
    private static final ThreadLocal<float[]> LEXICAL = ThreadLocal.withInitial(() -> new float[LexicalFeatures.COUNT]);

    private RequestFeatures() {}

    /** The features of a request, in the order of {@link #NAMES}. */
    public static float[] of(Prompt prompt) {
        float[] features = new float[COUNT];
        extract(prompt, features, 0);
        return features;
    }

    /** Writes the features of {@code prompt} into {@code features[offset, offset + COUNT)}. */
    public static void extract(Prompt prompt, float[] features, int offset) {
        float[] lexical = LEXICAL.get();
        LexicalFeatures.extract(prompt.text(), lexical);
        System.arraycopy(lexical, 0, features, offset, LexicalFeatures.COUNT);
        features[offset + LOG_PROMPT_TOKENS] = logTokens(prompt.text().length());
        features[offset + LOG_CONVERSATION_TOKENS] = logTokens(prompt.conversationChars() - prompt.systemChars());
        features[offset + USER_TURNS] = prompt.userTurns();
        features[offset + LOG_SYSTEM_TOKENS] = logTokens(prompt.systemChars());
        features[offset + LAST_TURN_SHARE] = (float) prompt.lastTurnShare();
        features[offset + LOG_REQUESTED_WORDS] = (float) Math.log1p(PromptCues.requestedWords(prompt.text()));
        features[offset + POSES_MATH] = PromptCues.posesMath(prompt.text()) ? 1 : 0;
    }

    /** {@code ln(1 + tokens)} of a text of {@code chars} characters. */
    private static float logTokens(int chars) {
        return (float) Math.log1p(PromptTokens.ofChars(chars));
    }

    private static List<String> names() {
        List<String> names = new ArrayList<>(LexicalFeatures.NAMES);
        names.set(LOG_PROMPT_TOKENS, "log_prompt_tokens");
        names.addAll(List.of("log_conversation_tokens", "user_turns", "log_system_tokens", "last_turn_share",
                "log_requested_words", "poses_math"));
        return Collections.unmodifiableList(names);
    }
}
