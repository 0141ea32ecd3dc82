#pragma once
// Binding values to statements: metadata values in the catalogue's
// documented storage convention.
#include "catalog/named_statement.hpp"
#include "model/header.hpp"

namespace modelcat::catalog {

inline constexpr const char* kSqlNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

// How a metadata value is stored in metadata.value (see schema/); its text is bound without a copy.
// For a NamedStatement or a BatchInsert::Row.
template <typename Binder>
void bind_metadata_value(Binder& st, Param name, const model::MetadataValue& v);

}  // namespace modelcat::catalog
