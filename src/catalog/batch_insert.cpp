#include "catalog/batch_insert.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace modelcat::catalog {

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Calls `on_name(name, begin, end)` for every ":name" in `row`.
template <typename OnName>
void each_name(const std::string& row, OnName&& on_name) {
    for (size_t i = 0; i < row.size(); ++i) {
        if (row[i] != ':') continue;
        size_t end = i + 1;
        while (end < row.size() && name_char(row[end])) ++end;
        on_name(row.substr(i, end - i), i, end);
        i = end - 1;
    }
}

}  // namespace

BatchInsert::BatchInsert(SQLite::Database& db, std::string head, const std::string& row)
    : db_(db), head_(std::move(head)), row_(row), by_size_(kRows) {
    each_name(row_, [&](const std::string& name, size_t, size_t) {
        if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
    });
}

int BatchInsert::position(const char* name) const {
    auto it = std::find(names_.begin(), names_.end(), name);
    return it == names_.end() ? 0 : static_cast<int>(it - names_.begin()) + 1;
}

// The row with each ":name" as "?N", N counted from `offset`, so every row of a statement has its own.
std::string BatchInsert::numbered_row(size_t offset) const {
    std::string out;
    size_t copied = 0;
    each_name(row_, [&](const std::string& name, size_t begin, size_t end) {
        const size_t i = std::find(names_.begin(), names_.end(), name) - names_.begin();
        out.append(row_, copied, begin - copied).append(1, '?').append(std::to_string(offset + i + 1));
        copied = end;
    });
    return out.append(row_, copied, std::string::npos);
}

SQLite::Statement& BatchInsert::of_size(size_t rows) {
    std::unique_ptr<SQLite::Statement>& st = by_size_.at(rows - 1);
    if (!st) {
        std::string sql = head_;
        for (size_t r = 0; r < rows; ++r) sql += (r ? ", " : "") + numbered_row(r * names_.size());
        st = std::make_unique<SQLite::Statement>(db_, sql);
    }
    return *st;
}

}  // namespace modelcat::catalog
