#pragma once
// Reads of byte ranges, local or remote, behind one interface: the crawl's
// model pipeline submits reads with a callback and drives them with run();
// callbacks run on the caller's thread, inside run(), and may submit more.
// Local files complete on a small thread pool (or inline), HTTP(S) URLs on
// libcurl's multi interface. io::SyncFile reads one file synchronously over any of them.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/byte_buffer.hpp"
#include "io/file_stat.hpp"

namespace modelcat::io {

// A whole-file read (length 0) is for small files (index.json, config.json, manifests): past this it is refused.
inline constexpr uint64_t kMaxWholeFileBytes = 64ull << 20;

struct RangeRequest {
    std::string location;  // a path or an http(s):// URL
    uint64_t offset = 0;
    uint64_t length = 0;   // 0: the whole (small) file, capped at kMaxWholeFileBytes or the reader's own cap
    std::optional<std::string> if_none_match = std::nullopt;  // remote: an ETag; a 304 answers "unchanged"
    bool with_token = false;  // remote: send the reader's token (the caller decides which hosts get it)
    std::string budget = {};  // remote: the server's rate-limit budget this request spends ("" none)
    // local: the bytes go onto the end of this buffer (alive, and touched by nothing else, until the
    // reply), not into the reply's body: a header is read into one buffer, not copied out of several
    format::ByteBuffer* append_to = nullptr;
    // local: false asks the kernel to read no further than asked (a header, not the tensor data after it)
    bool read_ahead = true;
};

struct RangeReply {
    std::string location;                // as requested
    long status = 0;                     // HTTP status (206, 200, 304, 404 ...); local files: 206, or 404 when missing
    format::ByteBuffer body;                     // the bytes read
    std::optional<uint64_t> total_size;  // the whole file's size
    std::optional<FileStat> stat;        // local files: what fstat said before reading
    std::string etag, last_modified, final_url;
    std::vector<std::pair<std::string, std::string>> first_hop;  // remote: headers kept from a redirect's first answer
    std::optional<std::string> link_next;  // remote: Link: <URL>; rel="next" (paged listings)
    std::optional<std::string> error;    // what went wrong, ending with ": location"
    uint32_t requests = 0;               // reads or HTTP requests spent, retries and redirect hops included
    uint32_t attempts = 0;               // remote: requests sent to the requested URL itself (retries included)
    uint64_t bytes = 0;                  // body bytes received
    bool appended = false;               // local: they went onto the request's append_to
    bool ok() const { return !error; }
    bool missing() const { return status == 404; }
    // Whether the answer came from where a redirect led (remote), not from the location asked.
    bool redirected() const { return !final_url.empty() && final_url != location; }
    // The value of a header kept from the first hop, if present.
    std::optional<std::string> first_hop_header(const std::string& name) const;
};

class RangeReader {
public:
    virtual ~RangeReader() = default;
    virtual void submit(RangeRequest request, std::function<void(RangeReply)> on_done) = 0;
    // Runs `work` where replies come from, then `then` on run()'s thread as a completion: work on
    // bytes (parsing, deriving rows) that a local crawl does on the readers' threads while run()'s
    // thread writes. `work` must touch only what nothing else touches until `then`.
    virtual void offload(std::function<void()> work, std::function<void()> then) = 0;
    // Drives every read, including those submitted from callbacks, until none remain.
    virtual void run() = 0;
};

}  // namespace modelcat::io
