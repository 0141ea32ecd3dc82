#pragma once
// Remote inputs: http(s):// URLs and hf://owner/repo[@revision][/glob]. All of
// a crawl's remote work (Hub listings, index.json and config.json, header
// range reads, unchanged checks) runs on one HttpFetcher event loop, many
// files in flight; each model is catalogued as soon as its files are in.
#include <functional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "crawl/header_reader.hpp"
#include "io/http_fetcher.hpp"

namespace modelcat::crawl {

struct ModelOutcome;

struct RemoteOptions {
    io::HttpOptions http;
    std::string hf_endpoint = "https://huggingface.co";
    uint64_t first_read_gguf = 1 << 20;           // a header under 1 MiB costs one request
    uint64_t first_read_safetensors = 128 << 10;  // covers most safetensors headers; else one more
};

bool is_remote_input(const std::string& input);  // http://, https:// or hf://

struct RemoteResult {
    std::vector<std::string> seen;         // every location planned (for gone detection)
    std::vector<std::string> gone_scopes;  // Hub listings crawled whole: files under them not seen are gone
};

RemoteResult crawl_remote(catalog::Catalog& catalog, int64_t crawl_id, const std::vector<std::string>& inputs,
                          const RemoteOptions& options, const format::Limits& limits, bool force,
                          const std::function<void(ModelOutcome)>& account);

}  // namespace modelcat::crawl
