#pragma once
// The stores where models live, laid out exactly as their tools lay them out:
// a Hugging Face cache (blobs named by sha256 or git oid, snapshot symlinks,
// refs), an Ollama models folder (digest-named blobs, Docker v2 manifests).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelcat::kit {

// The sha256 of a file's bytes, 64 lowercase hex digits (computed by sha256sum).
std::string sha256_of_file(const std::filesystem::path& file);

// One models--{owner}--{name} folder of an HF cache under `cache`.
class HfCacheRepo {
public:
    HfCacheRepo(const std::filesystem::path& cache, const std::string& repo_id);
    // Moves `file` into blobs/ under its sha256 (or, with `git_oid`, under that 40-digit name); returns the name.
    std::string add_blob(const std::filesystem::path& file, const std::string& git_oid = "");
    // snapshots/{commit}/{path} -> ../../blobs/{blob} (relative, as huggingface_hub links).
    void link(const std::string& commit, const std::string& path, const std::string& blob) const;
    void set_ref(const std::string& ref, const std::string& commit) const;  // refs/{ref}
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

// An Ollama models folder.
class OllamaStore {
public:
    explicit OllamaStore(const std::filesystem::path& root);
    // Moves `file` into blobs/sha256-{hex}; returns "sha256:{hex}" and its size.
    std::pair<std::string, uint64_t> add_blob(const std::filesystem::path& file);
    std::pair<std::string, uint64_t> add_text_blob(const std::string& text);
    struct Layer {
        std::string media_type;  // application/vnd.ollama.image.model, ...
        std::pair<std::string, uint64_t> blob;
    };
    // manifests/{registry}/{namespace}/{model}/{tag}: a Docker v2 manifest of `layers`.
    void write_manifest(const std::string& registry, const std::string& name_space, const std::string& model,
                        const std::string& tag, const std::vector<Layer>& layers);
    const std::filesystem::path& root() const { return root_; }

private:
    std::filesystem::path root_;
    int scratch_ = 0;
};

// The sample stores under a home folder, as a user's disk has them:
//  - HOME/.cache/huggingface/hub: bartowski/Tiny-Llama-GGUF at two commits sharing the Q4_K_M
//    blob, the Q8_0 changed between them, the newer with an mmproj, refs/main naming it;
//  - HOME/.ollama/models: library/tiny:q4 and :latest (the HF cache's Q4_K_M byte for byte,
//    template, system, params, license), library/tinyllava:v1 (a model and the HF cache's mmproj
//    as its projector), hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M (the Q4_K_M and a LoRA adapter);
//  - HOME/.lmstudio/models: lmstudio-community/Tiny-Llama-GGUF with a Q8_0 and an imatrix file.
struct SampleStores {
    std::filesystem::path hub, ollama, lmstudio;
    std::string q4_blob;                     // the shared Q4_K_M's sha256
    std::filesystem::path q8_old_blob, old_snapshot;
    static constexpr std::string_view repo = "bartowski/Tiny-Llama-GGUF";
    static constexpr std::string_view old_commit = "5a1d2c8e9f0b7a6d4c3e2f1a0b9c8d7e6f5a4b3c";
    static constexpr std::string_view new_commit = "9c4e8a1b2d3f5e6a7b8c9d0e1f2a3b4c5d6e7f80";
    static constexpr std::string_view chat_template = "{{ .System }} {{ .Prompt }}";
};
SampleStores write_sample_stores(const std::filesystem::path& home);

// The manifest text for `layers` (with a config blob digest), as the registry serves it.
std::string ollama_manifest_json(const std::vector<OllamaStore::Layer>& layers, const std::string& config_digest);

}  // namespace modelcat::kit
