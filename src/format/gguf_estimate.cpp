#include "format/gguf_estimate.hpp"

#include <algorithm>
#include <string_view>

namespace modelcat::format {

namespace {

// How BPE merges compare with the token list, by tokenizer.ggml.pre: merges
// per token, and bytes per merge entry per byte of token entry. Measured on
// real vocabularies: gpt-2 and starcoder (the fixtures: 0.99 and 1.07), and
// Llama 3 (Meta-Llama-3.1-8B-Instruct: 280,147 merges for 128,256 tokens in a 7.8 MB header).
struct MergeShape {
    std::string_view pre;
    double per_token, bytes_ratio;
};
constexpr MergeShape kLlama3Merges{"llama-bpe", 2.184, 1.45};
constexpr MergeShape kDefaultMerges{"", 1.0, 1.1};
constexpr double kEstimateMargin = 1.05;  // element sizes vary: aim a little long rather than read a third time
constexpr uint64_t kEstimateSlack = 16 << 10;  // small entries after the arrays (bos/eos ids, templates)

const model::MetadataEntry* find_entry(const std::vector<model::MetadataEntry>& seen, std::string_view key) {
    for (const auto& e : seen)
        if (e.key == key) return &e;
    return nullptr;
}

// Room for the tokenizer arrays that follow tokenizer.ggml.tokens but have not
// been reached yet, so that one read sized from this covers a Llama 3 header.
double unseen_tokenizer_bytes(const std::vector<model::MetadataEntry>& seen, const GgufProgress& p, uint64_t pos) {
    double tokens, per_token;  // count, encoded bytes per entry
    if (p.in_array && p.key == "tokenizer.ggml.tokens" && p.array_done > 0) {
        tokens = double(p.array_length);
        per_token = double(pos - p.array_start) / double(p.array_done);
    } else if (const model::MetadataEntry* t = find_entry(seen, "tokenizer.ggml.tokens")) {
        const auto* a = std::get_if<model::ArraySummary>(&t->value);  // a hostile file may make it a scalar
        if (!a || a->length == 0) return 0;
        tokens = double(a->length);
        per_token = double(a->byte_size) / double(a->length);
    } else {
        return 0;
    }
    auto has = [&](std::string_view k) { return p.key == k || find_entry(seen, k); };
    auto text = [&](std::string_view k) {
        const model::MetadataEntry* e = find_entry(seen, k);
        const std::string* s = e ? std::get_if<std::string>(&e->value) : nullptr;
        return s ? *s : std::string();
    };
    double extra = 0;
    if (!has("tokenizer.ggml.token_type")) extra += tokens * 4;
    if (text("tokenizer.ggml.model") == "gpt2" && !has("tokenizer.ggml.merges")) {
        MergeShape m = text("tokenizer.ggml.pre") == kLlama3Merges.pre ? kLlama3Merges : kDefaultMerges;
        extra += tokens * m.per_token * per_token * m.bytes_ratio;
    } else if (text("tokenizer.ggml.model") == "llama" && !has("tokenizer.ggml.scores")) {
        extra += tokens * 4;
    }
    return extra;
}

// Guess of the whole header from what was parsed: the rest of the current
// array at its average element size, the tokenizer arrays still to come, then
// the remaining entries and tensors.
}  // namespace

HeaderEstimate estimate_gguf_header(const GgufProgress& p, const std::vector<model::MetadataEntry>& seen, uint64_t pos,
                                    uint64_t needed_end) {
    uint64_t est = std::max(pos, needed_end);
    double rest = 0;
    if (p.in_array && p.array_length > p.array_done) {
        double avg = p.array_done > 0 ? double(pos - p.array_start) / double(p.array_done) : 16;
        if (p.mark_done > 0 && p.array_done > p.mark_done) {
            // entries growing longer: extend the line through the mean of all entries
            // (centred at done/2) and of the recent ones (centred at (mark+done)/2)
            // to the centre of those still to come
            double recent = double(pos - p.mark_pos) / double(p.array_done - p.mark_done);
            if (recent > avg) {
                double slope = (recent - avg) / (double(p.mark_done) / 2);
                avg = std::min(4 * recent, recent + slope * double(p.array_length - p.mark_done) / 2);
            }
        }
        rest += double(p.array_length - p.array_done) * std::max(avg, 1.0);
    }
    uint64_t kv_left = p.kv_count > p.kv_done ? p.kv_count - p.kv_done - 1 : 0;
    uint64_t tensors_left = p.tensor_count > p.tensors_done ? p.tensor_count - p.tensors_done : 0;
    uint64_t small = kv_left * 64 + tensors_left * 96;
    // the likely end leaves out arrays not reached yet: a cheap reader measures them when it gets there
    double unseen = unseen_tokenizer_bytes(seen, p, pos);
    return {est + uint64_t(rest) + small, est + uint64_t((rest + unseen) * kEstimateMargin) + small + kEstimateSlack};
}

}  // namespace modelcat::format
