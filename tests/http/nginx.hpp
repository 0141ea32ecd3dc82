#pragma once
// A real nginx for the HTTP tests: a generated nginx.conf in a temp dir,
// 127.0.0.1 on ephemeral ports, started by the constructor and stopped by the
// destructor. Tests count requests and bytes from its access log.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace modelcat::test {

// One line of the access log (log_format "modelcat" in nginx.cpp).
struct AccessLogEntry {
    double end = 0;       // $msec: when nginx finished the request (s since the epoch)
    double duration = 0;  // $request_time
    unsigned port = 0;    // $server_port: which server block answered
    uint64_t connection = 0;           // $connection: serial number of the TCP connection
    uint64_t connection_requests = 0;  // requests so far on that connection
    std::string protocol;              // HTTP/1.1, HTTP/2.0
    int status = 0;
    uint64_t body_bytes = 0;  // $body_bytes_sent
    std::string method;
    std::string target;  // $request_uri: path and query as sent
    std::string range, authorization, if_none_match;  // "-" when the header was absent
    double start() const { return end - duration; }
};

// The most requests that were in progress at one moment, from their logged intervals.
size_t max_concurrency(const std::vector<AccessLogEntry>& entries);

// A port on 127.0.0.1 that was free a moment ago (nothing listens on it).
unsigned free_port();

// Server blocks, all on 127.0.0.1, all serving root()/files/ under the locations below:
//   port()      HTTP/1.1: /files/ (ranges), /noranges/ (max_ranges 0: 200 and the whole file),
//               /chunked/ (SSI: a chunked 200 without Content-Length), /gated/ 401, /forbidden/ 403,
//               /redirect/NAME -> 302 to url2("/files/NAME") with X-Linked-Etag "linked-etag",
//               X-Linked-Size 123, X-Repo-Commit abc123 and ETag "first-hop", /hop/NAME -> 302 to
//               /files/NAME on the same server, /loop/ -> 302 to itself, /limited/ (limit_req 2 r/s:
//               429 with Retry-After: 1), /busy/ (limit_req 2 r/s: 503), /ratelimited/ (429 with
//               RateLimit: "api";r=0;t=1), /wait-long/ (429 with Retry-After: 3600), /unavailable/ 503,
//               /reset/ (closes without answering), /slow/ (limit_rate 1k), /sleep/ (200 "slept\n"
//               after 0.3 s), /short/ (206, Content-Range 0-99/1000, 10 bytes), /shifted/ (206,
//               Content-Range 5-14/1000), /api/models/owner/repo/tree/main (root()/tree/page.json with
//               Link: <...?cursor=2>; rel="next"; ?cursor=2 serves root()/tree/page2.json, no Link),
//               /api/models/owner/self-link/tree/main ("[]", Link: rel="next" to itself),
//               /api/models/owner/endless/tree/main ("[]", Link: rel="next" to a new ?page= each time),
//               /api/models/owner/climbing/tree/main (root()/tree/climbing.json, X-Repo-Commit
//               ../../../../good/zz), /retry-after-30/ (503, Retry-After: 30), /trickle/ (limit_rate 1 byte/s),
//               /big-header/ (a 200 KiB X-Big header line), /huge-total/NAME (/files/NAME through port2(), its
//               Content-Range total 2^64-1), /moving-total/NAME (likewise, the total 99999999999 past offset 0),
//               /v2/ laid out like an Ollama registry: manifests from root()/v2/NS/MODEL/manifests/TAG,
//               /v2/NS/MODEL/blobs/sha256:HEX -> 307 to url2("/files/registry-blobs/sha256:HEX").
//   port2()     HTTP/1.1: /files/ (the redirect target: another origin).
//   port_tls()  HTTPS with HTTP/2 (ALPN), self-signed for 127.0.0.1 (ca_file()): /files/, /sleep/.
class Nginx {
public:
    Nginx();  // throws std::runtime_error carrying nginx's error log if it does not come up
    ~Nginx();
    Nginx(const Nginx&) = delete;
    Nginx& operator=(const Nginx&) = delete;

    const std::filesystem::path& root() const { return www_; }
    // Writes root()/name (parent directories made).
    void write_file(const std::string& name, const std::vector<uint8_t>& bytes) const;
    void write_file(const std::string& name, const std::string& text) const;
    void sparse_file(const std::string& name, uint64_t size) const;  // a hole: no disk used

    unsigned port() const { return ports_[0]; }
    unsigned port2() const { return ports_[1]; }
    unsigned port_tls() const { return ports_[2]; }
    std::string url(const std::string& path) const;   // http://127.0.0.1:port()/path
    std::string url2(const std::string& path) const;  // http://127.0.0.1:port2()/path
    std::string url_tls(const std::string& path) const;
    std::string ca_file() const { return (dir_ / "cert.pem").string(); }

    std::vector<AccessLogEntry> access_log() const;
    // Waits (at most timeout_s) until the log holds `count` entries, then a little longer so
    // that an unexpected extra one shows; returns them all. nginx logs at the end of a request.
    std::vector<AccessLogEntry> wait_for_log(size_t count, double timeout_s = 5) const;
    std::string error_log() const;

private:
    bool start();  // false: a port was taken meanwhile
    void stop();
    void write_config() const;

    std::filesystem::path dir_, www_;
    unsigned ports_[3] = {};
    pid_t pid_ = -1;
};

}  // namespace modelcat::test
