#include "audit/error_sums.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "dequant/dequant.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace {

// Block ratio with its floor; a block with no error scores 0 whatever its energy.
double block_ratio(double err2, double ref2, double floor) { return err2 == 0 ? 0.0 : err2 / std::max(ref2, floor); }

void note_block(PieceSums& s, double err2, double ref2, double floor, uint64_t at) {
    double r = block_ratio(err2, ref2, floor);
    if (r > s.worst_block) s.worst_block = r, s.worst_block_at = at;
}

// Source value i (a safetensors tensor need not be aligned).
float value(SourceValues ref, uint64_t i) {
    auto* p = static_cast<const uint8_t*>(ref.data);
    if (ref.ggml_type == model::GgmlTypeId::F32) {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return v;
    }
    uint16_t h = static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
    return ref.ggml_type == model::GgmlTypeId::F16 ? dequant::fp16_to_float(h) : dequant::bf16_to_float(h);
}

// Plain loops, eight float lanes per sum so that they vectorise without -ffast-math.
PieceSums sum_errors_plain(SourceValues ref, const float* got, uint64_t n, uint32_t block, double floor) {
    PieceSums s;
    uint64_t span = block ? block : n;
    for (uint64_t b0 = 0; b0 < n; b0 += span) {
        uint64_t len = std::min(span, n - b0);
        float e2[8] = {}, r2[8] = {}, g2[8] = {}, rg[8] = {}, mx[8] = {};
        uint32_t ch[8] = {};
        for (uint64_t i = 0; i < len; ++i) {
            float r = value(ref, b0 + i), g = got[b0 + i], e = g - r;
            int k = static_cast<int>(i % 8);
            e2[k] += e * e, r2[k] += r * r, g2[k] += g * g, rg[k] += r * g;
            mx[k] = std::max(mx[k], std::fabs(e));
            ch[k] += (std::bit_cast<uint32_t>(r) != std::bit_cast<uint32_t>(g)) & !((r != r) & (g != g));
        }
        double be2 = 0, br2 = 0;
        for (int k = 0; k < 8; ++k) {
            be2 += e2[k], br2 += r2[k], s.got2 += g2[k], s.dot += rg[k];
            s.max_abs = std::max(s.max_abs, mx[k]), s.changed += ch[k];
        }
        s.err2 += be2, s.ref2 += br2;
        if (block) note_block(s, be2, br2, floor, b0);
    }
    return s;
}

uint64_t rounding_mismatches_plain(uint32_t type, const float* ref, const float* got, uint64_t n) {
    uint64_t m = 0;
    for (uint64_t i = 0; i < n; ++i) {
        float want = rounded_like(type, ref[i]);
        m += (std::bit_cast<uint32_t>(want) != std::bit_cast<uint32_t>(got[i])) & !((want != want) & (got[i] != got[i]));
    }
    return m;
}

#define MODELCAT_AVX2 __attribute__((target("avx2,fma,f16c")))

MODELCAT_AVX2 double hsum(__m256 v) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    x = _mm_add_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

MODELCAT_AVX2 float hmax(__m256 v) {
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

// Eight lanes of every sum. Two of these take turns, so that a sum's next fused
// multiply-add need not wait for its last (four cycles each on current x86).
struct Lanes {
    __m256 e2, r2, g2, rg, mx;
    __m256i same;  // minus the count of bit-identical elements
};

// Eight source values from element i, widened as dequant_avx2's decoders do.
template <model::GgmlTypeId Type>
MODELCAT_AVX2 __attribute__((always_inline)) inline __m256 load_source(const void* data, uint64_t i) {
    if constexpr (Type == model::GgmlTypeId::F32) return _mm256_loadu_ps(static_cast<const float*>(data) + i);
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(data) + i));
    if constexpr (Type == model::GgmlTypeId::F16) return _mm256_cvtph_ps(h);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

MODELCAT_AVX2 __attribute__((always_inline)) inline void add_eight(Lanes& l, __m256 r, const float* got) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 g = _mm256_loadu_ps(got), e = _mm256_sub_ps(g, r);
    l.e2 = _mm256_fmadd_ps(e, e, l.e2), l.r2 = _mm256_fmadd_ps(r, r, l.r2);
    l.g2 = _mm256_fmadd_ps(g, g, l.g2), l.rg = _mm256_fmadd_ps(r, g, l.rg);
    l.mx = _mm256_max_ps(l.mx, _mm256_and_ps(e, abs_mask));
    l.same = _mm256_add_epi32(l.same, _mm256_cmpeq_epi32(_mm256_castps_si256(r), _mm256_castps_si256(g)));
}

// The same sums sixteen elements at a time (quantized blocks are multiples of 16), the
// source widened as it is read; the last elements of a float tensor's piece that are
// not go through the plain loop.
template <model::GgmlTypeId Type>
MODELCAT_AVX2 PieceSums sum_errors_avx2(const void* ref, const float* got, uint64_t n, uint32_t block, double floor) {
    PieceSums s;
    const __m256 zero = _mm256_setzero_ps();
    Lanes a{zero, zero, zero, zero, zero, _mm256_setzero_si256()}, b = a;
    __m256 e2 = zero, r2 = zero;  // the blocks' sums so far
    uint64_t span = block ? block : n & ~uint64_t{15}, vector_end = block ? n : span;
    for (uint64_t b0 = 0; b0 < vector_end; b0 += span) {
        a.e2 = a.r2 = b.e2 = b.r2 = zero;
        for (uint64_t i = b0; i < b0 + span; i += 16)
            add_eight(a, load_source<Type>(ref, i), got + i), add_eight(b, load_source<Type>(ref, i + 8), got + i + 8);
        __m256 be2 = _mm256_add_ps(a.e2, b.e2), br2 = _mm256_add_ps(a.r2, b.r2);
        if (block) note_block(s, hsum(be2), hsum(br2), floor, b0);
        e2 = _mm256_add_ps(e2, be2), r2 = _mm256_add_ps(r2, br2);
    }
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_add_epi32(a.same, b.same));
    int64_t identical = 0;
    for (int32_t l : lanes) identical -= l;
    s.err2 = hsum(e2), s.ref2 = hsum(r2), s.got2 = hsum(_mm256_add_ps(a.g2, b.g2)), s.dot = hsum(_mm256_add_ps(a.rg, b.rg));
    s.max_abs = hmax(_mm256_max_ps(a.mx, b.mx)), s.changed = vector_end - static_cast<uint64_t>(identical);
    if (vector_end < n) {  // a float tensor's last elements
        const void* rest = static_cast<const uint8_t*>(ref) + vector_end * (Type == model::GgmlTypeId::F32 ? 4 : 2);
        PieceSums t = sum_errors_plain({rest, model::ggml_id(Type)}, got + vector_end, n - vector_end, 0, floor);
        s.err2 += t.err2, s.ref2 += t.ref2, s.got2 += t.got2, s.dot += t.dot;
        s.max_abs = std::max(s.max_abs, t.max_abs), s.changed += t.changed;
    }
    return s;
}

// Round-to-nearest-even in hardware (F16C) or by integer arithmetic (BF16); a piece with
// a NaN on either side is counted by the plain loop, whose NaN rule is the audit's.
MODELCAT_AVX2 uint64_t rounding_mismatches_avx2(uint32_t type, const float* ref, const float* got, uint64_t n) {
    uint64_t m = 0, i = 0;
    __m256 nan = _mm256_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        __m256 r = _mm256_loadu_ps(ref + i), g = _mm256_loadu_ps(got + i);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(r, g, _CMP_UNORD_Q));
        __m256i want;
        if (type == model::GgmlTypeId::F16) {
            want = _mm256_castps_si256(_mm256_cvtph_ps(_mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
        } else {
            __m256i x = _mm256_castps_si256(r);
            __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
            x = _mm256_add_epi32(x, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), odd));
            want = _mm256_and_si256(x, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u)));
        }
        __m256i same = _mm256_cmpeq_epi32(want, _mm256_castps_si256(g));
        m += 8 - std::popcount(static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(same))));
    }
    if (_mm256_movemask_ps(nan)) return rounding_mismatches_plain(type, ref, got, n);
    return m + rounding_mismatches_plain(type, ref + i, got + i, n - i);
}

}  // namespace

float rounded_like(uint32_t gguf_type, float v) {
    if (gguf_type == model::GgmlTypeId::F16) return dequant::fp16_to_float(dequant::float_to_fp16(v));
    if (gguf_type == model::GgmlTypeId::BF16) return dequant::bf16_to_float(dequant::float_to_bf16(v));
    return v;
}

PieceSums sum_errors(SourceValues ref, const float* got, uint64_t n, uint32_t block, double block_floor) {
    using enum model::GgmlTypeId;
    if (!dequant::cpu_has_avx2()) return sum_errors_plain(ref, got, n, block, block_floor);
    if (ref.ggml_type == BF16) return sum_errors_avx2<BF16>(ref.data, got, n, block, block_floor);
    if (ref.ggml_type == F16) return sum_errors_avx2<F16>(ref.data, got, n, block, block_floor);
    return sum_errors_avx2<F32>(ref.data, got, n, block, block_floor);
}

uint64_t rounding_mismatches(uint32_t gguf_type, const float* ref, const float* got, uint64_t n) {
    return dequant::cpu_has_avx2() ? rounding_mismatches_avx2(gguf_type, ref, got, n) : rounding_mismatches_plain(gguf_type, ref, got, n);
}

}  // namespace modelcat::audit
