#include "crawl/derive.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "format/json_text.hpp"
#include "memory/memory.hpp"
#include "model/census.hpp"
#include "model/content_hash.hpp"
#include "model/error.hpp"
#include "model/ggml_compat.hpp"
#include "model/header_hashes.hpp"
#include "model/kind.hpp"
#include "model/policy.hpp"
#include "quantize/recipe.hpp"
#include "model/tensor_names.hpp"
#include "crawl/recipe_memo.hpp"

namespace modelcat::crawl {

// The whole-model checks.


namespace {

// What keeps the files from forming a whole, found in the file at `location`.
[[noreturn]] void fail_in(const std::string& location, std::optional<uint64_t> offset, const std::string& message,
                          std::string json_path = {}) {
    if (!json_path.empty()) throw model::FormatError::at_json_path(std::move(json_path), message).in(location);
    throw model::FormatError(offset, message).in(location);
}

std::optional<uint64_t> key_offset(const model::FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key) return e.offset;
    return std::nullopt;
}

// gguf-split writes split.no (0-based), split.count and split.tensors.count
// (the total over all shards); every shard must agree with its name.
void check_split_set(std::span<const CrawledFile> shards) {
    const int64_t count = static_cast<int64_t>(shards.size());
    uint64_t tensors = 0;
    for (const auto& s : shards) tensors += s.header.tensors.size();
    std::unordered_map<std::string_view, int64_t> shard_of;  // a tensor's name: the shard that holds it
    for (int64_t i = 0; i < count; ++i) {
        const auto& s = shards[static_cast<size_t>(i)];
        for (const auto& t : s.header.tensors)
            if (auto [at, added] = shard_of.emplace(t.name, i); !added)
                fail_in(s.location, t.info_offset, "tensor '" + t.name + "' is also in shard " + std::to_string(at->second + 1) +
                                                       " of " + std::to_string(count));
        auto no = model::metadata_integer(s.header, "split.no");
        auto n = model::metadata_integer(s.header, "split.count");
        if (no && *no != i)
            fail_in(s.location, key_offset(s.header, "split.no"), "split.no is " + std::to_string(*no) + " but the file name says shard " +
                                                           std::to_string(i + 1) + " of " + std::to_string(count));
        if (n && *n != count)
            fail_in(s.location, key_offset(s.header, "split.count"), "split.count is " + std::to_string(*n) + " but the set has " +
                                                           std::to_string(count) + " shards");
        if (i == 0 && !n) fail_in(s.location, std::nullopt, "first shard of a split set has no split.count");
        if (auto total = model::metadata_integer(s.header, "split.tensors.count"); total && static_cast<uint64_t>(*total) != tensors)
            fail_in(s.location, key_offset(s.header, "split.tensors.count"), "split.tensors.count is " + std::to_string(*total) + " but the " +
                                                           std::to_string(count) + " shards hold " + std::to_string(tensors) + " tensors");
    }
}

// The index's weight_map must name exactly the shards' tensors, and its
// total_size the bytes of their data.
void check_checkpoint(const format::CheckpointIndex& idx, const std::string& index_location,
                      std::span<const CrawledFile> shards) {
    uint64_t data = 0;
    std::set<std::string> seen;
    for (const auto& s : shards) {
        std::string shard_name = std::filesystem::path(s.location).filename().string();
        for (const auto& t : s.header.tensors) {
            data += t.bytes;
            seen.insert(t.name);
            auto it = idx.weight_map.find(t.name);
            if (it == idx.weight_map.end())
                fail_in(s.location, t.info_offset, "tensor '" + t.name + "' is not in the index's weight_map");
            if (std::filesystem::path(it->second).filename() != shard_name)
                fail_in(s.location, t.info_offset, "tensor '" + t.name + "' is in " + shard_name +
                                                                " but the index says " + it->second);
        }
    }
    for (const auto& [name, shard] : idx.weight_map) {
        if (seen.count(name)) continue;
        std::string path = "weight_map.";
        format::append_json_string(path, name);
        fail_in(index_location, std::nullopt, "index maps tensor '" + name + "' to " + shard + ", which does not hold it",
                         path);
    }
    if (idx.total_size && *idx.total_size != data)
        fail_in(index_location, std::nullopt, "metadata.total_size is " + std::to_string(*idx.total_size) +
                                                           " but the shards hold " + std::to_string(data) + " bytes of tensor data",
                         "metadata.total_size");
}

}  // namespace

void check_model_files(const locate::ModelPlan& plan, std::span<const CrawledFile> data) {
    if (plan.kind == locate::ModelPlan::Kind::split_gguf) check_split_set(data);
    if (plan.parsed_index) check_checkpoint(*plan.parsed_index, *plan.index, data);
}


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

model::FileRow file_row(const CrawledFile& f, int64_t shard) {
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

model::ModelRow model_row(const std::string& name, const std::vector<CrawledFile>& files,
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

// Kind and the hashes that tell re-uploads apart: from the data files.
void set_model_facts(model::ModelRow& m, const std::vector<CrawledFile>& files) {
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
}

// The headers of a model's data files, in shard order (all of one format).
std::vector<const model::FileHeader*> data_headers(const std::vector<CrawledFile>& files) {
    std::vector<const model::FileHeader*> data;
    for (const auto& f : files)
        if (f.role == FileRole::data) data.push_back(&f.header);
    return data;
}

// What llama.cpp allocates for it, from the one GGUF it is (memory/memory.hpp); a split set, a
// checkpoint or another format says so rather than guess.
model::MemoryRow memory_row(const std::vector<const model::FileHeader*>& data) {
    if (data.size() != 1 || data.front()->format != model::Format::gguf)
        return {std::nullopt, data.size() > 1 ? "not modelled for split sets" : "not modelled for safetensors checkpoints"};
    auto read = memory::read_memory_model(*data.front());
    if (auto* n = std::get_if<memory::NotModelled>(&read)) return {std::nullopt, n->reason};
    return {memory::memory_terms(std::get<memory::MemoryModel>(read)), ""};
}

model::RecipeRow inferred_recipe_row(const model::FileHeader& whole);

// The recipe of a GGUF model, its split shards read as the one file they were quantized as (remembered
// by its inputs: crawl/recipe_memo.hpp).
std::optional<model::RecipeRow> recipe_row(const std::vector<const model::FileHeader*>& data) {
    if (data.empty() || data.front()->format != model::Format::gguf) return std::nullopt;
    std::optional<model::FileHeader> joined;
    if (data.size() > 1) joined = quantize::joined_shards(data);
    const model::FileHeader& whole = joined ? *joined : *data.front();
    return remembered_recipe(whole, [&] { return inferred_recipe_row(whole); });
}

model::RecipeRow inferred_recipe_row(const model::FileHeader& whole) {
    const quantize::Recipe r = quantize::infer_recipe(whole);
    model::RecipeRow row;
    row.recipe = quantize::recipe_word(r.kind);
    if (r.quantized_as) row.quantized_as = static_cast<int64_t>(*r.quantized_as);
    row.overrides = r.overrides();
    row.matching = static_cast<int64_t>(r.matching);
    row.tensors = static_cast<int64_t>(r.tensors);
    row.revision = r.revision();
    row.imatrix = r.imatrix;
    row.differences = "[";
    for (const std::string& d : r.differences) {
        if (row.differences.size() > 1) row.differences += ",";
        format::append_json_string(row.differences, d);
    }
    row.differences += "]";
    row.why = r.why;
    row.note = r.note;
    return row;
}

}  // namespace

model::ModelRows derive_model_rows(const std::string& name, const std::vector<CrawledFile>& files) {
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
    const std::vector<const model::FileHeader*> data = data_headers(files);
    rows.recipe = recipe_row(data);
    rows.memory = memory_row(data);
    return rows;
}

}  // namespace modelcat::crawl
