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

}  // namespace modelcat::cli
