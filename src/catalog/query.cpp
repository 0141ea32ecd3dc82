#include "catalog/query.hpp"

#include <sqlite3.h>

#include <charconv>
#include <memory>
#include <set>
#include <stdexcept>

#include "catalog/embedded_sql.hpp"

namespace modelcat::catalog {

namespace {

// Numbers bind as numbers so `LIMIT :n` and integer comparisons work.
void bind_text_or_number(sqlite3_stmt* st, int idx, const std::string& v) {
    int64_t i;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
    if (ec == std::errc() && p == v.data() + v.size() && !v.empty()) {
        sqlite3_bind_int64(st, idx, i);
        return;
    }
    double d;
    auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec2 == std::errc() && p2 == v.data() + v.size() && !v.empty()) {
        sqlite3_bind_double(st, idx, d);
        return;
    }
    sqlite3_bind_text(st, idx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

}  // namespace

QueryResult run_query(SQLite::Database& db, const std::string& sql, const std::map<std::string, std::string>& params) {
    sqlite3* h = db.getHandle();
    std::set<std::string> used;
    QueryResult result;
    const char* tail = sql.c_str();
    const char* end = sql.c_str() + sql.size();
    while (tail < end) {
        sqlite3_stmt* raw = nullptr;
        if (sqlite3_prepare_v2(h, tail, static_cast<int>(end - tail), &raw, &tail) != SQLITE_OK)
            throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(h));
        if (!raw) continue;  // whitespace or comments only
        std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> st(raw, sqlite3_finalize);
        for (int i = 1; i <= sqlite3_bind_parameter_count(raw); ++i) {
            const char* name = sqlite3_bind_parameter_name(raw, i);
            if (!name) throw std::runtime_error("reports use named parameters (:name), not '?'");
            std::string key = name + 1;  // drop the ':', '@' or '$'
            used.insert(key);
            if (auto it = params.find(key); it != params.end()) bind_text_or_number(raw, i, it->second);
        }
        int ncol = sqlite3_column_count(raw);
        QueryResult current;
        for (int c = 0; c < ncol; ++c) current.columns.emplace_back(sqlite3_column_name(raw, c));
        int rc;
        while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
            std::vector<Cell> row;
            for (int c = 0; c < ncol; ++c) {
                switch (sqlite3_column_type(raw, c)) {
                    case SQLITE_INTEGER: row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(raw, c))); break;
                    case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(raw, c)); break;
                    case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
                    default: {
                        auto* t = reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
                        row.emplace_back(std::string(t, static_cast<size_t>(sqlite3_column_bytes(raw, c))));
                    }
                }
            }
            current.rows.push_back(std::move(row));
        }
        if (rc != SQLITE_DONE) throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(h));
        if (ncol > 0) result = std::move(current);
    }
    for (const auto& [k, v] : params)
        if (!used.count(k)) throw std::runtime_error("parameter '" + k + "' is not used by this query");
    return result;
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
