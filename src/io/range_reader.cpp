#include "io/range_reader.hpp"

namespace modelcat::io {

std::optional<std::string> RangeReply::first_hop_header(const std::string& name) const {
    for (const auto& [n, v] : first_hop)
        if (n == name) return v;
    return std::nullopt;
}

}  // namespace modelcat::io
