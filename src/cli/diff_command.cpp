// `modelcat diff A B`: tensors whose type, shape or size differ between two
// catalogued models (id, name or location), or two files read into a throwaway
// in-memory catalogue when both arguments are paths; with --metadata, metadata keys
// added, removed or changed too. Exit 0 identical, 1 different, 2 errors.
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
    std::string a, b, format;
    bool metadata = false;
};

// The tensor differences, then (with --metadata) the metadata ones: in json one object
// {"tensors": [...], "metadata": [...]}; otherwise each table that has rows (the empty tensor
// table when neither has), a blank line between.
void print_differences(const catalog::QueryResult& tensors, const catalog::QueryResult* metadata, OutputFormat of) {
    const TableShape shape{.picked = {}, .preferred = {}, .width = terminal_width(), .wide = false};
    if (!metadata) return print_result(std::cout, tensors, of, shape);
    if (of == OutputFormat::json) {
        std::cout << "{\"tensors\": ";
        print_result(std::cout, tensors, of, shape);
        std::cout << ", \"metadata\": ";
        print_result(std::cout, *metadata, of, shape);
        std::cout << "}\n";
        return;
    }
    if (!tensors.rows.empty() || metadata->rows.empty()) print_result(std::cout, tensors, of, shape);
    if (!tensors.rows.empty() && !metadata->rows.empty()) std::cout << "\n";
    if (!metadata->rows.empty()) print_result(std::cout, *metadata, of, shape);
}

int run_diff(const std::string& db_path, const DiffArgs& d) {
    const std::string &a = d.a, &b = d.b;
    OutputFormat of = parse_output_format(d.format);
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
    auto differences = [&](const std::string& report) {
        const std::string sql = *catalog::bundled_query(report);
        return reader.run_query(sql, reader.resolve_report_params(report, sql, {{"a", ref_a}, {"b", ref_b}}));
    };
    const catalog::QueryResult tensors = differences("diff");
    std::optional<catalog::QueryResult> metadata;
    if (d.metadata) metadata = differences("diff_metadata");
    print_differences(tensors, metadata ? &*metadata : nullptr, of);
    if (!tensors.rows.empty() || (metadata && !metadata->rows.empty())) return kExitDiffer;
    std::cerr << (metadata ? "identical: no tensor differs in type, shape or size, no metadata key in type or value\n"
                           : "identical: no tensor differs in type, shape or size\n");
    return kExitOk;
}

}  // namespace

Command diff_command(CLI::App& app, std::string& db) {
    auto d = std::make_shared<DiffArgs>();
    auto* cmd = app.add_subcommand("diff", "tensors whose type, shape or size differ between two models or two files");
    cmd->add_option("--db", db, "catalogue database (unused when both arguments are files)");
    cmd->add_option("a", d->a, "model_id, name, location, or a file")->required();
    cmd->add_option("b", d->b, "model_id, name, location, or a file")->required();
    cmd->add_option("-f,--format", d->format, "table (the default on a terminal), plain (otherwise), csv, csv-raw, json or markdown");
    cmd->add_flag("--metadata", d->metadata, "compare metadata keys too: added, removed, changed");
    return {cmd, [d, &db] { return run_diff(db, *d); }};
}

}  // namespace modelcat::cli
