package dev.triage.model.data;

/**
 * The prompt/answer collections under {@code shared/data/prompt_response}, with where each came from
 * and under which licence: a model trained on them carries this provenance in its metadata.
 */
public enum PromptSource {
    ALPACA_EVAL("alpaca_eval", "alpaca_eval_outputs",
            "tatsu-lab/alpaca_eval @ cd543a14, results/<model>/model_outputs.json (805 prompts x 35 models)",
            "code Apache-2.0; data CC-BY-NC-4.0"),
    ARENA_HARD_V01("arena_hard_v0.1", "arena_hard_auto/v0.1",
            "lmarena/arena-hard-auto, data/arena-hard-v0.1 (500 questions x 3 models)", "Apache-2.0"),
    ARENA_BENCH_V1("arena_bench_v1", "arena_hard_auto/arena-bench-v1",
            "lmarena/arena-hard-auto @ 4a705dd6, data/arena-bench-v1 (300 questions x 17 models)", "Apache-2.0"),
    SHAREGPT("sharegpt", "sharegpt_1k_marugannwg",
            "Marugannwg/ShareGPT92k_user_linguistic_mining @ 8186064b, sampled_enriched_data "
                    + "(1,000 ShareGPT V3 conversations, every human->gpt turn)",
            "repo MIT; ShareGPT content has no clear licence"),
    CURATED("curated", "curated_small",
            "sahil280114/codealpaca @ 2f78ddc5 (code_alpaca_2k.json); hiyouga/LLaMA-Factory @ ff6d4d12 "
                    + "(alpaca_en_demo.json); lm-sys/FastChat @ 04a1074d (alpaca_data_cleaned_1000.json); "
                    + "lm-sys/FastChat @ 0e6d3e4b (mt_bench questions with GPT-4 reference answers, first turn)",
            "CC-BY-NC-4.0 (Alpaca, CodeAlpaca, GPT-4-LLM); Apache-2.0 (MT-Bench)"),
    /** Not in the shared data: a deployment's own answers, read by {@link FeedbackAnswers}. */
    FEEDBACK("feedback", "", "this deployment's backend, as Triage's --feedback-log wrote its answers",
            "the deployment's own data");

    private final String id;
    private final String folder;
    private final String provenance;
    private final String licence;

    PromptSource(String id, String folder, String provenance, String licence) {
        this.id = id;
        this.folder = folder;
        this.provenance = provenance;
        this.licence = licence;
    }

    /** Short name used in reports and metadata. */
    public String id() {
        return id;
    }

    /** Whether the source is a folder of the shared data, rather than a deployment's own log. */
    public boolean shared() {
        return this != FEEDBACK;
    }

    /** Folder under {@code prompt_response/}; empty for a source not in the shared data. */
    public String folder() {
        return folder;
    }

    public String provenance() {
        return provenance;
    }

    public String licence() {
        return licence;
    }
}
