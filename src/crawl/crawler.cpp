#include "crawl/crawler.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "crawl/identity.hpp"
#include "crawl/inputs.hpp"
#include "crawl/pipeline.hpp"
#include "crawl/plan.hpp"
#include "crawl/remote_inputs.hpp"
#include "crawl/hub.hpp"
#include "io/http_reader.hpp"
#include "io/local_reader.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;
constexpr unsigned kMaxLocalThreads = 8;  // reads from page cache or one disk: more threads only contend

void add_costs(catalog::CrawlTotals& t, const ModelOutcome& o) {
    t.bytes_read += o.bytes_read;
    t.requests += o.requests;
    t.api_calls += o.by_kind.api;
    t.resolver_calls += o.by_kind.resolver;
    t.storage_reads += o.by_kind.storage;
}

void add_to_totals(catalog::CrawlTotals& t, const ModelOutcome& o) {
    add_costs(t, o);
    switch (o.status) {
        case ModelStatus::added: t.files_new += o.files; break;
        case ModelStatus::changed: t.files_changed += o.files; break;
        case ModelStatus::unchanged: t.files_unchanged += o.files; break;
        case ModelStatus::failed: ++t.files_failed; break;
        case ModelStatus::gone: ++t.files_gone; break;
    }
    if (o.status == ModelStatus::added || o.status == ModelStatus::changed) t.tensors += o.tensors;
}

std::string absolute(const std::string& p) { return std::filesystem::absolute(p).lexically_normal().string(); }

bool is_directory(const std::string& p) {
    std::error_code ec;
    return std::filesystem::is_directory(p, ec);
}

// One crawl's bookkeeping: totals, progress, failures, and what was seen.
class Crawl {
public:
    Crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options)
        : catalog_(catalog), options_(options) {
        report_.crawl_id = catalog.begin_crawl(inputs);
        progress_.totals = &report_.totals;
    }
    void account(ModelOutcome o);
    void planning_problem(const InputProblem& p);
    void run_local(const std::vector<std::string>& inputs);
    void run_remote(const std::vector<std::string>& inputs);
    CrawlReport finish();

private:
    PipelineOptions pipeline_options() const;

    catalog::Catalog& catalog_;
    const CrawlOptions& options_;
    CrawlReport report_;
    CrawlProgress progress_;
    Clock::time_point t0_ = Clock::now();
    std::vector<std::string> seen_, scopes_, missing_;
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
void Crawl::planning_problem(const InputProblem& p) {
    if (!is_remote_input(p.input)) {
        std::string abs = absolute(p.input);
        if (!io::stat_file(abs) && catalog_.stored_file(abs)) {
            missing_.push_back(abs);
            return;
        }
    }
    catalog_.record_error(report_.crawl_id, p.input, std::nullopt, p.message);
    ModelOutcome o;
    o.location = p.input;
    o.failure = Failure{p.input, std::nullopt, "", p.message};
    account(std::move(o));
}

PipelineOptions Crawl::pipeline_options() const {
    PipelineOptions po;
    po.limits = options_.limits;
    po.force = options_.force;
    po.models_in_flight = std::max(1u, options_.jobs);
    const std::string hub = options_.hf_endpoint + "/";
    const bool token = options_.http.token.has_value();
    po.sends_token = [hub, token](const std::string& url) { return token && url.starts_with(hub); };
    po.budget_of = hub_budget;
    po.should_stop = options_.should_stop;
    return po;
}

void Crawl::run_local(const std::vector<std::string>& inputs) {
    ExpandedInputs expanded = expand_inputs(inputs);
    CrawlPlan plan = plan_crawl(expanded.files, expanded.problems, LocalLocator{});
    progress_.total += plan.problems.size() + plan.models.size();
    for (const auto& p : plan.problems) planning_problem(p);
    for (const auto& m : plan.models)
        for (const auto& f : all_files(m)) seen_.push_back(f);
    for (const auto& in : inputs)
        if (is_directory(in)) scopes_.push_back(absolute(in));
    PipelineOptions po = pipeline_options();
    po.first_read_gguf = po.first_read_safetensors = options_.first_read_local;
    io::LocalReader reader(std::min(kMaxLocalThreads, std::max(1u, options_.jobs)));
    KnownFiles nothing;
    if (!ModelPipeline(catalog_, report_.crawl_id, reader, po, nothing, [this](ModelOutcome o) { account(std::move(o)); })
             .run(std::move(plan.models)))
        report_.totals.interrupted = true;
}

void Crawl::run_remote(const std::vector<std::string>& inputs) {
    io::HttpOptions http = options_.http;
    http.first_hop_headers = hub_redirect_headers();
    io::HttpReader reader(http);
    PipelineOptions po = pipeline_options();
    po.first_read_gguf = options_.first_read_gguf;
    po.first_read_safetensors = options_.first_read_safetensors;
    po.read_generously = true;
    RemotePlan remote = plan_remote(reader, inputs, options_.hf_endpoint, po.sends_token);
    add_costs(report_.totals, remote.cost);
    progress_.total += remote.plan.problems.size() + remote.plan.models.size();
    for (const auto& p : remote.plan.problems) planning_problem(p);
    for (const auto& m : remote.plan.models)
        for (const auto& f : all_files(m)) seen_.push_back(f);
    scopes_.insert(scopes_.end(), remote.gone_scopes.begin(), remote.gone_scopes.end());
    if (!ModelPipeline(catalog_, report_.crawl_id, reader, po, remote.known, [this](ModelOutcome o) { account(std::move(o)); })
             .run(std::move(remote.plan.models)))
        report_.totals.interrupted = true;
}

CrawlReport Crawl::finish() {
    report_.totals.files_gone += catalog_.mark_gone(report_.crawl_id, missing_, scopes_, seen_);
    report_.totals.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    catalog_.finish_crawl(report_.crawl_id, report_.totals);
    return std::move(report_);
}

}  // namespace

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options) {
    std::vector<std::string> local, remote;
    for (const auto& in : inputs) (is_remote_input(in) ? remote : local).push_back(in);
    Crawl crawl(catalog, inputs, options);
    if (!local.empty()) crawl.run_local(local);
    if (!remote.empty() && !(options.should_stop && options.should_stop())) crawl.run_remote(remote);
    return crawl.finish();
}

std::vector<PlannedModel> dry_run(catalog::Catalog& catalog, const std::vector<std::string>& inputs, bool force) {
    std::vector<std::string> local;
    std::vector<PlannedModel> out;
    for (const auto& in : inputs) {
        if (is_remote_input(in)) out.push_back({in, {in}, ModelStatus::changed, "remote: checked when crawled"});
        else local.push_back(in);
    }
    ExpandedInputs expanded = expand_inputs(local);
    CrawlPlan plan = plan_crawl(expanded.files, expanded.problems, LocalLocator{});
    for (const auto& p : plan.problems) out.push_back({p.input, {p.input}, ModelStatus::failed, p.message});
    for (const auto& m : plan.models) {
        std::vector<std::string> files = all_files(m);
        ModelStatus s = !force && compare_model(catalog, files, local_identity).result == Sameness::same
                            ? ModelStatus::unchanged
                        : catalog.stored_file(files.front()) ? ModelStatus::changed
                                                             : ModelStatus::added;
        out.push_back({m.name, std::move(files), s, ""});
    }
    return out;
}

}  // namespace modelcat::crawl
