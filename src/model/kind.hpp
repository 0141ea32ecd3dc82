#pragma once
// What kind of artifact a model file is: llama.cpp writes models, multimodal
// projectors, LoRA adapters, importance matrices and vocab-only files all as
// GGUF. Pure functions of the parsed headers.
#include <string>
#include <vector>

#include "model/header.hpp"

namespace modelcat::model {

enum class ModelKind { model, mmproj, adapter, imatrix, vocab, unknown };
const char* kind_name(ModelKind k);  // model mmproj adapter imatrix vocab unknown

// The rule, first match wins, over a model's data files:
//  1. general.type "adapter", "mmproj" or "imatrix" says so;
//  2. adapter.* keys, or a tensor name with a lora_a / lora_b part (any case): adapter;
//  3. general.architecture "clip", or clip.* keys: mmproj;
//  4. tensors named *.in_sum2 (llama-imatrix's sums): imatrix;
//  5. no tensors and tokenizer.* keys: vocab;
//  6. tensors, and general.type absent or "model": model;
//  7. anything else: unknown.
ModelKind classify_model(const std::vector<const FileHeader*>& data_files);

}  // namespace modelcat::model
