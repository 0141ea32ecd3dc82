#include "model/memory_terms.hpp"

#include "model/content_hash.hpp"

namespace modelcat::model {

const char* cache_kind_name(CacheKind k) {
    return k == CacheKind::sliding ? "sliding" : k == CacheKind::mla ? "mla" : "full";
}

std::string memory_shape_hash(const MemoryTerms& t) {
    ContentHash h;
    for (uint64_t v : {t.ctx_train, uint64_t{t.whole_blocks}, t.logits_per_token, t.attention_per_token,
                       t.scores_per_token_cell, t.layer_per_token, uint64_t{t.caches.size()}})
        h.update_u64le(v);
    for (const CacheTerms& c : t.caches)
        for (uint64_t v : {uint64_t{static_cast<uint8_t>(c.kind)}, uint64_t{c.window}, c.k_elements, c.v_elements,
                           c.v_padded_elements})
            h.update_u64le(v);
    return hex64(h.digest());
}

}  // namespace modelcat::model
