#include "llama_conversion.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>

#include "dequant/dequant.hpp"
#include "gguf_writer.hpp"
#include "kit_quantize.hpp"
#include "llama_tokenizer.hpp"
#include "model/ggml_types.hpp"
#include "safetensors_writer.hpp"

namespace modelcat::kit {

namespace {

constexpr double kRopeTheta = 500000.0;
constexpr float kRopeFactor = 8.0f, kLowFreqFactor = 1.0f, kHighFreqFactor = 4.0f;
constexpr float kOriginalContext = 8192.0f;
constexpr uint32_t kContextLength = 131072;
constexpr double kRmsEps = 1e-5;

struct SourceSpec {
    std::string name;
    std::vector<uint64_t> shape;
};

std::vector<SourceSpec> source_specs(const LlamaShape& s) {
    uint64_t q = uint64_t{s.heads} * s.head_dim(), kv = uint64_t{s.kv_heads} * s.head_dim();
    std::vector<SourceSpec> v{{"model.embed_tokens.weight", {s.vocab, s.hidden}}};
    for (uint32_t l = 0; l < s.layers; ++l) {
        std::string p = "model.layers." + std::to_string(l) + ".";
        v.push_back({p + "input_layernorm.weight", {s.hidden}});
        v.push_back({p + "self_attn.q_proj.weight", {q, s.hidden}});
        v.push_back({p + "self_attn.k_proj.weight", {kv, s.hidden}});
        v.push_back({p + "self_attn.v_proj.weight", {kv, s.hidden}});
        v.push_back({p + "self_attn.o_proj.weight", {s.hidden, q}});
        v.push_back({p + "post_attention_layernorm.weight", {s.hidden}});
        v.push_back({p + "mlp.gate_proj.weight", {s.ffn, s.hidden}});
        v.push_back({p + "mlp.up_proj.weight", {s.ffn, s.hidden}});
        v.push_back({p + "mlp.down_proj.weight", {s.hidden, s.ffn}});
    }
    v.push_back({"model.norm.weight", {s.hidden}});
    if (!s.tied) v.push_back({"lm_head.weight", {s.vocab, s.hidden}});
    return v;
}

uint64_t elements(const std::vector<uint64_t>& shape) {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

// The tensor's values as the source stores them (BF16: rounded to BF16), a
// function of the seed and its name only.
std::vector<float> source_values(const LlamaShape& s, const SourceSpec& spec) {
    uint64_t state = s.seed * 0x9E3779B97F4A7C15ull;
    for (char c : spec.name) state = (state ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
    auto next = [&state] {  // splitmix64
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    bool norm = spec.shape.size() == 1;
    std::vector<float> v(elements(spec.shape));
    for (auto& x : v) {
        uint64_t r = next();  // four 16-bit uniforms summed: roughly normal
        double u = 0;
        for (int k = 0; k < 4; ++k) u += static_cast<double>((r >> (16 * k)) & 0xFFFF) / 65536.0;
        double centred = (u - 2.0) * 1.732;  // unit variance
        x = static_cast<float>(norm ? 1.0 + 0.1 * centred : 0.02 * centred);
        if (s.source_dtype == "BF16") x = dequant::bf16_to_float(dequant::float_to_bf16(x));
    }
    return v;
}

std::string gguf_name(const std::string& source) {
    static const std::map<std::string, std::string> kWhole{
        {"model.embed_tokens.weight", "token_embd.weight"},
        {"model.norm.weight", "output_norm.weight"},
        {"lm_head.weight", "output.weight"}};
    static const std::map<std::string, std::string> kLayer{
        {"input_layernorm.weight", "attn_norm.weight"},   {"self_attn.q_proj.weight", "attn_q.weight"},
        {"self_attn.k_proj.weight", "attn_k.weight"},     {"self_attn.v_proj.weight", "attn_v.weight"},
        {"self_attn.o_proj.weight", "attn_output.weight"}, {"post_attention_layernorm.weight", "ffn_norm.weight"},
        {"mlp.gate_proj.weight", "ffn_gate.weight"},      {"mlp.up_proj.weight", "ffn_up.weight"},
        {"mlp.down_proj.weight", "ffn_down.weight"}};
    if (auto it = kWhole.find(source); it != kWhole.end()) return it->second;
    size_t layer_start = std::string("model.layers.").size(), dot = source.find('.', layer_start);
    return "blk." + source.substr(layer_start, dot - layer_start) + "." + kLayer.at(source.substr(dot + 1));
}

// convert_hf_to_gguf's LlamaModel.permute: reshape(n_head, 2, d/2, cols),
// swap axes 1 and 2, reshape back.
std::vector<float> permute_rows(const std::vector<float>& v, uint64_t rows, uint64_t cols, uint32_t n_head) {
    std::vector<float> out(v.size());
    uint64_t d = rows / n_head;
    for (uint64_t h = 0; h < n_head; ++h)
        for (uint64_t i = 0; i < d / 2; ++i)
            for (uint64_t j = 0; j < 2; ++j) {
                uint64_t to = h * d + 2 * i + j, from = h * d + j * (d / 2) + i;
                std::copy_n(v.begin() + from * cols, cols, out.begin() + to * cols);
            }
    return out;
}

std::vector<float> transpose(const std::vector<float>& v, uint64_t rows, uint64_t cols) {
    std::vector<float> out(v.size());
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) out[c * rows + r] = v[r * cols + c];
    return out;
}

// rope_freqs.weight as the converter computes it, in float32 like torch.
std::vector<float> rope_factors(const LlamaShape& s, bool scaled) {
    uint32_t dim = s.head_dim();
    float low_wavelen = kOriginalContext / kLowFreqFactor, high_wavelen = kOriginalContext / kHighFreqFactor;
    std::vector<float> out;
    for (uint32_t i = 0; i < dim; i += 2) {
        float freq = 1.0f / std::pow(static_cast<float>(kRopeTheta), static_cast<float>(i) / static_cast<float>(dim));
        float wavelen = 2.0f * static_cast<float>(M_PI) / freq;
        float f = 1.0f;
        if (wavelen > low_wavelen) {
            f = kRopeFactor;
        } else if (wavelen >= high_wavelen) {
            float smooth = (kOriginalContext / wavelen - kLowFreqFactor) / (kHighFreqFactor - kLowFreqFactor);
            f = 1.0f / ((1.0f - smooth) / kRopeFactor + smooth);
        }
        out.push_back(scaled ? f : 1.0f);
    }
    return out;
}

template <typename T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
    std::vector<uint8_t> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());  // little-endian host, as the formats store
    return out;
}

void write_at(std::fstream& f, uint64_t offset, const std::vector<uint8_t>& bytes) {
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("llama_conversion: write failed");
}

std::string config_json(const LlamaShape& s) {
    auto n = [](uint64_t v) { return std::to_string(v); };
    KitTokenizer t = kit_tokenizer(s.vocab);
    return "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n  \"hidden_size\": " + n(s.hidden) +
           ",\n  \"intermediate_size\": " + n(s.ffn) + ",\n  \"num_hidden_layers\": " + n(s.layers) +
           ",\n  \"num_attention_heads\": " + n(s.heads) + ",\n  \"num_key_value_heads\": " + n(s.kv_heads) +
           ",\n  \"head_dim\": " + n(s.head_dim()) + ",\n  \"vocab_size\": " + n(s.vocab) +
           ",\n  \"max_position_embeddings\": 131072,\n  \"rms_norm_eps\": 1e-05,\n  \"rope_theta\": 500000.0,\n"
           "  \"rope_scaling\": {\"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, "
           "\"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"},\n  \"tie_word_embeddings\": " +
           std::string(s.tied ? "true" : "false") + ",\n  \"bos_token_id\": " + n(t.bos()) + ",\n  \"eos_token_id\": [" +
           n(t.end_of_text()) + ", " + n(t.eom()) + ", " + n(t.eot()) + "],\n  \"torch_dtype\": \"bfloat16\"\n}\n";
}

// Values in a ggml type: BF16 and F16 rounded to nearest even (BF16 exact for values from a BF16 source).
std::vector<uint8_t> encode(const std::vector<float>& f, uint32_t type) {
    if (type == kF32) return as_bytes(f);
    if (type == kBf16 || type == kF16) {
        std::vector<uint16_t> b(f.size());
        for (size_t i = 0; i < f.size(); ++i) b[i] = type == kBf16 ? dequant::float_to_bf16(f[i]) : dequant::float_to_fp16(f[i]);
        return as_bytes(b);
    }
    std::vector<uint8_t> out;
    if (type == kQ8_0) quantize_q8_0(f, out);
    else if (type == kQ4_K) quantize_q4_k(f, out);
    else out.resize(model::ggml_expected_bytes(type, f.size()).value_or(f.size()));  // no quantizer here: zero blocks (a byte an element for an id ggml lacks)
    return out;
}

}  // namespace

std::string defect_tensor(ConversionDefect d) {
    switch (d) {
        case ConversionDefect::none: return "";
        case ConversionDefect::changed_element: return "blk.1.attn_v.weight";
        case ConversionDefect::unpermuted_q: return "blk.0.attn_q.weight";
        case ConversionDefect::unpermuted_k: return "blk.0.attn_k.weight";
        case ConversionDefect::swapped_layers: return "blk.0.ffn_up.weight";
        case ConversionDefect::missing_tensor: return "blk.1.ffn_down.weight";
        case ConversionDefect::unscaled_rope: return "rope_freqs.weight";
        case ConversionDefect::transposed: return "blk.0.ffn_gate.weight";
        case ConversionDefect::transposed_square: return "blk.0.attn_output.weight";
    }
    return "";
}

std::vector<std::filesystem::path> write_llama_checkpoint(const std::filesystem::path& dir, const LlamaShape& shape) {
    std::filesystem::create_directories(dir);
    const std::array<std::string, 2> shard_names{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
    std::array<SafetensorsWriter, 2> writers;
    std::array<std::vector<SourceSpec>, 2> specs;
    std::string weight_map;
    uint64_t total = 0;
    for (const auto& spec : source_specs(shape)) {
        auto layer = spec.name.starts_with("model.layers.") ? std::stoul(spec.name.substr(13)) : 0;
        size_t shard = spec.name == "model.embed_tokens.weight" || layer < (shape.layers + 1) / 2 ? 0 : 1;
        if (spec.name == "model.norm.weight" || spec.name == "lm_head.weight") shard = 1;
        writers[shard].add(spec.name, shape.source_dtype, spec.shape);
        specs[shard].push_back(spec);
        weight_map += (weight_map.empty() ? "" : ",\n    ") + ("\"" + spec.name + "\": \"" + shard_names[shard] + "\"");
        total += elements(spec.shape) * (shape.source_dtype == "BF16" ? 2 : 4);
    }
    std::vector<std::filesystem::path> paths;
    for (size_t i = 0; i < 2; ++i) {
        writers[i].set_metadata({{"format", "pt"}});
        paths.push_back(dir / shard_names[i]);
        writers[i].write(paths.back(), DataMode::sparse);
        std::fstream f(paths.back(), std::ios::in | std::ios::out | std::ios::binary);
        uint64_t data_start = 8 + writers[i].header_length();
        for (size_t t = 0; t < specs[i].size(); ++t)
            write_at(f, data_start + writers[i].entries()[t].begin,
                     encode(source_values(shape, specs[i][t]), shape.source_dtype == "BF16" ? kBf16 : kF32));
    }
    paths.push_back(dir / "model.safetensors.index.json");
    std::ofstream(paths.back()) << "{\n  \"metadata\": {\"total_size\": " << total << "},\n  \"weight_map\": {\n    "
                                << weight_map << "\n  }\n}\n";
    paths.push_back(dir / "config.json");
    std::ofstream(paths.back()) << config_json(shape);
    KitTokenizer t = kit_tokenizer(shape.vocab);
    for (const auto& [name, text] : {std::pair{"generation_config.json", generation_config_json(t)},
                                     std::pair{"tokenizer.json", tokenizer_json(t)},
                                     std::pair{"tokenizer_config.json", tokenizer_config_json(kit_chat_template())}}) {
        paths.push_back(dir / name);
        std::ofstream(paths.back()) << text;
    }
    return paths;
}

namespace {

// One GGUF tensor: its descriptor and how to produce its bytes.
struct GgufPlan {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;
    std::function<std::vector<uint8_t>()> bytes;
};

// The converted values of one source tensor, with the planted defect if it is this tensor's.
std::vector<float> converted_values(const LlamaShape& s, const SourceSpec& spec, const std::string& name,
                                       ConversionDefect defect) {
    std::string values_of = spec.name;
    if (defect == ConversionDefect::swapped_layers && name.ends_with("ffn_up.weight")) {
        if (name == "blk.0.ffn_up.weight") values_of = "model.layers.1.mlp.up_proj.weight";
        if (name == "blk.1.ffn_up.weight") values_of = "model.layers.0.mlp.up_proj.weight";
    }
    std::vector<float> v = source_values(s, {values_of, spec.shape});
    uint64_t rows = spec.shape[0], cols = spec.shape.size() > 1 ? spec.shape[1] : 1;
    bool is_defect = name == defect_tensor(defect);
    if (name.ends_with("attn_q.weight") && !(is_defect && defect == ConversionDefect::unpermuted_q))
        v = permute_rows(v, rows, cols, s.heads);
    if (name.ends_with("attn_k.weight") && !(is_defect && defect == ConversionDefect::unpermuted_k))
        v = permute_rows(v, rows, cols, s.kv_heads);
    if (is_defect && defect == ConversionDefect::changed_element)
        v[5 * cols + 7] += 0.5f;
    if (is_defect && (defect == ConversionDefect::transposed || defect == ConversionDefect::transposed_square))
        v = transpose(v, rows, cols);
    return v;
}

std::vector<GgufPlan> gguf_plan(const LlamaShape& s, const ConversionOptions& o) {
    std::vector<GgufPlan> plan;
    bool scaled = o.defect != ConversionDefect::unscaled_rope;
    if (o.metadata != MetadataDefect::lost_rope_scaling)
        plan.push_back({"rope_freqs.weight", {s.head_dim() / 2}, kF32, [s, scaled] { return as_bytes(rope_factors(s, scaled)); }});
    for (const auto& spec : source_specs(s)) {
        std::string name = gguf_name(spec.name);
        if (name == defect_tensor(o.defect) && o.defect == ConversionDefect::missing_tensor) continue;
        std::vector<uint64_t> dims(spec.shape.rbegin(), spec.shape.rend());
        if (name == defect_tensor(o.defect) && o.defect == ConversionDefect::transposed) dims = spec.shape;
        uint32_t type = spec.shape.size() == 1 ? kF32 : o.matrix_type;
        bool random = o.random_blocks && model::find_ggml_type(type) && model::find_ggml_type(type)->block_size > 1 &&
                      type != kQ8_0 && type != kQ4_K;
        plan.push_back({name, dims, type, [s, spec, name, type, o, random] {
                            if (!random) return encode(converted_values(s, spec, name, o.defect), type);
                            std::vector<uint8_t> out;
                            uint64_t elements = spec.shape[0] * spec.shape[1];
                            random_blocks(type, elements / model::find_ggml_type(type)->block_size, std::hash<std::string>{}(name), out);
                            return out;
                        }});
    }
    return plan;
}

}  // namespace

namespace {

// The keys TextModel/LlamaModel.set_gguf_parameters and _set_vocab_gpt2 write, in their order.
void add_metadata(GgufWriter& w, const LlamaShape& shape, const ConversionOptions& o) {
    using D = MetadataDefect;
    const D d = o.metadata;
    KitTokenizer t = kit_tokenizer(shape.vocab);
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("general.name", GgufValue::str("Kit Llama"));
    w.add_kv("llama.block_count", GgufValue::u32(shape.layers));
    w.add_kv("llama.context_length", GgufValue::u32(d == D::wrong_context_length ? static_cast<uint32_t>(kOriginalContext) : kContextLength));
    w.add_kv("llama.embedding_length", GgufValue::u32(shape.hidden));
    w.add_kv("llama.feed_forward_length", GgufValue::u32(shape.ffn));
    w.add_kv("llama.attention.head_count", GgufValue::u32(shape.heads));
    w.add_kv("llama.attention.head_count_kv", GgufValue::u32(shape.kv_heads));
    w.add_kv("llama.rope.freq_base", GgufValue::f32(static_cast<float>(kRopeTheta)));
    float eps = static_cast<float>(kRmsEps);
    if (d == D::rounded_rms_eps) eps = dequant::bf16_to_float(dequant::float_to_bf16(eps));
    w.add_kv("llama.attention.layer_norm_rms_epsilon", GgufValue::f32(eps));
    w.add_kv("llama.attention.key_length", GgufValue::u32(shape.head_dim()));
    w.add_kv("llama.attention.value_length", GgufValue::u32(shape.head_dim()));
    w.add_kv("general.file_type", GgufValue::u32(o.matrix_type == kBf16 ? 32 : o.matrix_type == kF16 ? 1 : o.matrix_type == kQ8_0 ? 7 : 15));
    if (d == D::vocab_without_added) t.tokens.resize(t.base), t.types.resize(t.base);
    w.add_kv("llama.vocab_size", GgufValue::u32(static_cast<uint32_t>(t.tokens.size())));
    w.add_kv("llama.rope.dimension_count", GgufValue::u32(shape.head_dim()));
    w.add_kv("general.quantization_version", GgufValue::u32(2));
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
    w.add_kv("tokenizer.ggml.pre", GgufValue::str(d == D::wrong_pre_tokenizer ? "qwen2" : "llama-bpe"));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(t.tokens));
    w.add_kv("tokenizer.ggml.token_type", GgufValue::i32_array(t.types));
    std::vector<std::string> merges;
    for (const auto& [a, b] : t.merges) merges.push_back(a + " " + b);
    w.add_kv("tokenizer.ggml.merges", GgufValue::string_array(std::move(merges)));
    w.add_kv("tokenizer.ggml.bos_token_id", GgufValue::u32(t.bos()));
    if (d != D::missing_eos) w.add_kv("tokenizer.ggml.eos_token_id", GgufValue::u32(d == D::wrong_eos ? t.end_of_text() : t.eot()));
    w.add_kv("tokenizer.ggml.add_bos_token", GgufValue::boolean(true));
    if (d != D::missing_chat_template)
        w.add_kv("tokenizer.chat_template", GgufValue::str(kit_chat_template(d == D::stale_chat_template)));
}

}  // namespace

void write_llama_conversion(const std::filesystem::path& path, const LlamaShape& shape, const ConversionOptions& options) {
    GgufWriter w(3);
    add_metadata(w, shape, options);
    std::vector<GgufPlan> plan = gguf_plan(shape, options);
    for (const auto& t : plan) {
        uint64_t elements = 1;
        for (uint64_t d : t.dims) elements *= d;
        w.add_tensor(t.name, t.dims, t.type, model::ggml_expected_bytes(t.type, elements).value_or(elements));
    }
    w.write(path, DataMode::sparse);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    for (size_t i = 0; i < plan.size(); ++i) write_at(f, w.data_start() + w.tensors()[i].offset, plan[i].bytes());
}

}  // namespace modelcat::kit
