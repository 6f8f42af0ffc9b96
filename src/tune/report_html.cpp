#include "tune/report_html.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>

namespace axon::tune {
namespace {

// The plots' geometry, in SVG user units (pixels at 100% zoom).
constexpr double kSvgWidth = 760, kSvgHeight = 320;
constexpr double kLeft = 72, kRight = 24, kTop = 16, kBottom = 44;
constexpr double kPlotWidth = kSvgWidth - kLeft - kRight;
constexpr double kPlotHeight = kSvgHeight - kTop - kBottom;
// Above this ratio of largest to smallest value a linear axis squeezes the
// small values into a few pixels, so the axis becomes logarithmic.
constexpr double kLogRatio = 20;
// A lone bar as wide as the plot reads as a frame, not as a bar.
constexpr double kMaxBarWidth = 48;

constexpr std::string_view kStyle = R"css(
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 64em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.chosen td { background: #fff3c4; font-weight: bold; }
pre { background: #f5f5f5; padding: 0.8em; overflow-x: auto; }
svg { display: block; margin: 0.5em 0 1.5em; }
svg text { font-size: 11px; fill: #444; }
.grid { stroke: #e4e4e4; }
.axis { stroke: #888; }
.bar { fill: #7a9cc6; }
.bar.chosen { fill: #e08a1e; }
.model { stroke: #c22; stroke-width: 2; }
.dot { fill: #7a9cc6; }
.dot.chosen { fill: #e08a1e; }
.best { fill: none; stroke: #2a7a2a; stroke-width: 1.5; }
.budget { stroke: #c22; stroke-dasharray: 6 4; }
p.noplot { font-style: italic; }
)css";

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format(const char* spec, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, value);
  return buffer;
}

// Values as people read them: 4 significant digits.
std::string number(double value) {
  return format("%.4g", value);
}
// Coordinates: a tenth of a pixel is finer than any screen shows.
std::string coord(double value) {
  return format("%.1f", value);
}

bool plottable(double value) {
  return std::isfinite(value) && value > 0;
}

std::string ms_or_blank(double seconds) {
  return plottable(seconds) ? number(seconds * 1e3) : "";
}

// 1, 2 or 5 times a power of ten, the first at least `raw`.
double nice_step(double raw) {
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0})
    if (raw <= factor * power * (1 + 1e-9)) return factor * power;
  return 10 * power;
}

// One axis: the range it shows and where its labelled ticks go.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;

  // Where `value` lies, from 0 (lo) to 1 (hi).
  double fraction(double value) const {
    double f = log ? std::log10(value / lo) / std::log10(hi / lo) : (value - lo) / (hi - lo);
    return std::clamp(f, 0.0, 1.0);
  }
};

Axis linear_axis(double max) {
  Axis axis;
  double step = nice_step(max > 0 ? max / 5 : 1);
  int count = std::max(1, static_cast<int>(std::ceil(max / step - 1e-9)));
  axis.hi = count * step;
  for (int i = 0; i <= count; ++i) axis.ticks.push_back(i * step);
  return axis;
}

// The largest of 1, 2 or 5 times a power of ten below `value`.
double nice_below(double value) {
  double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double factor : {5.0, 2.0, 1.0})
    if (factor * power < value) return factor * power;
  return power / 2;
}

// The smallest of 1, 2 or 5 times a power of ten at least `value`.
double nice_above(double value) {
  double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double factor : {1.0, 2.0, 5.0})
    if (factor * power >= value * (1 - 1e-9)) return factor * power;
  return 10 * power;
}

Axis log_axis(double min, double max) {
  Axis axis;
  axis.log = true;
  // Room below the smallest value, so its bar is not a bar of height 0.
  axis.lo = nice_below(min / 1.05);
  axis.hi = nice_above(max);
  // Over few decades the 2s and 5s help reading; over many they crowd.
  bool fine = std::log10(axis.hi / axis.lo) <= 2.5;
  std::vector<double> factors = fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
  int first = static_cast<int>(std::floor(std::log10(axis.lo)));
  int last = static_cast<int>(std::ceil(std::log10(axis.hi)));
  for (int decade = first; decade <= last; ++decade)
    for (double factor : factors)
      if (double tick = factor * std::pow(10.0, decade); tick >= axis.lo * (1 - 1e-9) && tick <= axis.hi * (1 + 1e-9))
        axis.ticks.push_back(tick);
  return axis;
}

// An axis for positive, finite `values` (there is at least one).
Axis value_axis(const std::vector<double>& values) {
  auto [min, max] = std::minmax_element(values.begin(), values.end());
  return *max / *min > kLogRatio ? log_axis(*min, *max) : linear_axis(*max);
}

double y_pixel(const Axis& axis, double value) {
  return kTop + (1 - axis.fraction(value)) * kPlotHeight;
}
double x_pixel(const Axis& axis, double value) {
  return kLeft + axis.fraction(value) * kPlotWidth;
}

void open_svg(std::string& out, std::string_view label) {
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + coord(kSvgWidth) + "\" height=\"" + coord(kSvgHeight) +
         "\" viewBox=\"0 0 " + coord(kSvgWidth) + " " + coord(kSvgHeight) + "\" role=\"img\" aria-label=\"" +
         escape(label) + "\">\n";
}

void svg_text(std::string& out, double x, double y, std::string_view anchor, std::string_view content,
              std::string_view extra = "") {
  out += "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" + std::string(anchor) + "\"" +
         std::string(extra) + ">" + escape(content) + "</text>\n";
}

void svg_line(std::string& out, std::string_view cls, double x1, double y1, double x2, double y2) {
  out += "<line class=\"" + std::string(cls) + "\" x1=\"" + coord(x1) + "\" y1=\"" + coord(y1) + "\" x2=\"" +
         coord(x2) + "\" y2=\"" + coord(y2) + "\"/>\n";
}

// Grid lines and labels of the time axis, its title, and the x axis line.
void draw_y_axis(std::string& out, const Axis& axis) {
  for (double tick : axis.ticks) {
    double y = y_pixel(axis, tick);
    svg_line(out, "grid", kLeft, y, kLeft + kPlotWidth, y);
    svg_text(out, kLeft - 6, y + 4, "end", number(tick));
  }
  std::string title = axis.log ? "ms (log scale)" : "ms";
  double middle = kTop + kPlotHeight / 2;
  svg_text(out, 14, middle, "middle", title, " transform=\"rotate(-90 14 " + coord(middle) + ")\"");
  svg_line(out, "axis", kLeft, kTop, kLeft, kTop + kPlotHeight);
  svg_line(out, "axis", kLeft, kTop + kPlotHeight, kLeft + kPlotWidth, kTop + kPlotHeight);
}

void draw_x_ticks(std::string& out, const Axis& axis) {
  double bottom = kTop + kPlotHeight;
  for (double tick : axis.ticks) {
    double x = x_pixel(axis, tick);
    svg_line(out, "axis", x, bottom, x, bottom + 4);
    svg_text(out, x, bottom + 16, "middle", number(tick));
  }
}

std::string no_plot(std::string_view sentence) {
  return "<p class=\"noplot\">" + escape(sentence) + "</p>\n";
}

bool measured_valid(const ReportCandidate& candidate) {
  return candidate.measured && candidate.valid && plottable(candidate.seconds);
}

// Valid candidates with a time, fastest first; ties keep the given order.
std::vector<const ReportCandidate*> by_time(const std::vector<ReportCandidate>& candidates) {
  std::vector<const ReportCandidate*> result;
  for (const ReportCandidate& candidate : candidates)
    if (measured_valid(candidate)) result.push_back(&candidate);
  std::stable_sort(result.begin(), result.end(),
                   [](const ReportCandidate* a, const ReportCandidate* b) { return a->seconds < b->seconds; });
  return result;
}

std::string tooltip(const ReportCandidate& candidate) {
  std::string tip = candidate.name + ": " + number(candidate.seconds * 1e3) + " ms";
  if (plottable(candidate.model_seconds)) tip += ", model " + number(candidate.model_seconds * 1e3) + " ms";
  return "<title>" + escape(tip) + "</title>";
}

std::string times_plot(const HtmlReport& report) {
  std::vector<const ReportCandidate*> bars = by_time(report.candidates);
  if (bars.empty()) return no_plot("No candidate was measured valid, so there is no time to plot.");
  std::vector<double> values;
  for (const ReportCandidate* bar : bars) {
    values.push_back(bar->seconds * 1e3);
    if (plottable(bar->model_seconds)) values.push_back(bar->model_seconds * 1e3);
  }
  Axis axis = value_axis(values);
  std::string out;
  open_svg(out, "measured time of every valid candidate, fastest first");
  draw_y_axis(out, axis);
  double slot = kPlotWidth / bars.size();
  double width = std::min(slot * 0.8, kMaxBarWidth);
  double base = kTop + kPlotHeight;
  for (size_t i = 0; i < bars.size(); ++i) {
    const ReportCandidate& candidate = *bars[i];
    double x = kLeft + slot * i + (slot - width) / 2;
    double top = y_pixel(axis, candidate.seconds * 1e3);
    out += std::string("<rect class=\"") + (candidate.chosen ? "bar chosen" : "bar") + "\" x=\"" + coord(x) +
           "\" y=\"" + coord(top) + "\" width=\"" + coord(width) + "\" height=\"" + coord(base - top) + "\">" +
           tooltip(candidate) + "</rect>\n";
    if (plottable(candidate.model_seconds)) {
      double y = y_pixel(axis, candidate.model_seconds * 1e3);
      svg_line(out, "model", x - 2, y, x + width + 2, y);
    }
  }
  svg_text(out, kLeft + kPlotWidth / 2, base + 16, "middle",
           std::to_string(bars.size()) + " valid candidates, fastest first; red mark: the cost model's estimate");
  return out + "</svg>\n";
}

// The best time so far, as points of a step line: flat until a faster
// candidate finishes, then straight down to its time.
std::vector<std::pair<double, double>> best_so_far(const std::vector<const ReportCandidate*>& dots) {
  std::vector<std::pair<double, double>> points;
  double best = std::numeric_limits<double>::infinity();
  for (const ReportCandidate* dot : dots) {
    double ms = dot->seconds * 1e3;
    if (ms >= best) continue;
    if (!points.empty()) points.emplace_back(dot->finished_at, best);
    points.emplace_back(dot->finished_at, ms);
    best = ms;
  }
  points.emplace_back(dots.back()->finished_at, best);
  return points;
}

void draw_dots(std::string& out, const std::vector<const ReportCandidate*>& dots, const Axis& x_axis,
               const Axis& y_axis) {
  for (const ReportCandidate* dot : dots)
    out += std::string("<circle class=\"") + (dot->chosen ? "dot chosen" : "dot") + "\" cx=\"" +
           coord(x_pixel(x_axis, dot->finished_at)) + "\" cy=\"" + coord(y_pixel(y_axis, dot->seconds * 1e3)) +
           "\" r=\"3\">" + tooltip(*dot) + "</circle>\n";
  out += "<polyline class=\"best\" points=\"";
  std::vector<std::pair<double, double>> points = best_so_far(dots);
  for (size_t i = 0; i < points.size(); ++i)
    out += (i ? " " : "") + coord(x_pixel(x_axis, points[i].first)) + "," + coord(y_pixel(y_axis, points[i].second));
  out += "\"/>\n";
}

std::string progress_plot(const HtmlReport& report) {
  std::vector<const ReportCandidate*> dots;
  for (const ReportCandidate& candidate : report.candidates)
    if (measured_valid(candidate) && std::isfinite(candidate.finished_at) && candidate.finished_at >= 0)
      dots.push_back(&candidate);
  if (dots.empty()) return no_plot("No valid candidate has a finishing time, so there is no progress to plot.");
  std::stable_sort(dots.begin(), dots.end(),
                   [](const ReportCandidate* a, const ReportCandidate* b) { return a->finished_at < b->finished_at; });
  bool budget = plottable(report.budget_seconds);
  Axis x_axis = linear_axis(std::max(dots.back()->finished_at, budget ? report.budget_seconds : 0.0));
  std::vector<double> values;
  for (const ReportCandidate* dot : dots) values.push_back(dot->seconds * 1e3);
  Axis y_axis = value_axis(values);
  std::string out;
  open_svg(out, "search progress: time of each valid candidate when its measurement finished, best so far");
  draw_y_axis(out, y_axis);
  draw_x_ticks(out, x_axis);
  svg_text(out, kLeft + kPlotWidth / 2, kTop + kPlotHeight + 34, "middle", "seconds since the search began");
  if (budget) {
    double x = x_pixel(x_axis, report.budget_seconds);
    svg_line(out, "budget", x, kTop, x, kTop + kPlotHeight);
    bool left_half = x < kLeft + kPlotWidth / 2;  // label on the side with room
    svg_text(out, left_half ? x + 4 : x - 4, kTop + 10, left_half ? "start" : "end",
             "budget " + number(report.budget_seconds) + " s");
  }
  draw_dots(out, dots, x_axis, y_axis);
  return out + "</svg>\n";
}

std::string table_row(const std::vector<std::string>& cells, std::string_view tag, std::string_view row_class = "") {
  std::string out = row_class.empty() ? "<tr>" : "<tr class=\"" + std::string(row_class) + "\">";
  for (const std::string& cell : cells)
    out += "<" + std::string(tag) + ">" + escape(cell) + "</" + std::string(tag) + ">";
  return out + "</tr>\n";
}

std::string render_table(const ReportTable& table, std::string_view table_class = "") {
  if (table.header.empty()) return "";
  std::string out = table_class.empty() ? "<table>\n" : "<table class=\"" + std::string(table_class) + "\">\n";
  out += table_row(table.header, "th");
  for (const auto& row : table.rows) out += table_row(row, "td");
  return out + "</table>\n";
}

std::string facts_table(const HtmlReport& report) {
  if (report.facts.empty()) return "";
  std::string out = "<table class=\"facts\">\n";
  for (const auto& [key, value] : report.facts)
    out += "<tr><th>" + escape(key) + "</th><td>" + escape(value) + "</td></tr>\n";
  return out + "</table>\n";
}

std::string candidates_table(const std::vector<ReportCandidate>& candidates) {
  if (candidates.empty()) return "<p>There were no candidates.</p>\n";
  std::vector<const ReportCandidate*> order;
  for (const ReportCandidate& candidate : candidates) order.push_back(&candidate);
  auto key = [](const ReportCandidate* c) { return c->rank > 0 ? c->rank : std::numeric_limits<int>::max(); };
  std::stable_sort(order.begin(), order.end(),
                   [&](const ReportCandidate* a, const ReportCandidate* b) { return key(a) < key(b); });
  std::string out = "<table class=\"candidates\">\n";
  out += table_row({"rank", "candidate", "model estimate (ms)", "measured (ms)", "status"}, "th");
  for (const ReportCandidate* c : order) {
    std::string measured = c->measured && c->valid ? ms_or_blank(c->seconds) : "";
    out += std::string("<tr") + (c->chosen ? " class=\"chosen\"" : "") + "><td class=\"num\">" +
           (c->rank > 0 ? std::to_string(c->rank) : "") + "</td><td>" + escape(c->name) + "</td><td class=\"num\">" +
           ms_or_blank(c->model_seconds) + "</td><td class=\"num\">" + measured + "</td><td>" + escape(c->status) +
           "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string render_section(const ReportSection& section) {
  std::string out = "<h2>" + escape(section.title) + "</h2>\n";
  if (!section.text.empty()) out += "<p>" + escape(section.text) + "</p>\n";
  if (!section.html.empty()) out += section.html;
  if (!section.code.empty()) out += "<pre>" + escape(section.code) + "</pre>\n";
  return out + render_table(section.table);
}

// ---- The progress line.

// Bytes a terminal would act on instead of showing (a newline, an escape
// sequence) become '?'.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// The first `size` bytes or fewer, not splitting a UTF-8 sequence.
std::string cut(std::string_view text, size_t size) {
  if (text.size() <= size) return std::string(text);
  while (size > 0 && (static_cast<unsigned char>(text[size]) & 0xc0) == 0x80) --size;
  return std::string(text.substr(0, size));
}

std::string bar(const ProgressState& state, int cells) {
  int filled = 0;
  if (state.total > 0) filled = std::clamp(static_cast<int>(int64_t{cells} * state.measured / state.total), 0, cells);
  return "[" + std::string(filled, '#') + std::string(cells - filled, '.') + "] ";
}

std::string counts(const ProgressState& state, bool abbreviated) {
  std::string total = "/" + std::to_string(state.total);
  if (abbreviated)
    return "c " + std::to_string(state.compiled) + total + " m " + std::to_string(state.measured) + total + " ok " +
           std::to_string(state.valid) + " bad " + std::to_string(state.failed);
  return "compiled " + std::to_string(state.compiled) + total + " measured " + std::to_string(state.measured) + total +
         " valid " + std::to_string(state.valid) + " failed " + std::to_string(state.failed);
}

// The width of the terminal on fd 2, or 80 when it says nothing.
int terminal_width() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return static_cast<int>(std::min(value, 10000L));
  }
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

std::string render_html(const HtmlReport& report) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    escape(report.title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>" + escape(report.title) + "</h1>\n" + facts_table(report);
  for (const ReportSection& section : report.leading) out += render_section(section);
  out += "<h2>Measured time of every candidate, sorted</h2>\n" + times_plot(report);
  out += "<h2>Search progress</h2>\n" + progress_plot(report);
  out += "<h2>Candidates</h2>\n" + candidates_table(report.candidates);
  for (const ReportSection& section : report.sections) out += render_section(section);
  return out + "</body>\n</html>\n";
}

std::string progress_line(const ProgressState& state, int width) {
  size_t limit = std::max(width, 20);
  std::string prefix = bar(state, std::clamp(width / 8, 3, 20));
  size_t room = limit - prefix.size();
  std::string best = plottable(state.best_seconds) ? " best " + number(state.best_seconds * 1e3) + " ms" : "";
  std::string elapsed = " " + format("%.1f", state.elapsed) + " s";
  std::string full = counts(state, false) + best;
  // The name gets what the rest leaves, when that is enough to recognize it.
  constexpr size_t kShortestName = 8;
  std::string name = printable(state.best_name);
  if (!best.empty() && !name.empty() && full.size() + elapsed.size() + 3 + kShortestName <= room) {
    size_t space = room - full.size() - elapsed.size() - 3;
    std::string shown = name.size() <= space ? name : cut(name, space - 3) + "...";
    return prefix + full + " (" + shown + ")" + elapsed;
  }
  for (const std::string& text : {full + elapsed, counts(state, true) + best + elapsed})
    if (text.size() <= room) return prefix + text;
  return prefix + cut(counts(state, true) + best + elapsed, room);
}

ProgressBar::ProgressBar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}

ProgressBar::~ProgressBar() {
  try {
    finish();
  } catch (...) {
    // A stream that throws while unwinding must not end the program.
  }
}

void ProgressBar::update(const ProgressState& state, bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && !force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  out_ << '\r' << progress_line(state, terminal_width() - 1) << "\x1b[K" << std::flush;
  drawn_ = true;
  last_draw_ = now;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  out_ << '\n' << std::flush;
  drawn_ = false;
}

}  // namespace axon::tune
