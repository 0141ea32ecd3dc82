#include "nginx.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace modelcat::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Starts argv with stdout and stderr appended to `output`; the child dies with the test.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& output) {
    std::vector<char*> args;  // built before fork: the child only calls async-signal-safe functions
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::string out = output.string();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(args[0], args.data());
        _exit(127);
    }
    return pid;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool can_connect(unsigned port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
}

// nginx's log escaping: '"', '\\' and bytes outside printable ASCII are written as \xHH.
std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
            out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> fields;
    size_t pos = 0;
    for (;;) {
        size_t next = line.find(sep, pos);
        fields.push_back(line.substr(pos, next - pos));
        if (next == std::string::npos) return fields;
        pos = next + 1;
    }
}

// A socket bound to a free loopback port, and that port: held open so that the next pick differs.
int bound_socket(unsigned& port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        close(fd);
        throw std::runtime_error("cannot bind 127.0.0.1:0");
    }
    port = ntohs(addr.sin_port);
    return fd;
}

}  // namespace

unsigned free_port() {
    unsigned port = 0;
    close(bound_socket(port));
    return port;
}

size_t max_concurrency(const std::vector<AccessLogEntry>& entries) {
    // +1 at each start, -1 at each end; ends sort first so that touching intervals do not count.
    // Log times are rounded to the millisecond: starts move 2 ms later so rounding adds no overlap.
    std::vector<std::pair<double, int>> events;
    for (const auto& e : entries) {
        events.emplace_back(e.start() + 0.002, +1);
        events.emplace_back(e.end, -1);
    }
    std::sort(events.begin(), events.end());
    size_t now = 0, most = 0;
    for (const auto& [t, d] : events) {
        now += d;
        most = std::max(most, now);
    }
    return most;
}

Nginx::Nginx() {
    char tmpl[] = "/tmp/modelcat-nginx-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    www_ = dir_ / "www";
    fs::create_directories(www_ / "files");
    fs::create_directories(dir_ / "tmp");
    pid_t openssl = spawn({MODELCAT_OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                           "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                           "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", (dir_ / "key.pem").string(),
                           "-out", (dir_ / "cert.pem").string()},
                          dir_ / "openssl.log");
    int status = 0;
    waitpid(openssl, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string log = read_text(dir_ / "openssl.log");
        fs::remove_all(dir_);
        throw std::runtime_error("openssl could not make a test certificate: " + log);
    }
    // Ports are picked free, then bound by nginx: another process may take one in between.
    for (int tries = 0; tries < 5; ++tries) {
        // three distinct ports: the kernel may hand a port just closed out again
        int fds[std::size(ports_)];
        for (size_t i = 0; i < std::size(ports_); ++i) fds[i] = bound_socket(ports_[i]);
        for (int fd : fds) close(fd);
        if (start()) return;
    }
    std::string log = error_log();
    fs::remove_all(dir_);
    throw std::runtime_error("nginx did not start: " + log);
}

Nginx::~Nginx() {
    stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
}

void Nginx::write_config() const {
    std::string d = dir_.string(), files = (www_ / "files").string() + "/";
    auto listen = [](unsigned port) { return "127.0.0.1:" + std::to_string(port); };
    std::ofstream conf(dir_ / "nginx.conf");
    conf << "# Generated by tests/http/nginx.cpp.\n"
            "daemon off;\n"
            "master_process off;  # one process: stopped by one signal, no privileges to drop\n"
            "load_module " MODELCAT_NGINX_ECHO_MODULE ";\n"
            "pid " << d << "/nginx.pid;\n"
            "error_log " << d << "/error.log info;\n"
            "events { worker_connections 256; }\n"
            "http {\n"
            "  log_format modelcat '$msec\\t$request_time\\t$server_port\\t$connection\\t$connection_requests\\t"
            "$server_protocol\\t$status\\t$body_bytes_sent\\t$request_method\\t$request_uri\\t$http_range\\t"
            "$http_authorization\\t$http_if_none_match';\n"
            "  access_log " << d << "/access.log modelcat;\n"
            "  client_body_temp_path " << d << "/tmp/body;\n"
            "  proxy_temp_path " << d << "/tmp/proxy;\n"
            "  fastcgi_temp_path " << d << "/tmp/fastcgi;\n"
            "  uwsgi_temp_path " << d << "/tmp/uwsgi;\n"
            "  scgi_temp_path " << d << "/tmp/scgi;\n"
            "  default_type application/octet-stream;\n"
            "  sendfile on;\n"
            "  keepalive_timeout 30s;\n"
            "  limit_req_zone $binary_remote_addr zone=limited:1m rate=2r/s;\n"
            "  limit_req_zone $binary_remote_addr zone=busy:1m rate=2r/s;\n"
            "  map $arg_cursor $tree_next {\n"
            "    \"\" '<http://" << listen(port()) << "/api/models/owner/repo/tree/main?cursor=2>; rel=\"next\"';\n"
            "    default \"\";\n"
            "  }\n"
            // Content-Range totals a server lies with: /huge-total/ and /moving-total/ pass on port2()'s /files/
            "  map \"$request_uri $upstream_http_content_range\" $lying_total {\n"
            "    \"~^/huge-total/\\S* bytes (?<span>[0-9]+-[0-9]+)/\" \"bytes $span/18446744073709551615\";\n"
            "    \"~^/moving-total/\\S* bytes (?<span>0-[0-9]+/[0-9]+)$\" \"bytes $span\";\n"
            "    \"~^/moving-total/\\S* bytes (?<span>[0-9]+-[0-9]+)/\" \"bytes $span/99999999999\";\n"
            "  }\n"
            "  server {\n"
            // A small send buffer: $body_bytes_sent counts what nginx handed to the kernel, and an
            // autotuned loopback buffer (up to 4 MiB) would count bytes that never reached the client.
            "    listen " << listen(port()) << " sndbuf=32k;\n"
            "    root " << www_.string() << ";\n"
            "    location /files/ { }\n"
            "    location /noranges/ { alias " << files << "; max_ranges 0; }\n"
            "    location /chunked/ { alias " << files << "; ssi on; ssi_types *; }\n"
            "    location /gated/ { return 401; }\n"
            "    location /forbidden/ { return 403; }\n"
            "    location /redirect/ {\n"
            "      add_header X-Linked-Etag '\"linked-etag\"' always;\n"
            "      add_header X-Linked-Size 123 always;\n"
            "      add_header X-Repo-Commit abc123 always;\n"
            "      add_header ETag '\"first-hop\"' always;\n"
            "      rewrite ^/redirect/(.*)$ http://" << listen(port2()) << "/files/$1 redirect;\n"
            "    }\n"
            "    location /hop/ { rewrite ^/hop/(.*)$ /files/$1 redirect; }\n"
            "    location /loop/ { rewrite ^ /loop/ redirect; }\n"
            "    location /limited/ {\n"
            "      alias " << files << ";\n"
            "      limit_req zone=limited;\n"
            "      limit_req_status 429;\n"
            "      add_header Retry-After 1 always;\n"
            "    }\n"
            "    location /busy/ { alias " << files << "; limit_req zone=busy; limit_req_status 503; }\n"
            "    location /ratelimited/ { add_header RateLimit '\"api\";r=0;t=1' always; return 429; }\n"
            "    location /wait-long/ { add_header Retry-After 3600 always; return 429; }\n"
            "    location /unavailable/ { return 503; }\n"
            "    location /reset/ { return 444; }\n"
            "    location /slow/ { alias " << files << "; limit_rate 1k; }\n"
            "    location /sleep/ { echo_sleep 0.3; echo slept; }\n"
            "    location /short/ { add_header Content-Range 'bytes 0-99/1000' always; return 206 0123456789; }\n"
            "    location /shifted/ { add_header Content-Range 'bytes 5-14/1000' always; return 206 0123456789; }\n"
            "    location /v2/ { default_type application/vnd.docker.distribution.manifest.v2+json; }\n"
            "    location ~ ^/v2/.+/blobs/(sha256:[0-9a-f]+)$ { return 307 http://" << listen(port2()) << "/files/registry-blobs/$1; }\n"
            "    location = /api/models/owner/repo/tree/main {\n"
            "      default_type application/json;\n"
            "      add_header Link $tree_next;\n"
            "      try_files /tree/page$arg_cursor.json =404;\n"
            "    }\n"
            // hostile servers: listings that page forever, a commit that climbs out of the repo
            "    location = /api/models/owner/self-link/tree/main {\n"
            "      default_type application/json;\n"
            "      add_header Link '<http://" << listen(port()) << "/api/models/owner/self-link/tree/main>; rel=\"next\"';\n"
            "      return 200 '[]';\n"
            "    }\n"
            "    location = /api/models/owner/endless/tree/main {\n"
            "      default_type application/json;\n"
            "      add_header Link '<http://" << listen(port()) << "/api/models/owner/endless/tree/main?page=$request_id>; rel=\"next\"';\n"
            "      return 200 '[]';\n"
            "    }\n"
            "    location = /api/models/owner/climbing/tree/main {\n"
            "      default_type application/json;\n"
            "      add_header X-Repo-Commit ../../../../good/zz always;\n"
            "      try_files /tree/climbing.json =404;\n"
            "    }\n"
            // the models API: hf://AUTHOR/* is /api/models?author=AUTHOR..., a page per author
            "    location = /api/models {\n"
            "      default_type application/json;\n"
            "      try_files /models/$arg_author.json =404;\n"
            "    }\n"
            "    location ~ ^/(huge|moving)-total/ {\n"
            "      rewrite ^/[a-z]+-total/(.*)$ /files/$1 break;\n"
            "      proxy_pass http://" << listen(port2()) << ";\n"
            "      proxy_hide_header Content-Range;\n"
            "      add_header Content-Range $lying_total always;\n"
            "    }\n"
            "    location /retry-after-30/ { add_header Retry-After 30 always; return 503; }\n"
            "    location /trickle/ { alias " << files << "; limit_rate 1; }\n"
            // nginx takes parameters up to 4 KiB: the 200 KiB line is built by doubling a variable
            "    location /big-header/ {\n"
            "      set $b3k " << std::string(3200, 'x') << ";\n"
            "      set $b6k $b3k$b3k; set $b12k $b6k$b6k; set $b25k $b12k$b12k; set $b50k $b25k$b25k;\n"
            "      set $b100k $b50k$b50k; set $b200k $b100k$b100k;\n"
            "      add_header X-Big $b200k always;\n"
            "      return 200 ok;\n"
            "    }\n"
            "  }\n"
            "  server {\n"
            "    listen " << listen(port2()) << ";\n"
            "    root " << www_.string() << ";\n"
            "    location /files/ { }\n"
            "  }\n"
            "  server {\n"
            "    listen " << listen(port_tls()) << " ssl http2;\n"
            "    ssl_certificate " << d << "/cert.pem;\n"
            "    ssl_certificate_key " << d << "/key.pem;\n"
            "    root " << www_.string() << ";\n"
            "    location /files/ { }\n"
            "    location /sleep/ { echo_sleep 0.3; echo slept; }\n"
            "  }\n"
            "}\n";
}

bool Nginx::start() {
    fs::remove(dir_ / "error.log");
    write_config();
    std::string conf = (dir_ / "nginx.conf").string(), err = (dir_ / "error.log").string();
    pid_ = spawn({MODELCAT_NGINX, "-p", dir_.string(), "-c", conf, "-e", err}, dir_ / "nginx.out");
    for (auto deadline = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < deadline;) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            if (error_log().find("Address already in use") != std::string::npos) return false;
            throw std::runtime_error("nginx exited: " + error_log() + read_text(dir_ / "nginx.out"));
        }
        if (std::all_of(std::begin(ports_), std::end(ports_), can_connect)) return true;
        std::this_thread::sleep_for(10ms);
    }
    stop();
    throw std::runtime_error("nginx did not answer within 5 s: " + error_log());
}

void Nginx::stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {
        gone = waitpid(pid_, &status, WNOHANG) == pid_;
        if (!gone) std::this_thread::sleep_for(10ms);
    }
    if (!gone) {  // still there after 5 s
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
    }
    pid_ = -1;
}

void Nginx::write_file(const std::string& name, const std::vector<uint8_t>& bytes) const {
    fs::create_directories((www_ / name).parent_path());
    std::ofstream out(www_ / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void Nginx::write_file(const std::string& name, const std::string& text) const {
    write_file(name, std::vector<uint8_t>(text.begin(), text.end()));
}

void Nginx::sparse_file(const std::string& name, uint64_t size) const {
    fs::create_directories((www_ / name).parent_path());
    std::ofstream(www_ / name).close();
    fs::resize_file(www_ / name, size);
}

std::string Nginx::url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port()) + path; }
std::string Nginx::url2(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port2()) + path;
}
std::string Nginx::url_tls(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(port_tls()) + path;
}

std::string Nginx::error_log() const { return read_text(dir_ / "error.log"); }

std::vector<AccessLogEntry> Nginx::access_log() const {
    std::vector<AccessLogEntry> entries;
    std::istringstream in(read_text(dir_ / "access.log"));
    std::string line;
    // A line still being written has no newline yet: getline would return it, so count lines first.
    while (std::getline(in, line) && !in.eof()) {
        auto f = split(line, '\t');
        if (f.size() != 13) throw std::runtime_error("unexpected access log line: " + line);
        AccessLogEntry e;
        e.end = std::stod(f[0]);
        e.duration = std::stod(f[1]);
        e.port = static_cast<unsigned>(std::stoul(f[2]));
        e.connection = std::stoull(f[3]);
        e.connection_requests = std::stoull(f[4]);
        e.protocol = f[5];
        e.status = std::stoi(f[6]);
        e.body_bytes = std::stoull(f[7]);
        e.method = f[8];
        e.target = unescape(f[9]);
        e.range = unescape(f[10]);
        e.authorization = unescape(f[11]);
        e.if_none_match = unescape(f[12]);
        entries.push_back(std::move(e));
    }
    return entries;
}

std::vector<AccessLogEntry> Nginx::wait_for_log(size_t count, double timeout_s) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (access_log().size() < count && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(50ms);
    return access_log();
}

}  // namespace modelcat::test
