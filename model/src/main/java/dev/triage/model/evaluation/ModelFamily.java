package dev.triage.model.evaluation;

import java.util.List;
import java.util.Locale;

/**
 * The vendor family of an answering model, as its source names it ({@code Meta-Llama-3-70B-Instruct}
 * is {@code llama}, {@code gpt4_1106_preview} is {@code gpt}), so that figures can be read per
 * family: a scheduler is deployed in front of one model, and its family is what a user knows.
 */
public final class ModelFamily {

    /** Families in the order they are looked for: the first whose marker the name contains. */
    private static final List<String[]> MARKERS = List.of(
            new String[] {"gpt", "gpt"}, new String[] {"chatgpt", "gpt"}, new String[] {"claude", "claude"},
            new String[] {"mistral", "mistral"}, new String[] {"mixtral", "mistral"}, new String[] {"llama", "llama"},
            new String[] {"vicuna", "llama"}, new String[] {"qwen", "qwen"}, new String[] {"gemma", "gemma"},
            new String[] {"deepseek", "deepseek"}, new String[] {"yi-", "yi"}, new String[] {"palm", "palm"});

    private ModelFamily() {}

    /** The family of {@code answeringModel}, or {@code other}. */
    public static String of(String answeringModel) {
        String name = answeringModel.toLowerCase(Locale.ROOT);
        for (String[] marker : MARKERS) {
            if (name.contains(marker[0])) {
                return marker[1];
            }
        }
        return "other";
    }
}
