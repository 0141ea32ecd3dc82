#pragma once
// The metadata half of the conversion audit: every GGUF key that llama.cpp's
// converter (convert_hf_to_gguf.py, gguf-py's SpecialVocab) derives from the
// checkpoint's files, held against the value the converter would have written
// from them (audit/converter_mapping.hpp). A pure function of the GGUF's parsed
// header and the files' bytes; reading them is audit/checkpoint_texts.hpp's.
#include <cstdint>
#include <string>
#include <vector>

#include "audit/checkpoint_files.hpp"
#include "model/audit_result.hpp"
#include "model/header.hpp"

namespace modelcat::audit {

// The GGUF arrays the metadata audit needs as values, not only as hashes (model::Limits::kept_arrays),
// and the most JSON each may take before it is compared by hash only.
std::vector<std::string> metadata_kept_arrays();
constexpr uint64_t kKeptArrayJsonBytes = 64ull << 20;

// Rows in a fixed order: hyper-parameters, rope scaling, tokenizer, special tokens, chat template.
std::vector<model::MetadataResult> audit_metadata(const model::FileHeader& gguf, const CheckpointTexts& texts);

}  // namespace modelcat::audit
