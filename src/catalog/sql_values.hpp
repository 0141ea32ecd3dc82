#pragma once
// Binding values to statements: optionals as NULL, metadata values in the
// catalogue's documented storage convention.
#include <SQLiteCpp/Statement.h>

#include <optional>
#include <string>

#include "format/header.hpp"

namespace modelcat::catalog {

inline constexpr const char* kSqlNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

template <typename T>
void bind_optional(SQLite::Statement& st, const char* name, const std::optional<T>& v) {
    if (v) st.bind(name, *v);
    else st.bind(name);
}

// How a metadata value is stored in metadata.value (see schema/).
void bind_metadata_value(SQLite::Statement& st, const char* name, const format::MetadataValue& v);

}  // namespace modelcat::catalog
