#include "locate/stores.hpp"

#include <filesystem>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace modelcat::locate {

namespace {

enum class Layout { hf_cache, ollama, lmstudio };

struct Prefix {
    std::string_view prefix;
    Layout layout;
};
constexpr Prefix kPrefixes[] = {{"hf-cache:", Layout::hf_cache}, {"ollama:", Layout::ollama}, {"lmstudio:", Layout::lmstudio}};

// Where a store lives unless its input says: LM Studio's current folder, or the older one when only it exists.
std::string default_root(Layout layout, const StoreRoots& roots) {
    switch (layout) {
        case Layout::hf_cache: return roots.hf_cache;
        case Layout::ollama: return roots.ollama;
        case Layout::lmstudio: {
            std::error_code ec;
            return fs::is_directory(roots.lmstudio, ec) || !fs::is_directory(roots.lmstudio_older, ec) ? roots.lmstudio
                                                                                                      : roots.lmstudio_older;
        }
    }
    return "";
}

bool is_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_hf_repo_folder(const fs::path& p) { return p.filename().string().starts_with("models--") && is_dir(p / "snapshots"); }

// The layout a folder has, if it is a store's.
std::optional<Layout> layout_of(const fs::path& dir) {
    if (!is_dir(dir)) return std::nullopt;
    if (is_dir(dir / "manifests") && is_dir(dir / "blobs")) return Layout::ollama;
    if (is_hf_repo_folder(dir)) return Layout::hf_cache;
    // An HF cache root holds nothing but models--, datasets-- and spaces-- folders (and dot files).
    bool repos = false, other = false;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (is_hf_repo_folder(it->path())) repos = true;
        else if (!n.starts_with(".") && !n.starts_with("datasets--") && !n.starts_with("spaces--") && n != "version.txt") other = true;
    }
    if (repos && !other) return Layout::hf_cache;
    const fs::path norm = dir.lexically_normal();
    const std::string parent = norm.parent_path().filename().string();
    if (norm.filename() == "models" && (parent == ".lmstudio" || parent == "lm-studio")) return Layout::lmstudio;
    return std::nullopt;
}

struct StoreInput {
    Layout layout;
    std::string root;
};

// The store an input names, and its folder ("" for the layout's default).
std::optional<StoreInput> parse_store_input(const std::string& input) {
    for (const auto& p : kPrefixes)
        if (input.starts_with(p.prefix)) return StoreInput{p.layout, input.substr(p.prefix.size())};
    if (auto layout = layout_of(input)) return StoreInput{*layout, input};
    return std::nullopt;
}

StorePlan plan_one(const StoreInput& in) {
    switch (in.layout) {
        case Layout::hf_cache: return plan_hf_cache(in.root);
        case Layout::ollama: return plan_ollama_store(in.root);
        case Layout::lmstudio: return plan_lmstudio(in.root);
    }
    return {};
}

// What makes two plans one model: the digest of their first data file, else its location.
std::string blob_key(const ModelPlan& m) {
    const std::string& first = m.data_files.front();
    auto d = m.digests.find(first);
    return d != m.digests.end() ? "sha256:" + d->second : first;
}

// The later plan's names (and Ollama manifests) join the earlier one: its blob is read once.
void merge_into(ModelPlan& kept, ModelPlan& other) {
    for (auto& n : other.names) {
        n.location = kept.data_files.front();
        kept.names.push_back(std::move(n));
    }
    for (auto& m : other.manifests) kept.manifests.push_back(std::move(m));
}

// Why a store's model is not read: one of its files resolves (links followed) outside the store.
std::optional<model::Failure> leaves_store(const ModelPlan& m, const std::string& real_root) {
    std::vector<std::string> files = all_files(m);
    for (const auto& manifest : m.manifests)
        for (const auto& layer : manifest.layers) files.push_back(layer.location);
    for (const auto& f : files)
        if (auto why = outside_store(f, real_root))
            return model::Failure{.location = m.names.empty() ? f : m.names.front().path, .message = *why};
    return std::nullopt;
}

}  // namespace

std::optional<std::string> outside_store(const std::string& path, const std::string& real_root) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) return std::nullopt;  // nothing there: its read says so
    const fs::path rel = real.lexically_relative(real_root);
    if (!rel.empty() && *rel.begin() != "..") return std::nullopt;
    return "resolves to " + real.string() + ", outside the store " + real_root + ": not read";
}

std::string absolute_path(const std::string& path) {
    fs::path p = fs::absolute(path).lexically_normal();
    if (!p.has_filename() && p != p.root_path()) p = p.parent_path();  // "mirror/" is the folder "mirror": its files lie under "mirror/"
    return p.string();
}

bool is_store_input(const std::string& input) { return parse_store_input(input).has_value(); }

std::vector<ModelPlan> one_model_per_blob(std::vector<ModelPlan> plans) {
    std::vector<ModelPlan> out;
    std::map<std::string, size_t> by_blob;
    for (auto& m : plans) {
        auto [it, fresh] = by_blob.emplace(blob_key(m), out.size());
        if (fresh) out.push_back(std::move(m));
        else merge_into(out[it->second], m);
    }
    return out;
}

StorePlan plan_stores(const std::vector<std::string>& inputs, const StoreRoots& roots) {
    StorePlan out;
    for (const auto& input : inputs) {
        auto in = parse_store_input(input);
        if (!in) continue;
        in->root = absolute_path(in->root.empty() ? default_root(in->layout, roots) : in->root);
        if (!is_dir(in->root)) {
            out.problems.push_back({.location = input, .message = "no store at " + in->root + " (not a folder)"});
            continue;
        }
        out.roots.push_back(in->root);
        StorePlan one = plan_one(*in);
        out.problems.insert(out.problems.end(), one.problems.begin(), one.problems.end());
        std::error_code ec;
        const fs::path real_root = fs::canonical(in->root, ec);
        for (auto& m : one.models) {
            if (auto p = leaves_store(m, ec ? in->root : real_root.string())) out.problems.push_back(std::move(*p));
            else out.models.push_back(std::move(m));
        }
    }
    out.models = one_model_per_blob(std::move(out.models));
    return out;
}

}  // namespace modelcat::locate
