#include "format/byte_buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace modelcat::format {

namespace {
constexpr size_t kHugePage = 2u << 20;
}

void ByteBuffer::Free::operator()(uint8_t* p) const { std::free(p); }

// Grows geometrically, as a vector would, so appends in a loop stay linear.
void ByteBuffer::reserve(size_t n) {
    if (n <= capacity_) return;
    size_t want = std::max(n, capacity_ + capacity_ / 2);
    void* p = nullptr;
    if (want < kHugePage) {
        p = std::malloc(want);
    } else {
        want = (want + kHugePage - 1) / kHugePage * kHugePage;
        p = std::aligned_alloc(kHugePage, want);
        if (p) ::madvise(p, want, MADV_HUGEPAGE);
    }
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_.get(), size_);
    data_.reset(static_cast<uint8_t*>(p));
    capacity_ = want;
}

}  // namespace modelcat::format
