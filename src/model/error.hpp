#pragma once
// The one error a bad input raises, and the one way a located problem is told:
// "LOCATION: offset N: reason", or "LOCATION: at weight_map.\"x\": reason".
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace modelcat::model {

// Where and why an input failed: a byte offset in the file, or a path in a
// JSON document, or neither when nothing more precise is known.
struct Failure {
    std::string location = {};
    std::optional<uint64_t> offset = {};
    std::string json_path = {};
    std::string message = {};
    // "at weight_map.\"x\": reason" when a JSON path is known; else the reason.
    std::string reason() const;
    // "LOCATION: offset N: reason", the form printed and logged everywhere.
    std::string describe() const;
};

// A malformed or hostile input. Where it was found: a byte offset in the
// file, or a path in a JSON document (`weight_map."model-00001.safetensors"`),
// or neither when nothing more precise is known; never a made-up 0. A parser
// does not know the file's name: whoever reads it names it with in().
class FormatError : public std::runtime_error {
public:
    FormatError(std::optional<uint64_t> offset, const std::string& message)
        : std::runtime_error(message), message_(message), offset_(offset) {}
    explicit FormatError(const std::string& message) : std::runtime_error(message), message_(message) {}
    static FormatError at_json_path(std::string path, const std::string& message) {
        FormatError e(message);
        e.json_path_ = std::move(path);
        return e;
    }
    // The same error, in the file or input at `location`.
    FormatError in(std::string location) const {
        FormatError e(*this);
        e.location_ = std::move(location);
        return e;
    }
    // The whole message: what() is a C string, cut short by a NUL that a stranger's name may hold.
    const std::string& message() const { return message_; }
    std::optional<uint64_t> offset() const { return offset_; }
    const std::string& json_path() const { return json_path_; }
    const std::string& location() const { return location_; }
    // As a Failure: at its own location, else at `location`.
    Failure failure(const std::string& location = {}) const {
        return {location_.empty() ? location : location_, offset_, json_path_, message_};
    }

private:
    std::string message_;
    std::optional<uint64_t> offset_;
    std::string json_path_, location_;
};

}  // namespace modelcat::model
