#include "format/gguf_estimate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string_view>

namespace modelcat::format {

namespace {

constexpr double kMargin = 0.02;           // of the estimated header: entries vary; aim a little long rather than read again
constexpr uint64_t kSlack = 16 << 10;      // entries nothing sizes (templates, ids)
constexpr uint64_t kSmallEntry = 64;       // a metadata entry not reached yet
constexpr uint64_t kTensorInfo = 64;       // a tensor info not reached yet: length, ~24-byte name, n_dims, 2 dims, type, offset
constexpr uint64_t kLikelyTensorInfo = 96;  // local reads' allowance for one, long enough that the lineup needs no top-up for them
constexpr uint64_t kCountedArrayHead = 49;  // key length, a 25-byte key, type, element type, count
// A BPE's merges spell its tokens, one merge per token at least, each a token's bytes and a space:
// the merges take about the token list's bytes at least (less the byte tokens and the special ones,
// which no merge spells), so a read 0.9 of them past their start sees their count and a tenth or more of them.
constexpr double kMergesSurelyPast = 0.9;

const model::MetadataEntry* find_entry(const std::vector<model::MetadataEntry>& seen, std::string_view key) {
    for (const auto& e : seen)
        if (e.key == key) return &e;
    return nullptr;
}

// The current array's mean entry so far (16 bytes before the first).
double mean_entry(const GgufProgress& p, uint64_t pos) {
    return p.array_done > 0 ? double(pos - p.array_start) / double(p.array_done) : 16;
}

// The mean entry of doubling k: elements 2^k .. 2^(k+1).
double doubling_mean(const GgufProgress& p, int k) {
    return double(p.mark_pos[k + 1] - p.mark_pos[k]) / double(uint64_t{1} << k);
}

// Local reads' guess of the entries to come: the line through the mean of all entries and of
// those since the last power-of-two element, extended to the centre of those still to come.
double likely_entry(const GgufProgress& p, uint64_t pos) {
    double avg = mean_entry(p, pos);
    const int k = std::bit_width(p.array_done) - 1;
    if (k < 6 || p.array_done == (uint64_t{1} << k)) return avg;
    const double mark_done = double(uint64_t{1} << k);
    const double recent = double(pos - p.mark_pos[k]) / (double(p.array_done) - mark_done);
    if (recent > avg) {
        const double slope = (recent - avg) / (mark_done / 2);
        avg = std::min(4 * recent, recent + slope * (double(p.array_length) - mark_done) / 2);
    }
    return avg;
}

// The mean entry of the elements still to come, from the means of the last three whole doublings:
// the last increment between doublings carried on, scaled per doubling by the ratio of the last two
// (2 for lengths growing linearly, 1 logarithmically, under 1 for a vocabulary levelling off).
// Never below the last doubling's mean, never above 4 times it.
double grown_entry(const GgufProgress& p, uint64_t pos) {
    const int k = std::bit_width(p.array_done) - 1;  // the doubling being read
    if (k < 9) return mean_entry(p, pos);
    const double a = doubling_mean(p, k - 3), b = doubling_mean(p, k - 2), c = doubling_mean(p, k - 1);
    const double step = c - b;
    if (step <= 0) return c;
    const double ratio = b > a ? std::min(step / (b - a), 2.0) : 1.0;
    const double centre = double(k - 1) + std::log2(1.5);  // of doubling k-1, in log2(element)
    auto at = [&](double x) {
        const double t = x - centre;
        return c + step * (std::abs(ratio - 1) < 1e-3 ? t : (std::pow(ratio, t) - 1) / (1 - 1 / ratio));
    };
    const double from = double(p.array_done), to = double(p.array_length);
    double sum = 0;
    for (int i = 0; i < 32; ++i) sum += at(std::log2(from + (to - from) * (i + 0.5) / 32));
    return std::clamp(sum / 32, c, 4 * c);
}

// Where the token list's element i begins: at the marks as read, linear between them.
double token_offset(const GgufProgress::Profile& t, double i) {
    double lo = 0, lo_pos = double(t.start);
    for (int k = 6; k < 64 && (uint64_t{1} << k) < t.length; ++k) {
        const double at = double(uint64_t{1} << k);
        if (i <= at) return lo_pos + (double(t.mark_pos[k]) - lo_pos) * (i - lo) / (at - lo);
        lo = at, lo_pos = double(t.mark_pos[k]);
    }
    return lo_pos + (double(t.end) - lo_pos) * (i - lo) / (double(t.length) - lo);
}

double token_mean(const GgufProgress::Profile& t, double from, double to) {
    return (token_offset(t, to) - token_offset(t, from)) / std::max(to - from, 1.0);
}

// The mean merge still to come, when the token list was read: a merge spells a token ("a b" for
// "ab", one byte longer) and merges run in the tokens' order, so the last whole doubling of merges
// carries on as much longer as the tokens still to spell are than those it spelled (merges mapped
// onto tokens in proportion). Published vocabularies level off, or not, and this follows them.
std::optional<double> spelled_entry(const GgufProgress& p) {
    const GgufProgress::Profile& t = p.tokens;
    const int k = std::bit_width(p.array_done) - 1;
    if (!t.known || t.length == 0 || p.key != "tokenizer.ggml.merges" || k < 7) return std::nullopt;
    const double scale = double(t.length) / double(p.array_length);
    const double lo = double(uint64_t{1} << (k - 1)), hi = double(uint64_t{1} << k);
    const double recent = doubling_mean(p, k - 1);
    const double rest = recent + token_mean(t, double(p.array_done) * scale, double(t.length)) -
                        token_mean(t, lo * scale, hi * scale);
    return std::clamp(rest, recent / 2, 4 * recent);
}

// The mean entry still to come: of the two guesses (both long when lengths level off), the shorter.
double entry_to_come(const GgufProgress& p, uint64_t pos) {
    const double grown = grown_entry(p, pos);
    const std::optional<double> spelled = spelled_entry(p);
    return spelled ? std::min(*spelled, grown) : grown;
}

// What the vocabulary says about the arrays after its token list, in llama.cpp's order: tokens,
// scores (SentencePiece), token types, merges (BPE). `current_rest`: the current array's bytes to come.
struct Vocabulary {
    double tokens_bytes = 0;      // the token list's bytes, measured or extrapolated
    double counted_arrays = 0;    // scores and token types not reached: 4 bytes per token each
    bool merges_unknown = false;  // a BPE whose merges are not reached: their count is not read yet
};
Vocabulary vocabulary(const std::vector<model::MetadataEntry>& seen, const GgufProgress& p, uint64_t pos,
                      double current_rest) {
    Vocabulary v;
    double tokens;
    if (p.in_array && p.key == "tokenizer.ggml.tokens") {
        tokens = double(p.array_length);
        v.tokens_bytes = double(pos - p.array_start) + current_rest;
    } else if (const model::MetadataEntry* t = find_entry(seen, "tokenizer.ggml.tokens")) {
        const auto* a = std::get_if<model::ArraySummary>(&t->value);  // a hostile file may make it a scalar
        if (!a || a->length == 0) return v;
        tokens = double(a->length);
        v.tokens_bytes = double(a->byte_size);
    } else {
        return v;
    }
    auto has = [&](std::string_view k) { return p.key == k || find_entry(seen, k); };
    const model::MetadataEntry* m = find_entry(seen, "tokenizer.ggml.model");
    const std::string* model = m ? std::get_if<std::string>(&m->value) : nullptr;
    const bool spm = model && (*model == "llama" || *model == "t5"), bpe = model && *model == "gpt2";
    if (!has("tokenizer.ggml.token_type")) v.counted_arrays += kCountedArrayHead + 4 * tokens;
    if (spm && !has("tokenizer.ggml.scores")) v.counted_arrays += kCountedArrayHead + 4 * tokens;
    v.merges_unknown = bpe && !has("tokenizer.ggml.merges");
    return v;
}

// A tensor info's bytes: measured once some were read, else a typical one.
double tensor_info(const GgufProgress& p, uint64_t pos) {
    const bool reached = p.kv_done >= p.kv_count && p.tensors_done > 0;
    return reached ? double(pos - p.tensors_start) / double(p.tensors_done) : kTensorInfo;
}

// Bytes from an estimate that a hostile file's counts may make absurd (the caller caps it).
uint64_t to_bytes(double v) { return v < 1.8e19 ? uint64_t(v) : uint64_t{1} << 63; }

}  // namespace

HeaderEstimate estimate_gguf_header(const GgufProgress& p, const std::vector<model::MetadataEntry>& seen, uint64_t pos,
                                    uint64_t needed_end) {
    const uint64_t known = std::max(pos, needed_end);
    const double left = p.in_array && p.array_length > p.array_done ? double(p.array_length - p.array_done) : 0;
    const uint64_t kv_left = p.kv_count > p.kv_done ? p.kv_count - p.kv_done - 1 : 0;
    const uint64_t tensors_left = p.tensor_count > p.tensors_done ? p.tensor_count - p.tensors_done : 0;
    // the likely end leaves out arrays not reached yet: a cheap reader measures them when it gets there
    const uint64_t likely = known + uint64_t(left * std::max(likely_entry(p, pos), 1.0)) + kv_left * kSmallEntry + tensors_left * kLikelyTensorInfo;

    const double grown_rest = left * std::max(entry_to_come(p, pos), 1.0);
    const Vocabulary v = vocabulary(seen, p, pos, grown_rest);
    if (v.merges_unknown) {
        // entries grow: the mean so far undercounts the rest of this array, as the merges' floor does theirs
        const double floor_rest = left * std::max(mean_entry(p, pos), 1.0);
        const double tokens_floor = p.key == "tokenizer.ggml.tokens" ? v.tokens_bytes - grown_rest + floor_rest : v.tokens_bytes;
        return {likely, known + to_bytes(floor_rest + v.counted_arrays + kMergesSurelyPast * tokens_floor)};
    }
    const double total = double(known) + grown_rest + v.counted_arrays + double(kv_left * kSmallEntry) +
                         double(tensors_left) * tensor_info(p, pos);
    return {likely, to_bytes(total * (1 + kMargin)) + kSlack};
}

}  // namespace modelcat::format
