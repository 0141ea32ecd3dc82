#pragma once
// SQL compiled into the binary from schema/*.sql and queries/*.sql, so the
// tool works from any directory and the files stay the single source.
#include <span>
#include <string_view>

namespace modelcat::catalog {

struct SqlText {
    std::string_view name;  // file stem: 001_catalog, quant_summary
    std::string_view sql;
};

// schema/NNN_*.sql in order; applying file i brings user_version to i + 1.
std::span<const SqlText> schema_migrations();

// queries/*.sql, by name.
std::span<const SqlText> bundled_queries();

}  // namespace modelcat::catalog
