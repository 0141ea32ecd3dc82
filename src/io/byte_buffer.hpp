#pragma once
// The buffer header bytes are read into.
#include <cstdint>
#include <memory>
#include <vector>

namespace modelcat::io {

// Grows without zero-filling: every byte appended is overwritten by a read
// at once, and zeroing 8 MB headers was a tenth of a local crawl's time.
template <typename T>
struct UninitAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using ByteBuffer = std::vector<uint8_t, UninitAllocator<uint8_t>>;

}  // namespace modelcat::io
