// The memory engine's arithmetic on known shapes (kit/arch_files.cpp's small files), each figure
// worked out by hand from llama.cpp's own rules (llama-kv-cache*.cpp, llama-memory-recurrent.cpp,
// llama-context.cpp, ggml-cpu/repack.cpp); memory_oracle_test.cpp checks the same against llama.cpp.
#include <gtest/gtest.h>

#include "kit/arch_files.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "memory/memory.hpp"

using namespace modelcat;
using memory::AttentionCache;
using memory::CacheType;

namespace {

memory::MemoryModel small_arch_model(const std::string& name) {
    for (const auto& f : kit::arch_files(kit::ArchScale::small))
        if (f.name == name) {
            auto m = memory::read_memory_model(kit::parse_header(f.gguf));
            if (auto* n = std::get_if<memory::NotModelled>(&m)) ADD_FAILURE() << n->reason;
            return std::get<memory::MemoryModel>(m);
        }
    ADD_FAILURE() << "no kit file " << name;
    return {};
}

memory::MemoryFigures figures_of(const memory::MemoryModel& m, memory::MemorySettings s, memory::CpuKernels cpu = memory::CpuKernels::x86_avx2) {
    auto f = memory::memory_figures(memory::memory_terms(m, cpu), s);
    if (auto* e = std::get_if<memory::SettingError>(&f)) ADD_FAILURE() << e->message;
    return std::get<memory::MemoryFigures>(f);
}

constexpr uint64_t kMemoryMiB = 1024 * 1024;

}  // namespace

TEST(MemoryArithmetic, GqaLayerKeepsKvHeadsTimesHeadSizePerCell) {
    // 4 layers of 2 KV heads x 64: 128 elements of K and of V per cell and layer.
    const auto m = small_arch_model("llama-gqa-q4_k");
    auto f = figures_of(m, {.ctx = 4096});
    ASSERT_EQ(f.caches.size(), 1u);
    EXPECT_EQ(f.caches[0].cells, 4096u);
    EXPECT_EQ(f.kv_bytes, 2ull * 128 * 2 * 4096 * 4);  // K and V, f16, 4 layers: 8 kMemoryMiB
    // q8_0: 34 bytes per 32 elements.
    EXPECT_EQ(figures_of(m, {.ctx = 4096, .cache = CacheType::q8_0, .flash = memory::Flash::on}).kv_bytes, 2ull * 128 / 32 * 34 * 4096 * 4);
    // q4_0: 18 bytes per 32.
    EXPECT_EQ(figures_of(m, {.ctx = 4096, .cache = CacheType::q4_0}).kv_bytes, 2ull * 128 / 32 * 18 * 4096 * 4);
    // The context is rounded up to 256 cells.
    f = figures_of(m, {.ctx = 5000});
    EXPECT_EQ(f.n_ctx, 5120u);
    EXPECT_EQ(f.kv_bytes, 2ull * 128 * 2 * 5120 * 4);
}

TEST(MemoryArithmetic, SlidingWindowLayersHoldTheWindowAndOneUbatch) {
    // gemma2: window 512, period 2 (layers 0, 2, 4 slide); 4 KV heads x 128 = 512 elements per cell.
    const auto m = small_arch_model("gemma2-f16");
    auto f = figures_of(m, {.ctx = 32768});
    ASSERT_EQ(f.caches.size(), 2u);
    EXPECT_EQ(f.caches[0].kind, AttentionCache::Kind::full);
    EXPECT_EQ(f.caches[1].kind, AttentionCache::Kind::sliding);
    EXPECT_EQ(f.caches[1].layers, 3u);
    EXPECT_EQ(f.caches[1].cells, 1024u);  // 512 + ubatch 512, a multiple of 256
    EXPECT_EQ(f.caches[1].k_bytes, 512ull * 2 * 1024 * 3);
    EXPECT_EQ(f.caches[0].k_bytes, 512ull * 2 * 32768 * 3);
    EXPECT_EQ(figures_of(m, {.ctx = 32768, .ubatch = 300}).caches[1].cells, 1024u);  // 812 rounds up to 1024
    EXPECT_EQ(figures_of(m, {.ctx = 600}).caches[1].cells, 768u);               // never more than the context's 768
    EXPECT_EQ(figures_of(m, {.ctx = 32768, .swa_full = true}).caches[1].cells, 32768u);
    // gemma3's default period 6: of 8 layers only layer 5 attends to the whole context.
    EXPECT_EQ(figures_of(small_arch_model("gemma3-q4_0"), {.ctx = 4096}).caches[0].layers, 1u);
}

TEST(MemoryArithmetic, MlaLayerCachesTheCompressedLatentOnly) {
    // deepseek2: kv_lora_rank 256 + rope 64 = 320 elements of K per cell, one head, no V tensor.
    const auto m = small_arch_model("deepseek2-mla-q4_k");
    const auto f = figures_of(m, {.ctx = 4096});
    ASSERT_EQ(f.caches.size(), 1u);
    EXPECT_EQ(f.caches[0].kind, AttentionCache::Kind::mla);
    EXPECT_EQ(f.caches[0].k_bytes, 320ull * 2 * 4096 * 4);
    EXPECT_EQ(f.caches[0].v_bytes, 0u);
}

TEST(MemoryArithmetic, RecurrentStateDoesNotGrowWithContext) {
    // mamba2: conv state (4 - 1) x (1024 + 2 x 1 x 64) and SSM state 64 x 1024, f32, per layer.
    const auto m = small_arch_model("mamba2-q8_0");
    const uint64_t per_layer = 3 * (1024 + 2 * 64) * 4 + 64 * 1024 * 4;
    EXPECT_EQ(figures_of(m, {.ctx = 512}).recurrent_bytes, 4 * per_layer);
    EXPECT_EQ(figures_of(m, {.ctx = 131072}).recurrent_bytes, 4 * per_layer);
    EXPECT_EQ(figures_of(m, {.ctx = 131072}).kv_bytes, 0u);
    // lfm2: 4 short-conv layers of 512 x (3 - 1) floats; its 2 attention layers grow with the context.
    const auto hybrid = figures_of(small_arch_model("lfm2-hybrid-q4_0"), {.ctx = 4096});
    EXPECT_EQ(hybrid.recurrent_bytes, 4ull * 512 * 2 * 4);
    EXPECT_EQ(hybrid.caches[0].layers, 2u);
}

TEST(MemoryArithmetic, OutputBufferHoldsOneRowOfLogitsPerSequence) {
    EXPECT_EQ(figures_of(small_arch_model("llama-gqa-q4_k"), {.ctx = 4096}).output_bytes, 8192u * 4);
    EXPECT_EQ(figures_of(small_arch_model("mistral-swa-q4_0"), {.ctx = 4096}).output_bytes, 4100u * 4);
}

TEST(MemoryArithmetic, RepackCopiesTheMatricesTheCpuKernelsRepack) {
    // llama-gqa-q4_k: every matrix is Q4_K and repacked on AVX2, the embedding (a row lookup) is not.
    const auto m = small_arch_model("llama-gqa-q4_k");
    const auto avx2 = figures_of(m, {.ctx = 512});
    const uint64_t embd = 512ull * 8192 / 256 * 144;
    EXPECT_EQ(avx2.repack_bytes, 4 * (512ull * (512 + 128 + 128 + 512) + 3 * 512ull * 1024) / 256 * 144 + embd);  // + output
    EXPECT_EQ(figures_of(m, {.ctx = 512}, memory::CpuKernels::none).repack_bytes, 0u);
    // Q8_0 is repacked on ARM only; an output of 4100 rows (not a multiple of 8) never is.
    EXPECT_EQ(figures_of(small_arch_model("qwen2-tied-q8_0"), {.ctx = 512}).repack_bytes, 0u);
    EXPECT_GT(figures_of(small_arch_model("qwen2-tied-q8_0"), {.ctx = 512}, memory::CpuKernels::arm_dotprod).repack_bytes, 0u);
    const auto mistral = figures_of(small_arch_model("mistral-swa-q4_0"), {.ctx = 512});
    EXPECT_EQ(mistral.repack_bytes, 4 * (512ull * (512 + 128 + 128 + 512) + 3 * 512ull * 1024) / 32 * 18);
    // A tied embedding is copied once more for its use as the output matrix (qwen3, IQ4_NL).
    const auto tied = figures_of(small_arch_model("qwen3-iq4_nl"), {.ctx = 512});
    EXPECT_EQ(tied.repack_bytes, (4 * (512ull * (1024 + 512 + 512) + 1024ull * 512 + 3 * 512ull * 1024) + 512ull * 8192) / 32 * 18);
}

TEST(MemoryArithmetic, QuantizedVCacheNeedsFlashAttention) {
    const auto m = small_arch_model("llama-gqa-q4_k");
    auto f = memory::memory_figures(memory::memory_terms(m), {.ctx = 4096, .cache = CacheType::q8_0, .flash = memory::Flash::off});
    ASSERT_TRUE(std::holds_alternative<memory::SettingError>(f));
    EXPECT_NE(std::get<memory::SettingError>(f).message.find("Flash Attention"), std::string::npos);
    EXPECT_TRUE(figures_of(m, {.ctx = 4096, .cache = CacheType::q8_0}).flash);  // auto turns it on
}

TEST(MemoryArithmetic, SaysWhatItDoesNotModel) {
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("bert"));
    w.add_kv("bert.block_count", kit::GgufValue::u32(12));
    auto m = memory::read_memory_model(kit::parse_header(w));
    ASSERT_TRUE(std::holds_alternative<memory::NotModelled>(m));
    EXPECT_EQ(std::get<memory::NotModelled>(m).reason, "not modelled for bert");
    // A per-layer array longer than the catalogue keeps is no figure either.
    kit::GgufWriter big;
    big.add_kv("general.architecture", kit::GgufValue::str("llama"));
    big.add_kv("llama.block_count", kit::GgufValue::u32(80));
    big.add_kv("llama.embedding_length", kit::GgufValue::u32(8192));
    big.add_kv("tokenizer.ggml.tokens", kit::GgufValue::string_array({"a", "b"}));
    big.add_kv("llama.attention.head_count", kit::GgufValue::array(kit::GgufType::u32, std::vector<kit::GgufValue>(80, kit::GgufValue::u32(64))));
    m = memory::read_memory_model(kit::parse_header(big));
    ASSERT_TRUE(std::holds_alternative<memory::NotModelled>(m));
    EXPECT_NE(std::get<memory::NotModelled>(m).reason.find("does not keep"), std::string::npos);
}

TEST(MemoryArithmetic, TheLineupsQ4KMAsLlamaCppAllocatesIt) {
    // llama.cpp's log for the 8B Llama 3.1 Q4_K_M at 8,192 (flash auto, on for the CPU): model 4,685.30 kMemoryMiB
    // mapped and 3,204.00 repacked, KV 1,024.00, output 0.49, compute 266.50; flash off at 32,768: 2,156 kMemoryMiB.
    auto read = memory::read_memory_model(kit::parse_header(kit::llama31_quant("Q4_K_M")));
    const auto& m = std::get<memory::MemoryModel>(read);
    const auto f = figures_of(m, {.ctx = 8192});
    EXPECT_EQ(f.weights_bytes, 4'912'898'304u);
    EXPECT_EQ(f.repack_bytes, 3204 * kMemoryMiB);
    EXPECT_EQ(f.kv_bytes, 1024 * kMemoryMiB);
    EXPECT_EQ(f.output_bytes, 128256u * 4);
    EXPECT_NEAR(static_cast<double>(f.compute_bytes) / kMemoryMiB, 266.50, 266.50 * 0.10);
    EXPECT_NEAR(static_cast<double>(figures_of(m, {.ctx = 32768, .flash = memory::Flash::off}).compute_bytes) / kMemoryMiB, 2156.0, 2156.0 * 0.10);
    EXPECT_EQ(m.layer_weight_bytes.size(), 32u);
    uint64_t layers = 0;
    for (uint64_t b : m.layer_weight_bytes) layers += b;
    EXPECT_EQ(m.other_weight_bytes + layers,
              f.weights_bytes);  // the file's tensors are packed: the mapped span is their sum
}

// memory_terms.shape_key (the crawl writes this hash) decides which models share one computation of the KV cache and compute
// buffer (queries/memory.sql, fits.sql): every term those figures read changes it, and what they do
// not read (the weights, the layer counts) leaves it, with the figures, unchanged.
TEST(MemoryShape, HashCoversEveryTermTheContextDependentFiguresRead) {
    const model::MemoryTerms base = memory::memory_terms(small_arch_model("gemma2-f16"));  // a full and a sliding cache
    ASSERT_EQ(base.caches.size(), 2u);
    const std::string hash = model::memory_shape_hash(base);
    auto changed = [&](auto&& edit) {
        model::MemoryTerms t = base;
        edit(t);
        return model::memory_shape_hash(t) != hash;
    };
    EXPECT_TRUE(changed([](auto& t) { t.ctx_train += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.whole_blocks = !t.whole_blocks; }));
    EXPECT_TRUE(changed([](auto& t) { t.logits_per_token += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.attention_per_token += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.scores_per_token_cell += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.layer_per_token += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.caches.pop_back(); }));
    EXPECT_TRUE(changed([](auto& t) { t.caches[1].kind = model::CacheKind::full; }));
    EXPECT_TRUE(changed([](auto& t) { t.caches[1].window += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.caches[0].k_elements += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.caches[0].v_elements += 1; }));
    EXPECT_TRUE(changed([](auto& t) { t.caches[1].v_padded_elements += 1; }));
    EXPECT_TRUE(changed([](auto& t) { std::swap(t.caches[0], t.caches[1]); }));

    model::MemoryTerms other = base;  // another quant of the family: other weights, the same shape
    other.weights_bytes += 4096, other.repack_bytes += 64, other.layer_weight_bytes_max += 8;
    other.repeating_weight_bytes += 16, other.other_weight_bytes += 32, other.recurrent_bytes += 128;
    other.output_bytes += 4, other.n_layer += 1, other.caches[0].layers += 1;
    EXPECT_EQ(model::memory_shape_hash(other), hash);
    for (const memory::MemorySettings s : {memory::MemorySettings{.ctx = 512}, {.ctx = 8192, .flash = memory::Flash::off},
                                           {.ctx = 131072, .cache = CacheType::q8_0}}) {
        const auto a = std::get<memory::MemoryFigures>(memory::memory_figures(base, s));
        const auto b = std::get<memory::MemoryFigures>(memory::memory_figures(other, s));
        EXPECT_EQ(a.kv_bytes, b.kv_bytes);
        EXPECT_EQ(a.compute_bytes, b.compute_bytes);
    }
}
