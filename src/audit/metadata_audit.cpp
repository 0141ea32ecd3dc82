#include "audit/metadata_audit.hpp"

#include <bit>
#include <cctype>

#include "audit/converter_mapping.hpp"
#include "audit/metadata_values.hpp"
#include "audit/tokenizer_audit.hpp"
#include "format/json_text.hpp"

namespace modelcat::audit {

namespace {

using V = model::MetadataVerdict;

std::string type_note(const model::MetadataEntry& g, const char* written) {
    return std::string("stored as ") + model::value_type_name(g.type) + "; the converter writes " + written +
           ", the type llama.cpp reads";
}

// A u32 key against an integer (or, per layer, a list of integers) in config.json.
model::MetadataResult compare_u32(const GgufKeys& g, const std::string& key, const Hparam& src, bool critical) {
    const model::MetadataEntry* e = g.find(key);
    std::string shown_src = shown(src.value);
    if (src.value.is_array()) {  // per layer: add_head_count(list) writes an array of u32
        std::vector<double> want;
        for (simdjson::dom::element x : simdjson::dom::array(src.value))
            if (auto i = as_integer(x)) want.push_back(static_cast<double>(*i));
        if (!e) return make_row(key, src.path, "", shown_src, V::missing, critical);
        auto have = g.numbers(key);
        if (!have) return make_row(key, src.path, shown(*e), shown_src, V::differs, critical, "the converter writes a per-layer array");
        return make_row(key, src.path, shown(*e), shown_src, *have == want ? V::equal : V::differs, critical);
    }
    auto want = as_integer(src.value);
    if (!want) return make_row(key, src.path, e ? shown(*e) : "", shown_src, V::not_checked, critical, "not an integer");
    if (!e) return make_row(key, src.path, "", shown_src, V::missing, critical);
    const auto* have = std::get_if<uint64_t>(&e->value);
    const auto* have_signed = std::get_if<int64_t>(&e->value);
    bool same = (have && static_cast<int64_t>(*have) == *want) || (have_signed && *have_signed == *want);
    if (same && e->type != model::ValueType::u32)
        return make_row(key, src.path, shown(*e), shown_src, V::differs, critical, type_note(*e, "u32"));
    return make_row(key, src.path, shown(*e), shown_src, same ? V::equal : V::differs, critical);
}

// An f32 key against a number: the converter stores the nearest f32 (struct.pack("<f"), round to nearest even).
model::MetadataResult compare_f32(const GgufKeys& g, const std::string& key, const std::string& path, double src, bool critical) {
    const model::MetadataEntry* e = g.find(key);
    const float want = static_cast<float>(src);
    std::string shown_src = shown_number(src);
    if (!e) return make_row(key, path, "", shown_src, V::missing, critical);
    if (e->type != model::ValueType::f32) return make_row(key, path, shown(*e), shown_src, V::differs, critical, type_note(*e, "f32"));
    const float have = static_cast<float>(std::get<double>(e->value));
    if (std::bit_cast<uint32_t>(have) != std::bit_cast<uint32_t>(want))
        return make_row(key, path, shown(*e), shown_src, V::differs, critical,
                        "the converter stores float32(" + shown_src + ") = " + format::json_number(want) + ", the GGUF holds " +
                            format::json_number(have));
    if (static_cast<double>(want) == src) return make_row(key, path, shown(*e), shown_src, V::equal, critical);
    return make_row(key, path, shown(*e), shown_src, V::converted, critical,
                    "f64->f32: " + format::json_number(static_cast<double>(want)) + " is the nearest f32");
}

void hparam_rows(const GgufKeys& g, const JsonFile& config, std::vector<model::MetadataResult>& rows) {
    const std::string& arch = g.architecture();
    for (const HparamRule& r : hparam_rules()) {
        if (r.llama_only && !is_llama_model(arch)) continue;
        auto src = find_hparam(config, r.candidates);
        if (!src || src->value.is_null()) continue;  // the converter writes nothing
        std::string key = arch + "." + std::string(r.key);
        if (r.kind == GgufKind::u32) {
            rows.push_back(compare_u32(g, key, *src, r.critical));
        } else if (auto d = as_number(src->value)) {
            rows.push_back(compare_f32(g, key, src->path, *d, r.critical));
        } else {
            rows.push_back(make_row(key, src->path, "", shown(src->value), V::not_checked, r.critical, "not a number"));
        }
    }
    if (!is_llama_model(arch)) return;
    // LlamaModel: rope.dimension_count = head_dim, else hidden_size // num_attention_heads.
    auto head_dim = hparam(config, "head_dim");
    auto hidden = hparam(config, "hidden_size"), heads = hparam(config, "num_attention_heads");
    std::string key = arch + ".rope.dimension_count";
    if (head_dim && !head_dim->value.is_null()) {
        rows.push_back(compare_u32(g, key, *head_dim, false));
    } else if (hidden && heads && as_integer(hidden->value) && as_integer(heads->value) && *as_integer(heads->value) > 0) {
        int64_t dim = *as_integer(hidden->value) / *as_integer(heads->value);
        model::MetadataResult row = compare_u32(g, key, {hidden->path, hidden->value}, false);
        const auto* e = g.find(key);
        bool same = e && std::holds_alternative<uint64_t>(e->value) && static_cast<int64_t>(std::get<uint64_t>(e->value)) == dim;
        row.source_path += " / num_attention_heads", row.source_value = std::to_string(dim);
        row.verdict = !e ? V::missing : same && e->type == model::ValueType::u32 ? V::converted : V::differs;
        row.note = "hidden_size // num_attention_heads";
        rows.push_back(row);
    }
}

std::string lowered(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// llama3 scaling: no GGUF keys; LlamaModel.generate_extra_tensors writes rope_freqs.weight from them.
void llama3_rows(const GgufKeys& g, simdjson::dom::object rp, const std::string& prefix, std::vector<model::MetadataResult>& rows) {
    uint64_t n = 0;
    bool present = g.has_tensor("rope_freqs.weight", &n);
    for (std::string_view field : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
        auto v = member(rp, field);
        if (!v) continue;
        rows.push_back(make_row("rope_freqs.weight", prefix + std::string(field), present ? "F32[" + std::to_string(n) + "]" : "",
                                shown(*v), present ? V::converted : V::missing, true,
                                present ? "folded into rope_freqs.weight, whose values the tensor table checks"
                                        : "the converter writes rope_freqs.weight for llama3 scaling; without it RoPE runs unscaled"));
    }
}

// `rp`: the rope_scaling block, or null when config.json has none.
void rope_scaling_rows(const GgufKeys& g, const simdjson::dom::object* rp, const std::string& prefix,
                       const std::optional<Hparam>& top_original, std::vector<model::MetadataResult>& rows) {
    const std::string& arch = g.architecture();
    const std::string type_key = arch + ".rope.scaling.type";
    const model::MetadataEntry* type_entry = g.find(type_key);
    auto get = [rp](std::string_view field) { return rp ? member(*rp, field) : std::nullopt; };
    auto type = rp ? string_member(*rp, "rope_type") : std::nullopt;
    std::string type_path = prefix + "rope_type";
    if (!type && rp && (type = string_member(*rp, "type"))) type_path = prefix + "type";
    auto factor = get("factor");
    auto f32_row = [&](std::string_view gguf, std::string_view field) {
        if (auto v = get(field); v && as_number(*v))
            rows.push_back(compare_f32(g, arch + ".rope.scaling." + std::string(gguf), prefix + std::string(field), *as_number(*v), true));
    };
    auto type_row = [&](std::string written) {
        std::string have = type_entry ? shown(*type_entry) : "";
        bool same = type_entry && type_entry->type == model::ValueType::string && std::get<std::string>(type_entry->value) == written;
        rows.push_back(make_row(type_key, type_path, have, shown(*type), !type_entry ? V::missing : same ? V::equal : V::differs, true));
    };
    std::string t = type ? lowered(*type) : "";
    if (!type) {
        if (type_entry && std::get_if<std::string>(&type_entry->value) && std::get<std::string>(type_entry->value) != "none")
            rows.push_back(make_row(type_key, prefix.substr(0, prefix.size() - 1), shown(*type_entry), "", V::differs, true,
                                    "the GGUF scales RoPE; config.json does not"));
    } else if (*type == "linear" && factor) {
        type_row("linear"), f32_row("factor", "factor");
    } else if (*type == "yarn" && factor) {
        type_row("yarn"), f32_row("factor", "factor");
        // TextModel mirrors a top-level original_max_position_embeddings into the block.
        std::optional<Hparam> orig;
        if (auto v = get("original_max_position_embeddings")) orig = Hparam{prefix + "original_max_position_embeddings", *v};
        else orig = top_original;
        if (orig) rows.push_back(compare_u32(g, arch + ".rope.scaling.original_context_length", *orig, true));
        f32_row("yarn_ext_factor", "extrapolation_factor");
        f32_row("yarn_attn_factor", get("attention_factor") ? "attention_factor" : "attn_factor");
        f32_row("yarn_beta_fast", "beta_fast"), f32_row("yarn_beta_slow", "beta_slow");
    } else if (*type == "su" || *type == "longrope") {
        type_row("longrope");
    } else if (t == "llama3" && is_llama_model(arch)) {
        rows.push_back(make_row(type_key, type_path, type_entry ? shown(*type_entry) : "", shown(*type),
                                type_entry ? V::differs : V::converted, true,
                                type_entry ? "the converter writes no scaling keys for llama3" : "no scaling keys: rope_freqs.weight instead"));
        llama3_rows(g, *rp, prefix, rows);
    } else {
        rows.push_back(make_row(type_key, type_path, type_entry ? shown(*type_entry) : "", shown(*type), V::not_checked, true,
                                "the converter writes no scaling keys for this type in '" + arch + "'"));
    }
}

// TextModel.__init__: rope_parameters (or rope_scaling), its full_attention part, rope_theta mirrored into it.
void rope_rows(const GgufKeys& g, const JsonFile& config, std::vector<model::MetadataResult>& rows) {
    auto block = hparam(config, "rope_parameters");
    if (!block || !block->value.is_object()) block = hparam(config, "rope_scaling");
    if (block && !block->value.is_object()) block.reset();  // null: no scaling
    std::string prefix = block ? block->path + "." : "config.json:rope_scaling.";
    std::optional<simdjson::dom::object> rp;
    if (block) rp = simdjson::dom::object(block->value);
    if (auto full = rp ? member(*rp, "full_attention") : std::nullopt; full && full->is_object())
        rp = simdjson::dom::object(*full), prefix += "full_attention.";
    const std::string theta_key = g.architecture() + ".rope.freq_base";
    if (auto theta = rp ? member(*rp, "rope_theta") : std::nullopt; theta && as_number(*theta))
        rows.push_back(compare_f32(g, theta_key, prefix + "rope_theta", *as_number(*theta), false));
    else if (auto top = find_hparam(config, rope_theta_candidates()); top && as_number(top->value))
        rows.push_back(compare_f32(g, theta_key, top->path, *as_number(top->value), false));
    rope_scaling_rows(g, rp ? &*rp : nullptr, prefix, find_hparam(config, {"original_max_position_embeddings"}), rows);
}

}  // namespace

std::vector<std::string> metadata_kept_arrays() {
    return {"tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges", "tokenizer.ggml.scores",
            "tokenizer.ggml.eos_token_ids", ".attention.head_count", ".attention.head_count_kv", ".feed_forward_length"};
}

std::vector<model::MetadataResult> audit_metadata(const model::FileHeader& gguf, const CheckpointTexts& texts) {
    GgufKeys g(gguf);
    CheckpointJson c(texts);
    std::vector<model::MetadataResult> rows;
    if (!is_supported_architecture(g.architecture())) {
        rows.push_back(make_row("general.architecture", "config.json", shown(g.architecture()), "", V::not_checked, false,
                                "the metadata audit knows the converter's mapping for llama, mistral and qwen2"));
        return rows;
    }
    if (!c.config.ok()) {
        rows.push_back(make_row("general.architecture", "config.json", shown(g.architecture()), "", V::not_checked, false, c.config.problem()));
    } else {
        hparam_rows(g, c.config, rows);
        rope_rows(g, c.config, rows);
    }
    audit_tokenizer(g, c, rows);
    return rows;
}

}  // namespace modelcat::audit
