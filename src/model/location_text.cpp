#include "model/location_text.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace modelcat::model {

std::string shared_folder(const std::vector<std::string>& locations) {
    std::optional<std::string_view> shared;
    for (const auto& l : locations) {
        if (l.empty()) continue;
        std::string_view folder(l.data(), l.rfind('/') + 1);  // "" when l has no '/'
        if (!shared) shared = folder;
        shared = shared->substr(0, std::mismatch(shared->begin(), shared->end(), folder.begin(), folder.end()).first - shared->begin());
    }
    return shared ? std::string(shared->substr(0, shared->rfind('/') + 1)) : std::string();
}

}  // namespace modelcat::model
