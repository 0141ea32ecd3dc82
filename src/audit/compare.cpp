#include "audit/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>

#include "audit/error_sums.hpp"
#include "audit/tolerance.hpp"
#include "dequant/dequant.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace {

constexpr uint64_t kChunkElements = 1 << 18;  // read per side at once: 1 MiB of F32, whatever the tensor's size
constexpr uint64_t kPieceElements = 2048;     // decoded and summed at once: both sides stay in the L1 cache

struct Position {
    uint64_t row = 0, col = 0;
};

// How one pair's values are decoded and judged, fixed before a row is read.
struct Codec {
    uint32_t gguf_type = 0, source_type = 0;
    dequant::BlockDecoder gguf = nullptr, source = nullptr;
    uint32_t block = 1, block_bytes = 0, source_bytes = 0;  // GGUF block: elements, bytes; a source element's bytes
    const Tolerance* tolerance = nullptr;                    // nullptr: exact (float and integer types)
    bool same_encoding = false;                              // exact, and the source's own type: bytes compared
    bool source_direct = false;                              // quantized, the source F32/F16/BF16: summed as stored
};

// One tensor's totals, against the source's own values.
struct Stats {
    uint64_t compared = 0, mismatches = 0, changed = 0;
    uint64_t became_non_finite = 0;  // finite in the source, inf or NaN in the GGUF
    uint64_t non_finite_lost = 0;    // inf or NaN in the source, something else in the GGUF
    uint64_t overflowed = 0;         // exact types: became non-finite, yet what the rounding gives
    std::optional<Position> first_mismatch, first_non_finite;
    float mismatch_ref = 0, mismatch_got = 0, non_finite_ref = 0, non_finite_got = 0;
    double max_abs = 0, err2 = 0, ref2 = 0, got2 = 0, dot = 0, worst_block = 0;
    Position max_at, worst_block_at;
};

// Not the same bits, unless both are NaN.
bool differs(float r, float g) { return std::bit_cast<uint32_t>(r) != std::bit_cast<uint32_t>(g) && !(r != r && g != g); }

bool is_exact_type(uint32_t t) {
    using enum model::GgmlTypeId;
    return t == F32 || t == F16 || t == BF16 || t == F64 || t == I8 || t == I16 || t == I32 || t == I64;
}
bool is_float_type(uint32_t t) {
    using enum model::GgmlTypeId;
    return t == F32 || t == F16 || t == BF16 || t == F64;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// What the converter did to the values: nothing, an exact widening, a
// round-to-nearest-even narrowing, or quantization.
std::string value_transform(const TensorSpan& src, const TensorSpan& g) {
    if (src.ggml_type == g.ggml_type) return "";
    return lower(src.type) + "->" + lower(g.type);
}

// The GGUF's expected value for each source value under exact types: the
// source's own bits (same type), or its float value rounded to the GGUF's float type.
bool expected_rule_exists(uint32_t gguf_type, uint32_t source_type) {
    if (gguf_type == source_type) return true;
    return gguf_type != model::GgmlTypeId::F64 && is_float_type(gguf_type) && is_float_type(source_type);
}

// A piece with an inf or NaN on either side: its sums over the elements finite on both
// sides; every element whose non-finite value is not the source's own counts as non-finite.
PieceSums non_finite_piece(const Codec& c, const float* ref, const float* got, uint64_t n, Position at, Stats& st) {
    std::vector<float> r(ref, ref + n), g(got, got + n);
    uint64_t odd = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (std::isfinite(r[i]) && std::isfinite(g[i])) continue;
        bool as_expected = !differs(c.tolerance ? r[i] : rounded_like(c.gguf_type, r[i]), g[i]), finite = std::isfinite(r[i]);
        if (!as_expected || finite) {
            ++odd, st.overflowed += as_expected, (finite ? st.became_non_finite : st.non_finite_lost) += 1;
            if (!st.first_non_finite) st.first_non_finite = Position{at.row, at.col + i}, st.non_finite_ref = r[i], st.non_finite_got = g[i];
        }
        r[i] = g[i] = 0;
    }
    PieceSums s = sum_errors({r.data(), model::ggml_id(model::GgmlTypeId::F32)}, g.data(), n, c.tolerance ? c.block : 0, kBlockEnergyFloor);
    s.changed += odd;
    return s;
}

// Mismatches of an exact type's piece: bytes against bytes for the same encoding,
// else values against the source rounded to the GGUF's type (F32: the source itself).
uint64_t exact_mismatches(const Codec& c, const uint8_t* g, const uint8_t* s, const float* ref, const float* got, uint64_t n,
                          const PieceSums& sums) {
    if (c.same_encoding) {
        if (std::memcmp(g, s, n * c.source_bytes) == 0) return 0;
        uint64_t m = 0;
        for (uint64_t i = 0; i < n; ++i) m += std::memcmp(g + i * c.source_bytes, s + i * c.source_bytes, c.source_bytes) != 0;
        return m;
    }
    if (c.gguf_type == model::GgmlTypeId::F32) return sums.changed;
    return rounding_mismatches(c.gguf_type, ref, got, n);
}

void first_mismatch(const Codec& c, const float* ref, const float* got, uint64_t n, Position at, Stats& st) {
    for (uint64_t i = 0; i < n; ++i) {
        float want = rounded_like(c.gguf_type, ref[i]);
        if (differs(want, got[i]) || (c.same_encoding && std::bit_cast<uint32_t>(want) != std::bit_cast<uint32_t>(got[i]))) {
            st.first_mismatch = Position{at.row, at.col + i}, st.mismatch_ref = ref[i], st.mismatch_got = got[i];
            return;
        }
    }
    st.first_mismatch = at;  // bytes differ where the floats agree (an I32 beyond 2^24, a NaN's payload)
}

// `ref()` decodes the piece's source values when they are needed (a position to find).
template <class Ref>
void add_piece(const Codec& c, const PieceSums& s, uint64_t mismatches, Ref&& ref, const float* got, uint64_t n, Position at,
               Stats& st) {
    st.compared += n, st.changed += s.changed;
    st.err2 += s.err2, st.ref2 += s.ref2, st.got2 += s.got2, st.dot += s.dot;
    if (mismatches && !st.first_mismatch) first_mismatch(c, ref(), got, n, at, st);
    st.mismatches += mismatches;
    if (s.max_abs > st.max_abs) {
        const float* r = ref();
        uint64_t i = 0;
        while (i + 1 < n && std::fabs(got[i] - r[i]) != s.max_abs) ++i;
        st.max_abs = s.max_abs, st.max_at = {at.row, at.col + i};
    }
    if (s.worst_block > st.worst_block) st.worst_block = s.worst_block, st.worst_block_at = {at.row, at.col + s.worst_block_at};
}

// Scratch space of one worker: a piece of each side.
struct Scratch {
    std::vector<float> got = std::vector<float>(kPieceElements), ref = std::vector<float>(kPieceElements);
};

// One row: decoded and summed a piece at a time, so that neither side leaves the L1 cache.
// A quantized pair's F32/F16/BF16 source is read by the sums as it is stored.
void compare_row(const Codec& c, const uint8_t* g, const uint8_t* s, uint64_t cols, uint64_t row, Stats& st, Scratch& sc) {
    for (uint64_t col = 0; col < cols; col += kPieceElements) {
        uint64_t n = std::min(kPieceElements, cols - col);
        const uint8_t *gp = g + col / c.block * c.block_bytes, *sp = s + col * c.source_bytes;
        c.gguf(gp, n / c.block, sc.got.data());
        bool decoded = false;
        auto ref = [&] {
            if (!decoded) c.source(sp, n, sc.ref.data()), decoded = true;
            return sc.ref.data();
        };
        SourceValues source = c.source_direct ? SourceValues{sp, c.source_type} : SourceValues{ref(), model::ggml_id(model::GgmlTypeId::F32)};
        PieceSums sums = sum_errors(source, sc.got.data(), n, c.tolerance ? c.block : 0, kBlockEnergyFloor);
        if (!sums.finite()) sums = non_finite_piece(c, ref(), sc.got.data(), n, {row, col}, st);
        uint64_t mismatches = c.tolerance ? sums.changed : exact_mismatches(c, gp, sp, ref(), sc.got.data(), n, sums);
        add_piece(c, sums, mismatches, ref, sc.got.data(), n, {row, col}, st);
    }
}

struct Geometry {
    uint64_t rows = 1, cols = 1, group = 1, heads = 0;
    uint64_t gguf_row_bytes = 0, source_row_bytes = 0;
    // GGUF row g holds source row source_row(g): LlamaModel.permute's
    // reshape(heads, 2, d/2, cols).swapaxes(1, 2), inverted.
    uint64_t source_row(uint64_t g) const {
        if (!heads) return g;
        uint64_t h = g / group, r = g % group;
        return h * group + (r % 2) * (group / 2) + r / 2;
    }
};

struct Run {
    uint64_t g0, g1;
};

uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Rows to compare, as runs of consecutive GGUF rows that are read together.
std::vector<Run> plan_runs(const Geometry& geo, uint64_t sample_rows, const std::string& name) {
    std::vector<Run> runs;
    if (sample_rows == 0 || sample_rows >= geo.rows) {
        uint64_t chunk = std::max<uint64_t>(geo.group, kChunkElements / geo.cols / geo.group * geo.group);
        for (uint64_t g = 0; g < geo.rows; g += chunk) runs.push_back({g, std::min(geo.rows, g + chunk)});
        return runs;
    }
    uint64_t seed = std::hash<std::string>{}(name);  // deterministic per tensor name and build
    std::vector<uint64_t> picked;
    for (uint64_t k = 0; picked.size() < sample_rows && k < 64 * sample_rows; ++k) {
        uint64_t r = mix(seed + 0x9E3779B97F4A7C15ull * (k + 1)) % geo.rows;
        if (std::find(picked.begin(), picked.end(), r) == picked.end()) picked.push_back(r);
    }
    std::sort(picked.begin(), picked.end());
    for (uint64_t r : picked) {  // permuted rows map far apart in the source: no merging
        if (!runs.empty() && runs.back().g1 == r && !geo.heads) runs.back().g1 = r + 1;
        else runs.push_back({r, r + 1});
    }
    return runs;
}

void read_exactly(io::SyncFile& src, uint64_t offset, uint64_t bytes, format::ByteBuffer& buf) {
    buf.clear();
    src.read(offset, bytes, buf);
    if (buf.size() != bytes)
        throw io::IoError(src.location() + ": tensor data ends early at offset " + std::to_string(offset + buf.size()));
}

std::string dims_text(const std::vector<uint64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

// Why this pair's values cannot be compared, or "" when they can (the codec then set).
std::string not_comparable(const TensorSpan& g, const TensorSpan& s, Codec& c, model::TensorResult& r) {
    r.verdict = model::Verdict::not_compared;
    if (!g.known_type || !dequant::can_dequantize(g.ggml_type)) return "no dequantizer for " + g.type;
    if (!s.known_type) return "no decoder for source dtype " + s.type;
    c = {g.ggml_type, s.ggml_type, dequant::block_decoder(g.ggml_type), dequant::block_decoder(s.ggml_type)};
    c.tolerance = tolerance(g.ggml_type);
    if (!c.tolerance && !is_exact_type(g.ggml_type)) return "no NMSE ceiling for " + g.type;
    if (!c.tolerance && !expected_rule_exists(g.ggml_type, s.ggml_type)) return "no exact rule from " + s.type + " to " + g.type;
    const model::GgmlType &gt = *model::find_ggml_type(g.ggml_type), &st = *model::find_ggml_type(s.ggml_type);
    c.block = gt.block_size, c.block_bytes = gt.type_size, c.source_bytes = st.type_size;
    c.same_encoding = !c.tolerance && g.ggml_type == s.ggml_type;
    c.source_direct = c.tolerance && (s.ggml_type == model::GgmlTypeId::F32 || s.ggml_type == model::GgmlTypeId::F16 || s.ggml_type == model::GgmlTypeId::BF16);
    return "";
}

// Why the shapes do not line up, or "" (the geometry then set).
std::string misshapen(const PairPlan& p, const Codec& c, Geometry& geo, model::TensorResult& r) {
    const TensorSpan &g = *p.gguf, &s = *p.source;
    r.verdict = model::Verdict::mismatch;
    if (g.shape != s.shape) {
        std::vector<uint64_t> want(s.shape.rbegin(), s.shape.rend());
        return "ne " + dims_text(g.ne) + " is not the source shape " + dims_text(s.shape) + " reversed (" + dims_text(want) +
               ")" + (g.shape.size() == 2 && g.ne == s.shape ? ": stored transposed?" : "");
    }
    geo.rows = s.shape.size() >= 2 ? s.shape[0] : 1;
    geo.cols = geo.rows ? s.elements() / geo.rows : 0;
    r.verdict = model::Verdict::not_compared;
    if (geo.cols == 0) return "no elements";
    if (geo.cols % c.block) return "rows of " + std::to_string(geo.cols) + " elements are not whole " + g.type + " blocks";
    geo.gguf_row_bytes = geo.cols / c.block * c.block_bytes;
    geo.source_row_bytes = geo.cols * c.source_bytes;
    if (p.permute_heads) {
        geo.heads = p.permute_heads;
        geo.group = geo.rows / geo.heads;
        r.verdict = model::Verdict::mismatch;
        if (geo.rows % geo.heads || geo.group % 2)
            return std::to_string(geo.rows) + " rows do not split into " + std::to_string(geo.heads) + " heads of even size";
        r.verdict = model::Verdict::not_compared;
    }
    return "";
}

std::string exact_failure(const Stats& st) {
    std::ostringstream msg;
    if (st.mismatches)
        msg << st.mismatches << " of " << st.compared << " values differ; first at row " << st.first_mismatch->row << ", column "
            << st.first_mismatch->col << ": source " << st.mismatch_ref << ", GGUF " << st.mismatch_got;
    return msg.str();
}

// The verdict and message of a compared pair; "" when it passes.
std::string judge(const Codec& c, const Stats& st, const std::string& type, model::TensorResult& r) {
    std::ostringstream msg;
    r.verdict = model::Verdict::mismatch;
    if (st.first_non_finite) {
        r.first_mismatch_row = st.first_non_finite->row, r.first_mismatch_col = st.first_non_finite->col;
        if (st.became_non_finite) msg << st.became_non_finite << " finite source value" << (st.became_non_finite > 1 ? "s" : "") << " became inf or NaN; ";
        if (st.non_finite_lost) msg << st.non_finite_lost << " source inf or NaN value" << (st.non_finite_lost > 1 ? "s" : "") << " changed; ";
        msg << "first at row " << st.first_non_finite->row << ", column " << st.first_non_finite->col << ": source "
            << st.non_finite_ref << ", GGUF " << st.non_finite_got;
        if (st.mismatches) msg << "; " << exact_failure(st);
        return msg.str();
    }
    if (!c.tolerance || st.mismatches == 0) {
        if (st.mismatches == 0) return r.verdict = model::Verdict::exact, "";
        r.first_mismatch_row = st.first_mismatch->row, r.first_mismatch_col = st.first_mismatch->col;
        return exact_failure(st);
    }
    bool tensor_fails = *r.nmse > c.tolerance->tensor_nmse, block_fails = st.worst_block > c.tolerance->block_nmse;
    if (!tensor_fails && !block_fails) return r.verdict = model::Verdict::within_tolerance, "";
    if (tensor_fails)
        msg << "NMSE " << *r.nmse << " above the " << type << " ceiling " << c.tolerance->tensor_nmse << "; largest error "
            << st.max_abs << " at row " << st.max_at.row << ", column " << st.max_at.col << (block_fails ? "; " : "");
    if (block_fails)  // a damaged block: named even when the whole tensor fails too
        msg << "the block of columns " << st.worst_block_at.col << "-" << st.worst_block_at.col + c.block - 1 << " has NMSE "
            << st.worst_block << ", above the " << type << " block ceiling " << c.tolerance->block_nmse << " (tensor NMSE "
            << *r.nmse << ")";
    Position at = block_fails ? st.worst_block_at : st.max_at;
    r.first_mismatch_row = at.row, r.first_mismatch_col = at.col;
    return msg.str();
}

void finish(model::TensorResult& r, const Stats& st, const Codec& c, const std::string& type) {
    r.compared = st.compared, r.mismatches = c.tolerance ? st.changed : st.mismatches + st.overflowed;
    r.max_abs_error = st.max_abs;
    r.rmse = st.compared ? std::sqrt(st.err2 / st.compared) : 0.0;
    r.nmse = st.ref2 > 0 ? st.err2 / st.ref2 : (st.err2 == 0 ? 0.0 : INFINITY);
    r.cosine = st.ref2 > 0 && st.got2 > 0 ? st.dot / std::sqrt(st.ref2 * st.got2) : (st.err2 == 0 ? 1.0 : 0.0);
    r.message = judge(c, st, type, r);
}

}  // namespace

model::TensorResult compare_pair(const PairPlan& p, AuditReaders& files, uint64_t sample_rows) {
    const TensorSpan &g = *p.gguf, &s = *p.source;
    model::TensorResult r;
    r.gguf_tensor = g.name, r.source_tensor = s.name, r.gguf_type = g.type, r.source_dtype = s.type, r.transform = p.transform;
    r.elements = s.elements();
    std::string vt = value_transform(s, g);
    if (!vt.empty()) r.transform += (r.transform.empty() ? "" : ",") + vt;
    Codec c;
    Geometry geo;
    if (std::string why = not_comparable(g, s, c, r); !why.empty() || !(why = misshapen(p, c, geo, r)).empty()) {
        r.message = why;
        return r;
    }
    Stats st;
    Scratch scratch;
    format::ByteBuffer gbuf, sbuf;
    for (const Run& run : plan_runs(geo, sample_rows, g.name)) {
        uint64_t lo = geo.rows, hi = 0;
        for (uint64_t row = run.g0; row < run.g1; ++row)
            lo = std::min(lo, geo.source_row(row)), hi = std::max(hi, geo.source_row(row) + 1);
        read_exactly(files.at(g.file), g.offset + run.g0 * geo.gguf_row_bytes, (run.g1 - run.g0) * geo.gguf_row_bytes, gbuf);
        read_exactly(files.at(s.file), s.offset + lo * geo.source_row_bytes, (hi - lo) * geo.source_row_bytes, sbuf);
        for (uint64_t row = run.g0; row < run.g1; ++row) {
            uint64_t sr = geo.source_row(row);
            compare_row(c, gbuf.data() + (row - run.g0) * geo.gguf_row_bytes, sbuf.data() + (sr - lo) * geo.source_row_bytes,
                        geo.cols, sr, st, scratch);
        }
    }
    finish(r, st, c, g.type);
    return r;
}

model::TensorResult generated_result(const TensorSpan& g) {
    model::TensorResult r;
    r.gguf_tensor = g.name, r.gguf_type = g.type, r.transform = "generated";
    r.elements = g.elements();
    return r;
}

model::TensorResult compare_generated(const TensorSpan& g, AuditReaders& files, std::span<const double> expected, double relative) {
    model::TensorResult r = generated_result(g);
    r.verdict = model::Verdict::generated_mismatch;
    if (!g.known_type || !dequant::can_dequantize(g.ggml_type)) {
        r.message = "no dequantizer for " + g.type;
        return r;
    }
    if (r.elements != expected.size()) {
        r.message = "holds " + std::to_string(r.elements) + " values; config.json gives " + std::to_string(expected.size());
        return r;
    }
    format::ByteBuffer buf;
    read_exactly(files.at(g.file), g.offset, g.bytes, buf);
    std::vector<float> got(r.elements);
    dequant::dequantize(g.ggml_type, buf, got);
    double max_rel = 0;
    for (uint64_t i = 0; i < got.size(); ++i) {
        double err = std::fabs(got[i] - expected[i]);
        max_rel = std::max(max_rel, err / std::fabs(expected[i]));
        r.max_abs_error = std::max(r.max_abs_error.value_or(0), err);
        if (!(err <= relative * std::fabs(expected[i])) && r.mismatches++ == 0) {
            r.first_mismatch_row = 0, r.first_mismatch_col = i;
            r.message = "value " + std::to_string(i) + " is " + std::to_string(got[i]) + "; config.json gives " +
                        std::to_string(expected[i]);
        }
    }
    r.compared = got.size();
    r.verdict = r.mismatches ? model::Verdict::generated_mismatch : model::Verdict::generated_ok;
    return r;
}

}  // namespace modelcat::audit
