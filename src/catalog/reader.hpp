#pragma once
// The catalogue's reading door: bundled and user reports, model references
// and report parameters, the HTML report's data, the audit's tensor name map
// and its summary. Opened read-only it never creates, migrates or writes; a
// Writer hands out one over its own connection.
#include <SQLiteCpp/Database.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "catalog/digest.hpp"
#include "catalog/query.hpp"
#include "catalog/read_guard.hpp"
#include "catalog/report_data.hpp"

namespace modelcat::catalog {

class Reader {
public:
    // The existing catalogue at `path`: works without write permission on the file or its
    // folder, and beside a running crawl (WAL). Throws when there is no catalogue, its
    // schema is not current (naming `modelcat migrate`) or not this modelcat's (a view of
    // another's). Its SQL only reads, each statement for at most `statement_time` (catalog/read_guard.hpp).
    static Reader open(const std::string& path, std::chrono::milliseconds statement_time = kDefaultStatementTime);

    // Runs every statement of `sql`; the rows of the last that returns columns (catalog/query.hpp).
    QueryResult run_query(const std::string& sql, const std::map<std::string, std::string>& params);
    void run_query(const std::string& sql, const std::map<std::string, std::string>& params, RowSink& sink);
    // `params` as report `report` runs with them (catalog/report_params.hpp).
    std::map<std::string, std::string> resolve_report_params(const std::string& report, const std::string& sql,
                                                             std::map<std::string, std::string> params);
    // The one model that `ref` (model_id, name or location) names.
    int64_t resolve_model_ref(const std::string& ref);
    // What the HTML report shows (catalog/report_data.hpp).
    ReportData load_report_data(const ReportSelection& selection);
    // tensor_name_map rows of one architecture: source kind -> GGUF kind.
    std::map<std::string, std::string> tensor_name_map(const std::string& architecture);
    // The bundled `audit` report of one audit.
    QueryResult audit_summary(int64_t audit_id);
    QueryResult audit_metadata(int64_t audit_id);  // its metadata rows, as the audit_metadata report prints them
    // The nightly digest (catalog/digest.hpp): the crawls `since` names, what they changed, a crawl's lists.
    std::optional<CrawlSpan> crawls_since(const Since& since) { return catalog::crawls_since(*db_, since); }
    std::vector<DigestEntry> digest(const CrawlSpan& span) { return digest_entries(*db_, span); }
    CrawlEvents crawl_events(int64_t crawl_id, const std::string& event, size_t limit) {
        return catalog::crawl_events(*db_, crawl_id, event, limit);
    }

private:
    friend class Writer;  // Writer::reader(): a reader over the writer's own connection
    explicit Reader(SQLite::Database& db) : db_(&db) {}
    Reader(std::unique_ptr<SQLite::Database> owned, std::chrono::milliseconds statement_time);
    std::unique_ptr<ReadGuard> guard_;  // declared first, so it outlives the connection it guards
    std::unique_ptr<SQLite::Database> owned_;
    SQLite::Database* db_;
};

}  // namespace modelcat::catalog
