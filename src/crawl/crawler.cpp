#include "crawl/crawler.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "crawl/inputs.hpp"
#include "crawl/model_assembly.hpp"
#include "crawl/plan.hpp"
#include "format/text.hpp"
#include "io/byte_source.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

catalog::FileIdentity identity_of(const io::FileStat& st) { return {st.size, st.mtime_ns, st.inode, st.device}; }

catalog::FileRecord read_data_file(const std::string& location, const HeaderReadOptions& options, io::ByteBuffer& scratch) {
    auto t0 = Clock::now();
    try {
        io::LocalFile source(location);
        catalog::FileRecord rec;
        rec.location = location;
        rec.header = read_header(source, options, &scratch);
        rec.bytes_read = source.bytes_read();
        rec.requests = source.requests();
        rec.read_ms = ms_since(t0);
        rec.identity = identity_of(source.stat());
        rec.header_hash = format::hex64(rec.header.header_hash);
        return rec;
    } catch (const format::FormatError& e) {
        throw ModelError(location, e.offset(), e.what());
    } catch (const std::exception& e) {
        throw ModelError(location, std::nullopt, e.what());
    }
}

catalog::FileRecord read_json_file(const std::string& location, catalog::FileRole role, bool parse_config) {
    auto t0 = Clock::now();
    try {
        io::LocalFile source(location);
        io::ByteBuffer bytes;
        source.read(0, source.size(), bytes);
        catalog::FileRecord rec;
        rec.location = location;
        rec.role = role;
        rec.header.format = format::Format::json;
        rec.header.file_size = rec.header.header_bytes = rec.header.data_start = source.size();
        if (parse_config) rec.header.metadata = format::parse_model_config(bytes);
        rec.bytes_read = source.bytes_read();
        rec.requests = source.requests();
        rec.read_ms = ms_since(t0);
        rec.identity = identity_of(source.stat());
        return rec;
    } catch (const format::FormatError& e) {
        throw ModelError(location, e.offset(), e.what());
    } catch (const std::exception& e) {
        throw ModelError(location, std::nullopt, e.what());
    }
}

// Unchanged: every file catalogued ok under one model, with the same identity,
// and that model made of exactly these files. Costs one stat per file.
bool unchanged(catalog::Catalog& catalog, const ModelPlan& plan) {
    const std::vector<std::string> files = all_files(plan);
    std::optional<int64_t> model_id;
    for (const auto& f : files) {
        auto stored = catalog.stored_file(f);
        auto now = io::stat_file(f);
        if (!stored || !now || stored->status != "ok" || stored->identity != identity_of(*now)) return false;
        if (model_id && *model_id != stored->model_id) return false;
        model_id = stored->model_id;
    }
    return model_id && catalog.model_files(*model_id) == files;
}

ModelOutcome crawl_model(catalog::Catalog& catalog, int64_t crawl_id, const ModelPlan& plan, const CrawlOptions& options,
                         io::ByteBuffer& scratch) {
    ModelOutcome out;
    out.location = plan.data_files.empty() ? plan.index.value_or("") : plan.data_files.front();
    if (!options.force && unchanged(catalog, plan)) {
        std::vector<std::string> files = all_files(plan);
        catalog.mark_checked(crawl_id, files);
        out.verdict = Verdict::unchanged;
        out.files = files.size();
        return out;
    }
    const bool known = catalog.stored_file(out.location).has_value();
    auto account = [&](const catalog::FileRecord& f) {
        out.bytes_read += f.bytes_read;
        out.requests += f.requests;
        out.tensors += f.header.tensors.size();
        out.warnings += f.header.warnings.size();
        ++out.files;
    };
    try {
        std::vector<catalog::FileRecord> files;
        for (const auto& f : plan.data_files) {
            files.push_back(read_data_file(f, options.read, scratch));
            account(files.back());
        }
        if (plan.index) {
            files.push_back(read_json_file(*plan.index, catalog::FileRole::index, false));
            files.back().header.metadata = plan.parsed_index->metadata;
            account(files.back());
        }
        if (plan.config) {
            files.push_back(read_json_file(*plan.config, catalog::FileRole::config, true));
            account(files.back());
        }
        catalog_model(catalog, crawl_id, plan, std::move(files));
        out.verdict = known ? Verdict::changed : Verdict::added;
    } catch (const ModelError& e) {
        out.location = e.location;
        out.offset = e.offset;
        out.message = plan.data_files.size() > 1 ? "model '" + plan.name + "': " + e.what() : e.what();
    } catch (const std::exception& e) {
        out.message = e.what();
    }
    if (out.verdict == Verdict::failed) catalog.record_error(crawl_id, out.location, out.offset, out.message);
    return out;
}

void add_to_totals(catalog::CrawlTotals& t, const ModelOutcome& o) {
    t.bytes_read += o.bytes_read;
    t.requests += o.requests;
    switch (o.verdict) {
        case Verdict::added: t.files_new += o.files; break;
        case Verdict::changed: t.files_changed += o.files; break;
        case Verdict::unchanged: t.files_unchanged += o.files; break;
        case Verdict::failed: ++t.files_failed; break;
        case Verdict::gone: ++t.files_gone; break;
    }
    if (o.verdict == Verdict::added || o.verdict == Verdict::changed) {
        t.files_ok += o.files;
        t.tensors += o.tensors;
    }
}

bool is_directory(const std::string& p) {
    std::error_code ec;
    return std::filesystem::is_directory(p, ec);
}

}  // namespace

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::added: return "new";
        case Verdict::changed: return "changed";
        case Verdict::unchanged: return "unchanged";
        case Verdict::failed: return "failed";
        case Verdict::gone: return "gone";
    }
    return "?";
}

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options) {
    auto t0 = Clock::now();
    CrawlReport report;
    report.crawl_id = catalog.begin_crawl(inputs);
    std::vector<std::string> local_inputs, remote_inputs;
    for (const auto& in : inputs) (is_remote_input(in) ? remote_inputs : local_inputs).push_back(in);
    ExpandedInputs expanded = expand_inputs(local_inputs);
    CrawlPlan plan = plan_crawl(expanded.files, expanded.problems, LocalLocator{});
    CrawlProgress progress{0, plan.problems.size() + plan.models.size() + remote_inputs.size(), &report.totals, 0};
    auto account = [&](ModelOutcome o) {
        add_to_totals(report.totals, o);
        if (options.on_model) options.on_model(o);
        ++progress.done;
        progress.total = std::max(progress.total, progress.done);
        progress.seconds = ms_since(t0) / 1000.0;
        if (options.on_progress) options.on_progress(progress);
        if (o.verdict == Verdict::failed) report.failures.push_back(std::move(o));
    };
    // A named input that vanished but was catalogued is gone, not an error.
    std::vector<std::string> missing;
    for (const auto& p : plan.problems) {
        std::string abs = std::filesystem::absolute(p.input).lexically_normal().string();
        if (!io::stat_file(abs) && catalog.stored_file(abs)) {
            missing.push_back(abs);
            --progress.total;
            continue;
        }
        catalog.record_error(report.crawl_id, p.input, std::nullopt, p.message);
        account(ModelOutcome{p.input, Verdict::failed, std::nullopt, p.message});
    }
    std::vector<std::string> seen, scopes;
    io::ByteBuffer scratch;  // one header buffer for every local file
    for (const auto& m : plan.models) {
        for (const auto& f : all_files(m)) seen.push_back(f);
        account(crawl_model(catalog, report.crawl_id, m, options, scratch));
    }
    for (const auto& in : local_inputs)
        if (is_directory(in)) scopes.push_back(std::filesystem::absolute(in).lexically_normal().string());
    if (!remote_inputs.empty()) {
        progress.total -= remote_inputs.size();  // each remote input becomes its models as they are planned
        RemoteResult r = crawl_remote(catalog, report.crawl_id, remote_inputs, options.remote, options.read.limits,
                                      options.force, account);
        seen.insert(seen.end(), r.seen.begin(), r.seen.end());
        scopes.insert(scopes.end(), r.gone_scopes.begin(), r.gone_scopes.end());
    }
    report.totals.files_gone += catalog.mark_gone(report.crawl_id, missing, scopes, seen);
    report.totals.seconds = ms_since(t0) / 1000.0;
    catalog.finish_crawl(report.crawl_id, report.totals);
    return report;
}

std::vector<PlannedModel> dry_run(catalog::Catalog& catalog, const std::vector<std::string>& inputs, bool force) {
    std::vector<std::string> local;
    std::vector<PlannedModel> out;
    for (const auto& in : inputs) {
        if (is_remote_input(in)) out.push_back({in, {in}, Verdict::changed, "remote: checked when crawled"});
        else local.push_back(in);
    }
    ExpandedInputs expanded = expand_inputs(local);
    CrawlPlan plan = plan_crawl(expanded.files, expanded.problems, LocalLocator{});
    for (const auto& p : plan.problems) out.push_back({p.input, {p.input}, Verdict::failed, p.message});
    for (const auto& m : plan.models) {
        Verdict v = !force && unchanged(catalog, m) ? Verdict::unchanged
                    : catalog.stored_file(m.data_files.front()) ? Verdict::changed
                                                                : Verdict::added;
        out.push_back({m.name, all_files(m), v, ""});
    }
    return out;
}

}  // namespace modelcat::crawl
