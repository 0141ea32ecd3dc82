// `modelcat report --html FILE`: the catalogue, opened read-only, as one
// self-contained HTML page (src/report/).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "catalog/errors.hpp"
#include "catalog/reader.hpp"
#include "cli/command.hpp"
#include "cli/stop.hpp"
#include "report/html_report.hpp"

namespace modelcat::cli {

namespace {

struct ReportArgs {
    std::string html;
    catalog::ReportSelection selection{std::nullopt, {}, report::kHtmlReportMaxModels};
    std::chrono::milliseconds statement_time{};
};

// 2 with a message on stderr, and no page, when there is no catalogue or the selection is empty
// (an unknown --model, a --pattern matching no name) or too large.
int run_report(const std::string& db_path, const std::string& out_path, const ReportArgs& args) {
    const catalog::ReportSelection& selection = args.selection;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(db_path, ec)) {
        std::cerr << "modelcat report: no catalogue at " << db_path << " (run modelcat crawl first)\n";
        return 2;
    }
    catalog::Reader reader = catalog::Reader::open(db_path, args.statement_time);  // a reading command never writes
    catalog::ReportData data;
    try {
        data = reader.load_report_data(selection);
    } catch (const std::runtime_error& e) {  // an unknown --model, a --pattern matching nothing, a selection over the cap
        if (catalog::is_database_error(e)) throw;  // main reports it with the database's name
        std::cerr << "modelcat report: " << e.what() << "\n";
        return 2;
    }
    const bool to_stdout = out_path == "-";  // a pipe, or a web server's CGI
    std::ofstream file;
    if (!to_stdout && (file.open(out_path, std::ios::binary | std::ios::trunc), !file)) {
        std::cerr << "modelcat report: cannot write " << out_path << "\n";
        return 2;
    }
    std::ostream& out = to_stdout ? std::cout : file;
    std::filesystem::path where = std::filesystem::absolute(db_path, ec).lexically_normal();  // the page names its catalogue
    report::write_html_report(out, data, "modelcat: " + std::filesystem::path(db_path).filename().string(),
                              where.empty() ? db_path : where.string());
    if (to_stdout) std::cout.flush();
    else file.close();
    if (!out) {
        std::cerr << "modelcat report: writing " << (to_stdout ? "to stdout" : out_path) << " failed\n";
        return 2;
    }
    if (!to_stdout)
        std::cerr << "wrote " << out_path << ": " << data.models.size() << " models, " << std::filesystem::file_size(out_path, ec)
                  << " bytes\n";
    return 0;
}

}  // namespace

Command report_command(CLI::App& app, std::string& db) {
    auto r = std::make_shared<ReportArgs>();
    auto* cmd = app.add_subcommand("report", "write a self-contained HTML report of the catalogue");
    cmd->add_option("--html", r->html, "output file, '-' for stdout (one page: quant table, policy maps, scatters)")->required();
    cmd->add_option("--db", db, "catalogue database (opened read-only)");
    cmd->add_option("--pattern", r->selection.pattern, "models whose name is LIKE this (no %: contains it)");
    cmd->add_option("--model", r->selection.refs, "a model_id, name or location (repeatable, one each)")->allow_extra_args(false);
    add_query_timeout(cmd, r->statement_time);
    return {cmd, [r, &db] { return run_report(db, r->html, *r); }};
}

}  // namespace modelcat::cli
