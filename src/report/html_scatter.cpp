#include "report/html_scatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>

#include "model/utf8.hpp"
#include "report/html_text.hpp"

namespace modelcat::report {

namespace {

constexpr double kWidth = 840, kHeight = 360, kLeft = 56, kRight = 150, kTop = 16, kBottom = 44;
// Longer names keep 5 characters and their end (where quant names differ); the point's <title> has them whole.
constexpr size_t kLabelChars = 20, kLabelHead = 5;

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
        // a step under the doubles' resolution at these values would never advance a tick (crafted sizes 2^62 and 1 KiB more)
        step = std::max(step, std::max(std::abs(min), std::abs(max)) * 1e-9);
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
        s += "<line x1=\"" + decimal(a.x(v), 1) + "\" x2=\"" + decimal(a.x(v), 1) + "\" y1=\"" + decimal(kTop, 1) + "\" y2=\"" +
             decimal(kHeight - kBottom, 1) + "\"/><text x=\"" + decimal(a.x(v), 1) + "\" y=\"" + decimal(kHeight - kBottom + 16, 1) +
             "\" text-anchor=\"middle\">" + decimal(v, a.xr.decimals()) + "</text>";
    for (double v = a.yr.lo; v <= a.yr.hi + a.yr.step / 1000; v += a.yr.step)
        s += "<line x1=\"" + decimal(kLeft, 1) + "\" x2=\"" + decimal(kWidth - kRight, 1) + "\" y1=\"" + decimal(a.y(v), 1) + "\" y2=\"" +
             decimal(a.y(v), 1) + "\"/><text x=\"" + decimal(kLeft - 6, 1) + "\" y=\"" + decimal(a.y(v) + 4, 1) +
             "\" text-anchor=\"end\">" + decimal(v, a.yr.decimals()) + "</text>";
    s += "<text x=\"" + decimal((kLeft + kWidth - kRight) / 2, 1) + "\" y=\"" + decimal(kHeight - 8, 1) +
         "\" text-anchor=\"middle\">file size (" + unit + ")</text><text transform=\"rotate(-90)\" x=\"" +
         decimal(-(kTop + kHeight - kBottom) / 2, 1) + "\" y=\"14\" text-anchor=\"middle\">bits per weight (measured)</text></g>";
    return s;
}

// A label's box in the SVG's units: the labels are 10px monospace (class label), 0.6 em a character
// in DejaVu Sans Mono and its kind; other code points are counted twice (CJK is double width).
struct Box {
    double x0, y0, x1, y1;
    bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};
constexpr double kCharWidth = 6.1, kAscent = 10, kDescent = 3, kPointRadius = 4;

double label_width(std::string_view s) {
    double units = 0;
    for (size_t i = 0; i < s.size();) {
        size_t n = std::max<size_t>(1, model::utf8_sequence_at(s, i));
        units += n == 1 ? 1 : 2;
        i += n;
    }
    return units * kCharWidth;
}

// Where each point's label goes, greedily in the given order: beside, above or below its point, clear
// of every point and every label placed before it and inside the plot; nullopt where there is no room
// (the label is left out rather than drawn over another).
struct LabelPlacer {
    std::vector<Box> taken;  // the points, then the labels as they are placed

    explicit LabelPlacer(const std::vector<std::pair<double, double>>& points) {
        for (auto [x, y] : points) taken.push_back({x - kPointRadius - 1, y - kPointRadius - 1, x + kPointRadius + 1, y + kPointRadius + 1});
    }

    // The label's left edge and baseline.
    std::optional<std::pair<double, double>> place(double x, double y, double width) {
        const double r = kPointRadius + 2;
        const std::pair<double, double> spots[] = {  // left edge and baseline, nearest first
            {x + r, y - 4},          {x + r, y + 3.5},          {x + r, y + 11},          {x - r - width, y - 4},
            {x - r - width, y + 3.5}, {x - r - width, y + 11},  {x - width / 2, y - r - 1}, {x - width / 2, y + r + kAscent},
            {x + r, y - 15},         {x + r, y + 22},           {x - r - width, y - 15},  {x - r - width, y + 22},
            {x - width / 2, y - r - 12}, {x - width / 2, y + r + kAscent + 11}};
        for (auto [left, base] : spots) {
            Box b{left - 1, base - kAscent - 1, left + width + 1, base + kDescent + 1};
            if (b.x0 < kLeft || b.x1 > kWidth || b.y0 < 0 || b.y1 > kHeight - kBottom) continue;
            if (std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return t.hits(b); })) continue;
            taken.push_back(b);
            return std::make_pair(left, base);
        }
        return std::nullopt;
    }
};

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
    std::string s = "<figure class=\"scatter\"><svg role=\"img\" viewBox=\"0 0 " + decimal(kWidth, 0) + " " + decimal(kHeight, 0) +
                    "\" width=\"" + decimal(kWidth, 0) + "\" height=\"" + decimal(kHeight, 0) + "\" data-architecture=\"" + arch +
                    "\"><title>" + arch + ": file size against measured bits per weight, " + std::to_string(models.size()) +
                    " models</title>" + axes_svg(a, unit_name);
    std::vector<std::pair<double, double>> points;
    for (const auto* m : models) points.emplace_back(a.x(static_cast<double>(*m->file_bytes) / unit), a.y(*m->bits_per_weight));
    LabelPlacer placer(points);
    size_t left_out = 0;
    std::set<std::tuple<std::string, long, long>> labelled;
    for (size_t i = 0; i < models.size(); ++i) {
        const auto* m = models[i];
        double size = static_cast<double>(*m->file_bytes) / unit;
        auto [x, y] = points[i];
        s += "<a href=\"#m" + std::to_string(m->id) + "\"><circle class=\"point\" cx=\"" + decimal(x, 1) + "\" cy=\"" + decimal(y, 1) +
             "\" r=\"" + decimal(kPointRadius, 0) + "\"><title>" + html_escape(m->name) + ": " + decimal(size, 2) + " " + unit_name + ", " +
             decimal(*m->bits_per_weight, 4) + " bits/weight</title></circle>";
        std::string text = model::elide_middle(labels[i], kLabelChars, kLabelHead);
        auto same = std::make_tuple(text, std::lround(x), std::lround(y));
        bool twin = labelled.contains(same);  // a copy at a point already labelled with its name needs no label of its own
        auto spot = twin ? std::nullopt : placer.place(x, y, label_width(text));
        if (spot) {
            labelled.insert(same);
            s += "<text class=\"label\" x=\"" + decimal(spot->first, 1) + "\" y=\"" + decimal(spot->second, 1) + "\">" + html_escape(text) +
                 "</text>";
        } else if (!twin) {
            ++left_out;
        }
        s += "</a>";
    }
    std::string caption = arch;
    if (left_out)
        caption += " · " + std::to_string(left_out) + " of " + std::to_string(models.size()) +
                   " labels left out where they would overlap (a point's tooltip names it)";
    return s + "</svg><figcaption data-labels-left-out=\"" + std::to_string(left_out) + "\">" + caption + "</figcaption></figure>";
}

}  // namespace modelcat::report
