// axon optimize: lower the program's variants for a CPU target, compile each,
// check it against the reference interpreter and keep the fastest.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/target.h"
#include "emit/cpu.h"
#include "eval/bind.h"
#include "eval/interpreter.h"
#include "lang/load.h"
#include "tile/plan.h"
#include "tune/cache.h"
#include "tune/runner.h"

namespace axon::cli {
namespace {

namespace fs = std::filesystem;

struct Candidate {
  std::string name;
  ir::Function fn;
  emit::CpuKernel kernel;
  std::string dir;
  bool compiled = false, valid = false;
  std::string status;  // why not valid
  double max_error = 0, seconds = 0;
  int64_t reduction = 1;
  std::string id;            // digest of its source and flags: its key among the cache's records
  bool from_record = false;  // measured by an earlier, interrupted search
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError({}, "cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw UserError({}, "cannot write '" + path + "'");
}

std::string dims_text(const ir::Dims& dims) {
  std::string t;
  for (const auto& [name, value] : dims) t += (t.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return t.empty() ? "(fixed sizes)" : t;
}

// The longest fold of the plan: the atol of validation scales with it.
int64_t reduction_length(const tile::Plan& plan) {
  int64_t longest = 1;
  for (const tile::Stage& s : plan.stages) {
    int64_t n = 1;
    for (size_t d = 0; d < s.extents.size(); ++d)
      if (s.reduced[d] || static_cast<int>(d) == s.scan_dim) n *= s.extents[d];
    longest = std::max(longest, n);
  }
  return longest;
}

// Compares a kernel's float32 results with the float64 reference: within
// rtol 1e-4 and atol 1e-5 x the reduction length; NaN and inf must match.
bool within_tolerance(const std::vector<std::vector<float>>& got, const std::vector<eval::Tensor>& want,
                      int64_t reduction, double& max_error, std::string& why) {
  double atol = 1e-5 * static_cast<double>(reduction), rtol = 1e-4;
  max_error = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    for (size_t i = 0; i < want[k].data.size(); ++i) {
      double w = want[k].data[i], g = got[k][i];
      if (std::isnan(w) || std::isinf(w) || std::isnan(g) || std::isinf(g)) {
        if ((std::isnan(w) && std::isnan(g)) || g == w) continue;
        why = "result " + std::to_string(k) + " element " + std::to_string(i) + ": got " + std::to_string(g) +
              ", expected " + std::to_string(w);
        return false;
      }
      double err = std::fabs(g - w);
      max_error = std::max(max_error, err / (atol + rtol * std::fabs(w)));
      if (err > atol + rtol * std::fabs(w)) {
        why = "result " + std::to_string(k) + " element " + std::to_string(i) + ": got " + std::to_string(g) +
              ", expected " + std::to_string(w) + " (tolerance " + std::to_string(atol + rtol * std::fabs(w)) + ")";
        return false;
      }
    }
  }
  return true;
}

// Where the search spent its time, in seconds.
struct PhaseTimes {
  double algebra = 0;    // nu-graph exploration and variant extraction
  double lowering = 0;   // planning, tiling, instruction synthesis and proofs, emission
  double reference = 0;  // the float64 reference results
  double compile = 0;
  double measure = 0;  // running, validating and timing candidates
  double total = 0;
};

struct SearchOptions {
  bool no_algebra = false, no_fusion = false, default_tiling = false;
  std::string text() const {
    std::string t;
    if (no_algebra) t += " --no-algebra";
    if (no_fusion) t += " --no-fusion";
    if (default_tiling) t += " --default-tiling";
    return t.empty() ? "full search" : t.substr(1);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// What the kernel must do at least, for the benchmark's roofline: the
// multiply-adds of its contractions (2 FLOP each), one read of every input
// and one write of every output, and its family: "attention" when a
// contraction reads a value computed through exp, "matmul" for other
// contractions, "elementwise" otherwise.
struct Workload {
  int64_t flops = 0, bytes = 0;
  std::string family = "elementwise";
};

Workload workload(const ir::Function& fn, const tile::Plan& plan) {
  Workload w;
  for (const tile::Stage& s : plan.stages) {
    if (s.what.rfind("einsum", 0) != 0) continue;
    int64_t points = 1;
    for (int64_t e : s.extents) points *= e;
    w.flops += 2 * points;
  }
  for (const tile::Buffer& b : plan.buffers) {
    if (b.kind == tile::Buffer::Kind::Scratch) continue;
    int64_t n = 1;
    for (int64_t e : b.shape) n *= e;
    w.bytes += 4 * n;
  }
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

// search.json: the cost of the search, for the benchmark harness.
std::string search_json(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                        const std::vector<Candidate>& candidates, const Candidate& best, const PhaseTimes& t,
                        const SearchOptions& options, const Workload& work, const std::string& cache_state,
                        int resumed) {
  int compiled = 0, valid = 0;
  for (const Candidate& c : candidates) compiled += c.compiled, valid += c.valid;
  nlohmann::ordered_json j = {
      {"kernel", program.kernel.name},
      {"sizes", dims_text(dims)},
      {"target", target.name},
      {"options", options.text()},
      {"chosen", best.name},
      {"median_seconds", best.seconds},
      {"reduction", best.reduction},
      {"family", work.family},
      {"flops", work.flops},
      {"bytes", work.bytes},
      {"cache", cache_state},
      {"resumed", resumed},
      {"candidates", {{"generated", candidates.size()}, {"compiled", compiled}, {"valid", valid}}},
      {"phase_seconds",
       {{"algebra", t.algebra},
        {"lowering", t.lowering},
        {"reference", t.reference},
        {"compile", t.compile},
        {"measure", t.measure},
        {"total", t.total}}}};
  return j.dump(2) + "\n";
}

std::string report(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                   const std::vector<Candidate>& candidates, const Candidate& best, const isa::Synthesizer& synth,
                   const PhaseTimes& t, const SearchOptions& options) {
  std::ostringstream r;
  r << "# axon optimize: " << program.kernel.name << "\n\n"
    << "- program: `" << program.source->path << "`\n- sizes: " << dims_text(dims) << "\n- target: " << target.name
    << " (`" << target.path << "`)\n- search: " << options.text() << "\n- chosen: " << best.name << ", median "
    << std::setprecision(4) << best.seconds * 1e3 << " ms\n- phases (s): algebra " << std::setprecision(3) << t.algebra
    << ", lowering and proofs " << t.lowering << ", reference " << t.reference << ", compile " << t.compile
    << ", measurement " << t.measure << ", total " << t.total
    << "\n\n## Candidates\n\n| variant | status | median ms | max error / tolerance |\n|---|---|---|---|\n";
  for (const Candidate& c : candidates)
    r << "| " << c.name << " | " << (c.valid ? "valid" : c.status) << " | "
      << (c.valid ? std::to_string(c.seconds * 1e3) : "-") << " | " << (c.compiled ? std::to_string(c.max_error) : "-")
      << " |\n";
  r << "\n## Chosen variant (NumPy-like)\n\n```python\n"
    << ir::print_numpy(best.fn) << "```\n\n"
    << "## Instruction-level form\n\n";
  for (size_t i = 0; i < best.kernel.stages.size(); ++i) {
    const emit::StageReport& s = best.kernel.stages[i];
    const tile::TileParams& p = s.tiling.params;
    r << "### stage " << i << ": " << s.what << "\n\n- tiling: vector loop " << p.vec_dim << ", W=" << p.lanes
      << ", rows loop " << p.rows_dim << ", MR=" << p.mr << ", NV=" << p.nv << ", threads=" << p.threads << " ("
      << s.tiling.valid << " of " << s.tiling.enumerated << " assignments valid)\n";
    for (const tile::TileConstraint& c : s.tiling.constraints)
      r << "  - " << c.what << ": `" << c.lhs.str() << " <= " << c.bound << "`\n";
    r << "- instructions, by step (l0, l1, ... are the step's operands):\n";
    for (const std::string& l : s.listing) r << "  - `" << l << "`\n";
    r << "\n";
  }
  r << "The full loop nest is `kernel.cpp`; each statement there is one of the lowerings below.\n\n"
    << "## Lowerings used (each proved equal to its hole)\n\n| hole | instructions | verdict | method "
       "|\n|---|---|---|---|\n";
  std::set<std::string> seen;
  for (const isa::Lowering& l : synth.used()) {
    std::string row = "| `" + l.spec_text + "` | `" + l.tree.str() + "` | " + smt::verdict_name(l.proof.verdict) +
                      " | " + l.proof.method + " |\n";
    if (seen.insert(row).second) r << row;
  }
  r << "\nThe loop skeletons around the holes (blocking, tails, accumulation order) are correct by construction and\n"
       "every candidate was also checked against the float64 reference interpreter on random inputs.\n";
  return r.str();
}

// The cache's key: the program as canonical NumPy text plus the search's
// options, the sizes, the target and its description's digest, and the
// compiler plus this axon binary (size and time), so kernels lapse when
// either changes.
tune::CacheKey cache_key(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                         const std::string& search) {
  tune::CacheKey key;
  key.program = ir::print_numpy(program.kernel) + "# search: " + search + "\n";
  key.sizes = dims_text(dims);
  key.target = target.name;
  key.hw_digest = tune::file_digest(target.path);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::string binary = ec ? "axon" : self.string() + " " + std::to_string(fs::file_size(self, ec)) + " " +
                                         std::to_string(fs::last_write_time(self, ec).time_since_epoch().count());
  key.compiler = tune::compiler_version(tune::compiler_command()) + "; " + binary;
  return key;
}

// The cache named by --cache, else the default one; nullopt with --no-cache.
// An unusable default cache is a warning (the search runs without it); an
// unusable --cache PATH is an error.
std::optional<tune::Cache> open_cache(const ParsedArgs& args, bool quiet) {
  if (args.has("--no-cache")) return std::nullopt;
  std::optional<tune::Cache> cache;
  if (const Word* w = args.last("--cache")) {
    try {
      cache.emplace(w->text);
    } catch (const UserError& e) {
      throw UserError(w->loc, e.what());
    }
  } else {
    try {
      cache.emplace(tune::default_cache_path());
    } catch (const UserError& e) {
      std::cerr << "axon: warning: running without the kernel cache: " << e.what() << "\n";
      return std::nullopt;
    }
  }
  if (!cache->warning().empty() && !quiet) std::cerr << "axon: warning: " << cache->warning() << "\n";
  return cache;
}

// A test-only hook: AXON_TEST_INJECT="1=crash,2=hang,3=wrong" makes those
// candidates (by index, 0 = the original) trap, spin forever, or return a
// wrong first element, so tests can check that the search records such
// candidates and goes on. Not for users; not in --help.
std::map<size_t, std::string> injected_faults() {
  std::map<size_t, std::string> faults;
  const char* env = std::getenv("AXON_TEST_INJECT");
  if (!env) return faults;
  std::stringstream list(env);
  std::string item;
  while (std::getline(list, item, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    faults[static_cast<size_t>(std::stoul(item.substr(0, eq)))] = item.substr(eq + 1);
  }
  return faults;
}

std::string inject_fault(std::string source, const std::string& fault) {
  size_t at = source.find("extern \"C\" int axon_kernel_packed(");
  size_t body = source.find("  (void)in;\n", at);
  size_t ret = source.find("  return ", body);
  size_t end = source.find(";\n", ret);
  AXON_CHECK(at != std::string::npos && body != std::string::npos && ret != std::string::npos,
             "the emitted kernel has no axon_kernel_packed body");
  if (fault == "crash") source.insert(body, "  __builtin_trap();\n");
  else if (fault == "hang") source.insert(body, "  for (volatile int spin = 0;; spin = spin + 1) {\n  }\n");
  else if (fault == "wrong")
    source.replace(ret, end + 2 - ret,
                   "  int rc = " + source.substr(ret + 9, end - ret - 9) + ";\n  out[0][0] += 1.0f;\n  return rc;\n");
  return source;
}

const std::vector<std::string> kKernelFiles = {"kernel.h", "kernel.cpp", "kernel.so", "kernel.json", "report.md",
                                               "search.json"};

int optimize(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  const Word* entry = args.last("--entry");
  ir::Program program = lang::load_program(file.text, option_text(args, "--entry"), entry ? entry->loc : SourceLoc{});
  const Word* out_word = args.last("-o");
  if (!out_word) throw UserError(command.loc, "optimize needs an output folder: -o OUT/");
  ir::Dims given;
  if (const Word* w = args.last("--dims")) given = parse_dims(*w, program);
  ir::Dims dims = eval::bind_dims(program.kernel, given,
                                  std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
  hw::Description target = load_target(args, "cpu");
  if (target.target != "cpu")
    throw UserError(
        args.last("--target") ? args.last("--target")->loc : command.loc,
        "optimize emits code for cpu targets; " + target.name + " is a " + target.target + " target (use axon lower)");
  size_t count = static_cast<size_t>(int_option(args, "--variants").value_or(4));
  if (count < 1) throw UserError(args.last("--variants")->loc, "--variants must be at least 1");
  uint64_t seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  bool quiet = args.has("--quiet");
  int jobs = static_cast<int>(
      int_option(args, "--jobs").value_or(std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()))));
  if (jobs < 1) throw UserError(args.last("--jobs")->loc, "--jobs must be at least 1");
  double time_limit = static_cast<double>(int_option(args, "--time-limit").value_or(120));
  if (time_limit < 1) throw UserError(args.last("--time-limit")->loc, "--time-limit must be at least 1 second");
  // Ablations: each switches one stage of the search off.
  bool no_algebra = args.has("--no-algebra");
  tile::PlanOptions plan_options;
  plan_options.fuse_elementwise = !args.has("--no-fusion");
  tile::TilingPolicy tiling = args.has("--default-tiling") ? tile::TilingPolicy::Default : tile::TilingPolicy::Search;

  auto t0 = std::chrono::steady_clock::now();
  SearchOptions options{no_algebra, !plan_options.fuse_elementwise, tiling == tile::TilingPolicy::Default};
  fs::path out_dir(out_word->text);
  std::optional<tune::Cache> cache = open_cache(args, quiet);
  tune::CacheKey key = cache_key(program, dims, target,
                                 options.text() + " variants=" + std::to_string(count) + " seed=" + std::to_string(seed));
  if (cache) {
    if (std::optional<tune::CachedKernel> hit = cache->lookup(key)) {
      std::error_code mk;
      fs::create_directories(out_dir, mk);
      if (mk) throw UserError(out_word->loc, "cannot create '" + out_dir.string() + "': " + mk.message());
      for (auto& [name, bytes] : hit->files) {
        if (name == "search.json") {  // as the search wrote it, but answered from the cache
          nlohmann::ordered_json j = nlohmann::ordered_json::parse(bytes, nullptr, false);
          if (j.is_object()) {
            j["cache"] = "hit";
            bytes = j.dump(2) + "\n";
          }
        }
        write_file((out_dir / name).string(), bytes);
      }
      std::cout << "chose " << hit->candidate << ": median " << std::setprecision(4) << hit->seconds * 1e3
                << " ms; wrote " << out_dir.string() << "/{kernel.h,kernel.cpp,kernel.so,kernel.json,report.md,"
                << "search.json} from the cache " << cache->path() << " (" << std::setprecision(3) << seconds_since(t0)
                << " s)\n";
      return 0;
    }
  }
  PhaseTimes phases;
  Variants variants = program_variants(program, no_algebra ? 1 : count, no_algebra ? 0 : 3);
  phases.algebra = variants.seconds;
  if (!quiet)
    std::cout << program.kernel.name << " at " << dims_text(dims) << " for " << target.name << ": "
              << variants.functions.size() << " variant(s) from the nu-graph (" << variants.proved
              << " proved rewrites, " << std::setprecision(3) << variants.seconds << " s)\n";

  // Reference results on random inputs (float32-rounded, as the kernel sees them).
  const ir::Function& fn = program.kernel;
  std::vector<eval::Tensor> inputs;
  std::vector<std::vector<float>> f32_inputs;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    eval::Tensor t =
        eval::random_normal(eval::concrete_shape(fn.params[i].type.shape, dims, fn.params[i].annotation_loc), seed, i);
    std::vector<float> f(t.data.size());
    for (size_t k = 0; k < f.size(); ++k) t.data[k] = f[k] = static_cast<float>(t.data[k]);
    inputs.push_back(std::move(t));
    f32_inputs.push_back(std::move(f));
  }
  auto t_ref = std::chrono::steady_clock::now();
  std::vector<eval::Tensor> want = eval::evaluate(fn, inputs, dims);
  phases.reference = seconds_since(t_ref);
  std::vector<size_t> output_sizes;
  for (const eval::Tensor& t : want) output_sizes.push_back(t.data.size());

  fs::path work = out_dir / "candidates";
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) throw UserError(out_word->loc, "cannot create '" + work.string() + "': " + ec.message());

  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  std::vector<Candidate> candidates;
  std::map<std::string, tune::CandidateRecord> measured;
  if (cache) measured = cache->candidates(key);
  int resumed = 0;
  std::map<size_t, std::string> faults = injected_faults();
  auto record = [&](const Candidate& c) {
    if (cache && !c.id.empty())
      cache->record_candidate(key, c.id, {c.valid ? "ok" : c.compiled ? "failed" : "compile error", c.valid, c.seconds,
                                          c.max_error, c.status});
  };
  for (size_t v = 0; v < variants.functions.size(); ++v) {
    Candidate c;
    c.name = v == 0 ? "original" : "variant " + std::to_string(v);
    c.fn = variants.functions[v];
    auto t_sym = std::chrono::steady_clock::now();
    tile::Plan plan = tile::plan_function(c.fn, dims, plan_options);
    c.reduction = reduction_length(plan);
    c.kernel = emit::emit_cpu(plan, c.fn, target, synth, emit::c_identifier(fn.name), tiling);
    phases.lowering += seconds_since(t_sym);
    if (faults.count(v)) c.kernel.source = inject_fault(c.kernel.source, faults.at(v));
    c.dir = (work / ("v" + std::to_string(v))).string();
    fs::create_directories(c.dir, ec);
    write_file(c.dir + "/kernel.h", c.kernel.header);
    write_file(c.dir + "/kernel.cpp", c.kernel.source);
    c.id = tune::text_digest(c.kernel.source + "\n" + target.compile_flags);
    if (cache && measured.count(c.id)) {  // measured before an interruption: not again
      const tune::CandidateRecord& r = measured.at(c.id);
      c.from_record = true;
      c.compiled = r.status != "compile error";
      c.valid = r.valid;
      c.seconds = r.seconds;
      c.max_error = r.max_error;
      c.status = r.detail;
      ++resumed;
      if (!quiet) std::cout << "  " << c.name << ": measured before (" << (c.valid ? "valid" : c.status) << ")\n";
      candidates.push_back(std::move(c));
      continue;
    }
    candidates.push_back(std::move(c));
  }

  // Compile every new candidate, --jobs at a time.
  auto t_compile = std::chrono::steady_clock::now();
  std::vector<tune::CompileResult> compiled(candidates.size());
  std::atomic<size_t> next{0};
  auto compile_some = [&] {
    for (size_t i; (i = next++) < candidates.size();)
      if (!candidates[i].from_record)
        compiled[i] = tune::compile_shared(candidates[i].dir + "/kernel.cpp", candidates[i].dir + "/kernel.so",
                                           target.compile_flags);
  };
  {
    std::vector<std::thread> pool;
    for (int j = 1; j < jobs; ++j) pool.emplace_back(compile_some);
    compile_some();
    for (std::thread& t : pool) t.join();
  }
  phases.compile = seconds_since(t_compile);

  // Run, validate and time them one at a time.
  for (size_t i = 0; i < candidates.size(); ++i) {
    Candidate& c = candidates[i];
    if (c.from_record) continue;
    if (!compiled[i].ok) {
      c.status = "compile error";
      std::cerr << "axon: internal error: the emitted " << c.name << " does not compile:\n" << compiled[i].log << "\n";
      record(c);
      continue;
    }
    c.compiled = true;
    if (!cpu_supports(target)) {
      c.status = "compiled, not run: this CPU lacks " + target.requires_cpu;
      if (!quiet) std::cout << "  " << c.name << ": " << c.status << "\n";
      continue;
    }
    tune::RunRequest request;
    request.so_path = c.dir + "/kernel.so";
    request.inputs = f32_inputs;
    request.output_sizes = output_sizes;
    request.warmup = 2;
    request.reps = 5;
    request.min_seconds = 0.2;
    request.timeout_s = time_limit;
    auto t_run = std::chrono::steady_clock::now();
    tune::RunResult ran = tune::run_isolated(request);
    phases.measure += seconds_since(t_run);
    if (ran.status != tune::RunResult::Status::Ok) {
      c.status = ran.message;
    } else if (!within_tolerance(ran.outputs, want, c.reduction, c.max_error, c.status)) {
      c.status = "wrong result: " + c.status;
    } else {
      c.valid = true;
      c.seconds = ran.median();
    }
    record(c);  // committed before it is reported
    if (!quiet)
      std::cout << "  " << c.name << ": "
                << (c.valid ? "valid, median " + std::to_string(c.seconds * 1e3) + " ms" : c.status) << std::endl;
  }
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates)
    if (c.valid && (!best || c.seconds < best->seconds)) best = &c;
  if (!best) {
    if (!cpu_supports(target))
      throw UserError(args.last("--target") ? args.last("--target")->loc : command.loc,
                      "this CPU cannot run code for " + target.name + " (it needs " + target.requires_cpu +
                          "): the candidates were emitted and compiled in " + work.string() +
                          " but none could be validated or timed");
    std::string why = candidates.empty() ? "no candidates" : candidates[0].status;
    throw UserError(fn.loc, "no candidate kernel was valid (first: " + why + "); see " + work.string());
  }
  if (best->from_record) {  // its library is from the interrupted search: build it again
    tune::CompileResult compiled =
        tune::compile_shared(best->dir + "/kernel.cpp", best->dir + "/kernel.so", target.compile_flags);
    if (!compiled.ok) throw UserError(fn.loc, "internal error: the chosen kernel no longer compiles: " + compiled.log);
  }
  fs::copy_file(best->dir + "/kernel.h", out_dir / "kernel.h", fs::copy_options::overwrite_existing);
  fs::copy_file(best->dir + "/kernel.cpp", out_dir / "kernel.cpp", fs::copy_options::overwrite_existing);
  fs::copy_file(best->dir + "/kernel.so", out_dir / "kernel.so", fs::copy_options::overwrite_existing);
  std::string info = best->kernel.source;
  size_t a = info.find("R\"axon(") + 7, b = info.find(")axon\"");
  write_file((out_dir / "kernel.json").string(), info.substr(a, b - a) + "\n");
  double seconds = seconds_since(t0);
  phases.total = seconds;
  write_file((out_dir / "report.md").string(),
             report(program, dims, target, candidates, *best, synth, phases, options));
  Workload needs = workload(fn, tile::plan_function(fn, dims));
  write_file((out_dir / "search.json").string(),
             search_json(program, dims, target, candidates, *best, phases, options, needs, cache ? "miss" : "off",
                         resumed));
  if (cache) {
    tune::CachedKernel entry;
    for (const std::string& name : kKernelFiles) entry.files[name] = read_file((out_dir / name).string());
    entry.candidate = best->name;
    entry.seconds = best->seconds;
    entry.summary = entry.files["search.json"];
    cache->store(key, entry);
  }
  std::cout << "chose " << best->name << ": median " << std::setprecision(4) << best->seconds * 1e3 << " ms; wrote "
            << out_dir.string() << "/{kernel.h,kernel.cpp,kernel.so,kernel.json,report.md,search.json} (" << std::setprecision(3)
            << seconds << " s, " << synth.candidates_proved() << " lowerings proved)\n";
  return 0;
}

}  // namespace

const Command& optimize_command() {
  static const Command command{
      "optimize",
      "lower, compile, validate and time a program's variants for a CPU; keep the fastest",
      "usage: axon optimize FILE --dims SPEC -o OUT/ [--target cpu|FILE.json] [--variants N] [--entry NAME]\n"
      "                     [--no-algebra] [--no-fusion] [--default-tiling]\n\n"
      "Explores the program's proven variants (as `axon explore`), plans each as loop nests, synthesizes\n"
      "and proves the instructions of every step from the target description, emits C++, compiles it\n"
      "with the system compiler, runs it in a child process on random inputs, checks the results against\n"
      "the float64 reference interpreter (rtol 1e-4, atol 1e-5 x reduction length) and keeps the fastest\n"
      "valid one. OUT/ receives kernel.h, kernel.cpp, kernel.so, kernel.json, report.md and search.json\n"
      "(the search's phase times and candidate counts); the other candidates stay in OUT/candidates/.\n"
      "The chosen kernel is kept in a persistent cache (SQLite) keyed by the program, sizes, options,\n"
      "target description, compiler and axon binary: a repeated run answers from it at once, and a\n"
      "search that was interrupted resumes without measuring its measured candidates again.\n"
      "The kernel's C ABI: int ENTRY(const float* in..., float* out...),\n"
      "dense row-major float32 arrays whatever the declared dtype, sizes fixed at emission.\n"
      "--target cpu picks hw/x86-avx512.json when this CPU has AVX-512, else hw/x86-avx2.json.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"-o", "DIR", "the output folder (created)"},
       {"--target", "T", "cpu (default), or a description file hw/NAME.json"},
       {"--variants", "N", "variants of the nu-graph to try, the original included (default 4)"},
       {"--seed", "S", "seed of the random validation inputs (default 0)"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--no-algebra", "", "ablation: the program as written, no nu-graph variants"},
       {"--no-fusion", "", "ablation: every element-wise op in its own loop nest and buffer"},
       {"--default-tiling", "", "ablation: no register-tile search (MR = NV = 1)"},
       {"--jobs", "N", "candidates compiled at once (default: the CPU's hardware threads)"},
       {"--time-limit", "S", "seconds a candidate may run (its first call, warm-up and timing) before\n"
                             "it is killed and recorded as timed out (default 120)"},
       {"--cache", "PATH", "the kernel cache (default $XDG_CACHE_HOME/axon/kernels.sqlite or\n"
                           "~/.cache/axon/kernels.sqlite)"},
       {"--no-cache", "", "neither read nor write the kernel cache"},
       {"--quiet", "", "print only the final line"},
       {"--help", "", "show this help"}},
      optimize};
  return command;
}

}  // namespace axon::cli
