#pragma once
// `modelcat show`: one file's header, like gguf-dump, without a database.
#include <ostream>

#include "crawl/file_reader.hpp"

namespace modelcat::cli {

void print_header(std::ostream& out, const std::string& location, const crawl::FileReading& r, bool all_tensors);

}  // namespace modelcat::cli
