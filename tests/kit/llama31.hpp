#pragma once
// Sparse replicas of bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (eight quants,
// as measured from the real files) and of its BF16 source checkpoint: the
// headers are synthetic but every size, count, type and offset is the real files'.
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf_writer.hpp"
#include "safetensors_writer.hpp"

namespace modelcat::kit {

constexpr uint64_t kLlama31Params = 8'030'261'312;  // GGUF: includes rope_freqs' 64
constexpr uint64_t kLlama31TensorCount = 292;
constexpr uint64_t kLlama31KvCount = 33;
constexpr uint64_t kLlama31MetadataEnd = 7'823'572;  // identical in all eight quants
constexpr uint64_t kLlama31HeaderEnd = 7'840'907;
constexpr uint64_t kLlama31DataStart = 7'840'928;

// Five tensors whose type tells quantization policies apart, in table order.
inline constexpr std::array<std::string_view, 5> kLlama31NamedTensors{
    "token_embd.weight", "output.weight", "blk.0.attn_v.weight", "blk.0.ffn_down.weight", "blk.0.attn_q.weight"};

// What was measured for one real quant file.
struct Llama31Quant {
    std::string_view name;  // "Q4_K_M"
    uint32_t file_type;     // general.file_type
    uint64_t file_bytes;
    std::string_view census;              // "type:count ...", most parameters first
    std::array<uint32_t, 5> named_types;  // ggml type of each kLlama31NamedTensors entry
};

// The eight quants by size (IQ2_M ... Q8_0).
std::span<const Llama31Quant> llama31_quants();
std::vector<std::string> llama31_quant_names();
// Throws std::invalid_argument for a name not in the lineup.
const Llama31Quant& llama31_expected(std::string_view quant);
std::string llama31_file_name(std::string_view quant);  // Meta-Llama-3.1-8B-Instruct-<quant>.gguf

// The replica: 33 KVs, 292 tensors in llama.cpp's order, offsets packed as measured.
GgufWriter llama31_quant(std::string_view quant);
// Writes all eight as sparse files into `dir` (created if missing); returns their paths.
std::vector<std::filesystem::path> write_llama31_lineup(const std::filesystem::path& dir);

// "type:count" per ggml type, ordered by parameters descending (ties: first in
// offset order) — the census column.
std::string census_string(const GgufWriter& w);

// ---- The BF16 source (NousResearch/Meta-Llama-3.1-8B-Instruct) ----

constexpr uint64_t kLlama31Bf16Params = 8'030'261'248;  // no rope_freqs
constexpr uint64_t kLlama31Bf16TotalSize = 16'060'522'496;

struct Llama31Shard {
    std::string_view file;  // model-0000N-of-00004.safetensors
    size_t tensors;
    uint64_t header_bytes;  // the JSON length in the first 8 bytes
    uint64_t file_bytes;
};
std::span<const Llama31Shard> llama31_shards();

SafetensorsWriter llama31_safetensors_shard(size_t index);  // 0-based
// Writes the 4 sparse shards, model.safetensors.index.json and config.json; returns their paths.
std::vector<std::filesystem::path> write_llama31_safetensors_checkpoint(const std::filesystem::path& dir);
// Its convert_hf_to_gguf output: BF16, norms and rope_freqs F32, file_type 32.
GgufWriter llama31_bf16_gguf();

// The test store: the lineup in DIR/lineup; the checkpoint and its BF16 GGUF in DIR/source.
void write_llama31_store(const std::filesystem::path& dir);

}  // namespace modelcat::kit
