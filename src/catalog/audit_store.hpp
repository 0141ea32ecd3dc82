#pragma once
// Conversion audits in the catalogue: the name map they pair tensors by, and
// their records (schema/current.sql: audits, audit_tensors, audit_metadata).
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <string>

#include "model/audit_result.hpp"

namespace modelcat::catalog {

// tensor_name_map rows of one architecture: source kind -> GGUF kind.
std::map<std::string, std::string> tensor_name_map(SQLite::Database& db, const std::string& architecture);

// Writes the audit, its tensors and its metadata rows in one transaction; returns audit_id.
int64_t store_audit(SQLite::Database& db, const model::AuditResult& result);

}  // namespace modelcat::catalog
