#pragma once
// What modelcat knows about the Hugging Face Hub, in one place: hf:// inputs,
// resolve/ URLs, the identity headers its redirects carry, and the advice a
// refused request deserves.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/range_reader.hpp"

namespace modelcat::locate {

// HTTP requests by the Hub budget they spend: API calls (listings), resolver
// calls (any URL with /resolve/, redirect-free), storage reads (everything else).
// Of the API calls: pages of the models API (/api/models?...) and pages of one repository's tree.
struct RequestCounts {
    uint64_t api = 0, resolver = 0, storage = 0;
    uint64_t model_pages = 0, repo_listings = 0;
    void add(const locate::RequestCounts& o) {
        api += o.api;
        resolver += o.resolver;
        storage += o.storage;
        model_pages += o.model_pages;
        repo_listings += o.repo_listings;
    }
};

// hf://owner/repo[@revision][/glob]: a crawl input (glob: the files to read), or
// hf://owner/repo[@revision][/path]: an audit's file or checkpoint folder (glob: its path).
struct HubInput {
    std::string input, repo, revision = "main", glob;
    std::string scope = {};  // a repository a many-repository input found: that input (HubScope::input)
};
std::optional<HubInput> parse_hub_input(const std::string& input);

// An input naming many repositories, listed through the models API sorted by lastModified:
// hf://AUTHOR/*[/glob] (every repository of an author), or hf-search:?KEY=VALUE&... (the API's own
// search parameters: search, author, filter, library, pipeline_tag ...).
struct HubScope {
    std::string input;  // as given: the scope's name in hub_repos
    std::string query;  // the API parameters it stands for: author=AUTHOR, or the search's own
    std::string glob;   // the files to read in each repository (hf://AUTHOR/*/GLOB)
};
// nullopt for an input that is neither form; `why` says what is wrong with one that tries to be.
std::optional<HubScope> parse_hub_scope(const std::string& input, std::string& why);
bool is_hub_scope_input(const std::string& input);
// ENDPOINT/api/models?QUERY&sort=lastModified&direction=-1&limit=1000&expand=lastModified&expand=sha
std::string hub_models_url(const std::string& endpoint, const HubScope& scope);
// ENDPOINT/api/models/REPO: one repository's card (200) or its absence (404).
std::string hub_model_url(const std::string& endpoint, const std::string& repo);

// The files of a repository the crawl reads: models, checkpoint indexes and configs.
bool wanted_hub_file(const std::string& path);

std::string hub_listing_url(const std::string& endpoint, const HubInput& hub);
// ENDPOINT/REPO/resolve/REVISION/PATH; without a path, the folder of the revision's files.
std::string hub_resolve_url(const std::string& endpoint, const std::string& repo, const std::string& revision,
                            const std::string& path);
// hf://owner/repo[@revision][/path] as its resolve URL under `endpoint`; any other location as it
// is. Throws io::IoError for an hf:// location that names no repository.
std::string hub_location_url(const std::string& location, const std::string& endpoint);

// The owner/repo of a .../owner/repo/resolve/<rev>/... URL, else `fallback`.
std::string hub_repo_or(const std::string& location, const std::string& fallback);

// The requests a reply cost, by budget: a /resolve/ URL's attempts are
// resolver calls and its redirect hops storage reads; /api/ URLs are API calls.
RequestCounts request_kinds(const io::RangeReply& reply);
// The rate-limit budget a request to `url` spends on the Hub ("" for none).
std::string hub_budget(const std::string& url);

// Headers the Hub puts on a resolve/ redirect, not on its target's answer.
const std::vector<std::string>& hub_redirect_headers();
// The content's sha256, from the redirect's X-Linked-Etag, when it is one.
std::optional<std::string> hub_sha256(const io::RangeReply& reply);
// The content's Xet hash, from the redirect's X-Xet-Hash.
std::optional<std::string> hub_xet_hash(const io::RangeReply& reply);
// The commit a listing or resolve/ answer names (X-Repo-Commit).
std::optional<std::string> hub_commit(const io::RangeReply& reply);
// Why that commit cannot be used (it is not 40 hex digits: it would be put in URLs), if it cannot.
std::optional<std::string> bad_hub_commit(const io::RangeReply& reply);
// A revision is a 40-hex commit or a refname without "..", "//", an end '/', percent-escapes,
// query or fragment characters, spaces or controls: it goes into URLs as it is.
bool valid_revision(std::string_view revision);

// A failed reply's message, with what to do about the Hub's own refusal (401/403; not storage's after its redirect).
std::string failure_message(const io::RangeReply& reply, bool token_sent);

}  // namespace modelcat::locate
