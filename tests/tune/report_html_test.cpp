// The HTML report and the progress line: every caller text is escaped; plot 1
// has a bar per valid finite candidate, the chosen one highlighted, and
// switches to a log axis at a ratio over 20; plot 2 has a dot per measured
// valid candidate, a best-so-far line that never rises and a budget line iff
// there is a budget; empty input gives sentences, not plots; the page is
// deterministic and well-formed; the progress line never exceeds its width;
// the progress bar writes nothing when disabled.
#include "tune/report_html.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

namespace axon::tune {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

ReportCandidate valid(const std::string& name, double seconds, double finished_at, int rank = 0) {
  ReportCandidate candidate;
  candidate.name = name;
  candidate.status = "valid";
  candidate.measured = candidate.valid = true;
  candidate.seconds = seconds;
  candidate.finished_at = finished_at;
  candidate.rank = rank;
  return candidate;
}

ReportCandidate invalid(const std::string& name, const std::string& status, bool measured) {
  ReportCandidate candidate;
  candidate.name = name;
  candidate.status = status;
  candidate.measured = measured;
  candidate.seconds = measured ? 0.001 : 0;
  candidate.finished_at = measured ? 1.0 : -1;
  return candidate;
}

// A search of five valid candidates and four that are not, the third chosen.
HtmlReport sample_report() {
  HtmlReport report;
  report.title = "axon optimize: rmsnorm";
  report.facts = {{"program", "rmsnorm.ax"}, {"target", "cpu"}};
  report.candidates = {valid("variant 1, tiling 1", 0.0040, 0.5, 2), valid("variant 1, tiling 2", 0.0031, 0.9, 1),
                       valid("variant 2, fused", 0.0012, 1.4, 3), valid("variant 2, tiling 3", 0.0020, 2.0, 4),
                       valid("variant 3", 0.0025, 2.6, 5)};
  report.candidates[2].chosen = true;
  report.candidates[0].model_seconds = 0.0035;
  report.candidates[2].model_seconds = 0.0010;
  report.candidates.push_back(invalid("variant 4", "wrong result: max error 0.5", true));
  report.candidates.push_back(invalid("variant 5", "crashed (signal 4)", true));
  report.candidates.push_back(invalid("variant 6", "compile error", false));
  report.candidates.push_back(invalid("variant 7", "cut off: budget", false));
  report.budget_seconds = 3;
  report.sections.push_back({"Chosen kernel", "It won.", "for (int i = 0; i < n; ++i) {}", {}});
  return report;
}

// The text between `begin` and the next `end`, after the `index`th `begin`.
std::string between(const std::string& text, const std::string& begin, const std::string& end, int index = 0) {
  size_t at = 0;
  for (int i = 0; i <= index; ++i) {
    at = text.find(begin, i ? at + 1 : 0);
    if (at == std::string::npos) return "";
  }
  size_t stop = text.find(end, at);
  return text.substr(at, stop == std::string::npos ? std::string::npos : stop + end.size() - at);
}

std::string times_svg(const std::string& page) {
  return between(page, "<svg", "</svg>", 0);
}
std::string progress_svg(const std::string& page) {
  return between(page, "<svg", "</svg>", 1);
}

std::vector<double> attribute_values(const std::string& svg, const std::string& element_class,
                                     const std::string& attribute) {
  std::regex pattern("class=\"" + element_class + "[^\"]*\"[^>]*\\b" + attribute + "=\"([-0-9.]+)\"");
  std::vector<double> values;
  for (std::sregex_iterator it(svg.begin(), svg.end(), pattern), end; it != end; ++it)
    values.push_back(std::stod((*it)[1]));
  return values;
}

std::vector<std::pair<double, double>> polyline_points(const std::string& svg) {
  std::smatch match;
  std::vector<std::pair<double, double>> points;
  if (!std::regex_search(svg, match, std::regex("class=\"best\" points=\"([^\"]*)\""))) return points;
  std::istringstream in(match[1].str());
  std::string pair;
  while (in >> pair) {
    size_t comma = pair.find(',');
    points.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
  }
  return points;
}

TEST(ReportHtml, PageIsWellFormedAndDeterministic) {
  HtmlReport report = sample_report();
  std::string page = render_html(report);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(page, "</html>"));
  EXPECT_EQ(count(page, "<svg"), 2);
  EXPECT_EQ(count(page, "</svg>"), 2);
  for (const char* tag : {"table", "tr", "pre", "h2", "p", "text", "rect", "circle"})
    EXPECT_EQ(count(page, std::string("<") + tag + ">") + count(page, std::string("<") + tag + " "),
              count(page, std::string("</") + tag + ">"))
        << tag;
  EXPECT_FALSE(contains(page, "<script"));
  EXPECT_FALSE(contains(page, "http://") && !contains(page, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(page, render_html(report));
  EXPECT_EQ(page, render_html(sample_report()));
}

TEST(ReportHtml, EscapesEveryText) {
  const std::string evil = "<script>alert(\"x\" & 'y')</script>";
  const std::string escaped = "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;";
  HtmlReport report = sample_report();
  report.title = evil;
  report.facts.push_back({evil, evil});
  report.candidates[2].name = evil;
  report.candidates[5].status = evil;
  report.sections.push_back({evil, evil, evil, {{evil, "b"}, {{evil, evil}}}});
  std::string page = render_html(report);
  EXPECT_FALSE(contains(page, "<script")) << page;
  EXPECT_FALSE(contains(page, "\"x\""));
  // Title (twice), fact key and value, candidate name in the table, in the bar's
  // and the dot's tooltips, status, section title, text, code, header, 2 cells.
  EXPECT_EQ(count(page, escaped), 14) << page;
}

TEST(ReportHtml, TimesPlotHasOneBarPerValidFiniteCandidate) {
  struct Case {
    const char* what;
    double seconds;
    bool plotted;
  };
  const Case cases[] = {{"finite", 0.002, true}, {"zero", 0, false},        {"negative", -1, false},
                        {"NaN", kNaN, false},    {"infinity", kInf, false}, {"tiny", 1e-9, true}};
  for (const Case& c : cases) {
    HtmlReport report = sample_report();
    report.candidates.push_back(valid(std::string("odd ") + c.what, c.seconds, 2.8));
    std::string page = render_html(report);
    std::string svg = times_svg(page);
    EXPECT_EQ(count(svg, "<rect class=\"bar"), c.plotted ? 6 : 5) << c.what;
    EXPECT_EQ(count(svg, "class=\"bar chosen\""), 1) << c.what;
    EXPECT_TRUE(contains(between(page, "<table class=\"candidates\"", "</table>"), std::string("odd ") + c.what))
        << c.what;
    EXPECT_FALSE(contains(page, "nan")) << c.what;
    EXPECT_FALSE(contains(page, "inf<")) << c.what;
  }
}

TEST(ReportHtml, BarsAreFastestFirstWithModelMarkers) {
  std::string svg = times_svg(render_html(sample_report()));
  std::vector<double> x = attribute_values(svg, "bar", "x");
  std::vector<double> y = attribute_values(svg, "bar", "y");
  ASSERT_EQ(x.size(), 5u);
  // Left to right, each bar taller than the last: SVG's y grows downwards,
  // so a slower candidate's bar starts higher up.
  for (size_t i = 1; i < x.size(); ++i) {
    EXPECT_LT(x[i - 1], x[i]) << i;
    EXPECT_GT(y[i - 1], y[i]) << i;
  }
  // The chosen one (fastest) comes first.
  EXPECT_LT(svg.find("bar chosen"), svg.find("class=\"bar\""));
  EXPECT_EQ(count(svg, "<line class=\"model\""), 2);
  EXPECT_TRUE(contains(svg, "<title>"));
}

TEST(ReportHtml, LogScaleAboveRatioTwenty) {
  struct Case {
    double fast, slow;
    bool log;
  };
  const Case cases[] = {{0.001, 0.002, false}, {0.001, 0.020, false}, {0.001, 0.0201, true}, {1e-6, 1.0, true}};
  for (const Case& c : cases) {
    HtmlReport report;
    report.candidates = {valid("fast", c.fast, 1), valid("slow", c.slow, 2)};
    std::string svg = times_svg(render_html(report));
    EXPECT_EQ(contains(svg, "log scale"), c.log) << c.fast << " " << c.slow;
    EXPECT_EQ(count(svg, "<rect class=\"bar"), 2);
  }
}

TEST(ReportHtml, ProgressPlotDotsAndBestSoFar) {
  HtmlReport report = sample_report();
  report.candidates.push_back(valid("no finishing time", 0.001, -1));
  std::string svg = progress_svg(render_html(report));
  EXPECT_EQ(count(svg, "<circle class=\"dot"), 5);
  EXPECT_EQ(count(svg, "class=\"dot chosen\""), 1);
  std::vector<std::pair<double, double>> points = polyline_points(svg);
  ASSERT_GE(points.size(), 2u);
  for (size_t i = 1; i < points.size(); ++i) {
    EXPECT_GE(points[i].first, points[i - 1].first) << i;
    // SVG's y grows downwards: a time that never rises is a y that never falls.
    EXPECT_GE(points[i].second, points[i - 1].second) << i;
  }
  // Times 4.0, 3.1, 1.2, 2.0, 2.5 ms: the best improves twice, so 1 + 2*2 + 1 points.
  EXPECT_EQ(points.size(), 6u);
  std::vector<double> dot_y = attribute_values(svg, "dot", "cy");
  EXPECT_DOUBLE_EQ(points.back().second, *std::max_element(dot_y.begin(), dot_y.end()));
}

TEST(ReportHtml, BudgetLineIffBudget) {
  const double budgets[] = {0, -1, kNaN, 3, 100};
  for (double budget : budgets) {
    HtmlReport report = sample_report();
    report.budget_seconds = budget;
    std::string svg = progress_svg(render_html(report));
    bool expected = budget > 0;
    EXPECT_EQ(count(svg, "<line class=\"budget\""), expected ? 1 : 0) << budget;
    if (expected) {
      std::vector<double> x = attribute_values(svg, "budget", "x1");
      std::vector<double> dots = attribute_values(svg, "dot", "cx");
      ASSERT_EQ(x.size(), 1u);
      EXPECT_GE(x[0], *std::max_element(dots.begin(), dots.end())) << budget;
    }
  }
}

TEST(ReportHtml, NoValidCandidateGivesSentences) {
  HtmlReport report = sample_report();
  report.candidates.erase(report.candidates.begin(), report.candidates.begin() + 5);
  std::string page = render_html(report);
  EXPECT_EQ(count(page, "<svg"), 0);
  EXPECT_EQ(count(page, "<p class=\"noplot\">"), 2);
  EXPECT_TRUE(contains(page, "variant 4"));
  EXPECT_TRUE(contains(page, "cut off: budget"));

  std::string empty = render_html(HtmlReport{});
  EXPECT_EQ(empty.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(empty, "<p class=\"noplot\">"), 2);
  EXPECT_TRUE(contains(empty, "no candidates"));
}

TEST(ReportHtml, SingleCandidate) {
  HtmlReport report;
  report.candidates = {valid("only", 0.0015, 0.25, 1)};
  report.candidates[0].chosen = true;
  std::string page = render_html(report);
  EXPECT_EQ(count(times_svg(page), "<rect class=\"bar chosen\""), 1);
  EXPECT_EQ(count(progress_svg(page), "<circle class=\"dot chosen\""), 1);
  EXPECT_EQ(polyline_points(progress_svg(page)).size(), 2u);
  EXPECT_TRUE(contains(page, ">1.5<"));  // the measured ms in the table
}

TEST(ReportHtml, TableIsInRankOrderWithUnrankedLast) {
  HtmlReport report = sample_report();
  std::string table = between(render_html(report), "<table class=\"candidates\"", "</table>");
  std::vector<std::string> order = {"variant 1, tiling 2", "variant 1, tiling 1", "variant 2, fused",
                                    "variant 2, tiling 3", "variant 3",           "variant 4",
                                    "variant 5",           "variant 6",           "variant 7"};
  size_t at = 0;
  for (const std::string& name : order) {
    size_t found = table.find("<td>" + name + "</td>");
    ASSERT_NE(found, std::string::npos) << name;
    EXPECT_GT(found, at) << name;
    at = found;
  }
  EXPECT_EQ(count(table, "<tr class=\"chosen\">"), 1);
}

ProgressState long_state() {
  ProgressState state;
  state.total = 1234;
  state.compiled = 1200;
  state.measured = 617;
  state.valid = 600;
  state.failed = 17;
  state.best_seconds = 0.001234;
  state.best_name = "variant 12, fused, tiling 345, with a very long description " + std::string(300, 'x');
  state.elapsed = 12.34;
  return state;
}

TEST(ProgressLine, NeverExceedsWidth) {
  ProgressState state = long_state();
  for (std::string name : {std::string(""), std::string("short"), state.best_name,
                           std::string("na\xc3\xafve \xe2\x86\x92 ") + std::string(200, 'y')}) {
    state.best_name = name;
    for (int width = 20; width <= 200; ++width) {
      std::string line = progress_line(state, width);
      EXPECT_LE(line.size(), static_cast<size_t>(width)) << width << " " << line;
      EXPECT_FALSE(contains(line, "\n"));
      EXPECT_EQ(line.rfind("[", 0), 0u) << line;
    }
  }
}

TEST(ProgressLine, ShowsCountsAndBest) {
  ProgressState state = long_state();
  state.best_name = "variant 2, fused";
  std::string line = progress_line(state, 200);
  for (const char* part : {"compiled 1200/1234", "measured 617/1234", "valid 600", "failed 17", "best 1.234 ms",
                           "(variant 2, fused)", "12.3 s"})
    EXPECT_TRUE(contains(line, part)) << part << " in " << line;

  state.best_name = long_state().best_name;
  line = progress_line(state, 120);
  EXPECT_TRUE(contains(line, "...)")) << line;
  EXPECT_TRUE(contains(line, "measured 617/1234")) << line;
  EXPECT_EQ(line.size(), 120u) << line;

  EXPECT_TRUE(contains(progress_line(state, 40), "617/1234")) << progress_line(state, 40);

  ProgressState none;
  none.total = 10;
  line = progress_line(none, 80);
  EXPECT_FALSE(contains(line, "best")) << line;
  EXPECT_TRUE(contains(line, "measured 0/10")) << line;
}

TEST(ProgressLine, BarFollowsMeasured) {
  ProgressState state;
  state.total = 4;
  for (int measured = 0; measured <= 4; ++measured) {
    state.measured = measured;
    std::string line = progress_line(state, 160);  // 20 cells
    EXPECT_EQ(count(line, "#"), measured * 5) << line;
  }
  state.total = 0;
  EXPECT_EQ(count(progress_line(state, 80), "#"), 0);
}

TEST(ProgressLine, ControlCharactersInNameAreReplaced) {
  ProgressState state = long_state();
  state.best_name = "a\nb\x1b[2Jc\r";
  std::string line = progress_line(state, 200);
  EXPECT_TRUE(contains(line, "(a?b?[2Jc?)")) << line;
}

TEST(ProgressBar, DisabledWritesNothing) {
  std::ostringstream out;
  {
    ProgressBar bar(out, false);
    bar.update(long_state(), true);
    bar.update(long_state());
    bar.finish();
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressBar, EnabledRewritesTheLineAndEndsIt) {
  std::ostringstream out;
  ProgressBar bar(out, true);
  bar.finish();
  EXPECT_EQ(out.str(), "");  // nothing drawn, nothing to end
  bar.update(long_state(), true);
  bar.update(long_state(), true);
  std::string drawn = out.str();
  EXPECT_EQ(count(drawn, "\r"), 2);
  EXPECT_EQ(count(drawn, "\x1b[K"), 2);
  EXPECT_EQ(drawn.rfind("\r", 0), 0u);
  bar.update(long_state());  // within 100 ms of the last: skipped
  EXPECT_EQ(out.str(), drawn);
  bar.finish();
  EXPECT_EQ(out.str(), drawn + "\n");
  bar.finish();
  EXPECT_EQ(out.str(), drawn + "\n");
}

TEST(ProgressBar, DestructorEndsADrawnLine) {
  std::ostringstream out;
  {
    ProgressBar bar(out, true);
    bar.update(long_state(), true);
  }
  EXPECT_EQ(out.str().back(), '\n');
}

}  // namespace
}  // namespace axon::tune
