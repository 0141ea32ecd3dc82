#include "catalog/report_params.hpp"

#include <SQLiteCpp/Statement.h>

#include <sstream>
#include <stdexcept>

namespace modelcat::catalog {

namespace {

// The words of each header line `-- @TAG word...` of a report, line by line.
std::vector<std::vector<std::string>> header_lines(const std::string& sql, const std::string& tag) {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(sql);
    const std::string prefix = "-- @" + tag + " ";
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(prefix)) continue;
        std::istringstream words(line.substr(prefix.size()));
        auto& words_of_line = out.emplace_back();
        for (std::string w; words >> w;) words_of_line.push_back(w);
    }
    return out;
}

}  // namespace

std::vector<ParamSpec> declared_params(const std::string& sql) {
    std::vector<ParamSpec> out;
    for (const auto& words : header_lines(sql, "param")) {
        if (words.empty()) continue;
        ParamSpec p;
        p.name = words[0].starts_with(":") ? words[0].substr(1) : words[0];
        for (size_t i = 1; i < words.size(); ++i) {
            const std::string& w = words[i];
            if (w == "model") p.model = true;
            else if (w == "integer" || w == "INTEGER") p.integer = true;
            else if (w == "like") p.like = true;
            else if (w == "required") p.required = true;
            else throw std::runtime_error("report header: unknown word '" + w + "' in '-- @param " + p.name +
                                         " ...' (expected model, integer, like or required)");
        }
        out.push_back(p);
    }
    return out;
}

std::vector<TableColumn> declared_table_columns(const std::string& sql) {
    std::vector<TableColumn> out;
    for (const auto& words : header_lines(sql, "table"))
        for (const std::string& w : words) {
            size_t eq = w.find('=');
            out.push_back({w.substr(0, eq), eq == std::string::npos ? w : w.substr(eq + 1)});
        }
    return out;
}

std::string like_pattern(const std::string& pattern) {
    return pattern.find('%') == std::string::npos ? "%" + pattern + "%" : pattern;
}

int64_t resolve_model_ref(SQLite::Database& db, const std::string& ref) {
    SQLite::Statement st(db,
                         "WITH named AS (SELECT model_id FROM store_names WHERE name = ?1 AND role = 'model' AND status = 'ok')"
                         " SELECT model_id, name, location, trim(iif(CAST(model_id AS TEXT) = ?1, 'model_id ', '') ||"
                         " iif(name = ?1, 'name ', '') || iif(location = ?1, 'location ', '') ||"
                         " iif(model_id IN named, 'store name', ''))"
                         // the id's term as model_id = CAST(...): every term of the OR an index lookup, no scan of models
                         " FROM models WHERE (model_id = CAST(?1 AS INTEGER) AND CAST(model_id AS TEXT) = ?1)"
                         " OR name = ?1 OR location = ?1 OR model_id IN named"
                         " ORDER BY model_id");
    st.bind(1, ref);
    std::vector<int64_t> ids;
    std::string candidates;
    while (st.executeStep()) {
        ids.push_back(st.getColumn(0).getInt64());
        candidates += "\n  model_id " + st.getColumn(0).getString() + "  name " + st.getColumn(1).getString() + "  location " +
                      st.getColumn(2).getString() + "  (matches its " + st.getColumn(3).getString() + ")";
    }
    if (ids.empty())
        throw std::runtime_error("no catalogued model '" + ref + "' (give a model_id, name or location; `modelcat query quant_summary` lists them)");
    if (ids.size() > 1)
        throw std::runtime_error("model reference '" + ref + "' is ambiguous: " + std::to_string(ids.size()) +
                                 " models match it" + candidates + "\ngive one of their locations instead");
    return ids.front();
}

std::map<std::string, std::string> resolve_report_params(SQLite::Database& db, const std::string& report,
                                                         const std::string& sql, std::map<std::string, std::string> params) {
    for (const ParamSpec& p : declared_params(sql)) {
        auto it = params.find(p.name);
        if (it == params.end()) {
            if (p.required)
                throw std::runtime_error("report '" + report + "' needs -p " + p.name + "=" +
                                         (p.model ? "MODEL (a model_id, name or location)" : "VALUE"));
            continue;
        }
        if (p.model) it->second = std::to_string(resolve_model_ref(db, it->second));
        if (p.like) it->second = like_pattern(it->second);
    }
    return params;
}

}  // namespace modelcat::catalog
