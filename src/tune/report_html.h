// The search's report for people: a self-contained HTML page (OUT/report.html
// of `axon optimize`) with inline SVG plots, and a one-line progress bar for
// a terminal.
//
// The page needs nothing else: no JavaScript, no stylesheet or font to fetch,
// so it opens the same from a mail attachment as from a CI artifact. Every
// text that comes from the caller is HTML-escaped. The bytes depend only on
// the report (no time, no locale, no hash order), so two runs that find the
// same thing write the same file.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace axon::tune {

/// One candidate of the search, as the report shows it.
struct ReportCandidate {
  std::string name;       // "variant 1, fused, tiling 3"
  std::string status;     // "valid", or why not: "wrong result: ...", "timed out after 120 s", "cut off: budget", ...
  bool measured = false;  // it was run (valid or not)
  bool valid = false;
  bool chosen = false;
  double seconds = 0;        // measured median, when valid
  double model_seconds = 0;  // the analytic cost model's estimate (0 = none)
  int rank = 0;              // position in the cost model's ranking, 1 = most promising (0 = unranked)
  double finished_at = -1;   // seconds since the search began when its measurement finished (-1 = not measured)
};

struct ReportTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct ReportSection {
  std::string title;
  std::string text;   // a paragraph of plain text, may be empty
  std::string code;   // preformatted text shown in <pre>, may be empty
  ReportTable table;  // shown when it has a header
  std::string html = {};  // trusted markup made by Axon (an SVG picture), shown as is
};

struct HtmlReport {
  std::string title;                                       // "axon optimize: rmsnorm"
  std::vector<std::pair<std::string, std::string>> facts;  // a two-column table at the top
  std::vector<ReportCandidate> candidates;
  double budget_seconds = 0;            // 0 = none; a dashed vertical line on the progress plot
  std::vector<ReportSection> leading;   // right after the facts, before the plots, in order
  std::vector<ReportSection> sections;  // after the plots, in order
};

/// The page, in this order: the title; the facts; the leading sections; plot 1, the measured time
/// of every valid candidate as a bar (<rect class="bar">, the chosen one
/// class="bar chosen"), fastest first, with the model's estimate as a marker
/// (<line class="model">) on each bar that has one; plot 2, the search's
/// progress, a dot (<circle class="dot">) per measured valid candidate at
/// (finished_at, seconds) and the best time so far as a step line
/// (<polyline class="best">), with the budget as a dashed vertical line
/// (<line class="budget">) when it is > 0; the table of all candidates, by
/// the model's rank (unranked last, otherwise in the given order); then the
/// sections. Times are in ms, with 4 significant digits. An axis is
/// logarithmic when the largest value it shows is over 20 times the smallest
/// (for plot 1 the model's estimates count too), else linear from 0. Zero,
/// negative, NaN and infinite values are left out of the plots (the table
/// still lists their candidates); a plot with nothing to show is a sentence
/// (<p class="noplot">) instead.
std::string render_html(const HtmlReport& report);

/// What the progress line shows.
struct ProgressState {
  int total = 0;  // candidates to measure
  int compiled = 0, measured = 0, valid = 0, failed = 0;
  double best_seconds = 0;  // 0 = none yet
  std::string best_name;
  double elapsed = 0;  // seconds since the search began
};

/// One line of at most max(width, 20) bytes, without a newline: a bar of
/// measured/total, then "compiled C/T measured M/T valid V failed F best
/// 1.234 ms (NAME) 12.3 s". When that is too long the name is shortened with
/// "...", then left out, then the counts abbreviated ("c C/T m M/T ok V bad
/// F"), and at last the line is cut. Control characters in the name show as
/// '?', so the line stays one line.
std::string progress_line(const ProgressState& state, int width);

/// Draws progress_line on a terminal, rewriting it in place. The caller
/// decides whether the stream is one: enabled = isatty(fileno(stderr)) &&
/// $TERM != "dumb". A disabled bar does nothing at all.
class ProgressBar {
 public:
  ProgressBar(std::ostream& out, bool enabled);
  /// Calls finish(), so an exception that unwinds the search does not leave
  /// its message on the bar's line.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Writes "\r" + the line + "\x1b[K" (clear to the end) and flushes, at
  /// most once every 100 ms unless `force`. The line is one column narrower
  /// than the terminal, so it never wraps: the width is $COLUMNS when that
  /// is a number, else ioctl(TIOCGWINSZ) on fd 2, else 80.
  void update(const ProgressState& state, bool force = false);

  /// Ends the line with "\n" when anything was drawn since the last finish().
  void finish();

 private:
  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace axon::tune
