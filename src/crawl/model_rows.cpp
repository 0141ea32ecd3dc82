#include "crawl/model_rows.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "format/census.hpp"
#include "format/content_hash.hpp"
#include "format/ggml_compat.hpp"
#include "format/header_hashes.hpp"
#include "format/json_text.hpp"
#include "format/kv_cache.hpp"
#include "format/model_kind.hpp"
#include "format/tensor_names.hpp"

namespace modelcat::crawl {

namespace {

template <typename T>
std::optional<int64_t> as_int(const std::optional<T>& v) {
    return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}

catalog::TensorRow tensor_row(const format::TensorInfo& t) {
    format::TensorName tn = format::split_tensor_name(t.name);
    catalog::TensorRow r;
    r.name = t.name;
    r.layer = as_int(tn.layer);
    r.kind = std::move(tn.kind);
    r.n_dims = static_cast<int64_t>(t.dims.size());
    r.dims = format::json_dims(t.dims);
    r.n_elements = static_cast<int64_t>(t.n_elements);
    r.type_id = as_int(t.type_id);
    r.type_name = t.type_name;
    r.offset = static_cast<int64_t>(t.offset);
    r.bytes = static_cast<int64_t>(t.bytes);
    r.expected_bytes = as_int(t.expected_bytes);
    if (t.n_elements) r.bits_per_weight = t.bytes * 8.0 / t.n_elements;
    r.info_offset = static_cast<int64_t>(t.info_offset);
    return r;
}

catalog::FileRow file_row(const FileRecord& f, int64_t shard) {
    const format::FileHeader& h = f.header;
    catalog::FileRow r;
    r.location = f.location;
    r.role = role_name(f.role);
    r.shard = shard;
    r.format = format::format_name(h.format);
    if (h.format == format::Format::gguf) r.version = h.version;
    if (h.format == format::Format::gguf || h.format == format::Format::safetensors) r.endianness = h.big_endian ? "big" : "little";
    if (h.alignment) r.alignment = h.alignment;
    r.size = static_cast<int64_t>(h.file_size);
    r.header_bytes = static_cast<int64_t>(h.header_bytes);
    r.data_start = static_cast<int64_t>(h.data_start);
    r.declared_kv_count = static_cast<int64_t>(h.format == format::Format::gguf ? h.declared_kv_count : h.metadata.size());
    r.tensor_count = static_cast<int64_t>(h.tensors.size());
    r.bytes_read = static_cast<int64_t>(f.cost.bytes);
    r.requests = static_cast<int64_t>(f.cost.requests);
    r.read_ms = f.cost.ms;
    if (const auto& st = f.identity.stat) {
        r.mtime_ns = st->mtime_ns;
        r.inode = static_cast<int64_t>(st->inode);
        r.device = static_cast<int64_t>(st->device);
    }
    if (f.role == FileRole::data) {
        r.header_hash = format::hex64(h.header_hash);
        format::ContentHash index;
        format::hash_tensor_index(h, index);
        r.tensor_index_hash = format::hex64(index.digest());
        r.metadata_hash = format::hex64(format::metadata_hash(h));
    }
    if (const auto& a = f.remote) {
        r.etag = a->etag;
        r.last_modified = a->last_modified;
        r.final_url = a->final_url;
        r.http_status = a->http_status;
        r.revision = a->revision;
        r.resolver_calls = static_cast<int64_t>(f.cost.by_kind.resolver);
        r.storage_reads = static_cast<int64_t>(f.cost.by_kind.storage);
    }
    r.sha256 = f.identity.sha256;
    r.xet_hash = f.identity.xet_hash;
    r.metadata = h.metadata;
    for (const auto& t : h.tensors) r.tensors.push_back(tensor_row(t));
    r.warnings = h.warnings;
    if (h.format == format::Format::gguf) {
        r.ggml_refusals.emplace();
        for (auto& g : format::ggml_refusals(h)) r.ggml_refusals->emplace_back(std::move(g.check), std::move(g.reason));
    }
    return r;
}

// Two quants with the same (name, type) list share a policy; the layer-free
// form compares (kind, type, count) so different models compare by shape.
std::pair<std::string, std::string> policy_hashes(const std::vector<catalog::FileRow>& files) {
    std::string entries;  // "name\x1ftype\0" per tensor, one allocation for all
    std::vector<std::pair<size_t, size_t>> exact;  // (offset, length without the NUL)
    std::map<std::string, uint64_t> shape;
    std::string key;
    for (const auto& f : files)
        for (const auto& t : f.tensors) {
            exact.emplace_back(entries.size(), t.name.size() + 1 + t.type_name.size());
            entries.append(t.name).append(1, '\x1f').append(t.type_name).append(1, '\0');
            key.assign(t.kind).append(1, '\x1f').append(t.type_name);
            ++shape[key];
        }
    auto text = [&](const std::pair<size_t, size_t>& e) { return std::string_view(entries).substr(e.first, e.second); };
    std::sort(exact.begin(), exact.end(), [&](const auto& x, const auto& y) { return text(x) < text(y); });
    format::ContentHash a, b;
    auto bytes = [](const char* p, size_t n) { return std::span(reinterpret_cast<const uint8_t*>(p), n); };
    for (const auto& e : exact) a.update(bytes(entries.data() + e.first, e.second + 1));  // + the NUL as separator
    for (const auto& [k, n] : shape) {
        b.update(bytes(k.data(), k.size() + 1));
        b.update_u64le(n);
    }
    return {format::hex64(a.digest()), format::hex64(b.digest())};
}

std::vector<catalog::CensusRow> census_rows(const std::vector<format::CensusEntry>& census) {
    std::vector<catalog::CensusRow> rows;
    for (const auto& e : census) {
        catalog::CensusRow c{as_int(e.type_id), e.type_name, static_cast<int64_t>(e.tensors),
                             static_cast<int64_t>(e.params), static_cast<int64_t>(e.bytes), std::nullopt};
        if (e.params) c.bits_per_weight = e.bytes * 8.0 / e.params;
        rows.push_back(std::move(c));
    }
    return rows;
}

catalog::ModelRow model_row(const std::string& name, const std::vector<FileRecord>& files,
                            const std::vector<catalog::FileRow>& rows) {
    catalog::ModelRow m;
    m.location = files.front().location;
    m.name = name;
    m.format = format::format_name(files.front().header.format);
    m.file_type = format::metadata_integer(files.front().header, "general.file_type");
    std::set<std::string> keys;
    std::optional<std::string> config_model_type;
    for (const auto& f : files) {
        m.tensor_count += static_cast<int64_t>(f.header.tensors.size());
        for (const auto& t : f.header.tensors) m.params += static_cast<int64_t>(t.n_elements);
        if (f.role == FileRole::config) config_model_type = format::metadata_string(f.header, "model_type");
        if (f.role != FileRole::data) continue;
        m.file_bytes += static_cast<int64_t>(f.header.file_size);
        m.header_bytes += static_cast<int64_t>(f.header.header_bytes);
        for (const auto& e : f.header.metadata) keys.insert(e.key);
        if (!m.architecture) m.architecture = format::metadata_string(f.header, "general.architecture");
    }
    if (!m.architecture) m.architecture = config_model_type;
    m.kv_count = static_cast<int64_t>(keys.size());
    std::tie(m.policy_hash, m.shape_hash) = policy_hashes(rows);
    return m;
}

// One row per (kind, type): how many tensors and on which layers, ascending.
std::vector<catalog::PolicyRow> policy_rows(const std::vector<catalog::FileRow>& files) {
    // keyed by views of the rows' own strings: no key is copied per tensor
    std::map<std::pair<std::string_view, std::string_view>, std::pair<catalog::PolicyRow, std::vector<int64_t>>> by_kind_type;
    for (const auto& f : files)
        for (const auto& t : f.tensors) {
            auto& [row, layers] = by_kind_type[{t.kind, t.type_name}];
            row.tensor_kind = t.kind;
            row.type_id = t.type_id;
            row.type_name = t.type_name;
            ++row.tensors;
            if (t.layer) layers.push_back(*t.layer);
        }
    std::vector<catalog::PolicyRow> rows;
    for (auto& [key, entry] : by_kind_type) {
        auto& [row, layers] = entry;
        std::sort(layers.begin(), layers.end());
        for (int64_t l : layers) {
            if (row.layers) row.layers->append(1, ',');
            else row.layers.emplace();
            row.layers->append(std::to_string(l));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The type held by the most tensors, F32 aside; ties: more parameters, then lower id, then name.
void set_majority_type(catalog::ModelRow& m, const std::vector<catalog::CensusRow>& census) {
    const catalog::CensusRow* best = nullptr;
    for (const auto& c : census) {
        if (c.type_name == "F32") continue;
        if (!best || std::tie(c.tensors, c.params, best->type_id, best->type_name) >
                         std::tie(best->tensors, best->params, c.type_id, c.type_name))
            best = &c;
    }
    if (!best) return;
    m.majority_type_id = best->type_id;
    m.majority_type_name = best->type_name;
}

std::optional<format::MetadataValue> block_count(const std::vector<FileRecord>& files, const std::optional<std::string>& arch) {
    if (!arch) return std::nullopt;
    for (const auto& f : files)
        for (const auto& e : f.header.metadata)
            if (e.key == *arch + ".block_count") return e.value;
    return std::nullopt;
}

// Kind, the hashes that tell re-uploads apart, and the KV cache estimate: from the data files.
void set_model_facts(catalog::ModelRow& m, const std::vector<FileRecord>& files) {
    std::vector<const format::FileHeader*> data;
    format::ContentHash index;
    for (const auto& f : files)
        if (f.role == FileRole::data) {
            data.push_back(&f.header);
            format::hash_tensor_index(f.header, index);
        }
    m.kind = format::kind_name(format::classify_model(data));
    if (data.empty()) return;
    m.tensor_index_hash = format::hex64(index.digest());
    if (auto t = format::metadata_string(*data.front(), "tokenizer.chat_template")) {
        format::ContentHash h;
        h.update({reinterpret_cast<const uint8_t*>(t->data()), t->size()});
        m.chat_template_hash = format::hex64(h.digest());
    }
    if (auto kv = format::estimate_kv_cache(*data.front())) {
        m.kv_full_bytes_per_1k = static_cast<int64_t>(kv->full_bytes_per_1k);
        m.kv_swa_bytes_per_1k = static_cast<int64_t>(kv->swa_bytes_per_1k);
        m.kv_swa_layers = static_cast<int64_t>(kv->swa_layers);
        m.sliding_window = as_int(kv->sliding_window);
    }
}

}  // namespace

catalog::ModelRows derive_model_rows(const std::string& name, const std::vector<FileRecord>& files) {
    catalog::ModelRows rows;
    int64_t shard = 0;
    for (const auto& f : files) rows.files.push_back(file_row(f, f.role == FileRole::data ? shard++ : 0));
    rows.model = model_row(name, files, rows.files);
    std::vector<const format::TensorInfo*> all;
    for (const auto& f : files)
        for (const auto& t : f.header.tensors) all.push_back(&t);
    const std::vector<format::CensusEntry> census = format::census(all);
    rows.census = census_rows(census);
    rows.model.census = format::census_string(census);
    rows.policy = policy_rows(rows.files);
    set_majority_type(rows.model, rows.census);
    rows.model.block_count = block_count(files, rows.model.architecture);
    set_model_facts(rows.model, files);
    return rows;
}

}  // namespace modelcat::crawl
