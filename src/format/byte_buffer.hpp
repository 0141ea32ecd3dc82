#pragma once
// The buffer header bytes (and HTTP bodies) are read into.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

namespace modelcat::format {

// Bytes that grow without being zero-filled: every byte appended is overwritten by a read at once,
// and zeroing 8 MB headers was a tenth of a local crawl's time. Not a std::vector with a
// non-initialising allocator: that one still constructs byte by byte, which only an optimiser
// removes (an unoptimised build spent half a crawl there). Buffers of 2 MiB or more ask for
// transparent huge pages: an 8 MB header then faults 4 pages in, not 2,000 (the kernel may
// decline; the pages are then ordinary).
class ByteBuffer {
public:
    ByteBuffer() = default;
    ByteBuffer(const ByteBuffer& other) { assign(other.begin(), other.end()); }
    ByteBuffer(ByteBuffer&& other) noexcept { swap(other); }
    ByteBuffer& operator=(ByteBuffer other) noexcept {
        swap(other);
        return *this;
    }
    void swap(ByteBuffer& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
    }
    friend void swap(ByteBuffer& a, ByteBuffer& b) noexcept { a.swap(b); }
    // The same bytes (a vector or another buffer converts to the span).
    friend bool operator==(const ByteBuffer& a, std::span<const uint8_t> b) {
        return a.size() == b.size() && (b.empty() || std::memcmp(a.data(), b.data(), b.size()) == 0);
    }

    uint8_t* data() { return data_.get(); }
    const uint8_t* data() const { return data_.get(); }
    uint8_t* begin() { return data(); }
    uint8_t* end() { return data() + size_; }
    const uint8_t* begin() const { return data(); }
    const uint8_t* end() const { return data() + size_; }
    uint8_t& operator[](size_t i) { return data_.get()[i]; }
    const uint8_t& operator[](size_t i) const { return data_.get()[i]; }
    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }

    // The new bytes are left as they were: the caller writes them.
    void resize(size_t n) {
        reserve(n);
        size_ = n;
    }
    void reserve(size_t n);
    void append(const uint8_t* bytes, size_t n) {
        const size_t at = size_;
        resize(size_ + n);
        if (n) std::memcpy(data() + at, bytes, n);
    }
    void assign(const uint8_t* first, const uint8_t* last) {
        clear();
        append(first, static_cast<size_t>(last - first));
    }

private:
    struct Free {
        void operator()(uint8_t* p) const;
    };
    std::unique_ptr<uint8_t, Free> data_;
    size_t size_ = 0, capacity_ = 0;
};

}  // namespace modelcat::format
