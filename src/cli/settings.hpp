#pragma once
// What the environment says, read once when modelcat starts, and the access
// options crawl and audit share: the commands get plain values, and nothing
// below cli/ reads the environment.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "io/http_fetcher.hpp"
#include "locate/access.hpp"
#include "locate/stores.hpp"

namespace modelcat::cli {

struct Settings {
    std::string db;                       // $MODELCAT_DB, else catalog.db
    std::string hf_endpoint;              // $HF_ENDPOINT, else https://huggingface.co
    std::optional<std::string> hf_token;  // $HF_TOKEN
    locate::StoreRoots stores;            // from $HF_HUB_CACHE, $HF_HOME, $OLLAMA_MODELS and $HOME

    static Settings from_environment();
};

// How remote inputs are reached, as flags say (crawl's; audit's have the defaults but for these).
struct AccessFlags {
    std::string hf_endpoint, token_file;
    unsigned in_flight = io::HttpOptions{}.max_in_flight, per_host = io::HttpOptions{}.per_host;
    double max_requests_per_minute = io::HttpOptions{}.max_requests_per_minute;
    double patience_s = io::HttpOptions{}.max_retry_wait_s;  // --patience: the waits one request may cost
};

// --hf-endpoint and --token-file, with one help text for every command that has them.
void add_hf_endpoint_option(CLI::App* cmd, AccessFlags& flags);
void add_token_file_option(CLI::App* cmd, AccessFlags& flags);

// The endpoint (--hf-endpoint, else the environment's; no trailing '/'), the token
// (--token-file, else $HF_TOKEN; never printed, never stored) and the caps. Throws when
// the token file cannot be read.
locate::HttpAccess http_access(const Settings& settings, const AccessFlags& flags);

}  // namespace modelcat::cli
