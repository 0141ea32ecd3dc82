#pragma once
// Text from files and servers on its way to a terminal (or a log that one
// will show): control characters must not act, whatever the destination.
#include <string>
#include <string_view>

namespace modelcat::cli {

// s with C0 controls (other than newline and tab) and DEL as \xNN, C1
// controls (U+0080-U+009F) as \u00NN, and bytes that are not valid UTF-8 as
// \xNN (a lone 0x9b is a CSI to some terminals). Everything else unchanged.
std::string terminal_safe(std::string_view s);

// JSON text with each C1 control written as its \u00NN escape: the same JSON
// value (C1 controls are legal raw in JSON strings, and act on terminals).
std::string json_without_c1(std::string_view json);

}  // namespace modelcat::cli
