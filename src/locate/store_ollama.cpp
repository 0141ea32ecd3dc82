// An Ollama models folder: manifests/{registry}/{namespace}/{model}/{tag} are
// JSON manifests whose layers name blobs/sha256-{hex} by digest.
#include <algorithm>
#include <filesystem>

#include "io/file_stat.hpp"
#include "locate/local_inputs.hpp"
#include "locate/locator.hpp"
#include "locate/ollama_models.hpp"
#include "locate/stores.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace fs = std::filesystem;

namespace modelcat::locate {

namespace {

std::vector<fs::path> manifest_files(const fs::path& dir, const std::string& root, std::vector<model::Failure>& problems) {
    std::vector<fs::path> out;
    std::error_code ec;
    const std::string real_root = fs::canonical(root, ec).string();
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e;
        if (it->is_directory(e)) continue;
        if (auto p = non_utf8_path(it->path().string())) problems.push_back(*p);
        else if (auto why = io::not_a_regular_file(it->path().string())) problems.push_back({.location = it->path().string(), .message = *why});
        else if (auto out_of = outside_store(it->path().string(), real_root)) problems.push_back({.location = it->path().string(), .message = *out_of});
        else out.push_back(it->path());
    }
    if (ec) problems.push_back({.location = dir.string(), .message = "cannot walk directory: " + ec.message()});
    std::sort(out.begin(), out.end());
    return out;
}

// The tag a manifest's path names, or a problem: four components under manifests/.
std::optional<OllamaTag> tag_of(const fs::path& manifest, const fs::path& manifests_dir, const std::string& root) {
    std::vector<std::string> parts;
    for (const auto& p : manifest.lexically_relative(manifests_dir)) parts.push_back(p.string());
    if (parts.size() != 4) return std::nullopt;
    return OllamaTag{root, parts[0], parts[1] + "/" + parts[2], parts[3], manifest.string()};
}

// The tag's models, each of whose blobs must be present.
void add_tag(const OllamaTag& tag, const std::string& root, StorePlan& out) {
    const std::string text = LocalLocator{}.read_text(tag.manifest);
    auto layers = format::parse_ollama_manifest({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    auto blob = [&](const format::OllamaLayer& l) { return root + "/blobs/sha256-" + l.digest.substr(7); };
    // A blob that cannot be read fails this tag alone, by its name: another tag may share its model.
    for (auto& m : ollama_models(layers, tag, blob)) {
        std::vector<std::pair<std::string, std::string>> blobs;  // file, what it is
        for (const auto& f : m.data_files) blobs.emplace_back(f, m.names.front().role);
        for (const auto& manifest : m.manifests)
            for (const auto& l : manifest.layers) blobs.emplace_back(l.location, l.kind);
        std::optional<model::Failure> broken;
        for (const auto& [f, what] : blobs)
            if (auto why = io::not_a_regular_file(f); why && !broken)
                broken = model::Failure{.location = tag.manifest, .message = m.name + ": its " + what + " blob " + f + ": " + *why};
        if (broken) out.problems.push_back(std::move(*broken));
        else out.models.push_back(std::move(m));
    }
}

}  // namespace

StorePlan plan_ollama_store(const std::string& root) {
    StorePlan out;
    const fs::path manifests = fs::path(root) / "manifests";
    for (const auto& f : manifest_files(manifests, root, out.problems)) {
        auto tag = tag_of(f, manifests, root);
        if (!tag) {
            out.problems.push_back({.location = f.string(), .message = "not a manifest: expected manifests/REGISTRY/NAMESPACE/MODEL/TAG"});
            continue;
        }
        try {
            add_tag(*tag, root, out);
        } catch (const model::FormatError& e) {
            out.problems.push_back(e.failure(f.string()));
        } catch (const std::exception& e) {
            out.problems.push_back({.location = f.string(), .message = e.what()});
        }
    }
    return out;
}

}  // namespace modelcat::locate
