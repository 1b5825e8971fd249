package dev.triage.model.data;

import java.util.Map;
import java.util.TreeMap;

/**
 * The answering models whose answer lengths the shipped classifier predicts: contemporary chat
 * assistants as people deploy them behind Ollama, llama.cpp or vLLM and their hosted peers (Llama 2
 * and 3 chat, Mistral and Mixtral, Qwen, Gemma, DeepSeek, DBRX, Vicuna, GPT-3.5/4/4o, Claude, ...).
 *
 * <p>Why a family and not one model: the same prompt draws very different lengths from different
 * models (alpaca-7b answers 92% of AlpacaEval's prompts in under 200 tokens, internlm2-20b-ExPO
 * answers 55% in over 800), but the <em>order</em> of prompts by answer length agrees across chat
 * models (on AlpacaEval, each mainstream model's per-prompt lengths have a Spearman correlation of
 * about 0.8 to 0.95 with the family median). A scheduler needs that order, so the classifier learns
 * from every family member's answers at once: for a prompt, P(long) is in effect the share of the
 * family that answers it at length ({@link LabeledPrompt}).
 *
 * <p>Left out, each for a reason that is about what the model is, not about how well it fits:
 * {@link #EXCLUDED}. That leaves the curated instruction sets ({@link PromptSource#CURATED}) out of the
 * family and of evaluation; only the ranker may learn from the order of their answers
 * ({@link PromptCorpus#instructionSetPrompts}).
 */
public final class TargetModels {

    private static final String INSTRUCTION_SET = "answers generated to build an instruction-tuning set under a "
            + "template that asks for short answers (Clairvoyant §4.2: such sets have almost no long answers); "
            + "not how a chat model answers a user";

    /** Answering models that are not the kind of chat model Triage schedules for, with why. */
    public static final Map<String, String> EXCLUDED = new TreeMap<>(Map.ofEntries(
            Map.entry(PromptResponseLoader.CODEALPACA_MODEL, INSTRUCTION_SET),
            Map.entry(PromptResponseLoader.ALPACA_GPT4_MODEL, INSTRUCTION_SET),
            Map.entry(PromptResponseLoader.ALPACA_CLEANED_MODEL, INSTRUCTION_SET),
            Map.entry(PromptResponseLoader.MT_BENCH_MODEL, "reference answers written for a judge to compare against"),
            Map.entry("alpaca-7b", "2023 research model tuned on terse Alpaca answers; nobody serves it as a chat assistant"),
            Map.entry("llama-13b", "base model, not instruction-tuned: its answers are continuations, not replies"),
            Map.entry("gpt4_1106_preview_concise",
                    "GPT-4 Turbo told by its system prompt to be concise: a prompt variant, not a model"),
            Map.entry("gpt4_1106_preview_verbose",
                    "GPT-4 Turbo told by its system prompt to be verbose: a prompt variant, not a model"),
            Map.entry("SelfMoA_gemma-2-9b-it-WPO-HB", "mixture-of-agents pipeline that merges several sampled answers")));

    private TargetModels() {}

    public static boolean targets(String answeringModel) {
        return !EXCLUDED.containsKey(answeringModel);
    }
}
