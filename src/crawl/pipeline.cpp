#include "crawl/pipeline.hpp"

#include <stdexcept>

#include "crawl/derive.hpp"
#include "crawl/pipeline_state.hpp"

// The loop, and the stages after the reads: derive (on the readers' side) and store.
// Identify is pipeline_identify.cpp, read is pipeline_read.cpp.
namespace modelcat::crawl {

ModelPipeline::ModelPipeline(catalog::Writer& catalog, int64_t crawl_id, io::RangeReader& reader,
                             PipelineOptions options, const locate::RemoteFacts& known, std::function<void(ModelOutcome)> account)
    : catalog_(catalog), crawl_id_(crawl_id), reader_(reader), options_(std::move(options)), known_(known),
      account_(std::move(account)) {}

ModelPipeline::~ModelPipeline() = default;

bool ModelPipeline::run(std::vector<locate::ModelPlan> plans) {
    for (auto& p : plans) queue_.push_back(std::move(p));
    start_next();
    reader_.run();
    if (!waiting_reads_.empty()) throw std::logic_error("crawl pipeline: header reads left waiting for a slot");
    catalog_.mark_checked(crawl_id_, checked_);
    checked_.clear();
    const bool all = queue_.empty();
    queue_.clear();
    return all;
}

// Iterative: a model that completes at once (unchanged, failed) lands here
// again from done(), which only returns, so 10,000 of them never nest.
void ModelPipeline::start_next() {
    if (starting_) return;
    starting_ = true;
    while (in_flight_ < options_.models_in_flight && !queue_.empty() && !(options_.should_stop && options_.should_stop())) {
        locate::ModelPlan plan = std::move(queue_.front());
        queue_.pop_front();
        ++in_flight_;
        start(std::move(plan));
    }
    starting_ = false;
}

void ModelPipeline::start(locate::ModelPlan plan) {
    auto job = std::make_shared<ModelJob>();
    job->files = locate::all_files(plan);
    job->plan = std::move(plan);
    job->read.resize(job->files.size());
    job->outcome.location = job->files.empty() ? std::string() : job->files.front();
    job->known = catalog_.stored_file(job->outcome.location).has_value();
    if (options_.force) read_all(job);
    else check_unchanged(job);
}

void ModelPipeline::finish(const JobPtr& job) {
    if (job->finished) return;
    reader_.offload([job] { job->derive(); }, [this, job] { store(job); });
}

// Where the bytes arrived: every file read, so this job is touched by nothing else meanwhile.
void ModelJob::derive() {
    std::vector<CrawledFile> files;
    for (auto& r : read) files.push_back(std::move(*r));
    try {
        check_model_files(plan, std::span(files).first(plan.data_files.size()));
    } catch (const model::FormatError& e) {
        failure = e.failure();
        return;
    }
    outcome.files = files.size();
    rows = derive_model_rows(plan.name, files);
}

void ModelPipeline::store(const JobPtr& job) {
    if (job->failure) return fail(job, std::move(*job->failure));
    catalog_.write_model(crawl_id_, *job->rows);  // a database error propagates
    job->rows.reset();
    job->outcome.status = job->known ? ModelStatus::changed : ModelStatus::new_;
    done(job);
}

void ModelPipeline::fail(const JobPtr& job, model::Failure failure) {
    if (job->finished) return;
    if (job->plan.data_files.size() > 1) failure.message = "model '" + job->plan.name + "': " + failure.message;
    catalog_.record_error(crawl_id_, failure.location, failure.offset, failure.reason());
    job->outcome.location = failure.location;
    job->outcome.status = ModelStatus::failed;
    job->outcome.failure = std::move(failure);
    done(job);
}

void ModelPipeline::done(const JobPtr& job) {
    job->finished = true;
    account_(job->outcome);
    --in_flight_;
    start_next();
}

// A model left unread at a stop signal: nothing is recorded of it, so the catalogue keeps what the
// last crawl saw (a stop is the user's, not the file's failure) and the next crawl reads it again.
void ModelPipeline::abandon(const JobPtr& job) {
    if (job->finished) return;
    job->finished = true;
    --in_flight_;
    start_next();
}

void ModelPipeline::add_cost(ModelOutcome& o, const io::RangeReply& reply) {
    o.requests += reply.requests;
    o.bytes_read += reply.bytes;
    o.by_kind.add(locate::request_kinds(reply));
}

// To where a listing pinned the file, when it did.
io::RangeRequest ModelPipeline::request(const std::string& location, uint64_t offset, uint64_t length) const {
    auto it = known_.listed.find(location);
    const bool pinned = it != known_.listed.end() && it->second.fetch_url;
    return options_.access.request(pinned ? *it->second.fetch_url : location, offset, length);
}

}  // namespace modelcat::crawl
