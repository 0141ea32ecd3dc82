#include "ranked_vocab.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bpe_vocab.hpp"
#include "llama_tokenizer.hpp"

namespace modelcat::kit {

namespace {

constexpr uint64_t kSpecials = 256;  // Llama 3's reserved block at the end of a BPE vocabulary
const std::string kSpace = "\xC4\xA0";  // "Ġ": byte-level BPE's space
const std::string kPiece = "\xE2\x96\x81";  // "▁": SentencePiece's space

// A distinct token per rank: a space or none, the rank in lower-case base 26, then
// upper-case filler up to `len` bytes (the case marks where the rank ends, so none repeats).
std::string ranked_token(uint64_t rank, size_t len, const std::string& space) {
    std::string s = rank % 3 == 0 ? space : "";
    for (uint64_t k = rank; k > 0 || s.empty() || s == space; k /= 26) s += static_cast<char>('a' + k % 26);
    for (uint64_t k = rank * 7919; s.size() < len; k /= 26) s += static_cast<char>('A' + k % 26);
    return s;
}

// Lengths grow quickly over the first ranks and level off near 8.5 bytes, with a little jitter.
size_t ranked_length(uint64_t i, uint64_t n) {
    const double r = double(i) / double(n);
    const double jitter = double((i * 7) % 5) - 2;
    return std::max<size_t>(2, static_cast<size_t>(3.0 + 6.5 * (1.0 - std::exp(-4.0 * r)) + jitter));  // no byte token again
}

std::vector<std::string> ordinary_tokens(uint64_t count, const std::string& space) {
    std::vector<std::string> out;
    out.reserve(count);
    for (uint64_t i = 0; i < count; ++i) out.push_back(ranked_token(i, ranked_length(i, count), space));
    return out;
}

// Where a token may be split into two tokens: any byte boundary but inside its leading space.
size_t split_count(const std::string& t) { return t.size() - 1 - (t.starts_with(kSpace) ? 1 : 0); }

// Merges in token order, a token of k split points getting merges in proportion to k (at least one, at most k).
std::vector<std::string> ranked_merges(const std::vector<std::string>& ordinary, double per_token) {
    double splits = 0;
    for (const auto& t : ordinary) splits += double(split_count(t));
    const double per_split = per_token * double(ordinary.size()) / splits;
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(per_token * double(ordinary.size())) + ordinary.size());
    double quota = 0;
    for (const auto& t : ordinary) {
        const size_t k = split_count(t), first = t.size() - k;
        quota += per_split * double(k);
        const size_t n = quota < 1 ? 1 : std::min(k, static_cast<size_t>(quota));
        quota -= double(n);
        for (size_t j = 0; j < n; ++j) {
            const size_t at = first + (j * 5 + t.size() / 2) % k;
            out.push_back(t.substr(0, at) + " " + t.substr(at));
        }
    }
    return out;
}

void add_bpe(GgufWriter& w, const VocabShape& s) {
    std::vector<std::string> tokens = byte_level_alphabet();
    const std::vector<std::string> ordinary = ordinary_tokens(s.tokens - tokens.size() - kSpecials, kSpace);
    std::vector<std::string> merges = ranked_merges(ordinary, s.merges_per_token);
    tokens.insert(tokens.end(), ordinary.begin(), ordinary.end());
    for (uint32_t i = 0; tokens.size() < s.tokens; ++i) tokens.push_back(llama3_added_token(i));
    std::vector<int32_t> types(tokens.size(), 1);
    std::fill(types.end() - kSpecials, types.end(), 3);  // control
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
    w.add_kv("tokenizer.ggml.pre", GgufValue::str(s.pre));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(std::move(tokens)));
    w.add_kv("tokenizer.ggml.token_type", GgufValue::i32_array(types));
    w.add_kv("tokenizer.ggml.merges", GgufValue::string_array(std::move(merges)));
    w.add_kv("tokenizer.ggml.bos_token_id", GgufValue::u32(static_cast<uint32_t>(s.tokens - kSpecials)));
    w.add_kv("tokenizer.ggml.eos_token_id", GgufValue::u32(static_cast<uint32_t>(s.tokens - kSpecials + 9)));
}

// SentencePiece's order: <unk> <s> </s>, the 256 byte tokens, then pieces with descending scores.
void add_spm(GgufWriter& w, const VocabShape& s) {
    std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        tokens.emplace_back(hex);
    }
    std::vector<int32_t> types(tokens.size(), 6);  // byte
    types[0] = 2, types[1] = types[2] = 3;        // unknown, control
    const std::vector<std::string> pieces = ordinary_tokens(s.tokens - tokens.size(), kPiece);
    tokens.insert(tokens.end(), pieces.begin(), pieces.end());
    types.resize(tokens.size(), 1);
    std::vector<GgufValue> scores;
    scores.reserve(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) scores.push_back(GgufValue::f32(i < 259 ? 0.0f : -float(i - 259)));
    w.add_kv("tokenizer.ggml.model", GgufValue::str("llama"));
    w.add_kv("tokenizer.ggml.pre", GgufValue::str(s.pre));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(std::move(tokens)));
    w.add_kv("tokenizer.ggml.scores", GgufValue::array(GgufType::f32, std::move(scores)));
    w.add_kv("tokenizer.ggml.token_type", GgufValue::i32_array(types));
    w.add_kv("tokenizer.ggml.bos_token_id", GgufValue::u32(1));
    w.add_kv("tokenizer.ggml.eos_token_id", GgufValue::u32(2));
}

}  // namespace

void add_ranked_vocab(GgufWriter& w, const VocabShape& shape) {
    if (shape.merges_per_token > 0) add_bpe(w, shape);
    else add_spm(w, shape);
}

GgufWriter ranked_vocab_model(const VocabShape& shape) {
    const auto u32 = GgufValue::u32;
    const uint64_t n = shape.tokens, embd = 4096, ff = 14336;
    GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("general.name", GgufValue::str(shape.name));
    w.add_kv("llama.block_count", u32(32));
    w.add_kv("llama.context_length", u32(131072));
    w.add_kv("llama.embedding_length", u32(embd));
    w.add_kv("llama.feed_forward_length", u32(ff));
    w.add_kv("llama.attention.head_count", u32(32));
    w.add_kv("llama.attention.head_count_kv", u32(8));
    w.add_kv("llama.rope.freq_base", GgufValue::f32(500000.0f));
    w.add_kv("llama.attention.layer_norm_rms_epsilon", GgufValue::f32(1e-5f));
    w.add_kv("general.file_type", u32(15));  // Q4_K_M
    w.add_kv("llama.vocab_size", u32(static_cast<uint32_t>(n)));
    add_ranked_vocab(w, shape);
    w.add_kv("tokenizer.chat_template", GgufValue::str(kit_chat_template()));
    w.add_kv("general.quantization_version", u32(2));
    w.add_tensor("token_embd.weight", {embd, n}, kQ4_K);
    for (int b = 0; b < 32; ++b) {
        const std::string p = "blk." + std::to_string(b) + ".";
        w.add_tensor(p + "attn_norm.weight", {embd}, kF32);
        w.add_tensor(p + "attn_q.weight", {embd, embd}, kQ4_K);
        w.add_tensor(p + "attn_k.weight", {embd, 1024}, kQ4_K);
        w.add_tensor(p + "attn_v.weight", {embd, 1024}, kQ4_K);
        w.add_tensor(p + "attn_output.weight", {embd, embd}, kQ4_K);
        w.add_tensor(p + "ffn_norm.weight", {embd}, kF32);
        w.add_tensor(p + "ffn_gate.weight", {embd, ff}, kQ4_K);
        w.add_tensor(p + "ffn_up.weight", {embd, ff}, kQ4_K);
        w.add_tensor(p + "ffn_down.weight", {ff, embd}, kQ4_K);
    }
    w.add_tensor("output_norm.weight", {embd}, kF32);
    w.add_tensor("output.weight", {embd, n}, kQ4_K);
    return w;
}

std::vector<VocabShape> vocab_shapes() {
    return {{"bpe-32k", 32'768, 1.0, "gpt-2"},
            {"bpe-64k", 65'536, 1.0, "gpt-2"},
            {"bpe-128k-llama3", 128'256, 2.184, "llama-bpe"},
            {"bpe-152k", 151'936, 1.0, "qwen2"},
            {"bpe-248k", 248'320, 1.0, "qwen35"},
            {"spm-256k", 256'000, 0.0, "default"},
            {"bpe-512k", 524'288, 2.0, "llama-bpe"}};  // a header over 16 MiB
}

std::vector<std::filesystem::path> write_vocab_models(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::filesystem::path> out;
    for (const auto& s : vocab_shapes()) {
        out.push_back(dir / (s.name + ".gguf"));
        ranked_vocab_model(s).write(out.back());
    }
    return out;
}

}  // namespace modelcat::kit
