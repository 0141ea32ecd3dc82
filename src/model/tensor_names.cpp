#include "model/tensor_names.hpp"

#include <array>
#include <charconv>

namespace modelcat::model {

TensorName split_tensor_name(std::string_view name) {
    static constexpr std::array<std::string_view, 2> kPrefixes{"blk.", "model.layers."};
    for (std::string_view prefix : kPrefixes) {
        if (!name.starts_with(prefix)) continue;
        std::string_view rest = name.substr(prefix.size());
        uint32_t layer = 0;
        auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
        if (ec != std::errc() || ptr == rest.data() || ptr == rest.data() + rest.size() || *ptr != '.') continue;
        return {layer, std::string(ptr + 1, rest.data() + rest.size())};
    }
    return {std::nullopt, std::string(name)};
}

}  // namespace modelcat::model
