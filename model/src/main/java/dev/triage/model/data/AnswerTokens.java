package dev.triage.model.data;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;

/**
 * Counts an answer's length in tokens with OpenAI's {@code cl100k_base} byte-pair encoding (the
 * tokenizer of GPT-3.5 and GPT-4, via jtokkit): a real tokenizer for the training labels, where the
 * prompt side uses the cheap {@link dev.triage.features.PromptTokens} approximation. Special-token
 * text such as {@code <|endoftext|>} inside an answer is counted as ordinary text. Thread-safe.
 */
public final class AnswerTokens {

    /** Names the tokenizer in model metadata. */
    public static final String TOKENIZER = "cl100k_base (com.knuddels:jtokkit)";

    private static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);

    private AnswerTokens() {}

    public static int count(String answer) {
        return CL100K.countTokensOrdinary(answer);
    }
}
