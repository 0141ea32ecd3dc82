#include "catalog/writer.hpp"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "catalog/audit_store.hpp"
#include "catalog/database.hpp"
#include "catalog/hub_repos.hpp"
#include "catalog/model_writer.hpp"
#include "catalog/named_statement.hpp"
#include "catalog/schema.hpp"
#include "catalog/sql_values.hpp"
#include "catalog/store_names.hpp"
#include "format/json_text.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::catalog {

namespace {

const std::string kNow = kSqlNow;

// Runs a statement once per value bound to its first parameter (bindings of
// the others stay as they were set).
void exec_each(SQLite::Statement& st, const std::vector<std::string>& values) {
    for (const auto& v : values) {
        st.bind(1, v);
        st.exec();
        st.reset();
    }
}

// Switching to WAL answers SQLITE_BUSY at once, without the busy handler, while
// another connection opens or closes the database: retry it up to the timeout.
void use_wal(SQLite::Database& db) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
        try {
            db.exec("PRAGMA journal_mode = WAL");
            return;
        } catch (const SQLite::Exception& e) {
            if (e.getErrorCode() != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

// The catalogue's connection is used by one thread (run()'s, in a crawl), so it needs no mutex of its own.
SQLite::Database open_writable(const std::string& path) {
    skip_allocation_counts();
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX, kBusyTimeoutMs);
    lock_down(db);
    return db;
}

}  // namespace

Writer::Writer(const std::string& path) : db_(open_writable(path)) {
    use_wal(db_);
    db_.exec("PRAGMA synchronous = NORMAL");
    db_.exec("PRAGMA temp_store = MEMORY");  // a multi-row INSERT's statement journal stays off the disk
    db_.exec("PRAGMA wal_autocheckpoint = 10000");  // checkpoints fsync: every ~40 MB of WAL, not every 4 MB
    // SQLite's default 2 MiB of pages is a sliver of a 1.3 GB catalogue (100,000 models), whose crawl then
    // re-reads index pages (docs/performance.md: what 64 MiB gave back).
    db_.exec("PRAGMA cache_size = -65536");
    const int before = user_version(db_);
    migrate();
    check_schema_is_ours(db_, path);  // a crawl writes through no trigger of a stranger's
    if (before > 0 && before < schema_version()) reclaim_free_pages();
    db_.exec("PRAGMA foreign_keys = ON");
}

Writer::Writer(AsIs, SQLite::Database db) : db_(std::move(db)) {}

// The batch's models are whole (each its savepoint), so they are kept even when the
// crawl stops on an error.
Writer::~Writer() {
    try {
        commit_models();
    } catch (const SQLite::Exception&) {  // the transaction rolls back: those models are read again next time
    }
}

void Writer::commit_models() {
    if (!batch_) return;
    std::unique_ptr<SQLite::Transaction> batch = std::move(batch_);
    batch->commit();
}

Writer Writer::for_dry_run(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Writer(":memory:");
    if (catalogue_version(path) >= schema_version()) return Writer(AsIs{}, open_database_read_only(path));
    SQLite::Database copy(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    SQLite::Database old = open_any_version_read_only(path);
    SQLite::Backup(copy, old).executeStep();
    bring_to_current_schema(copy);
    return Writer(AsIs{}, std::move(copy));
}

void Writer::migrate() { bring_to_current_schema(db_); }

// A migration that moved rows into smaller tables (schema 18: tensors) leaves the old pages free in
// the file: when they are over a quarter of it, VACUUM gives them back (3 s for a 10,000-model
// catalogue: 646 MB -> 113 MB).
void Writer::reclaim_free_pages() {
    const int64_t free_pages = db_.execAndGet("PRAGMA freelist_count").getInt64();
    if (free_pages * 4 > db_.execAndGet("PRAGMA page_count").getInt64()) db_.exec("VACUUM");
}

int64_t Writer::begin_crawl(const std::vector<std::string>& inputs) {
    commit_models();
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

void Writer::finish_crawl(int64_t crawl_id, const CrawlTotals& t) {
    commit_models();
    SQLite::Statement st(db_,
                         "UPDATE crawls SET finished_at = " + kNow +
                             ", files_ok = ?, files_failed = ?, tensors = ?, bytes_read = ?, requests = ?, seconds = ?,"
                             " files_new = ?, files_changed = ?, files_unchanged = ?, files_gone = ?, api_calls = ?,"
                             " resolver_calls = ?, storage_reads = ?, model_pages = ?, repo_listings = ?, repos_changed = ?,"
                             " repos_unchanged = ?, repos_gone = ?, status = ? WHERE crawl_id = ?");
    int i = 1;
    for (uint64_t v : {t.files_ok(), t.files_failed, t.tensors, t.bytes_read, t.requests}) st.bind(i++, static_cast<int64_t>(v));
    st.bind(i++, t.seconds);
    for (uint64_t v : {t.files_new, t.files_changed, t.files_unchanged, t.files_gone, t.api_calls, t.resolver_calls, t.storage_reads,
                       t.model_pages, t.repo_listings, t.repos_changed, t.repos_unchanged, t.repos_gone})
        st.bind(i++, static_cast<int64_t>(v));
    st.bind(i++, t.interrupted ? "interrupted" : "finished");
    st.bind(i, crawl_id);
    st.exec();
}

// Prepared once: a nightly re-crawl asks this for every file.
SQLite::Statement& Writer::prepared(std::unique_ptr<SQLite::Statement>& st, const char* sql) {
    if (!st) st = std::make_unique<SQLite::Statement>(db_, sql);
    st->reset();
    return *st;
}

namespace {
const char* const kIdentityColumns = "model_id, size, mtime_ns, inode, device, iif(reread, 'reread', status), etag, sha256, xet_hash";
}  // namespace

// The identity in the row's columns from `first_column` on (kIdentityColumns' order).
std::optional<StoredIdentity> Writer::read_identity(SQLite::Statement& st, int first_column) {
    auto col = [&](int i) { return st.getColumn(first_column + i); };
    StoredIdentity f;
    f.model_id = col(0).getInt64();
    f.size = static_cast<uint64_t>(col(1).getInt64());
    if (!col(2).isNull()) f.mtime_ns = col(2).getInt64();
    if (!col(3).isNull()) f.inode = static_cast<uint64_t>(col(3).getInt64());
    if (!col(4).isNull()) f.device = static_cast<uint64_t>(col(4).getInt64());
    f.status = col(5).getString();
    if (!col(6).isNull()) f.etag = col(6).getString();
    if (!col(7).isNull()) f.sha256 = col(7).getString();
    if (!col(8).isNull()) f.xet_hash = col(8).getString();
    return f;
}

void Writer::load_identities() {
    SQLite::Statement st(db_, std::string("SELECT location, ") + kIdentityColumns + " FROM files");
    while (st.executeStep()) identities_.emplace(st.getColumn(0).getString(), *read_identity(st, 1));
    identities_loaded_ = true;
}

void Writer::forget_identity(const std::string& location) {
    if (!identities_loaded_) return;
    identities_.erase(location);
    written_.insert(location);
}

std::optional<StoredIdentity> Writer::stored_file(const std::string& location) {
    if (identities_usable_ && !identities_loaded_ && ++lookups_ > kLookupsBeforeLoading) load_identities();
    if (identities_usable_ && identities_loaded_ && !written_.contains(location)) {
        auto it = identities_.find(location);
        if (it == identities_.end()) return std::nullopt;  // not catalogued when loaded, nor written since
        return it->second;
    }
    SQLite::Statement& st = prepared(stored_file_, ("SELECT " + std::string(kIdentityColumns) + " FROM files WHERE location = ?").c_str());
    st.bind(1, location);
    if (!st.executeStep()) {
        st.reset();
        return std::nullopt;
    }
    std::optional<StoredIdentity> f = read_identity(st, 0);
    st.reset();  // an open read would pin this connection's snapshot and fail its next write
    return f;
}

std::vector<std::string> Writer::model_files(int64_t model_id) {
    SQLite::Statement& st = prepared(model_files_, "SELECT location FROM files WHERE model_id = ?"
                                                   " ORDER BY role <> 'data', shard, file_id");
    st.bind(1, model_id);
    std::vector<std::string> out;
    while (st.executeStep()) out.push_back(st.getColumn(0).getString());
    st.reset();
    return out;
}

void Writer::mark_checked(int64_t crawl_id, const std::vector<std::string>& locations) {
    commit_models();
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(db_, "UPDATE files SET checked_crawl_id = ?2 WHERE location = ?1");
    st.bind(2, crawl_id);
    exec_each(st, locations);
    tx.commit();
}

void Writer::load_seen(const std::vector<std::string>& seen) {
    db_.exec("CREATE TEMP TABLE IF NOT EXISTS crawl_seen (location TEXT PRIMARY KEY)");
    db_.exec("DELETE FROM crawl_seen");
    SQLite::Statement ins(db_, "INSERT OR IGNORE INTO crawl_seen VALUES (?)");
    exec_each(ins, seen);
}

std::vector<Writer::FilesUnder> Writer::files_under(const std::vector<std::string>& dirs, const std::vector<std::string>& seen) {
    commit_models();
    SQLite::Transaction tx(db_);  // the temporary table only: rolled back
    load_seen(seen);
    SQLite::Statement st(db_,
                         "SELECT count(*), count(*) FILTER (WHERE location NOT IN (SELECT location FROM crawl_seen)) FROM files"
                         " WHERE status <> 'gone' AND substr(location, 1, length(?1) + 1) = ?1 || '/'");
    std::vector<FilesUnder> out;
    for (const auto& d : dirs) {
        st.bind(1, d);
        st.executeStep();
        out.push_back({static_cast<uint64_t>(st.getColumn(0).getInt64()), static_cast<uint64_t>(st.getColumn(1).getInt64())});
        st.reset();
    }
    return out;
}

std::vector<std::string> Writer::missing_under(const std::vector<std::string>& dirs, const std::vector<std::string>& seen) {
    SQLite::Transaction tx(db_);  // the temporary table only: rolled back
    load_seen(seen);
    SQLite::Statement st(db_, "SELECT location FROM files WHERE status <> 'gone' AND substr(location, 1, length(?1) + 1) = ?1 || '/'"
                              " AND location NOT IN (SELECT location FROM crawl_seen) ORDER BY location");
    std::vector<std::string> out;
    for (const auto& d : dirs) {
        st.bind(1, d);
        while (st.executeStep()) out.push_back(st.getColumn(0).getString());
        st.reset();
    }
    return out;
}

uint64_t Writer::mark_gone(int64_t crawl_id, const std::vector<std::string>& missing, const std::vector<std::string>& dirs,
                            const std::vector<std::string>& seen) {
    commit_models();
    identities_usable_ = false;  // files under `dirs` become gone
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    load_seen(seen);
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
                         "INSERT INTO model_events (crawl_id, location, event, file_bytes_before, policy_before, census_before,"
                         " metadata_before) SELECT ?, g.location, 'gone', m.file_bytes, m.policy_hash, q.census, " +
                             model_metadata_hashes_sql("m.model_id") +
                             " FROM crawl_gone g JOIN files f USING (location) JOIN models m USING (model_id)"
                             " JOIN quant_summary q USING (model_id)");
    ev.bind(1, crawl_id);
    ev.exec();
    SQLite::Statement up(db_, "UPDATE files SET status = 'gone', gone_crawl_id = ? WHERE location IN (SELECT location FROM crawl_gone)");
    up.bind(1, crawl_id);
    uint64_t n = static_cast<uint64_t>(up.exec());
    tx.commit();
    return n;
}

void Writer::record_store_names(int64_t crawl_id, const std::vector<model::StoreNameRow>& names,
                                 const std::vector<std::pair<std::string, std::string>>& model_names,
                                 const std::vector<std::string>& roots) {
    commit_models();
    write_store_names(db_, crawl_id, names, model_names, roots);
}

std::vector<model::RateBudgetRow> Writer::rate_budgets() {
    SQLite::Statement st(db_, "SELECT host, budget, remaining, resets_at, quota, window_s FROM rate_budgets");
    std::vector<model::RateBudgetRow> out;
    while (st.executeStep()) {
        model::RateBudgetRow r{st.getColumn(0).getString(), st.getColumn(1).getString(), st.getColumn(2).getInt64(),
                        st.getColumn(3).getDouble(), std::nullopt, std::nullopt};
        if (!st.getColumn(4).isNull()) r.quota = st.getColumn(4).getInt64();
        if (!st.getColumn(5).isNull()) r.window_s = st.getColumn(5).getDouble();
        out.push_back(std::move(r));
    }
    return out;
}

void Writer::save_rate_budgets(int64_t crawl_id, const std::vector<model::RateBudgetRow>& budgets) {
    commit_models();
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    NamedStatement st(db_, "INSERT OR REPLACE INTO rate_budgets (host, budget, remaining, resets_at, quota, window_s, crawl_id)"
                           " VALUES (:host, :budget, :remaining, :resets_at, :quota, :window_s, :crawl_id)");
    for (const auto& b : budgets) {
        st.bind(":host", b.host);
        st.bind(":budget", b.budget);
        st.bind(":remaining", b.remaining);
        st.bind(":resets_at", b.resets_at);
        st.bind(":quota", b.quota);
        st.bind(":window_s", b.window_s);
        st.bind(":crawl_id", crawl_id);
        st.exec();
    }
    tx.commit();
}

int64_t Writer::write_model(int64_t crawl_id, const model::ModelRows& rows) {
    if (!writer_) writer_ = std::make_unique<ModelWriter>(db_);
    if (!batch_) {
        batch_ = std::make_unique<SQLite::Transaction>(db_, SQLite::TransactionBehavior::IMMEDIATE);
        batch_began_ = std::chrono::steady_clock::now();
    }
    for (const auto& f : rows.files) forget_identity(f.location);
    const int64_t id = writer_->write(crawl_id, rows);
    if (writer_->evicted_others()) identities_usable_ = false;  // other models' files went: ask the catalogue from now on
    if (std::chrono::steady_clock::now() - batch_began_ >= kBatchTime) commit_models();
    return id;
}

std::vector<model::HubRepoRow> Writer::hub_repos(const std::vector<std::string>& scopes, const std::string& endpoint) {
    return read_hub_repos(db_, scopes, endpoint);
}

std::vector<model::HubListingRow> Writer::hub_listings(const std::vector<std::string>& scopes) {
    return read_hub_listings(db_, scopes);
}

void Writer::record_hub_discovery(int64_t crawl_id, const std::vector<model::HubRepoRow>& repos,
                                  const std::vector<model::HubListingRow>& listings) {
    commit_models();
    write_hub_discovery(db_, crawl_id, repos, listings);
}

int64_t Writer::record_audit(const model::AuditResult& result) {
    commit_models();
    return store_audit(db_, result);
}

int64_t Writer::files_to_reread() { return db_.execAndGet("SELECT count(*) FROM files WHERE reread").getInt64(); }

void Writer::record_error(int64_t crawl_id, const std::string& location, std::optional<uint64_t> offset,
                           const std::string& message) {
    commit_models();
    forget_identity(location);
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    NamedStatement ins(db_, "INSERT INTO errors (crawl_id, location, offset, message)"
                            " VALUES (:crawl_id, :location, :offset, :message)");
    ins.bind(":crawl_id", crawl_id);
    ins.bind(":location", location);
    ins.bind(":offset", offset ? std::optional<int64_t>(*offset) : std::nullopt);
    ins.bind(":message", message);
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
