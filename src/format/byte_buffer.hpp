#pragma once
// The buffer header bytes are read into.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace modelcat::format {

// Grows without zero-filling: every byte appended is overwritten by a read
// at once, and zeroing 8 MB headers was a tenth of a local crawl's time.
// Buffers of 2 MiB or more ask for transparent huge pages: an 8 MB header then
// faults 4 pages in, not 2,000 (the kernel may decline; the pages are then ordinary).
template <typename T>
struct UninitAllocator : std::allocator<T> {
    static constexpr std::size_t kHugePage = 2u << 20;
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
    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHugePage) return std::allocator<T>::allocate(n);
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (!p) throw std::bad_alloc();
        ::madvise(p, rounded, MADV_HUGEPAGE);
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) {
        if (n * sizeof(T) < kHugePage) std::allocator<T>::deallocate(p, n);
        else std::free(p);
    }
};
using ByteBuffer = std::vector<uint8_t, UninitAllocator<uint8_t>>;

}  // namespace modelcat::format
