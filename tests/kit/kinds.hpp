#pragma once
// Small GGUFs of every kind llama.cpp writes, laid out as its tools write them:
// a model, a multimodal projector (clip), a LoRA adapter, an importance matrix.
#include <cstdint>
#include <string>

#include "gguf_writer.hpp"

namespace modelcat::kit {

// A 2-layer llama (embedding 256, 4 heads, 2 kv heads of 64) whose weights are
// `weight_type` (ggml id) with F32 norms; `name` goes in general.name and `template_text`
// in tokenizer.chat_template.
GgufWriter tiny_llama(const std::string& name, uint32_t weight_type, const std::string& template_text = "{{ messages }}");

// clip.cpp's projector: general.architecture "clip", clip.* keys, v.* and mm.* tensors.
GgufWriter tiny_mmproj();

// llama.cpp's LoRA: general.type "adapter", adapter.type "lora", adapter.lora.alpha,
// blk.N.attn_q.weight.lora_a / lora_b tensors for the tiny llama.
GgufWriter tiny_lora(float alpha);

// llama-imatrix's GGUF: general.type "imatrix", <tensor>.in_sum2 and <tensor>.counts.
GgufWriter tiny_imatrix();

}  // namespace modelcat::kit
