// LM Studio's models folder: {publisher}/{repo}/*.gguf, plain files.
#include <filesystem>

#include "locate/stores.hpp"

namespace fs = std::filesystem;

namespace modelcat::locate {

StorePlan plan_lmstudio(const std::string& root) {
    StorePlan out;
    ExpandedInputs found = expand_inputs({root});
    CrawlPlan plan = plan_crawl(found.files, found.problems, LocalLocator{});
    out.problems = std::move(plan.problems);
    for (auto& m : plan.models) {
        const fs::path rel = fs::path(model_path(m)).lexically_relative(root);
        model::StoreNameRow n;
        n.store = "lmstudio";
        n.root = root;
        n.name = m.name = rel.string();
        auto part = rel.begin();
        if (std::distance(rel.begin(), rel.end()) >= 3) n.repo = part->string() + "/" + std::next(part)->string();
        n.path = n.location = m.data_files.front();
        m.names.push_back(std::move(n));
        out.models.push_back(std::move(m));
    }
    return out;
}

}  // namespace modelcat::locate
