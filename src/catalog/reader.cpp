#include "catalog/reader.hpp"

#include "catalog/audit_store.hpp"
#include "catalog/database.hpp"
#include "catalog/report_params.hpp"
#include "catalog/schema.hpp"

namespace modelcat::catalog {

Reader::Reader(std::unique_ptr<SQLite::Database> owned, std::chrono::milliseconds statement_time)
    : guard_(std::make_unique<ReadGuard>(*owned, statement_time)), owned_(std::move(owned)), db_(owned_.get()) {}

Reader Reader::open(const std::string& path, std::chrono::milliseconds statement_time) {
    Reader reader(std::make_unique<SQLite::Database>(open_database_read_only(path)), statement_time);
    check_schema_is_ours(*reader.db_, path);  // before any of its views runs
    return reader;
}

QueryResult Reader::run_query(const std::string& sql, const std::map<std::string, std::string>& params) {
    return catalog::run_query(*db_, sql, params, guard_.get());
}

void Reader::run_query(const std::string& sql, const std::map<std::string, std::string>& params, RowSink& sink) {
    catalog::run_query(*db_, sql, params, sink, guard_.get());
}

std::map<std::string, std::string> Reader::resolve_report_params(const std::string& report, const std::string& sql,
                                                                 std::map<std::string, std::string> params) {
    return catalog::resolve_report_params(*db_, report, sql, std::move(params));
}

int64_t Reader::resolve_model_ref(const std::string& ref) { return catalog::resolve_model_ref(*db_, ref); }

ReportData Reader::load_report_data(const ReportSelection& selection) { return catalog::load_report_data(*db_, selection); }

std::map<std::string, std::string> Reader::tensor_name_map(const std::string& architecture) {
    return catalog::tensor_name_map(*db_, architecture);
}

QueryResult Reader::audit_summary(int64_t audit_id) {
    return run_query(*bundled_query("audit"), {{"audit", std::to_string(audit_id)}});
}

QueryResult Reader::audit_metadata(int64_t audit_id) {
    return run_query(*bundled_query("audit_metadata"), {{"audit", std::to_string(audit_id)}});
}

}  // namespace modelcat::catalog
