#pragma once
// Text from files and servers on its way to a terminal (or a log that one
// will show): control characters must not act, whatever the destination.
#include <cstdint>
#include <string>
#include <string_view>

namespace modelcat::cli {

// s with C0 controls (other than newline and tab) and DEL as \xNN, C1
// controls (U+0080-U+009F) and the format characters that reorder or hide text
// (U+061C, U+200B-U+200F, U+2028-U+202E, U+2066-U+2069, U+FEFF) as \uNNNN, and
// bytes that are not valid UTF-8 as \xNN (a lone 0x9b is a CSI to some
// terminals). Everything else unchanged.
std::string terminal_safe(std::string_view s);

// terminal_safe, with newline and tab escaped too: text that must stay on its line (a digest's
// entry, a tab-separated listing).
std::string terminal_line(std::string_view s);

// 1,048,576: a count for a person.
std::string with_commas(uint64_t n);

// JSON text with each C1 control and each format character terminal_safe escapes written as its
// \uNNNN escape: the same JSON value (they are legal raw in JSON strings, and act on terminals).
std::string json_terminal_safe(std::string_view json);

}  // namespace modelcat::cli
