#include "locate/remote_plan.hpp"

#include <fnmatch.h>

#include <memory>
#include <set>

#include "format/hub_listing.hpp"
#include "format/ollama_manifest.hpp"
#include "io/io_error.hpp"
#include "locate/hub.hpp"
#include "locate/ollama_models.hpp"
#include "locate/ollama_registry.hpp"
#include "locate/stores.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace modelcat::locate {

namespace {

// Plans from what the listings and JSON fetches found.
class FetchedLocator final : public Locator {
public:
    explicit FetchedLocator(const RemoteFacts& known) : known_(known) {}
    std::set<std::string> exist;
    bool exists(const std::string& location) const override { return exist.count(location) > 0; }
    std::string read_text(const std::string& location) const override {
        auto it = known_.fetched.find(location);
        if (it == known_.fetched.end() || !it->second.ok()) throw io::IoError(location + ": could not be fetched");
        return std::string(it->second.body.begin(), it->second.body.end());
    }

private:
    const RemoteFacts& known_;
};

class RemotePlanner {
public:
    RemotePlanner(io::RangeReader& reader, const HttpAccess& access, const HubMemory& memory)
        : reader_(reader), access_(access), discoverer_(memory, access.hf_endpoint, discovery_hooks()) {}
    RemotePlan plan(const std::vector<std::string>& inputs);

private:
    // The pages of one listing read so far: a page linking back to one of them ends it.
    using Pages = std::shared_ptr<std::set<std::string>>;
    void list_hub(const HubInput& hub, const std::string& url, Pages pages);
    void add_listing(const HubInput& hub, const io::RangeReply& reply, const Pages& pages);
    bool stopping() const { return access_.http.should_stop && access_.http.should_stop(); }
    void fetch_json(const std::string& url, bool optional);
    void fetch_manifest(const OllamaRef& ref);
    void add_manifest(const OllamaRef& ref, const io::RangeReply& reply);
    io::RangeRequest whole(const std::string& url) const { return access_.request(url); }
    HubDiscoverer::Hooks discovery_hooks();
    void plan_discovery(const std::string& input);
    void listing_failed(const HubInput& hub, model::Failure problem) {
        if (!hub.scope.empty()) discoverer_.listing_done(hub, false);
        problems_.push_back(std::move(problem));
    }
    void count(const io::RangeReply& reply) {
        out_.cost.requests += reply.requests;
        out_.cost.bytes_read += reply.bytes;
        out_.cost.by_kind.add(request_kinds(reply));
    }

    io::RangeReader& reader_;
    const HttpAccess& access_;
    RemotePlan out_;
    std::vector<model::Failure> problems_;
    std::vector<ModelPlan> ollama_;  // models of the registry tags asked for
    std::map<std::string, ListingEntry> ollama_blobs_;  // their blobs, known from the manifests
    HubDiscoverer discoverer_;
    std::set<std::string> scopes_;  // the many-repository inputs started
};

HubDiscoverer::Hooks RemotePlanner::discovery_hooks() {
    HubDiscoverer::Hooks h;
    h.fetch = [this](const std::string& url, std::function<void(const io::RangeReply&)> done) {
        reader_.submit(whole(url), [this, done](io::RangeReply reply) {
            count(reply);
            done(reply);
        });
    };
    h.list_repo = [this](const HubInput& hub) {
        list_hub(hub, hub_listing_url(access_.hf_endpoint, hub), std::make_shared<std::set<std::string>>());
    };
    h.problem = [this](model::Failure p) { problems_.push_back(std::move(p)); };
    h.explain = [this](const io::RangeReply& r) { return access_.explain(r); };
    h.stopping = [this] { return stopping(); };
    return h;
}

void RemotePlanner::plan_discovery(const std::string& input) {
    std::string why;
    if (!scopes_.insert(input).second) return;  // named twice: listed once
    if (auto scope = parse_hub_scope(input, why)) discoverer_.start(*scope);
    else problems_.push_back({.location = input, .message = why});
}

void RemotePlanner::list_hub(const HubInput& hub, const std::string& url, Pages pages) {
    pages->insert(url);
    reader_.submit(whole(url), [this, hub, pages](io::RangeReply reply) {
        count(reply);
        if (reply.status == 404 && pages->size() == 1 && discoverer_.listing_missing(hub)) return;  // deleted since: gone
        if (!reply.ok()) return listing_failed(hub, {.location = hub.input, .message = access_.explain(reply)});
        add_listing(hub, reply, pages);
    });
}

void RemotePlanner::add_listing(const HubInput& hub, const io::RangeReply& reply, const Pages& pages) {
    std::vector<format::HubTreeEntry> files;
    try {
        files = format::parse_hub_listing(reply.body);
    } catch (const model::FormatError& e) {
        model::Failure problem = e.failure(hub.input);
        problem.message += ": " + reply.location;
        return listing_failed(hub, std::move(problem));
    }
    if (auto why = bad_hub_commit(reply)) return listing_failed(hub, {.location = hub.input, .message = *why});
    const std::string pinned = hub_commit(reply).value_or(hub.revision);
    for (const auto& f : files) {
        if (!wanted_hub_file(f.path)) continue;
        if (!hub.glob.empty() && fnmatch(hub.glob.c_str(), f.path.c_str(), 0) != 0 && !f.path.ends_with("config.json") &&
            !f.path.ends_with(".index.json"))
            continue;
        out_.known.listed[hub_resolve_url(access_.hf_endpoint, hub.repo, hub.revision, f.path)] =
            ListingEntry{f.size, f.sha256, f.xet_hash, pinned, hub_resolve_url(access_.hf_endpoint, hub.repo, pinned, f.path)};
    }
    const auto next = reply.link_next;
    if (!next && !hub.scope.empty()) discoverer_.listing_done(hub, true);
    if (!next || stopping()) return;
    if (pages->count(*next))
        return listing_failed(hub, {.location = hub.input, .message = "the listing's next page is one already read: " + *next});
    if (pages->size() == model::Limits::max_listing_pages)
        return listing_failed(hub, {.location = hub.input, .message = "the listing has more than " +
                                                                      std::to_string(model::Limits::max_listing_pages) +
                                                                      " pages (the cap): " + reply.location});
    list_hub(hub, *next, pages);
}

void RemotePlanner::fetch_json(const std::string& url, bool optional) {
    auto it = out_.known.listed.find(url);
    io::RangeRequest r = whole(it != out_.known.listed.end() && it->second.fetch_url ? *it->second.fetch_url : url);
    reader_.submit(r, [this, url, optional](io::RangeReply reply) {
        count(reply);
        if (reply.ok() && reply.status == 200) out_.known.fetched[url] = std::move(reply);
        else if (!(optional && reply.missing())) out_.known.fetched[url] = std::move(reply);  // fails when planned
    });
}

void RemotePlanner::fetch_manifest(const OllamaRef& ref) {
    reader_.submit(whole(ollama_manifest_url(ref)), [this, ref](io::RangeReply reply) {
        count(reply);
        if (!reply.ok()) return problems_.push_back({.location = ref.input, .message = access_.explain(reply)});
        add_manifest(ref, reply);
    });
}

// The tag's models; its blobs are known by digest and size before any is read (the unchanged check).
void RemotePlanner::add_manifest(const OllamaRef& ref, const io::RangeReply& reply) {
    const OllamaTag tag{"ollama://" + ref.registry, ref.registry, ref.repo_path, ref.tag, ollama_manifest_url(ref)};
    try {
        auto layers = format::parse_ollama_manifest(reply.body);
        auto blob = [&](const format::OllamaLayer& l) {
            const std::string url = ollama_blob_url(ref, l.digest);
            ollama_blobs_[url] = ListingEntry{l.size, l.digest.substr(7), std::nullopt, ref.tag, std::nullopt};
            return url;
        };
        for (auto& m : ollama_models(layers, tag, blob)) ollama_.push_back(std::move(m));
        out_.known.fetched[tag.manifest] = reply;  // the model's manifest file: not fetched again
    } catch (const model::FormatError& e) {
        model::Failure problem = e.failure(ref.input);
        problem.message += ": " + reply.location;
        problems_.push_back(std::move(problem));
    }
}

RemotePlan RemotePlanner::plan(const std::vector<std::string>& inputs) {
    std::vector<std::string> urls;
    for (const auto& in : inputs) {
        if (in.starts_with("ollama://")) {
            if (auto ref = parse_ollama_input(in)) fetch_manifest(*ref);
            else problems_.push_back({.location = in, .message = "not an ollama://[registry/]namespace/model[:tag] input"});
        } else if (is_hub_scope_input(in)) {
            plan_discovery(in);
        } else if (auto hub = parse_hub_input(in)) {
            out_.gone_scopes.push_back(hub_resolve_url(access_.hf_endpoint, hub->repo, hub->revision, ""));
            list_hub(*hub, hub_listing_url(access_.hf_endpoint, *hub), std::make_shared<std::set<std::string>>());
        } else if (in.starts_with("hf://")) {
            problems_.push_back({.location = in, .message = "not an hf://owner/repo[@revision][/glob] input"});
        } else {
            urls.push_back(in);
        }
    }
    reader_.run();  // listings, and their next pages; the models API's pages, and the repositories they show changed
    discoverer_.retry_pending();
    reader_.run();
    out_.discovery = discoverer_.result();
    for (const auto& d : out_.discovery.repos)  // a repository listed whole: its files not listed are gone
        if (d.listed && d.verdict != RepoVerdict::gone) out_.gone_scopes.push_back(d.folder);
    for (const auto& [location, info] : out_.known.listed) urls.push_back(location);
    // index.json files, and config.json beside them (or beside a lone model.safetensors)
    for (const auto& u : urls) {
        bool index = u.ends_with(".safetensors.index.json");
        if (index) fetch_json(u, false);
        if (!index && !u.ends_with("/model.safetensors")) continue;
        std::string config = sibling(u, "config.json");
        bool listed = out_.known.listed.count(config) > 0;
        if (listed || !out_.known.listed.count(u)) fetch_json(config, !listed);
    }
    reader_.run();
    FetchedLocator locator(out_.known);
    locator.exist.insert(urls.begin(), urls.end());
    for (auto it = out_.known.fetched.begin(); it != out_.known.fetched.end();) {
        if (it->second.ok() && it->second.status == 200) {
            locator.exist.insert(it->first);
            ++it;
            continue;
        }
        locator.exist.erase(it->first);
        problems_.push_back({.location = it->first, .message = access_.explain(it->second)});
        it = out_.known.fetched.erase(it);
    }
    std::vector<std::string> files;
    for (const auto& u : urls)
        if (!u.ends_with("/config.json") && locator.exist.count(u)) files.push_back(u);
    out_.plan = plan_crawl(files, problems_, locator);
    for (auto& m : one_model_per_blob(std::move(ollama_))) out_.plan.models.push_back(std::move(m));
    out_.known.listed.merge(ollama_blobs_);
    return std::move(out_);
}

}  // namespace

RemotePlan plan_remote(io::RangeReader& reader, const std::vector<std::string>& inputs, const HttpAccess& access,
                       const HubMemory& memory) {
    return RemotePlanner(reader, access, memory).plan(inputs);
}

}  // namespace modelcat::locate
