#pragma once
// `modelcat show`: one file's header, like gguf-dump, without a database.
#include <cstdint>
#include <ostream>
#include <string>

#include "model/header.hpp"

namespace modelcat::cli {

// The header `h` of the file at `location`, read in `bytes_read` bytes and `reads` reads.
void print_header(std::ostream& out, const std::string& location, const model::FileHeader& h, uint64_t bytes_read, uint64_t reads,
                  bool all_tensors);

}  // namespace modelcat::cli
