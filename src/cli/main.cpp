// modelcat: catalogue GGUF and safetensors headers into SQLite.
// The commands only parse options and print; the work is in crawl/ and below.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "catalog/embedded_sql.hpp"
#include "catalog/errors.hpp"
#include "catalog/query.hpp"
#include "catalog/writer.hpp"
#include "cli/audit_command.hpp"
#include "cli/html_report.hpp"
#include "cli/printer.hpp"
#include "cli/progress.hpp"
#include "cli/settings.hpp"
#include "cli/show.hpp"
#include "cli/stop.hpp"
#include "cli/terminal.hpp"
#include "crawl/crawler.hpp"
#include "io/io_error.hpp"
#include "io/local_reader.hpp"
#include "io/sync_file.hpp"
#include "locate/local_inputs.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

using namespace modelcat;

namespace {

constexpr int kExitOk = 0, kExitSomeFailed = 1, kExitUsage = 2;
constexpr int kExitSignalBase = 128;  // the shell's convention: 130 after SIGINT, 143 after SIGTERM

struct CrawlFlags {
    std::vector<std::string> lists;
    bool quiet = false, force = false, dry_run = false, json_summary = false;
    unsigned jobs = 16;
    model::Limits limits;
    cli::AccessFlags access;
    std::string deadline;
};

int run_crawl_command(const cli::Settings& settings, const std::string& db_path, std::vector<std::string> inputs,
                      CrawlFlags flags) {
    for (const auto& l : flags.lists) {
        std::vector<std::string> more;
        if (l == "-") {
            more = locate::read_input_list(std::cin);
        } else {
            std::ifstream in(l);
            if (!in) {
                std::cerr << "modelcat: cannot read list file " << cli::terminal_safe(l) << "\n";
                return kExitUsage;
            }
            more = locate::read_input_list(in);
        }
        inputs.insert(inputs.end(), more.begin(), more.end());
    }
    if (inputs.empty()) {
        std::cerr << "modelcat crawl: no inputs (give files, directories or --list FILE)\n";
        return kExitUsage;
    }
    catalog::Writer cat = catalog::Writer::open_for_writing(db_path);
    if (flags.dry_run) {
        for (const auto& m : crawl::dry_run(cat, inputs, flags.force, settings.stores)) {
            std::cout << crawl::status_name(m.expected) << "\t" << cli::terminal_safe(m.name);
            for (const auto& f : m.files) std::cout << "\t" << cli::terminal_safe(f);
            if (!m.message.empty()) std::cout << "\t" << cli::terminal_safe(m.message);
            std::cout << "\n";
        }
        return kExitOk;
    }
    std::optional<double> deadline_s;
    if (!flags.deadline.empty() && !(deadline_s = cli::parse_duration(flags.deadline))) {
        std::cerr << "modelcat crawl: --deadline " << flags.deadline << ": expected a duration such as 90s, 45m, 8h or 1h30m\n";
        return kExitUsage;
    }
    cli::CrawlDisplay display(flags.quiet, ::isatty(STDERR_FILENO) != 0);
    crawl::CrawlOptions options;
    options.force = flags.force;
    options.limits = flags.limits;
    options.jobs = flags.jobs;
    flags.access.in_flight = flags.jobs;
    options.access = cli::http_access(settings, flags.access);
    options.stores = settings.stores;
    options.on_model = [&](const crawl::ModelOutcome& o) { display.model_done(o); };
    options.on_progress = [&](const crawl::CrawlProgress& p) { display.progress(p); };
    options.access.http.on_budget_wait = [&](const std::string& host, const std::string& budget, double s) {
        display.budget_wait(host, budget, s);
    };
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s.value_or(0));
    options.should_stop = [&] { return cli::stop_signal() != 0 || (deadline_s && std::chrono::steady_clock::now() >= until); };
    cli::install_stop_handlers();
    crawl::CrawlReport rep = crawl::run_crawl(cat, inputs, options);
    display.finish(rep, flags.json_summary);
    if (int sig = cli::stop_signal()) return kExitSignalBase + sig;
    return rep.totals.files_failed ? kExitSomeFailed : kExitOk;
}

int run_query_command(const std::string& db_path, const std::string& name, const std::vector<std::string>& param_args,
                      const std::string& fmt) {
    cli::OutputFormat of = cli::parse_output_format(fmt);
    std::string sql;
    if (auto q = catalog::bundled_query(name)) {
        sql = *q;
    } else if (std::ifstream in(name); in && name.ends_with(".sql")) {
        std::stringstream ss;
        ss << in.rdbuf();
        sql = ss.str();
    } else {
        std::cerr << "modelcat query: no report named '" << cli::terminal_safe(name) << "' (see `modelcat query --list`)\n";
        return kExitUsage;
    }
    std::map<std::string, std::string> params;
    for (const auto& p : param_args) {
        auto eq = p.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::cerr << "modelcat query: --param takes key=value, got '" << cli::terminal_safe(p) << "'\n";
            return kExitUsage;
        }
        params[p.substr(0, eq)] = p.substr(eq + 1);
    }
    catalog::Reader reader = catalog::Reader::open(db_path);
    params = reader.resolve_report_params(name, sql, std::move(params));
    cli::print_result(std::cout, reader.run_query(sql, params), of);
    return kExitOk;
}

// Two catalogued models (id, name or location), or two files read into a
// throwaway in-memory catalogue when both arguments are paths.
int run_diff_command(const std::string& db_path, const std::string& a, const std::string& b, const std::string& fmt) {
    cli::OutputFormat of = cli::parse_output_format(fmt);
    std::error_code ec;
    bool paths = std::filesystem::is_regular_file(a, ec) && std::filesystem::is_regular_file(b, ec);
    std::optional<catalog::Writer> scratch;
    if (paths) scratch.emplace(":memory:");
    catalog::Reader reader = paths ? scratch->reader() : catalog::Reader::open(db_path);
    std::string ref_a = a, ref_b = b;
    if (paths) {
        crawl::CrawlReport rep = crawl::run_crawl(*scratch, {a, b}, {});
        for (const auto& f : rep.failures) std::cerr << "error: " << cli::terminal_safe(f.failure->describe()) << "\n";
        if (!rep.failures.empty()) return kExitSomeFailed;
        ref_a = locate::expand_inputs({a}).files.front();
        ref_b = locate::expand_inputs({b}).files.front();
    }
    const std::string sql = *catalog::bundled_query("diff");
    auto params = reader.resolve_report_params("diff", sql, {{"a", ref_a}, {"b", ref_b}});
    cli::print_result(std::cout, reader.run_query(sql, params), of);
    return kExitOk;
}

// Brings an existing catalogue to this build's schema; the crawl does the same on its own.
int run_migrate_command(const std::string& db_path) {
    const int before = catalog::catalogue_version(db_path);
    catalog::Writer cat = catalog::Writer::open_for_writing(db_path);
    const int64_t reread = cat.files_to_reread();
    std::cout << db_path << ": schema version " << before << " -> " << catalog::schema_version();
    if (before == catalog::schema_version()) std::cout << " (already current)";
    std::cout << "; " << reread << " files to re-read on the next crawl\n";
    return kExitOk;
}

struct QueryArgs {
    std::string name, format = "table";
    std::vector<std::string> params;
    bool list = false;
};

struct ShowArgs {
    std::string path;
    bool all = false;
};

struct DiffArgs {
    std::string a, b, format = "table";
};

// 1,048,576: a count for a help line.
std::string with_commas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) out += (i && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
    return out;
}

// 256 MiB: a whole number of MiB (or of bytes) for a help line.
std::string mib(uint64_t bytes) { return bytes % (1 << 20) ? with_commas(bytes) + " bytes" : with_commas(bytes >> 20) + " MiB"; }

// The defaults shown are model::Limits' own.
void add_crawl_limits(CLI::App* cmd, model::Limits& lim) {
    const model::Limits d;
    cmd->add_option("--max-header-bytes", lim.max_header_bytes, "refuse headers larger than this (default " + mib(d.max_header_bytes) + ")");
    cmd->add_option("--max-metadata-entries", lim.max_metadata_entries,
                    "refuse more metadata entries (default " + with_commas(d.max_metadata_entries) + ")");
    cmd->add_option("--max-array-length", lim.max_array_length, "refuse longer metadata arrays (default " + with_commas(d.max_array_length) + ")");
    cmd->add_option("--max-tensors", lim.max_tensors, "refuse files with more tensors (default " + with_commas(d.max_tensors) + ")");
    cmd->add_option("--max-nesting", lim.max_nesting, "refuse arrays nested deeper (default " + with_commas(d.max_nesting) + ")");
}

CLI::App* add_crawl(CLI::App& app, std::string& db, std::vector<std::string>& inputs, CrawlFlags& f) {
    auto* cmd = app.add_subcommand("crawl", "read headers of files, directories and lists into the catalogue");
    cmd->add_option("--db", db, "catalogue database (default $MODELCAT_DB or catalog.db)");
    cmd->add_option("--list", f.lists, "file with one input per line ('-' = stdin)");
    cmd->add_flag("-q,--quiet", f.quiet, "print only failures and the summary");
    cmd->add_flag("--force", f.force, "re-read files whose size, mtime and inode are unchanged");
    cmd->add_flag("--dry-run", f.dry_run, "list what would be read (new, changed, unchanged) and stop");
    cmd->add_flag("--json-summary", f.json_summary, "print one JSON object with the totals at the end");
    cmd->add_option("-j,--jobs", f.jobs, "models in flight: remote transfers, and local reads on up to 8 threads (default 16)")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--per-host", f.access.per_host, "remote transfers in flight per host (default 6)")->check(CLI::Range(1, 256));
    cmd->add_option("--max-requests-per-minute", f.access.max_requests_per_minute,
                    "space requests out (the Hub allows 3,000 per 5 minutes anonymously)");
    cli::add_hf_endpoint_option(cmd, f.access);
    add_crawl_limits(cmd, f.limits);
    cmd->add_option("--deadline", f.deadline,
                    "start no model after this long (90s, 45m, 8h); those in flight finish, the next crawl resumes");
    cli::add_token_file_option(cmd, f.access);
    cmd->add_option("inputs", inputs, "files, directories, http(s):// URLs, hf://owner/repo[@rev][/glob]");
    return cmd;
}

CLI::App* add_query(CLI::App& app, std::string& db, QueryArgs& q) {
    auto* cmd = app.add_subcommand("query", "run a report from queries/ (or a .sql file) against the catalogue");
    cmd->add_option("--db", db, "catalogue database");
    cmd->add_option("name", q.name, "report name or path of a .sql file");
    cmd->add_option("-p,--param", q.params, "parameter key=value (bound to :key)");
    cmd->add_option("-f,--format", q.format, "table, csv, json or markdown");
    cmd->add_flag("--list", q.list, "list the bundled reports");
    return cmd;
}

CLI::App* add_show(CLI::App& app, ShowArgs& s) {
    auto* cmd = app.add_subcommand("show", "print one file's header (no database)");
    cmd->add_option("file", s.path, "a GGUF or safetensors file")->required();
    cmd->add_flag("--all", s.all, "list every tensor");
    return cmd;
}

CLI::App* add_diff(CLI::App& app, std::string& db, DiffArgs& d) {
    auto* cmd = app.add_subcommand("diff", "tensors whose type, shape or size differ between two models or two files");
    cmd->add_option("--db", db, "catalogue database (unused when both arguments are files)");
    cmd->add_option("a", d.a, "model_id, name, location, or a file")->required();
    cmd->add_option("b", d.b, "model_id, name, location, or a file")->required();
    cmd->add_option("-f,--format", d.format, "table, csv, json or markdown");
    return cmd;
}

CLI::App* add_report(CLI::App& app, std::string& db, std::string& html, catalog::ReportSelection& sel) {
    auto* cmd = app.add_subcommand("report", "write a self-contained HTML report of the catalogue");
    cmd->add_option("--html", html, "output file (one page: quant table, policy maps, scatters)")->required();
    cmd->add_option("--db", db, "catalogue database (opened read-only)");
    cmd->add_option("--pattern", sel.pattern, "models whose name is LIKE this");
    cmd->add_option("--model", sel.refs, "a model_id, name or location (repeatable)");
    return cmd;
}

CLI::App* add_audit(CLI::App& app, std::string& db, cli::AuditFlags& a) {
    auto* cmd = app.add_subcommand("audit", "prove that a GGUF holds its source checkpoint's values, and record it");
    cmd->add_option("--db", db, "catalogue database the audit is recorded in");
    cmd->add_option("gguf", a.gguf, "the converted .gguf")->required();
    cmd->add_option("source", a.source, "checkpoint folder, its model.safetensors.index.json, or a .safetensors")->required();
    cmd->add_option("--sample-rows", a.sample_rows, "compare N rows per tensor at deterministic positions (default: all)");
    cmd->add_option("-j,--jobs", a.jobs, "tensors compared at once (default 2)")->check(CLI::Range(1, 64));
    cli::add_hf_endpoint_option(cmd, a.access);
    cli::add_token_file_option(cmd, a.access);
    return cmd;
}

CLI::App* add_migrate(CLI::App& app, std::string& db) {
    auto* cmd = app.add_subcommand("migrate", "upgrade an existing catalogue to this modelcat's schema (crawl does it too)");
    cmd->add_option("--db", db, "catalogue database");
    return cmd;
}

int run_query_or_list(const std::string& db, const QueryArgs& q) {
    if (q.list) {
        for (const auto& r : catalog::bundled_queries())
            std::cout << r.name << "\t" << catalog::query_summary(std::string(r.sql)) << "\n";
        return kExitOk;
    }
    if (q.name.empty()) {
        std::cerr << "modelcat query: name a report (see `modelcat query --list`)\n";
        return kExitUsage;
    }
    return run_query_command(db, q.name, q.params, q.format);
}

int run_show_command(const ShowArgs& s) {
    try {
        io::LocalReader inline_reads(0);
        io::SyncFile file(inline_reads, io::RangeRequest{s.path});
        const model::FileHeader header = io::read_header(file, {});
        cli::print_header(std::cout, s.path, header, file.bytes_read(), file.requests(), s.all);
    } catch (const model::FormatError& e) {
        std::cerr << "error: " << cli::terminal_safe(e.failure(s.path).describe())
                  << "\n";
        return kExitSomeFailed;
    } catch (const io::IoError& e) {
        std::cerr << "error: " << cli::terminal_safe(e.what()) << "\n";
        return kExitSomeFailed;
    }
    return kExitOk;
}

int run_schema_command() {
    for (const auto& m : catalog::schema_migrations()) std::cout << "-- schema/" << m.name << ".sql\n" << m.sql << "\n";
    return kExitOk;
}

// A database error names the database; anything else is a usage or I/O problem. Both exit 2.
int run_guarded(const std::string& db, const std::function<int()>& command) {
    try {
        return command();
    } catch (const std::exception& e) {
        std::cerr << "modelcat: " << cli::terminal_safe(catalog::database_error_message(e, db).value_or(e.what())) << "\n";
    }
    return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"modelcat: catalogue GGUF and safetensors headers into SQLite"};
    app.require_subcommand(1);
    const cli::Settings settings = cli::Settings::from_environment();
    std::string db = settings.db, report_html;
    std::vector<std::string> inputs;
    CrawlFlags crawl_flags;
    QueryArgs query;
    ShowArgs show;
    DiffArgs diff;
    catalog::ReportSelection report_sel{std::nullopt, {}, cli::kHtmlReportMaxModels};
    cli::AuditFlags audit_flags;
    const std::vector<std::pair<CLI::App*, std::function<int()>>> commands = {
        {add_crawl(app, db, inputs, crawl_flags), [&] { return run_crawl_command(settings, db, inputs, crawl_flags); }},
        {add_query(app, db, query), [&] { return run_query_or_list(db, query); }},
        {add_show(app, show), [&] { return run_show_command(show); }},
        {add_diff(app, db, diff), [&] { return run_diff_command(db, diff.a, diff.b, diff.format); }},
        {add_report(app, db, report_html, report_sel), [&] { return cli::run_html_report(db, report_html, report_sel); }},
        {add_audit(app, db, audit_flags), [&] { return cli::run_audit_command(settings, db, audit_flags); }},
        {app.add_subcommand("schema", "print the SQL that creates the catalogue"), [] { return run_schema_command(); }},
        {add_migrate(app, db), [&] { return run_migrate_command(db); }},
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? kExitOk : kExitUsage;
    }
    for (const auto& [cmd, run] : commands)
        if (*cmd) return run_guarded(db, run);
    return kExitUsage;
}
