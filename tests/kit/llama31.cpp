#include "llama31.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "bpe_vocab.hpp"
#include "llama_tokenizer.hpp"

namespace modelcat::kit {

namespace {

// ggml type ids used by the lineup.
constexpr uint32_t F32 = 0, Q8_0 = 8, Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, IQ3_S = 21, IQ2_S = 22,
                   BF16 = 30;

constexpr std::array kQuants{
    Llama31Quant{"IQ2_M", 29, 2'948'285'856, "22:156 21:37 13:1 12:32 0:66", {IQ3_S, Q5_K, Q4_K, IQ3_S, IQ2_S}},
    Llama31Quant{"Q2_K", 10, 3'179'136'416, "10:129 11:64 14:1 12:32 0:66", {Q2_K, Q6_K, Q4_K, Q3_K, Q2_K}},
    Llama31Quant{"Q3_K_M", 12, 4'018'922'912, "11:129 12:92 14:1 13:4 0:66", {Q3_K, Q6_K, Q5_K, Q5_K, Q3_K}},
    Llama31Quant{"Q4_K_S", 14, 4'692'673'952, "12:217 14:1 13:8 0:66", {Q4_K, Q6_K, Q5_K, Q5_K, Q4_K}},
    Llama31Quant{"Q4_K_M", 15, 4'920'739'232, "12:193 14:33 0:66", {Q4_K, Q6_K, Q6_K, Q6_K, Q4_K}},
    Llama31Quant{"Q4_K_L", 15, 5'310'637'472, "12:192 8:2 14:32 0:66", {Q8_0, Q8_0, Q6_K, Q6_K, Q4_K}},
    Llama31Quant{"Q6_K", 18, 6'596'011'424, "14:226 0:66", {Q6_K, Q6_K, Q6_K, Q6_K, Q6_K}},
    Llama31Quant{"Q8_0", 7, 8'540'775'840, "8:226 0:66", {Q8_0, Q8_0, Q8_0, Q8_0, Q8_0}},
};

// Only shard 1's size was measured; the others are 8 + header + data, and
// the four add up to the measured 16,060,556,376 bytes on disk.
constexpr std::array kShards{
    Llama31Shard{"model-00001-of-00004.safetensors", 82, 9512, 4'976'698'672},
    Llama31Shard{"model-00002-of-00004.safetensors", 104, 12120, 4'999'802'720},
    Llama31Shard{"model-00003-of-00004.safetensors", 100, 11656, 4'915'916'176},
    Llama31Shard{"model-00004-of-00004.safetensors", 5, 560, 1'168'138'808},
};

// ---- Tensors ----

struct Tensor {
    std::string hf_name;  // empty for rope_freqs, which only the GGUF has
    std::string gguf_name;
    std::vector<uint64_t> shape;  // PyTorch order; GGUF ne is the reverse
    std::string_view kind;        // GGUF name without "blk.N." and ".weight"
    int layer;                    // -1 outside the blocks
};

struct LayerPart {
    std::string_view hf, kind;
    std::vector<uint64_t> shape;
};

// One decoder layer in HF state-dict order, the order shards are filled in.
const std::vector<LayerPart>& layer_parts() {
    static const std::vector<LayerPart> parts{
        {"self_attn.q_proj", "attn_q", {4096, 4096}},     {"self_attn.k_proj", "attn_k", {1024, 4096}},
        {"self_attn.v_proj", "attn_v", {1024, 4096}},     {"self_attn.o_proj", "attn_output", {4096, 4096}},
        {"mlp.gate_proj", "ffn_gate", {14336, 4096}},     {"mlp.up_proj", "ffn_up", {14336, 4096}},
        {"mlp.down_proj", "ffn_down", {4096, 14336}},     {"input_layernorm", "attn_norm", {4096}},
        {"post_attention_layernorm", "ffn_norm", {4096}},
    };
    return parts;
}

std::vector<Tensor> state_dict() {
    std::vector<Tensor> out{{"model.embed_tokens.weight", "token_embd.weight", {128256, 4096}, "token_embd", -1}};
    for (int i = 0; i < 32; ++i) {
        const std::string n = std::to_string(i);
        for (const auto& p : layer_parts())
            out.push_back({"model.layers." + n + "." + std::string(p.hf) + ".weight",
                           "blk." + n + "." + std::string(p.kind) + ".weight", p.shape, p.kind, i});
    }
    out.push_back({"model.norm.weight", "output_norm.weight", {4096}, "output_norm", -1});
    out.push_back({"lm_head.weight", "output.weight", {128256, 4096}, "output", -1});
    return out;
}

// The state dict cut into the measured shard counts; safetensors stores each shard sorted by name.
std::vector<std::vector<Tensor>> shards() {
    const std::vector<Tensor> all = state_dict();
    std::vector<std::vector<Tensor>> out;
    auto it = all.begin();
    for (const auto& s : kShards) {
        std::vector<Tensor> shard(it, it + static_cast<std::ptrdiff_t>(s.tensors));
        std::sort(shard.begin(), shard.end(), [](const Tensor& a, const Tensor& b) { return a.hf_name < b.hf_name; });
        out.push_back(std::move(shard));
        it += static_cast<std::ptrdiff_t>(s.tensors);
    }
    return out;
}

// convert_hf_to_gguf's order: rope_freqs first, then each shard in its (sorted) key order;
// llama-quantize keeps it.
std::vector<Tensor> gguf_order() {
    std::vector<Tensor> out{{"", "rope_freqs.weight", {64}, "rope_freqs", -1}};
    for (auto& shard : shards()) out.insert(out.end(), shard.begin(), shard.end());
    return out;
}

std::vector<uint64_t> ne(const std::vector<uint64_t>& shape) { return {shape.rbegin(), shape.rend()}; }

// ---- Quantization recipes, reconstructed from the measured census and policy tables ----

// attn_v and ffn_down get `promoted` on the recipe's promoted layers, `normal` elsewhere.
struct Split {
    uint32_t normal, promoted;
};

struct Recipe {
    std::string_view name;
    uint32_t bulk, token_embd, output, attn_output;
    Split attn_v, ffn_down;
    uint32_t promoted_layers;  // bit i = layer i
};

constexpr uint32_t layers_mask(std::initializer_list<int> layers) {
    uint32_t m = 0;
    for (int l : layers) m |= 1u << l;
    return m;
}
constexpr uint32_t kFirst4 = layers_mask({0, 1, 2, 3});
// As measured, no arithmetic stride generates that middle set.
constexpr uint32_t kQ4KMLayers = layers_mask({0, 1, 2, 3, 6, 10, 13, 16, 19, 21, 24, 27, 28, 29, 30, 31});

constexpr std::array kRecipes{
    Recipe{"IQ2_M", IQ2_S, IQ3_S, Q5_K, IQ3_S, {Q4_K, Q4_K}, {IQ2_S, IQ3_S}, kFirst4},
    Recipe{"Q2_K", Q2_K, Q2_K, Q6_K, Q3_K, {Q4_K, Q4_K}, {Q3_K, Q3_K}, 0},
    Recipe{"Q3_K_M", Q3_K, Q3_K, Q6_K, Q4_K, {Q4_K, Q5_K}, {Q4_K, Q5_K}, layers_mask({0, 1})},
    Recipe{"Q4_K_S", Q4_K, Q4_K, Q6_K, Q4_K, {Q4_K, Q5_K}, {Q4_K, Q5_K}, kFirst4},
    Recipe{"Q4_K_M", Q4_K, Q4_K, Q6_K, Q4_K, {Q4_K, Q6_K}, {Q4_K, Q6_K}, kQ4KMLayers},
    Recipe{"Q4_K_L", Q4_K, Q8_0, Q8_0, Q4_K, {Q4_K, Q6_K}, {Q4_K, Q6_K}, kQ4KMLayers},
    Recipe{"Q6_K", Q6_K, Q6_K, Q6_K, Q6_K, {Q6_K, Q6_K}, {Q6_K, Q6_K}, 0},
    Recipe{"Q8_0", Q8_0, Q8_0, Q8_0, Q8_0, {Q8_0, Q8_0}, {Q8_0, Q8_0}, 0},
};
static_assert([] {  // recipes line up with the measured facts, index for index
    for (size_t i = 0; i < kQuants.size(); ++i)
        if (kRecipes[i].name != kQuants[i].name) return false;
    return kRecipes.size() == kQuants.size();
}());

uint32_t quant_type(const Recipe& r, const Tensor& t) {
    if (t.shape.size() == 1) return F32;  // norms and rope_freqs are never quantized
    if (t.kind == "token_embd") return r.token_embd;
    if (t.kind == "output") return r.output;
    if (t.kind == "attn_output") return r.attn_output;
    if (t.kind == "attn_v" || t.kind == "ffn_down") {
        const Split& s = t.kind == "attn_v" ? r.attn_v : r.ffn_down;
        return (r.promoted_layers >> t.layer) & 1u ? s.promoted : s.normal;
    }
    return r.bulk;
}

// ---- Metadata ----

// A distinct five-letter word per i (7919 is coprime with 26^5, so the map is one-to-one).
std::string word(uint64_t i) {
    uint64_t k = i * 7919 % 11'881'376;
    std::string w(5, 'a');
    for (int p = 4; p >= 0; --p, k /= 26) w[p] = static_cast<char>('a' + k % 26);
    return w;
}

const std::string kSpace = "\xC4\xA0";  // "Ġ", the byte-level space

// Two tokens in nine start with a space: that ratio sizes the synthetic tokenizer
// so that the padding left for the chat template is a few KB.
std::string ordinary_token(uint64_t i) { return (i % 9 < 2 ? kSpace : "") + word(i); }

std::vector<std::string> tokens() {
    std::vector<std::string> out = byte_level_alphabet();  // the first 256 tokens
    out.reserve(128256);
    for (uint64_t i = 256; i < 128000; ++i) out.push_back(ordinary_token(i));
    for (uint32_t i = 0; out.size() < 128256; ++i) out.push_back(llama3_added_token(i));
    return out;
}

std::vector<std::string> merges() {
    std::vector<std::string> out{kSpace + " " + kSpace};
    out.reserve(280147);
    for (uint64_t j = 1; j < 280147; ++j)
        out.push_back(ordinary_token(256 + j % 127744) + " " + ordinary_token(256 + j * 31 % 127744));
    return out;
}

std::vector<int32_t> token_types() {
    std::vector<int32_t> out(128256, 1);            // normal
    std::fill(out.begin() + 128000, out.end(), 3);  // control
    return out;
}

// An abridged Llama 3.1 template; chat_template() pads it to the measured header size.
constexpr std::string_view kTemplateHead = R"TPL({{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- set date_string = "26 Jul 2024" %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- This block extracts the system message, so we can slot it into the right place. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{#- System message + builtin tools #}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{%- if builtin_tools is defined or tools is not none %}
    {{- "Environment: ipython\n" }}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{{- system_message }}
{{- "<|eot_id|>" }}

{%- for message in messages %}
    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
)TPL";

void add_metadata(GgufWriter& w, uint32_t file_type, bool imatrix, const std::string& chat_template) {
    const auto str = GgufValue::str;
    const auto u32 = GgufValue::u32;
    w.add_kv("general.architecture", str("llama"));
    w.add_kv("general.type", str("model"));
    w.add_kv("general.name", str("Meta Llama 3.1 8B Instruct"));
    w.add_kv("general.finetune", str("Instruct"));
    w.add_kv("general.basename", str("Meta-Llama-3.1"));
    w.add_kv("general.size_label", str("8B"));
    w.add_kv("general.license", str("llama3.1"));
    w.add_kv("general.tags",
             GgufValue::string_array({"facebook", "meta", "pytorch", "llama", "llama-3", "text-generation"}));
    w.add_kv("general.languages", GgufValue::string_array({"en", "de", "fr", "it", "pt", "hi", "es", "th"}));
    w.add_kv("llama.block_count", u32(32));
    w.add_kv("llama.context_length", u32(131072));
    w.add_kv("llama.embedding_length", u32(4096));
    w.add_kv("llama.feed_forward_length", u32(14336));
    w.add_kv("llama.attention.head_count", u32(32));
    w.add_kv("llama.attention.head_count_kv", u32(8));
    w.add_kv("llama.rope.freq_base", GgufValue::f32(500000.0f));
    w.add_kv("llama.attention.layer_norm_rms_epsilon", GgufValue::f32(1e-5f));
    w.add_kv("general.file_type", u32(file_type));
    w.add_kv("llama.vocab_size", u32(128256));
    w.add_kv("llama.rope.dimension_count", u32(128));
    w.add_kv("tokenizer.ggml.model", str("gpt2"));
    w.add_kv("tokenizer.ggml.pre", str("llama-bpe"));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(tokens()));
    w.add_kv("tokenizer.ggml.token_type", GgufValue::i32_array(token_types()));
    w.add_kv("tokenizer.ggml.merges", GgufValue::string_array(merges()));
    w.add_kv("tokenizer.ggml.bos_token_id", u32(128000));
    w.add_kv("tokenizer.ggml.eos_token_id", u32(128009));
    w.add_kv("tokenizer.chat_template", str(chat_template));
    w.add_kv("general.quantization_version", u32(2));
    if (!imatrix) return;
    w.add_kv("quantize.imatrix.file",
             str("/models_out/Meta-Llama-3.1-8B-Instruct-GGUF/Meta-Llama-3.1-8B-Instruct.imatrix"));
    w.add_kv("quantize.imatrix.dataset", str("/training_dir/calibration_datav3.txt"));
    w.add_kv("quantize.imatrix.entries_count", GgufValue::i32(224));
    w.add_kv("quantize.imatrix.chunks_count", GgufValue::i32(125));
}

// kTemplateHead plus a Jinja comment sized so the quants' metadata ends where the real files' does.
const std::string& chat_template() {
    static const std::string tmpl = [] {
        GgufWriter probe;
        add_metadata(probe, 0, true, std::string(kTemplateHead));
        const uint64_t end = probe.metadata_end();
        if (end + 4 > kLlama31MetadataEnd) throw std::logic_error("llama31: synthetic tokenizer too large");
        return std::string(kTemplateHead) + "{#" + std::string(kLlama31MetadataEnd - end - 4, ' ') + "#}";
    }();
    return tmpl;
}

}  // namespace

std::span<const Llama31Quant> llama31_quants() { return kQuants; }

std::vector<std::string> llama31_quant_names() {
    std::vector<std::string> out;
    for (const auto& q : kQuants) out.emplace_back(q.name);
    return out;
}

const Llama31Quant& llama31_expected(std::string_view quant) {
    for (const auto& q : kQuants)
        if (q.name == quant) return q;
    throw std::invalid_argument("llama31: no quant " + std::string(quant));
}

std::string llama31_file_name(std::string_view quant) {
    return "Meta-Llama-3.1-8B-Instruct-" + std::string(quant) + ".gguf";
}

GgufWriter llama31_quant(std::string_view quant) {
    const Llama31Quant& q = llama31_expected(quant);
    const Recipe& r = kRecipes[static_cast<size_t>(&q - kQuants.data())];
    GgufWriter w;
    add_metadata(w, q.file_type, true, chat_template());
    for (const Tensor& t : gguf_order()) w.add_tensor(t.gguf_name, ne(t.shape), quant_type(r, t));
    return w;
}

std::vector<std::filesystem::path> write_llama31_lineup(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::filesystem::path> out;
    for (const auto& q : kQuants) {
        out.push_back(dir / llama31_file_name(q.name));
        llama31_quant(q.name).write(out.back());
    }
    return out;
}

std::string census_string(const GgufWriter& w) {
    struct Row {
        uint32_t type;
        uint64_t count = 0, elements = 0;
    };
    std::vector<const GgufTensorInfo*> by_offset;
    for (const auto& t : w.tensors()) by_offset.push_back(&t);
    std::stable_sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    std::vector<Row> rows;  // in order of first appearance, which breaks ties below
    for (const auto* t : by_offset) {
        auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.type == t->type; });
        if (it == rows.end()) it = rows.insert(rows.end(), Row{t->type});
        uint64_t elements = 1;
        for (uint64_t d : t->dims) elements *= d;
        it->count += 1;
        it->elements += elements;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.elements > b.elements; });
    std::string out;
    for (const auto& r : rows) {
        if (!out.empty()) out += ' ';
        out += std::to_string(r.type);
        out += ':';
        out += std::to_string(r.count);
    }
    return out;
}

std::span<const Llama31Shard> llama31_shards() { return kShards; }

SafetensorsWriter llama31_safetensors_shard(size_t index) {
    const std::vector<Tensor> shard = shards().at(index);
    SafetensorsWriter w;
    w.set_metadata({{"format", "pt"}});
    for (const Tensor& t : shard) w.add(t.hf_name, "BF16", t.shape);
    w.pad_to_length(kShards[index].header_bytes);
    return w;
}

namespace {

constexpr std::string_view kConfigJson = R"JSON({
  "architectures": [
    "LlamaForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": [
    128001,
    128008,
    128009
  ],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 8.0,
    "high_freq_factor": 4.0,
    "low_freq_factor": 1.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "vocab_size": 128256
}
)JSON";

// As transformers writes it: json.dumps(index, indent=2, sort_keys=True) + "\n".
std::string index_json() {
    std::vector<std::pair<std::string, std::string_view>> map;
    const auto all = shards();
    for (size_t i = 0; i < all.size(); ++i)
        for (const Tensor& t : all[i]) map.emplace_back(t.hf_name, kShards[i].file);
    std::sort(map.begin(), map.end());
    std::string out = "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(kLlama31Bf16TotalSize) +
                      "\n  },\n  \"weight_map\": {\n";
    for (size_t i = 0; i < map.size(); ++i)
        out += "    \"" + map[i].first + "\": \"" + std::string(map[i].second) + "\"" +
               (i + 1 < map.size() ? ",\n" : "\n");
    return out + "  }\n}\n";
}

void write_text(const std::filesystem::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) throw std::runtime_error("llama31: cannot write " + path.string());
}

}  // namespace

std::vector<std::filesystem::path> write_llama31_safetensors_checkpoint(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::filesystem::path> out;
    for (size_t i = 0; i < kShards.size(); ++i) {
        out.push_back(dir / kShards[i].file);
        llama31_safetensors_shard(i).write(out.back());
    }
    out.push_back(dir / "model.safetensors.index.json");
    write_text(out.back(), index_json());
    out.push_back(dir / "config.json");
    write_text(out.back(), kConfigJson);
    return out;
}

GgufWriter llama31_bf16_gguf() {
    GgufWriter w;
    add_metadata(w, 32, false, chat_template());  // 32 = LLAMA_FTYPE_MOSTLY_BF16
    for (const Tensor& t : gguf_order()) w.add_tensor(t.gguf_name, ne(t.shape), t.shape.size() == 1 ? F32 : BF16);
    return w;
}

void write_llama31_store(const std::filesystem::path& dir) {
    write_llama31_lineup(dir / "lineup");
    write_llama31_safetensors_checkpoint(dir / "source" / "Meta-Llama-3.1-8B-Instruct");
    llama31_bf16_gguf().write(dir / "source" / llama31_file_name("BF16"));
}

}  // namespace modelcat::kit
