// `modelcat diff A B`: tensors whose type, shape or size differ between two
// catalogued models (id, name or location), or two files read into a throwaway
// in-memory catalogue when both arguments are paths. Exit 0 identical, 1 different, 2 errors.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "catalog/query.hpp"
#include "catalog/writer.hpp"
#include "cli/command.hpp"
#include "cli/printer.hpp"
#include "cli/terminal.hpp"
#include "crawl/crawler.hpp"
#include "locate/local_inputs.hpp"

namespace modelcat::cli {

namespace {

constexpr int kExitDiffer = 1;  // as diff(1): 0 the same, 1 different, 2 trouble

struct DiffArgs {
    std::string a, b, format = "table";
};

int run_diff(const std::string& db_path, const std::string& a, const std::string& b, const std::string& fmt) {
    OutputFormat of = parse_output_format(fmt);
    std::error_code ec;
    bool paths = std::filesystem::is_regular_file(a, ec) && std::filesystem::is_regular_file(b, ec);
    std::optional<catalog::Writer> scratch;
    if (paths) scratch.emplace(":memory:");
    catalog::Reader reader = paths ? scratch->reader() : catalog::Reader::open(db_path);
    std::string ref_a = a, ref_b = b;
    if (paths) {
        crawl::CrawlReport rep = crawl::run_crawl(*scratch, {a, b}, {});
        for (const auto& f : rep.failures) std::cerr << "error: " << terminal_safe(f.failure->describe()) << "\n";
        if (!rep.failures.empty()) return kExitUsage;
        ref_a = locate::expand_inputs({a}).files.front();
        ref_b = locate::expand_inputs({b}).files.front();
    }
    const std::string sql = *catalog::bundled_query("diff");
    auto params = reader.resolve_report_params("diff", sql, {{"a", ref_a}, {"b", ref_b}});
    catalog::QueryResult differences = reader.run_query(sql, params);
    print_result(std::cout, differences, of);
    if (!differences.rows.empty()) return kExitDiffer;
    std::cerr << "identical: no tensor differs in type, shape or size\n";
    return kExitOk;
}

}  // namespace

Command diff_command(CLI::App& app, std::string& db) {
    auto d = std::make_shared<DiffArgs>();
    auto* cmd = app.add_subcommand("diff", "tensors whose type, shape or size differ between two models or two files");
    cmd->add_option("--db", db, "catalogue database (unused when both arguments are files)");
    cmd->add_option("a", d->a, "model_id, name, location, or a file")->required();
    cmd->add_option("b", d->b, "model_id, name, location, or a file")->required();
    cmd->add_option("-f,--format", d->format, "table, csv, json or markdown");
    return {cmd, [d, &db] { return run_diff(db, d->a, d->b, d->format); }};
}

}  // namespace modelcat::cli
