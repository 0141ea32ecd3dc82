#include "io/sync_file.hpp"

#include <algorithm>

#include "io/io_error.hpp"
#include "io/local_reader.hpp"

namespace modelcat::io {

SyncFile::SyncFile(RangeReader& reader, RangeRequest origin, std::optional<uint64_t> size, std::vector<uint8_t> first_bytes,
                   Explain explain)
    : reader_(reader), route_(std::move(origin)), size_(size), first_bytes_(std::move(first_bytes)),
      keep_first_(first_bytes_.empty()), explain_(std::move(explain)) {}

// One request, asked again when its route's direct target refused it; the bytes end up on `out`.
RangeReply SyncFile::fetch(uint64_t offset, uint64_t n, format::ByteBuffer& out) {
    for (;;) {
        RangeRequest request = route_.request(offset, n);
        request.append_to = &out;  // a local reader appends there; a remote one answers in the body
        RangeReply reply;
        reader_.submit(std::move(request), [&reply](RangeReply r) { reply = std::move(r); });
        reader_.run();
        bytes_read_ += reply.bytes;
        requests_ += reply.requests;
        if (route_.refused(reply)) continue;
        if (!reply.ok()) throw IoError(explain_ ? explain_(reply) : reply.error.value_or(location() + ": read failed"));
        route_.follow(reply);
        if (!reply.appended) {
            // a remote file's first bytes are kept: the header read fetched them, tensor reads need not
            if (keep_first_) first_bytes_.assign(reply.body.begin(), reply.body.end());
            out.append(reply.body.data(), reply.body.size());
        }
        keep_first_ = false;
        return reply;
    }
}

void SyncFile::read(uint64_t offset, uint64_t n, format::ByteBuffer& out) {
    if (size_) {
        if (offset >= *size_) return;
        n = std::min(n, *size_ - offset);
    }
    if (offset < first_bytes_.size()) {  // the part already here costs no request
        uint64_t have = std::min<uint64_t>(n, first_bytes_.size() - offset);
        out.append(first_bytes_.data() + offset, have);
        offset += have, n -= have;
    }
    if (n == 0) return;
    const size_t before = out.size();
    RangeReply reply = fetch(offset, n, out);
    if (!reply.total_size) throw IoError(location() + ": the server did not say the file's size (no Content-Range)");
    if (size_ && *size_ != *reply.total_size)
        throw IoError(location() + ": the file changed while being read (" + std::to_string(*size_) + " bytes, then " +
                      std::to_string(*reply.total_size) + ")");
    size_ = *reply.total_size;
    const uint64_t expected = offset >= *size_ ? 0 : std::min(n, *size_ - offset);
    if (out.size() - before != expected)
        throw IoError(location() + ": asked for " + std::to_string(expected) + " bytes at offset " + std::to_string(offset) +
                      ", got " + std::to_string(out.size() - before));
}

format::ByteBuffer SyncFile::read_whole(uint64_t cap) {
    constexpr uint64_t kFirstRead = 64 << 10;
    format::ByteBuffer bytes;
    read(0, kFirstRead, bytes);
    if (size() > cap)
        throw IoError(location() + ": " + std::to_string(size()) + " bytes is more than the cap of " + std::to_string(cap) +
                      " for a file read whole");
    read(bytes.size(), size() - bytes.size(), bytes);
    return bytes;
}

model::FileHeader read_header(SyncFile& file, const format::HeaderReadOptions& options, format::ByteBuffer* scratch) {
    format::HeaderAssembler assembler(file.location(), options, scratch);
    std::optional<format::ByteRange> next = assembler.first_read();
    while (next) {
        file.read(next->offset, next->length, assembler.buffer());  // appends, clamped to the file
        next = assembler.parse(file.size());
    }
    return assembler.take();
}

std::string read_local_text(const std::string& path, uint64_t cap) {
    LocalReader inline_reads(0);
    SyncFile file(inline_reads, RangeRequest{path});
    format::ByteBuffer bytes = file.read_whole(cap);
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace modelcat::io
