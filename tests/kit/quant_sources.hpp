#pragma once
// Small BF16 source models of the architectures llama-quantize's type choice
// tells apart (dense llama at 28, 32 and 80 layers, tied embeddings, qwen2,
// qwen3, gemma, gemma3, falcon, an 8-expert mixtral and a 16-expert qwen3moe,
// row lengths that do not divide into 256- or 32-blocks), with the tensor names
// and shapes llama.cpp's loader expects, and a uniform importance matrix for
// each: the inputs from which tests/llama-quantize/ was made by hand.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace modelcat::kit {

struct QuantSource {
    std::string name;          // file stem: "llama-32L"
    std::string architecture;  // general.architecture
    uint32_t layers, hidden, heads, kv_heads, ffn, vocab;
    uint32_t experts = 0, expert_ffn = 0;  // experts > 0: ffn_*_exps replace the dense FFN
    bool tied = false;                     // no output.weight: the token embedding doubles as it
};

// The models, in the order tests/llama-quantize/PROVENANCE.md lists them.
std::span<const QuantSource> quant_sources();

// The BF16 GGUF (1-D tensors F32), values a deterministic function of the tensor's
// name and index; general.file_type 32 as convert_hf_to_gguf --outtype bf16 writes.
void write_quant_source(const std::filesystem::path& path, const QuantSource& m);

// llama-imatrix's legacy .dat layout: every quantizable matrix (output and
// token_embd too) with importance 1 for each column (and expert), one call,
// then the chunk count and a dataset name. Type choice never looks at the values.
void write_uniform_imatrix(const std::filesystem::path& path, const QuantSource& m);

}  // namespace modelcat::kit
