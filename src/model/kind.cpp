#include "model/kind.hpp"

#include <algorithm>
#include <cctype>

namespace modelcat::model {

namespace {

// GGUF LoRA tensors end in .lora_a/.lora_b; PEFT checkpoints name them ...lora_A.weight.
bool is_lora_tensor(const std::string& name) {
    for (size_t start = 0; start <= name.size();) {
        size_t end = std::min(name.find('.', start), name.size());
        std::string part = name.substr(start, end - start);
        std::transform(part.begin(), part.end(), part.begin(), [](unsigned char c) { return std::tolower(c); });
        if (part == "lora_a" || part == "lora_b") return true;
        start = end + 1;
    }
    return false;
}

template <typename Pred>
bool any_key(const std::vector<const FileHeader*>& files, Pred pred) {
    for (const auto* f : files)
        for (const auto& e : f->metadata)
            if (pred(e.key)) return true;
    return false;
}

template <typename Pred>
bool any_tensor(const std::vector<const FileHeader*>& files, Pred pred) {
    for (const auto* f : files)
        for (const auto& t : f->tensors)
            if (pred(t.name)) return true;
    return false;
}

std::optional<std::string> first_string(const std::vector<const FileHeader*>& files, std::string_view key) {
    for (const auto* f : files)
        if (auto s = metadata_string(*f, key)) return s;
    return std::nullopt;
}

}  // namespace

const char* kind_name(ModelKind k) {
    switch (k) {
        case ModelKind::model: return "model";
        case ModelKind::mmproj: return "mmproj";
        case ModelKind::adapter: return "adapter";
        case ModelKind::imatrix: return "imatrix";
        case ModelKind::vocab: return "vocab";
        case ModelKind::unknown: return "unknown";
    }
    return "unknown";
}

ModelKind classify_model(const std::vector<const FileHeader*>& files) {
    const std::optional<std::string> type = first_string(files, "general.type");
    if (type == "adapter") return ModelKind::adapter;
    if (type == "mmproj") return ModelKind::mmproj;
    if (type == "imatrix") return ModelKind::imatrix;
    auto prefixed = [](std::string_view p) { return [p](const std::string& k) { return k.starts_with(p); }; };
    if (any_key(files, prefixed("adapter.")) || any_tensor(files, is_lora_tensor)) return ModelKind::adapter;
    if (first_string(files, "general.architecture") == "clip" || any_key(files, prefixed("clip.")))
        return ModelKind::mmproj;
    if (any_tensor(files, [](const std::string& n) { return n.ends_with(".in_sum2"); })) return ModelKind::imatrix;
    const bool tensors = any_tensor(files, [](const std::string&) { return true; });
    if (!tensors && any_key(files, prefixed("tokenizer."))) return ModelKind::vocab;
    if (tensors && (!type || *type == "model")) return ModelKind::model;
    return ModelKind::unknown;
}

}  // namespace modelcat::model
