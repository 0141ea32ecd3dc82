#pragma once
// A small Llama-3-style checkpoint with real pseudo-random BF16 values (two
// shards, index, config.json with llama3 rope scaling, GQA, and the tokenizer
// files of kit/llama_tokenizer.hpp) and its GGUF conversions written the way
// llama.cpp's convert_hf_to_gguf.py writes them: names mapped, ne = the shape
// reversed, q/k rows permuted (LlamaModel.permute), 1-D tensors widened to F32,
// rope_freqs.weight generated, the hyper-parameters and tokenizer as its
// metadata. Defects can be planted, each in a known tensor or key, for the
// audit's negative tests.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace modelcat::kit {

struct LlamaShape {
    uint32_t layers = 3, hidden = 256, heads = 8, kv_heads = 2, ffn = 512, vocab = 512;
    bool tied = false;  // tie_word_embeddings: no lm_head.weight, no output.weight
    std::string source_dtype = "BF16";  // or "F32": a BF16 conversion then rounds to nearest even
    uint64_t seed = 1;
    uint32_t head_dim() const { return hidden / heads; }
};

enum class ConversionDefect {
    none,
    changed_element,    // blk.1.attn_v.weight: source row 5, column 7 altered
    unpermuted_q,       // blk.0.attn_q.weight stored in the source's row order
    unpermuted_k,       // blk.0.attn_k.weight likewise
    swapped_layers,     // blk.0.ffn_up.weight and blk.1.ffn_up.weight hold each other's values
    missing_tensor,     // blk.1.ffn_down.weight left out
    unscaled_rope,      // rope_freqs.weight without the llama3 scaling (all factors 1)
    transposed,         // blk.0.ffn_gate.weight stored transposed (ne = the source shape)
    transposed_square,  // blk.0.attn_output.weight stored transposed (same ne)
};

// Conversion bugs people hit in the metadata, each in the key it names.
enum class MetadataDefect {
    none,
    wrong_eos,             // tokenizer.ggml.eos_token_id <|end_of_text|> where tokenizer_config.json says <|eot_id|>
    missing_eos,           // no tokenizer.ggml.eos_token_id
    missing_chat_template, // no tokenizer.chat_template
    stale_chat_template,   // an earlier template (no generation prompt)
    lost_rope_scaling,     // no rope_freqs.weight: the llama3 rope_scaling block lost
    wrong_context_length,  // llama.context_length 8192 (the original context) instead of 131072
    rounded_rms_eps,       // llama.attention.layer_norm_rms_epsilon 1e-05 rounded to BF16 precision
    vocab_without_added,   // tokens, token_type and llama.vocab_size without the added tokens
    wrong_pre_tokenizer,   // tokenizer.ggml.pre "qwen2" for Llama 3's tokenizer
};

struct ConversionOptions {
    uint32_t matrix_type = 30;  // ggml type of 2-D tensors: BF16 (30), F16 (1), Q8_0 (8), Q4_K (12); others get zero blocks
    ConversionDefect defect = ConversionDefect::none;
    bool random_blocks = false;  // others get kit::random_blocks instead: for timing decoders, the audit fails
    MetadataDefect metadata = MetadataDefect::none;
};

// The tensor each defect touches (GGUF name), "" for none.
std::string defect_tensor(ConversionDefect d);

// Writes model-00001-of-00002.safetensors, model-00002-of-00002.safetensors,
// model.safetensors.index.json, config.json, generation_config.json, tokenizer.json
// and tokenizer_config.json into `dir`; returns their paths.
std::vector<std::filesystem::path> write_llama_checkpoint(const std::filesystem::path& dir, const LlamaShape& shape);

// Writes the GGUF conversion of that checkpoint to `path`.
void write_llama_conversion(const std::filesystem::path& path, const LlamaShape& shape, const ConversionOptions& options);

}  // namespace modelcat::kit
