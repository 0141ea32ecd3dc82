// `modelcat crawl`: read the headers of files, folders, lists, URLs, hf://,
// ollama:// and stores into the catalogue.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "catalog/crawl_lock.hpp"
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
constexpr int kExitHeldBack = 3;      // a folder looked unmounted or lost too many files: nothing of it marked gone

struct CrawlFlags {
    std::vector<std::string> inputs, lists;
    bool quiet = false, verbose = false, force = false, dry_run = false, json_summary = false;
    unsigned jobs = crawl::CrawlOptions{}.jobs;
    model::Limits limits;
    AccessFlags access;
    std::string deadline, max_gone;
    bool allow_gone = false, no_wait = false, full_listing = false;
};

// "25" files or "10%" of a folder's catalogued files; nullopt when it is neither.
std::optional<crawl::GoneGuard> parse_gone_guard(const std::string& text, bool allow) {
    crawl::GoneGuard g;
    g.allow = allow;
    if (text.empty()) return g;
    bool percent = text.back() == '%';
    std::string digits = percent ? text.substr(0, text.size() - 1) : text;
    if (digits.empty() || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    uint64_t n = std::stoull(digits);
    if (percent && n > 100) return std::nullopt;
    if (percent) g.fraction = static_cast<double>(n) / 100;
    else g.files = n;
    return g;
}

// The inputs named on the command line, then those of each --list file ('-': stdin).
std::optional<std::vector<std::string>> all_inputs(const CrawlFlags& flags) {
    std::vector<std::string> inputs = flags.inputs;
    for (const auto& l : flags.lists) {
        locate::InputList more = l == "-" ? locate::read_input_list(std::cin, "-") : locate::read_input_list_file(l);
        if (more.problem) {
            std::cerr << "modelcat crawl: --list " << terminal_safe(more.problem->describe()) << "\n";
            return std::nullopt;
        }
        inputs.insert(inputs.end(), more.inputs.begin(), more.inputs.end());
    }
    return inputs;
}

// What a crawl would do: new, changed and failed models (unchanged with -v) and the files it
// would mark gone, one tab-separated line each on stdout, then the counts on stderr.
int print_dry_run(catalog::Writer& cat, const std::vector<std::string>& inputs, const CrawlFlags& flags, const Settings& settings,
                  const crawl::GoneGuard& guard) {
    const crawl::DryRun plan = crawl::dry_run(cat, inputs, flags.force, settings.stores, guard);
    for (const auto& held : plan.held_back) std::cerr << "modelcat crawl: " << terminal_safe(held) << "\n";
    if (flags.json_summary) std::cout << dry_run_json(plan) << "\n";
    std::map<crawl::ModelStatus, uint64_t> count;
    for (const auto& m : plan.models) {
        ++count[m.expected];
        if (flags.quiet || flags.json_summary || (m.expected == crawl::ModelStatus::unchanged && !flags.verbose)) continue;
        std::cout << crawl::status_name(m.expected) << "\t" << terminal_line(m.name);
        for (const auto& f : m.files) std::cout << "\t" << terminal_line(f);
        if (!m.message.empty()) std::cout << "\t" << terminal_line(m.message);
        std::cout << "\n";
    }
    if (!flags.quiet && !flags.json_summary)
        for (const auto& g : plan.gone) std::cout << "gone\t" << terminal_line(g) << "\n";
    using S = crawl::ModelStatus;
    if (!flags.quiet)
        std::cerr << "dry run: " << count[S::new_] << " new, " << count[S::changed] << " changed, " << count[S::unchanged]
                  << " unchanged, " << count[S::failed] << " failed (models); " << plan.gone.size()
                  << " files gone; nothing read or written\n";
    return kExitOk;
}

// The crawl's new, changed and gone models for --json-summary, from its events.
SummaryLists summary_lists(catalog::Writer& cat, int64_t crawl_id) {
    catalog::Reader reader = cat.reader();
    return {reader.crawl_events(crawl_id, "new", kListed), reader.crawl_events(crawl_id, "changed", kListed),
            reader.crawl_events(crawl_id, "gone", kListed)};
}

// One crawl writes a catalogue at a time: a second waits for the first, saying for whom, or refuses (--no-wait).
bool lock_catalogue(catalog::CrawlLock& lock, const std::string& db_path, bool wait) {
    if (lock.try_acquire()) return true;
    std::cerr << "modelcat crawl: another crawl is writing " << terminal_safe(db_path) << " (" << terminal_safe(lock.holder()) << "); "
              << (wait ? "waiting for it to finish" : "not waiting (--no-wait)") << "\n";
    if (!wait) return false;
    lock.acquire();
    return true;
}

int run_crawl(const Settings& settings, const std::string& db_path, CrawlFlags flags) {
    std::optional<std::vector<std::string>> inputs = all_inputs(flags);
    if (!inputs) return kExitUsage;
    if (inputs->empty()) {
        std::cerr << "modelcat crawl: no inputs (give files, directories or --list FILE)\n";
        return kExitUsage;
    }
    std::optional<crawl::GoneGuard> gone = parse_gone_guard(flags.max_gone, flags.allow_gone);
    if (!gone) {
        std::cerr << "modelcat crawl: --max-gone " << terminal_safe(flags.max_gone) << ": expected a count such as 25 or a share such as 10%\n";
        return kExitUsage;
    }
    if (flags.dry_run) {  // no lock, no catalogue created, nothing written
        catalog::Writer plan_against = catalog::Writer::for_dry_run(db_path);
        return print_dry_run(plan_against, *inputs, flags, settings, *gone);
    }
    std::optional<catalog::CrawlLock> lock;
    if (!lock_catalogue(lock.emplace(db_path), db_path, !flags.no_wait)) return kExitUsage;
    catalog::Writer cat = catalog::Writer::open_for_writing(db_path);
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
    options.gone = *gone;
    options.full_listing = flags.full_listing;
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
    for (const auto& held : rep.held_back) std::cerr << "modelcat crawl: " << terminal_safe(held) << "\n";
    if (flags.json_summary) {
        const SummaryLists lists = summary_lists(cat, rep.crawl_id);
        display.finish(rep, &lists);
    } else {
        display.finish(rep, nullptr);
    }
    if (int sig = stop_signal()) return kExitSignalBase + sig;
    const catalog::CrawlTotals& t = rep.totals;
    if (t.files_ok() + t.files_unchanged + t.files_failed + t.files_gone == 0 && rep.held_back.empty())
        std::cerr << "modelcat crawl: no model found in the inputs (*.gguf, *.safetensors, checkpoints, stores)\n";
    if (rep.inputs_missing) return kExitUsage;
    if (!rep.held_back.empty()) return kExitHeldBack;
    return t.files_failed ? kExitSomeFailed : kExitOk;
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
    cmd->add_option("--list", f->lists, "file with one input per line ('-' = stdin); repeatable, one file each")
        ->allow_extra_args(false);  // `--list a.txt mirror/`: mirror/ stays an input
    cmd->add_flag("-q,--quiet", f->quiet, "print only problems: failures, held-back folders and then the summary; nothing on success");
    cmd->add_flag("--force", f->force, "re-read files whose size, mtime and inode are unchanged");
    cmd->add_flag("--dry-run", f->dry_run,
                  "list what a crawl would read (new, changed) and mark gone, with counts; read no header, write nothing");
    cmd->add_flag("-v,--verbose", f->verbose, "with --dry-run: list unchanged models too");
    cmd->add_flag("--json-summary", f->json_summary,
                  "print one JSON object at the end: the totals and the new, changed, gone and failed (first 1,000 of each)");
    cmd->add_option("-j,--jobs", f->jobs,
                    "models in flight: remote transfers, and local reads on one thread per core, at most 8 (default " + std::to_string(f->jobs) + ")")
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
    cmd->add_flag("--no-wait", f->no_wait, "exit 2 at once when another crawl is writing the catalogue (default: wait for it)");
    cmd->add_flag("--allow-gone", f->allow_gone, "mark vanished files gone even when a whole folder looks unmounted or emptied");
    cmd->add_option("--max-gone", f->max_gone,
                    "N files or P% of a folder's catalogued files that may vanish in one crawl; past it none is marked gone, exit 3"
                    " (default 10%)");
    cmd->add_flag("--full-listing", f->full_listing,
                  "hf://AUTHOR/* and hf-search: inputs: read every page of the models API, not only down to what is unchanged"
                  " (notices deleted repositories; done anyway a week after the last)");
    add_token_file_option(cmd, f->access);
    cmd->add_option("inputs", f->inputs,
                    "files, directories, http(s):// URLs, hf://owner/repo[@rev][/glob], hf://AUTHOR/*[/glob],"
                    " hf-search:?filter=gguf&search=...");
    return {cmd, [f, &settings, &db] { return run_crawl(settings, db, *f); }};
}

}  // namespace modelcat::cli
