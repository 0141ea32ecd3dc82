#include "catalog/summaries.hpp"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/tensor_names.hpp"

namespace modelcat::catalog {

namespace {

// One policy_layers row before it is written.
struct KindType {
    std::optional<uint32_t> type_id;
    int64_t tensors = 0;
    std::vector<uint32_t> layers;
};

// (kind, type_name) -> row, as the policy_map view of schema 3 grouped them.
// Derived in memory: re-reading ~300 tensor rows per model through SQL cost a
// millisecond per model, more than the rest of the write.
std::map<std::pair<std::string, std::string>, KindType> policy_rows(const ModelRecord& model) {
    std::map<std::pair<std::string, std::string>, KindType> rows;
    for (const auto& f : model.files)
        for (const auto& t : f.header.tensors) {
            format::TensorName tn = format::split_tensor_name(t.name);
            KindType& r = rows[{std::move(tn.kind), t.type_name}];
            r.type_id = t.type_id;
            ++r.tensors;
            if (tn.layer) r.layers.push_back(*tn.layer);
        }
    return rows;
}

std::string join_layers(std::vector<uint32_t> layers) {
    std::sort(layers.begin(), layers.end());
    std::string out;
    for (uint32_t l : layers) {
        if (!out.empty()) out += ',';
        out += std::to_string(l);
    }
    return out;
}

// The same rules as the fill in schema/006_scale.sql, for one model. CROSS JOIN keeps files
// outer: through metadata_key the planner would visit every model's block_count row.
constexpr const char* kUpdateModel =
    "UPDATE models SET"
    " block_count = (SELECT md.value FROM files f CROSS JOIN metadata md ON md.file_id = f.file_id"
    "                 WHERE f.model_id = ?1 AND md.key = models.architecture || '.block_count'"
    "                 ORDER BY md.file_id LIMIT 1),"
    " (majority_type_id, majority_type_name) ="
    "     (SELECT c.type_id, c.type_name FROM census c WHERE c.model_id = ?1 AND c.type_name <> 'F32'"
    "       ORDER BY c.tensors DESC, c.params DESC, c.type_id, c.type_name LIMIT 1),"
    " census = (SELECT group_concat(k, ' ')"
    "             FROM (SELECT coalesce(CAST(c.type_id AS TEXT), c.type_name) || ':' || c.tensors AS k"
    "                     FROM census c WHERE c.model_id = ?1 ORDER BY c.params DESC, c.type_id, c.type_name))"
    " WHERE model_id = ?1";

}  // namespace

void write_model_summaries(SQLite::Database& db, int64_t model_id, const ModelRecord& model) {
    SQLite::Statement del(db, "DELETE FROM policy_layers WHERE model_id = ?");
    del.bind(1, model_id);
    del.exec();
    SQLite::Statement ins(db, "INSERT INTO policy_layers (model_id, tensor_kind, type_id, type_name, tensors, layers)"
                              " VALUES (?,?,?,?,?,?)");
    for (const auto& [key, r] : policy_rows(model)) {
        ins.bind(1, model_id);
        ins.bind(2, key.first);
        if (r.type_id) ins.bind(3, static_cast<int64_t>(*r.type_id));
        else ins.bind(3);
        ins.bind(4, key.second);
        ins.bind(5, r.tensors);
        if (r.layers.empty()) ins.bind(6);
        else ins.bind(6, join_layers(r.layers));
        ins.exec();
        ins.reset();
    }
    SQLite::Statement up(db, kUpdateModel);
    up.bind(1, model_id);
    up.exec();
}

}  // namespace modelcat::catalog
