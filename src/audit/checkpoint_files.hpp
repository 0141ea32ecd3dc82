#pragma once
// The checkpoint's JSON and tokenizer files as the metadata audit takes them: read
// by audit/checkpoint_texts.hpp, judged by audit/metadata_audit.hpp.
#include <optional>
#include <string>

namespace modelcat::audit {

// One of the checkpoint's files, whole, or why it is not there.
struct CheckpointFile {
    std::optional<std::string> bytes;  // nullopt: absent, or not read (problem says why)
    std::string problem;               // "" when read or simply absent
};

struct CheckpointTexts {
    CheckpointFile config, generation_config, tokenizer, tokenizer_config, tokenizer_model, chat_template_jinja;
};

}  // namespace modelcat::audit
