#pragma once
// Writes whether ggml's GGUF reader would read a catalogued file.
#include <SQLiteCpp/Database.h>

#include <cstdint>

#include "format/header.hpp"

namespace modelcat::catalog {

// For a GGUF file: sets files.ggml_refusals to the number of reasons and
// inserts one ggml_refusals row per reason (format::ggml_refusals). Other
// formats: nothing. Runs inside the caller's transaction, after the files row
// is inserted; the rows go when the files row is deleted (ON DELETE CASCADE).
void write_ggml_refusals(SQLite::Database& db, int64_t model_id, int64_t file_id, const format::FileHeader& h);

}  // namespace modelcat::catalog
