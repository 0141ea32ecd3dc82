#include "cli/audit_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "audit/audit.hpp"
#include "catalog/writer.hpp"
#include "cli/printer.hpp"
#include "cli/terminal.hpp"
#include "io/io_error.hpp"
#include "locate/access.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::cli {

namespace {

constexpr int kPass = 0, kFail = 1, kError = 2;

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
    for (const auto& t : r.tensors) {
        if (!model::is_failure(t.verdict) && t.verdict != model::Verdict::generated_unchecked) continue;
        out << (model::is_failure(t.verdict) ? "FAIL " : "note ") << (t.gguf_tensor.empty() ? t.source_tensor : t.gguf_tensor);
        if (!t.gguf_tensor.empty() && !t.source_tensor.empty()) out << " (source " << t.source_tensor << ")";
        out << ": " << model::verdict_name(t.verdict);
        if (t.first_mismatch_row && !t.source_tensor.empty())
            out << " at source row " << *t.first_mismatch_row << ", column " << *t.first_mismatch_col;
        if (!t.message.empty()) out << ": " << t.message;
        out << "\n";
    }
}

}  // namespace

int run_audit_command(const Settings& settings, const std::string& db_path, const AuditFlags& flags) {
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
    print_result(std::cout, cat.reader().audit_summary(id), OutputFormat::table);
    std::cout << "audit " << id << ": read " << result.bytes_read << " bytes in " << result.requests << " requests, "
              << result.seconds << " s\n";
    return result.passed() ? kPass : kFail;
}

}  // namespace modelcat::cli
