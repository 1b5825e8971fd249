package dev.triage.model;

import dev.triage.features.Prompt;
import dev.triage.features.PromptTokens;

/**
 * The {@code baseline} estimator: expected answer tokens grow linearly with the prompt's length,
 * {@code 128 + 2 × prompt tokens}. Longer prompts (pasted documents, multi-part questions, code to
 * review) tend to draw longer answers; the ordering is what schedules, and the constants only put
 * the estimate on a plausible token scale for HRRN and the starvation timeout.
 */
public final class BaselineEstimator implements JobEstimator<Prompt> {

    public static final String NAME = "baseline";

    static final double INTERCEPT_TOKENS = 128;
    static final double TOKENS_PER_PROMPT_TOKEN = 2;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        return Estimate.ofTokens(INTERCEPT_TOKENS + TOKENS_PER_PROMPT_TOKEN * PromptTokens.approximate(prompt.text()));
    }
}
