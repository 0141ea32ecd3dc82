#include "catalog/catalog.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <stdexcept>

#include "catalog/embedded_sql.hpp"
#include "catalog/ggml_compat_rows.hpp"
#include "format/ggml_types.hpp"
#include "format/tensor_names.hpp"
#include "format/text.hpp"

namespace modelcat::catalog {

namespace {

constexpr int kBusyTimeoutMs = 30'000;

const std::string kNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

void bind_value(SQLite::Statement& st, int idx, const format::MetadataValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                // SQLite integers are signed 64-bit; larger values are kept exactly as text
                if (x > static_cast<uint64_t>(INT64_MAX)) st.bind(idx, std::to_string(x));
                else st.bind(idx, static_cast<int64_t>(x));
            } else if constexpr (std::is_same_v<T, int64_t>) {
                st.bind(idx, x);
            } else if constexpr (std::is_same_v<T, double>) {
                st.bind(idx, x);
            } else if constexpr (std::is_same_v<T, bool>) {
                st.bind(idx, x ? 1 : 0);
            } else if constexpr (std::is_same_v<T, std::string>) {
                st.bind(idx, x);
            } else {  // ArraySummary
                if (x.json) st.bind(idx, *x.json);
                else st.bind(idx);
            }
        },
        v);
}

const char* role_name(FileRole r) {
    switch (r) {
        case FileRole::data: return "data";
        case FileRole::index: return "index";
        case FileRole::config: return "config";
    }
    return "data";
}

// Two quants with the same (name, type) list share a policy; the layer-free
// form compares (kind, type, count) so different models compare by shape.
std::pair<std::string, std::string> policy_hashes(const ModelRecord& model) {
    std::vector<std::string> exact;
    std::map<std::string, uint64_t> shape;
    for (const auto& f : model.files)
        for (const auto& t : f.header.tensors) {
            exact.push_back(t.name + '\x1f' + t.type_name);
            ++shape[format::split_tensor_name(t.name).kind + '\x1f' + t.type_name];
        }
    std::sort(exact.begin(), exact.end());
    format::ContentHash a, b;
    for (const auto& s : exact) a.update({reinterpret_cast<const uint8_t*>(s.data()), s.size() + 1});  // + the NUL as separator
    for (const auto& [k, n] : shape) {
        b.update({reinterpret_cast<const uint8_t*>(k.data()), k.size() + 1});
        b.update_u64le(n);
    }
    return {format::hex64(a.digest()), format::hex64(b.digest())};
}

// Runs a statement once per value bound to its first parameter (bindings of
// the others stay as they were set).
void exec_each(SQLite::Statement& st, const std::vector<std::string>& values) {
    for (const auto& v : values) {
        st.bind(1, v);
        st.exec();
        st.reset();
    }
}

template <typename T>
void bind_optional(SQLite::Statement& st, int idx, const std::optional<T>& v) {
    if (v) st.bind(idx, static_cast<int64_t>(*v));
    else st.bind(idx);
}

}  // namespace

int schema_version() { return static_cast<int>(schema_migrations().size()); }

Catalog::Catalog(const std::string& path)
    : db_(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs) {
    db_.exec("PRAGMA journal_mode = WAL");
    db_.exec("PRAGMA foreign_keys = ON");
    db_.exec("PRAGMA synchronous = NORMAL");
    migrate();
}

void Catalog::migrate() {
    int current = db_.execAndGet("PRAGMA user_version").getInt();
    const auto& migrations = schema_migrations();
    if (current > static_cast<int>(migrations.size()))
        throw std::runtime_error("database schema version " + std::to_string(current) +
                                 " is newer than this modelcat understands (" + std::to_string(migrations.size()) + ")");
    if (current < static_cast<int>(migrations.size())) {
        SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
        // re-read inside the write lock: another process may have migrated meanwhile
        current = db_.execAndGet("PRAGMA user_version").getInt();
        for (size_t i = static_cast<size_t>(current); i < migrations.size(); ++i) {
            db_.exec(std::string(migrations[i].sql));
            db_.exec("PRAGMA user_version = " + std::to_string(i + 1));
        }
        tx.commit();
    }
    // The type table follows the binary, not the database's age.
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement ins(db_, "INSERT OR REPLACE INTO ggml_types VALUES (?,?,?,?,?)");
    for (const auto& t : format::ggml_types()) {
        ins.bind(1, static_cast<int64_t>(t.id));
        ins.bind(2, std::string(t.name));
        ins.bind(3, static_cast<int64_t>(t.block_size));
        ins.bind(4, static_cast<int64_t>(t.type_size));
        ins.bind(5, t.bits_per_weight());
        ins.exec();
        ins.reset();
    }
    tx.commit();
}

int64_t Catalog::begin_crawl(const std::vector<std::string>& inputs) {
    std::string json = "[";
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i) json += ',';
        format::append_json_string(json, inputs[i]);
    }
    json += ']';
    SQLite::Statement st(db_, "INSERT INTO crawls (started_at, inputs) VALUES (" + kNow + ", ?)");
    st.bind(1, json);
    st.exec();
    return db_.getLastInsertRowid();
}

void Catalog::finish_crawl(int64_t crawl_id, const CrawlTotals& t) {
    SQLite::Statement st(db_,
                         "UPDATE crawls SET finished_at = " + kNow +
                             ", files_ok = ?, files_failed = ?, tensors = ?, bytes_read = ?, requests = ?, seconds = ?,"
                             " files_new = ?, files_changed = ?, files_unchanged = ?, files_gone = ? WHERE crawl_id = ?");
    int i = 1;
    for (uint64_t v : {t.files_ok, t.files_failed, t.tensors, t.bytes_read, t.requests}) st.bind(i++, static_cast<int64_t>(v));
    st.bind(i++, t.seconds);
    for (uint64_t v : {t.files_new, t.files_changed, t.files_unchanged, t.files_gone}) st.bind(i++, static_cast<int64_t>(v));
    st.bind(i, crawl_id);
    st.exec();
}

std::optional<StoredFile> Catalog::stored_file(const std::string& location) {
    SQLite::Statement st(db_, "SELECT model_id, size, mtime_ns, inode, device, status, etag, sha256 FROM files WHERE location = ?");
    st.bind(1, location);
    if (!st.executeStep()) return std::nullopt;
    StoredFile f;
    f.model_id = st.getColumn(0).getInt64();
    f.identity.size = static_cast<uint64_t>(st.getColumn(1).getInt64());
    if (!st.getColumn(2).isNull()) f.identity.mtime_ns = st.getColumn(2).getInt64();
    if (!st.getColumn(3).isNull()) f.identity.inode = static_cast<uint64_t>(st.getColumn(3).getInt64());
    if (!st.getColumn(4).isNull()) f.identity.device = static_cast<uint64_t>(st.getColumn(4).getInt64());
    f.status = st.getColumn(5).getString();
    if (!st.getColumn(6).isNull()) f.etag = st.getColumn(6).getString();
    if (!st.getColumn(7).isNull()) f.sha256 = st.getColumn(7).getString();
    return f;
}

std::vector<std::string> Catalog::model_files(int64_t model_id) {
    SQLite::Statement st(db_, "SELECT location FROM files WHERE model_id = ? ORDER BY role <> 'data', shard, file_id");
    st.bind(1, model_id);
    std::vector<std::string> out;
    while (st.executeStep()) out.push_back(st.getColumn(0).getString());
    return out;
}

void Catalog::mark_checked(int64_t crawl_id, const std::vector<std::string>& locations) {
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(db_, "UPDATE files SET checked_crawl_id = ?2 WHERE location = ?1");
    st.bind(2, crawl_id);
    exec_each(st, locations);
    tx.commit();
}

uint64_t Catalog::mark_gone(int64_t crawl_id, const std::vector<std::string>& missing, const std::vector<std::string>& dirs,
                            const std::vector<std::string>& seen) {
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    db_.exec("CREATE TEMP TABLE IF NOT EXISTS crawl_seen (location TEXT PRIMARY KEY)");
    db_.exec("DELETE FROM crawl_seen");
    SQLite::Statement ins(db_, "INSERT OR IGNORE INTO crawl_seen VALUES (?)");
    exec_each(ins, seen);
    // files that go missing: named ones, and under a walked directory but not seen there
    db_.exec("CREATE TEMP TABLE IF NOT EXISTS crawl_gone (location TEXT PRIMARY KEY)");
    db_.exec("DELETE FROM crawl_gone");
    SQLite::Statement named(db_, "INSERT OR IGNORE INTO crawl_gone SELECT location FROM files WHERE location = ? AND status <> 'gone'");
    exec_each(named, missing);
    SQLite::Statement under(db_,
                            "INSERT OR IGNORE INTO crawl_gone SELECT location FROM files WHERE status <> 'gone'"
                            " AND substr(location, 1, length(?1) + 1) = ?1 || '/'"
                            " AND location NOT IN (SELECT location FROM crawl_seen)");
    exec_each(under, dirs);
    SQLite::Statement ev(db_,
                         "INSERT INTO model_events (crawl_id, location, event, file_bytes_before, policy_before, census_before)"
                         " SELECT ?, g.location, 'gone', m.file_bytes, m.policy_hash, q.census FROM crawl_gone g"
                         " JOIN files f USING (location) JOIN models m USING (model_id) JOIN quant_summary q USING (model_id)");
    ev.bind(1, crawl_id);
    ev.exec();
    SQLite::Statement up(db_, "UPDATE files SET status = 'gone', gone_crawl_id = ? WHERE location IN (SELECT location FROM crawl_gone)");
    up.bind(1, crawl_id);
    uint64_t n = static_cast<uint64_t>(up.exec());
    tx.commit();
    return n;
}

int64_t Catalog::store_model(int64_t crawl_id, const ModelRecord& model) {
    if (model.files.empty()) throw std::logic_error("store_model: a model needs at least one file");
    const format::FileHeader& first = model.files.front().header;
    uint64_t tensor_count = 0, params = 0, file_bytes = 0, header_bytes = 0;
    std::set<std::string> keys;
    std::optional<std::string> architecture, model_type;
    for (const auto& f : model.files) {
        tensor_count += f.header.tensors.size();
        for (const auto& t : f.header.tensors) params += t.n_elements;
        if (f.role == FileRole::data) {
            file_bytes += f.header.file_size;
            header_bytes += f.header.header_bytes;
            for (const auto& e : f.header.metadata) keys.insert(e.key);
            if (!architecture) architecture = format::metadata_string(f.header, "general.architecture");
        } else if (f.role == FileRole::config) {
            model_type = format::metadata_string(f.header, "model_type");
        }
    }
    if (!architecture) architecture = model_type;
    auto [policy_hash, shape_hash] = policy_hashes(model);

    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    // The model as it was, for the history: nothing if new.
    std::optional<std::tuple<int64_t, std::string, std::string>> before;
    {
        SQLite::Statement old(db_, "SELECT m.file_bytes, coalesce(m.policy_hash, ''), coalesce(q.census, '') FROM models m"
                                   " JOIN quant_summary q USING (model_id) WHERE m.location = ?");
        old.bind(1, model.files.front().location);
        if (old.executeStep())
            before.emplace(old.getColumn(0).getInt64(), old.getColumn(1).getString(), old.getColumn(2).getString());
    }
    // A location that belonged to another model (say, a shard re-grouped) moves to this one.
    for (const auto& f : model.files) {
        SQLite::Statement del(db_, "DELETE FROM models WHERE model_id IN (SELECT model_id FROM files WHERE location = ?)"
                                   " AND location <> ?");
        del.bind(1, f.location);
        del.bind(2, model.files.front().location);
        del.exec();
    }
    SQLite::Statement up(db_,
                         "INSERT INTO models (location, name, format, architecture, file_type, tensor_count, kv_count,"
                         " params, file_bytes, header_bytes, policy_hash, shape_hash, crawl_id, updated_at)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?," + kNow + ")"
                         " ON CONFLICT(location) DO UPDATE SET name = excluded.name, format = excluded.format,"
                         " architecture = excluded.architecture, file_type = excluded.file_type,"
                         " tensor_count = excluded.tensor_count, kv_count = excluded.kv_count, params = excluded.params,"
                         " file_bytes = excluded.file_bytes, header_bytes = excluded.header_bytes,"
                         " policy_hash = excluded.policy_hash, shape_hash = excluded.shape_hash, crawl_id = excluded.crawl_id, updated_at = excluded.updated_at"
                         " RETURNING model_id");
    up.bind(1, model.files.front().location);
    up.bind(2, model.name);
    up.bind(3, format::format_name(first.format));
    if (architecture) up.bind(4, *architecture);
    else up.bind(4);
    bind_optional(up, 5, format::metadata_integer(first, "general.file_type"));
    up.bind(6, static_cast<int64_t>(tensor_count));
    up.bind(7, static_cast<int64_t>(keys.size()));
    up.bind(8, static_cast<int64_t>(params));
    up.bind(9, static_cast<int64_t>(file_bytes));
    up.bind(10, static_cast<int64_t>(header_bytes));
    up.bind(11, policy_hash);
    up.bind(12, shape_hash);
    up.bind(13, crawl_id);
    if (!up.executeStep()) throw std::runtime_error("upsert of model returned no row");
    const int64_t model_id = up.getColumn(0).getInt64();
    up.reset();

    for (const char* table : {"files", "census", "warnings"}) {
        SQLite::Statement del(db_, std::string("DELETE FROM ") + table + " WHERE model_id = ?");
        del.bind(1, model_id);
        del.exec();
    }

    SQLite::Statement file_ins(db_,
                               "INSERT INTO files (model_id, location, role, shard, format, version, endianness, size,"
                               " header_bytes, data_start, alignment, kv_count, tensor_count, bytes_read, requests,"
                               " read_ms, mtime_ns, inode, device, header_hash, status, crawl_id, checked_crawl_id,"
                               " etag, last_modified, sha256, final_url, http_status, revision)"
                               " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'ok',?,?,?,?,?,?,?,?)");
    SQLite::Statement meta_ins(db_,
                               "INSERT OR IGNORE INTO metadata (model_id, file_id, key, value_type, value, array_type,"
                               " array_length, array_bytes, array_hash, offset) VALUES (?,?,?,?,?,?,?,?,?,?)");
    SQLite::Statement tensor_ins(db_,
                                 "INSERT INTO tensors (model_id, file_id, name, layer, kind, n_dims, dims, n_elements,"
                                 " type_id, type_name, offset, bytes, expected_bytes, bits_per_weight, info_offset)"
                                 " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    SQLite::Statement warn_ins(db_,
                               "INSERT INTO warnings (crawl_id, model_id, location, offset, message) VALUES (?,?,?,?,?)");
    int64_t data_shard = 0;
    for (const FileRecord& f : model.files) {
        const format::FileHeader& h = f.header;
        file_ins.bind(1, model_id);
        file_ins.bind(2, f.location);
        file_ins.bind(3, role_name(f.role));
        file_ins.bind(4, f.role == FileRole::data ? data_shard++ : 0);
        file_ins.bind(5, format::format_name(h.format));
        if (h.format == format::Format::gguf) file_ins.bind(6, static_cast<int64_t>(h.version));
        else file_ins.bind(6);
        if (h.format == format::Format::json) file_ins.bind(7);
        else file_ins.bind(7, h.big_endian ? "big" : "little");
        file_ins.bind(8, static_cast<int64_t>(h.file_size));
        file_ins.bind(9, static_cast<int64_t>(h.header_bytes));
        file_ins.bind(10, static_cast<int64_t>(h.data_start));
        if (h.alignment) file_ins.bind(11, static_cast<int64_t>(h.alignment));
        else file_ins.bind(11);
        file_ins.bind(12, static_cast<int64_t>(h.format == format::Format::gguf ? h.declared_kv_count : h.metadata.size()));
        file_ins.bind(13, static_cast<int64_t>(h.tensors.size()));
        file_ins.bind(14, static_cast<int64_t>(f.bytes_read));
        file_ins.bind(15, static_cast<int64_t>(f.requests));
        file_ins.bind(16, f.read_ms);
        bind_optional(file_ins, 17, f.identity.mtime_ns);
        bind_optional(file_ins, 18, f.identity.inode);
        bind_optional(file_ins, 19, f.identity.device);
        if (f.header_hash) file_ins.bind(20, *f.header_hash);
        else file_ins.bind(20);
        file_ins.bind(21, crawl_id);
        file_ins.bind(22, crawl_id);
        if (f.remote) {
            file_ins.bind(23, f.remote->etag);
            file_ins.bind(24, f.remote->last_modified);
            if (f.remote->sha256) file_ins.bind(25, *f.remote->sha256);
            else file_ins.bind(25);
            file_ins.bind(26, f.remote->final_url);
            file_ins.bind(27, static_cast<int64_t>(f.remote->http_status));
            if (f.remote->revision) file_ins.bind(28, *f.remote->revision);
            else file_ins.bind(28);
        } else {
            for (int i = 23; i <= 28; ++i) file_ins.bind(i);
        }
        file_ins.exec();
        file_ins.reset();
        const int64_t file_id = db_.getLastInsertRowid();
        write_ggml_refusals(db_, model_id, file_id, h);

        for (const auto& e : h.metadata) {
            meta_ins.bind(1, model_id);
            meta_ins.bind(2, file_id);
            meta_ins.bind(3, e.key);
            meta_ins.bind(4, format::value_type_name(e.type));
            bind_value(meta_ins, 5, e.value);
            if (auto* a = std::get_if<format::ArraySummary>(&e.value)) {
                meta_ins.bind(6, format::value_type_name(a->element_type));
                meta_ins.bind(7, static_cast<int64_t>(a->length));
                meta_ins.bind(8, static_cast<int64_t>(a->byte_size));
                meta_ins.bind(9, format::hex64(a->content_hash));
            } else {
                for (int i = 6; i <= 9; ++i) meta_ins.bind(i);
            }
            meta_ins.bind(10, static_cast<int64_t>(e.offset));
            meta_ins.exec();
            meta_ins.reset();
        }
        for (const auto& t : h.tensors) {
            format::TensorName tn = format::split_tensor_name(t.name);
            tensor_ins.bind(1, model_id);
            tensor_ins.bind(2, file_id);
            tensor_ins.bind(3, t.name);
            bind_optional(tensor_ins, 4, tn.layer);
            tensor_ins.bind(5, tn.kind);
            tensor_ins.bind(6, static_cast<int64_t>(t.dims.size()));
            tensor_ins.bind(7, format::json_dims(t.dims));
            tensor_ins.bind(8, static_cast<int64_t>(t.n_elements));
            bind_optional(tensor_ins, 9, t.type_id);
            tensor_ins.bind(10, t.type_name);
            tensor_ins.bind(11, static_cast<int64_t>(t.offset));
            tensor_ins.bind(12, static_cast<int64_t>(t.bytes));
            bind_optional(tensor_ins, 13, t.expected_bytes);
            if (t.n_elements) tensor_ins.bind(14, t.bytes * 8.0 / t.n_elements);
            else tensor_ins.bind(14);
            tensor_ins.bind(15, static_cast<int64_t>(t.info_offset));
            tensor_ins.exec();
            tensor_ins.reset();
        }
        for (const auto& w : h.warnings) {
            warn_ins.bind(1, crawl_id);
            warn_ins.bind(2, model_id);
            warn_ins.bind(3, f.location);
            warn_ins.bind(4, static_cast<int64_t>(w.offset));
            warn_ins.bind(5, w.message);
            warn_ins.exec();
            warn_ins.reset();
        }
    }
    SQLite::Statement census(db_,
                             "INSERT INTO census (model_id, type_id, type_name, tensors, params, bytes, bits_per_weight)"
                             " SELECT model_id, type_id, type_name, count(*), sum(n_elements), sum(bytes),"
                             " CASE WHEN sum(n_elements) > 0 THEN sum(bytes) * 8.0 / sum(n_elements) END"
                             " FROM tensors WHERE model_id = ? GROUP BY type_id, type_name");
    census.bind(1, model_id);
    census.exec();
    SQLite::Statement ev(db_,
                         "INSERT INTO model_events (crawl_id, location, event, file_bytes_before, file_bytes_after,"
                         " policy_before, policy_after, census_before, census_after)"
                         " SELECT ?, m.location, ?, ?, m.file_bytes, ?, m.policy_hash, ?, q.census"
                         " FROM models m JOIN quant_summary q USING (model_id) WHERE m.model_id = ?");
    ev.bind(1, crawl_id);
    ev.bind(2, before ? "changed" : "new");
    if (before) {
        ev.bind(3, std::get<0>(*before));
        ev.bind(4, std::get<1>(*before));
        ev.bind(5, std::get<2>(*before));
    } else {
        for (int i = 3; i <= 5; ++i) ev.bind(i);
    }
    ev.bind(6, model_id);
    ev.exec();
    tx.commit();
    return model_id;
}

void Catalog::record_error(int64_t crawl_id, const std::string& location, std::optional<uint64_t> offset,
                           const std::string& message) {
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement ins(db_, "INSERT INTO errors (crawl_id, location, offset, message) VALUES (?,?,?,?)");
    ins.bind(1, crawl_id);
    ins.bind(2, location);
    bind_optional(ins, 3, offset);
    ins.bind(4, message);
    ins.exec();
    SQLite::Statement stale(db_, "UPDATE files SET status = 'stale', last_error = ?, crawl_id = ? WHERE location = ?");
    stale.bind(1, message);
    stale.bind(2, crawl_id);
    stale.bind(3, location);
    stale.exec();
    SQLite::Statement ev(db_, "INSERT INTO model_events (crawl_id, location, event, message) VALUES (?, ?, 'failed', ?)");
    ev.bind(1, crawl_id);
    ev.bind(2, location);
    ev.bind(3, message);
    ev.exec();
    tx.commit();
}

}  // namespace modelcat::catalog
