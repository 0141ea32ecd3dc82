#pragma once
// A report's declared parameters, checked before it runs, and model
// references (model_id, name or location) resolved to exactly one model_id.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace modelcat::catalog {

// One `-- @param NAME [model] [integer] [required]` line of a report's header. A parameter
// is bound as text unless declared a model or an integer: a name like "0123" or "nan" stays a name.
struct ParamSpec {
    std::string name;
    bool model = false;     // a model reference: bound as the model_id it resolves to
    bool integer = false;   // bound as an integer (a value that is not one is an error)
    bool required = false;  // the report is meaningless without it
};

std::vector<ParamSpec> declared_params(const std::string& sql);

// The model that `ref` names: a reference matches a model when it equals the
// model's model_id written in decimal ("7", never "007"), its name, or its
// location. Exactly one model must match; throws naming the reference when
// none does, and listing the candidates when several do.
int64_t resolve_model_ref(SQLite::Database& db, const std::string& ref);

// `params` as the report runs with them: a missing required parameter is an
// error naming it, and each model parameter is replaced by its model_id.
std::map<std::string, std::string> resolve_report_params(SQLite::Database& db, const std::string& report,
                                                         const std::string& sql, std::map<std::string, std::string> params);

}  // namespace modelcat::catalog
