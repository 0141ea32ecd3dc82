#pragma once
// INSERTs of many rows in one statement: SQLite's work per statement (opening
// cursors, the statement journal, halting) costs more than one row's B-tree
// inserts, so a file's tensors are written 32 rows at a time.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <memory>
#include <string>
#include <vector>

#include "catalog/named_statement.hpp"

namespace modelcat::catalog {

class BatchInsert {
public:
    static constexpr size_t kRows = 32;

    // `head` is "INSERT INTO t (a, b) VALUES ", `row` one row's values as named
    // parameters and commas only: "(:a, :b)".
    BatchInsert(SQLite::Database& db, std::string head, const std::string& row);

    // One row's parameters, bound by name.
    class Row : public BindsByName<Row> {
    public:
        Row(BatchInsert& batch, SQLite::Statement& st, int offset) : batch_(batch), st_(st), offset_(offset) {}
        SQLite::Statement& statement() { return st_; }
        int index(Param p) { return offset_ + batch_.index(p); }

    private:
        BatchInsert& batch_;
        SQLite::Statement& st_;
        int offset_;
    };

    // Writes rows 0..n-1, each bound by `bind_row(Row&, i)`, in statements of up to kRows rows.
    template <typename BindRow>
    void insert(size_t n, BindRow&& bind_row) {
        for (size_t at = 0; at < n; at += kRows) {
            const size_t rows = std::min(kRows, n - at);
            SQLite::Statement& st = of_size(rows);
            for (size_t r = 0; r < rows; ++r) {
                Row row(*this, st, static_cast<int>(r * names_.size()));
                bind_row(row, at + r);
            }
            exec_and_clear(st);
        }
    }

private:
    int index(Param p) {
        return indexes_.find(p, [this](const char* name) { return position(name); });
    }
    int position(const char* name) const;     // 1-based, 0 if none
    SQLite::Statement& of_size(size_t rows);  // prepared on first use
    std::string numbered_row(size_t offset) const;

    SQLite::Database& db_;
    std::string head_, row_;
    std::vector<std::string> names_;  // the row's parameters, in order of first appearance
    ParamIndex indexes_;
    std::vector<std::unique_ptr<SQLite::Statement>> by_size_;  // [rows - 1]
};

}  // namespace modelcat::catalog
