#pragma once
// Local inputs planned into models: files, folders and list files (walked and
// read), then the stores; the folders walked whole are where a catalogued file
// not seen again is gone.
#include <string>
#include <vector>

#include "locate/plan.hpp"
#include "locate/stores.hpp"

namespace modelcat::locate {

struct LocalPlan {
    CrawlPlan plan;
    std::vector<std::string> scopes;       // folders walked whole, and the stores' folders
    std::vector<std::string> store_roots;  // the stores' folders: names under them not found again are gone
};

LocalPlan plan_local(const std::vector<std::string>& inputs, const StoreRoots& roots);

}  // namespace modelcat::locate
