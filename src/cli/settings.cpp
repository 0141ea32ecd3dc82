#include "cli/settings.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace modelcat::cli {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string trimmed(std::string t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    return t;
}

}  // namespace

Settings Settings::from_environment() {
    Settings s;
    s.db = env_or("MODELCAT_DB", "catalog.db");
    s.hf_endpoint = env_or("HF_ENDPOINT", "https://huggingface.co");
    if (const char* t = std::getenv("HF_TOKEN")) s.hf_token = t;
    const std::string home = env_or("HOME", "/root");
    // where each store lives unless told: the tools' own environment variables, then their defaults
    s.stores.hf_cache = env_or("HF_HUB_CACHE", env_or("HF_HOME", home + "/.cache/huggingface") + "/hub");
    s.stores.ollama = env_or("OLLAMA_MODELS", home + "/.ollama/models");
    s.stores.lmstudio = home + "/.lmstudio/models";
    s.stores.lmstudio_older = home + "/.cache/lm-studio/models";
    return s;
}

void add_hf_endpoint_option(CLI::App* cmd, AccessFlags& flags) {
    cmd->add_option("--hf-endpoint", flags.hf_endpoint, "Hub endpoint for hf:// inputs (default $HF_ENDPOINT or https://huggingface.co)");
}

void add_token_file_option(CLI::App* cmd, AccessFlags& flags) {
    cmd->add_option("--token-file", flags.token_file, "file holding the Hub token (default $HF_TOKEN); sent to the Hub endpoint only");
}

locate::HttpAccess http_access(const Settings& settings, const AccessFlags& flags) {
    locate::HttpAccess a;
    a.hf_endpoint = flags.hf_endpoint.empty() ? settings.hf_endpoint : flags.hf_endpoint;
    while (a.hf_endpoint.ends_with("/")) a.hf_endpoint.pop_back();
    std::string token;
    if (!flags.token_file.empty()) {
        std::ifstream in(flags.token_file);
        if (!in) throw std::runtime_error("cannot read --token-file " + flags.token_file);
        std::getline(in, token);
    } else if (settings.hf_token) {
        token = *settings.hf_token;
    }
    token = trimmed(token);
    if (!token.empty()) a.http.token = token;
    a.http.max_in_flight = flags.in_flight;
    a.http.per_host = flags.per_host;
    a.http.max_requests_per_minute = flags.max_requests_per_minute;
    a.http.max_retry_wait_s = flags.patience_s;
    return a;
}

}  // namespace modelcat::cli
