#include "report/html_scatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/html_text.hpp"

namespace modelcat::report {

namespace {

constexpr double kWidth = 840, kHeight = 360, kLeft = 56, kRight = 150, kTop = 16, kBottom = 44;
constexpr size_t kMaxLabels = 40;  // beyond this labels overlap into a blot; points keep their <title>

std::string num(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// A round step giving about `ticks` intervals up to `max`.
double tick_step(double max, int ticks) {
    double raw = max / ticks, mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

// One axis over the data's range, widened to whole ticks (not from zero: a lineup spans 3 to 9 bits).
struct Range {
    double lo, hi, step;
    static Range of(double min, double max, int ticks) {
        double step = tick_step(max > min ? max - min : std::max(std::abs(max), 1.0), ticks);
        double lo = std::floor(min / step) * step, hi = std::ceil(max / step) * step;
        if (hi <= lo) hi = lo + step;
        return {lo, hi, step};
    }
    double at(double v) const { return (v - lo) / (hi - lo); }
    int decimals() const { return step < 1 ? (step < 0.1 ? 2 : 1) : 0; }
};

struct Axes {
    Range xr, yr;
    double x(double size) const { return kLeft + xr.at(size) * (kWidth - kLeft - kRight); }
    double y(double bpw) const { return kHeight - kBottom - yr.at(bpw) * (kHeight - kTop - kBottom); }
};

std::string axes_svg(const Axes& a, const char* unit) {
    std::string s = "<g class=\"axes\">";
    for (double v = a.xr.lo; v <= a.xr.hi + a.xr.step / 1000; v += a.xr.step)
        s += "<line x1=\"" + num(a.x(v), 1) + "\" x2=\"" + num(a.x(v), 1) + "\" y1=\"" + num(kTop, 1) + "\" y2=\"" +
             num(kHeight - kBottom, 1) + "\"/><text x=\"" + num(a.x(v), 1) + "\" y=\"" + num(kHeight - kBottom + 16, 1) +
             "\" text-anchor=\"middle\">" + num(v, a.xr.decimals()) + "</text>";
    for (double v = a.yr.lo; v <= a.yr.hi + a.yr.step / 1000; v += a.yr.step)
        s += "<line x1=\"" + num(kLeft, 1) + "\" x2=\"" + num(kWidth - kRight, 1) + "\" y1=\"" + num(a.y(v), 1) + "\" y2=\"" +
             num(a.y(v), 1) + "\"/><text x=\"" + num(kLeft - 6, 1) + "\" y=\"" + num(a.y(v) + 4, 1) +
             "\" text-anchor=\"end\">" + num(v, a.yr.decimals()) + "</text>";
    s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2, 1) + "\" y=\"" + num(kHeight - 8, 1) +
         "\" text-anchor=\"middle\">file size (" + unit + ")</text><text transform=\"rotate(-90)\" x=\"" +
         num(-(kTop + kHeight - kBottom) / 2, 1) + "\" y=\"14\" text-anchor=\"middle\">bits per weight (measured)</text></g>";
    return s;
}

}  // namespace

std::string size_bits_scatter(const std::string& architecture, const std::vector<const catalog::ReportModel*>& models,
                              const std::vector<std::string>& labels) {
    double biggest = 0;
    for (const auto* m : models) biggest = std::max(biggest, static_cast<double>(*m->file_bytes));
    static constexpr std::pair<double, const char*> kUnits[] = {{1024.0 * 1024 * 1024, "GiB"}, {1024.0 * 1024, "MiB"}, {1024.0, "KiB"}};
    double unit = 1.0;
    const char* unit_name = "bytes";
    for (const auto& [u, n] : kUnits)
        if (biggest >= u) {
            unit = u;
            unit_name = n;
            break;
        }
    auto [x_min, x_max] = std::minmax_element(models.begin(), models.end(), [](auto* a, auto* b) { return *a->file_bytes < *b->file_bytes; });
    auto [y_min, y_max] = std::minmax_element(models.begin(), models.end(),
                                              [](auto* a, auto* b) { return *a->bits_per_weight < *b->bits_per_weight; });
    Axes a{Range::of(static_cast<double>(*(*x_min)->file_bytes) / unit, static_cast<double>(*(*x_max)->file_bytes) / unit, 6),
           Range::of(*(*y_min)->bits_per_weight, *(*y_max)->bits_per_weight, 5)};
    std::string arch = html_escape(architecture.empty() ? "(no architecture)" : architecture);
    std::string s = "<figure class=\"scatter\"><svg role=\"img\" viewBox=\"0 0 " + num(kWidth, 0) + " " + num(kHeight, 0) +
                    "\" width=\"" + num(kWidth, 0) + "\" height=\"" + num(kHeight, 0) + "\" data-architecture=\"" + arch +
                    "\"><title>" + arch + ": file size against measured bits per weight, " + std::to_string(models.size()) +
                    " models</title>" + axes_svg(a, unit_name);
    bool label = models.size() <= kMaxLabels;
    for (size_t i = 0; i < models.size(); ++i) {
        const auto* m = models[i];
        double size = static_cast<double>(*m->file_bytes) / unit;
        std::string cx = num(a.x(size), 1), cy = num(a.y(*m->bits_per_weight), 1);
        s += "<a href=\"#m" + std::to_string(m->id) + "\"><circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"4\"><title>" +
             html_escape(m->name) + ": " + num(size, 2) + " " + unit_name + ", " + num(*m->bits_per_weight, 4) + " bits/weight</title></circle>";
        if (label)
            s += "<text class=\"label\" x=\"" + num(a.x(size) + 6, 1) + "\" y=\"" + num(a.y(*m->bits_per_weight) - 6, 1) + "\">" +
                 html_escape(labels[i]) + "</text>";
        s += "</a>";
    }
    return s + "</svg><figcaption>" + arch + "</figcaption></figure>";
}

}  // namespace modelcat::report
