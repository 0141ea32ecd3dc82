#pragma once
// What a file that is not a model most likely is, from its first bytes: an HTML
// page or a JSON error saved under the model's name, a Git LFS pointer, a file
// of zeros, other text. Named in the error so the person reading it knows what to do,
// and in place of numbers decoded from bytes that are not a model's.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace modelcat::format {

// "an HTML page, probably a failed download"; nullopt when the bytes show nothing known.
std::optional<std::string> likely_cause(std::span<const uint8_t> first_bytes);

}  // namespace modelcat::format
