#pragma once
// Reads the checkpoint's configuration and tokenizer files that sit beside its
// config.json (local or remote), each whole and under its own cap.
#include <cstdint>
#include <span>
#include <string>

#include "audit/checkpoint_files.hpp"
#include "locate/sync_reads.hpp"

namespace modelcat::audit {

struct TextCap {
    const char* name;
    uint64_t max_bytes;
};
// generation_config.json 1 MiB, tokenizer.json 64 MiB, tokenizer_config.json 16 MiB,
// tokenizer.model 16 MiB, chat_template.jinja 4 MiB.
std::span<const TextCap> checkpoint_text_caps();

// `config_location` is config.json's, whose bytes were read already; the others are read through `reads`. Adds the bytes and
// requests of its reads to the counters. A file over its cap or unreadable is recorded
// with its problem, never thrown: the rows that need it say not_checked.
CheckpointTexts read_checkpoint_texts(locate::SyncReads& reads, const std::string& config_location, std::string config_bytes,
                                      uint64_t& bytes, uint64_t& requests);

}  // namespace modelcat::audit
