#pragma once
// Seconds as servers announce them and options give them (a double), as a steady-clock duration.
#include <chrono>

namespace modelcat::io {

inline std::chrono::steady_clock::duration seconds_as_duration(double s) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace modelcat::io
