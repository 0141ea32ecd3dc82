#pragma once
// How llama.cpp's converter maps a checkpoint's files to GGUF keys, as data, for
// the architectures the audit supports (llama, mistral, qwen2), read in llama.cpp
// 34af94cd9ab277632e27caeec2d41de2fd091b31: conversion/base.py (TextModel.set_gguf_parameters,
// find_hparam), conversion/llama.py (LlamaModel), conversion/qwen.py (Qwen2Model),
// gguf-py/gguf/vocab.py (SpecialVocab), gguf-py/gguf/gguf_writer.py (value types),
// and src/llama-vocab.cpp (pre-tokenizer regexes, end-of-generation token texts).
#include <span>
#include <string_view>
#include <vector>

namespace modelcat::audit {

enum class GgufKind { u32, f32 };  // add_uint32 / add_float32

// One hyper-parameter: `{arch}.key` written from the first config.json key present
// (find_hparam's order; config.json's text_config merged over its root first).
struct HparamRule {
    std::string_view key;
    std::vector<std::string_view> candidates;
    GgufKind kind;
    bool critical = false;    // a wrong value fails the audit
    bool llama_only = false;  // LlamaModel.set_gguf_parameters, not TextModel's (qwen2 has none)
};
const std::vector<HparamRule>& hparam_rules();

// rope_theta's candidates (TextModel.__init__), mirrored into rope_parameters when absent there.
const std::vector<std::string_view>& rope_theta_candidates();

// The converter's architecture classes: general.architecture -> whether LlamaModel's rules apply.
bool is_supported_architecture(std::string_view arch);
bool is_llama_model(std::string_view arch);  // llama, mistral: vocab_size, rope.dimension_count, rope_freqs

// SpecialVocab's special token types and the GGUF key each is written to (gguf_writer add_*_token_id).
struct SpecialTokenKey {
    std::string_view type;  // bos, eos ... as in tokenizer_config.json's `{type}_token`
    std::string_view key;
    bool critical;          // eos, eot, eom: a wrong end-of-generation id fails
};
std::span<const SpecialTokenKey> special_token_keys();

// A pre-tokenizer llama.cpp implements, by the GGUF names that select it and the
// Split regex of tokenizer.json it was adapted from ("original regex from tokenizer.json").
struct PreTokenizerRule {
    std::vector<std::string_view> names;
    std::string_view regex;
};
const std::vector<PreTokenizerRule>& pre_tokenizer_rules();
const PreTokenizerRule* pre_tokenizer_named(std::string_view name);
const PreTokenizerRule* pre_tokenizer_splitting(std::string_view regex);

// Token texts llama.cpp's vocabulary loader adds to the end-of-generation set (llama-vocab.cpp, "special_eog_ids").
bool is_eog_text(std::string_view token);

// convert_hf_to_gguf's TextModel.does_token_look_special: <|...|>, <｜...｜>, <unused...>, <pad>, <mask> ...
bool looks_special(std::string_view token);

}  // namespace modelcat::audit
