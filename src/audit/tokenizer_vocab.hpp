#pragma once
// The vocabulary llama.cpp's converter would write from a checkpoint's tokenizer
// files, by the path its model class takes (LlamaModel.set_vocab, Qwen2Model.set_vocab):
// tokenizer.model (SentencePiece, _create_vocab_sentencepiece), else tokenizer.json as
// gguf-py's LlamaHfVocab (a byte-fallback BPE, llama and mistral only), else as GPT-2
// byte-level BPE (get_vocab_base: Llama 3, Qwen2).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audit/metadata_values.hpp"

namespace modelcat::audit {

// One entry of tokenizer.json's added_tokens.
struct AddedToken {
    int64_t id;
    std::string content;
    bool special;
};
std::vector<AddedToken> added_tokens(simdjson::dom::object tokenizer);

struct ExpectedVocab {
    std::string source;        // where the token list comes from: tokenizer.model, tokenizer.json:model.vocab+added_tokens
    std::string model;         // tokenizer.ggml.model: llama or gpt2
    std::string model_source;  // what that was read from: tokenizer.model, tokenizer.json:model.type
    bool sentencepiece_like = false;  // tokenizer.ggml.pre "default"; SpecialVocab's n_vocab set
    std::vector<std::string> tokens;
    std::vector<int32_t> types;
    std::optional<std::vector<float>> scores;               // SentencePiece only
    std::optional<std::vector<std::string>> merges;         // GPT-2 BPE only: tokenizer.json:model.merges
    std::string note;          // what the converter does here that the audit takes as given
};

// The expected vocabulary, or the reason there is none (no tokenizer file, unreadable, unknown kind).
struct VocabOrWhy {
    std::optional<ExpectedVocab> vocab;
    std::string why;
};
VocabOrWhy expected_vocab(const std::string& architecture, const CheckpointJson& c);

}  // namespace modelcat::audit
