#pragma once
// SQL compiled into the binary from schema/ and queries/, so the tool works
// from any directory and the files stay the single source.
#include <span>
#include <string_view>

namespace modelcat::catalog {

struct SqlText {
    std::string_view name;  // file stem: 006_values, quant_summary
    std::string_view sql;
};

// schema/current.sql: every table, index and view; it creates a new catalogue.
std::string_view current_schema_sql();

// schema/reference.sql: the reference rows every writable open writes.
std::string_view reference_rows_sql();

// schema/migrations/NNN_*.sql in order; NNN is the version each brings a catalogue to.
std::span<const SqlText> schema_migrations();

// queries/*.sql, by name.
std::span<const SqlText> bundled_queries();

}  // namespace modelcat::catalog
