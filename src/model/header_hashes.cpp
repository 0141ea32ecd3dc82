#include "model/header_hashes.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

namespace modelcat::model {

namespace {

void add_text(ContentHash& hash, std::string_view s) {
    hash.update_u64le(s.size());  // the length first, so that no two texts run together
    hash.update({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

void add_value(ContentHash& hash, const MetadataValue& v) {
    hash.update_u64le(v.index());
    if (auto* i = std::get_if<int64_t>(&v)) hash.update_u64le(static_cast<uint64_t>(*i));
    else if (auto* u = std::get_if<uint64_t>(&v)) hash.update_u64le(*u);
    else if (auto* b = std::get_if<bool>(&v)) hash.update_u64le(*b);
    else if (auto* s = std::get_if<std::string>(&v)) add_text(hash, *s);
    else if (auto* d = std::get_if<double>(&v)) {
        uint64_t bits;
        std::memcpy(&bits, d, sizeof bits);
        hash.update_u64le(bits);
    } else if (auto* a = std::get_if<ArraySummary>(&v)) {
        hash.update_u64le(static_cast<uint64_t>(a->element_type));
        hash.update_u64le(a->length);
        hash.update_u64le(a->content_hash);
    }
}

}  // namespace

void hash_tensor_index(const FileHeader& h, ContentHash& hash) {
    for (const auto& t : h.tensors) {
        add_text(hash, t.name);
        add_text(hash, t.type_name);
        hash.update_u64le(t.dims.size());
        for (uint64_t d : t.dims) hash.update_u64le(d);
        hash.update_u64le(t.offset);
    }
}

uint64_t metadata_hash(const FileHeader& h) {
    std::vector<const MetadataEntry*> sorted;
    for (const auto& e : h.metadata) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->key < b->key; });
    ContentHash hash;
    for (const auto* e : sorted) {
        add_text(hash, e->key);
        hash.update_u64le(static_cast<uint64_t>(e->type));
        add_value(hash, e->value);
    }
    return hash.digest();
}

}  // namespace modelcat::model
