#include "catalog/model_writer.hpp"

#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <stdexcept>

#include "catalog/sql_values.hpp"
#include "format/content_hash.hpp"

namespace modelcat::catalog {

ModelWriter::ModelWriter(SQLite::Database& db)
    : db_(db),
      file_(db, "INSERT INTO files (model_id, location, role, shard, format, version, endianness, size, header_bytes,"
                " data_start, alignment, declared_kv_count, tensor_count, bytes_read, requests, read_ms, mtime_ns, inode, device,"
                " header_hash, status, crawl_id, checked_crawl_id, etag, last_modified, sha256, final_url, http_status,"
                " revision, ggml_refusals, xet_hash, resolver_calls, storage_reads, tensor_index_hash, metadata_hash)"
                " VALUES (:model_id, :location, :role,"
                " :shard, :format, :version, :endianness, :size, :header_bytes, :data_start, :alignment, :declared_kv_count,"
                " :tensor_count, :bytes_read, :requests, :read_ms, :mtime_ns, :inode, :device, :header_hash, 'ok',"
                " :crawl_id, :crawl_id, :etag, :last_modified, :sha256, :final_url, :http_status, :revision,"
                " :ggml_refusals, :xet_hash, :resolver_calls, :storage_reads, :tensor_index_hash, :metadata_hash)"),
      metadata_(db, "INSERT OR IGNORE INTO metadata (model_id, file_id, key, value_type, value, array_type, array_length,"
                    " array_bytes, array_hash, offset) VALUES (:model_id, :file_id, :key, :value_type, :value,"
                    " :array_type, :array_length, :array_bytes, :array_hash, :offset)"),
      tensor_(db, "INSERT INTO tensors (model_id, file_id, name, layer, kind, n_dims, dims, n_elements, type_id,"
                  " type_name, offset, bytes, expected_bytes, bits_per_weight, info_offset) VALUES (:model_id, :file_id,"
                  " :name, :layer, :kind, :n_dims, :dims, :n_elements, :type_id, :type_name, :offset, :bytes,"
                  " :expected_bytes, :bits_per_weight, :info_offset)"),
      warning_(db, "INSERT INTO warnings (crawl_id, model_id, location, offset, message)"
                   " VALUES (:crawl_id, :model_id, :location, :offset, :message)"),
      census_(db, "INSERT INTO census (model_id, type_id, type_name, tensors, params, bytes, bits_per_weight)"
                  " VALUES (:model_id, :type_id, :type_name, :tensors, :params, :bytes, :bits_per_weight)"),
      policy_(db, "INSERT INTO policy_layers (model_id, tensor_kind, type_id, type_name, tensors, layers)"
                  " VALUES (:model_id, :tensor_kind, :type_id, :type_name, :tensors, :layers)") {}

SQLite::Statement& ModelWriter::prepared(std::unique_ptr<SQLite::Statement>& st, const std::string& sql) {
    if (!st) st = std::make_unique<SQLite::Statement>(db_, sql);
    st->reset();
    return *st;
}

int64_t ModelWriter::write(int64_t crawl_id, const ModelRows& rows) {
    if (rows.files.empty()) throw std::logic_error("a model needs at least one file");
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    std::optional<Before> before = previous(rows.model.location);
    evict_moved_files(rows);
    const int64_t model_id = upsert_model(crawl_id, rows.model);
    clear_children(model_id);
    for (const FileRow& f : rows.files) {
        const int64_t file_id = insert_file(crawl_id, model_id, f);
        for (const auto& e : f.metadata) insert_metadata(model_id, file_id, e);
        std::vector<const TensorRow*> by_name;  // primary-key order: half the B-tree work of file order
        for (const auto& t : f.tensors) by_name.push_back(&t);
        std::sort(by_name.begin(), by_name.end(), [](auto* a, auto* b) { return a->name < b->name; });
        for (const TensorRow* t : by_name) insert_tensor(model_id, file_id, *t);
        for (const auto& w : f.warnings) insert_warning(crawl_id, model_id, f.location, w);
        if (f.ggml_refusals)
            for (size_t i = 0; i < f.ggml_refusals->size(); ++i) insert_refusal(model_id, file_id, i, (*f.ggml_refusals)[i]);
    }
    for (const auto& c : rows.census) insert_census(model_id, c);
    for (const auto& p : rows.policy) insert_policy(model_id, p);
    record_event(crawl_id, model_id, before);
    tx.commit();
    return model_id;
}

// The model as it was, for the history: nothing if new.
std::optional<ModelWriter::Before> ModelWriter::previous(const std::string& location) {
    SQLite::Statement& st = prepared(previous_, "SELECT m.file_bytes, coalesce(m.policy_hash, ''), coalesce(m.census, '')"
                                                " FROM models m WHERE m.location = :location");
    st.bind(":location", location);
    if (!st.executeStep()) return std::nullopt;
    Before b{st.getColumn(0).getInt64(), st.getColumn(1).getString(), st.getColumn(2).getString()};
    st.reset();
    return b;
}

// A file that belonged to another model (say, a shard re-grouped) moves to this one.
void ModelWriter::evict_moved_files(const ModelRows& rows) {
    SQLite::Statement& del = prepared(evict_, "DELETE FROM models WHERE model_id IN"
                                              " (SELECT model_id FROM files WHERE location = :file) AND location <> :model");
    del.bind(":model", rows.model.location);
    for (const auto& f : rows.files) {
        del.bind(":file", f.location);
        del.exec();
        del.reset();
    }
}

int64_t ModelWriter::upsert_model(int64_t crawl_id, const ModelRow& m) {
    SQLite::Statement& up = prepared(upsert_,
                         "INSERT INTO models (location, name, format, architecture, file_type, tensor_count, kv_count,"
                         " params, file_bytes, header_bytes, policy_hash, shape_hash, block_count, majority_type_id,"
                         " majority_type_name, census, kind, chat_template_hash, tensor_index_hash, kv_full_bytes_per_1k,"
                         " kv_swa_bytes_per_1k, kv_swa_layers, sliding_window, crawl_id, updated_at)"
                         " VALUES (:location, :name, :format, :architecture, :file_type, :tensor_count, :kv_count, :params,"
                         " :file_bytes, :header_bytes, :policy_hash, :shape_hash, :block_count, :majority_type_id,"
                         " :majority_type_name, :census, :kind, :chat_template_hash, :tensor_index_hash, :kv_full_bytes_per_1k,"
                         " :kv_swa_bytes_per_1k, :kv_swa_layers, :sliding_window, :crawl_id, " + std::string(kSqlNow) + ")"
                         " ON CONFLICT(location) DO UPDATE SET name = excluded.name, format = excluded.format,"
                         " architecture = excluded.architecture, file_type = excluded.file_type,"
                         " tensor_count = excluded.tensor_count, kv_count = excluded.kv_count, params = excluded.params,"
                         " file_bytes = excluded.file_bytes, header_bytes = excluded.header_bytes,"
                         " policy_hash = excluded.policy_hash, shape_hash = excluded.shape_hash,"
                         " block_count = excluded.block_count, majority_type_id = excluded.majority_type_id,"
                         " majority_type_name = excluded.majority_type_name, census = excluded.census,"
                         " kind = excluded.kind, chat_template_hash = excluded.chat_template_hash,"
                         " tensor_index_hash = excluded.tensor_index_hash, kv_full_bytes_per_1k = excluded.kv_full_bytes_per_1k,"
                         " kv_swa_bytes_per_1k = excluded.kv_swa_bytes_per_1k, kv_swa_layers = excluded.kv_swa_layers,"
                         " sliding_window = excluded.sliding_window,"
                         " crawl_id = excluded.crawl_id, updated_at = excluded.updated_at"
                         " RETURNING model_id");
    up.bind(":location", m.location);
    up.bind(":name", m.name);
    up.bind(":format", m.format);
    bind_optional(up, ":architecture", m.architecture);
    bind_optional(up, ":file_type", m.file_type);
    up.bind(":tensor_count", m.tensor_count);
    up.bind(":kv_count", m.kv_count);
    up.bind(":params", m.params);
    up.bind(":file_bytes", m.file_bytes);
    up.bind(":header_bytes", m.header_bytes);
    up.bind(":policy_hash", m.policy_hash);
    up.bind(":shape_hash", m.shape_hash);
    if (m.block_count) bind_metadata_value(up, ":block_count", *m.block_count);
    else up.bind(":block_count");
    bind_optional(up, ":majority_type_id", m.majority_type_id);
    bind_optional(up, ":majority_type_name", m.majority_type_name);
    up.bind(":census", m.census);
    up.bind(":kind", m.kind);
    bind_optional(up, ":chat_template_hash", m.chat_template_hash);
    bind_optional(up, ":tensor_index_hash", m.tensor_index_hash);
    bind_optional(up, ":kv_full_bytes_per_1k", m.kv_full_bytes_per_1k);
    bind_optional(up, ":kv_swa_bytes_per_1k", m.kv_swa_bytes_per_1k);
    bind_optional(up, ":kv_swa_layers", m.kv_swa_layers);
    bind_optional(up, ":sliding_window", m.sliding_window);
    up.bind(":crawl_id", crawl_id);
    if (!up.executeStep()) throw std::runtime_error("upsert of model returned no row");
    const int64_t id = up.getColumn(0).getInt64();
    up.reset();
    return id;
}

void ModelWriter::clear_children(int64_t model_id) {
    for (size_t i = 0; i < kChildTables.size(); ++i) {
        SQLite::Statement& del = prepared(clear_[i], "DELETE FROM " + std::string(kChildTables[i]) + " WHERE model_id = :model_id");
        del.bind(":model_id", model_id);
        del.exec();
    }
}

int64_t ModelWriter::insert_file(int64_t crawl_id, int64_t model_id, const FileRow& f) {
    SQLite::Statement& st = file_;
    st.bind(":model_id", model_id);
    st.bind(":crawl_id", crawl_id);
    st.bind(":location", f.location);
    st.bind(":role", f.role);
    st.bind(":shard", f.shard);
    st.bind(":format", f.format);
    bind_optional(st, ":version", f.version);
    bind_optional(st, ":endianness", f.endianness);
    st.bind(":size", f.size);
    st.bind(":header_bytes", f.header_bytes);
    st.bind(":data_start", f.data_start);
    bind_optional(st, ":alignment", f.alignment);
    st.bind(":declared_kv_count", f.declared_kv_count);
    st.bind(":tensor_count", f.tensor_count);
    st.bind(":bytes_read", f.bytes_read);
    st.bind(":requests", f.requests);
    st.bind(":read_ms", f.read_ms);
    bind_optional(st, ":mtime_ns", f.mtime_ns);
    bind_optional(st, ":inode", f.inode);
    bind_optional(st, ":device", f.device);
    bind_optional(st, ":header_hash", f.header_hash);
    bind_optional(st, ":etag", f.etag);
    bind_optional(st, ":last_modified", f.last_modified);
    bind_optional(st, ":sha256", f.sha256);
    bind_optional(st, ":final_url", f.final_url);
    bind_optional(st, ":http_status", f.http_status);
    bind_optional(st, ":revision", f.revision);
    bind_optional(st, ":ggml_refusals",
                  f.ggml_refusals ? std::optional<int64_t>(static_cast<int64_t>(f.ggml_refusals->size())) : std::nullopt);
    bind_optional(st, ":xet_hash", f.xet_hash);
    bind_optional(st, ":resolver_calls", f.resolver_calls);
    bind_optional(st, ":storage_reads", f.storage_reads);
    bind_optional(st, ":tensor_index_hash", f.tensor_index_hash);
    bind_optional(st, ":metadata_hash", f.metadata_hash);
    st.exec();
    st.reset();
    return db_.getLastInsertRowid();
}

void ModelWriter::insert_metadata(int64_t model_id, int64_t file_id, const format::MetadataEntry& e) {
    SQLite::Statement& st = metadata_;
    st.bind(":model_id", model_id);
    st.bind(":file_id", file_id);
    st.bind(":key", e.key);
    st.bind(":value_type", format::value_type_name(e.type));
    bind_metadata_value(st, ":value", e.value);
    const auto* a = std::get_if<format::ArraySummary>(&e.value);
    bind_optional(st, ":array_type", a ? std::optional<std::string>(format::value_type_name(a->element_type)) : std::nullopt);
    bind_optional(st, ":array_length", a ? std::optional<int64_t>(a->length) : std::nullopt);
    bind_optional(st, ":array_bytes", a ? std::optional<int64_t>(a->byte_size) : std::nullopt);
    bind_optional(st, ":array_hash", a ? std::optional<std::string>(format::hex64(a->content_hash)) : std::nullopt);
    st.bind(":offset", static_cast<int64_t>(e.offset));
    st.exec();
    st.reset();
}

void ModelWriter::insert_tensor(int64_t model_id, int64_t file_id, const TensorRow& t) {
    SQLite::Statement& st = tensor_;
    st.bind(":model_id", model_id);
    st.bind(":file_id", file_id);
    st.bind(":name", t.name);
    bind_optional(st, ":layer", t.layer);
    st.bind(":kind", t.kind);
    st.bind(":n_dims", t.n_dims);
    st.bind(":dims", t.dims);
    st.bind(":n_elements", t.n_elements);
    bind_optional(st, ":type_id", t.type_id);
    st.bind(":type_name", t.type_name);
    st.bind(":offset", t.offset);
    st.bind(":bytes", t.bytes);
    bind_optional(st, ":expected_bytes", t.expected_bytes);
    bind_optional(st, ":bits_per_weight", t.bits_per_weight);
    st.bind(":info_offset", t.info_offset);
    st.exec();
    st.reset();
}

void ModelWriter::insert_warning(int64_t crawl_id, int64_t model_id, const std::string& location, const format::Warning& w) {
    SQLite::Statement& st = warning_;
    st.bind(":crawl_id", crawl_id);
    st.bind(":model_id", model_id);
    st.bind(":location", location);
    st.bind(":offset", static_cast<int64_t>(w.offset));
    st.bind(":message", w.message);
    st.exec();
    st.reset();
}

void ModelWriter::insert_refusal(int64_t model_id, int64_t file_id, size_t seq,
                                 const std::pair<std::string, std::string>& refusal) {
    SQLite::Statement& st = prepared(refusal_, "INSERT INTO ggml_refusals (file_id, model_id, seq, \"check\", reason)"
                                               " VALUES (:file_id, :model_id, :seq, :check, :reason)");
    st.bind(":file_id", file_id);
    st.bind(":model_id", model_id);
    st.bind(":seq", static_cast<int64_t>(seq));
    st.bind(":check", refusal.first);
    st.bind(":reason", refusal.second);
    st.exec();
}

void ModelWriter::insert_census(int64_t model_id, const CensusRow& c) {
    SQLite::Statement& st = census_;
    st.bind(":model_id", model_id);
    bind_optional(st, ":type_id", c.type_id);
    st.bind(":type_name", c.type_name);
    st.bind(":tensors", c.tensors);
    st.bind(":params", c.params);
    st.bind(":bytes", c.bytes);
    bind_optional(st, ":bits_per_weight", c.bits_per_weight);
    st.exec();
    st.reset();
}

void ModelWriter::insert_policy(int64_t model_id, const PolicyRow& p) {
    SQLite::Statement& st = policy_;
    st.bind(":model_id", model_id);
    st.bind(":tensor_kind", p.tensor_kind);
    bind_optional(st, ":type_id", p.type_id);
    st.bind(":type_name", p.type_name);
    st.bind(":tensors", p.tensors);
    bind_optional(st, ":layers", p.layers);
    st.exec();
    st.reset();
}

void ModelWriter::record_event(int64_t crawl_id, int64_t model_id, const std::optional<Before>& before) {
    SQLite::Statement& ev = prepared(event_,
                         "INSERT INTO model_events (crawl_id, location, event, file_bytes_before, file_bytes_after,"
                         " policy_before, policy_after, census_before, census_after)"
                         " SELECT :crawl_id, m.location, :event, :bytes_before, m.file_bytes, :policy_before, m.policy_hash,"
                         " :census_before, m.census FROM models m WHERE m.model_id = :model_id");
    ev.bind(":crawl_id", crawl_id);
    ev.bind(":event", before ? "changed" : "new");
    bind_optional(ev, ":bytes_before", before ? std::optional(before->file_bytes) : std::nullopt);
    bind_optional(ev, ":policy_before", before ? std::optional(before->policy_hash) : std::nullopt);
    bind_optional(ev, ":census_before", before ? std::optional(before->census) : std::nullopt);
    ev.bind(":model_id", model_id);
    ev.exec();
}

}  // namespace modelcat::catalog
