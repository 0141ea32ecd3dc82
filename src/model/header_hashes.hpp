#pragma once
// Hashes that tell re-uploads apart: the tensor index (same weights layout?)
// and the metadata (same keys and values?), each a ContentHash.
#include <cstdint>

#include "model/content_hash.hpp"
#include "model/header.hpp"

namespace modelcat::model {

// Adds every tensor's (name, type, dims, offset) in file order: equal for two
// files whose data sections are laid out alike, whatever their metadata.
void hash_tensor_index(const FileHeader& h, ContentHash& hash);

// Every metadata entry (key, type, value; arrays by type, length and content
// hash), in key order so that a reordered header hashes the same.
uint64_t metadata_hash(const FileHeader& h);

}  // namespace modelcat::model
