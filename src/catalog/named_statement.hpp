#pragma once
// A prepared statement bound by parameter name, each name's index looked up
// once: SQLite's own lookup compares the name with every parameter's, per bind.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace modelcat::catalog {

// A parameter name written in the source (consteval: a literal), so its address identifies it.
struct Param {
    consteval Param(const char* n) : name(n) {}
    const char* name;
};

class NamedStatement {
public:
    NamedStatement(SQLite::Database& db, const std::string& sql) : st_(db, sql) {}

    void bind(Param p, int64_t v) { st_.bind(index(p), v); }
    void bind(Param p, int v) { st_.bind(index(p), v); }
    void bind(Param p, double v) { st_.bind(index(p), v); }
    // Not copied: the string must live until exec() or reset(), as a row being written does.
    void bind(Param p, const std::string& v) { st_.bindNoCopy(index(p), v); }
    // A temporary is copied.
    void bind(Param p, std::string&& v) { st_.bind(index(p), v); }
    void bind(Param p, const char* v) { st_.bind(index(p), v); }
    void bind_null(Param p) { st_.bind(index(p)); }
    template <typename T>
    void bind(Param p, const std::optional<T>& v) {
        if (v) bind(p, *v);
        else bind_null(p);
    }
    template <typename T>
    void bind(Param p, std::optional<T>&& v) {
        if (v) bind(p, std::move(*v));
        else bind_null(p);
    }

    // Runs to completion; then ready for new bindings (reset, every binding cleared).
    void exec();
    // One row of a query or RETURNING; call reset() once done with it.
    bool step() { return st_.executeStep(); }
    SQLite::Column column(int i) { return st_.getColumn(i); }
    void reset();

private:
    int index(Param p);

    SQLite::Statement st_;
    std::vector<std::pair<const char*, int>> indexes_;  // by the name's address
    size_t next_ = 0;                                  // where the next lookup starts: binds come in one order
};

}  // namespace modelcat::catalog
