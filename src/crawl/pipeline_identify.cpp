// The pipeline's identify stage: is the model unchanged since it was catalogued
// (crawl/identify.hpp's rule), asking the server only when nothing else can tell?
#include "crawl/identify.hpp"
#include "crawl/pipeline.hpp"
#include "crawl/pipeline_state.hpp"

namespace modelcat::crawl {

// What can be known of a file without a request: a stat (with the digest a
// store names a blob by), a listing's sha256, or the answer that brought a JSON
// file while planning.
std::optional<ContentIdentity> ModelPipeline::identity_now(const locate::ModelPlan& plan, const std::string& location) const {
    if (!locate::is_remote(location)) return local_identity(location, digest_of(plan, location));
    if (auto it = known_.listed.find(location); it != known_.listed.end() && (it->second.sha256 || it->second.xet_hash))
        return ContentIdentity{it->second.size, std::nullopt, std::nullopt, it->second.sha256, it->second.xet_hash};
    if (auto it = known_.fetched.find(location); it != known_.fetched.end() && it->second.ok())
        return ContentIdentity{it->second.body.size(), std::nullopt, it->second.etag, std::nullopt, std::nullopt};
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

}  // namespace modelcat::crawl
