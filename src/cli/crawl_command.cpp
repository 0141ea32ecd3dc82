// `modelcat crawl`: read the headers of files, folders, lists, URLs, hf://,
// ollama:// and stores into the catalogue.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "catalog/writer.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "cli/stop.hpp"
#include "cli/terminal.hpp"
#include "crawl/crawler.hpp"
#include "locate/local_inputs.hpp"
#include "model/limits.hpp"

namespace modelcat::cli {

namespace {

constexpr int kExitSignalBase = 128;  // the shell's convention: 130 after SIGINT, 143 after SIGTERM

struct CrawlFlags {
    std::vector<std::string> inputs, lists;
    bool quiet = false, force = false, dry_run = false, json_summary = false;
    unsigned jobs = crawl::CrawlOptions{}.jobs;
    model::Limits limits;
    AccessFlags access;
    std::string deadline;
};

// The inputs named on the command line, then those of each --list file ('-': stdin).
std::optional<std::vector<std::string>> all_inputs(const CrawlFlags& flags) {
    std::vector<std::string> inputs = flags.inputs;
    for (const auto& l : flags.lists) {
        std::vector<std::string> more;
        if (l == "-") {
            more = locate::read_input_list(std::cin);
        } else {
            std::ifstream in(l);
            if (!in) {
                std::cerr << "modelcat: cannot read list file " << terminal_safe(l) << "\n";
                return std::nullopt;
            }
            more = locate::read_input_list(in);
        }
        inputs.insert(inputs.end(), more.begin(), more.end());
    }
    return inputs;
}

int print_dry_run(catalog::Writer& cat, const std::vector<std::string>& inputs, const CrawlFlags& flags, const Settings& settings) {
    for (const auto& m : crawl::dry_run(cat, inputs, flags.force, settings.stores)) {
        std::cout << crawl::status_name(m.expected) << "\t" << terminal_safe(m.name);
        for (const auto& f : m.files) std::cout << "\t" << terminal_safe(f);
        if (!m.message.empty()) std::cout << "\t" << terminal_safe(m.message);
        std::cout << "\n";
    }
    return kExitOk;
}

int run_crawl(const Settings& settings, const std::string& db_path, CrawlFlags flags) {
    std::optional<std::vector<std::string>> inputs = all_inputs(flags);
    if (!inputs) return kExitUsage;
    if (inputs->empty()) {
        std::cerr << "modelcat crawl: no inputs (give files, directories or --list FILE)\n";
        return kExitUsage;
    }
    catalog::Writer cat = catalog::Writer::open_for_writing(db_path);
    if (flags.dry_run) return print_dry_run(cat, *inputs, flags, settings);
    std::optional<double> deadline_s;
    if (!flags.deadline.empty() && !(deadline_s = parse_duration(flags.deadline))) {
        std::cerr << "modelcat crawl: --deadline " << flags.deadline << ": expected a duration such as 90s, 45m, 8h or 1h30m\n";
        return kExitUsage;
    }
    CrawlDisplay display(flags.quiet, ::isatty(STDERR_FILENO) != 0);
    crawl::CrawlOptions options;
    options.force = flags.force;
    options.limits = flags.limits;
    options.jobs = flags.jobs;
    flags.access.in_flight = flags.jobs;
    options.access = http_access(settings, flags.access);
    options.stores = settings.stores;
    options.on_model = [&](const crawl::ModelOutcome& o) { display.model_done(o); };
    options.on_progress = [&](const crawl::CrawlProgress& p) { display.progress(p); };
    options.access.http.on_budget_wait = [&](const std::string& host, const std::string& budget, double s) {
        display.budget_wait(host, budget, s);
    };
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s.value_or(0));
    options.should_stop = [&] { return stop_signal() != 0 || (deadline_s && std::chrono::steady_clock::now() >= until); };
    options.access.http.should_stop = [] { return stop_signal() != 0; };  // a --deadline lets reads in flight finish
    install_stop_handlers();
    crawl::CrawlReport rep = crawl::run_crawl(cat, *inputs, options);
    display.finish(rep, flags.json_summary);
    if (int sig = stop_signal()) return kExitSignalBase + sig;
    return rep.totals.files_failed ? kExitSomeFailed : kExitOk;
}

// 1,048,576: a count for a help line.
std::string with_commas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) out += (i && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
    return out;
}

// 256 MiB: a whole number of MiB (or of bytes) for a help line.
std::string mib(uint64_t bytes) { return bytes % (1 << 20) ? with_commas(bytes) + " bytes" : with_commas(bytes >> 20) + " MiB"; }

// The defaults shown are model::Limits' own.
void add_limits(CLI::App* cmd, model::Limits& lim) {
    const model::Limits d;
    cmd->add_option("--max-header-bytes", lim.max_header_bytes, "refuse headers larger than this (default " + mib(d.max_header_bytes) + ")");
    cmd->add_option("--max-metadata-entries", lim.max_metadata_entries,
                    "refuse more metadata entries (default " + with_commas(d.max_metadata_entries) + ")");
    cmd->add_option("--max-array-length", lim.max_array_length, "refuse longer metadata arrays (default " + with_commas(d.max_array_length) + ")");
    cmd->add_option("--max-tensors", lim.max_tensors, "refuse files with more tensors (default " + with_commas(d.max_tensors) + ")");
    cmd->add_option("--max-nesting", lim.max_nesting, "refuse arrays nested deeper (default " + with_commas(d.max_nesting) + ")");
}

}  // namespace

Command crawl_command(CLI::App& app, const Settings& settings, std::string& db) {
    auto f = std::make_shared<CrawlFlags>();
    auto* cmd = app.add_subcommand("crawl", "read headers of files, directories and lists into the catalogue");
    cmd->add_option("--db", db, "catalogue database (default $MODELCAT_DB or catalog.db)");
    cmd->add_option("--list", f->lists, "file with one input per line ('-' = stdin)");
    cmd->add_flag("-q,--quiet", f->quiet, "print only failures and the summary");
    cmd->add_flag("--force", f->force, "re-read files whose size, mtime and inode are unchanged");
    cmd->add_flag("--dry-run", f->dry_run, "list what would be read (new, changed, unchanged) and stop");
    cmd->add_flag("--json-summary", f->json_summary, "print one JSON object with the totals at the end");
    cmd->add_option("-j,--jobs", f->jobs,
                    "models in flight: remote transfers, and local reads on up to 8 threads (default " + std::to_string(f->jobs) + ")")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--per-host", f->access.per_host, "remote transfers in flight per host (default " + std::to_string(f->access.per_host) + ")")
        ->check(CLI::Range(1, 256));
    cmd->add_option("--patience", f->access.patience_s,
                    "seconds of waits (retries, Retry-After) one remote request may cost (default " +
                        std::to_string(static_cast<int>(f->access.patience_s)) + ")")
        ->check(CLI::Range(0.0, 86400.0));
    cmd->add_option("--max-requests-per-minute", f->access.max_requests_per_minute,
                    "space requests out (the Hub allows 3,000 per 5 minutes anonymously)");
    add_hf_endpoint_option(cmd, f->access);
    add_limits(cmd, f->limits);
    cmd->add_option("--deadline", f->deadline,
                    "start no model after this long (90s, 45m, 8h); those in flight finish, the next crawl resumes");
    add_token_file_option(cmd, f->access);
    cmd->add_option("inputs", f->inputs, "files, directories, http(s):// URLs, hf://owner/repo[@rev][/glob]");
    return {cmd, [f, &settings, &db] { return run_crawl(settings, db, *f); }};
}

}  // namespace modelcat::cli
