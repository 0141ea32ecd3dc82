// memory_terms(): what the catalogue stores of a model read by read_memory_model; memory_figures():
// the bytes of each buffer llama.cpp allocates, from those terms and the settings.
#include <algorithm>
#include <optional>
#include <string>

#include "memory/memory.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::memory {

namespace {

using model::GgmlTypeId;

constexpr uint64_t kAlignment = 32;  // ggml-cpu's TENSOR_ALIGNMENT: every tensor of a CPU buffer starts on it
constexpr uint64_t kCellPad = 256;   // llama-context.cpp pads n_ctx, llama-kv-cache-iswa.cpp the window's cells
constexpr uint64_t kF32 = 4;         // activations, logits and recurrent state are f32

uint64_t pad(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

// ggml_repack_get_optimal_repack_type: the types each CPU's kernels repack, and the row multiple they need.
bool repacks(uint32_t type, uint64_t rows, CpuKernels cpu) {
    const bool avx2 = cpu == CpuKernels::x86_avx2 || cpu == CpuKernels::x86_avx512;
    const bool avx512 = cpu == CpuKernels::x86_avx512;
    const bool dotprod = cpu == CpuKernels::arm_dotprod || cpu == CpuKernels::arm_i8mm;
    switch (static_cast<GgmlTypeId>(type)) {
        case GgmlTypeId::Q4_0: case GgmlTypeId::IQ4_NL: case GgmlTypeId::MXFP4:
            return (avx2 && rows % 8 == 0) || (dotprod && rows % 4 == 0);
        case GgmlTypeId::Q4_K: return (avx2 || dotprod) && rows % 8 == 0;
        case GgmlTypeId::Q2_K: return avx512 && rows % 8 == 0;
        case GgmlTypeId::Q5_K: case GgmlTypeId::Q6_K: return dotprod && rows % 8 == 0;
        case GgmlTypeId::Q8_0: return dotprod && rows % 4 == 0;
        default: return false;
    }
}

// The mapped span (CPU_Mapped) covers the weights left in place; the repacked ones are copied (CPU_REPACK),
// and so is the embedding where it doubles as the output matrix (TENSOR_DUPLICATED).
void place_weights(const MemoryModel& m, CpuKernels cpu, MemoryTerms& out) {
    uint64_t first = UINT64_MAX, last = 0;
    for (const Weight& w : m.weights) {
        if (w.repackable_op && repacks(w.type, w.rows, cpu)) {
            out.repack_bytes += pad(w.bytes, kAlignment);
            continue;
        }
        first = std::min(first, w.offset);
        last = std::max(last, w.offset + w.bytes);
        if (w.embedding && m.tied_output && repacks(w.type, w.rows, cpu)) out.repack_bytes += pad(w.bytes, kAlignment);
    }
    out.weights_bytes = last > first ? last - first : 0;
}

// llama_kv_cache: one K and one V tensor per layer of rows x cells. Cells are a multiple of 256, so every
// tensor's bytes are already a multiple of the alignment and a cache's bytes are linear in its cells.
void cache_terms(const MemoryModel& m, MemoryTerms& out) {
    uint64_t v_widest = 0;  // a transposed V (flash off) is padded to the widest layer's
    for (const AttentionCache& cache : m.caches)
        for (uint32_t v : cache.v_rows) v_widest = std::max<uint64_t>(v_widest, v);
    for (const AttentionCache& cache : m.caches) {
        CacheTerms c{cache.kind, cache.window, static_cast<uint32_t>(cache.k_rows.size()), 0, 0, 0};
        for (uint32_t k : cache.k_rows) c.k_elements += k, out.whole_blocks &= k % 32 == 0;
        for (uint32_t v : cache.v_rows) c.v_elements += v, out.whole_blocks &= v % 32 == 0;
        if (!cache.v_rows.empty()) c.v_padded_elements = v_widest * cache.v_rows.size();
        out.caches.push_back(c);
    }
}

// The compute buffer: ggml-alloc's peak over the graph reserved for n_ubatch tokens, all of them outputs.
// Its largest tensors dominate: the logits at the end; before them, in every layer, the attention masks
// (inputs alive until the last layer) beside the larger of the attention (with its scores when flash
// attention is off) and the FFN's or the SSM's activations.
void compute_terms(const MemoryModel& m, MemoryTerms& out) {
    const uint64_t hidden = 2 * m.n_embd * kF32;
    out.logits_per_token = m.n_vocab * kF32 + hidden;
    out.attention_per_token = m.n_head * (m.head_k + m.head_v) * kF32 + hidden;
    out.scores_per_token_cell = m.n_head * kF32;
    const uint64_t dense = 4 * m.n_ff * kF32 + hidden;  // gate, up, their product, down's input
    const uint64_t experts = m.n_expert_used * (3 * m.n_ff_exp + m.n_embd) * kF32 + hidden;  // per chosen expert: gate, up, product; its output
    const uint64_t ssm = m.ssm_in * kF32 + hidden;
    out.layer_per_token = std::max(m.n_expert_used ? experts : dense, ssm);
}

struct Context {  // llama_context's cparams for these settings, one sequence
    uint32_t n_ctx, n_ubatch;
    bool flash;
};

Context resolve(const MemoryTerms& t, const MemorySettings& s) {
    const uint32_t ctx = s.ctx ? s.ctx : static_cast<uint32_t>(t.ctx_train);
    const uint32_t n_batch = std::min(ctx, s.batch);  // causal attention: the batch never exceeds the context
    // Flash attention `auto` resolves to on: the CPU backend runs it for every cache type and head size.
    return {static_cast<uint32_t>(pad(ctx, kCellPad)), std::min(n_batch, s.ubatch), s.flash != Flash::off};
}

uint32_t cache_cells(const CacheTerms& cache, const MemorySettings& s, const Context& c) {
    if (cache.kind != AttentionCache::Kind::sliding || s.swa_full) return c.n_ctx;
    return static_cast<uint32_t>(pad(std::min<uint64_t>(c.n_ctx, cache.window + c.n_ubatch), kCellPad));
}

}  // namespace

MemoryTerms memory_terms(const MemoryModel& m, CpuKernels cpu) {
    MemoryTerms t;
    t.ctx_train = m.ctx_train;
    t.n_layer = m.n_layer;
    place_weights(m, cpu, t);
    for (uint64_t b : m.layer_weight_bytes) t.repeating_weight_bytes += b, t.layer_weight_bytes_max = std::max(t.layer_weight_bytes_max, b);
    t.other_weight_bytes = m.other_weight_bytes;
    cache_terms(m, t);
    // llama_memory_recurrent: one conv (R) and one SSM (S) state per recurrent layer, f32.
    t.recurrent_bytes = m.recurrent_layers * (pad(m.r_elements * kF32, kAlignment) + pad(m.s_elements * kF32, kAlignment));
    t.output_bytes = m.n_vocab * kF32;  // output_reserve: one row of logits per sequence
    compute_terms(m, t);
    return t;
}

std::variant<MemoryFigures, SettingError> memory_figures(const MemoryTerms& t, const MemorySettings& s) {
    const Context c = resolve(t, s);
    if (!c.flash && s.cache != CacheType::f16)
        return SettingError{"quantized V cache was requested, but this requires Flash Attention"};
    if (s.cache != CacheType::f16 && !t.whole_blocks)
        return SettingError{std::string("a ") + cache_type_name(s.cache) + " cache needs rows of whole blocks"};
    // Bytes per 32 elements: f16 64, q8_0 34, q4_0 18.
    const uint64_t per_block = s.cache == CacheType::q8_0 ? 34 : s.cache == CacheType::q4_0 ? 18 : 64;
    MemoryFigures out;
    out.n_ctx = c.n_ctx;
    out.n_ubatch = c.n_ubatch;
    out.flash = c.flash;
    out.weights_bytes = t.weights_bytes;
    out.repack_bytes = t.repack_bytes;
    out.recurrent_bytes = t.recurrent_bytes;
    out.output_bytes = t.output_bytes;
    const uint64_t tokens = c.n_ubatch;
    uint64_t masks = 0, scores = 0;
    for (const CacheTerms& cache : t.caches) {
        const uint32_t cells = cache_cells(cache, s, c);
        const uint64_t v = c.flash ? cache.v_elements : cache.v_padded_elements;
        CacheFigure f{cache.kind, cells, cache.layers, cache.k_elements * per_block / 32 * cells, v * per_block / 32 * cells};
        out.kv_bytes += f.k_bytes + f.v_bytes;
        out.caches.push_back(f);
        masks += cells * pad(tokens, 64) * (c.flash ? 2 : kF32);  // GGML_KQ_MASK_PAD; f16 for flash attention
        if (!c.flash) scores = std::max(scores, t.scores_per_token_cell * cells * tokens);
    }
    const uint64_t layer = std::max(scores + t.attention_per_token * tokens, t.layer_per_token * tokens);
    out.compute_bytes = std::max(t.logits_per_token * tokens, masks + layer);
    return out;
}

}  // namespace modelcat::memory
