#pragma once
// Runs a report's SQL with named parameters (:name) and returns its rows, so
// the CLI can print them; the same file pastes into sqlite3 with .param set.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace modelcat::catalog {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct QueryResult {
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
};

// Where a result goes as it is read: its columns, then each row.
class RowSink {
public:
    virtual ~RowSink() = default;
    virtual void columns(const std::vector<std::string>& names) = 0;
    virtual void row(std::vector<Cell> cells) = 0;
    virtual bool wants_more() const { return true; }  // false: the query stops stepping (a streaming plan stops computing)
};

class ReadGuard;

// Runs every statement of `sql` in order; the rows are those of the last
// statement that returns columns. Parameters not given are bound to NULL;
// a given parameter the SQL does not use is an error (a likely typo). The last
// statement's rows go to `sink` as they are stepped (memory independent of their count).
// A statement that would write is refused before it runs; one that `guard` refused names what.
void run_query(SQLite::Database& db, const std::string& sql, const std::map<std::string, std::string>& params, RowSink& sink,
               ReadGuard* guard = nullptr);
QueryResult run_query(SQLite::Database& db, const std::string& sql, const std::map<std::string, std::string>& params,
                      ReadGuard* guard = nullptr);

// A bundled report's SQL by name, or nullopt.
std::optional<std::string> bundled_query(const std::string& name);

// The first comment line of a bundled report: what it answers.
std::string query_summary(const std::string& sql);

}  // namespace modelcat::catalog
