#pragma once
// The tokenizer's rows of the metadata audit: the vocabulary (audit/tokenizer_vocab.hpp),
// its merges, types and pre-tokenizer, the special token ids and add_* flags as gguf-py's
// SpecialVocab derives them, generation_config.json's EOS ids against what ends
// generation in llama.cpp, and the chat template byte for byte.
#include <vector>

#include "audit/metadata_values.hpp"

namespace modelcat::audit {

void audit_tokenizer(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows);

}  // namespace modelcat::audit
