// The pipeline's read stage: each data file's header through format::HeaderAssembler
// over the reader's replies (along its io::ReadRoute), the side files (index.json,
// config.json, Ollama manifests and their text layers), each made a CrawledFile.
#include "crawl/pipeline.hpp"

#include <chrono>

#include "crawl/identify.hpp"
#include "crawl/pipeline_state.hpp"
#include "format/checkpoint.hpp"
#include "format/model_config.hpp"
#include "model/utf8.hpp"

namespace modelcat::crawl {

namespace {

// A longer text layer (a license) is listed in ollama.layers but its text not stored.
constexpr uint64_t kMaxLayerBytes = 256 << 10;

// A model's data files read at once: a name or an index promising thousands of shards
// costs no more than this past its first missing one (the first failure ends the model).
constexpr size_t kDataReadsPerModel = 4;

const locate::PlannedManifest* manifest_of(const locate::ModelPlan& plan, const std::string& location) {
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

// What changes when a file is rewritten under us: the ETag and the size the server says, or locally the stat.
std::string version_of(const io::RangeReply& r) {
    if (r.stat) return std::to_string(r.stat->mtime_ns) + "/" + std::to_string(r.stat->size);
    return r.etag + "/" + std::to_string(r.total_size.value_or(0));
}

}  // namespace

void ModelPipeline::read_all(const JobPtr& job) {
    job->pending = job->files.size();
    if (job->pending == 0) return finish(job);
    read_next_data(job);
    for (size_t i = job->plan.data_files.size(); i < job->files.size() && !job->finished; ++i) read_side_file(job, i);
}

// Starts data reads up to kDataReadsPerModel in flight, while the model has not failed.
void ModelPipeline::read_next_data(const JobPtr& job) {
    while (!job->finished && job->next_data < job->plan.data_files.size() && job->data_reading < kDataReadsPerModel) {
        ++job->data_reading;
        read_data(job, job->next_data++, false);
    }
}

void ModelPipeline::read_data(const JobPtr& job, size_t index, bool restarted) {
    const std::string& location = job->files[index];
    std::unique_ptr<format::ByteBuffer> buffer;
    if (options_.header_reads_at_once > 0) {
        if (header_reads_ == options_.header_reads_at_once) return waiting_reads_.push_back({job, index, restarted});
        ++header_reads_;
        if (spare_buffers_.empty()) {
            buffer = std::make_unique<format::ByteBuffer>();
        } else {
            buffer = std::move(spare_buffers_.back());
            spare_buffers_.pop_back();
        }
    }
    format::HeaderReadOptions ro;
    ro.limits = options_.limits;
    ro.read_generously = options_.read_generously;
    ro.first_read = location.ends_with(".safetensors") ? options_.first_read_safetensors : options_.first_read_gguf;
    auto fr = std::make_shared<HeaderRead>(location, ro, request(location, 0, 0), index, restarted, std::move(buffer));
    read_range(job, fr, fr->assembler.first_read());
}

// Every header read ends here, whatever its outcome: its buffer goes to the next read, which starts.
void ModelPipeline::end_read(const std::shared_ptr<HeaderRead>& fr) {
    if (!fr->buffer) return;
    spare_buffers_.push_back(std::move(fr->buffer));
    --header_reads_;
    while (!waiting_reads_.empty() && header_reads_ < options_.header_reads_at_once) {
        WaitingRead w = std::move(waiting_reads_.front());
        waiting_reads_.pop_front();
        if (!w.job->finished) read_data(w.job, w.index, w.restarted);
    }
}

void ModelPipeline::read_range(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr, format::ByteRange range) {
    fr->asked = range;
    io::RangeRequest r = fr->route.request(range.offset, range.length);
    if (!locate::is_remote(r.location)) {
        r.append_to = &fr->assembler.buffer();
        r.read_ahead = false;
    }
    reader_.submit(std::move(r), [this, job, fr](io::RangeReply reply) { on_range(job, fr, std::move(reply)); });
}

void ModelPipeline::on_range(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr, io::RangeReply reply) {
    if (job->finished) return end_read(fr);
    fr->cost.add(reply);
    add_cost(job->outcome, reply);
    const std::string& location = job->files[fr->index];
    auto fail_here = [&](std::optional<uint64_t> offset, const std::string& msg) {
        end_read(fr);
        fail(job, {location, offset, "", msg});
    };
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
        end_read(fr);
        return read_data(job, fr->index, true);
    }
    if (fr->version.empty()) fr->version = version_of(reply);
    fr->last = std::move(reply);
    reader_.offload([fr] { fr->parse(); }, [this, job, fr] { parsed(job, fr); });
}

// Where the bytes arrived: the parse, and the header's hash when it completes.
void HeaderRead::parse() {
    try {
        next = last.appended ? assembler.parse(*last.total_size) : assembler.add(std::move(last.body), *last.total_size);
    } catch (const model::FormatError& e) {
        error = e;
    }
}

void ModelPipeline::parsed(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr) {
    if (job->finished) return end_read(fr);
    const std::string& location = job->files[fr->index];
    if (fr->error) {
        end_read(fr);
        return fail(job, fr->error->failure(location));
    }
    if (fr->next && stop_asked()) {  // between a header's reads: a huge one ends here, not after its last read
        end_read(fr);
        return abandon(job);
    }
    if (fr->next) return read_range(job, fr, *fr->next);
    io::RangeReply& reply = fr->last;
    if (reply.first_hop.empty()) reply.first_hop = fr->route.first_hop();  // identity headers came with the redirect
    fr->cost.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - fr->started).count();
    auto listed = known_.listed.find(location);
    const locate::ListingEntry* listing = listed == known_.listed.end() ? nullptr : &listed->second;
    CrawledFile record = crawled_file(location, FileRole::data, fr->assembler.take(), fr->cost, reply, listing);
    end_read(fr);
    file_done(job, fr->index, std::move(record));
}

// A stop signal (not a --deadline, which lets reads in flight finish).
bool ModelPipeline::stop_asked() const { return options_.access.http.should_stop && options_.access.http.should_stop(); }

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
    if (const locate::PlannedManifest* m = manifest_of(job->plan, location))
        return read_layers(job, index, *m, crawled_side_file(location, FileRole::manifest, model::Format::json, reply, {}, listing(location)));
    const bool is_index = job->plan.index && location == *job->plan.index;
    std::vector<model::MetadataEntry> metadata;
    try {
        if (is_index) metadata = job->plan.parsed_index->metadata;
        else metadata = format::parse_model_config(reply.body);
    } catch (const model::FormatError& e) {
        return fail(job, e.failure(location));
    }
    const FileRole role = is_index ? FileRole::index : FileRole::config;
    file_done(job, index, crawled_side_file(location, role, model::Format::json, reply, std::move(metadata), listing(location)));
}

// A manifest's text layers, each read up to one byte past the cap: the manifest's record holds them.
void ModelPipeline::read_layers(const JobPtr& job, size_t index, const locate::PlannedManifest& manifest, CrawledFile record) {
    auto rec = std::make_shared<CrawledFile>(std::move(record));
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

void ModelPipeline::file_done(const JobPtr& job, size_t index, CrawledFile record) {
    if (auto d = digest_of(job->plan, record.location)) record.identity.sha256 = d;
    job->outcome.tensors += record.header.tensors.size();
    job->outcome.warnings += record.header.warnings.size();
    job->read[index] = std::move(record);
    if (index < job->plan.data_files.size()) {
        --job->data_reading;
        read_next_data(job);
    }
    if (--job->pending == 0) finish(job);
}

}  // namespace modelcat::crawl
