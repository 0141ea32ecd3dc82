#include "crawl/outcome.hpp"

namespace modelcat::crawl {

const char* status_name(ModelStatus s) {
    switch (s) {
        case ModelStatus::added: return "new";
        case ModelStatus::changed: return "changed";
        case ModelStatus::unchanged: return "unchanged";
        case ModelStatus::failed: return "failed";
        case ModelStatus::gone: return "gone";
    }
    return "?";
}

std::string Failure::reason() const { return json_path.empty() ? message : "at " + json_path + ": " + message; }

std::string Failure::describe() const {
    return location + (offset ? ": offset " + std::to_string(*offset) : std::string()) + ": " + reason();
}

}  // namespace modelcat::crawl
