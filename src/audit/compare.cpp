#include "audit/compare.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>

#include "format/dequant.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace {

constexpr uint64_t kChunkElements = 1 << 20;  // per side: 4 MiB of floats, whatever the tensor's size

// NMSE ceilings: several times what a plain min/max quantizer of that type
// reaches on normal data, and far below the ~2 of rows from another tensor.
constexpr std::array<ToleranceRow, 10> kTolerance{{
    {"Q8_0", 2e-4}, {"Q6_K", 2e-3}, {"Q5_0", 5e-3}, {"Q5_1", 5e-3}, {"Q5_K", 5e-3},
    {"Q4_0", 2e-2}, {"Q4_1", 2e-2}, {"Q4_K", 2e-2}, {"Q3_K", 8e-2}, {"Q2_K", 0.3},
}};

struct Stats {
    uint64_t compared = 0, mismatches = 0;
    std::optional<uint64_t> first_row, first_col;
    float first_ref = 0, first_got = 0;
    double max_abs = 0, err2 = 0, ref2 = 0, got2 = 0, dot = 0;
    uint64_t max_row = 0, max_col = 0;

    void row(const float* ref, const float* got, uint64_t cols, uint64_t source_row) {
        compared += cols;
        if (std::memcmp(ref, got, cols * sizeof(float)) == 0) {  // the common case: a bit-identical row
            double e = energy(ref, cols);
            ref2 += e, got2 += e, dot += e;
            return;
        }
        differing_row(ref, got, cols, source_row);
    }

    // Eight float lanes per sum (vectorizable without -ffast-math), added to the
    // double totals once per row; positions are looked up only when needed.
    void differing_row(const float* ref, const float* got, uint64_t cols, uint64_t source_row) {
        float e2[8] = {}, r2[8] = {}, g2[8] = {}, rg[8] = {}, mx[8] = {};
        uint32_t diff[8] = {};
        auto lane = [&](int k, float r, float g) {
            float e = g - r;
            e2[k] += e * e, r2[k] += r * r, g2[k] += g * g, rg[k] += r * g;
            mx[k] = std::max(mx[k], std::fabs(e));
            diff[k] += differs(r, g);
        };
        uint64_t c = 0;
        for (; c + 8 <= cols; c += 8)
            for (int k = 0; k < 8; ++k) lane(k, ref[c + k], got[c + k]);
        for (; c < cols; ++c) lane(0, ref[c], got[c]);
        uint64_t row_mismatches = 0;
        float row_max = 0;
        for (int k = 0; k < 8; ++k) {
            err2 += e2[k], ref2 += r2[k], got2 += g2[k], dot += rg[k];
            row_mismatches += diff[k], row_max = std::max(row_max, mx[k]);
        }
        if (row_mismatches && mismatches == 0) {
            uint64_t at = 0;
            while (!differs(ref[at], got[at])) ++at;
            first_row = source_row, first_col = at, first_ref = ref[at], first_got = got[at];
        }
        mismatches += row_mismatches;
        if (row_max > max_abs) {
            uint64_t at = 0;
            while (std::fabs(got[at] - ref[at]) != row_max) ++at;
            max_abs = row_max, max_row = source_row, max_col = at;
        }
    }

    // Not the same bits, unless both are NaN.
    static uint32_t differs(float r, float g) {
        return (std::bit_cast<uint32_t>(r) != std::bit_cast<uint32_t>(g)) & !((r != r) & (g != g));
    }

    // Sum of squares of a row: eight float lanes, so it vectorizes without -ffast-math.
    static double energy(const float* v, uint64_t n) {
        float lane[8] = {};
        uint64_t i = 0;
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; ++k) lane[k] += v[i + k] * v[i + k];
        double sum = 0;
        for (float l : lane) sum += l;
        for (; i < n; ++i) sum += double(v[i]) * v[i];
        return sum;
    }
};

bool is_float_type(uint32_t t) { return t == format::kGgmlF32 || t == format::kGgmlF16 || t == format::kGgmlBF16; }

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

// The source values as the converter would have stored them in a float type.
void round_like(uint32_t gguf_type, uint32_t source_type, std::span<float> v) {
    if (gguf_type == format::kGgmlF16 && source_type != format::kGgmlF16)
        for (float& x : v) x = format::fp16_to_float(format::float_to_fp16(x));
    if (gguf_type == format::kGgmlBF16 && source_type != format::kGgmlBF16)
        for (float& x : v) x = format::bf16_to_float(format::float_to_bf16(x));
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

void decode(uint32_t type, io::SyncFile& src, uint64_t offset, uint64_t bytes, format::ByteBuffer& buf, std::vector<float>& out,
            uint64_t elements) {
    buf.clear();
    src.read(offset, bytes, buf);
    if (buf.size() != bytes)
        throw io::IoError(src.location() + ": tensor data ends early at offset " + std::to_string(offset + buf.size()));
    out.resize(elements);
    format::dequantize(type, buf, out);
}

std::string dims_text(const std::vector<uint64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

// Why this pair cannot be compared value by value, or "" when it can.
std::string incomparable(const PairPlan& p, Geometry& geo, model::TensorResult& r) {
    const TensorSpan &g = *p.gguf, &s = *p.source;
    if (!g.known_type || !format::can_dequantize(g.ggml_type)) {
        r.verdict = model::Verdict::not_compared;
        return "no dequantizer for " + g.type;
    }
    if (!s.known_type) {
        r.verdict = model::Verdict::not_compared;
        return "no decoder for source dtype " + s.type;
    }
    r.verdict = model::Verdict::mismatch;
    if (g.shape != s.shape) {
        std::vector<uint64_t> want(s.shape.rbegin(), s.shape.rend());
        return "ne " + dims_text(g.ne) + " is not the source shape " + dims_text(s.shape) + " reversed (" + dims_text(want) +
               ")" + (g.shape.size() == 2 && g.ne == s.shape ? ": stored transposed?" : "");
    }
    const model::GgmlType& gt = *model::find_ggml_type(g.ggml_type);
    geo.rows = s.shape.size() >= 2 ? s.shape[0] : 1;
    geo.cols = geo.rows ? s.elements() / geo.rows : 0;
    if (geo.cols == 0) {
        r.verdict = model::Verdict::not_compared;
        return "no elements";
    }
    if (geo.cols % gt.block_size) {
        r.verdict = model::Verdict::not_compared;
        return "rows of " + std::to_string(geo.cols) + " elements are not whole " + std::string(gt.name) + " blocks";
    }
    geo.gguf_row_bytes = geo.cols / gt.block_size * gt.type_size;
    geo.source_row_bytes = geo.cols * model::find_ggml_type(s.ggml_type)->type_size;
    if (p.permute_heads) {
        geo.heads = p.permute_heads;
        geo.group = geo.rows / geo.heads;
        if (geo.rows % geo.heads || geo.group % 2)
            return std::to_string(geo.rows) + " rows do not split into " + std::to_string(geo.heads) + " heads of even size";
    }
    r.verdict = model::Verdict::not_compared;
    return "";
}

void finish(model::TensorResult& r, const Stats& st, uint32_t gguf_type, const std::string& gguf_type_name) {
    r.compared = st.compared, r.mismatches = st.mismatches;
    r.max_abs_error = st.max_abs;
    r.rmse = st.compared ? std::sqrt(st.err2 / st.compared) : 0.0;
    r.nmse = st.ref2 > 0 ? st.err2 / st.ref2 : (st.err2 == 0 ? 0.0 : INFINITY);
    r.cosine = st.ref2 > 0 && st.got2 > 0 ? st.dot / std::sqrt(st.ref2 * st.got2) : (st.err2 == 0 ? 1.0 : 0.0);
    std::ostringstream msg;
    if (st.mismatches == 0) {
        r.verdict = model::Verdict::exact;
    } else if (is_float_type(gguf_type)) {
        r.verdict = model::Verdict::mismatch;
        r.first_mismatch_row = st.first_row, r.first_mismatch_col = st.first_col;
        msg << st.mismatches << " of " << st.compared << " values differ; first at row " << *st.first_row << ", column "
            << *st.first_col << ": source " << st.first_ref << ", GGUF " << st.first_got;
    } else if (auto ceiling = nmse_ceiling(gguf_type); ceiling && *r.nmse <= *ceiling) {
        r.verdict = model::Verdict::within_tolerance;
    } else {
        r.verdict = model::Verdict::mismatch;
        r.first_mismatch_row = st.max_row, r.first_mismatch_col = st.max_col;
        msg << "NMSE " << *r.nmse << " above the " << gguf_type_name << " ceiling " << nmse_ceiling(gguf_type).value_or(0)
            << "; largest error " << st.max_abs << " at row " << st.max_row << ", column " << st.max_col;
    }
    r.message = msg.str();
}

}  // namespace

std::optional<double> nmse_ceiling(uint32_t ggml_type) {
    std::string name = model::ggml_type_name(ggml_type);
    for (const auto& t : kTolerance)
        if (t.type == name) return t.max_nmse;
    return std::nullopt;
}

std::span<const ToleranceRow> tolerance_table() { return kTolerance; }

model::TensorResult compare_pair(const PairPlan& p, AuditReaders& files, uint64_t sample_rows) {
    const TensorSpan &g = *p.gguf, &s = *p.source;
    model::TensorResult r;
    r.gguf_tensor = g.name, r.source_tensor = s.name, r.gguf_type = g.type, r.source_dtype = s.type, r.transform = p.transform;
    r.elements = s.elements();
    std::string vt = value_transform(s, g);
    if (!vt.empty()) r.transform += (r.transform.empty() ? "" : ",") + vt;
    Geometry geo;
    if (std::string why = incomparable(p, geo, r); !why.empty()) {
        r.message = why;
        return r;
    }
    Stats st;
    format::ByteBuffer buf;
    std::vector<float> got, ref;
    for (const Run& run : plan_runs(geo, sample_rows, g.name)) {
        uint64_t n = run.g1 - run.g0, lo = geo.rows, hi = 0;
        for (uint64_t row = run.g0; row < run.g1; ++row)
            lo = std::min(lo, geo.source_row(row)), hi = std::max(hi, geo.source_row(row) + 1);
        decode(g.ggml_type, files.at(g.file), g.offset + run.g0 * geo.gguf_row_bytes, n * geo.gguf_row_bytes, buf, got, n * geo.cols);
        decode(s.ggml_type, files.at(s.file), s.offset + lo * geo.source_row_bytes, (hi - lo) * geo.source_row_bytes, buf, ref,
               (hi - lo) * geo.cols);
        round_like(g.ggml_type, s.ggml_type, ref);
        for (uint64_t row = run.g0; row < run.g1; ++row) {
            uint64_t sr = geo.source_row(row);
            st.row(ref.data() + (sr - lo) * geo.cols, got.data() + (row - run.g0) * geo.cols, geo.cols, sr);
        }
    }
    finish(r, st, g.ggml_type, g.type);
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
    if (!g.known_type || !format::can_dequantize(g.ggml_type)) {
        r.message = "no dequantizer for " + g.type;
        return r;
    }
    if (r.elements != expected.size()) {
        r.message = "holds " + std::to_string(r.elements) + " values; config.json gives " + std::to_string(expected.size());
        return r;
    }
    format::ByteBuffer buf;
    std::vector<float> got;
    decode(g.ggml_type, files.at(g.file), g.offset, g.bytes, buf, got, r.elements);
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
