#pragma once
// The one check that a relative name from a file (an index's shard, a Hub
// listing's path) stays inside the folder it is resolved against.
#include <optional>
#include <string>
#include <string_view>

namespace modelcat::format {

// Why `name` would leave its folder (absolute, a NUL, a URL, a backslash, a percent-escape, a query or
// fragment character, an empty or ".." component), or nullopt when it is a plain relative path.
std::optional<std::string> escapes_folder(std::string_view name);

}  // namespace modelcat::format
