#include "cli/progress.hpp"

#include <iostream>
#include <map>
#include <vector>

#include "cli/terminal.hpp"
#include "format/json_text.hpp"

namespace modelcat::cli {

namespace {
std::string human_bytes(double b) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, units[u]);
    return buf;
}
// `"new": ["/m/a.gguf", ...], "new_total": N`; changed entries are objects saying what changed.
void append_list(std::string& j, const std::string& name, const catalog::CrawlEvents& list) {
    j += ", \"" + name + "\": [";
    for (size_t i = 0; i < list.first.size(); ++i) {
        const auto& row = list.first[i];
        if (i) j += ", ";
        if (name != "changed") {
            format::append_json_string(j, row.location);
            continue;
        }
        j += "{\"location\": ";
        format::append_json_string(j, row.location);
        j += ", \"what\": [";
        const std::vector<std::string> what = catalog::what_changed(row.before, row.after);
        for (size_t w = 0; w < what.size(); ++w) j += (w ? ", \"" : "\"") + what[w] + "\"";
        j += "]}";
    }
    j += "], \"" + name + "_total\": " + std::to_string(list.total);
}

}  // namespace

void CrawlDisplay::clear_line() {
    if (line_shown_) std::fputs("\r\033[K", stderr);
    line_shown_ = false;
}

void CrawlDisplay::model_done(const crawl::ModelOutcome& o) {
    clear_line();
    if (o.status == crawl::ModelStatus::failed) {
        std::cerr << "error: " << terminal_safe(o.failure->describe()) << "\n";
    } else if (!quiet_ && !interactive_) {
        std::cerr << crawl::status_name(o.status) << ": " << terminal_safe(o.location);
        if (o.status != crawl::ModelStatus::unchanged)
            std::cerr << " (" << (o.files > 1 ? std::to_string(o.files) + " files, " : "") << o.tensors << " tensors, "
                      << o.bytes_read << " bytes read" << (o.warnings ? ", " + std::to_string(o.warnings) + " warnings" : "")
                      << ")";
        std::cerr << "\n";
    }
}

void CrawlDisplay::progress(const crawl::CrawlProgress& p) {
    if (!interactive_ || quiet_) return;
    const auto& t = *p.totals;
    double rate = p.seconds > 0 ? t.bytes_read / p.seconds : 0;
    double eta = p.done ? p.seconds / p.done * (p.total - p.done) : 0;
    std::fprintf(stderr,
                 "\r\033[K[%llu/%llu models] %s read in %llu requests (%llu api, %llu resolver, %llu storage), %llu errors, "
                 "%s/s, ETA %.0f s",
                 (unsigned long long)p.done, (unsigned long long)p.total, human_bytes(t.bytes_read).c_str(),
                 (unsigned long long)t.requests, (unsigned long long)t.api_calls, (unsigned long long)t.resolver_calls,
                 (unsigned long long)t.storage_reads, (unsigned long long)t.files_failed, human_bytes(rate).c_str(), eta);
    line_shown_ = true;
}

void CrawlDisplay::budget_wait(const std::string& host, const std::string& budget, double seconds) {
    if (quiet_) return;
    clear_line();
    std::fprintf(stderr, "%s: the \"%s\" budget is spent; waiting %.0f s for it to reset\n", terminal_safe(host).c_str(),
                 terminal_safe(budget).c_str(), seconds);
}

void CrawlDisplay::finish(const crawl::CrawlReport& r, const SummaryLists* json) {
    clear_line();
    const auto& t = r.totals;
    const bool all_well = t.files_failed == 0 && !t.interrupted && r.held_back.empty() && r.inputs_missing == 0;
    if (!(quiet_ && all_well))  // --quiet on success: nothing, so cron mails nothing
        std::fprintf(stderr,
                     "crawl %lld: %llu files ok (%llu new, %llu changed), %llu unchanged, %llu gone, %llu failed, "
                     "%llu tensors, %llu bytes read in %llu reads (HTTP: %llu api, %llu resolver, %llu storage), %.2f s%s\n",
                     (long long)r.crawl_id, (unsigned long long)t.files_ok(), (unsigned long long)t.files_new,
                     (unsigned long long)t.files_changed, (unsigned long long)t.files_unchanged, (unsigned long long)t.files_gone,
                     (unsigned long long)t.files_failed, (unsigned long long)t.tensors, (unsigned long long)t.bytes_read,
                     (unsigned long long)t.requests, (unsigned long long)t.api_calls, (unsigned long long)t.resolver_calls,
                     (unsigned long long)t.storage_reads, t.seconds, t.interrupted ? ", interrupted" : "");
    if (!(quiet_ && all_well) && t.model_pages)  // many-repository inputs: what their discovery cost
        std::fprintf(stderr, "hub repos: %llu changed, %llu unchanged, %llu gone; %llu models API pages, %llu repo listings\n",
                     (unsigned long long)t.repos_changed, (unsigned long long)t.repos_unchanged, (unsigned long long)t.repos_gone,
                     (unsigned long long)t.model_pages, (unsigned long long)t.repo_listings);
    if (!json) return;
    std::string j = "{\"crawl_id\": " + std::to_string(r.crawl_id);
    auto field = [&](const char* k, uint64_t v) { j += std::string(", \"") + k + "\": " + std::to_string(v); };
    field("files_ok", t.files_ok());
    field("files_new", t.files_new);
    field("files_changed", t.files_changed);
    field("files_unchanged", t.files_unchanged);
    field("files_gone", t.files_gone);
    field("files_failed", t.files_failed);
    field("tensors", t.tensors);
    field("bytes_read", t.bytes_read);
    field("requests", t.requests);
    field("api_calls", t.api_calls);
    field("resolver_calls", t.resolver_calls);
    field("storage_reads", t.storage_reads);
    field("model_pages", t.model_pages);
    field("repo_listings", t.repo_listings);
    field("repos_changed", t.repos_changed);
    field("repos_unchanged", t.repos_unchanged);
    field("repos_gone", t.repos_gone);
    j += std::string(", \"interrupted\": ") + (t.interrupted ? "true" : "false");
    j += ", \"seconds\": " + format::json_number(t.seconds) + ", \"failures\": [";
    for (size_t i = 0; i < r.failures.size() && i < kListed; ++i) {
        const auto& f = r.failures[i];
        j += i ? ", {\"location\": " : "{\"location\": ";
        format::append_json_string(j, f.location);
        j += ", \"offset\": " + (f.failure->offset ? std::to_string(*f.failure->offset) : std::string("null")) + ", \"message\": ";
        format::append_json_string(j, f.failure->reason());
        j += "}";
    }
    j += "], \"failures_total\": " + std::to_string(r.failures.size());
    append_list(j, "new", json->new_);
    append_list(j, "changed", json->changed);
    append_list(j, "gone", json->gone);
    std::cout << json_terminal_safe(j) << "}\n";
}

std::string dry_run_json(const crawl::DryRun& plan) {
    std::map<crawl::ModelStatus, std::vector<const crawl::DryRunEntry*>> by_status;
    for (const auto& m : plan.models) by_status[m.expected].push_back(&m);
    std::string j = "{\"dry_run\": true";
    for (auto s : {crawl::ModelStatus::new_, crawl::ModelStatus::changed, crawl::ModelStatus::unchanged, crawl::ModelStatus::failed})
        j += std::string(", \"models_") + crawl::status_name(s) + "\": " + std::to_string(by_status[s].size());
    j += ", \"files_gone\": " + std::to_string(plan.gone.size());
    for (auto s : {crawl::ModelStatus::new_, crawl::ModelStatus::changed, crawl::ModelStatus::failed}) {
        const auto& list = by_status[s];
        j += std::string(", \"") + (s == crawl::ModelStatus::failed ? "failures" : crawl::status_name(s)) + "\": [";
        for (size_t i = 0; i < list.size() && i < kListed; ++i) {  // as the crawl's: new a location, the others objects
            if (i) j += ", ";
            if (s != crawl::ModelStatus::new_) j += "{\"location\": ";
            format::append_json_string(j, list[i]->files.front());
            if (s == crawl::ModelStatus::failed) {
                j += ", \"message\": ";
                format::append_json_string(j, list[i]->message);
            }
            if (s != crawl::ModelStatus::new_) j += "}";
        }
        j += std::string("], \"") + (s == crawl::ModelStatus::failed ? "failures" : crawl::status_name(s)) + "_total\": " +
             std::to_string(list.size());
    }
    j += ", \"gone\": [";
    for (size_t i = 0; i < plan.gone.size() && i < kListed; ++i) {
        if (i) j += ", ";
        format::append_json_string(j, plan.gone[i]);
    }
    j += "], \"gone_total\": " + std::to_string(plan.gone.size()) + "}";
    return json_terminal_safe(j);
}

}  // namespace modelcat::cli
