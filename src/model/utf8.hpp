#pragma once
// UTF-8 policy for text that comes from files and servers: validation, the
// \xNN quoting used in messages, the reversible escape of string values, and
// the length and elision of text shown to people (tables, the HTML report).
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

// Code points in s, an invalid byte counting as one (U+FFFD replaces it where it is shown); a
// terminal cell each for the scripts model names use.
size_t utf8_length(std::string_view s);

// At most `max` code points of s, whole characters only: a longer s keeps its start (`head` code
// points, by default (max - 1) / 2) and its end around "…", which tell apart names and paths that
// share a middle (Meta-Llama-3.1-8B…Q4_K_M).
std::string elide_middle(std::string_view s, size_t max, std::optional<size_t> head = std::nullopt);

// At most `max` code points of s: a longer s keeps its start and ends in "…" (a census: its
// largest types come first).
std::string elide_end(std::string_view s, size_t max);

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
