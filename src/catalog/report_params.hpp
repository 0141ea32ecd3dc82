#pragma once
// A report's declared parameters, checked before it runs, and model
// references (model_id, name or location) resolved to exactly one model_id.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace modelcat::catalog {

// One `-- @param NAME [model] [integer] [like] [required]` line of a report's header. A parameter
// is bound as text unless declared a model or an integer: a name like "0123" or "nan" stays a name.
struct ParamSpec {
    std::string name;
    bool model = false;     // a model reference: bound as the model_id it resolves to
    bool integer = false;   // bound as an integer (a value that is not one is an error)
    bool like = false;      // a LIKE pattern: bound as like_pattern(value)
    bool required = false;  // the report is meaningless without it
};

std::vector<ParamSpec> declared_params(const std::string& sql);

// A column of a report's `-- @table COLUMN[=LABEL] ...` line: a person's table shows those
// columns by default, in that order, headed by their labels (bits_per_weight=bpw).
struct TableColumn {
    std::string name, label;
};
std::vector<TableColumn> declared_table_columns(const std::string& sql);  // empty when it has none

// A name pattern as LIKE takes it: one holding no '%' matches as a substring ("Q4_K_M" ->
// "%Q4_K_M%"; '_' still matches any one character, itself included); others are kept as given.
std::string like_pattern(const std::string& pattern);

// The model that `ref` names: a reference matches a model when it equals the
// model's model_id written in decimal ("7", never "007"), its name, or its
// location. Exactly one model must match; throws naming the reference when
// none does, and listing the candidates when several do.
int64_t resolve_model_ref(SQLite::Database& db, const std::string& ref);

// `params` as the report runs with them: a missing required parameter is an
// error naming it, each model parameter is replaced by its model_id and each like one by its pattern.
std::map<std::string, std::string> resolve_report_params(SQLite::Database& db, const std::string& report,
                                                         const std::string& sql, std::map<std::string, std::string> params);

}  // namespace modelcat::catalog
