#include "crawl/crawler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>
#include <thread>

#include "crawl/identify.hpp"
#include "crawl/pipeline.hpp"
#include "io/http_reader.hpp"
#include "io/local_reader.hpp"
#include "locate/hub.hpp"
#include "locate/local_inputs.hpp"
#include "locate/local_plan.hpp"
#include "locate/plan.hpp"
#include "locate/remote_plan.hpp"
#include "locate/stores.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;
constexpr unsigned kMaxLocalThreads = 8;

void add_costs(catalog::CrawlTotals& t, uint64_t bytes_read, uint64_t requests, const locate::RequestCounts& by_kind) {
    t.bytes_read += bytes_read;
    t.requests += requests;
    t.api_calls += by_kind.api;
    t.resolver_calls += by_kind.resolver;
    t.storage_reads += by_kind.storage;
    t.model_pages += by_kind.model_pages;
    t.repo_listings += by_kind.repo_listings;
}

void add_to_totals(catalog::CrawlTotals& t, const ModelOutcome& o) {
    add_costs(t, o.bytes_read, o.requests, o.by_kind);
    switch (o.status) {
        case ModelStatus::new_: t.files_new += o.files; break;
        case ModelStatus::changed: t.files_changed += o.files; break;
        case ModelStatus::unchanged: t.files_unchanged += o.files; break;
        case ModelStatus::failed: ++t.files_failed; break;
        case ModelStatus::gone: ++t.files_gone; break;
    }
    if (o.status == ModelStatus::new_ || o.status == ModelStatus::changed) t.tensors += o.tensors;
}

// "/mnt/mirror: no files where 337 were catalogued (not mounted?)", or why it lost too many to believe.
std::optional<std::string> why_held_back(const std::string& root, catalog::Writer::FilesUnder f, const GoneGuard& guard) {
    if (guard.allow || f.missing == 0) return std::nullopt;
    if (f.missing == f.catalogued)
        return root + ": no files where " + std::to_string(f.catalogued) + " were catalogued (not mounted?); none marked gone"
               " (--allow-gone marks them)";
    if (f.missing <= guard.limit(f.catalogued)) return std::nullopt;
    return root + ": " + std::to_string(f.missing) + " of " + std::to_string(f.catalogued) + " catalogued files missing, over --max-gone " +
           (guard.files ? std::to_string(*guard.files) : std::to_string(static_cast<int>(guard.fraction * 100 + 0.5)) + "%") +
           "; none marked gone (--allow-gone or a larger --max-gone marks them)";
}

// What a planning problem may be besides a failure: a catalogued file that vanished (gone), a named
// folder that vanished with catalogued files under it (checked like a walked one), or a typo.
enum class Vanished { no, file, folder, missing_input };

Vanished vanished(catalog::Writer& catalog, const std::string& location, const std::set<std::string>& named) {
    if (locate::is_remote(location)) return Vanished::no;
    const std::string abs = locate::absolute_path(location);
    if (io::stat_file(abs)) return Vanished::no;
    if (catalog.stored_file(abs)) return Vanished::file;
    std::error_code ec;
    if (!named.contains(abs) || std::filesystem::exists(std::filesystem::symlink_status(abs, ec))) return Vanished::no;  // a special file
    return catalog.files_under({abs}, {}).front().catalogued > 0 ? Vanished::folder : Vanished::missing_input;
}

// The local inputs as given, absolute: one of them missing is a typo.
std::set<std::string> named_inputs(const std::vector<std::string>& inputs) {
    std::set<std::string> named;
    for (const auto& in : inputs)
        if (!locate::is_remote(in) && !locate::is_store_input(in)) named.insert(locate::absolute_path(in));
    return named;
}

// One crawl's bookkeeping: totals, progress, failures, and what was seen.
class Crawl {
public:
    Crawl(catalog::Writer& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options)
        : catalog_(catalog), options_(options), named_(named_inputs(inputs)) {
        report_.crawl_id = catalog.begin_crawl(inputs);
        progress_.totals = &report_.totals;
    }
    void account(ModelOutcome o);
    void planning_problem(const model::Failure& p);
    void run_local(const std::vector<std::string>& inputs);
    void run_remote(const std::vector<std::string>& inputs);
    CrawlReport finish();

private:
    PipelineOptions pipeline_options() const;
    void note_planned(const locate::CrawlPlan& plan);
    locate::HubMemory hub_memory(const std::vector<std::string>& inputs);
    void record_discovery(const locate::HubDiscovery& found);
    bool failed_under(const locate::DiscoveredRepo& repo) const;
    std::vector<std::string> roots_to_mark_gone();

    catalog::Writer& catalog_;
    const CrawlOptions& options_;
    CrawlReport report_;
    CrawlProgress progress_;
    Clock::time_point t0_ = Clock::now();
    std::vector<std::string> seen_, scopes_, missing_, store_roots_;
    std::vector<model::StoreNameRow> names_;
    std::vector<std::pair<std::string, std::string>> store_models_;  // location, name: store models
    std::set<std::string> named_;
};

void Crawl::account(ModelOutcome o) {
    add_to_totals(report_.totals, o);
    if (options_.on_model) options_.on_model(o);
    ++progress_.done;
    progress_.total = std::max(progress_.total, progress_.done);
    progress_.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    if (options_.on_progress) options_.on_progress(progress_);
    if (o.status == ModelStatus::failed) report_.failures.push_back(std::move(o));
}

// An input that could not be planned; a named file that vanished but was catalogued is gone, not an error.
void Crawl::planning_problem(const model::Failure& p) {
    switch (vanished(catalog_, p.location, named_)) {
        case Vanished::file: missing_.push_back(locate::absolute_path(p.location)); return;
        case Vanished::folder: scopes_.push_back(locate::absolute_path(p.location)); return;  // held back unless --allow-gone
        case Vanished::missing_input: ++report_.inputs_missing; break;
        case Vanished::no: break;
    }
    catalog_.record_error(report_.crawl_id, p.location, p.offset, p.reason());
    ModelOutcome o;
    o.location = p.location;
    o.failure = p;
    account(std::move(o));
}

PipelineOptions Crawl::pipeline_options() const {
    PipelineOptions po;
    po.limits = options_.limits;
    po.force = options_.force;
    po.models_in_flight = std::max(1u, options_.jobs);
    po.access = options_.access;
    po.should_stop = options_.should_stop;
    return po;
}

// Every planned model's files are seen (not gone); store models' names are recorded after the crawl.
void Crawl::note_planned(const locate::CrawlPlan& plan) {
    progress_.total += plan.problems.size() + plan.models.size();
    for (const auto& p : plan.problems) planning_problem(p);
    for (const auto& m : plan.models) {
        for (const auto& f : locate::all_files(m)) seen_.push_back(f);
        names_.insert(names_.end(), m.names.begin(), m.names.end());
        if (!m.names.empty()) store_models_.emplace_back(m.data_files.front(), m.name);
    }
}

void Crawl::run_local(const std::vector<std::string>& inputs) {
    locate::LocalPlan local = locate::plan_local(inputs, options_.stores);
    locate::CrawlPlan& plan = local.plan;
    note_planned(plan);
    scopes_.insert(scopes_.end(), local.scopes.begin(), local.scopes.end());
    store_roots_ = std::move(local.store_roots);
    PipelineOptions po = pipeline_options();
    po.first_read_gguf = po.first_read_safetensors = options_.first_read_local;
    // One thread per core, each reading one header at once: a read from the page cache is a copy and
    // the parse is the work, so more threads only contend (docs/performance.md has the figures).
    const unsigned at_most = std::min(kMaxLocalThreads, std::max(1u, options_.jobs));
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, at_most);
    po.header_reads_at_once = threads;
    io::LocalReader reader(threads);
    locate::RemoteFacts nothing;
    if (!ModelPipeline(catalog_, report_.crawl_id, reader, po, nothing, [this](ModelOutcome o) { account(std::move(o)); })
             .run(std::move(plan.models)))
        report_.totals.interrupted = true;
}

void Crawl::run_remote(const std::vector<std::string>& inputs) {
    io::HttpReader reader(options_.access.reader_options(locate::budget_states(catalog_.rate_budgets())));
    PipelineOptions po = pipeline_options();
    po.first_read_gguf = options_.first_read_gguf;
    po.first_read_safetensors = options_.first_read_safetensors;
    po.read_generously = true;
    const locate::HubMemory memory = hub_memory(inputs);
    locate::RemotePlan remote = locate::plan_remote(reader, inputs, options_.access, memory);
    add_costs(report_.totals, remote.cost.bytes_read, remote.cost.requests, remote.cost.by_kind);
    note_planned(remote.plan);
    scopes_.insert(scopes_.end(), remote.gone_scopes.begin(), remote.gone_scopes.end());
    if (!ModelPipeline(catalog_, report_.crawl_id, reader, po, remote.known, [this](ModelOutcome o) { account(std::move(o)); })
             .run(std::move(remote.plan.models)))
        report_.totals.interrupted = true;
    catalog_.save_rate_budgets(report_.crawl_id, locate::budget_rows(reader.budgets()));
    record_discovery(remote.discovery);
}

// The many-repository inputs, and what the catalogue recorded of them.
locate::HubMemory Crawl::hub_memory(const std::vector<std::string>& inputs) {
    std::vector<std::string> scopes;
    for (const auto& in : inputs)
        if (locate::is_hub_scope_input(in)) scopes.push_back(in);
    locate::HubMemory m;
    if (scopes.empty()) return m;
    m.repos = catalog_.hub_repos(scopes, options_.access.hf_endpoint);
    m.listings = catalog_.hub_listings(scopes);
    m.full_listing = options_.full_listing;
    m.now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return m;
}

bool Crawl::failed_under(const locate::DiscoveredRepo& repo) const {
    return std::any_of(report_.failures.begin(), report_.failures.end(), [&](const ModelOutcome& f) {
        return f.location.starts_with(repo.folder + "/") || f.location == "hf://" + repo.repo;
    });
}

// A changed repository is recorded at its new sha once all its files are in (else it stays
// pending: listed again by the next crawl); a gone one's files are marked gone, the Hub having
// said 404 (no folder guard: this is not an unmounted disk).
void Crawl::record_discovery(const locate::HubDiscovery& found) {
    if (found.repos.empty() && found.listings.empty()) return;
    std::vector<model::HubRepoRow> rows;
    std::vector<std::string> gone;
    auto& t = report_.totals;
    for (const auto& r : found.repos) {
        std::string status = "ok";
        switch (r.verdict) {
            case locate::RepoVerdict::unchanged:
                if (!r.seen) continue;  // a repository a full listing no longer showed, that the Hub did not say is gone
                ++t.repos_unchanged;
                break;
            case locate::RepoVerdict::gone: status = "gone", gone.push_back(r.folder), ++t.repos_gone; break;
            case locate::RepoVerdict::left: status = "left"; break;
            case locate::RepoVerdict::changed:
            case locate::RepoVerdict::retried:
                if (!r.listed || t.interrupted || failed_under(r)) status = "pending";
                ++t.repos_changed;
                break;
        }
        rows.push_back({r.scope, r.repo, r.last_modified, r.sha, status, r.seen});
    }
    catalog_.record_hub_discovery(report_.crawl_id, rows, found.listings);
    if (!gone.empty()) t.files_gone += catalog_.mark_gone(report_.crawl_id, {}, gone, {});
}

// The walked folders whose vanished files may be marked gone; the others are held back, with why.
std::vector<std::string> Crawl::roots_to_mark_gone() {
    std::vector<std::string> roots;
    std::vector<catalog::Writer::FilesUnder> counts = catalog_.files_under(scopes_, seen_);
    for (size_t i = 0; i < scopes_.size(); ++i) {
        if (auto held = why_held_back(scopes_[i], counts[i], options_.gone)) report_.held_back.push_back(*held);
        else roots.push_back(scopes_[i]);
    }
    return roots;
}

CrawlReport Crawl::finish() {
    report_.totals.files_gone += catalog_.mark_gone(report_.crawl_id, missing_, roots_to_mark_gone(), seen_);
    if (!names_.empty() || !store_roots_.empty())
        catalog_.record_store_names(report_.crawl_id, names_, store_models_, store_roots_);
    report_.totals.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    catalog_.finish_crawl(report_.crawl_id, report_.totals);
    return std::move(report_);
}

}  // namespace

uint64_t GoneGuard::limit(uint64_t catalogued) const {
    if (files) return *files;
    return static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(catalogued) - 1e-9));  // 10% of 30 is 3, not 4
}

CrawlReport run_crawl(catalog::Writer& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options) {
    std::vector<std::string> local, remote;
    for (const auto& in : inputs) (locate::is_remote(in) ? remote : local).push_back(in);
    Crawl crawl(catalog, inputs, options);
    if (!local.empty()) crawl.run_local(local);
    if (!remote.empty() && !(options.should_stop && options.should_stop())) crawl.run_remote(remote);
    return crawl.finish();
}

DryRun dry_run(catalog::Writer& catalog, const std::vector<std::string>& inputs, bool force, const locate::StoreRoots& stores,
               const GoneGuard& guard) {
    std::vector<std::string> local;
    DryRun out;
    for (const auto& in : inputs) {
        if (locate::is_remote(in)) out.models.push_back({in, {in}, ModelStatus::changed, "remote: checked when crawled"});
        else local.push_back(in);
    }
    locate::LocalPlan lp = locate::plan_local(local, stores);
    std::vector<std::string> scopes = lp.scopes, seen;
    const std::set<std::string> named = named_inputs(local);
    for (const auto& p : lp.plan.problems) {
        switch (vanished(catalog, p.location, named)) {
            case Vanished::file: out.gone.push_back(locate::absolute_path(p.location)); continue;
            case Vanished::folder: scopes.push_back(locate::absolute_path(p.location)); continue;
            default: out.models.push_back({p.location, {p.location}, ModelStatus::failed, p.reason()});
        }
    }
    for (const auto& m : lp.plan.models) {
        std::vector<std::string> files = locate::all_files(m);
        seen.insert(seen.end(), files.begin(), files.end());
        auto identity = [&m](const std::string& f) { return local_identity(f, digest_of(m, f)); };
        ModelStatus s = !force && compare_model(catalog, files, identity).result == Sameness::same
                            ? ModelStatus::unchanged
                        : catalog.stored_file(files.front()) ? ModelStatus::changed
                                                             : ModelStatus::new_;
        out.models.push_back({m.name, std::move(files), s, ""});
    }
    std::vector<std::string> roots;
    std::vector<catalog::Writer::FilesUnder> counts = catalog.files_under(scopes, seen);
    for (size_t i = 0; i < scopes.size(); ++i) {
        if (auto held = why_held_back(scopes[i], counts[i], guard)) out.held_back.push_back(*held);
        else roots.push_back(scopes[i]);
    }
    for (auto& g : catalog.missing_under(roots, seen)) out.gone.push_back(std::move(g));
    return out;
}

}  // namespace modelcat::crawl
