#include "crawl/outcome.hpp"

namespace modelcat::crawl {

const char* status_name(ModelStatus s) {
    switch (s) {
        case ModelStatus::new_: return "new";
        case ModelStatus::changed: return "changed";
        case ModelStatus::unchanged: return "unchanged";
        case ModelStatus::failed: return "failed";
        case ModelStatus::gone: return "gone";
    }
    return "?";
}

}  // namespace modelcat::crawl
