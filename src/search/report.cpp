// The reports of `axon optimize`: report.md, report.html (through
// tune::render_html) and search.json.
#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "eval/rounding.h"
#include "fuse/summary.h"
#include "search/search.h"
#include "smt/prover.h"
#include "tune/report_html.h"

namespace axon::search {
namespace {

std::string number(double value, int digits = 4) {
  std::ostringstream t;
  t << std::setprecision(digits) << value;
  return t.str();
}

std::string ms(double seconds) {
  return number(seconds * 1e3);
}

std::string candidate_status(const Candidate& c) {
  if (c.valid()) return c.confirmed ? "valid, timed twice" : "valid";
  return c.status.empty() ? "not measured" : c.status;
}

fuse::FusionSummary fusion_of(const SearchResult& r) {
  const Candidate& best = *r.best;
  tile::PlanOptions unfused;
  unfused.fuse_elementwise = false;
  return fuse::summarize_fusion(best.fn, *best.plan, tile::plan_function(best.fn, r.dims, unfused),
                                best.kernel->row_groups());
}

std::string space_text(const SearchResult& r) {
  const SearchSpace& s = r.space;
  std::ostringstream t;
  t << s.variants << " variant(s) x " << (s.variants ? s.plans / s.variants : 0) << " fusion choice(s) = " << s.plans
    << " plan(s); with every stage's valid tilings, " << number(s.points, 6) << " point(s). Emitted and ranked by the "
    << "cost model: " << s.generated << " distinct kernels (" << s.duplicates
    << " duplicates by source hash removed). Measured: " << s.selected - s.cut_by_budget << "; cut off by "
    << "--max-candidates " << r.options.max_candidates << ": " << s.cut_by_count << "; cut off by --budget "
    << number(r.options.budget_seconds) << " s: " << s.cut_by_budget
    << ". Proved lowerings used: " << (r.synth ? r.synth->used().size() : 0) << ".";
  return t.str();
}

std::string phases_text(const PhaseTimes& t) {
  std::ostringstream r;
  r << std::setprecision(3) << "algebra " << t.algebra << ", lowering, proofs and cost model " << t.lowering
    << ", reference " << t.reference << ", compile " << t.compile << ", measurement " << t.measure
    << (t.baselines > 0 ? ", baselines " : "");
  if (t.baselines > 0) r << t.baselines;
  r << ", total " << t.total;
  return r.str();
}

}  // namespace

std::string baseline_text(const SearchResult& r, const BaselineTime& b) {
  if (!b.measured) return b.name + " (" + b.label + "): not timed (" + b.why_not + ")";
  std::string t = b.name + " (" + b.label + "): " + score_text(r, b.seconds);
  if (r.best && r.best->seconds > 0) t += "; the kernel is " + number(b.seconds / r.best->seconds, 3) + "x faster";
  return t;
}

std::string score_text(const SearchResult& r, double seconds) {
  if (r.scoring.empty()) return "median " + ms(seconds) + " ms";
  if (r.timing == "simulated") return "simulated " + ms(seconds) + " ms";
  return std::to_string(static_cast<int64_t>(seconds)) + " instructions on its busiest engine";
}

std::string dims_text(const ir::Dims& dims) {
  std::string t;
  for (const auto& [name, value] : dims) t += (t.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return t.empty() ? "(fixed sizes)" : t;
}

// The multiply-adds of the contractions (2 FLOP each), one read of every
// input and one write of every output, and the family: "attention" when a
// contraction reads a value computed through exp, "matmul" for other
// contractions, "elementwise" otherwise.
Workload workload(const ir::Function& fn, const tile::Plan& plan) {
  Workload w;
  for (const tile::Stage& s : plan.stages) {
    if (s.what.rfind("einsum", 0) != 0) continue;
    int64_t points = 1;
    for (int64_t e : s.extents) points *= e;
    w.flops += 2 * points;
  }
  for (const tile::Buffer& b : plan.buffers)
    if (b.kind != tile::Buffer::Kind::Scratch) w.bytes += 4 * b.elements();
  std::set<ir::NodeRef> through_exp;
  for (ir::NodeRef n : ir::topological_order(fn.outputs)) {
    bool exp = n->op() == ir::Op::Exp;
    for (ir::NodeRef i : n->inputs()) exp |= through_exp.count(i) > 0;
    if (exp) through_exp.insert(n);
    if (n->op() != ir::Op::Contract) continue;
    if (w.family == "elementwise") w.family = "matmul";
    for (ir::NodeRef i : n->inputs())
      if (through_exp.count(i)) w.family = "attention";
  }
  return w;
}

namespace {

// A measured candidate's largest |error| as a fraction of its rounding bound
// (valid: at most 1); "-" when it gave no results.
std::string error_fraction(const Candidate& c) {
  return c.valid() || c.status.rfind("wrong", 0) == 0 ? number(c.max_error, 3) : "-";
}

// The chosen kernel's time with its spread, and NumPy's on the same inputs.
std::string result_text(const SearchResult& r) {
  const Candidate& best = *r.best;
  std::ostringstream t;
  if (!r.scoring.empty()) {
    t << "- chosen: " << best.name << " (tilings " << best.kernel->tilings() << "): " << score_text(r, best.seconds)
      << "; largest error " << number(best.max_error, 3) << " of its rounding bound\n"
      << "- how: " << r.scoring
      << (r.timing == "simulated" ? ".\n" : ". No candidate was timed: this target has no timing model yet.\n");
    if (!r.check_dims.empty())
      t << "- validated at " << dims_text(r.check_dims)
        << ": each candidate emitted again there (the same variant, fusion and tiling choices) and checked against "
           "the float64 reference; at the requested sizes it was run dry (no values) for its time\n";
    for (const BaselineTime& b : r.baselines) t << "- baseline " << baseline_text(r, b) << "\n";
    return t.str();
  }
  t << "- chosen: " << best.name << " (tilings " << best.kernel->tilings() << "): median " << ms(best.seconds)
    << " ms (timed calls from " << ms(best.seconds_min) << " to " << ms(best.seconds_max) << " ms)"
    << (best.confirmed ? ", timed twice" : "") << "; largest error " << number(best.max_error, 3)
    << " of its rounding bound\n";
  if (r.numpy.measured)
    t << "- NumPy running " << r.program->source->path << " on the same inputs: median " << ms(r.numpy.median)
      << " ms (" << ms(r.numpy.min) << " to " << ms(r.numpy.max) << " ms, " << r.numpy.reps << " calls)\n"
      << "- speed-up over NumPy: **" << number(r.numpy.median / best.seconds, 3) << "x**\n";
  else
    t << "- NumPy: not timed (" << r.numpy.why_not << ")\n";
  return t.str();
}

// The rewrites that turned the program into the chosen variant, with the
// proof that the whole variant equals the program.
std::string rewrites_text(const SearchResult& r) {
  const Candidate& best = *r.best;
  std::ostringstream t;
  if (best.variant == 0 || !r.variant_proof) {
    t << "The chosen kernel computes the program as written (no algebraic rewrite). Exploration proved "
      << r.variants.proved << " rewrite(s) and kept " << r.variants.functions.size() << " variant(s).\n";
    return t.str();
  }
  const smt::ProofResult& proof = *r.variant_proof;
  t << "The chosen kernel computes variant " << best.variant << " of the nu-graph:\n\n```python\n"
    << ir::print_numpy(best.fn) << "```\n\nProgram == variant: **" << smt::verdict_name(proof.verdict) << "** ("
    << proof.method
    << (proof.smtlib.empty() ? ""
                             : "; " + std::to_string(proof.smtlib.size()) + " SMT-LIB obligation(s) in search.json")
    << "). The local rewrites proved while exploring (each merged into the nu-graph):\n\n";
  size_t shown = 0;
  for (const algebra::UsedProof& u : r.variants.merged) {
    const size_t kShown = 5;
    if (++shown > kShown) {
      t << "- and " << r.variants.merged.size() - kShown << " more (search.json lists every one)\n";
      break;
    }
    auto indented = [](const std::string& code) {
      std::string out;
      std::istringstream lines(code);
      for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
      return out;
    };
    t << "- proved (" << u.method << "):\n\n  ```python\n"
      << indented(u.before) << "  # ==\n"
      << indented(u.after) << "  ```\n";
  }
  return t.str();
}

std::string indented_block(const std::string& code, const std::string& language) {
  return "```" + language + "\n" + code + (code.empty() || code.back() == '\n' ? "" : "\n") + "```\n";
}

}  // namespace

std::string report_markdown(const SearchResult& r) {
  const Candidate* best = r.best;
  std::ostringstream t;
  t << "# axon optimize: " << r.program->kernel.name << "\n\n"
    << "- program: `" << r.program->source->path << "`\n- sizes: " << dims_text(r.dims)
    << "\n- target: " << r.target->name << " (`" << r.target->path << "`)\n";
  if (best) {
    t << result_text(r);
    if (!r.profile_markdown.empty()) t << "\n## Where the time goes (simulated)\n\n" << r.profile_markdown;
    t << "\n## Rewrites and their proofs\n\n"
      << rewrites_text(r) << "\n## Code\n\nThe kernel's own code (`kernel.cpp` adds the description's helpers):\n\n"
      << indented_block(best->kernel->code(), "cpp") << "\n## The search\n\n";
  } else {
    t << "- chosen: none, no candidate kernel was valid\n";
  }
  t << "- search: " << r.options.text() << ", budget " << number(r.options.budget_seconds) << " s, at most "
    << r.options.max_candidates << " candidates measured, seed " << r.options.seed << "\n";
  t << "- validation: every element within " << number(eval::kBoundFactor) << " E, E the rounding bound the "
    << "reference computes for the declared dtypes (`axon run --check` applies the same test)\n"
    << "- phases (s): " << phases_text(r.phases) << "\n"
    << (best ? "- report with plots: `report.html`\n" : "") << "\n"
    << "## Candidate space\n\n"
    << space_text(r) << "\n\n"
    << "## Candidates\n\nRanked by the cost model; tilings are MR x NV @ threads per stage (/kB: the fold in blocks of "
       "B; /lanes: a scan one lane at a time; /T: gathers as in-register transposes; /nt: full vectors stored "
       "streaming, past the caches). Cut-off ones were emitted and estimated but not compiled. The error column is "
       "each result's largest |error| as a fraction of its rounding bound: valid at most 1.\n\n"
    << "| rank | candidate | tilings | model ms | status | median ms | max error / bound |\n"
       "|---|---|---|---|---|---|---|\n";
  const size_t kCutOffRows = 10;
  size_t cut_off = 0;
  for (const Candidate& c : r.candidates) {
    if (!c.selected && ++cut_off > kCutOffRows) continue;
    t << "| " << c.rank << " | " << c.name << (&c == best ? " (chosen)" : "") << " | " << c.kernel->tilings() << " | "
      << ms(c.estimate.seconds) << " | " << candidate_status(c) << " | " << (c.valid() ? ms(c.seconds) : "-") << " | "
      << error_fraction(c) << " |\n";
  }
  if (cut_off > kCutOffRows)
    t << "| | " << cut_off - kCutOffRows << " more cut off" << (best ? " (all are listed in report.html)" : "")
      << " | | | | | |\n";
  if (!best) return t.str();
  t << "\n## Chosen variant (NumPy-like)\n\n```python\n"
    << ir::print_numpy(best->fn) << "```\n\n"
    << "## Fused form\n\n"
    << fuse::fusion_markdown(fusion_of(r)) << "\n## Instruction-level form\n\n";
  t << best->kernel->stages_markdown();
  t << "The full loop nest is `kernel.cpp`; each statement there is one of the lowerings below.\n\n"
    << "## Lowerings used (each proved equal to its hole)\n\n| hole | instructions | verdict | method "
       "|\n|---|---|---|---|\n";
  std::set<std::string> seen;
  for (const isa::Lowering& l : r.synth->used()) {
    std::string row = "| `" + l.spec_text + "` | `" + l.tree.str() + "` | " + smt::verdict_name(l.proof.verdict) +
                      " | " + l.proof.method + " |\n";
    if (seen.insert(row).second) t << row;
  }
  t << "\nThe loop skeletons around the holes (blocking, tails, accumulation order) are correct by construction and\n"
       "every measured candidate was also checked against the float64 reference interpreter on random inputs.\n";
  return t.str();
}

std::string report_html(const SearchResult& r) {
  const Candidate& best = *r.best;
  tune::HtmlReport h;
  h.title = "axon optimize: " + r.program->kernel.name;
  h.facts = {
      {"program", r.program->source->path},
      {"sizes", dims_text(r.dims)},
      {"target", r.target->name + " (" + r.target->path + ")"},
      {"search", r.options.text() + ", budget " + number(r.options.budget_seconds) + " s, at most " +
                     std::to_string(r.options.max_candidates) + " measured, seed " + std::to_string(r.options.seed)},
      {"chosen", best.name + " (tilings " + best.kernel->tilings() + "), median " + ms(best.seconds) + " ms (" +
                     ms(best.seconds_min) + " to " + ms(best.seconds_max) + " ms)"},
      {"NumPy, same inputs", r.numpy.measured ? "median " + ms(r.numpy.median) + " ms: the kernel is " +
                                                    number(r.numpy.median / best.seconds, 3) + "x faster"
                                              : "not timed (" + r.numpy.why_not + ")"},
      {"phases (s)", phases_text(r.phases)},
      {"candidate space", space_text(r)}};
  for (const BaselineTime& b : r.baselines) h.facts.insert(h.facts.end() - 2, {"baseline", baseline_text(r, b)});
  for (const Candidate& c : r.candidates)
    h.candidates.push_back({c.name + " [" + c.kernel->tilings() + "]", candidate_status(c), c.measured, c.valid(),
                            &c == &best, c.seconds, c.estimate.seconds, c.rank, c.finished_at});
  h.budget_seconds = r.options.budget_seconds;
  fuse::FusionSummary fusion = fusion_of(r);
  // The summary sentence and the row groups; the nests go to the table.
  std::string summary;
  std::istringstream lines(fuse::fusion_markdown(fusion));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("- nest ", 0) == 0) break;
    if (!line.empty())
      summary += (summary.empty() ? "" : " ") + (line.rfind("- ", 0) == 0 ? line.substr(2) + "." : line);
  }
  tune::ReportSection fused{"Fused form", summary, "", {{"nest", "loops", "ops per point", "statement"}, {}}};
  for (size_t i = 0; i < fusion.nests.size(); ++i)
    fused.table.rows.push_back(
        {std::to_string(i), fusion.nests[i].loops, std::to_string(fusion.nests[i].ops), fusion.nests[i].statement});
  std::string stages = best.kernel->stages_markdown();
  tune::ReportSection lowerings{
      "Lowerings used (each proved equal to its hole)", "", "", {{"hole", "instructions", "verdict", "method"}, {}}};
  std::set<std::vector<std::string>> seen;
  for (const isa::Lowering& l : r.synth->used()) {
    std::vector<std::string> row{l.spec_text, l.tree.str(), smt::verdict_name(l.proof.verdict), l.proof.method};
    if (seen.insert(row).second) lowerings.table.rows.push_back(row);
  }
  h.leading = {{"Rewrites and their proofs", "", rewrites_text(r), {}},
               {"Code", "The kernel's own code (kernel.cpp adds the description's helpers).", best.kernel->code(), {}}};
  if (!r.profile_svg.empty())
    h.leading.insert(h.leading.begin(),
                     {"Where the time goes (simulated)",
                      "The chosen kernel on the target's timing model: one row per engine, one for all DMA queues "
                      "(timeline.json opens in Perfetto).",
                      r.profile_markdown,
                      {},
                      r.profile_svg});
  h.sections = {{"Chosen variant (NumPy-like)", "", ir::print_numpy(best.fn), {}},
                fused,
                {"Instruction-level form", "The full loop nest is kernel.cpp.", stages, {}},
                lowerings};
  return tune::render_html(h);
}

namespace {

// What was proved for the chosen kernel: its variant against the program
// (with the SMT-LIB obligations z3 alone re-checks), the rewrites merged
// while exploring, and every lowering the target's kernels used.
nlohmann::ordered_json proofs_json(const SearchResult& r) {
  nlohmann::ordered_json variant = nullptr;
  if (r.best && r.variant_proof) {
    const smt::ProofResult& p = *r.variant_proof;
    variant = {{"before", ir::print_numpy(r.program->kernel)},
               {"after", ir::print_numpy(r.best->fn)},
               {"verdict", smt::verdict_name(p.verdict)},
               {"method", p.method},
               {"detail", p.detail},
               {"smtlib", p.smtlib}};
  }
  nlohmann::ordered_json rewrites = nlohmann::ordered_json::array();
  for (const algebra::UsedProof& u : r.variants.merged)
    rewrites.push_back({{"before", u.before}, {"after", u.after}, {"verdict", "proved"}, {"method", u.method}});
  nlohmann::ordered_json lowerings = nlohmann::ordered_json::array();
  std::set<std::string> seen;
  if (r.synth)
    for (const isa::Lowering& l : r.synth->used())
      if (seen.insert(l.spec_text + "\n" + l.tree.str()).second)
        lowerings.push_back({{"hole", l.spec_text},
                             {"instructions", l.tree.str()},
                             {"verdict", smt::verdict_name(l.proof.verdict)},
                             {"method", l.proof.method}});
  return {{"variant", variant}, {"rewrites", rewrites}, {"lowerings", lowerings}};
}

}  // namespace

namespace {

nlohmann::ordered_json baselines_json(const SearchResult& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const BaselineTime& b : r.baselines) {
    if (b.measured)
      j[b.name] = {{"label", b.label},
                   {"seconds", b.seconds},
                   {"speedup", r.best && r.best->seconds > 0 ? b.seconds / r.best->seconds : 0.0}};
    else
      j[b.name] = {{"label", b.label}, {"not_measured", b.why_not}};
  }
  return j;
}

}  // namespace

std::string search_json(const SearchResult& r) {
  static const Candidate kNone;  // the fields of "chosen" when no candidate was valid
  const Candidate& best = r.best ? *r.best : kNone;
  int compiled = 0, valid = 0, measured = 0;
  for (const Candidate& c : r.candidates) compiled += c.compiled(), valid += c.valid(), measured += c.measured;
  // Each measured candidate's largest |error| as a fraction of its bound (null: no results).
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const Candidate& c : r.candidates) {
    if (!c.measured) continue;
    bool ran = c.valid() || c.status.rfind("wrong", 0) == 0;
    errors.push_back({{"candidate", c.name},
                      {"valid", c.valid()},
                      {"error_over_bound", ran && std::isfinite(c.max_error) ? nlohmann::ordered_json(c.max_error)
                                                                             : nlohmann::ordered_json(nullptr)}});
  }
  Workload work = workload(r.program->kernel, tile::plan_function(r.program->kernel, r.dims));
  const PhaseTimes& t = r.phases;
  nlohmann::ordered_json j = {
      {"kernel", r.program->kernel.name},
      {"sizes", dims_text(r.dims)},
      {"target", r.target->name},
      {"options", r.options.text()},
      {"chosen", r.best ? nlohmann::ordered_json(best.name) : nlohmann::ordered_json(nullptr)},
      {"chosen_tilings", (best.kernel ? best.kernel->tilings() : std::string())},
      {"timing", r.timing},
      {"validated_at", dims_text(r.check_dims.empty() ? r.dims : r.check_dims)},
      {"scoring", r.scoring.empty() ? "the median of timed calls" : r.scoring},
      {"median_seconds", r.timing != "none" ? nlohmann::ordered_json(best.seconds) : nlohmann::ordered_json(nullptr)},
      {"min_seconds", r.scoring.empty() ? nlohmann::ordered_json(best.seconds_min) : nlohmann::ordered_json(nullptr)},
      {"max_seconds", r.scoring.empty() ? nlohmann::ordered_json(best.seconds_max) : nlohmann::ordered_json(nullptr)},
      {"score", best.seconds},
      {"numpy", r.numpy.measured
                    ? nlohmann::ordered_json{{"median_seconds", r.numpy.median},
                                             {"min_seconds", r.numpy.min},
                                             {"max_seconds", r.numpy.max},
                                             {"reps", r.numpy.reps},
                                             {"speedup", best.seconds > 0 ? r.numpy.median / best.seconds : 0.0}}
                    : nlohmann::ordered_json{{"not_measured", r.numpy.why_not}}},
      {"baselines", baselines_json(r)},
      {"proofs", proofs_json(r)},
      {"model_seconds", best.estimate.seconds},
      {"reduction", best.reduction},
      {"validation",
       {{"rule", "|got - want| <= c E, E the reference's rounding bound"},
        {"c", eval::kBoundFactor},
        {"chosen_error_over_bound", r.best ? nlohmann::ordered_json(best.max_error) : nlohmann::ordered_json(nullptr)},
        {"measured", errors}}},
      {"family", work.family},
      {"flops", work.flops},
      {"bytes", work.bytes},
      {"cache", r.cache_state},
      {"resumed", r.resumed},
      {"space",
       {{"variants", r.space.variants},
        {"plans", r.space.plans},
        {"points", r.space.points},
        {"generated", r.space.generated},
        {"duplicates", r.space.duplicates},
        {"selected", r.space.selected},
        {"cut_by_max_candidates", r.space.cut_by_count},
        {"cut_by_budget", r.space.cut_by_budget}}},
      {"candidates",
       {{"generated", r.candidates.size()}, {"compiled", compiled}, {"measured", measured}, {"valid", valid}}},
      {"phase_seconds",
       {{"algebra", t.algebra},
        {"lowering", t.lowering},
        {"reference", t.reference},
        {"compile", t.compile},
        {"measure", t.measure},
        {"total", t.total}}}};
  return j.dump(2) + "\n";
}

}  // namespace axon::search
