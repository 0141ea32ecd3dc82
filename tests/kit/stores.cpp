#include "stores.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "kinds.hpp"

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

namespace {

fs::path scratch_gguf(const fs::path& scratch, const std::string& name, const GgufWriter& w) {
    fs::create_directories(scratch);
    w.write(scratch / name);
    return scratch / name;
}

void write_hf_cache(SampleStores& s, const fs::path& scratch) {
    HfCacheRepo repo(s.hub, std::string(SampleStores::repo));
    fs::copy_file(scratch_gguf(scratch, "q4.gguf", tiny_llama("Tiny", kQ4_K)), scratch / "q4-copy.gguf");
    s.q4_blob = repo.add_blob(scratch / "q4.gguf");
    const std::string q8_old = repo.add_blob(scratch_gguf(scratch, "q8old.gguf", tiny_llama("Tiny old", kQ8_0)));
    const std::string q8_new = repo.add_blob(scratch_gguf(scratch, "q8new.gguf", tiny_llama("Tiny", kQ8_0)));
    fs::copy_file(scratch_gguf(scratch, "mmproj.gguf", tiny_mmproj()), scratch / "mmproj-copy.gguf");
    const std::string mmproj = repo.add_blob(scratch / "mmproj.gguf");
    const std::string old_commit(SampleStores::old_commit), new_commit(SampleStores::new_commit);
    repo.link(old_commit, "tiny-Q4_K_M.gguf", s.q4_blob);
    repo.link(old_commit, "tiny-Q8_0.gguf", q8_old);
    repo.link(new_commit, "tiny-Q4_K_M.gguf", s.q4_blob);
    repo.link(new_commit, "tiny-Q8_0.gguf", q8_new);
    repo.link(new_commit, "mmproj-tiny-f16.gguf", mmproj);
    repo.set_ref("main", new_commit);
    s.q8_old_blob = repo.dir() / "blobs" / q8_old;
    s.old_snapshot = repo.dir() / "snapshots" / old_commit;
}

void write_ollama(const SampleStores& s, const fs::path& scratch) {
    OllamaStore store(s.ollama);
    auto q4 = store.add_blob(scratch / "q4-copy.gguf");
    auto llava = store.add_blob(scratch_gguf(scratch, "llava.gguf", tiny_llama("Tiny Llava", kQ8_0)));
    auto projector = store.add_blob(scratch / "mmproj-copy.gguf");
    auto adapter = store.add_blob(scratch_gguf(scratch, "lora.gguf", tiny_lora(16.0f)));
    const std::string image = "application/vnd.ollama.image.";
    const std::vector<OllamaStore::Layer> tiny = {
        {image + "model", q4},
        {image + "template", store.add_text_blob(std::string(SampleStores::chat_template))},
        {image + "system", store.add_text_blob("You are tiny.")},
        {image + "params", store.add_text_blob("{\"stop\":[\"<|eot_id|>\"],\"temperature\":0.6}")},
        {image + "license", store.add_text_blob("LLAMA 3.1 COMMUNITY LICENSE")}};
    store.write_manifest("registry.ollama.ai", "library", "tiny", "q4", tiny);
    store.write_manifest("registry.ollama.ai", "library", "tiny", "latest", tiny);
    store.write_manifest("registry.ollama.ai", "library", "tinyllava", "v1",
                         {{image + "model", llava}, {image + "projector", projector}, {image + "template", tiny[1].blob}});
    store.write_manifest("hf.co", "bartowski", "Tiny-Llama-GGUF", "Q4_K_M", {{image + "model", q4}, {image + "adapter", adapter}});
}

}  // namespace

SampleStores write_sample_stores(const fs::path& home) {
    SampleStores s{home / ".cache" / "huggingface" / "hub", home / ".ollama" / "models", home / ".lmstudio" / "models", "", {}, {}};
    const fs::path scratch = home / ".scratch";
    write_hf_cache(s, scratch);
    write_ollama(s, scratch);
    const fs::path repo = s.lmstudio / "lmstudio-community" / "Tiny-Llama-GGUF";
    fs::create_directories(repo);
    tiny_llama("Tiny LM Studio", kQ8_0).write(repo / "tiny-Q8_0.gguf");
    tiny_imatrix().write(repo / "tiny.imatrix.gguf");
    fs::remove_all(scratch);
    return s;
}

}  // namespace modelcat::kit
