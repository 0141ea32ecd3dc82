#pragma once
// JSON text written by hand: string escaping, numbers and dimension lists.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modelcat::format {

// Appends s as a JSON string literal; invalid UTF-8 bytes become U+FFFD so
// the result is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

// Shortest text that reads back as the same double; NaN/Inf become null.
std::string json_number(double v);

// "[4096,128256]"
std::string json_dims(const std::vector<uint64_t>& dims);

}  // namespace modelcat::format
