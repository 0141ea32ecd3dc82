#include "crawl/pipeline.hpp"

#include <chrono>

#include "crawl/identity.hpp"
#include "crawl/model_checks.hpp"
#include "crawl/model_rows.hpp"
#include "format/checkpoint.hpp"
#include "format/header_assembler.hpp"
#include "io/io_error.hpp"
#include "io/read_route.hpp"
#include "locate/hub.hpp"
#include "model/error.hpp"
#include "model/utf8.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;

// A longer text layer (a license) is listed in ollama.layers but its text not stored.
constexpr uint64_t kMaxLayerBytes = 256 << 10;

const locate::ManifestFile* manifest_of(const locate::ModelPlan& plan, const std::string& location) {
    for (const auto& m : plan.manifests)
        if (m.location == location) return &m;
    return nullptr;
}

// A text layer as one metadata value (the file's own text; invalid UTF-8 escaped, with a warning).
void add_layer_text(const locate::TextLayer& layer, const io::RangeReply& reply, model::FileHeader& h) {
    if (reply.body.size() > kMaxLayerBytes) {
        h.warnings.push_back({0, "ollama " + layer.kind + " layer is over the " + std::to_string(kMaxLayerBytes) +
                                     "-byte cap: listed in ollama.layers, its text not stored"});
        return;
    }
    model::MetadataEntry e{"ollama." + layer.kind, model::ValueType::string,
                            std::string(reply.body.begin(), reply.body.end()), 0};
    if (auto w = model::escape_string_value(e)) h.warnings.push_back(*w);
    h.metadata.push_back(std::move(e));
}

// What changes when a file is rewritten under us: the ETag, or locally the stat.
std::string version_of(const io::RangeReply& r) {
    if (r.stat) return std::to_string(r.stat->mtime_ns) + "/" + std::to_string(r.stat->size);
    return r.etag;
}

}  // namespace

struct ModelPipeline::Job {
    void derive();
    locate::ModelPlan plan;
    std::vector<std::string> files;                // all_files(plan): data files, then index and config
    std::vector<std::optional<FileRecord>> read;   // one per file
    size_t pending = 0;
    bool known = false, finished = false;
    ModelOutcome outcome;
    std::optional<model::ModelRows> rows;  // what derive() made of the files, to be written
    std::optional<model::Failure> failure;          // or why they are not one model
};

struct ModelPipeline::FileRead {
    FileRead(const std::string& location, format::HeaderReadOptions options, io::RangeRequest origin, size_t i, bool again)
        : assembler(location, std::move(options)), route(std::move(origin)), index(i), restarted(again) {}
    void parse();
    format::HeaderAssembler assembler;
    io::RangeReply last;                       // the latest reply; its bytes go to the assembler
    std::optional<format::ByteRange> next;     // what parse() asks to read next, if anything
    std::optional<model::FormatError> error;  // or what it found wrong
    size_t index;
    bool restarted;
    ReadCost cost;
    std::string version;  // of the first reply
    // Where the reads go: after the first read's redirect, its target (a presigned storage URL),
    // directly; the headers the redirect carried identify the file.
    io::ReadRoute route;
    format::ByteRange asked;  // the read in flight
    Clock::time_point started = Clock::now();
};

ModelPipeline::ModelPipeline(catalog::Writer& catalog, int64_t crawl_id, io::RangeReader& reader,
                             PipelineOptions options, const locate::RemoteFacts& known, std::function<void(ModelOutcome)> account)
    : catalog_(catalog), crawl_id_(crawl_id), reader_(reader), options_(std::move(options)), known_(known),
      account_(std::move(account)) {}

ModelPipeline::~ModelPipeline() = default;

bool ModelPipeline::run(std::vector<locate::ModelPlan> plans) {
    for (auto& p : plans) queue_.push_back(std::move(p));
    start_next();
    reader_.run();
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
    auto job = std::make_shared<Job>();
    job->files = locate::all_files(plan);
    job->plan = std::move(plan);
    job->read.resize(job->files.size());
    job->outcome.location = job->files.empty() ? std::string() : job->files.front();
    job->known = catalog_.stored_file(job->outcome.location).has_value();
    if (options_.force) read_all(job);
    else check_unchanged(job);
}

// What can be known of a file without a request: a stat (with the digest a
// store names a blob by), a listing's sha256, or the answer that brought a JSON
// file while planning.
std::optional<FileIdentity> ModelPipeline::identity_now(const locate::ModelPlan& plan, const std::string& location) const {
    if (!locate::is_remote(location)) return local_identity(location, digest_of(plan, location));
    if (auto it = known_.listed.find(location); it != known_.listed.end() && (it->second.sha256 || it->second.xet_hash))
        return FileIdentity{it->second.size, std::nullopt, std::nullopt, it->second.sha256, it->second.xet_hash};
    if (auto it = known_.fetched.find(location); it != known_.fetched.end() && it->second.ok())
        return FileIdentity{it->second.body.size(), std::nullopt, it->second.etag, std::nullopt, std::nullopt};
    return std::nullopt;
}

void ModelPipeline::check_unchanged(const JobPtr& job) {
    ModelSameness s = compare_model(catalog_, job->files, [&](const std::string& f) { return identity_now(job->plan, f); });
    switch (s.result) {
        case Sameness::same: return unchanged(job);
        case Sameness::changed: return read_all(job);
        case Sameness::ask: return ask_server(job, std::move(s.to_ask));
    }
}

// One conditional 1-byte request per file: a 304, or the same ETag, is unchanged.
void ModelPipeline::ask_server(const JobPtr& job, std::vector<std::pair<std::string, std::string>> to_ask) {
    auto answers = std::make_shared<size_t>(to_ask.size());
    auto changed = std::make_shared<bool>(false);
    for (const auto& [location, etag] : to_ask) {
        io::RangeRequest r = request(location, 0, 1);
        r.if_none_match = etag;
        reader_.submit(std::move(r), [this, job, answers, changed, etag](io::RangeReply reply) {
            add_cost(job->outcome, reply);
            if (!(reply.status == 304 || (reply.ok() && reply.etag == etag))) *changed = true;
            if (--*answers > 0) return;
            if (*changed) read_all(job);
            else unchanged(job);
        });
    }
}

void ModelPipeline::unchanged(const JobPtr& job) {
    checked_.insert(checked_.end(), job->files.begin(), job->files.end());
    job->outcome.status = ModelStatus::unchanged;
    job->outcome.files = job->files.size();
    done(job);
}

void ModelPipeline::read_all(const JobPtr& job) {
    job->pending = job->files.size();
    if (job->pending == 0) return finish(job);
    for (size_t i = 0; i < job->files.size(); ++i) {
        if (i < job->plan.data_files.size()) read_data(job, i, false);
        else read_side_file(job, i);
    }
}

void ModelPipeline::read_data(const JobPtr& job, size_t index, bool restarted) {
    const std::string& location = job->files[index];
    format::HeaderReadOptions ro;
    ro.limits = options_.limits;
    ro.read_generously = options_.read_generously;
    ro.first_read = location.ends_with(".safetensors") ? options_.first_read_safetensors : options_.first_read_gguf;
    auto fr = std::make_shared<FileRead>(location, ro, request(location, 0, 0), index, restarted);
    read_range(job, fr, fr->assembler.first_read());
}

void ModelPipeline::read_range(const JobPtr& job, const std::shared_ptr<FileRead>& fr, format::ByteRange range) {
    fr->asked = range;
    io::RangeRequest r = fr->route.request(range.offset, range.length);
    if (!locate::is_remote(r.location)) r.append_to = &fr->assembler.buffer();
    reader_.submit(std::move(r), [this, job, fr](io::RangeReply reply) { on_range(job, fr, std::move(reply)); });
}

void ModelPipeline::on_range(const JobPtr& job, const std::shared_ptr<FileRead>& fr, io::RangeReply reply) {
    if (job->finished) return;
    fr->cost.add(reply);
    add_cost(job->outcome, reply);
    const std::string& location = job->files[fr->index];
    auto fail_here = [&](std::optional<uint64_t> offset, const std::string& msg) { fail(job, {location, offset, "", msg}); };
    if (fr->route.refused(reply)) return read_range(job, fr, fr->asked);
    if (!reply.ok()) return fail_here(std::nullopt, options_.access.explain(reply));
    fr->route.follow(reply);
    if (!reply.total_size) return fail_here(std::nullopt, "the server did not say the file's size: " + reply.location);
    // A file that changes under us, or disagrees with its listing, is read again once from scratch.
    std::string problem;
    auto listed = known_.listed.find(location);
    if (listed != known_.listed.end() && *reply.total_size != listed->second.size)
        problem = "Content-Range says " + std::to_string(*reply.total_size) + " bytes but the Hub listing says " +
                  std::to_string(listed->second.size);
    else if (!fr->version.empty() && version_of(reply) != fr->version)
        problem = "the file changed while being read (" + fr->version + ", then " + version_of(reply) + ")";
    if (!problem.empty()) {
        if (fr->restarted) return fail_here(std::nullopt, problem + ": " + reply.location);
        return read_data(job, fr->index, true);
    }
    if (fr->version.empty()) fr->version = version_of(reply);
    fr->last = std::move(reply);
    reader_.offload([fr] { fr->parse(); }, [this, job, fr] { parsed(job, fr); });
}

// Where the bytes arrived: the parse, and the header's hash when it completes.
void ModelPipeline::FileRead::parse() {
    try {
        next = last.appended ? assembler.parse(*last.total_size) : assembler.add(std::move(last.body), *last.total_size);
    } catch (const model::FormatError& e) {
        error = e;
    }
}

void ModelPipeline::parsed(const JobPtr& job, const std::shared_ptr<FileRead>& fr) {
    if (job->finished) return;
    const std::string& location = job->files[fr->index];
    if (fr->error) return fail(job, fr->error->failure(location));
    if (fr->next) return read_range(job, fr, *fr->next);
    io::RangeReply& reply = fr->last;
    if (reply.first_hop.empty()) reply.first_hop = fr->route.first_hop();  // identity headers came with the redirect
    fr->cost.ms = std::chrono::duration<double, std::milli>(Clock::now() - fr->started).count();
    auto listed = known_.listed.find(location);
    const locate::ListingEntry* listing = listed == known_.listed.end() ? nullptr : &listed->second;
    file_done(job, fr->index, file_record(location, FileRole::data, fr->assembler.take(), fr->cost, reply, listing));
}

const locate::ListingEntry* ModelPipeline::listing(const std::string& location) const {
    auto it = known_.listed.find(location);
    return it == known_.listed.end() ? nullptr : &it->second;
}

// index.json, config.json and Ollama manifests: fetched while planning when remote, else read whole now.
void ModelPipeline::read_side_file(const JobPtr& job, size_t index) {
    const std::string& location = job->files[index];
    if (auto it = known_.fetched.find(location); it != known_.fetched.end()) return side_file_done(job, index, it->second);
    reader_.submit(request(location, 0, 0), [this, job, index](io::RangeReply reply) {
        add_cost(job->outcome, reply);  // JSON fetched while planning was counted by the planning
        if (job->finished) return;
        side_file_done(job, index, reply);
    });
}

void ModelPipeline::side_file_done(const JobPtr& job, size_t index, const io::RangeReply& reply) {
    const std::string& location = job->files[index];
    if (!reply.ok()) return fail(job, {location, std::nullopt, "", options_.access.explain(reply)});
    if (const locate::ManifestFile* m = manifest_of(job->plan, location))
        return read_layers(job, index, *m, side_record(location, FileRole::manifest, model::Format::json, reply, {}, listing(location)));
    const bool is_index = job->plan.index && location == *job->plan.index;
    std::vector<model::MetadataEntry> metadata;
    try {
        if (is_index) metadata = job->plan.parsed_index->metadata;
        else metadata = format::parse_model_config(reply.body);
    } catch (const model::FormatError& e) {
        return fail(job, e.failure(location));
    }
    const FileRole role = is_index ? FileRole::index : FileRole::config;
    file_done(job, index, side_record(location, role, model::Format::json, reply, std::move(metadata), listing(location)));
}

// A manifest's text layers, each read up to one byte past the cap: the manifest's record holds them.
void ModelPipeline::read_layers(const JobPtr& job, size_t index, const locate::ManifestFile& manifest, FileRecord record) {
    auto rec = std::make_shared<FileRecord>(std::move(record));
    rec->header.metadata.push_back({"ollama.layers", model::ValueType::string, manifest.layers_json, 0});
    auto pending = std::make_shared<size_t>(manifest.layers.size());
    if (*pending == 0) return file_done(job, index, std::move(*rec));
    for (const locate::TextLayer& layer : manifest.layers)
        reader_.submit(request(layer.location, 0, kMaxLayerBytes + 1), [this, job, index, rec, pending, layer](io::RangeReply r) {
            add_cost(job->outcome, r);
            rec->cost.add(r);
            if (job->finished) return;
            if (!r.ok()) return fail(job, {layer.location, std::nullopt, "", options_.access.explain(r)});
            add_layer_text(layer, r, rec->header);
            if (--*pending == 0) file_done(job, index, std::move(*rec));
        });
}

void ModelPipeline::file_done(const JobPtr& job, size_t index, FileRecord record) {
    if (auto d = digest_of(job->plan, record.location)) record.identity.sha256 = d;
    job->outcome.tensors += record.header.tensors.size();
    job->outcome.warnings += record.header.warnings.size();
    job->read[index] = std::move(record);
    if (--job->pending == 0) finish(job);
}

void ModelPipeline::finish(const JobPtr& job) {
    if (job->finished) return;
    reader_.offload([job] { job->derive(); }, [this, job] { store(job); });
}

// Where the bytes arrived: every file read, so this job is touched by nothing else meanwhile.
void ModelPipeline::Job::derive() {
    std::vector<FileRecord> files;
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
    job->outcome.status = job->known ? ModelStatus::changed : ModelStatus::added;
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
