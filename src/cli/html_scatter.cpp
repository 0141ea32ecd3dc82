#include "cli/html_scatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/html_report.hpp"

namespace modelcat::cli {

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

struct Axes {
    double x_max, y_max;
    double x(double size) const { return kLeft + size / x_max * (kWidth - kLeft - kRight); }
    double y(double bpw) const { return kHeight - kBottom - bpw / y_max * (kHeight - kTop - kBottom); }
};

std::string axes_svg(const Axes& a, double x_step, double y_step, const char* unit) {
    std::string s = "<g class=\"axes\">";
    for (double v = 0; v <= a.x_max + 1e-9; v += x_step)
        s += "<line x1=\"" + num(a.x(v), 1) + "\" x2=\"" + num(a.x(v), 1) + "\" y1=\"" + num(kTop, 1) + "\" y2=\"" +
             num(kHeight - kBottom, 1) + "\"/><text x=\"" + num(a.x(v), 1) + "\" y=\"" + num(kHeight - kBottom + 16, 1) +
             "\" text-anchor=\"middle\">" + num(v, x_step < 1 ? 1 : 0) + "</text>";
    for (double v = 0; v <= a.y_max + 1e-9; v += y_step)
        s += "<line x1=\"" + num(kLeft, 1) + "\" x2=\"" + num(kWidth - kRight, 1) + "\" y1=\"" + num(a.y(v), 1) + "\" y2=\"" +
             num(a.y(v), 1) + "\"/><text x=\"" + num(kLeft - 6, 1) + "\" y=\"" + num(a.y(v) + 4, 1) +
             "\" text-anchor=\"end\">" + num(v, y_step < 1 ? 1 : 0) + "</text>";
    s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2, 1) + "\" y=\"" + num(kHeight - 8, 1) +
         "\" text-anchor=\"middle\">file size (" + unit + ")</text><text transform=\"rotate(-90)\" x=\"" +
         num(-(kTop + kHeight - kBottom) / 2, 1) + "\" y=\"14\" text-anchor=\"middle\">bits per weight (measured)</text></g>";
    return s;
}

}  // namespace

std::string size_bits_scatter(const std::string& architecture, const std::vector<const ReportModel*>& models,
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
    double x_max = 0, y_max = 0;
    for (const auto* m : models) {
        x_max = std::max(x_max, static_cast<double>(*m->file_bytes) / unit);
        y_max = std::max(y_max, *m->bits_per_weight);
    }
    double x_step = tick_step(std::max(x_max, 1e-6), 6), y_step = tick_step(std::max(y_max, 1e-6), 5);
    Axes a{std::ceil(x_max / x_step) * x_step, std::ceil(y_max / y_step) * y_step};
    if (a.x_max <= 0) a.x_max = x_step;
    if (a.y_max <= 0) a.y_max = y_step;
    std::string arch = html_escape(architecture.empty() ? "(no architecture)" : architecture);
    std::string s = "<figure class=\"scatter\"><svg role=\"img\" viewBox=\"0 0 " + num(kWidth, 0) + " " + num(kHeight, 0) +
                    "\" width=\"" + num(kWidth, 0) + "\" height=\"" + num(kHeight, 0) + "\" data-architecture=\"" + arch +
                    "\"><title>" + arch + ": file size against measured bits per weight, " + std::to_string(models.size()) +
                    " models</title>" + axes_svg(a, x_step, y_step, unit_name);
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

}  // namespace modelcat::cli
