#include "crawl/file_reader.hpp"

#include "io/local_file.hpp"

namespace modelcat::crawl {

FileReading read_file_header(const std::string& location, const HeaderReadOptions& options) {
    io::LocalFile source(location);
    FileReading r;
    r.header = read_header(source, options);
    r.bytes_read = source.bytes_read();
    r.requests = source.requests();
    return r;
}

}  // namespace modelcat::crawl
