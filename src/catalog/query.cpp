#include "catalog/query.hpp"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <charconv>
#include <memory>
#include <set>
#include <stdexcept>

#include "catalog/embedded_sql.hpp"
#include "catalog/read_guard.hpp"
#include "catalog/report_params.hpp"

namespace modelcat::catalog {

namespace {

// Text unless the report declares the parameter an integer, so that a name that looks like a
// number ("0123", "1e5", "nan") is compared as the name it is. A model parameter is its model_id
// once resolved (resolve_report_params), an integer; unresolved, the reference as text.
void bind_param(sqlite3_stmt* st, int idx, const std::string& key, const std::string& v, const ParamSpec* spec) {
    int64_t i = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
    const bool integer = ec == std::errc() && p == v.data() + v.size() && !v.empty();
    if (spec && spec->integer && !integer) throw std::runtime_error("parameter '" + key + "' is an integer, got '" + v + "'");
    if (spec && (spec->integer || spec->model) && integer) sqlite3_bind_int64(st, idx, i);
    else sqlite3_bind_text(st, idx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

// Whether nothing but whitespace and comments follows: then the statement's rows are the result.
bool is_last_statement(sqlite3* h, const char* tail, const char* end) {
    sqlite3_stmt* next = nullptr;
    if (sqlite3_prepare_v2(h, tail, static_cast<int>(end - tail), &next, nullptr) != SQLITE_OK) return false;  // a statement needing this one
    sqlite3_finalize(next);
    return next == nullptr;
}

Cell cell_of(sqlite3_stmt* st, int c) {
    switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_column_int64(st, c));
        case SQLITE_FLOAT: return sqlite3_column_double(st, c);
        case SQLITE_NULL: return std::monostate{};
        default: {
            auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
            return std::string(t, static_cast<size_t>(sqlite3_column_bytes(st, c)));
        }
    }
}

constexpr const char* kOnlyReads = "refused: a report only reads the catalogue, and this one ";

// What `guard` refused (as a statement is prepared) names itself; a statement stopped at its deadline
// or heap limit is a database error (catalog/errors.hpp); the rest are the SQL's own errors.
[[noreturn]] void throw_sql_error(sqlite3* h, int rc, ReadGuard* guard) {
    if (const std::string refused = guard ? guard->take_refusal() : ""; !refused.empty())
        throw std::runtime_error(kOnlyReads + ("would use " + refused));
    if (rc == SQLITE_INTERRUPT || rc == SQLITE_NOMEM) throw SQLite::Exception(h, rc);
    throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(h));
}

// A statement that writes (to the temp schema, or VACUUM INTO another file), refused before its first step.
void refuse_writing(sqlite3_stmt* st) {
    if (sqlite3_stmt_readonly(st)) return;
    const std::string text = sqlite3_sql(st);
    throw std::runtime_error(kOnlyReads + ("writes: " + text.substr(0, text.find('\n'))));
}

class Buffer final : public RowSink {
public:
    QueryResult result;
    void columns(const std::vector<std::string>& names) override { result.columns = names; }
    void row(std::vector<Cell> cells) override { result.rows.push_back(std::move(cells)); }
};

}  // namespace

void run_query(SQLite::Database& db, const std::string& sql, const std::map<std::string, std::string>& params, RowSink& sink,
               ReadGuard* guard) {
    sqlite3* h = db.getHandle();
    std::set<std::string> used;
    std::map<std::string, ParamSpec> declared;
    for (const ParamSpec& p : declared_params(sql)) declared[p.name] = p;
    auto check_used = [&] {
        for (const auto& [k, v] : params)
            if (!used.count(k)) throw std::runtime_error("parameter '" + k + "' is not used by this query");
    };
    Buffer earlier;  // the rows of a statement that returned columns before the last one
    bool streamed = false;
    const char* tail = sql.c_str();
    const char* end = sql.c_str() + sql.size();
    while (tail < end) {
        sqlite3_stmt* raw = nullptr;
        if (int rc = sqlite3_prepare_v2(h, tail, static_cast<int>(end - tail), &raw, &tail); rc != SQLITE_OK) throw_sql_error(h, rc, guard);
        if (!raw) continue;  // whitespace or comments only
        std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> st(raw, sqlite3_finalize);
        refuse_writing(raw);
        for (int i = 1; i <= sqlite3_bind_parameter_count(raw); ++i) {
            const char* name = sqlite3_bind_parameter_name(raw, i);
            if (!name) throw std::runtime_error("reports use named parameters (:name), not '?'");
            std::string key = name + 1;  // drop the ':', '@' or '$'
            used.insert(key);
            if (auto it = params.find(key); it != params.end()) bind_param(raw, i, key, it->second, declared.count(key) ? &declared.at(key) : nullptr);
        }
        const int ncol = sqlite3_column_count(raw);
        Buffer current;
        streamed = ncol > 0 && is_last_statement(h, tail, end);
        if (streamed) check_used();  // before any row is out
        RowSink& to = streamed ? sink : current;
        std::vector<std::string> names;
        for (int c = 0; c < ncol; ++c) names.emplace_back(sqlite3_column_name(raw, c));
        if (ncol > 0) to.columns(names);
        int rc = SQLITE_DONE;
        while (to.wants_more() && (rc = sqlite3_step(raw)) == SQLITE_ROW) {
            std::vector<Cell> row;
            for (int c = 0; c < ncol; ++c) row.push_back(cell_of(raw, c));
            to.row(std::move(row));
        }
        if (rc != SQLITE_DONE && rc != SQLITE_ROW) throw_sql_error(h, rc, nullptr);
        if (ncol > 0 && !streamed) earlier = std::move(current);
    }
    if (streamed) return;
    check_used();
    sink.columns(earlier.result.columns);
    for (auto& r : earlier.result.rows) sink.row(std::move(r));
}

QueryResult run_query(SQLite::Database& db, const std::string& sql, const std::map<std::string, std::string>& params,
                      ReadGuard* guard) {
    Buffer all;
    run_query(db, sql, params, all, guard);
    return std::move(all.result);
}

std::optional<std::string> bundled_query(const std::string& name) {
    for (const auto& q : bundled_queries())
        if (q.name == name) return std::string(q.sql);
    return std::nullopt;
}

std::string query_summary(const std::string& sql) {
    size_t p = sql.find("--");
    if (p == std::string::npos) return "";
    size_t e = sql.find('\n', p);
    std::string s = sql.substr(p + 2, e == std::string::npos ? std::string::npos : e - p - 2);
    size_t a = s.find_first_not_of(' ');
    return a == std::string::npos ? "" : s.substr(a);
}

}  // namespace modelcat::catalog
