#include "crawl/model_rows.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "format/json_text.hpp"
#include "model/census.hpp"
#include "model/content_hash.hpp"
#include "model/ggml_compat.hpp"
#include "model/header_hashes.hpp"
#include "model/kind.hpp"
#include "model/kv_cache.hpp"
#include "model/policy.hpp"
#include "model/tensor_names.hpp"

namespace modelcat::crawl {

namespace {

template <typename T>
std::optional<int64_t> as_int(const std::optional<T>& v) {
    return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}

model::TensorRow tensor_row(const model::TensorInfo& t) {
    model::TensorName tn = model::split_tensor_name(t.name);
    model::TensorRow r;
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

model::FileRow file_row(const FileRecord& f, int64_t shard) {
    const model::FileHeader& h = f.header;
    model::FileRow r;
    r.location = f.location;
    r.role = role_name(f.role);
    r.shard = shard;
    r.format = model::format_name(h.format);
    if (h.format == model::Format::gguf) r.version = h.version;
    if (h.format == model::Format::gguf || h.format == model::Format::safetensors) r.endianness = h.big_endian ? "big" : "little";
    if (h.alignment) r.alignment = h.alignment;
    r.size = static_cast<int64_t>(h.file_size);
    r.header_bytes = static_cast<int64_t>(h.header_bytes);
    r.data_start = static_cast<int64_t>(h.data_start);
    r.declared_kv_count = static_cast<int64_t>(h.format == model::Format::gguf ? h.declared_kv_count : h.metadata.size());
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
        r.header_hash = model::hex64(h.header_hash);
        model::ContentHash index;
        model::hash_tensor_index(h, index);
        r.tensor_index_hash = model::hex64(index.digest());
        r.metadata_hash = model::hex64(model::metadata_hash(h));
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
    if (h.format == model::Format::gguf) {
        r.ggml_refusals.emplace();
        for (auto& g : model::ggml_refusals(h)) r.ggml_refusals->emplace_back(std::move(g.check), std::move(g.reason));
    }
    return r;
}

std::vector<model::CensusRow> census_rows(const std::vector<model::CensusEntry>& census) {
    std::vector<model::CensusRow> rows;
    for (const auto& e : census) {
        model::CensusRow c{as_int(e.type_id), e.type_name, static_cast<int64_t>(e.tensors),
                             static_cast<int64_t>(e.params), static_cast<int64_t>(e.bytes), std::nullopt};
        if (e.params) c.bits_per_weight = e.bytes * 8.0 / e.params;
        rows.push_back(std::move(c));
    }
    return rows;
}

model::ModelRow model_row(const std::string& name, const std::vector<FileRecord>& files,
                            const std::vector<model::FileRow>& rows) {
    model::ModelRow m;
    m.location = files.front().location;
    m.name = name;
    m.format = model::format_name(files.front().header.format);
    m.file_type = model::metadata_integer(files.front().header, "general.file_type");
    std::set<std::string> keys;
    std::optional<std::string> config_model_type;
    for (const auto& f : files) {
        m.tensor_count += static_cast<int64_t>(f.header.tensors.size());
        for (const auto& t : f.header.tensors) m.params += static_cast<int64_t>(t.n_elements);
        if (f.role == FileRole::config) config_model_type = model::metadata_string(f.header, "model_type");
        if (f.role != FileRole::data) continue;
        m.file_bytes += static_cast<int64_t>(f.header.file_size);
        m.header_bytes += static_cast<int64_t>(f.header.header_bytes);
        for (const auto& e : f.header.metadata) keys.insert(e.key);
        if (!m.architecture) m.architecture = model::metadata_string(f.header, "general.architecture");
    }
    if (!m.architecture) m.architecture = config_model_type;
    m.kv_count = static_cast<int64_t>(keys.size());
    std::tie(m.policy_hash, m.shape_hash) = model::policy_hashes(rows);
    return m;
}

// Kind, the hashes that tell re-uploads apart, and the KV cache estimate: from the data files.
void set_model_facts(model::ModelRow& m, const std::vector<FileRecord>& files) {
    std::vector<const model::FileHeader*> data;
    model::ContentHash index;
    for (const auto& f : files)
        if (f.role == FileRole::data) {
            data.push_back(&f.header);
            model::hash_tensor_index(f.header, index);
        }
    m.kind = model::kind_name(model::classify_model(data));
    if (data.empty()) return;
    m.tensor_index_hash = model::hex64(index.digest());
    if (auto t = model::metadata_string(*data.front(), "tokenizer.chat_template")) {
        model::ContentHash h;
        h.update({reinterpret_cast<const uint8_t*>(t->data()), t->size()});
        m.chat_template_hash = model::hex64(h.digest());
    }
    if (auto kv = model::estimate_kv_cache(*data.front())) {
        m.kv_full_bytes_per_1k = static_cast<int64_t>(kv->full_bytes_per_1k);
        m.kv_swa_bytes_per_1k = static_cast<int64_t>(kv->swa_bytes_per_1k);
        m.kv_swa_layers = static_cast<int64_t>(kv->swa_layers);
        m.sliding_window = as_int(kv->sliding_window);
    }
}

}  // namespace

model::ModelRows derive_model_rows(const std::string& name, const std::vector<FileRecord>& files) {
    model::ModelRows rows;
    int64_t shard = 0;
    for (const auto& f : files) rows.files.push_back(file_row(f, f.role == FileRole::data ? shard++ : 0));
    rows.model = model_row(name, files, rows.files);
    std::vector<const model::TensorInfo*> all;
    for (const auto& f : files)
        for (const auto& t : f.header.tensors) all.push_back(&t);
    const std::vector<model::CensusEntry> census = model::census(all);
    rows.census = census_rows(census);
    rows.model.census = model::census_string(census);
    rows.policy = model::policy_rows(rows.files);
    if (const model::CensusRow* majority = model::majority_type(rows.census)) {
        rows.model.majority_type_id = majority->type_id;
        rows.model.majority_type_name = majority->type_name;
    }
    std::vector<const model::FileHeader*> headers;
    for (const auto& f : files) headers.push_back(&f.header);
    rows.model.block_count = model::block_count(headers, rows.model.architecture);
    set_model_facts(rows.model, files);
    return rows;
}

}  // namespace modelcat::crawl
