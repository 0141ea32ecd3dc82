#pragma once
// The one way a small JSON document from a file or a server is parsed
// (index.json, config.json, Hub listings, Ollama manifests), and the one
// error it gives when it is not JSON: "WHAT is not valid JSON: reason".
#include <simdjson.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace modelcat::format {

// `what` names the document in errors ("index", "Hub listing", "manifest").
simdjson::dom::element parse_json(simdjson::dom::parser& parser, std::span<const uint8_t> json, std::string_view what);
// The same, for a document that must be an object (an error at JSON path "$" otherwise).
simdjson::dom::object parse_json_object(simdjson::dom::parser& parser, std::span<const uint8_t> json, std::string_view what);

}  // namespace modelcat::format
