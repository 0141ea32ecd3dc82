#pragma once
// Statements bound by parameter name, each name's index looked up once: SQLite's
// own lookup compares the name with every parameter's, per bind.
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

// Parameter indexes by the name's address, each resolved once; binds come in one
// order, so the search starts after the last one found.
class ParamIndex {
public:
    // `resolve(name)` gives a name's index the first time (0: no such parameter).
    template <typename Resolve>
    int find(Param p, Resolve&& resolve) {
        const size_t n = indexes_.size();
        for (size_t k = 0; k < n; ++k) {
            const size_t i = (next_ + k) % n;
            if (indexes_[i].first == p.name) {
                next_ = i + 1;
                return indexes_[i].second;
            }
        }
        return add(p, resolve(p.name));
    }

private:
    int add(Param p, int index);
    std::vector<std::pair<const char*, int>> indexes_;
    size_t next_ = 0;
};

// The bind overloads, for a Self with `SQLite::Statement& statement()` and `int index(Param)`.
template <typename Self>
class BindsByName {
public:
    void bind(Param p, int64_t v) { st().bind(self().index(p), v); }
    void bind(Param p, int v) { st().bind(self().index(p), v); }
    void bind(Param p, double v) { st().bind(self().index(p), v); }
    // Not copied: the string must live until the statement is executed, as a row being written does.
    void bind(Param p, const std::string& v) { st().bindNoCopy(self().index(p), v); }
    // A temporary is copied.
    void bind(Param p, std::string&& v) { st().bind(self().index(p), v); }
    void bind(Param p, const char* v) { st().bind(self().index(p), v); }
    void bind_null(Param p) { st().bind(self().index(p)); }
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

private:
    Self& self() { return static_cast<Self&>(*this); }
    SQLite::Statement& st() { return self().statement(); }
};

// Runs to completion, then resets and clears every binding (dropping the pointers to strings bound without a copy).
void exec_and_clear(SQLite::Statement& st);

class NamedStatement : public BindsByName<NamedStatement> {
public:
    NamedStatement(SQLite::Database& db, const std::string& sql) : st_(db, sql) {}

    // Runs to completion; then ready for new bindings.
    void exec() { exec_and_clear(st_); }
    // One row of a query or RETURNING; call reset() once done with it.
    bool step() { return st_.executeStep(); }
    SQLite::Column column(int i) { return st_.getColumn(i); }
    void reset();

    SQLite::Statement& statement() { return st_; }
    int index(Param p);

private:
    SQLite::Statement st_;
    ParamIndex indexes_;
};

}  // namespace modelcat::catalog
