#include "format/json_document.hpp"

#include <string>

#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::format {

simdjson::dom::element parse_json(simdjson::dom::parser& parser, std::span<const uint8_t> json, std::string_view what) {
    simdjson::dom::element root;
    if (auto err = parser.parse(reinterpret_cast<const char*>(json.data()), json.size()).get(root))
        throw model::FormatError(std::string(what) + " is not valid JSON: " + simdjson::error_message(err));
    return root;
}

simdjson::dom::object parse_json_object(simdjson::dom::parser& parser, std::span<const uint8_t> json, std::string_view what) {
    simdjson::dom::object obj;
    if (parse_json(parser, json, what).get_object().get(obj))
        throw model::FormatError::at_json_path("$", std::string(what) + " is not a JSON object");
    return obj;
}

}  // namespace modelcat::format
