#include "model/memory_terms.hpp"

namespace modelcat::model {

const char* cache_kind_name(CacheKind k) {
    return k == CacheKind::sliding ? "sliding" : k == CacheKind::mla ? "mla" : "full";
}

}  // namespace modelcat::model
