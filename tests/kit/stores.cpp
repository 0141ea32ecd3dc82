#include "stores.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace modelcat::kit {

std::string sha256_of_file(const fs::path& file) {
    const std::string cmd = "sha256sum '" + file.string() + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd);
    char hex[65] = {};
    const size_t n = std::fread(hex, 1, 64, p);
    pclose(p);
    if (n != 64) throw std::runtime_error("no digest from " + cmd);
    return hex;
}

HfCacheRepo::HfCacheRepo(const fs::path& cache, const std::string& repo_id) {
    std::string folder = "models--" + repo_id;
    folder.replace(folder.find('/'), 1, "--");
    dir_ = cache / folder;
    fs::create_directories(dir_ / "blobs");
    fs::create_directories(dir_ / "refs");
    fs::create_directories(dir_ / "snapshots");
}

std::string HfCacheRepo::add_blob(const fs::path& file, const std::string& git_oid) {
    const std::string name = git_oid.empty() ? sha256_of_file(file) : git_oid;
    fs::rename(file, dir_ / "blobs" / name);
    return name;
}

void HfCacheRepo::link(const std::string& commit, const std::string& path, const std::string& blob) const {
    const fs::path link = dir_ / "snapshots" / commit / path;
    fs::create_directories(link.parent_path());
    fs::path target = fs::path("..") / "blobs" / blob;  // from snapshots/{commit}/ up to the repo folder
    for (const auto& part : fs::path(path)) {
        (void)part;
        target = ".." / target;
    }
    fs::create_symlink(target, link);
}

void HfCacheRepo::set_ref(const std::string& ref, const std::string& commit) const {
    fs::create_directories((dir_ / "refs" / ref).parent_path());
    std::ofstream(dir_ / "refs" / ref) << commit;  // huggingface_hub writes no newline
}

OllamaStore::OllamaStore(const fs::path& root) : root_(root) {
    fs::create_directories(root_ / "blobs");
    fs::create_directories(root_ / "manifests");
}

std::pair<std::string, uint64_t> OllamaStore::add_blob(const fs::path& file) {
    const std::string hex = sha256_of_file(file);
    const uint64_t size = fs::file_size(file);
    const fs::path blob = root_ / "blobs" / ("sha256-" + hex);
    if (fs::exists(blob)) fs::remove(file);
    else fs::rename(file, blob);
    return {"sha256:" + hex, size};
}

std::pair<std::string, uint64_t> OllamaStore::add_text_blob(const std::string& text) {
    const fs::path tmp = root_ / ("scratch-" + std::to_string(scratch_++));
    std::ofstream(tmp, std::ios::binary) << text;
    return add_blob(tmp);
}

std::string ollama_manifest_json(const std::vector<OllamaStore::Layer>& layers, const std::string& config_digest) {
    std::string j = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
                    "\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\",\"digest\":\"" +
                    config_digest + "\",\"size\":2},\"layers\":[";
    for (size_t i = 0; i < layers.size(); ++i)
        j += std::string(i ? "," : "") + "{\"mediaType\":\"" + layers[i].media_type + "\",\"digest\":\"" +
             layers[i].blob.first + "\",\"size\":" + std::to_string(layers[i].blob.second) + "}";
    return j + "]}";
}

void OllamaStore::write_manifest(const std::string& registry, const std::string& name_space, const std::string& model,
                                 const std::string& tag, const std::vector<Layer>& layers) {
    const fs::path path = root_ / "manifests" / registry / name_space / model / tag;
    fs::create_directories(path.parent_path());
    const auto config = add_text_blob("{}");
    std::ofstream(path) << ollama_manifest_json(layers, config.first);
}

}  // namespace modelcat::kit
