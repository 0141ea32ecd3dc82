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

// The path of a URL, without its query ("" when it has none).
std::string_view url_path(std::string_view url) {
    const size_t scheme = url.find("://");
    const size_t path = scheme == std::string_view::npos ? std::string_view::npos : url.find('/', scheme + 3);
    if (path == std::string_view::npos) return {};
    return url.substr(path, url.find('?', path) - path);
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

bool is_hub_scope_input(const std::string& s) {
    if (s.starts_with("hf-search:")) return true;
    const size_t slash = s.starts_with("hf://") ? s.find('/', 5) : std::string::npos;
    return slash != std::string::npos && s.compare(slash, 2, "/*") == 0 && (s.size() == slash + 2 || s[slash + 2] == '/');
}

namespace {

// KEY=VALUE&...: keys the API names, values URL text as it is (percent-escapes allowed); the
// parameters that order and size the pages are modelcat's.
std::optional<std::string> search_query(std::string_view q, std::string& why) {
    if (q.empty()) return why = "hf-search: needs the models API's parameters, e.g. hf-search:?filter=gguf&search=Llama-3.1", std::nullopt;
    size_t at = 0;
    while (at <= q.size()) {
        const size_t amp = std::min(q.find('&', at), q.size());
        const std::string_view pair = q.substr(at, amp - at), key = pair.substr(0, pair.find('='));
        if (pair.find('=') == std::string_view::npos || key.empty() ||
            key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_[]") != std::string_view::npos)
            return why = "hf-search: expected KEY=VALUE pairs joined by '&': " + std::string(q), std::nullopt;
        for (std::string_view own : {"sort", "direction", "limit", "expand", "expand[]", "cursor", "full", "config"})
            if (key == own) return why = "hf-search: sets " + std::string(own) + " itself (pages sorted by lastModified)", std::nullopt;
        auto unsafe = [](char c) { return c == '#' || c == '?' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f; };
        if (std::any_of(pair.begin(), pair.end(), unsafe))
            return why = "hf-search: a value holds a space, control, '?' or '#' (percent-escape it): " + std::string(pair), std::nullopt;
        at = amp + 1;
    }
    return std::string(q);
}

}  // namespace

std::optional<HubScope> parse_hub_scope(const std::string& s, std::string& why) {
    if (!is_hub_scope_input(s)) return std::nullopt;
    HubScope scope{s, "", ""};
    if (s.starts_with("hf-search:")) {
        std::string_view q = std::string_view(s).substr(10);
        if (q.starts_with('?')) q.remove_prefix(1);
        auto query = search_query(q, why);
        if (!query) return std::nullopt;
        scope.query = *query;
        return scope;
    }
    const size_t slash = s.find('/', 5);
    const std::string author = s.substr(5, slash - 5);
    if (author.empty() || author == "." || author == ".." || !plain_url_text(author) || author.find('@') != std::string::npos)
        return why = "not an hf://AUTHOR/*[/glob] input: " + s, std::nullopt;
    scope.query = "author=" + author;
    if (s.size() > slash + 3) scope.glob = s.substr(slash + 3);
    return scope;
}

std::string hub_models_url(const std::string& endpoint, const HubScope& scope) {
    // expand: only the two fields the night compares (the API's default card is larger)
    return endpoint + "/api/models?" + scope.query + "&sort=lastModified&direction=-1&limit=1000&expand=lastModified&expand=sha";
}

std::string hub_model_url(const std::string& endpoint, const std::string& repo) { return endpoint + "/api/models/" + repo; }

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
    if (budget == "api") {
        c.api = reply.requests;
        const std::string_view path = url_path(reply.location);
        if (path == "/api/models") c.model_pages = reply.requests;
        else if (path.starts_with("/api/models/") && path.find("/tree/") != std::string_view::npos) c.repo_listings = reply.requests;
    }
    else if (budget == "resolvers") c.resolver = first, c.storage = reply.requests - first;
    else c.storage = reply.requests;
    return c;
}

std::string hub_budget(const std::string& url) {
    const std::string_view p = url_path(url);
    if (p.empty()) return "";
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
    // only the Hub's own refusal is about access: storage's, after its redirect, is about the signed URL
    if ((reply.status != 401 && reply.status != 403) || reply.redirected()) return what;
    return "gated or private (HTTP " + std::to_string(reply.status) + "); " +
           (token_sent ? "the token does not grant access" : "set HF_TOKEN or --token-file") + ": " + reply.location;
}

}  // namespace modelcat::locate
