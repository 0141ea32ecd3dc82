#include "model/quantity_text.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace modelcat::model {

namespace {

// Three significant digits and a unit: 8.03 B, 135 M; 4.58 GiB, 512 B.
std::string scaled(double v, double step, const char* const* units, size_t n_units) {
    double a = std::fabs(v);
    size_t u = 0;
    while (a >= step && u + 1 < n_units) a /= step, ++u;
    char buf[48];
    if (u == 0) std::snprintf(buf, sizeof buf, "%.0f%s%s", v, *units[0] ? " " : "", units[0]);
    else std::snprintf(buf, sizeof buf, a < 10 ? "%.2f %s" : a < 100 ? "%.1f %s" : "%.0f %s", std::copysign(a, v), units[u]);
    return buf;
}

}  // namespace

std::string size_text(double bytes) {
    static const char* const kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    return scaled(bytes, 1024, kBinary, std::size(kBinary));
}

std::string params_text(double params) {
    static const char* const kDecimal[] = {"", "K", "M", "B", "T", "Q"};
    return scaled(params, 1000, kDecimal, std::size(kDecimal));
}

}  // namespace modelcat::model
