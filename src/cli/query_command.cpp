// `modelcat query`: a report from queries/ (or a .sql file) against the
// catalogue, opened read-only; `--list` names the bundled reports.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>

#include "catalog/embedded_sql.hpp"
#include "catalog/query.hpp"
#include "catalog/reader.hpp"
#include "catalog/report_params.hpp"
#include "cli/command.hpp"
#include "cli/printer.hpp"
#include "cli/stop.hpp"
#include "cli/terminal.hpp"
#include "io/file_stat.hpp"
#include "io/sync_file.hpp"
#include "model/limits.hpp"

namespace modelcat::cli {

namespace {

struct QueryArgs {
    std::string name, format;
    std::vector<std::string> params, columns;
    size_t limit = 0;
    bool list = false, wide = false;
    std::chrono::milliseconds statement_time{};
};

int run_report(const std::string& db_path, const QueryArgs& q) {
    const std::string& name = q.name;
    OutputFormat of = parse_output_format(q.format);
    std::string sql;
    if (auto q = catalog::bundled_query(name)) {
        sql = *q;
    } else if (name.ends_with(".sql") && !io::not_a_regular_file(name).has_value()) {
        sql = io::read_local_text(name, model::Limits::max_query_file_bytes);  // refuses what is swapped in meanwhile
    } else if (name.ends_with(".sql")) {
        std::cerr << "modelcat query: " << terminal_safe(name + ": " + *io::not_a_regular_file(name)) << "\n";
        return kExitUsage;
    } else {
        std::cerr << "modelcat query: no report named '" << terminal_safe(name) << "' (see `modelcat query --list`)\n";
        return kExitUsage;
    }
    std::map<std::string, std::string> params;
    for (const auto& p : q.params) {
        auto eq = p.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::cerr << "modelcat query: --param takes key=value, got '" << terminal_safe(p) << "'\n";
            return kExitUsage;
        }
        params[p.substr(0, eq)] = p.substr(eq + 1);
    }
    catalog::Reader reader = catalog::Reader::open(db_path, q.statement_time);
    params = reader.resolve_report_params(name, sql, std::move(params));
    ResultPrinter printer(std::cout, of, {q.columns, catalog::declared_table_columns(sql), terminal_width(), q.wide}, q.limit);
    reader.run_query(sql, params, printer);
    printer.finish();
    if (printer.cut()) std::cerr << "modelcat query: the first " << q.limit << " rows; more follow (--limit 0: every row)\n";
    return kExitOk;
}

int run_query(const std::string& db, const QueryArgs& q) {
    if (q.list) {
        for (const auto& r : catalog::bundled_queries())
            std::cout << r.name << "\t" << catalog::query_summary(std::string(r.sql)) << "\n";
        return kExitOk;
    }
    if (q.name.empty()) {
        std::cerr << "modelcat query: name a report (see `modelcat query --list`)\n";
        return kExitUsage;
    }
    return run_report(db, q);
}

}  // namespace

Command query_command(CLI::App& app, std::string& db) {
    auto q = std::make_shared<QueryArgs>();
    auto* cmd = app.add_subcommand("query", "run a report from queries/ (or a .sql file) against the catalogue");
    cmd->add_option("--db", db, "catalogue database");
    cmd->add_option("name", q->name, "report name or path of a .sql file");
    cmd->add_option("-p,--param", q->params, "parameter key=value (bound to :key); repeatable, one each")
        ->allow_extra_args(false);  // `-p model=X policy`: policy stays the report's name
    cmd->add_option("-f,--format", q->format,
                    "table (for a person: the default on a terminal), plain (aligned raw values: the default otherwise), csv (for "
                    "spreadsheets: text that would be a formula starts with '), csv-raw (the exact text), json or markdown");
    cmd->add_option("--columns", q->columns, "these columns, in this order (a,b,c), in any format")->delimiter(',')->allow_extra_args(false);
    cmd->add_option("--limit", q->limit, "print the first N rows (0, the default: every row); a report that streams stops computing there");
    cmd->add_flag("--wide", q->wide, "table: every column at full width (not only the report's own set, fitted to $COLUMNS)");
    cmd->add_flag("--list", q->list, "list the bundled reports");
    add_query_timeout(cmd, q->statement_time);
    return {cmd, [q, &db] { return run_query(db, *q); }};
}

}  // namespace modelcat::cli
