#pragma once
// What llama.cpp allocates to run a model on its CPU backend, from the file's
// header alone: the weights it maps and repacks, the KV cache of each kind the
// architecture has, the recurrent state, the output (logits) buffer and the
// compute buffer, for a context size and llama-server's other settings. It
// follows llama.cpp release v0.4.0 (the one node-llama-cpp 3.21.1 ships; see
// docs/memory.md), and says `not modelled for ARCH` rather than guess.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/header.hpp"
#include "model/memory_terms.hpp"

namespace modelcat::memory {

enum class CacheType : uint8_t { f16, q8_0, q4_0 };  // K and V alike
enum class Flash : uint8_t { automatic, on, off };
// Which weight types llama.cpp repacks depends on the CPU's kernels (ggml-cpu/repack.cpp).
enum class CpuKernels : uint8_t { none, x86_avx2, x86_avx512, arm_dotprod, arm_i8mm };

const char* cache_type_name(CacheType t);

// llama-server's defaults, except the context.
struct MemorySettings {
    uint32_t ctx = 4096;
    CacheType cache = CacheType::f16;
    uint32_t batch = 2048;
    uint32_t ubatch = 512;
    Flash flash = Flash::automatic;
    bool swa_full = false;
};

// One attention cache llama.cpp creates and the layers it serves.
struct AttentionCache {
    using Kind = model::CacheKind;
    Kind kind = Kind::full;
    uint32_t window = 0;          // sliding: attention.sliding_window
    std::vector<uint32_t> k_rows;  // per layer: K elements per cell (head_k x head_count_kv)
    std::vector<uint32_t> v_rows;  // per layer: V elements per cell; empty for MLA (V is a view of K)
};

// A weight as llama.cpp places it: only types and shapes of matrix products can be repacked.
struct Weight {
    uint64_t offset = 0, bytes = 0;  // in the data section; bytes = ggml_nbytes
    uint32_t type = 0;
    uint64_t rows = 0;               // ne[1]
    bool repackable_op = false;      // a 2-D matrix product (or 3-D expert product) llama.cpp may repack
    bool embedding = false;          // token_embd: looked up by row, and the output matrix too when tied
};

// Everything the figures need, read once from a header.
struct MemoryModel {
    std::string arch;
    uint64_t n_vocab = 0, n_embd = 0, n_layer = 0, ctx_train = 0;
    std::vector<Weight> weights;
    std::vector<uint64_t> layer_weight_bytes;  // per repeating layer (blk.N.*)
    uint64_t other_weight_bytes = 0;           // embedding, output, norms outside the layers
    bool tied_output = false;                  // no output.weight: the embedding doubles as the output matrix
    std::vector<AttentionCache> caches;
    uint32_t recurrent_layers = 0;
    uint64_t r_elements = 0, s_elements = 0;   // recurrent state per layer and sequence (f32): conv and SSM
    // What the compute buffer depends on.
    uint64_t n_head = 0, head_k = 0, head_v = 0, n_ff = 0, n_expert_used = 0, n_ff_exp = 0, ssm_in = 0;
};

struct NotModelled {
    std::string reason;  // "not modelled for ARCH" or what in the header is missing
};

std::variant<MemoryModel, NotModelled> read_memory_model(const model::FileHeader& h);

using model::CacheTerms;
using model::MemoryTerms;

MemoryTerms memory_terms(const MemoryModel& m, CpuKernels cpu = CpuKernels::x86_avx2);

struct CacheFigure {
    AttentionCache::Kind kind;
    uint32_t cells = 0, layers = 0;
    uint64_t k_bytes = 0, v_bytes = 0;
};

struct MemoryFigures {
    uint32_t n_ctx = 0;          // the context llama.cpp allocates: ctx rounded up to 256
    uint32_t n_ubatch = 0;       // the micro-batch as resolved: min(ctx, batch, ubatch)
    bool flash = false;          // flash attention as resolved
    uint64_t weights_bytes = 0;  // CPU_Mapped: the mapped span of the weights that are not repacked
    uint64_t repack_bytes = 0;   // CPU_REPACK
    std::vector<CacheFigure> caches;
    uint64_t kv_bytes = 0, recurrent_bytes = 0, output_bytes = 0, compute_bytes = 0;
    uint64_t total_bytes() const { return weights_bytes + repack_bytes + kv_bytes + recurrent_bytes + output_bytes + compute_bytes; }
};

struct SettingError {
    std::string message;  // what llama.cpp refuses, in its terms
};

std::variant<MemoryFigures, SettingError> memory_figures(const MemoryTerms& t, const MemorySettings& s);

}  // namespace modelcat::memory
