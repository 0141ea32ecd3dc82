#include "io/http_file.hpp"

#include <algorithm>

#include "io/io_error.hpp"

namespace modelcat::io {

HttpFile::HttpFile(std::string url, HttpOptions options, std::optional<uint64_t> known_size, std::vector<uint8_t> prefix,
                   uint64_t first_read)
    : url_(std::move(url)), fetcher_(std::move(options)), prefix_(std::move(prefix)) {
    if (known_size) {
        size_ = *known_size;
        return;
    }
    HttpResponse r = fetch(0, first_read);
    if (!r.total_size) throw IoError(url_ + ": the server did not say the file's size (no Content-Range)");
    size_ = *r.total_size;
    prefix_ = std::move(r.body);
    count(prefix_.size());
}

HttpResponse HttpFile::fetch(uint64_t offset, uint64_t n) {
    HttpResponse res;
    fetcher_.submit({url_, offset, n}, [&res](HttpResponse r) { res = std::move(r); });
    fetcher_.run();
    if (res.error) throw IoError(*res.error);
    if (res.status != 206 && res.status != 200) throw IoError(url_ + ": HTTP status " + std::to_string(res.status));
    return res;
}

void HttpFile::read(uint64_t offset, uint64_t n, ByteBuffer& out) {
    if (offset >= size_) return;
    n = std::min(n, size_ - offset);
    if (offset < prefix_.size()) {  // the part already here costs no request
        uint64_t have = std::min<uint64_t>(n, prefix_.size() - offset);
        out.insert(out.end(), prefix_.begin() + offset, prefix_.begin() + offset + have);
        offset += have, n -= have;
        if (n == 0) return;
    }
    HttpResponse r = fetch(offset, n);
    if (r.body.size() != n)
        throw IoError(url_ + ": asked for " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", got " +
                      std::to_string(r.body.size()));
    out.insert(out.end(), r.body.begin(), r.body.end());
    count(n);
}

}  // namespace modelcat::io
