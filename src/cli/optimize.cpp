// axon optimize: the command line of the search (src/search): its options
// read into a request, its progress drawn, its result printed.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/target.h"
#include "eval/bind.h"
#include "lang/load.h"
#include "search/api.h"
#include "search/target.h"
#include "targets/register.h"
#include "tile/plan.h"
#include "tune/report_html.h"

namespace axon::cli {
namespace {

// Seconds from "90", "90s" or "1.5m": a number with an optional unit, s or m.
double seconds_option(const Word& w) {
  const std::string& t = w.text;
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = t.substr(used);
  if (used == 0 || !(unit.empty() || unit == "s" || unit == "m") || !std::isfinite(value))
    throw UserError(w.loc, "expected a duration such as 90, 90s or 2m, got '" + t + "'");
  return unit == "m" ? value * 60 : value;
}

search::Options read_options(const ParsedArgs& args) {
  search::Options o;
  o.variants = static_cast<size_t>(int_option(args, "--variants").value_or(4));
  if (o.variants < 1) throw UserError(args.last("--variants")->loc, "--variants must be at least 1");
  o.seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  int64_t max_candidates = int_option(args, "--max-candidates").value_or(8);
  if (max_candidates < 1) throw UserError(args.last("--max-candidates")->loc, "--max-candidates must be at least 1");
  o.max_candidates = static_cast<size_t>(max_candidates);
  if (const Word* w = args.last("--budget")) {
    o.budget_seconds = seconds_option(*w);
    if (o.budget_seconds < 1) throw UserError(w->loc, "--budget must be at least 1 second");
  }
  o.quiet = args.has("--quiet");
  o.max_memory = max_memory_option(args);
  o.jobs =
      static_cast<int>(int_option(args, "--jobs")
                           .value_or(std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()))));
  if (o.jobs < 1) throw UserError(args.last("--jobs")->loc, "--jobs must be at least 1");
  RunLimits limits = run_limits(args);
  o.time_limit_seconds = limits.wall_seconds;
  o.memory_limit_bytes = limits.memory_bytes;
  o.cpu_limit_seconds = limits.cpu_seconds;
  // Ablations: each switches one stage of the search off.
  o.no_algebra = args.has("--no-algebra");
  o.no_fusion = args.has("--no-fusion");
  o.default_tiling = args.has("--default-tiling");
  o.no_tuning = args.has("--no-tuning");
  o.time_numpy = !args.has("--no-numpy");
  return o;
}

// The search's progress on this terminal: a bar on stderr when it is one,
// else a line per candidate on stdout; --quiet leaves only warnings.
class CliObserver : public search::Observer {
 public:
  explicit CliObserver(bool quiet)
      : quiet_(quiet),
        bar_on_(!quiet && isatty(fileno(stderr)) != 0 && std::getenv("TERM") != nullptr &&
                std::string(std::getenv("TERM")) != "dumb"),
        bar_(std::cerr, bar_on_) {}

  void note(const std::string& text) override {
    if (!quiet_) std::cout << text << std::endl;
  }
  void warning(const std::string& text) override { std::cerr << "axon: warning: " << text << "\n"; }
  void progress(const search::Progress& p, bool measured_one) override {
    tune::ProgressState state;
    state.total = p.total, state.compiled = p.compiled, state.measured = p.measured, state.valid = p.valid;
    state.failed = p.failed, state.best_seconds = p.best_seconds, state.best_name = p.best_name;
    state.elapsed = p.elapsed;
    bar_.update(state, measured_one);
  }
  void candidate(const std::string& name, const std::string& result) override {
    if (!bar_on_) note("  " + name + ": " + result);
  }
  void done() override { bar_.finish(); }

 private:
  bool quiet_, bar_on_;
  tune::ProgressBar bar_;
};

int optimize(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  const Word* entry_word = args.last("--entry");
  ir::Program program = lang::load_program(file.text, option_text(args, "--entry"),
                                           entry_word ? entry_word->loc : SourceLoc{}, param_values(args));
  const Word* out_word = args.last("-o");
  if (!out_word) throw UserError(command.loc, "optimize needs an output folder: -o OUT/");
  tile::check_plan_size(program.kernel);
  ir::Dims given;
  if (const Word* w = args.last("--dims")) given = parse_dims(*w, program);
  ir::Dims dims = eval::bind_dims(program.kernel, given,
                                  std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
  targets::register_all();
  search::OptimizeRequest request;
  Word target = target_word(args, "cpu", command.loc);
  request.target = target.text;
  request.target_loc = target.loc;
  // The description is read (and its errors reported) before the options.
  search::load_description(request.target, request.target_loc);
  request.options = read_options(args);
  request.out = out_word->text;
  request.out_loc = out_word->loc;
  if (args.has("--no-cache")) {
    request.cache = search::OptimizeRequest::Cache::Off;
  } else if (const Word* w = args.last("--cache")) {
    request.cache = search::OptimizeRequest::Cache::Path;
    request.cache_path = w->text;
    request.cache_loc = w->loc;
  }
  CliObserver observer(request.options.quiet);
  search::OptimizeSummary summary = search::optimize_program(program, dims, request, &observer);
  if (!request.options.quiet) std::cout << summary.details;
  std::cout << summary.line;
  return 0;
}

}  // namespace

const Command& optimize_command() {
  static const Command command{
      "optimize",
      "search a program's variants, fusion choices and tilings for a CPU; keep the fastest valid kernel",
      "usage: axon optimize FILE --dims SPEC -o OUT/ [--target cpu|FILE.json] [--budget S]\n"
      "                     [--max-candidates N] [--variants N] [--jobs N] [--seed S] [--entry NAME]\n"
      "                     [--time-limit S] [--memory-limit MIB] [--cpu-limit S]\n"
      "                     [--cache PATH | --no-cache] [--max-memory SIZE]\n"
      "                     [--no-algebra] [--no-fusion] [--default-tiling] [--no-tuning] [--no-numpy]\n\n"
      "The search space is every proven variant of the nu-graph (as `axon explore`) x fusion (element-wise\n"
      "chains; epilogues: an element-wise consumer of a contraction or reduction applied as its result is\n"
      "stored; row groups: consecutive loop nests over the same rows inside one loop over them, so a row\n"
      "stays in cache; all three, without row groups, chains only, or none) x every valid tiling of every\n"
      "loop nest (register tile MR x NV, one thread or all cores, the fold in blocks for matrix-vector\n"
      "shapes and where a register tile's reduction panel would not stay in L2, gathers as in-register\n"
      "transposes where the description has one, streaming stores for outputs larger than the largest\n"
      "cache).\n"
      "Each point is planned, its instructions synthesized and proved from the target description, and\n"
      "emitted as C++; identical kernels are merged by a hash of their source. An analytic cost model\n"
      "from the description (instruction throughputs and latencies, cores, cache sizes, bandwidths)\n"
      "ranks them; each variant as the planner alone fuses and tiles it (the search before tuning) and\n"
      "the model's best points are measured, --max-candidates in all, until --budget runs out.\n"
      "Measuring: compiled several to a translation unit, --jobs units at once; run in a child process\n"
      "with a time limit (a crash or hang is recorded, never fatal); checked against the float64\n"
      "reference interpreter on random inputs (each element within 8 E, E the rounding bound the\n"
      "reference carries beside each value for the declared dtypes: the check of axon run --check);\n"
      "timed after a warm-up as the median of repeated calls (memory-bound kernels from cold caches).\n"
      "The fastest valid one is compiled alone and checked again, and NumPy runs the same file on the\n"
      "same inputs (/usr/bin/python3, or $AXON_PYTHON) for the speed-up printed last and shown first in\n"
      "report.md and report.html, with the chosen kernel's time and spread, the rewrites that made its\n"
      "variant with their proofs, and its code; the candidate table follows. When none is valid, OUT/ gets\n"
      "report.md and search.json (each candidate's error as a fraction of its bound) and the exit\n"
      "status is 5; the message names the closest candidate.\n"
      "OUT/ receives kernel.h, kernel.cpp, kernel.so, kernel.json, report.md, report.html (plots of every\n"
      "candidate's time and of the search's progress) and search.json (space size, counts, phase times);\n"
      "the measured candidates stay in OUT/candidates/. On a terminal a progress bar shows the search.\n"
      "OUT/ is replaced whole at the end (written beside it, then renamed into place): it is all of one\n"
      "search or of the one before. It may be new, empty or an earlier search's; other files in it are\n"
      "refused. With no valid candidate (exit status 5) OUT/ stays as it was; see OUT.failed/.\n"
      "The chosen kernel is kept in a persistent cache (SQLite) keyed by the entry, its parameters\n"
      "(order, names, dtypes), the whole source file, sizes, settings, target description and prelude,\n"
      "compiler and axon build: a repeated run answers from it at once (each file checked against its\n"
      "digest), and a search that was interrupted resumes without re-running the candidates that failed\n"
      "(the valid ones are timed again, so every time compared is of one run).\n"
      "The kernel's C ABI: int ENTRY(const float* in..., float* out...),\n"
      "dense row-major float32 arrays whatever the declared dtype, sizes fixed at emission; ENTRY is\n"
      "axon_k_NAME for a kernel NAME that is an ASCII identifier (else axon_ku and NAME with each byte\n"
      "outside [A-Za-z0-9] as _ and two hex digits), declared in kernel.h and named in kernel.json;\n"
      "also int axon_kernel_packed(const float* const* in, float* const* out).\n"
      "--target cpu picks, when this CPU has AVX-512, hw/x86-avx512-intel.json on Intel and\n"
      "hw/x86-avx512.json on AMD (their cpu_vendor), else hw/x86-avx2.json.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"-o", "DIR", "the output folder (created)"},
       param_option(),
       {"--target", "T", "cpu (default), or a description file hw/NAME.json"},
       {"--budget", "S",
        "seconds for the whole search: 90, 90s or 2m (default 90); candidates\n"
        "not measured by then are cut off (one at least is always measured)"},
       {"--max-candidates", "N", "candidates compiled and measured, at most (default 8)"},
       {"--variants", "N", "variants of the nu-graph to try, the original included (default 4)"},
       {"--seed", "S", "seed of the random validation inputs (default 0)"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--no-algebra", "",
        "ablation: the program as written, no nu-graph variants (and for\n"
        "trn1 no operator propagation on the lowered steps)"},
       {"--no-fusion", "",
        "ablation: every op in its own loop nest and buffer (no chains,\n"
        "epilogues or row groups)"},
       {"--default-tiling", "", "ablation: no register-tile search (MR = NV = 1), no tiling space"},
       {"--no-tuning", "",
        "ablation: the search before tuning: each variant with the planner's\n"
        "fusion and tiling only (no epilogues or row groups, no tiling space,\n"
        "no cost model)"},
       {"--jobs", "N", "translation units compiled at once (default: the CPU's hardware threads)"},
       {"--time-limit", "S",
        "seconds a candidate may run (its first call, warm-up and timing) before\n"
        "it is killed and recorded as timed out (default 120)"},
       {"--memory-limit", "MIB",
        "MiB a candidate may allocate beyond its inputs and outputs; over it an\n"
        "allocation fails and the candidate is recorded as failed (default: half\n"
        "the physical memory)"},
       {"--cpu-limit", "S",
        "CPU seconds a candidate may use, all threads together, before it is\n"
        "killed and recorded as failed (default: the time limit x the hardware\n"
        "threads)"},
       {"--cache", "PATH",
        "the kernel cache (default $XDG_CACHE_HOME/axon/kernels.sqlite or\n"
        "~/.cache/axon/kernels.sqlite)"},
       {"--no-cache", "", "neither read nor write the kernel cache"},
       {"--max-memory", "SIZE",
        "refuse when the reference interpreter would need more memory:\n"
        "bytes, or with a unit K, M, G, T (default: half the physical memory)"},
       {"--no-numpy", "", "do not time NumPy on the same inputs (no speed-up in the reports)"},
       {"--quiet", "", "print only the final line"},
       {"--help", "", "show this help"}},
      optimize};
  return command;
}

}  // namespace axon::cli
