#include "zoo.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gguf_writer.hpp"
#include "safetensors_writer.hpp"

namespace modelcat::kit {

namespace {

namespace fs = std::filesystem;

// ggml type ids the schemes use.
constexpr uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14,
                   IQ4_XS = 23;

// ---- Architectures: real tensor names and shapes ----

// Symbolic dimensions, resolved per model size.
enum class Dim { none, embd, q, kv, ff, ff2, qkv, vocab, rope };

// What a tensor is for, which decides its type under a quant scheme.
enum class Role { f32, bulk, attn_v, attn_output, ffn_down, token_embd, output };

struct Part {
    std::string_view gguf, hf;  // kind in GGUF; in the HF state dict (empty: GGUF only)
    Dim d0, d1;                 // GGUF ne[0], ne[1] (none: 1-D)
    Role role;
};

struct Size {
    std::string_view label;
    uint32_t layers;
    uint64_t embd, q, kv, ff, vocab;
};

struct Arch {
    std::string_view name, hf_model_type, tokenizer;  // tokenizer: gpt2 (merges) or llama (scores)
    std::array<Size, 2> sizes;
    std::vector<Part> head, layer, tail;  // before, in and after the blocks
};

const Part kEmbd{"token_embd.weight", "model.embed_tokens.weight", Dim::embd, Dim::vocab, Role::token_embd};
const Part kRope{"rope_freqs.weight", "", Dim::rope, Dim::none, Role::f32};
const Part kOutNorm{"output_norm.weight", "model.norm.weight", Dim::embd, Dim::none, Role::f32};
const Part kOutNormBias{"output_norm.bias", "model.norm.bias", Dim::embd, Dim::none, Role::f32};
const Part kOutput{"output.weight", "lm_head.weight", Dim::embd, Dim::vocab, Role::output};

const Part kAttnNorm{"attn_norm.weight", "input_layernorm.weight", Dim::embd, Dim::none, Role::f32};
const Part kQ{"attn_q.weight", "self_attn.q_proj.weight", Dim::embd, Dim::q, Role::bulk};
const Part kK{"attn_k.weight", "self_attn.k_proj.weight", Dim::embd, Dim::kv, Role::bulk};
const Part kV{"attn_v.weight", "self_attn.v_proj.weight", Dim::embd, Dim::kv, Role::attn_v};
const Part kO{"attn_output.weight", "self_attn.o_proj.weight", Dim::q, Dim::embd, Role::attn_output};
const Part kFfnNorm{"ffn_norm.weight", "post_attention_layernorm.weight", Dim::embd, Dim::none, Role::f32};
const Part kGate{"ffn_gate.weight", "mlp.gate_proj.weight", Dim::embd, Dim::ff, Role::bulk};
const Part kUp{"ffn_up.weight", "mlp.up_proj.weight", Dim::embd, Dim::ff, Role::bulk};
const Part kDown{"ffn_down.weight", "mlp.down_proj.weight", Dim::ff, Dim::embd, Role::ffn_down};

Part bias(std::string_view gguf, std::string_view hf, Dim d) { return {gguf, hf, d, Dim::none, Role::f32}; }

const std::vector<Arch>& archs() {
    static const std::vector<Arch> all{
        {"llama", "llama", "gpt2",
         {{{"Llama-3.1-8B", 32, 4096, 4096, 1024, 14336, 128256}, {"Llama-3.2-3B", 28, 3072, 3072, 1024, 8192, 128256}}},
         {kRope, kEmbd}, {kAttnNorm, kQ, kK, kV, kO, kFfnNorm, kGate, kUp, kDown}, {kOutNorm, kOutput}},
        {"qwen2", "qwen2", "gpt2",
         {{{"Qwen2.5-7B", 28, 3584, 3584, 512, 18944, 152064}, {"Qwen2.5-3B", 36, 2048, 2048, 256, 11008, 151936}}},
         {kEmbd},
         {kAttnNorm, kQ, bias("attn_q.bias", "self_attn.q_proj.bias", Dim::q), kK,
          bias("attn_k.bias", "self_attn.k_proj.bias", Dim::kv), kV, bias("attn_v.bias", "self_attn.v_proj.bias", Dim::kv),
          kO, kFfnNorm, kGate, kUp, kDown},
         {kOutNorm, kOutput}},
        {"gemma2", "gemma2", "llama",
         {{{"Gemma-2-9B", 42, 3584, 4096, 2048, 14336, 256000}, {"Gemma-2-2B", 26, 2304, 2048, 1024, 9216, 256000}}},
         {kEmbd},
         {kAttnNorm, kQ, kK, kV, kO, bias("post_attention_norm.weight", "post_attention_layernorm.weight", Dim::embd),
          bias("ffn_norm.weight", "pre_feedforward_layernorm.weight", Dim::embd), kGate, kUp, kDown,
          bias("post_ffw_norm.weight", "post_feedforward_layernorm.weight", Dim::embd)},
         {kOutNorm}},
        {"phi3", "phi3", "llama",
         {{{"Phi-3-mini-4k", 32, 3072, 3072, 3072, 8192, 32064}, {"Phi-3-medium-4k", 40, 5120, 5120, 1280, 17920, 32064}}},
         {kEmbd},
         {kAttnNorm, {"attn_qkv.weight", "self_attn.qkv_proj.weight", Dim::embd, Dim::qkv, Role::attn_v}, kO, kFfnNorm,
          {"ffn_up.weight", "mlp.gate_up_proj.weight", Dim::embd, Dim::ff2, Role::bulk}, kDown},
         {kOutNorm, kOutput}},
        {"command-r", "cohere", "gpt2",
         {{{"Aya-23-8B", 32, 4096, 4096, 1024, 14336, 256000}, {"c4ai-command-r-v01", 40, 8192, 8192, 8192, 22528, 256000}}},
         {kEmbd}, {kAttnNorm, kQ, kK, kV, kO, kGate, kUp, kDown}, {kOutNorm}},
        {"starcoder2", "starcoder2", "gpt2",
         {{{"starcoder2-3b", 30, 3072, 3072, 256, 12288, 49152}, {"starcoder2-7b", 32, 4608, 4608, 512, 18432, 49152}}},
         {kEmbd},
         {kAttnNorm, bias("attn_norm.bias", "input_layernorm.bias", Dim::embd), kQ,
          bias("attn_q.bias", "self_attn.q_proj.bias", Dim::q), kK, bias("attn_k.bias", "self_attn.k_proj.bias", Dim::kv), kV,
          bias("attn_v.bias", "self_attn.v_proj.bias", Dim::kv), kO,
          bias("attn_output.bias", "self_attn.o_proj.bias", Dim::embd), kFfnNorm,
          bias("ffn_norm.bias", "post_attention_layernorm.bias", Dim::embd),
          {"ffn_up.weight", "mlp.c_fc.weight", Dim::embd, Dim::ff, Role::bulk}, bias("ffn_up.bias", "mlp.c_fc.bias", Dim::ff),
          {"ffn_down.weight", "mlp.c_proj.weight", Dim::ff, Dim::embd, Role::ffn_down},
          bias("ffn_down.bias", "mlp.c_proj.bias", Dim::embd)},
         {kOutNorm, kOutNormBias}},
    };
    return all;
}

uint64_t resolve(Dim d, const Size& s) {
    switch (d) {
        case Dim::none: return 0;
        case Dim::embd: return s.embd;
        case Dim::q: return s.q;
        case Dim::kv: return s.kv;
        case Dim::ff: return s.ff;
        case Dim::ff2: return 2 * s.ff;
        case Dim::qkv: return s.q + 2 * s.kv;
        case Dim::vocab: return s.vocab;
        case Dim::rope: return 64;
    }
    return 0;
}

// One tensor of a model, in llama.cpp's order.
struct Tensor {
    std::string gguf_name, hf_name;
    std::vector<uint64_t> ne;  // GGUF order; safetensors shape is the reverse
    Role role;
    int layer;  // -1 outside the blocks
};

Tensor make_tensor(const Part& p, const Size& s, int layer) {
    const std::string prefix = layer < 0 ? "" : "blk." + std::to_string(layer) + ".";
    const std::string hf_prefix = layer < 0 ? "" : "model.layers." + std::to_string(layer) + ".";
    std::vector<uint64_t> ne{resolve(p.d0, s)};
    if (p.d1 != Dim::none) ne.push_back(resolve(p.d1, s));
    return {prefix + std::string(p.gguf), p.hf.empty() ? "" : hf_prefix + std::string(p.hf), ne, p.role, layer};
}

std::vector<Tensor> model_tensors(const Arch& a, const Size& s) {
    std::vector<Tensor> out;
    for (const Part& p : a.head) out.push_back(make_tensor(p, s, -1));
    for (uint32_t l = 0; l < s.layers; ++l)
        for (const Part& p : a.layer) out.push_back(make_tensor(p, s, static_cast<int>(l)));
    for (const Part& p : a.tail) out.push_back(make_tensor(p, s, -1));
    return out;
}

// ---- Quant schemes, after llama.cpp's llama_tensor_get_type ----

// Which layers get the promoted type of attn_v / ffn_down.
enum class Promote { none, first_eighth, more_bits, shifted };

struct Scheme {
    std::string_view name;
    uint32_t file_type, bulk, token_embd, output, attn_output;
    std::array<uint32_t, 2> attn_v, ffn_down;  // normal, promoted
    Promote rule;
};

bool promoted(Promote rule, uint32_t i, uint32_t n) {
    const uint32_t e = n / 8;
    switch (rule) {
        case Promote::none: return false;
        case Promote::first_eighth: return i < e;
        case Promote::more_bits: return i < e || i >= 7 * n / 8 || (i - e) % 3 == 2;  // llama.cpp's use_more_bits
        case Promote::shifted: return i < e || i >= 7 * n / 8 || (i - e) % 3 == 0;   // an older converter's stride
    }
    return false;
}

uint32_t tensor_type(const Scheme& s, const Tensor& t, uint32_t layers) {
    if (t.ne.size() == 1) return F32;  // norms, biases and rope_freqs stay F32
    const uint32_t layer = static_cast<uint32_t>(t.layer);
    switch (t.role) {
        case Role::f32: return F32;
        case Role::bulk: return s.bulk;
        case Role::attn_v: return s.attn_v[promoted(s.rule, layer, layers)];
        case Role::attn_output: return s.attn_output;
        case Role::ffn_down: return s.ffn_down[promoted(s.rule, layer, layers)];
        case Role::token_embd: return s.token_embd;
        case Role::output: return s.output;
    }
    return s.bulk;
}

constexpr Scheme kQ4KM{"Q4_K_M", 15, Q4_K, Q4_K, Q6_K, Q4_K, {Q4_K, Q6_K}, {Q4_K, Q6_K}, Promote::more_bits};
constexpr Scheme kQ5KM{"Q5_K_M", 17, Q5_K, Q5_K, Q6_K, Q5_K, {Q5_K, Q6_K}, {Q5_K, Q6_K}, Promote::more_bits};

std::vector<Scheme> base_schemes(Promote km_rule) {
    Scheme q4km = kQ4KM, q5km = kQ5KM;
    q4km.rule = q5km.rule = km_rule;
    return {
        {"Q2_K", 10, Q2_K, Q2_K, Q6_K, Q3_K, {Q4_K, Q4_K}, {Q3_K, Q3_K}, Promote::none},
        {"Q3_K_S", 11, Q3_K, Q3_K, Q6_K, Q3_K, {Q3_K, Q3_K}, {Q3_K, Q3_K}, Promote::none},
        {"Q3_K_M", 12, Q3_K, Q3_K, Q6_K, Q4_K, {Q4_K, Q5_K}, {Q4_K, Q5_K}, Promote::first_eighth},
        {"Q3_K_L", 13, Q3_K, Q3_K, Q6_K, Q5_K, {Q5_K, Q5_K}, {Q5_K, Q5_K}, Promote::none},
        {"Q4_0", 2, Q4_0, Q4_0, Q6_K, Q4_0, {Q4_0, Q4_0}, {Q4_0, Q4_0}, Promote::none},
        {"IQ4_XS", 30, IQ4_XS, IQ4_XS, Q6_K, IQ4_XS, {IQ4_XS, IQ4_XS}, {IQ4_XS, IQ4_XS}, Promote::none},
        {"Q4_K_S", 14, Q4_K, Q4_K, Q6_K, Q4_K, {Q4_K, Q5_K}, {Q4_K, Q5_K}, Promote::first_eighth},
        q4km,
        {"Q5_K_S", 16, Q5_K, Q5_K, Q6_K, Q5_K, {Q5_K, Q5_K}, {Q5_K, Q5_K}, Promote::none},
        q5km,
        {"Q6_K", 18, Q6_K, Q6_K, Q6_K, Q6_K, {Q6_K, Q6_K}, {Q6_K, Q6_K}, Promote::none},
        {"Q8_0", 7, Q8_0, Q8_0, Q8_0, Q8_0, {Q8_0, Q8_0}, {Q8_0, Q8_0}, Promote::none},
        {"F16", 1, F16, F16, F16, F16, {F16, F16}, {F16, F16}, Promote::none},
    };
}

// Three uploaders: one adds _L variants (embeddings and output at Q8_0, same
// file_type), one quantizes with an older promotion stride, one plainly.
struct Uploader {
    std::string_view dir;
    std::vector<Scheme> schemes;
    bool imatrix;
};

const std::array<Uploader, 3>& uploaders() {
    static const std::array<Uploader, 3> all = [] {
        std::vector<Scheme> with_l = base_schemes(Promote::more_bits);
        Scheme q4kl = kQ4KM, q5kl = kQ5KM;
        q4kl.name = "Q4_K_L";
        q5kl.name = "Q5_K_L";
        q4kl.token_embd = q4kl.output = q5kl.token_embd = q5kl.output = Q8_0;
        with_l.push_back(q4kl);
        with_l.push_back(q5kl);
        return std::array<Uploader, 3>{Uploader{"lquants", with_l, true},
                                       Uploader{"oldquants", base_schemes(Promote::shifted), false},
                                       Uploader{"plainquants", base_schemes(Promote::more_bits), false}};
    }();
    return all;
}

// Big files are published as gguf-split sets.
uint32_t shard_count(const Scheme& s, const Size& size) {
    if (s.name == "F16") return size.layers >= 40 ? 3 : 2;
    if (s.name == "Q8_0" && size.layers >= 40) return 2;
    return 1;
}

// ---- Metadata: a small tokenizer per architecture, shared by its models ----

std::string word(uint64_t i) {
    std::string w;
    for (uint64_t k = i * 7919 + 13; w.size() < 3 + i % 5; k /= 26) w += static_cast<char>('a' + k % 26);
    return w;
}

struct Tokenizer {
    GgufValue tokens, token_type, extra;  // extra: merges (gpt2) or scores (llama)
};

constexpr size_t kVocab = 512;  // small on purpose: the zoo must stay well under 1 GB on disk

Tokenizer make_tokenizer(const Arch& a) {
    std::vector<std::string> tokens;
    std::vector<int32_t> types;
    for (size_t i = 0; i < kVocab; ++i) {
        tokens.push_back(i < 4 ? "<|special_" + std::to_string(i) + "|>" : word(i) + std::string(a.name.substr(0, 1)));
        types.push_back(i < 4 ? 3 : 1);
    }
    if (a.tokenizer == "gpt2") {
        std::vector<std::string> merges;
        for (size_t i = 0; i < kVocab; ++i) merges.push_back(word(i) + " " + word(i * 31 + 7));
        return {GgufValue::string_array(tokens), GgufValue::i32_array(types), GgufValue::string_array(merges)};
    }
    std::vector<GgufValue> scores;
    for (size_t i = 0; i < kVocab; ++i) scores.push_back(GgufValue::f32(-static_cast<float>(i)));
    return {GgufValue::string_array(tokens), GgufValue::i32_array(types), GgufValue::array(GgufType::f32, scores)};
}

const Tokenizer& tokenizer(size_t arch) {
    static std::map<size_t, Tokenizer> cache;
    auto it = cache.find(arch);
    if (it == cache.end()) it = cache.emplace(arch, make_tokenizer(archs()[arch])).first;
    return it->second;
}

// One base model and its quants, as an uploader publishes them.
struct Family {
    size_t arch_index;
    const Arch* arch;
    const Size* size;
    const Uploader* uploader;
    std::string name;      // Qwen2.5-7B-Coder-0042
    std::string finetune;  // Coder
    bool checkpoint;       // its BF16 safetensors source is in the zoo too
};

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: varied, deterministic choices
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

Family family(uint64_t i) {
    static constexpr std::array<std::string_view, 10> kFinetunes{
        "Instruct", "Chat", "Coder", "Math", "Storywriter", "Abliterated", "DPO", "SFT", "Reasoning", "Tool"};
    Family f;
    f.arch_index = i % archs().size();
    f.arch = &archs()[f.arch_index];
    f.size = &f.arch->sizes[(i / archs().size()) % 2];
    f.uploader = &uploaders()[(i / (2 * archs().size())) % uploaders().size()];
    f.finetune = std::string(kFinetunes[mix(i) % kFinetunes.size()]);
    char serial[8];
    std::snprintf(serial, sizeof serial, "%04u", static_cast<unsigned>(i));
    f.name = std::string(f.size->label) + "-" + f.finetune + "-" + serial;
    f.checkpoint = i % 8 == 3;
    return f;
}

void add_metadata(GgufWriter& w, const Family& f, const Scheme& s) {
    const std::string a(f.arch->name);
    const Size& z = *f.size;
    const auto str = GgufValue::str;
    const auto u32 = GgufValue::u32;
    w.add_kv("general.architecture", str(a));
    w.add_kv("general.type", str("model"));
    w.add_kv("general.name", str(f.name));
    w.add_kv("general.basename", str(std::string(z.label)));
    w.add_kv("general.finetune", str(f.finetune));
    w.add_kv("general.size_label", str(std::string(z.label.substr(z.label.rfind('-') + 1))));
    w.add_kv("general.license", str("apache-2.0"));
    w.add_kv(a + ".block_count", u32(z.layers));
    w.add_kv(a + ".context_length", u32(8192u << (mix(f.arch_index) % 5)));
    w.add_kv(a + ".embedding_length", u32(static_cast<uint32_t>(z.embd)));
    w.add_kv(a + ".feed_forward_length", u32(static_cast<uint32_t>(z.ff)));
    w.add_kv(a + ".attention.head_count", u32(static_cast<uint32_t>(z.q / 128)));
    w.add_kv(a + ".attention.head_count_kv", u32(static_cast<uint32_t>(z.kv / 128)));
    w.add_kv(a + ".rope.freq_base", GgufValue::f32(10000.0f));
    w.add_kv(a + ".attention.layer_norm_rms_epsilon", GgufValue::f32(1e-6f));
    w.add_kv("general.file_type", u32(s.file_type));
    const Tokenizer& t = tokenizer(f.arch_index);
    w.add_kv("tokenizer.ggml.model", str(std::string(f.arch->tokenizer)));
    w.add_kv("tokenizer.ggml.tokens", t.tokens);
    w.add_kv("tokenizer.ggml.token_type", t.token_type);
    w.add_kv(f.arch->tokenizer == "gpt2" ? "tokenizer.ggml.merges" : "tokenizer.ggml.scores", t.extra);
    w.add_kv("tokenizer.ggml.bos_token_id", u32(1));
    w.add_kv("tokenizer.ggml.eos_token_id", u32(2));
    w.add_kv("tokenizer.chat_template", str("{% for m in messages %}<|" + a + "|>{{ m['content'] }}{% endfor %}"));
    w.add_kv("general.quantization_version", u32(2));
    if (!f.uploader->imatrix) return;
    w.add_kv("quantize.imatrix.file", str("/imatrix/" + f.name + ".imatrix"));
    w.add_kv("quantize.imatrix.dataset", str("/imatrix/calibration.txt"));
    w.add_kv("quantize.imatrix.entries_count", GgufValue::i32(static_cast<int32_t>(7 * z.layers)));
    w.add_kv("quantize.imatrix.chunks_count", GgufValue::i32(125));
}

// ---- Writing ----

fs::path gguf_dir(const fs::path& root, const Family& f) { return root / f.uploader->dir / (f.name + "-GGUF"); }

// Writes one quant (a single file or a split set); returns its first file.
fs::path write_quant(const fs::path& dir, const Family& f, const Scheme& s, ZooCounts& n) {
    const std::vector<Tensor> tensors = model_tensors(*f.arch, *f.size);
    const uint32_t shards = shard_count(s, *f.size);
    const std::string stem = f.name + "-" + std::string(s.name);
    fs::path first;
    for (uint32_t k = 0; k < shards; ++k) {
        GgufWriter w;
        if (k == 0) add_metadata(w, f, s);
        if (shards > 1) {
            w.add_kv("split.no", GgufValue::u16(static_cast<uint16_t>(k)));
            w.add_kv("split.count", GgufValue::u16(static_cast<uint16_t>(shards)));
            w.add_kv("split.tensors.count", GgufValue::i32(static_cast<int32_t>(tensors.size())));
        }
        const size_t begin = tensors.size() * k / shards, end = tensors.size() * (k + 1) / shards;
        for (size_t i = begin; i < end; ++i)
            w.add_tensor(tensors[i].gguf_name, tensors[i].ne, tensor_type(s, tensors[i], f.size->layers));
        char suffix[32] = "";
        if (shards > 1) std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u", k + 1, shards);
        const fs::path path = dir / (stem + suffix + ".gguf");
        w.write(path);
        if (k == 0) first = path;
        ++n.gguf_files;
    }
    n.tensors += tensors.size();
    n.split_sets += shards > 1;
    return first;
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) throw std::runtime_error("zoo: cannot write " + path.string());
}

std::string config_json(const Family& f) {
    const Size& z = *f.size;
    return "{\n  \"model_type\": \"" + std::string(f.arch->hf_model_type) + "\",\n  \"num_hidden_layers\": " +
           std::to_string(z.layers) + ",\n  \"hidden_size\": " + std::to_string(z.embd) +
           ",\n  \"intermediate_size\": " + std::to_string(z.ff) + ",\n  \"vocab_size\": " + std::to_string(z.vocab) +
           ",\n  \"torch_dtype\": \"bfloat16\"\n}\n";
}

// The BF16 source: shards of the state dict (each sorted by name, as
// safetensors stores it), model.safetensors.index.json and config.json.
void write_checkpoint(const fs::path& root, const Family& f, ZooCounts& n) {
    const fs::path dir = root / "sources" / f.name;
    fs::create_directories(dir);
    std::vector<Tensor> tensors = model_tensors(*f.arch, *f.size);
    std::erase_if(tensors, [](const Tensor& t) { return t.hf_name.empty(); });
    const size_t shards = f.size->layers >= 40 ? 3 : 2;
    std::vector<std::pair<std::string, std::string>> weight_map;
    uint64_t total = 0;
    for (size_t k = 0; k < shards; ++k) {
        std::vector<Tensor> part(tensors.begin() + static_cast<std::ptrdiff_t>(tensors.size() * k / shards),
                                 tensors.begin() + static_cast<std::ptrdiff_t>(tensors.size() * (k + 1) / shards));
        std::sort(part.begin(), part.end(), [](const Tensor& a, const Tensor& b) { return a.hf_name < b.hf_name; });
        char file[64];
        std::snprintf(file, sizeof file, "model-%05zu-of-%05zu.safetensors", k + 1, shards);
        SafetensorsWriter w;
        w.set_metadata({{"format", "pt"}});
        for (const Tensor& t : part) {
            w.add(t.hf_name, "BF16", {t.ne.rbegin(), t.ne.rend()});
            weight_map.emplace_back(t.hf_name, file);
        }
        w.write(dir / file);
        total += w.data_bytes();
    }
    std::sort(weight_map.begin(), weight_map.end());
    std::string index = "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(total) + "\n  },\n  \"weight_map\": {\n";
    for (size_t i = 0; i < weight_map.size(); ++i)
        index += "    \"" + weight_map[i].first + "\": \"" + weight_map[i].second + "\"" + (i + 1 < weight_map.size() ? ",\n" : "\n");
    write_text(dir / "model.safetensors.index.json", index + "  }\n}\n");
    write_text(dir / "config.json", config_json(f));
    ++n.checkpoints;
    n.tensors += tensors.size();
}

// A mirror holding the same file under another path: a hard link, one inode.
void link_copy(const fs::path& root, const fs::path& file, ZooCounts& n) {
    const fs::path copy = root / "mirror" / fs::relative(file, root);
    fs::create_directories(copy.parent_path());
    fs::remove(copy);
    fs::create_hard_link(file, copy);
    ++n.hard_links;
}

constexpr uint64_t kLinkEvery = 40;  // one single-file quant in 40 also sits in the mirror

}  // namespace

ZooCounts write_zoo(const fs::path& dir, uint64_t models) {
    ZooCounts n;
    for (uint64_t i = 0; n.models < models; ++i) {
        const Family f = family(i);
        ++n.families;
        fs::create_directories(gguf_dir(dir, f));
        for (const Scheme& s : f.uploader->schemes) {
            if (n.models == models) break;
            const fs::path first = write_quant(gguf_dir(dir, f), f, s, n);
            ++n.models;
            if (n.models < models && shard_count(s, *f.size) == 1 && n.gguf_files % kLinkEvery == 0) {
                link_copy(dir, first, n);
                n.tensors += model_tensors(*f.arch, *f.size).size();
                ++n.models;
            }
        }
        if (f.checkpoint && n.models < models) {
            write_checkpoint(dir, f, n);
            ++n.models;
        }
    }
    return n;
}

}  // namespace modelcat::kit
