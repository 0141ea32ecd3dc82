#include "locate/hub.hpp"

#include <algorithm>

#include "io/io_error.hpp"
#include "locate/locator.hpp"

namespace modelcat::locate {

namespace {

// A name that a URL path carries as itself: no percent-escape, query, fragment, backslash, space or control.
bool plain_url_text(std::string_view s) {
    return std::none_of(s.begin(), s.end(), [](char c) {
        return c == '%' || c == '?' || c == '#' || c == '\\' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
    });
}

bool is_commit(std::string_view s) { return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos; }

}  // namespace

bool valid_revision(std::string_view r) {
    if (is_commit(r)) return true;
    return !r.empty() && plain_url_text(r) && r.find("..") == std::string_view::npos && r.find("//") == std::string_view::npos &&
           r.front() != '/' && r.back() != '/';
}

std::optional<HubInput> parse_hub_input(const std::string& s) {
    if (!s.starts_with("hf://")) return std::nullopt;
    HubInput h;
    h.input = s;
    std::string rest = s.substr(5);
    size_t slash1 = rest.find('/');
    if (slash1 == std::string::npos || slash1 == 0) return std::nullopt;
    size_t slash2 = rest.find('/', slash1 + 1);
    h.repo = rest.substr(0, slash2);
    if (slash2 != std::string::npos) h.glob = rest.substr(slash2 + 1);
    if (size_t at = h.repo.find('@'); at != std::string::npos) {
        h.revision = h.repo.substr(at + 1);
        h.repo = h.repo.substr(0, at);
    }
    const size_t owner_end = h.repo.find('/');
    const std::string_view owner = std::string_view(h.repo).substr(0, owner_end), name = std::string_view(h.repo).substr(owner_end + 1);
    for (std::string_view part : {owner, name})
        if (part.empty() || part == "." || part == ".." || !plain_url_text(part)) return std::nullopt;
    if (!valid_revision(h.revision)) return std::nullopt;
    return h;
}

bool wanted_hub_file(const std::string& path) {
    std::string base = path.substr(path.rfind('/') + 1);
    return path.ends_with(".gguf") || path.ends_with(".safetensors") || base == "model.safetensors.index.json" ||
           base == "config.json";
}

std::string hub_listing_url(const std::string& endpoint, const HubInput& hub) {
    // expand=false: no per-file commit lookups, and pages of up to 1,000 entries (50 when expanded)
    return endpoint + "/api/models/" + hub.repo + "/tree/" + hub.revision + "?recursive=true&expand=false&limit=1000";
}

std::string hub_resolve_url(const std::string& endpoint, const std::string& repo, const std::string& revision,
                            const std::string& path) {
    return endpoint + "/" + repo + "/resolve/" + revision + (path.empty() ? "" : "/" + path);
}

std::string hub_location_url(const std::string& location, const std::string& endpoint) {
    if (!location.starts_with("hf://")) return location;
    auto hub = parse_hub_input(location);
    if (!hub) throw io::IoError(location + ": expected hf://owner/repo[@revision][/path]");
    return hub_resolve_url(endpoint, hub->repo, hub->revision, hub->glob);
}

std::string hub_repo_or(const std::string& location, const std::string& fallback) {
    size_t r = location.find("/resolve/");
    size_t scheme = location.find("://");
    if (r == std::string::npos || scheme == std::string::npos) return fallback;
    size_t host_end = location.find('/', scheme + 3);
    if (host_end == std::string::npos || host_end >= r) return fallback;
    std::string repo = location.substr(host_end + 1, r - host_end - 1);
    return std::count(repo.begin(), repo.end(), '/') == 1 ? repo : fallback;
}

RequestCounts request_kinds(const io::RangeReply& reply) {
    RequestCounts c;
    if (!is_remote(reply.location)) return c;  // a local read
    const std::string budget = hub_budget(reply.location);
    const uint64_t first = std::min<uint64_t>(reply.attempts, reply.requests);
    if (budget == "api") c.api = reply.requests;
    else if (budget == "resolvers") c.resolver = first, c.storage = reply.requests - first;
    else c.storage = reply.requests;
    return c;
}

std::string hub_budget(const std::string& url) {
    size_t scheme = url.find("://");
    size_t path = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
    if (path == std::string::npos) return "";
    std::string_view p = std::string_view(url).substr(path, url.find('?', path) - path);
    if (p.find("/resolve/") != std::string_view::npos) return "resolvers";
    if (p.starts_with("/api/")) return "api";
    return "";
}

const std::vector<std::string>& hub_redirect_headers() {
    static const std::vector<std::string> names = {"x-linked-etag", "x-linked-size", "x-repo-commit", "x-xet-hash"};
    return names;
}

std::optional<std::string> hub_sha256(const io::RangeReply& reply) {
    auto e = reply.first_hop_header("x-linked-etag");  // "sha256", quoted
    if (!e) return std::nullopt;
    std::string v = *e;
    if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
    return v.size() == 64 ? std::optional(v) : std::nullopt;
}

std::optional<std::string> hub_xet_hash(const io::RangeReply& reply) {
    auto v = reply.first_hop_header("x-xet-hash");
    if (!v || v->empty() || v->find('*') != std::string::npos) return std::nullopt;
    return v;
}

std::optional<std::string> hub_commit(const io::RangeReply& reply) { return reply.first_hop_header("x-repo-commit"); }

std::optional<std::string> bad_hub_commit(const io::RangeReply& reply) {
    auto c = hub_commit(reply);
    if (!c || is_commit(*c)) return std::nullopt;
    return "the server's X-Repo-Commit is not a 40-hex commit: " + reply.location;
}

std::string failure_message(const io::RangeReply& reply, bool token_sent) {
    const std::string what = reply.error.value_or("failed: " + reply.location);
    if (reply.status != 401 && reply.status != 403) return what;
    return "gated or private (HTTP " + std::to_string(reply.status) + "); " +
           (token_sent ? "the token does not grant access" : "set HF_TOKEN or --token-file") + ": " + reply.location;
}

}  // namespace modelcat::locate
