#pragma once
// One file's header without a database (for `modelcat show`).
#include <string>

#include "crawl/header_reader.hpp"

namespace modelcat::crawl {

struct FileReading {
    model::FileHeader header;
    uint64_t bytes_read = 0;
    uint64_t requests = 0;
};

FileReading read_file_header(const std::string& location, const HeaderReadOptions& options);

}  // namespace modelcat::crawl
