#include "locate/local_plan.hpp"

#include <filesystem>

#include "locate/local_inputs.hpp"
#include "locate/locator.hpp"

namespace modelcat::locate {

namespace {

bool is_directory(const std::string& p) {
    std::error_code ec;
    return std::filesystem::is_directory(p, ec);
}

}  // namespace

LocalPlan plan_local(const std::vector<std::string>& inputs, const StoreRoots& roots) {
    std::vector<std::string> plain, stores;
    for (const auto& in : inputs) (is_store_input(in) ? stores : plain).push_back(in);
    ExpandedInputs expanded = expand_inputs(plain);
    LocalPlan out{plan_crawl(expanded.files, expanded.problems, LocalLocator{}), {}, {}};
    StorePlan sp = plan_stores(stores, roots);
    for (auto& m : sp.models) out.plan.models.push_back(std::move(m));
    out.plan.problems.insert(out.plan.problems.end(), sp.problems.begin(), sp.problems.end());
    for (const auto& in : plain)
        if (is_directory(in)) out.scopes.push_back(absolute_path(in));
    out.scopes.insert(out.scopes.end(), sp.roots.begin(), sp.roots.end());
    out.store_roots = std::move(sp.roots);
    return out;
}

}  // namespace modelcat::locate
