#include "crawl/identify.hpp"

namespace modelcat::crawl {

namespace {
Sameness same_if(bool equal) { return equal ? Sameness::same : Sameness::changed; }
}  // namespace

std::optional<ContentIdentity> local_identity(const std::string& path, const std::optional<std::string>& digest) {
    auto st = io::stat_file(path);
    if (!st) return std::nullopt;
    return ContentIdentity{st->size, st, std::nullopt, digest, std::nullopt};
}

std::optional<std::string> digest_of(const locate::ModelPlan& plan, const std::string& location) {
    auto it = plan.digests.find(location);
    return it == plan.digests.end() ? std::nullopt : std::optional(it->second);
}

Sameness compare_identity(const catalog::StoredIdentity& stored, const std::optional<ContentIdentity>& now) {
    const bool has_etag = stored.etag && !stored.etag->empty();
    if (!now) return has_etag ? Sameness::ask : Sameness::changed;
    if (now->sha256 && stored.sha256) return same_if(*now->sha256 == *stored.sha256);
    if (now->xet_hash && stored.xet_hash) return same_if(*now->xet_hash == *stored.xet_hash);
    if (const auto& st = now->stat)
        return same_if(stored.size == st->size && stored.mtime_ns == st->mtime_ns && stored.inode == st->inode &&
                       stored.device == st->device);
    if (now->etag && !now->etag->empty() && has_etag) return same_if(*now->etag == *stored.etag);
    return Sameness::changed;
}

ModelSameness compare_model(catalog::Writer& catalog, const std::vector<std::string>& files,
                            const std::function<std::optional<ContentIdentity>(const std::string&)>& identity_now) {
    ModelSameness out;
    std::optional<int64_t> model_id;
    for (const auto& f : files) {
        auto stored = catalog.stored_file(f);
        if (!stored || stored->status != "ok" || (model_id && *model_id != stored->model_id)) return {};
        model_id = stored->model_id;
        switch (compare_identity(*stored, identity_now(f))) {
            case Sameness::same: break;
            case Sameness::changed: return {};
            case Sameness::ask: out.to_ask.emplace_back(f, *stored->etag); break;
        }
    }
    if (!model_id || catalog.model_files(*model_id) != files) return {};
    out.result = out.to_ask.empty() ? Sameness::same : Sameness::ask;
    return out;
}

}  // namespace modelcat::crawl
