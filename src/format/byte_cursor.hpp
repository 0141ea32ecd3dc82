#pragma once
// Bounds-checked, endian-aware reading over a prefix of a file. Reading past
// the prefix but within the file throws OutOfBytes (fetch more and retry);
// reading past the file itself is a FormatError (truncated input).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::format {

// std::byteswap is C++23; this is its C++20 stand-in.
template <typename U>
constexpr U byteswap(U v) {
    if constexpr (sizeof(U) == 2) return static_cast<U>(__builtin_bswap16(static_cast<uint16_t>(v)));
    else if constexpr (sizeof(U) == 4) return static_cast<U>(__builtin_bswap32(static_cast<uint32_t>(v)));
    else if constexpr (sizeof(U) == 8) return static_cast<U>(__builtin_bswap64(static_cast<uint64_t>(v)));
    else return v;
}

struct OutOfBytes {
    uint64_t needed_end;  // the prefix must reach this offset
};

class ByteCursor {
public:
    ByteCursor(std::span<const uint8_t> prefix, uint64_t file_size, bool big_endian = false)
        : data_(prefix), file_size_(file_size), big_endian_(big_endian) {}

    uint64_t pos() const { return pos_; }
    void set_big_endian(bool b) { big_endian_ = b; }
    uint64_t file_size() const { return file_size_; }
    uint64_t remaining_in_file() const { return file_size_ > pos_ ? file_size_ - pos_ : 0; }

    // Ensures n bytes are readable at pos; `what` names the field for errors.
    void require(uint64_t n, std::string_view what) const {
        if (n > remaining_in_file()) [[unlikely]] truncated(n, what);
        if (pos_ + n > data_.size()) [[unlikely]] throw OutOfBytes{pos_ + n};
    }

    // The bytes from `start` (already read) to the current position.
    std::span<const uint8_t> since(uint64_t start) const { return data_.subspan(start, pos_ - start); }

    // A little-endian, 64-bit-length string of at most `max_bytes`, stepped over when all of it is
    // here: true. Otherwise false, the cursor unmoved, for the checked reads to say what is wrong.
    bool skip_le_string(uint64_t max_bytes) {
        const uint64_t avail = std::min<uint64_t>(data_.size(), file_size_) - pos_;
        uint64_t n;
        if (avail < 8) return false;
        std::memcpy(&n, data_.data() + pos_, 8);
        if (n > max_bytes || n > avail - 8) return false;
        pos_ += 8 + n;
        return true;
    }

    // Steps over n bytes when all of them are here: true; else false, the cursor unmoved.
    bool skip_if_here(uint64_t n) {
        if (n > std::min<uint64_t>(data_.size(), file_size_) - pos_) return false;
        pos_ += n;
        return true;
    }

    std::span<const uint8_t> bytes(uint64_t n, std::string_view what) {
        require(n, what);
        auto s = data_.subspan(pos_, n);
        pos_ += n;
        return s;
    }

    template <typename T>
    T read(std::string_view what) {
        require(sizeof(T), what);
        T v;
        std::memcpy(&v, data_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        if (big_endian_ && sizeof(T) > 1) v = byteswap_value(v);
        return v;
    }

    template <typename T>
    static T byteswap_value(T v) {
        if constexpr (std::is_integral_v<T>) {
            return byteswap(v);
        } else {
            using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
            return std::bit_cast<T>(byteswap(std::bit_cast<U>(v)));
        }
    }

private:
    // Out of line, so that require() inlines into every read: a vocabulary is 400,000 of them.
    [[noreturn, gnu::noinline, gnu::cold]] void truncated(uint64_t n, std::string_view what) const {
        throw model::FormatError(pos_, "truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes at offset " +
                                    std::to_string(pos_) + " but the file ends at " + std::to_string(file_size_));
    }

    std::span<const uint8_t> data_;
    uint64_t file_size_;
    bool big_endian_;
    uint64_t pos_ = 0;
};

}  // namespace modelcat::format
