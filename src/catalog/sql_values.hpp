#pragma once
// Binding values to statements: metadata values in the catalogue's
// documented storage convention.
#include <string>

#include "catalog/named_statement.hpp"
#include "model/header.hpp"

namespace modelcat::catalog {

inline constexpr const char* kSqlNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

// A model's metadata as model_events records it (metadata_before/after): its data files'
// metadata_hash in shard order, comma-separated; `model_id` is the SQL naming the model.
inline std::string model_metadata_hashes_sql(const std::string& model_id) {
    return "(SELECT group_concat(h, ',') FROM (SELECT f.metadata_hash AS h FROM files f WHERE f.model_id = " + model_id +
           " AND f.role = 'data' ORDER BY f.shard))";
}

// How a metadata value is stored in metadata.value (see schema/); its text is bound without a copy.
// For a NamedStatement or a BatchInsert::Row.
template <typename Binder>
void bind_metadata_value(Binder& st, Param name, const model::MetadataValue& v);

}  // namespace modelcat::catalog
