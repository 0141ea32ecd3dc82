#pragma once
// The catalogue's writing door: the only way anything writes the database
// (crawl bookkeeping, models, errors, gone files, store names, rate budgets,
// audits). Each model is written in its own savepoint, so a file is catalogued
// whole or not at all; the models of about kBatchTime share one transaction
// (committing once per model made every commit rewrite the same B-tree pages into
// the WAL), so a killed crawl loses at most that long's models, which the next
// crawl reads again. Reading goes through catalog::Reader (catalog/reader.hpp).
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catalog/database.hpp"
#include "catalog/reader.hpp"
#include "catalog/schema.hpp"
#include "model/audit_result.hpp"
#include "model/rows.hpp"

namespace modelcat::catalog {

class ModelWriter;

// What tells a file changed without reading it, as the catalogue last recorded it.
struct StoredIdentity {
    int64_t model_id = 0;
    std::string status;  // ok | stale | gone | reread (a migration marked it: read it again)
    uint64_t size = 0;
    std::optional<int64_t> mtime_ns;
    std::optional<uint64_t> inode, device;
    std::optional<std::string> etag, sha256, xet_hash;
};

struct CrawlTotals {
    uint64_t files_new = 0, files_changed = 0, files_unchanged = 0, files_gone = 0, files_failed = 0;
    uint64_t tensors = 0, bytes_read = 0, requests = 0;
    uint64_t api_calls = 0, resolver_calls = 0, storage_reads = 0;  // requests by the Hub budget they spend
    uint64_t model_pages = 0, repo_listings = 0;                      // of the API calls: models API pages, repository tree pages
    uint64_t repos_changed = 0, repos_unchanged = 0, repos_gone = 0;  // many-repository inputs' repositories
    bool interrupted = false;  // stopped by a signal or --deadline before every model was done
    double seconds = 0;
    uint64_t files_ok() const { return files_new + files_changed; }  // read and catalogued (crawls.files_ok)
};

class Writer {
public:
    // For crawl, audit and migrate only: opens (creating if needed) the database at
    // `path`, brings it to the current schema and writes the reference rows (schema.hpp).
    explicit Writer(const std::string& path);
    ~Writer();
    static Writer open_for_writing(const std::string& path) { return Writer(path); }
    // What a dry run plans against, writing nothing: the catalogue at `path` read-only when its
    // schema is current; an older one copied into memory and migrated there; none: an empty one in memory.
    static Writer for_dry_run(const std::string& path);

    // Reads through this connection (an in-memory catalogue has no other).
    Reader reader() { return Reader(db_); }

    int64_t begin_crawl(const std::vector<std::string>& inputs);
    void finish_crawl(int64_t crawl_id, const CrawlTotals& totals);

    // Replaces whatever was catalogued at the model's location, recording a
    // 'new' or 'changed' event; returns model_id. Committed with the batch: by the
    // first model written kBatchTime after the batch began, or by any other write.
    int64_t write_model(int64_t crawl_id, const model::ModelRows& rows);
    static constexpr std::chrono::milliseconds kBatchTime{200};
    // Commits the models written so far (every other writing method does it first).
    void commit_models();

    // Records a failed input; a file catalogued before is kept and marked stale.
    void record_error(int64_t crawl_id, const std::string& location, std::optional<uint64_t> offset,
                      const std::string& message);

    // A nightly re-crawl asks this for every file: after kLookupsBeforeLoading lookups, every stored
    // identity is read in one SELECT and answered from memory, save the files this Writer wrote since.
    std::optional<StoredIdentity> stored_file(const std::string& location);
    static constexpr size_t kLookupsBeforeLoading = 256;
    // Locations of a model's files, data files first.
    std::vector<std::string> model_files(int64_t model_id);
    // Notes that these files were seen unchanged by the crawl.
    void mark_checked(int64_t crawl_id, const std::vector<std::string>& locations);
    // For each of `dirs`: how many catalogued files lie under it, and how many of those are not in `seen`.
    struct FilesUnder {
        uint64_t catalogued = 0, missing = 0;
    };
    std::vector<FilesUnder> files_under(const std::vector<std::string>& dirs, const std::vector<std::string>& seen);
    // Marks catalogued files missing: those named in `missing`, and those under
    // any of `dirs` that are not in `seen`. Returns how many became gone.
    // The catalogued files under `dirs` that are not in `seen`: what mark_gone would mark.
    std::vector<std::string> missing_under(const std::vector<std::string>& dirs, const std::vector<std::string>& seen);
    uint64_t mark_gone(int64_t crawl_id, const std::vector<std::string>& missing, const std::vector<std::string>& dirs,
                       const std::vector<std::string>& seen);

    // The names the crawled stores give their models (catalog/store_names.hpp).
    void record_store_names(int64_t crawl_id, const std::vector<model::StoreNameRow>& names,
                            const std::vector<std::pair<std::string, std::string>>& model_names,
                            const std::vector<std::string>& roots);

    // The request budgets servers announced to earlier crawls, and those this crawl leaves.
    std::vector<model::RateBudgetRow> rate_budgets();
    void save_rate_budgets(int64_t crawl_id, const std::vector<model::RateBudgetRow>& budgets);

    // What the Hub's models API last said of the repositories these many-repository inputs list
    // (catalog/hub_repos.hpp), and what this crawl leaves of them.
    std::vector<model::HubRepoRow> hub_repos(const std::vector<std::string>& scopes, const std::string& endpoint);
    std::vector<model::HubListingRow> hub_listings(const std::vector<std::string>& scopes);
    void record_hub_discovery(int64_t crawl_id, const std::vector<model::HubRepoRow>& repos,
                              const std::vector<model::HubListingRow>& listings);

    // Records an audit and its tensors in one transaction (catalog/audit_store.hpp); returns audit_id.
    int64_t record_audit(const model::AuditResult& result);

    // Files a migration marked to be read again by the next crawl.
    int64_t files_to_reread();

private:
    struct AsIs {};
    Writer(AsIs, SQLite::Database db);  // the connection as it is: no migration, no pragma
    void migrate();
    void reclaim_free_pages();
    SQLite::Database db_;
    SQLite::Statement& prepared(std::unique_ptr<SQLite::Statement>& st, const char* sql);
    void load_seen(const std::vector<std::string>& seen);  // into the temporary table crawl_seen
    std::unique_ptr<ModelWriter> writer_;  // prepared once, on the first model
    std::unique_ptr<SQLite::Transaction> batch_;  // the open batch of models, if any
    std::chrono::steady_clock::time_point batch_began_;
    std::unique_ptr<SQLite::Statement> stored_file_, model_files_;
    std::optional<StoredIdentity> read_identity(SQLite::Statement& st, int first_column);
    void load_identities();
    void forget_identity(const std::string& location);  // written: ask the catalogue again
    size_t lookups_ = 0;
    bool identities_loaded_ = false, identities_usable_ = true;
    std::unordered_map<std::string, StoredIdentity> identities_;
    std::unordered_set<std::string> written_;
};

}  // namespace modelcat::catalog
