#include "catalog/model_writer.hpp"

#include <algorithm>
#include <stdexcept>

#include "catalog/sql_values.hpp"
#include "model/content_hash.hpp"

namespace modelcat::catalog {

namespace {

const std::string kPreviousSql = "SELECT m.file_bytes, coalesce(m.policy_hash, ''), coalesce(m.census, ''), " +
                                 model_metadata_hashes_sql("m.model_id") + " FROM models m WHERE m.location = :location";
const char* const kEvictSql =
    "DELETE FROM models WHERE model_id IN (SELECT model_id FROM files WHERE location = :file) AND location <> :model";
const std::string kUpsertSql =
    "INSERT INTO models (location, name, format, architecture, file_type, tensor_count, kv_count,"
    " params, file_bytes, header_bytes, policy_hash, shape_hash, block_count, majority_type_id,"
    " majority_type_name, census, kind, chat_template_hash, tensor_index_hash, crawl_id, updated_at)"
    " VALUES (:location, :name, :format, :architecture, :file_type, :tensor_count, :kv_count, :params,"
    " :file_bytes, :header_bytes, :policy_hash, :shape_hash, :block_count, :majority_type_id,"
    " :majority_type_name, :census, :kind, :chat_template_hash, :tensor_index_hash, :crawl_id, " + std::string(kSqlNow) + ")"
    " ON CONFLICT(location) DO UPDATE SET name = excluded.name, format = excluded.format,"
    " architecture = excluded.architecture, file_type = excluded.file_type,"
    " tensor_count = excluded.tensor_count, kv_count = excluded.kv_count, params = excluded.params,"
    " file_bytes = excluded.file_bytes, header_bytes = excluded.header_bytes,"
    " policy_hash = excluded.policy_hash, shape_hash = excluded.shape_hash,"
    " block_count = excluded.block_count, majority_type_id = excluded.majority_type_id,"
    " majority_type_name = excluded.majority_type_name, census = excluded.census,"
    " kind = excluded.kind, chat_template_hash = excluded.chat_template_hash,"
    " tensor_index_hash = excluded.tensor_index_hash,"
    " crawl_id = excluded.crawl_id, updated_at = excluded.updated_at"
    " RETURNING model_id";
const char* const kFileSql =
    "INSERT INTO files (model_id, location, role, shard, format, version, endianness, size, header_bytes,"
    " data_start, alignment, declared_kv_count, tensor_count, bytes_read, requests, read_ms, mtime_ns, inode, device,"
    " header_hash, status, crawl_id, checked_crawl_id, etag, last_modified, sha256, final_url, http_status,"
    " revision, ggml_refusals, xet_hash, resolver_calls, storage_reads, tensor_index_hash, metadata_hash)"
    " VALUES (:model_id, :location, :role,"
    " :shard, :format, :version, :endianness, :size, :header_bytes, :data_start, :alignment, :declared_kv_count,"
    " :tensor_count, :bytes_read, :requests, :read_ms, :mtime_ns, :inode, :device, :header_hash, 'ok',"
    " :crawl_id, :crawl_id, :etag, :last_modified, :sha256, :final_url, :http_status, :revision,"
    " :ggml_refusals, :xet_hash, :resolver_calls, :storage_reads, :tensor_index_hash, :metadata_hash)";
// Rows written many to a statement (BatchInsert): the INSERT, then one row's values.
const char* const kMetadataHead =
    "INSERT OR IGNORE INTO metadata (model_id, file_id, key, value_type, value, array_type, array_length,"
    " array_bytes, array_hash, offset) VALUES ";
const char* const kMetadataRow =
    "(:model_id, :file_id, :key, :value_type, :value, :array_type, :array_length, :array_bytes, :array_hash, :offset)";
const char* const kTensorHead =
    "INSERT INTO tensor_rows (file_id, name_id, layout_id, offset32, info_to_data) VALUES ";
const char* const kTensorRow = "(:file_id, :name_id, :layout_id, :offset32, :info_to_data)";
const char* const kWarningSql =
    "INSERT INTO warnings (crawl_id, model_id, location, offset, message)"
    " VALUES (:crawl_id, :model_id, :location, :offset, :message)";
const char* const kRefusalSql =
    "INSERT INTO ggml_refusals (file_id, model_id, seq, \"check\", reason) VALUES (:file_id, :model_id, :seq, :check, :reason)";
const char* const kCensusHead =
    "INSERT INTO census (model_id, type_id, type_name, tensors, params, bytes, bits_per_weight) VALUES ";
const char* const kCensusRow = "(:model_id, :type_id, :type_name, :tensors, :params, :bytes, :bits_per_weight)";
const char* const kPolicyHead = "INSERT INTO policy_rows (model_id, tensor_kind, type_id, type_name, tensors, layers_id) VALUES ";
const char* const kPolicyRow = "(:model_id, :tensor_kind, :type_id, :type_name, :tensors, :layers_id)";
const char* const kRecipeSql =
    "INSERT INTO recipes (model_id, recipe, quantized_as, overrides, matching, tensors, revision, imatrix, differences, why, note)"
    " VALUES (:model_id, :recipe, :quantized_as, :overrides, :matching, :tensors, :revision, :imatrix, :differences, :why, :note)";
const char* const kMemorySql =
    "INSERT INTO memory_terms (model_id, basis, reason, ctx_train, n_layer, weights_bytes, repack_bytes,"
    " layer_weight_bytes_max, repeating_weight_bytes, other_weight_bytes, recurrent_bytes, output_bytes, whole_blocks,"
    " logits_per_token, attention_per_token, scores_per_token_cell, layer_per_token, shape_key)"
    " VALUES (:model_id, :basis, :reason, :ctx_train, :n_layer, :weights_bytes, :repack_bytes, :layer_weight_bytes_max,"
    " :repeating_weight_bytes, :other_weight_bytes, :recurrent_bytes, :output_bytes, :whole_blocks, :logits_per_token,"
    " :attention_per_token, :scores_per_token_cell, :layer_per_token, :shape_key)";
const char* const kMemoryCacheSql =
    "INSERT INTO memory_caches (model_id, cache, kind, window, layers, k_elements, v_elements, v_padded_elements)"
    " VALUES (:model_id, :cache, :kind, :window, :layers, :k_elements, :v_elements, :v_padded_elements)";
const std::string kEventSql =
    "INSERT INTO model_events (crawl_id, location, event, file_bytes_before, file_bytes_after,"
    " policy_before, policy_after, census_before, census_after, metadata_before, metadata_after)"
    " SELECT :crawl_id, m.location, :event, :bytes_before, m.file_bytes, :policy_before, m.policy_hash,"
    " :census_before, m.census, :metadata_before, " + model_metadata_hashes_sql("m.model_id") +
    " FROM models m WHERE m.model_id = :model_id";

}  // namespace

ModelWriter::ModelWriter(SQLite::Database& db)
    : previous_(db, kPreviousSql), evict_(db, kEvictSql), upsert_(db, kUpsertSql), file_(db, kFileSql),
      warning_(db, kWarningSql), refusal_(db, kRefusalSql), recipe_(db, kRecipeSql), event_(db, kEventSql),
      memory_(db, kMemorySql), memory_cache_(db, kMemoryCacheSql), metadata_(db, kMetadataHead, kMetadataRow),
      tensors_(db, kTensorHead, kTensorRow), parts_(db), census_(db, kCensusHead, kCensusRow), policy_(db, kPolicyHead, kPolicyRow),
      db_(db) {
    for (const char* table : kChildTables)
        clear_.emplace_back(db, "DELETE FROM " + std::string(table) + " WHERE model_id = :model_id");
}

// Inside the caller's transaction (Writer's batch), the model's own savepoint: all its rows or none.
int64_t ModelWriter::write(int64_t crawl_id, const model::ModelRows& rows) {
    if (rows.files.empty()) throw std::logic_error("a model needs at least one file");
    db_.exec("SAVEPOINT model");
    try {
        const int64_t model_id = write_rows(crawl_id, rows);
        db_.exec("RELEASE model");
        return model_id;
    } catch (...) {
        parts_.forget();  // the names and layouts it added are undone too
        try {
            db_.exec("ROLLBACK TO model");
            db_.exec("RELEASE model");
        } catch (const SQLite::Exception&) {  // an I/O error may have ended the transaction already
        }
        throw;
    }
}

int64_t ModelWriter::write_rows(int64_t crawl_id, const model::ModelRows& rows) {
    evicted_ = false;
    std::optional<Before> before = previous(rows.model.location);
    evict_moved_files(rows);
    const int64_t model_id = upsert_model(crawl_id, rows.model);
    clear_children(model_id);
    for (const model::FileRow& f : rows.files) {
        const int64_t file_id = insert_file(crawl_id, model_id, f);
        metadata_.insert(f.metadata.size(), [&](BatchInsert::Row& r, size_t i) { bind_metadata(r, model_id, file_id, f.metadata[i]); });
        insert_tensors(file_id, f.data_start, f.tensors);
        for (const auto& w : f.warnings) insert_warning(crawl_id, model_id, f.location, w);
        if (f.ggml_refusals)
            for (size_t i = 0; i < f.ggml_refusals->size(); ++i) insert_refusal(model_id, file_id, i, (*f.ggml_refusals)[i]);
    }
    census_.insert(rows.census.size(), [&](BatchInsert::Row& r, size_t i) { bind_census(r, model_id, rows.census[i]); });
    policy_.insert(rows.policy.size(), [&](BatchInsert::Row& r, size_t i) { bind_policy(r, model_id, rows.policy[i]); });
    if (rows.recipe) insert_recipe(model_id, *rows.recipe);
    insert_memory(model_id, rows.memory);
    record_event(crawl_id, model_id, before);
    return model_id;
}

// The model as it was, for the history: nothing if new.
std::optional<ModelWriter::Before> ModelWriter::previous(const std::string& location) {
    NamedStatement& st = previous_;
    st.bind(":location", location);
    std::optional<Before> b;
    if (st.step()) {
        b = Before{st.column(0).getInt64(), st.column(1).getString(), st.column(2).getString(), std::nullopt};
        if (!st.column(3).isNull()) b->metadata = st.column(3).getString();
    }
    st.reset();
    return b;
}

// A file that belonged to another model (say, a shard re-grouped) moves to this one.
void ModelWriter::evict_moved_files(const model::ModelRows& rows) {
    for (const auto& f : rows.files) {
        evict_.bind(":model", rows.model.location);
        evict_.bind(":file", f.location);
        evict_.exec();
        if (db_.getChanges() > 0) evicted_ = true;
    }
}

int64_t ModelWriter::upsert_model(int64_t crawl_id, const model::ModelRow& m) {
    NamedStatement& up = upsert_;
    up.bind(":location", m.location);
    up.bind(":name", m.name);
    up.bind(":format", m.format);
    up.bind(":architecture", m.architecture);
    up.bind(":file_type", m.file_type);
    up.bind(":tensor_count", m.tensor_count);
    up.bind(":kv_count", m.kv_count);
    up.bind(":params", m.params);
    up.bind(":file_bytes", m.file_bytes);
    up.bind(":header_bytes", m.header_bytes);
    up.bind(":policy_hash", m.policy_hash);
    up.bind(":shape_hash", m.shape_hash);
    if (m.block_count) bind_metadata_value(up, ":block_count", *m.block_count);
    else up.bind_null(":block_count");
    up.bind(":majority_type_id", m.majority_type_id);
    up.bind(":majority_type_name", m.majority_type_name);
    up.bind(":census", m.census);
    up.bind(":kind", m.kind);
    up.bind(":chat_template_hash", m.chat_template_hash);
    up.bind(":tensor_index_hash", m.tensor_index_hash);
    up.bind(":crawl_id", crawl_id);
    if (!up.step()) throw std::runtime_error("upsert of model returned no row");
    const int64_t id = up.column(0).getInt64();
    up.reset();
    return id;
}

void ModelWriter::clear_children(int64_t model_id) {
    for (NamedStatement& del : clear_) {
        del.bind(":model_id", model_id);
        del.exec();
    }
}

int64_t ModelWriter::insert_file(int64_t crawl_id, int64_t model_id, const model::FileRow& f) {
    NamedStatement& st = file_;
    st.bind(":model_id", model_id);
    st.bind(":crawl_id", crawl_id);
    st.bind(":location", f.location);
    st.bind(":role", f.role);
    st.bind(":shard", f.shard);
    st.bind(":format", f.format);
    st.bind(":version", f.version);
    st.bind(":endianness", f.endianness);
    st.bind(":size", f.size);
    st.bind(":header_bytes", f.header_bytes);
    st.bind(":data_start", f.data_start);
    st.bind(":alignment", f.alignment);
    st.bind(":declared_kv_count", f.declared_kv_count);
    st.bind(":tensor_count", f.tensor_count);
    st.bind(":bytes_read", f.bytes_read);
    st.bind(":requests", f.requests);
    st.bind(":read_ms", f.read_ms);
    st.bind(":mtime_ns", f.mtime_ns);
    st.bind(":inode", f.inode);
    st.bind(":device", f.device);
    st.bind(":header_hash", f.header_hash);
    st.bind(":etag", f.etag);
    st.bind(":last_modified", f.last_modified);
    st.bind(":sha256", f.sha256);
    st.bind(":final_url", f.final_url);
    st.bind(":http_status", f.http_status);
    st.bind(":revision", f.revision);
    st.bind(":ggml_refusals", f.ggml_refusals ? std::optional<int64_t>(static_cast<int64_t>(f.ggml_refusals->size())) : std::nullopt);
    st.bind(":xet_hash", f.xet_hash);
    st.bind(":resolver_calls", f.resolver_calls);
    st.bind(":storage_reads", f.storage_reads);
    st.bind(":tensor_index_hash", f.tensor_index_hash);
    st.bind(":metadata_hash", f.metadata_hash);
    st.exec();
    return db_.getLastInsertRowid();
}

void ModelWriter::bind_metadata(BatchInsert::Row& st, int64_t model_id, int64_t file_id, const model::MetadataEntry& e) {
    st.bind(":model_id", model_id);
    st.bind(":file_id", file_id);
    st.bind(":key", e.key);
    st.bind(":value_type", model::value_type_name(e.type));
    bind_metadata_value(st, ":value", e.value);
    const auto* a = std::get_if<model::ArraySummary>(&e.value);
    st.bind(":array_type", a ? std::optional<std::string>(model::value_type_name(a->element_type)) : std::nullopt);
    st.bind(":array_length", a ? std::optional<int64_t>(a->length) : std::nullopt);
    st.bind(":array_bytes", a ? std::optional<int64_t>(a->byte_size) : std::nullopt);
    st.bind(":array_hash", a ? std::optional<std::string>(model::hex64(a->content_hash)) : std::nullopt);
    st.bind(":offset", static_cast<int64_t>(e.offset));
}

// A file's tensors as rows of their names' and layouts' ids, in primary-key order (file_id, name_id):
// appended at the B-tree's end.
void ModelWriter::insert_tensors(int64_t file_id, int64_t data_start, const std::vector<model::TensorRow>& tensors) {
    struct Ref {
        int64_t name_id, layout_id;
        const model::TensorRow* t;
    };
    std::vector<Ref> refs;
    refs.reserve(tensors.size());
    for (const auto& t : tensors) refs.push_back({parts_.name_id(t), parts_.layout_id(t), &t});
    std::sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) { return a.name_id < b.name_id; });
    tensors_.insert(refs.size(), [&](BatchInsert::Row& r, size_t i) {
        const model::TensorRow& t = *refs[i].t;
        r.bind(":file_id", file_id);
        r.bind(":name_id", refs[i].name_id);
        r.bind(":layout_id", refs[i].layout_id);
        r.bind(":offset32", t.offset % 32 == 0 ? t.offset / 32 : -1 - t.offset);  // schema/current.sql, tensor_rows
        r.bind(":info_to_data", data_start - t.info_offset);
    });
}

void ModelWriter::insert_warning(int64_t crawl_id, int64_t model_id, const std::string& location, const model::Warning& w) {
    NamedStatement& st = warning_;
    st.bind(":crawl_id", crawl_id);
    st.bind(":model_id", model_id);
    st.bind(":location", location);
    st.bind(":offset", static_cast<int64_t>(w.offset));
    st.bind(":message", w.message);
    st.exec();
}

void ModelWriter::insert_refusal(int64_t model_id, int64_t file_id, size_t seq,
                                 const std::pair<std::string, std::string>& refusal) {
    NamedStatement& st = refusal_;
    st.bind(":file_id", file_id);
    st.bind(":model_id", model_id);
    st.bind(":seq", static_cast<int64_t>(seq));
    st.bind(":check", refusal.first);
    st.bind(":reason", refusal.second);
    st.exec();
}

void ModelWriter::bind_census(BatchInsert::Row& st, int64_t model_id, const model::CensusRow& c) {
    st.bind(":model_id", model_id);
    st.bind(":type_id", c.type_id);
    st.bind(":type_name", c.type_name);
    st.bind(":tensors", c.tensors);
    st.bind(":params", c.params);
    st.bind(":bytes", c.bytes);
    st.bind(":bits_per_weight", c.bits_per_weight);
}

void ModelWriter::bind_policy(BatchInsert::Row& st, int64_t model_id, const model::PolicyRow& p) {  // the list interned
    st.bind(":model_id", model_id);
    st.bind(":tensor_kind", p.tensor_kind);
    st.bind(":type_id", p.type_id);
    st.bind(":type_name", p.type_name);
    st.bind(":tensors", p.tensors);
    st.bind(":layers_id", parts_.layers_id(p.layers));
}

void ModelWriter::insert_recipe(int64_t model_id, const model::RecipeRow& r) {
    NamedStatement& st = recipe_;
    st.bind(":model_id", model_id);
    st.bind(":recipe", r.recipe);
    st.bind(":quantized_as", r.quantized_as);
    st.bind(":overrides", r.overrides);
    st.bind(":matching", r.matching);
    st.bind(":tensors", r.tensors);
    st.bind(":revision", r.revision);
    st.bind(":imatrix", r.imatrix ? 1 : 0);
    st.bind(":differences", r.differences);
    st.bind(":why", r.why);
    st.bind(":note", r.note);
    st.exec();
}

void ModelWriter::record_event(int64_t crawl_id, int64_t model_id, const std::optional<Before>& before) {
    NamedStatement& ev = event_;
    ev.bind(":crawl_id", crawl_id);
    ev.bind(":event", before ? "changed" : "new");
    ev.bind(":bytes_before", before ? std::optional(before->file_bytes) : std::nullopt);
    ev.bind(":policy_before", before ? std::optional(before->policy_hash) : std::nullopt);
    ev.bind(":census_before", before ? std::optional(before->census) : std::nullopt);
    if (before && before->metadata) ev.bind(":metadata_before", *before->metadata);  // bound without a copy: `before` outlives exec()
    else ev.bind_null(":metadata_before");
    ev.bind(":model_id", model_id);
    ev.exec();
}

// The memory terms (a row for every model, saying why when there are none) and their caches.
void ModelWriter::insert_memory(int64_t model_id, const model::MemoryRow& m) {
    auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
    memory_.bind(":model_id", model_id);
    memory_.bind(":basis", m.terms ? "modelled" : "not_modelled");
    memory_.bind(":reason", m.terms ? std::nullopt : std::optional(m.reason));
    const std::optional<model::MemoryTerms>& t = m.terms;
    auto term = [&](uint64_t model::MemoryTerms::*field) { return t ? std::optional(i64((*t).*field)) : std::nullopt; };
    memory_.bind(":ctx_train", term(&model::MemoryTerms::ctx_train));
    memory_.bind(":n_layer", term(&model::MemoryTerms::n_layer));
    memory_.bind(":weights_bytes", term(&model::MemoryTerms::weights_bytes));
    memory_.bind(":repack_bytes", term(&model::MemoryTerms::repack_bytes));
    memory_.bind(":layer_weight_bytes_max", term(&model::MemoryTerms::layer_weight_bytes_max));
    memory_.bind(":repeating_weight_bytes", term(&model::MemoryTerms::repeating_weight_bytes));
    memory_.bind(":other_weight_bytes", term(&model::MemoryTerms::other_weight_bytes));
    memory_.bind(":recurrent_bytes", term(&model::MemoryTerms::recurrent_bytes));
    memory_.bind(":output_bytes", term(&model::MemoryTerms::output_bytes));
    memory_.bind(":logits_per_token", term(&model::MemoryTerms::logits_per_token));
    memory_.bind(":attention_per_token", term(&model::MemoryTerms::attention_per_token));
    memory_.bind(":scores_per_token_cell", term(&model::MemoryTerms::scores_per_token_cell));
    memory_.bind(":layer_per_token", term(&model::MemoryTerms::layer_per_token));
    memory_.bind(":whole_blocks", t ? std::optional<int64_t>(t->whole_blocks) : std::nullopt);
    memory_.bind(":shape_key", t ? std::optional(model::memory_shape_hash(*t)) : std::nullopt);
    memory_.exec();
    if (!t) return;
    for (size_t i = 0; i < t->caches.size(); ++i) {
        const model::CacheTerms& c = t->caches[i];
        memory_cache_.bind(":model_id", model_id);
        memory_cache_.bind(":cache", static_cast<int64_t>(i));
        memory_cache_.bind(":kind", std::string(model::cache_kind_name(c.kind)));
        memory_cache_.bind(":window", static_cast<int64_t>(c.window));
        memory_cache_.bind(":layers", static_cast<int64_t>(c.layers));
        memory_cache_.bind(":k_elements", i64(c.k_elements));
        memory_cache_.bind(":v_elements", i64(c.v_elements));
        memory_cache_.bind(":v_padded_elements", i64(c.v_padded_elements));
        memory_cache_.exec();
    }
}

}  // namespace modelcat::catalog
