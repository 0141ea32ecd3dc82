#include "crawl/crawler.hpp"

#include <chrono>
#include <filesystem>
#include <set>

#include "crawl/inputs.hpp"
#include "crawl/plan.hpp"
#include "format/text.hpp"
#include "io/byte_source.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// An error that belongs to one file of a model: carries that file's location.
struct ModelError : std::runtime_error {
    ModelError(std::string loc, std::optional<uint64_t> off, const std::string& msg)
        : std::runtime_error(msg), location(std::move(loc)), offset(off) {}
    std::string location;
    std::optional<uint64_t> offset;
};

catalog::FileIdentity identity_of(const io::FileStat& st) { return {st.size, st.mtime_ns, st.inode, st.device}; }

catalog::FileRecord read_data_file(const std::string& location, const HeaderReadOptions& options) {
    auto t0 = Clock::now();
    try {
        io::LocalFile source(location);
        catalog::FileRecord rec;
        rec.location = location;
        rec.header = read_header(source, options);
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
        std::vector<uint8_t> bytes;
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

std::vector<std::string> all_files(const ModelPlan& plan) {
    std::vector<std::string> files = plan.data_files;
    if (plan.index) files.push_back(*plan.index);
    if (plan.config) files.push_back(*plan.config);
    return files;
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

std::optional<int64_t> int_key(const format::FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key) {
            if (auto* u = std::get_if<uint64_t>(&e.value)) return static_cast<int64_t>(*u);
            if (auto* i = std::get_if<int64_t>(&e.value)) return *i;
        }
    return std::nullopt;
}

// gguf-split writes split.no (0-based), split.count and split.tensors.count
// (the total over all shards); every shard must agree with its name.
void check_split_set(const std::vector<catalog::FileRecord>& shards) {
    const int64_t count = static_cast<int64_t>(shards.size());
    uint64_t tensors = 0;
    for (const auto& s : shards) tensors += s.header.tensors.size();
    for (int64_t i = 0; i < count; ++i) {
        const auto& s = shards[static_cast<size_t>(i)];
        auto no = int_key(s.header, "split.no");
        auto n = int_key(s.header, "split.count");
        if (no && *no != i)
            throw ModelError(s.location, std::nullopt, "split.no is " + std::to_string(*no) + " but the file name says shard " +
                                                           std::to_string(i + 1) + " of " + std::to_string(count));
        if (n && *n != count)
            throw ModelError(s.location, std::nullopt, "split.count is " + std::to_string(*n) + " but the set has " +
                                                           std::to_string(count) + " shards");
        if (i == 0 && !n) throw ModelError(s.location, std::nullopt, "first shard of a split set has no split.count");
        if (auto total = int_key(s.header, "split.tensors.count"); total && static_cast<uint64_t>(*total) != tensors)
            throw ModelError(s.location, std::nullopt, "split.tensors.count is " + std::to_string(*total) + " but the " +
                                                           std::to_string(count) + " shards hold " + std::to_string(tensors) + " tensors");
    }
}

// The index's weight_map must name exactly the shards' tensors, and its
// total_size the bytes of their data.
void check_checkpoint(const format::CheckpointIndex& idx, const std::string& index_location,
                      const std::vector<catalog::FileRecord>& shards) {
    uint64_t data = 0;
    std::set<std::string> seen;
    for (const auto& s : shards) {
        std::string shard_name = std::filesystem::path(s.location).filename().string();
        for (const auto& t : s.header.tensors) {
            data += t.bytes;
            seen.insert(t.name);
            auto it = idx.weight_map.find(t.name);
            if (it == idx.weight_map.end())
                throw ModelError(s.location, t.info_offset, "tensor '" + t.name + "' is not in the index's weight_map");
            if (std::filesystem::path(it->second).filename() != shard_name)
                throw ModelError(s.location, t.info_offset, "tensor '" + t.name + "' is in " + shard_name +
                                                                " but the index says " + it->second);
        }
    }
    for (const auto& [name, shard] : idx.weight_map)
        if (!seen.count(name))
            throw ModelError(index_location, std::nullopt, "index maps tensor '" + name + "' to " + shard + ", which does not hold it");
    if (idx.total_size && *idx.total_size != data)
        throw ModelError(index_location, std::nullopt, "metadata.total_size is " + std::to_string(*idx.total_size) +
                                                           " but the shards hold " + std::to_string(data) + " bytes of tensor data");
}

ModelOutcome crawl_model(catalog::Catalog& catalog, int64_t crawl_id, const ModelPlan& plan, const CrawlOptions& options) {
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
    catalog::ModelRecord model{plan.name, {}};
    auto account = [&](const catalog::FileRecord& f) {
        out.bytes_read += f.bytes_read;
        out.requests += f.requests;
        out.tensors += f.header.tensors.size();
        out.warnings += f.header.warnings.size();
        ++out.files;
    };
    try {
        for (const auto& f : plan.data_files) {
            model.files.push_back(read_data_file(f, options.read));
            account(model.files.back());
        }
        if (plan.kind == ModelPlan::Kind::split_gguf) check_split_set(model.files);
        if (plan.parsed_index) check_checkpoint(*plan.parsed_index, *plan.index, model.files);
        if (plan.index) {
            model.files.push_back(read_json_file(*plan.index, catalog::FileRole::index, false));
            model.files.back().header.metadata = plan.parsed_index->metadata;
            account(model.files.back());
        }
        if (plan.config) {
            model.files.push_back(read_json_file(*plan.config, catalog::FileRole::config, true));
            account(model.files.back());
        }
        catalog.store_model(crawl_id, model);
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
    ExpandedInputs expanded = expand_inputs(inputs);
    CrawlPlan plan = plan_crawl(expanded);
    CrawlProgress progress{0, plan.problems.size() + plan.models.size(), &report.totals, 0};
    auto account = [&](ModelOutcome o) {
        add_to_totals(report.totals, o);
        if (options.on_model) options.on_model(o);
        ++progress.done;
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
    std::vector<std::string> seen;
    for (const auto& m : plan.models) {
        for (const auto& f : all_files(m)) seen.push_back(f);
        account(crawl_model(catalog, report.crawl_id, m, options));
    }
    std::vector<std::string> dirs;
    for (const auto& in : inputs)
        if (is_directory(in)) dirs.push_back(std::filesystem::absolute(in).lexically_normal().string());
    report.totals.files_gone += catalog.mark_gone(report.crawl_id, missing, dirs, seen);
    report.totals.seconds = ms_since(t0) / 1000.0;
    catalog.finish_crawl(report.crawl_id, report.totals);
    return report;
}

std::vector<PlannedModel> dry_run(catalog::Catalog& catalog, const std::vector<std::string>& inputs, bool force) {
    CrawlPlan plan = plan_crawl(expand_inputs(inputs));
    std::vector<PlannedModel> out;
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
