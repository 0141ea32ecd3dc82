#pragma once
// Model headers with vocabularies shaped like published ones, of any size: token
// lengths grow with rank and level off (as GPT-2's and Llama 3's do), each merge
// "a b" spells a token, and a token gets more merges the longer it is (Llama 3
// has 2.18 merges per token, GPT-2 and Qwen2 about one). For the remote read
// budget (tests/header_budget_test.cpp, bench/remote-vocab.sh): no tokenizer
// ratio of the estimator matches them by construction.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf_writer.hpp"

namespace modelcat::kit {

struct VocabShape {
    std::string name;         // file stem: "bpe-248k"
    uint64_t tokens;          // vocabulary size, >= 1,024
    double merges_per_token;  // 0: a SentencePiece vocabulary (scores, no merges)
    std::string pre;          // tokenizer.ggml.pre
};

// The tokenizer.* keys of `shape`.
void add_ranked_vocab(GgufWriter& w, const VocabShape& shape);
// A 32-block Llama-like model around that vocabulary (291 tensor infos, Q4_K, data sparse).
GgufWriter ranked_vocab_model(const VocabShape& shape);

// The bench's sizes: 32K to 262K tokens, a Llama-3-like 128K, and a header over 16 MiB.
std::vector<VocabShape> vocab_shapes();
// Writes each shape's model into `dir` as NAME.gguf (sparse); returns their paths.
std::vector<std::filesystem::path> write_vocab_models(const std::filesystem::path& dir);

}  // namespace modelcat::kit
