#include "crawl/remote.hpp"

#include <fnmatch.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "crawl/crawler.hpp"
#include "crawl/model_assembly.hpp"
#include "crawl/plan.hpp"
#include "format/checkpoint.hpp"
#include "format/hub_listing.hpp"
#include "format/text.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;

struct HubInput {
    std::string input, repo, revision = "main", glob;
};

// hf://owner/repo[@revision][/glob]
std::optional<HubInput> parse_hub_input(const std::string& s) {
    if (!s.starts_with("hf://")) return std::nullopt;
    HubInput h;
    h.input = s;
    std::string rest = s.substr(5);
    size_t slash1 = rest.find('/');
    if (slash1 == std::string::npos || slash1 == 0) return std::nullopt;
    size_t slash2 = rest.find('/', slash1 + 1);
    h.repo = rest.substr(0, slash2);
    if (slash2 != std::string::npos) h.glob = rest.substr(slash2 + 1);
    if (size_t at = h.repo.find('@'); at != std::string::npos) {
        h.revision = h.repo.substr(at + 1);
        h.repo = h.repo.substr(0, at);
    }
    if (h.repo.empty() || h.repo.back() == '/' || h.revision.empty()) return std::nullopt;
    return h;
}

bool wanted_hub_file(const std::string& path) {
    std::string base = path.substr(path.rfind('/') + 1);
    return path.ends_with(".gguf") || path.ends_with(".safetensors") || base == "model.safetensors.index.json" ||
           base == "config.json";
}

// Plans from what the listings and JSON prefetches found.
class RemoteLocator final : public Locator {
public:
    std::set<std::string> known;
    std::map<std::string, std::string> texts;
    bool exists(const std::string& location) const override { return known.count(location) > 0; }
    std::string read_text(const std::string& location) const override {
        auto it = texts.find(location);
        if (it == texts.end()) throw io::IoError(location + ": could not be fetched");
        return it->second;
    }
};

// A fetched JSON file, kept for the model that owns it.
struct FetchedJson {
    std::string body;
    io::HttpResponse response;
};

class RemoteCrawl {
public:
    RemoteCrawl(catalog::Catalog& catalog, int64_t crawl_id, const RemoteOptions& options, const format::Limits& limits,
                bool force, const std::function<void(ModelOutcome)>& account)
        : catalog_(catalog), crawl_id_(crawl_id), options_(options), limits_(limits), force_(force), account_(account),
          fetcher_(options.http) {}

    RemoteResult run(const std::vector<std::string>& inputs);

private:
    struct HubFileInfo {
        uint64_t size;
        std::optional<std::string> sha256, revision;
        std::string fetch_url;  // pinned to the listing's commit when known
    };
    struct ModelJob;
    struct FileRead;

    io::HttpRequest request(const std::string& url, uint64_t offset, uint64_t length) const {
        io::HttpRequest r{fetch_url(url), offset, length};
        r.with_token = r.url.starts_with(options_.hf_endpoint + "/");  // the token goes to the Hub only
        return r;
    }
    std::string fetch_url(const std::string& location) const {
        auto it = hub_files_.find(location);
        return it == hub_files_.end() ? location : it->second.fetch_url;
    }
    void list_hub(const HubInput& hub, const std::string& url);
    void fetch_json(const std::string& url, bool optional);
    void start_model(const ModelPlan& plan);
    void check_unchanged(const std::shared_ptr<ModelJob>& job);
    void read_model(const std::shared_ptr<ModelJob>& job);
    void read_file(const std::shared_ptr<ModelJob>& job, size_t index, bool restarted);
    void on_range(const std::shared_ptr<ModelJob>& job, const std::shared_ptr<FileRead>& fr, io::HttpResponse resp);
    void file_failed(const std::shared_ptr<ModelJob>& job, const std::string& location, std::optional<uint64_t> offset,
                     const std::string& message);
    void finish(const std::shared_ptr<ModelJob>& job);

    catalog::Catalog& catalog_;
    int64_t crawl_id_;
    const RemoteOptions& options_;
    format::Limits limits_;
    bool force_;
    const std::function<void(ModelOutcome)>& account_;
    io::HttpFetcher fetcher_;
    std::vector<InputProblem> problems_;
    std::map<std::string, HubFileInfo> hub_files_;  // by location
    std::vector<std::string> gone_scopes_;
    std::map<std::string, FetchedJson> json_;       // by location
};

struct RemoteCrawl::ModelJob {
    ModelPlan plan;
    std::vector<std::optional<catalog::FileRecord>> data;  // one per data file
    size_t pending = 0;
    bool failed = false, known = false;
    ModelOutcome outcome;
};

struct RemoteCrawl::FileRead {
    FileRead(const std::string& loc, const HeaderReadOptions& ro, bool again)
        : location(loc), assembler(loc, ro), restarted(again) {}
    std::string location;
    HeaderAssembler assembler;
    Clock::time_point started = Clock::now();
    uint64_t requests = 0, bytes = 0;
    std::string etag;
    bool restarted;
};

void RemoteCrawl::list_hub(const HubInput& hub, const std::string& url) {
    io::HttpRequest r{url, 0, 0};
    fetcher_.submit(r, [this, hub](io::HttpResponse resp) {
        if (!resp.ok()) {
            problems_.push_back({hub.input, *resp.error});
            return;
        }
        std::vector<format::HubFile> files;
        try {
            files = format::parse_hub_listing(resp.body);
        } catch (const format::FormatError& e) {
            problems_.push_back({hub.input, std::string(e.what()) + ": " + resp.url});
            return;
        }
        std::string pinned = resp.repo_commit.value_or(hub.revision);
        std::string base = options_.hf_endpoint + "/" + hub.repo + "/resolve/";
        for (const auto& f : files) {
            if (!wanted_hub_file(f.path)) continue;
            if (!hub.glob.empty() && fnmatch(hub.glob.c_str(), f.path.c_str(), 0) != 0 &&
                !f.path.ends_with("config.json") && !f.path.ends_with(".index.json"))
                continue;
            hub_files_[base + hub.revision + "/" + f.path] = {f.size, f.sha256, pinned, base + pinned + "/" + f.path};
        }
        if (resp.link_next) list_hub(hub, *resp.link_next);
    });
}

void RemoteCrawl::fetch_json(const std::string& url, bool optional) {
    fetcher_.submit(request(url, 0, 0), [this, url, optional](io::HttpResponse resp) {
        if (resp.ok() && resp.status == 200) {
            json_[url] = {std::string(resp.body.begin(), resp.body.end()), std::move(resp)};
        } else if (!(optional && resp.status == 404)) {
            json_[url] = {"", std::move(resp)};  // the failure surfaces when the model is planned
        }
    });
}

RemoteResult RemoteCrawl::run(const std::vector<std::string>& inputs) {
    RemoteResult result;
    std::vector<std::string> urls;
    for (const auto& in : inputs) {
        if (auto hub = parse_hub_input(in)) {
            gone_scopes_.push_back(options_.hf_endpoint + "/" + hub->repo + "/resolve/" + hub->revision);
            list_hub(*hub, options_.hf_endpoint + "/api/models/" + hub->repo + "/tree/" + hub->revision + "?recursive=true");
        } else if (in.starts_with("hf://")) {
            problems_.push_back({in, "not an hf://owner/repo[@revision][/glob] input"});
        } else {
            urls.push_back(in);
        }
    }
    fetcher_.run();  // listings (and their next pages)
    for (const auto& [location, info] : hub_files_) urls.push_back(location);

    // index.json files, and config.json beside them (or beside a lone model.safetensors)
    RemoteLocator locator;
    locator.known.insert(urls.begin(), urls.end());
    for (const auto& u : urls) {
        bool index = u.ends_with(".safetensors.index.json");
        if (index) fetch_json(u, false);
        if (index || u.ends_with("/model.safetensors")) {
            std::string config = sibling(u, "config.json");
            bool listed = hub_files_.count(config) > 0;
            bool from_hub = hub_files_.count(u) > 0;
            if (listed || !from_hub) fetch_json(config, !listed);
        }
    }
    fetcher_.run();
    for (const auto& [url, j] : json_) {
        if (j.response.ok() && j.response.status == 200) {
            locator.known.insert(url);
            locator.texts[url] = j.body;
        } else {
            locator.known.erase(url);
            problems_.push_back({url, j.response.error.value_or("HTTP " + std::to_string(j.response.status) + ": " + url)});
        }
    }
    std::vector<std::string> files;
    for (const auto& u : urls)
        if (!u.ends_with("/config.json") && locator.known.count(u)) files.push_back(u);
    CrawlPlan plan = plan_crawl(files, problems_, locator);
    for (const auto& p : plan.problems) {
        catalog_.record_error(crawl_id_, p.input, std::nullopt, p.message);
        account_(ModelOutcome{p.input, Verdict::failed, std::nullopt, p.message});
    }
    for (const auto& m : plan.models) {
        for (const auto& f : all_files(m)) result.seen.push_back(f);
        start_model(m);
    }
    fetcher_.run();  // every model's checks and header reads
    result.gone_scopes = gone_scopes_;
    return result;
}

void RemoteCrawl::start_model(const ModelPlan& plan) {
    auto job = std::make_shared<ModelJob>();
    job->plan = plan;
    job->data.resize(plan.data_files.size());
    job->outcome.location = plan.data_files.empty() ? plan.index.value_or("") : plan.data_files.front();
    job->known = catalog_.stored_file(job->outcome.location).has_value();
    if (force_) read_model(job);
    else check_unchanged(job);
}

// Unchanged without a request when the Hub listing's sha256 matches; else one
// conditional 1-byte request per data file (304, or the same ETag).
void RemoteCrawl::check_unchanged(const std::shared_ptr<ModelJob>& job) {
    const std::vector<std::string> files = all_files(job->plan);
    std::optional<int64_t> model_id;
    std::vector<std::pair<std::string, std::string>> to_ask;  // location, stored etag
    for (const auto& f : files) {
        auto stored = catalog_.stored_file(f);
        if (!stored || stored->status != "ok" || (model_id && *model_id != stored->model_id)) return read_model(job);
        model_id = stored->model_id;
        auto hub = hub_files_.find(f);
        if (hub != hub_files_.end() && hub->second.sha256 && stored->sha256 == hub->second.sha256) continue;
        if (f.ends_with(".json")) continue;  // small JSON files travel with their data files
        if (!stored->etag || stored->etag->empty()) return read_model(job);
        to_ask.emplace_back(f, *stored->etag);
    }
    if (!model_id || catalog_.model_files(*model_id) != files) return read_model(job);
    if (to_ask.empty()) {
        catalog_.mark_checked(crawl_id_, files);
        job->outcome.verdict = Verdict::unchanged;
        job->outcome.files = files.size();
        return account_(job->outcome);
    }
    auto answers = std::make_shared<size_t>(to_ask.size());
    auto changed = std::make_shared<bool>(false);
    for (const auto& [location, etag] : to_ask) {
        io::HttpRequest r = request(location, 0, 1);
        r.if_none_match = etag;
        fetcher_.submit(r, [this, job, files, answers, changed, etag](io::HttpResponse resp) {
            job->outcome.requests += resp.requests;
            job->outcome.bytes_read += resp.bytes_received;
            if (!(resp.status == 304 || (resp.ok() && resp.etag == etag))) *changed = true;
            if (--*answers > 0) return;
            if (*changed) return read_model(job);
            catalog_.mark_checked(crawl_id_, files);
            job->outcome.verdict = Verdict::unchanged;
            job->outcome.files = files.size();
            account_(job->outcome);
        });
    }
}

void RemoteCrawl::read_model(const std::shared_ptr<ModelJob>& job) {
    job->pending = job->plan.data_files.size();
    if (job->pending == 0) return finish(job);
    for (size_t i = 0; i < job->plan.data_files.size(); ++i) read_file(job, i, false);
}

void RemoteCrawl::read_file(const std::shared_ptr<ModelJob>& job, size_t index, bool restarted) {
    const std::string& location = job->plan.data_files[index];
    HeaderReadOptions ro;
    ro.limits = limits_;
    ro.first_read = location.ends_with(".safetensors") ? options_.first_read_safetensors : options_.first_read_gguf;
    auto fr = std::make_shared<FileRead>(location, ro, restarted);
    ByteRange first = fr->assembler.first_read();
    fetcher_.submit(request(location, first.offset, first.length),
                    [this, job, fr](io::HttpResponse resp) { on_range(job, fr, std::move(resp)); });
}

void RemoteCrawl::on_range(const std::shared_ptr<ModelJob>& job, const std::shared_ptr<FileRead>& fr, io::HttpResponse resp) {
    if (job->failed) return;
    fr->requests += resp.requests;
    fr->bytes += resp.bytes_received;
    job->outcome.requests += resp.requests;
    job->outcome.bytes_read += resp.bytes_received;
    const size_t index = static_cast<size_t>(
        std::find(job->plan.data_files.begin(), job->plan.data_files.end(), fr->location) - job->plan.data_files.begin());
    if (!resp.ok()) return file_failed(job, fr->location, std::nullopt, *resp.error);
    if (!resp.total_size) return file_failed(job, fr->location, std::nullopt, "the server did not say the file's size: " + resp.url);
    // A file that changes under us, or disagrees with the listing, is read again once from scratch.
    std::string problem;
    auto hub = hub_files_.find(fr->location);
    if (hub != hub_files_.end() && *resp.total_size != hub->second.size)
        problem = "Content-Range says " + std::to_string(*resp.total_size) + " bytes but the Hub listing says " +
                  std::to_string(hub->second.size);
    else if (!fr->etag.empty() && resp.etag != fr->etag)
        problem = "the file changed while being read (ETag " + fr->etag + ", then " + resp.etag + ")";
    if (!problem.empty()) {
        if (fr->restarted) return file_failed(job, fr->location, std::nullopt, problem + ": " + resp.url);
        return read_file(job, index, true);
    }
    if (fr->etag.empty()) fr->etag = resp.etag;
    std::optional<ByteRange> next;
    try {
        next = fr->assembler.add(resp.body, *resp.total_size);
    } catch (const format::FormatError& e) {
        return file_failed(job, fr->location, e.offset(), e.what());
    }
    if (next)
        return fetcher_.submit(request(fr->location, next->offset, next->length),
                               [this, job, fr](io::HttpResponse r) { on_range(job, fr, std::move(r)); });
    catalog::FileRecord rec;
    rec.location = fr->location;
    rec.header = fr->assembler.take();
    rec.bytes_read = fr->bytes;
    rec.requests = fr->requests;
    rec.read_ms = std::chrono::duration<double, std::milli>(Clock::now() - fr->started).count();
    rec.identity.size = *resp.total_size;
    rec.header_hash = format::hex64(rec.header.header_hash);
    catalog::RemoteIdentity id{resp.etag, resp.last_modified, resp.final_url, std::nullopt, std::nullopt, resp.status};
    if (hub != hub_files_.end()) {
        id.sha256 = hub->second.sha256;
        id.revision = hub->second.revision;
    } else if (resp.linked_etag) {
        std::string e = *resp.linked_etag;  // the Hub's X-Linked-Etag: "sha256", quoted
        if (e.size() >= 2 && e.front() == '"') e = e.substr(1, e.size() - 2);
        if (e.size() == 64) id.sha256 = e;
    }
    rec.remote = std::move(id);
    job->outcome.tensors += rec.header.tensors.size();
    job->outcome.warnings += rec.header.warnings.size();
    job->data[index] = std::move(rec);
    if (--job->pending == 0) finish(job);
}

void RemoteCrawl::file_failed(const std::shared_ptr<ModelJob>& job, const std::string& location,
                              std::optional<uint64_t> offset, const std::string& message) {
    if (job->failed) return;
    job->failed = true;
    job->outcome.location = location;
    job->outcome.offset = offset;
    job->outcome.message = job->plan.data_files.size() > 1 ? "model '" + job->plan.name + "': " + message : message;
    catalog_.record_error(crawl_id_, location, offset, job->outcome.message);
    account_(job->outcome);
}

catalog::FileRecord json_record(const std::string& location, const FetchedJson& j, catalog::FileRole role) {
    catalog::FileRecord rec;
    rec.location = location;
    rec.role = role;
    rec.header.format = format::Format::json;
    rec.header.file_size = rec.header.header_bytes = rec.header.data_start = j.body.size();
    rec.bytes_read = j.response.bytes_received;
    rec.requests = j.response.requests;
    rec.identity.size = j.body.size();
    rec.remote = catalog::RemoteIdentity{j.response.etag, j.response.last_modified, j.response.final_url,
                                         std::nullopt, std::nullopt, j.response.status};
    return rec;
}

void RemoteCrawl::finish(const std::shared_ptr<ModelJob>& job) {
    const ModelPlan& plan = job->plan;
    std::vector<catalog::FileRecord> files;
    for (auto& d : job->data) files.push_back(std::move(*d));
    try {
        if (plan.index) {
            files.push_back(json_record(*plan.index, json_.at(*plan.index), catalog::FileRole::index));
            files.back().header.metadata = plan.parsed_index->metadata;
        }
        if (plan.config) {
            const FetchedJson& j = json_.at(*plan.config);
            files.push_back(json_record(*plan.config, j, catalog::FileRole::config));
            files.back().header.metadata =
                format::parse_model_config({reinterpret_cast<const uint8_t*>(j.body.data()), j.body.size()});
        }
        for (size_t i = plan.data_files.size(); i < files.size(); ++i) {
            job->outcome.requests += files[i].requests;
            job->outcome.bytes_read += files[i].bytes_read;
        }
        job->outcome.files = files.size();
        catalog_model(catalog_, crawl_id_, plan, std::move(files));
        job->outcome.verdict = job->known ? Verdict::changed : Verdict::added;
        account_(job->outcome);
    } catch (const ModelError& e) {
        file_failed(job, e.location, e.offset, e.what());
    } catch (const std::exception& e) {
        file_failed(job, job->outcome.location, std::nullopt, e.what());
    }
}

}  // namespace

bool is_remote_input(const std::string& input) {
    return input.starts_with("http://") || input.starts_with("https://") || input.starts_with("hf://");
}

RemoteResult crawl_remote(catalog::Catalog& catalog, int64_t crawl_id, const std::vector<std::string>& inputs,
                          const RemoteOptions& options, const format::Limits& limits, bool force,
                          const std::function<void(ModelOutcome)>& account) {
    return RemoteCrawl(catalog, crawl_id, options, limits, force, account).run(inputs);
}

}  // namespace modelcat::crawl
