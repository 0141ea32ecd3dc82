#pragma once
// Where generation stops and how a chat is written: generation_config.json's
// BOS/EOS/PAD ids against the GGUF's ids and the end-of-generation set llama.cpp
// derives at load (llama-vocab.cpp), and the chat template byte for byte.
#include <vector>

#include "audit/metadata_values.hpp"

namespace modelcat::audit {

void generation_rows(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows);
void chat_template_rows(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows);

}  // namespace modelcat::audit
