#pragma once
// What the audit needs from a checkpoint's config.json: attention heads, head
// size, tied embeddings and the RoPE settings, and the rope_freqs factors the
// converter derives from the llama3 rope_scaling. Pure functions over bytes.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace modelcat::format {

struct Llama3RopeScaling {
    double factor = 8.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
    double original_context = 8192;  // original_max_position_embeddings
};

struct ModelConfig {
    std::string model_type;
    std::optional<uint64_t> hidden_size, heads, kv_heads, head_dim;
    double rope_theta = 10000.0;
    bool tie_word_embeddings = false;
    std::optional<Llama3RopeScaling> llama3_scaling;  // rope_scaling with rope_type (or type) "llama3"
    // head_dim, else hidden_size / heads; nullopt when neither is known.
    std::optional<uint64_t> rotary_dim() const;
};

// Throws FormatError naming the JSON path of a field of the wrong type.
ModelConfig parse_model_architecture(std::span<const uint8_t> json);

// The converter's rope_freqs.weight: one factor per rotary frequency pair
// (1 for short wavelengths, `factor` for long ones, smoothed between), or
// empty when the config has no llama3 scaling or no head size.
std::vector<double> llama3_rope_factors(const ModelConfig& c);

}  // namespace modelcat::format
