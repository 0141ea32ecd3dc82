// Over 500 lines: one transfer state machine (queue, hops, judging, retries) that reads best in one place.
#include "io/http_fetcher.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string_view>

#include "io/curl_api.hpp"
#include "io/http_headers.hpp"
#include "io/rate_budget.hpp"
#include "io/seconds.hpp"

namespace modelcat::io {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kErrorBodyLimit = 64 * 1024;  // error pages are read and dropped, up to this
constexpr double kMaxBackoffS = 30;

// One response of a redirect chain: its status and the headers acted on.
struct Hop {
    long status = 0;
    std::vector<std::pair<std::string, std::string>> headers;  // lower-case names

    const std::string* get(std::string_view name) const {
        for (const auto& [n, v] : headers)
            if (n == name) return &v;
        return nullptr;
    }
};

constexpr std::string_view kKeptHeaders[] = {"content-range", "content-length", "etag", "last-modified",
                                             "retry-after",   "ratelimit",      "link",
                                             "ratelimit-policy"};

std::optional<std::string> header(const Hop& hop, std::string_view name) {
    if (const std::string* v = hop.get(name)) return *v;
    return std::nullopt;
}

// "scheme://host:port": transfers are capped per host, and a 429 pauses a host.
std::string host_key(const std::string& url) {
    std::string key = url;
    CURLU* u = curl().url();
    char *scheme = nullptr, *host = nullptr, *port = nullptr;
    if (u && curl().url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
        curl().url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl().url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl().url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
        key = std::string(scheme) + "://" + host + ":" + port;
    curl().free(scheme);
    curl().free(host);
    curl().free(port);
    curl().url_cleanup(u);
    return key;
}

// Failures that another attempt may not meet: resets, timeouts, cut-short bodies.
bool transient(CURLcode code) {
    switch (code) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_PARTIAL_FILE:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_GOT_NOTHING:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
            return true;
        default:
            return false;
    }
}

}  // namespace

namespace detail {

struct Transfer {
    HttpRequest req;
    std::function<void(HttpResponse)> on_done;
    HttpResponse resp;
    std::string host;
    HttpState* state = nullptr;
    Clock::time_point not_before;  // a retry's timer
    double waited_s = 0;           // the retries' waits so far
    uint64_t budget_ticket = 0;    // the current attempt's, in HttpState::budgets

    // The current attempt.
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    char errbuf[CURL_ERROR_SIZE] = {};
    std::vector<Hop> hops;
    bool body_started = false;  // the body policy is decided at its first byte
    bool keep_body = false;     // a 206 or 200 is kept, an error page dropped
    uint64_t body_limit = 0;
    uint64_t attempt_bytes = 0;
    std::string refusal;  // why the body was refused; aborts the transfer, no retry

    std::string range() const {
        return "bytes=" + std::to_string(req.offset) + "-" + std::to_string(req.offset + req.length - 1);
    }
};

struct HttpState {
    HttpOptions opt;
    CURLM* multi = nullptr;
    std::map<std::string, std::deque<std::unique_ptr<Transfer>>> queued;  // by host, FIFO
    std::vector<std::unique_ptr<Transfer>> delayed;                       // retries waiting for a timer
    std::vector<std::unique_ptr<Transfer>> in_flight;
    std::map<std::string, unsigned> in_flight_per_host;
    std::map<std::string, Clock::time_point> paused_until;  // by host, after a 429
    Clock::time_point next_slot;                            // requests-per-minute limit
    RateBudgets budgets;                                    // what servers announced of their budgets
    std::minstd_rand rng{std::random_device{}()};
    uint64_t requests = 0, bytes = 0;
};

}  // namespace detail

namespace {

using detail::HttpState;
using detail::Transfer;

size_t on_header(char* data, size_t size, size_t n, void* userp) {
    auto& t = *static_cast<Transfer*>(userp);
    std::string_view line(data, size * n);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    if (line.starts_with("HTTP/")) {
        // A new response: the next hop of a redirect chain, or what follows a 1xx.
        size_t sp = line.find(' ');
        long status = sp == std::string_view::npos ? 0 : std::atol(std::string(line.substr(sp + 1, 3)).c_str());
        if (t.hops.empty() || t.hops.back().status >= 200) t.hops.emplace_back();
        t.hops.back() = Hop{status, {}};
        return size * n;
    }
    size_t colon = line.find(':');
    if (t.hops.empty() || colon == std::string_view::npos) return size * n;
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto& extra = t.state->opt.first_hop_headers;
    if (std::find(std::begin(kKeptHeaders), std::end(kKeptHeaders), name) == std::end(kKeptHeaders) &&
        std::find(extra.begin(), extra.end(), name) == extra.end())
        return size * n;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    t.hops.back().headers.emplace_back(std::move(name), std::string(value));
    return size * n;
}

std::string ignores_range(const Transfer& t) {
    return "server ignores Range requests (answered 200 to " + t.range() +
           "): refusing to download the whole file";
}

// What the final response's body may be, decided before its first byte is kept.
void decide_body(Transfer& t) {
    t.body_started = true;
    t.keep_body = false;
    t.body_limit = kErrorBodyLimit;
    if (t.hops.empty()) return;
    const Hop& hop = t.hops.back();
    if (hop.status == 206) {
        if (t.req.length == 0) {
            t.refusal = "answered 206 to a request without Range";
            return;
        }
        const std::string* value = hop.get("content-range");
        auto cr = value ? http::parse_content_range(*value) : std::nullopt;
        if (!cr || !cr->satisfied) {
            t.refusal = "answered 206 to " + t.range() + " without a usable Content-Range (" +
                        (value ? "\"" + *value + "\"" : "none") + ")";
            return;
        }
        if (cr->first != t.req.offset || cr->last > t.req.offset + t.req.length - 1) {
            t.refusal = "asked for " + t.range() + ", server sent bytes " + std::to_string(cr->first) + "-" +
                        std::to_string(cr->last);
            return;
        }
        t.keep_body = true;
        t.body_limit = cr->last - cr->first + 1;
        t.resp.body.reserve(t.body_limit);
        t.resp.total_size = cr->total;
    } else if (hop.status == 200) {
        t.keep_body = true;
        if (t.req.length == 0) {
            t.body_limit = t.state->opt.max_plain_body;
            return;
        }
        // Range ignored: only a whole file that fits in what was asked for is an answer.
        t.body_limit = std::min(t.req.length, t.state->opt.ignored_range_cap);
        auto length = header(hop, "content-length");
        if (t.req.offset != 0 || (length && std::strtoull(length->c_str(), nullptr, 10) > t.body_limit))
            t.refusal = ignores_range(t);
    }
}

size_t on_body(char* data, size_t size, size_t n, void* userp) {
    auto& t = *static_cast<Transfer*>(userp);
    size_t len = size * n;
    t.resp.bytes_received += len;
    t.state->bytes += len;
    if (!t.body_started) decide_body(t);
    if (!t.refusal.empty()) return 0;
    if (t.attempt_bytes + len > t.body_limit) {
        if (t.keep_body) {
            long status = t.hops.back().status;
            t.refusal = status == 206            ? "server sent more than its Content-Range for " + t.range()
                        : t.req.length == 0 ? "body larger than " + std::to_string(t.body_limit) + " bytes"
                                             : ignores_range(t);
        }
        return 0;  // an error page past kErrorBodyLimit is cut; its status still speaks
    }
    t.attempt_bytes += len;
    if (t.keep_body) t.resp.body.append(reinterpret_cast<const uint8_t*>(data), len);
    return len;
}

void start(HttpState& s, std::unique_ptr<Transfer> t) {
    t->hops.clear();
    t->resp.body.clear();
    t->resp.total_size.reset();
    t->body_started = false;
    t->keep_body = false;
    t->attempt_bytes = 0;
    t->refusal.clear();
    t->errbuf[0] = '\0';

    CURL* e = curl().easy_init();
    if (!e) throw std::runtime_error("curl_easy_init failed");
    t->easy = e;
    curl().easy_setopt(e, CURLOPT_URL, t->req.url.c_str());
    curl().easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl().easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl().easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl().easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl().easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl().easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl().easy_setopt(e, CURLOPT_MAXREDIRS, static_cast<long>(s.opt.max_redirects));
    curl().easy_setopt(e, CURLOPT_UNRESTRICTED_AUTH, 0L);  // the token stays on the first host
    curl().easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(s.opt.timeout_s * 1000));
    curl().easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, s.opt.low_speed_bytes);
    curl().easy_setopt(e, CURLOPT_LOW_SPEED_TIME, s.opt.low_speed_window_s);
    // HTTPS may multiplex (ALPN h2): wait for that rather than open more connections. On http://
    // libcurl would hold every second transfer until the first response shows it cannot.
    if (t->host.starts_with("https://")) curl().easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl().easy_setopt(e, CURLOPT_USERAGENT, s.opt.user_agent.c_str());
    if (!s.opt.ca_file.empty()) curl().easy_setopt(e, CURLOPT_CAINFO, s.opt.ca_file.c_str());
    if (t->req.length > 0) {
        std::string range = t->range().substr(6);  // CURLOPT_RANGE takes "first-last"
        curl().easy_setopt(e, CURLOPT_RANGE, range.c_str());
    }
    if (s.opt.token && t->req.with_token) t->headers = curl().slist_append(t->headers, ("Authorization: Bearer " + *s.opt.token).c_str());
    if (t->req.if_none_match)
        t->headers = curl().slist_append(t->headers, ("If-None-Match: " + *t->req.if_none_match).c_str());
    curl().easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);

    if (curl().multi_add_handle(s.multi, e) != CURLM_OK) throw std::runtime_error("curl_multi_add_handle failed");
    ++s.in_flight_per_host[t->host];
    s.in_flight.push_back(std::move(t));
}

void release_easy(Transfer& t) {
    curl().easy_cleanup(t.easy);
    curl().slist_free_all(t.headers);
    t.easy = nullptr;
    t.headers = nullptr;
}

// Admits queued transfers within the caps, the rate limit and any 429 pause.
void start_due(HttpState& s) {
    auto now = Clock::now();
    for (auto it = s.delayed.begin(); it != s.delayed.end();) {
        if ((*it)->not_before > now) {
            ++it;
            continue;
        }
        s.queued[(*it)->host].push_front(std::move(*it));  // a retry goes before newer requests
        it = s.delayed.erase(it);
    }
    auto take_slot = [&] {  // one token: attempts start 60/N s apart
        if (s.opt.max_requests_per_minute <= 0) return true;
        if (now < s.next_slot) return false;
        s.next_slot = now + seconds_as_duration(60 / s.opt.max_requests_per_minute);
        return true;
    };
    for (auto& [host, queue] : s.queued) {
        auto paused = s.paused_until.find(host);
        if (paused != s.paused_until.end() && paused->second > now) continue;
        // A request whose budget is spent waits for its reset; those behind it on other budgets go on.
        for (auto it = queue.begin(); it != queue.end() && s.in_flight.size() < s.opt.max_in_flight &&
                                      s.in_flight_per_host[host] < s.opt.per_host;) {
            const std::string& budget = (*it)->req.budget;
            if (!s.budgets.has_room(host, budget, now)) {
                ++it;
                continue;
            }
            if (!take_slot()) break;
            std::unique_ptr<Transfer> t = std::move(*it);
            t->budget_ticket = s.budgets.sent(host, budget);
            it = queue.erase(it);
            start(s, std::move(t));
        }
    }
    std::erase_if(s.queued, [](const auto& kv) { return kv.second.empty(); });
}

// When start_due may next admit something, if not woken sooner by a transfer.
Clock::time_point next_wake(const HttpState& s, Clock::time_point now) {
    auto wake = now + std::chrono::seconds(1);
    for (const auto& t : s.delayed) wake = std::min(wake, t->not_before);
    if (!s.queued.empty() && s.next_slot > now) wake = std::min(wake, s.next_slot);
    for (const auto& [host, until] : s.paused_until)
        if (until > now && s.queued.count(host)) wake = std::min(wake, until);
    if (auto reset = s.budgets.next_reset(now); reset && !s.queued.empty()) wake = std::min(wake, *reset);
    return wake;
}

double backoff(HttpState& s, uint32_t attempts) {
    double d = std::min(kMaxBackoffS, s.opt.backoff_s * std::pow(2.0, attempts - 1));
    return d * std::uniform_real_distribution<double>(0.5, 1.0)(s.rng);
}

// The attempt's verdict: done (error or not), or another attempt after `delay`.
struct Verdict {
    bool retry = false;
    double delay = 0;
    std::string what;  // empty: success
};

Verdict judge(HttpState& s, Transfer& t, CURLcode code, const std::string& transport) {
    auto fail = [](std::string what) { return Verdict{false, 0, std::move(what)}; };
    auto again = [&](std::string what, std::optional<double> server_wait) {
        const long cap = static_cast<long>(s.opt.max_retry_wait_s);
        if (server_wait && *server_wait > s.opt.max_retry_wait_s)
            return fail(what + "; the server asks to wait " + std::to_string(static_cast<long>(*server_wait)) +
                        " s, more than " + std::to_string(cap));
        const double delay = server_wait ? *server_wait : backoff(s, t.resp.attempts);
        if (t.waited_s + delay > s.opt.max_retry_wait_s)
            return fail(what + "; another wait would pass the " + std::to_string(cap) + " s one request may wait");
        return Verdict{true, delay, std::move(what)};
    };

    long status = t.hops.empty() ? 0 : t.hops.back().status;
    if (!t.body_started && (status == 200 || status == 206)) decide_body(t);  // an empty body
    if (!t.refusal.empty()) return fail(t.refusal);
    if (code == CURLE_OK && t.hops.empty()) return fail("no HTTP response");
    // A cut error page (CURLE_WRITE_ERROR without a refusal) is judged by its status.
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && !t.keep_body)) {
        if (code == CURLE_TOO_MANY_REDIRECTS)
            return fail("too many redirects (more than " + std::to_string(s.opt.max_redirects) + ")");
        // libcurl answers a header line past its buffer's cap with its out-of-memory code
        if (code == CURLE_OUT_OF_MEMORY) return fail("a response header over libcurl's cap (100 KiB a line, CURL_MAX_HTTP_HEADER)");
        std::string what = "transfer failed (" + transport + ")";
        // libcurl's own words for the low-speed limit: a server that slow is not asked again
        const bool too_slow = code == CURLE_OPERATION_TIMEDOUT && transport.find("too slow") != std::string::npos;
        return transient(code) && !too_slow ? again(what, std::nullopt) : fail(what);
    }
    const Hop& hop = t.hops.back();
    std::string http = "(HTTP " + std::to_string(status) + ")";
    auto retry_after = [&]() -> std::optional<double> {
        auto v = header(hop, "retry-after");
        return v ? http::parse_retry_after(*v, std::time(nullptr)) : std::nullopt;
    };
    switch (status) {
        case 206:
            if (t.attempt_bytes < t.body_limit)
                return again("truncated: Content-Range promised " + std::to_string(t.body_limit) + " bytes, got " +
                                 std::to_string(t.attempt_bytes),
                             std::nullopt);
            return {};
        case 200:
            if (t.req.length > 0) t.resp.total_size = t.attempt_bytes;  // the whole file
            return {};
        case 304:
            return {};
        case 401:
        case 403:
            return fail("access refused " + http + (s.opt.token && t.req.with_token ? " with the token" : " without a token"));
        case 404:
            return fail("not found " + http);
        case 416: {
            auto v = header(hop, "content-range");
            auto cr = v ? http::parse_content_range(*v) : std::nullopt;
            if (cr) t.resp.total_size = cr->total;
            std::string size = cr && cr->total ? ", file is " + std::to_string(*cr->total) + " bytes" : "";
            return fail("range " + t.range() + " not satisfiable (HTTP 416" + size + ")");
        }
        case 429: {
            auto wait = retry_after();
            if (!wait)
                if (auto v = header(hop, "ratelimit")) wait = http::parse_ratelimit(*v).reset_s;
            // The whole host waits: its other requests would only meet the same 429.
            if (wait && *wait <= s.opt.max_retry_wait_s) s.paused_until[t.host] = Clock::now() + seconds_as_duration(*wait);
            return again("rate limited " + http, wait);
        }
        case 500:
        case 502:
        case 503:
        case 504:
            return again("server error " + http, retry_after());
        default:
            return fail("unexpected answer " + http);
    }
}

// The requested host's own answer (the first hop) says what is left of the budget the request spent.
void note_budget(HttpState& s, const Transfer& t) {
    if (t.hops.empty()) return s.budgets.abandoned(t.host, t.req.budget, t.budget_ticket);
    const Hop& first = t.hops.front();
    auto exhausted = s.budgets.answered(t.host, t.req.budget, t.budget_ticket, header(first, "ratelimit").value_or(""),
                                        header(first, "ratelimit-policy").value_or(""), Clock::now());
    if (exhausted && s.opt.on_budget_wait) s.opt.on_budget_wait(t.host, t.req.budget, *exhausted);
}

void finish(HttpState& s, CURL* easy, CURLcode code) {
    auto it = std::find_if(s.in_flight.begin(), s.in_flight.end(), [&](const auto& t) { return t->easy == easy; });
    std::unique_ptr<Transfer> t = std::move(*it);
    s.in_flight.erase(it);
    curl().multi_remove_handle(s.multi, easy);
    if (--s.in_flight_per_host[t->host] == 0) s.in_flight_per_host.erase(t->host);

    long redirects = 0, request_bytes = 0;
    char* final_url = nullptr;
    curl().easy_getinfo(easy, CURLINFO_REDIRECT_COUNT, &redirects);
    curl().easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &request_bytes);
    curl().easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &final_url);
    uint32_t sent = request_bytes > 0 ? static_cast<uint32_t>(redirects) + 1 : 0;
    HttpResponse& r = t->resp;
    r.requests += sent;
    s.requests += sent;
    ++r.attempts;
    r.final_url = final_url ? final_url : t->req.url;
    std::string transport = t->errbuf[0] ? t->errbuf : curl().easy_strerror(code);
    release_easy(*t);
    note_budget(s, *t);

    Verdict v = judge(s, *t, code, transport);
    if (v.retry && r.attempts <= s.opt.max_retries) {
        t->not_before = Clock::now() + seconds_as_duration(v.delay);
        t->waited_s += v.delay;
        s.delayed.push_back(std::move(t));
        return;
    }
    r.status = t->hops.empty() ? 0 : t->hops.back().status;
    if (!t->hops.empty()) {
        const Hop &first = t->hops.front(), &last = t->hops.back();
        r.etag = header(last, "etag").value_or("");
        r.last_modified = header(last, "last-modified").value_or("");
        r.link_next = header(last, "link") ? http::parse_link_next(*last.get("link")) : std::nullopt;
        r.first_etag = header(first, "etag").value_or("");
        for (const auto& name : s.opt.first_hop_headers)
            if (auto v = header(first, name)) r.first_hop.emplace_back(name, *v);
    }
    if (!v.what.empty()) {
        if (v.retry) v.what += " after " + std::to_string(r.attempts) + " attempts";
        r.error = v.what + ": " + t->req.url;
        r.body.clear();
    }
    t->on_done(std::move(r));
}

// A stop asked for: the transfers waiting (a retry's timer, a host's 429 pause) end now, as errors;
// those in flight finish (their time is bounded by the timeout and the low-speed limit).
void abandon_waits(HttpState& s) {
    std::vector<std::unique_ptr<Transfer>> waiting = std::move(s.delayed);
    s.delayed.clear();
    const auto now = Clock::now();
    for (auto& [host, queue] : s.queued) {
        auto paused = s.paused_until.find(host);
        if (paused == s.paused_until.end() || paused->second <= now) continue;
        for (auto& t : queue) waiting.push_back(std::move(t));
        queue.clear();
    }
    std::erase_if(s.queued, [](const auto& kv) { return kv.second.empty(); });
    for (auto& t : waiting) {
        t->resp.error = "interrupted while waiting to retry (asked to stop): " + t->req.url;
        t->resp.body.clear();
        t->on_done(std::move(t->resp));  // may submit more: the next round of run() sees them
    }
}

}  // namespace

std::string curl_library_version() { return curl().version_info(CURLVERSION_NOW)->version; }

HttpFetcher::HttpFetcher(HttpOptions options) : state_(std::make_unique<HttpState>()) {
    state_->opt = std::move(options);
    state_->opt.max_in_flight = std::max(1u, state_->opt.max_in_flight);
    state_->opt.per_host = std::max(1u, state_->opt.per_host);
    for (const auto& b : state_->opt.budgets) state_->budgets.restore(b, Clock::now());
    state_->multi = curl().multi_init();
    if (!state_->multi) throw std::runtime_error("curl_multi_init failed");
    curl().multi_setopt(state_->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl().multi_setopt(state_->multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(state_->opt.per_host));
}

HttpFetcher::~HttpFetcher() {
    for (auto& t : state_->in_flight) {
        curl().multi_remove_handle(state_->multi, t->easy);
        release_easy(*t);
    }
    curl().multi_cleanup(state_->multi);
}

void HttpFetcher::submit(HttpRequest request, std::function<void(HttpResponse)> on_done) {
    auto t = std::make_unique<Transfer>();
    t->host = host_key(request.url);
    t->resp.url = request.url;
    t->req = std::move(request);
    t->on_done = std::move(on_done);
    t->state = state_.get();
    state_->queued[t->host].push_back(std::move(t));
}

void HttpFetcher::run() {
    HttpState& s = *state_;
    for (;;) {
        if (s.opt.should_stop && s.opt.should_stop()) abandon_waits(s);
        start_due(s);
        int running = 0;
        curl().multi_perform(s.multi, &running);
        bool finished = false;
        int left = 0;
        while (CURLMsg* m = curl().multi_info_read(s.multi, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            finish(s, m->easy_handle, m->data.result);  // may run callbacks that submit more
            finished = true;
        }
        if (finished) continue;  // admit what those freed slots allow before waiting
        if (s.in_flight.empty() && s.queued.empty() && s.delayed.empty()) return;
        auto now = Clock::now();
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(next_wake(s, now) - now).count();
        curl().multi_poll(s.multi, nullptr, 0, static_cast<int>(std::clamp<long long>(ms, 0, 1000)), nullptr);
    }
}

uint64_t HttpFetcher::requests_sent() const { return state_->requests; }
uint64_t HttpFetcher::bytes_received() const { return state_->bytes; }

std::vector<BudgetState> HttpFetcher::budgets() const { return state_->budgets.states(Clock::now()); }

}  // namespace modelcat::io
