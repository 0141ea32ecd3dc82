#include "audit/converter_mapping.hpp"

#include <algorithm>
#include <array>

namespace modelcat::audit {

const std::vector<HparamRule>& hparam_rules() {
    static const std::vector<HparamRule> kRules{
        {"block_count", {"n_layers", "num_hidden_layers", "n_layer", "num_layers"}, GgufKind::u32},
        {"context_length", {"max_position_embeddings", "n_ctx", "n_positions", "max_length", "max_sequence_length", "model_max_length"},
         GgufKind::u32, true},
        {"embedding_length", {"hidden_size", "n_embd", "dim"}, GgufKind::u32},
        {"feed_forward_length", {"prefix_dense_intermediate_size", "dense_intermediate_size", "intermediate_size", "n_inner", "hidden_dim"},
         GgufKind::u32},
        {"attention.head_count", {"num_attention_heads", "n_head", "n_heads"}, GgufKind::u32},
        {"attention.head_count_kv", {"num_key_value_heads", "n_kv_heads"}, GgufKind::u32},
        {"attention.layer_norm_rms_epsilon", {"rms_norm_eps", "norm_eps"}, GgufKind::f32},
        {"attention.layer_norm_epsilon", {"layer_norm_eps", "layer_norm_epsilon", "norm_epsilon"}, GgufKind::f32},
        {"expert_count", {"num_local_experts", "num_experts", "n_routed_experts"}, GgufKind::u32},
        {"expert_used_count", {"num_experts_per_tok", "num_experts_per_token", "top_k_experts"}, GgufKind::u32},
        {"attention.key_length", {"head_dim"}, GgufKind::u32},
        {"attention.value_length", {"head_dim"}, GgufKind::u32},
        {"vocab_size", {"vocab_size"}, GgufKind::u32, false, true},
    };
    return kRules;
}

const std::vector<std::string_view>& rope_theta_candidates() {
    static const std::vector<std::string_view> kKeys{"global_rope_theta", "rope_global_theta", "rope_theta_global",
                                                     "rope_theta", "rotary_emb_base"};
    return kKeys;
}

bool is_llama_model(std::string_view arch) { return arch == "llama" || arch == "mistral"; }
bool is_supported_architecture(std::string_view arch) { return is_llama_model(arch) || arch == "qwen2"; }

std::span<const SpecialTokenKey> special_token_keys() {
    static constexpr std::array<SpecialTokenKey, 9> kKeys{{
        {"bos", "tokenizer.ggml.bos_token_id", false},
        {"eos", "tokenizer.ggml.eos_token_id", true},
        {"unk", "tokenizer.ggml.unknown_token_id", false},
        {"sep", "tokenizer.ggml.seperator_token_id", false},  // sic: gguf-py's spelling
        {"pad", "tokenizer.ggml.padding_token_id", false},
        {"cls", "tokenizer.ggml.cls_token_id", false},
        {"mask", "tokenizer.ggml.mask_token_id", false},
        {"eot", "tokenizer.ggml.eot_token_id", true},  // only when TemplateProcessing moved the EOS (SpecialVocab)
        {"eom", "tokenizer.ggml.eom_token_id", true},
    }};
    return kKeys;
}

const std::vector<PreTokenizerRule>& pre_tokenizer_rules() {
    static const std::vector<PreTokenizerRule> kRules{
        {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"},
         R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {{"smaug-bpe"},  // "same as llama3"
         R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2"},
         R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {{"qwen35"},
         R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {{"tekken"},
         R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        // No Split: ByteLevel's own GPT-2 regex (use_regex true).
        {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert"},
         "ByteLevel"},
    };
    return kRules;
}

const PreTokenizerRule* pre_tokenizer_named(std::string_view name) {
    for (const auto& r : pre_tokenizer_rules())
        if (std::find(r.names.begin(), r.names.end(), name) != r.names.end()) return &r;
    return nullptr;
}

const PreTokenizerRule* pre_tokenizer_splitting(std::string_view regex) {
    for (const auto& r : pre_tokenizer_rules())
        if (r.regex == regex) return &r;
    return nullptr;
}

bool is_eog_text(std::string_view t) {
    static constexpr std::array<std::string_view, 22> kTexts{
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
        "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
        "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~[",
    };
    return std::find(kTexts.begin(), kTexts.end(), t) != kTexts.end();
}

bool looks_special(std::string_view t) {
    if (t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]") return true;
    if (t.starts_with("<|") && t.ends_with("|>")) return true;
    if (t.starts_with("<｜") && t.ends_with("｜>")) return true;
    return t.starts_with("<unused") && t.ends_with(">");
}

}  // namespace modelcat::audit
