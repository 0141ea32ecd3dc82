// `modelcat audit GGUF SOURCE`: runs the conversion audit, records it in the
// catalogue, prints the failures and the summary table. Exit status: 0 pass,
// 1 fail, 2 usage or I/O error.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "audit/audit.hpp"
#include "catalog/writer.hpp"
#include "cli/command.hpp"
#include "cli/printer.hpp"
#include "cli/terminal.hpp"
#include "io/io_error.hpp"
#include "locate/access.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::cli {

namespace {

constexpr int kPass = 0, kFail = 1, kError = 2;

struct AuditFlags {
    std::string gguf, source;
    uint64_t sample_rows = 0;
    unsigned jobs = audit::AuditOptions{}.jobs;
    AccessFlags access;  // --hf-endpoint, --token-file: remote inputs are read as the crawl reads them
};

// A progress line redrawn in place on a terminal: bytes compared, rate, ETA.
std::function<void(uint64_t, uint64_t)> progress_line() {
    if (!::isatty(STDERR_FILENO)) return {};
    auto start = std::chrono::steady_clock::now();
    return [start](uint64_t done, uint64_t total) {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double rate = s > 0 ? done / s : 0;
        std::fprintf(stderr, "\raudit: %.1f / %.1f MB, %.0f MB/s, ETA %.0f s   ", done / 1e6, total / 1e6, rate / 1e6,
                     rate > 0 ? (total - done) / rate : 0.0);
        if (done == total) std::fprintf(stderr, "\r%*s\r", 60, "");
    };
}

void print_failures(std::ostream& out, const model::AuditResult& r) {
    for (const auto& t : r.tensors) {  // names and messages are the files' text: escaped, as the crawl's
        if (!model::is_failure(t.verdict) && t.verdict != model::Verdict::generated_unchecked) continue;
        std::ostringstream line;
        line << (t.gguf_tensor.empty() ? t.source_tensor : t.gguf_tensor);
        if (!t.gguf_tensor.empty() && !t.source_tensor.empty()) line << " (source " << t.source_tensor << ")";
        line << ": " << model::verdict_name(t.verdict);
        if (t.first_mismatch_row && !t.source_tensor.empty())
            line << " at source row " << *t.first_mismatch_row << ", column " << *t.first_mismatch_col;
        if (!t.message.empty()) line << ": " << t.message;
        out << (model::is_failure(t.verdict) ? "FAIL " : "note ") << terminal_safe(line.str()) << "\n";
    }
    for (const auto& m : r.metadata) {
        if (!m.fails() && !m.warns()) continue;
        std::string line = m.key + " (" + m.source_path + "): " + model::verdict_name(m.verdict) + ": GGUF " +
                           (m.gguf_value.empty() ? "none" : m.gguf_value) + ", source " + (m.source_value.empty() ? "none" : m.source_value);
        if (!m.note.empty()) line += "; " + m.note;
        out << (m.fails() ? "FAIL " : "warn ") << terminal_safe(line) << "\n";
    }
}

int run_audit(const Settings& settings, const std::string& db_path, const AuditFlags& flags) {
    catalog::Writer cat(db_path);
    audit::AuditOptions options;
    options.access = http_access(settings, flags.access);
    options.known_budgets = locate::budget_states(cat.rate_budgets());
    options.name_map = [&cat](const std::string& arch) { return cat.reader().tensor_name_map(arch); };
    options.sample_rows = flags.sample_rows;
    options.jobs = flags.jobs;
    options.on_progress = progress_line();
    model::AuditResult result;
    try {
        result = audit::run_audit(flags.gguf, flags.source, options);
    } catch (const model::FormatError& e) {
        std::cerr << "modelcat audit: " << terminal_safe(e.failure().describe()) << "\n";
        return kError;
    } catch (const io::IoError& e) {
        std::cerr << "modelcat audit: " << terminal_safe(e.what()) << "\n";
        return kError;
    }
    print_failures(std::cout, result);
    int64_t id = cat.record_audit(result);
    const TableShape shape{.picked = {}, .preferred = {}, .width = terminal_width(), .wide = false};
    print_result(std::cout, cat.reader().audit_summary(id), default_output_format(), shape);
    std::cout << "\n";
    print_result(std::cout, cat.reader().audit_metadata(id), default_output_format(), shape);
    std::cout << "audit " << id << ": read " << result.bytes_read << " bytes in " << result.requests << " requests, "
              << result.seconds << " s\n";
    return result.passed() ? kPass : kFail;
}

}  // namespace

Command audit_command(CLI::App& app, const Settings& settings, std::string& db) {
    auto a = std::make_shared<AuditFlags>();
    auto* cmd = app.add_subcommand("audit", "prove that a GGUF holds its source checkpoint's values, and record it");
    cmd->add_option("--db", db, "catalogue database the audit is recorded in");
    cmd->add_option("gguf", a->gguf, "the converted .gguf")->required();
    cmd->add_option("source", a->source, "checkpoint folder, its model.safetensors.index.json, or a .safetensors")->required();
    cmd->add_option("--sample-rows", a->sample_rows, "compare N rows per tensor at deterministic positions (default: all)");
    cmd->add_option("-j,--jobs", a->jobs, "tensors compared at once (default " + std::to_string(a->jobs) + ")")->check(CLI::Range(1, 64));
    add_hf_endpoint_option(cmd, a->access);
    add_token_file_option(cmd, a->access);
    return {cmd, [a, &settings, &db] { return run_audit(settings, db, *a); }};
}

}  // namespace modelcat::cli
