#pragma once
// UTF-8 policy for text that comes from files and servers: validation, the
// \xNN quoting used in messages, and the reversible escape of string values.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::model {

// Length of the valid UTF-8 sequence at s[i], or 0 if there is none
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
size_t utf8_sequence_at(std::string_view s, size_t i);

// Index of the first byte that does not start a valid sequence; nullopt if s is valid UTF-8.
std::optional<size_t> first_invalid_utf8(std::string_view s);

// s for a message: valid UTF-8 kept, every other byte as \xNN. Lossy for
// text that already holds "\x"; messages only show, they are never parsed.
std::string quote_bytes(std::string_view s);

// The stored form of a string value that is not valid UTF-8: '\' becomes
// "\\" and each byte outside a valid sequence "\xNN". Valid strings are
// stored as they are, so this applies only where a warning says it did.
std::string escape_invalid_utf8(std::string_view s);

// The inverse of escape_invalid_utf8 (the file's exact bytes).
std::string unescape_invalid_utf8(std::string_view s);

// Text the format requires to be UTF-8 (GGUF keys and tensor names): a
// FormatError at the first bad byte (`start` is where s begins in the file).
void require_utf8(std::string_view s, uint64_t start, std::string_view what);

// A string value that is not valid UTF-8 is replaced by its escaped form;
// returns the warning that says so (nothing for other values).
std::optional<Warning> escape_string_value(MetadataEntry& e);

}  // namespace modelcat::model
