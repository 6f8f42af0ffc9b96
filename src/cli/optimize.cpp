// axon optimize: lower the program's variants for a CPU target, compile each,
// check it against the reference interpreter and keep the fastest.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "cli/target.h"
#include "emit/cpu.h"
#include "eval/bind.h"
#include "eval/interpreter.h"
#include "lang/load.h"
#include "tile/plan.h"
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
};

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

std::string report(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                   const std::vector<Candidate>& candidates, const Candidate& best, const isa::Synthesizer& synth) {
  std::ostringstream r;
  r << "# axon optimize: " << program.kernel.name << "\n\n"
    << "- program: `" << program.source->path << "`\n- sizes: " << dims_text(dims) << "\n- target: " << target.name
    << " (`" << target.path << "`)\n- chosen: " << best.name << ", median " << std::setprecision(4)
    << best.seconds * 1e3
    << " ms\n\n## Candidates\n\n| variant | status | median ms | max error / tolerance |\n|---|---|---|---|\n";
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

  auto t0 = std::chrono::steady_clock::now();
  Variants variants = program_variants(program, count, 3);
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
  std::vector<eval::Tensor> want = eval::evaluate(fn, inputs, dims);
  std::vector<size_t> output_sizes;
  for (const eval::Tensor& t : want) output_sizes.push_back(t.data.size());

  fs::path out_dir(out_word->text);
  fs::path work = out_dir / "candidates";
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) throw UserError(out_word->loc, "cannot create '" + work.string() + "': " + ec.message());

  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  std::vector<Candidate> candidates;
  for (size_t v = 0; v < variants.functions.size(); ++v) {
    Candidate c;
    c.name = v == 0 ? "original" : "variant " + std::to_string(v);
    c.fn = variants.functions[v];
    tile::Plan plan = tile::plan_function(c.fn, dims);
    c.reduction = reduction_length(plan);
    c.kernel = emit::emit_cpu(plan, c.fn, target, synth, emit::c_identifier(fn.name));
    c.dir = (work / ("v" + std::to_string(v))).string();
    fs::create_directories(c.dir, ec);
    write_file(c.dir + "/kernel.h", c.kernel.header);
    write_file(c.dir + "/kernel.cpp", c.kernel.source);
    tune::CompileResult compiled =
        tune::compile_shared(c.dir + "/kernel.cpp", c.dir + "/kernel.so", target.compile_flags);
    if (!compiled.ok) {
      c.status = "compile error";
      std::cerr << "axon: internal error: the emitted " << c.name << " does not compile:\n" << compiled.log << "\n";
      candidates.push_back(std::move(c));
      continue;
    }
    c.compiled = true;
    if (!cpu_supports(target)) {
      c.status = "compiled, not run: this CPU lacks " + target.requires_cpu;
      if (!quiet) std::cout << "  " << c.name << ": " << c.status << "\n";
      candidates.push_back(std::move(c));
      continue;
    }
    tune::RunRequest request;
    request.so_path = c.dir + "/kernel.so";
    request.inputs = f32_inputs;
    request.output_sizes = output_sizes;
    request.warmup = 2;
    request.reps = 5;
    request.min_seconds = 0.2;
    request.timeout_s = 120;
    tune::RunResult ran = tune::run_isolated(request);
    if (ran.status != tune::RunResult::Status::Ok) {
      c.status = ran.message;
    } else if (!within_tolerance(ran.outputs, want, c.reduction, c.max_error, c.status)) {
      c.status = "wrong result: " + c.status;
    } else {
      c.valid = true;
      c.seconds = ran.median();
    }
    if (!quiet)
      std::cout << "  " << c.name << ": "
                << (c.valid ? "valid, median " + std::to_string(c.seconds * 1e3) + " ms" : c.status) << "\n";
    candidates.push_back(std::move(c));
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
  fs::copy_file(best->dir + "/kernel.h", out_dir / "kernel.h", fs::copy_options::overwrite_existing);
  fs::copy_file(best->dir + "/kernel.cpp", out_dir / "kernel.cpp", fs::copy_options::overwrite_existing);
  fs::copy_file(best->dir + "/kernel.so", out_dir / "kernel.so", fs::copy_options::overwrite_existing);
  std::string info = best->kernel.source;
  size_t a = info.find("R\"axon(") + 7, b = info.find(")axon\"");
  write_file((out_dir / "kernel.json").string(), info.substr(a, b - a) + "\n");
  write_file((out_dir / "report.md").string(), report(program, dims, target, candidates, *best, synth));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "chose " << best->name << ": median " << std::setprecision(4) << best->seconds * 1e3 << " ms; wrote "
            << out_dir.string() << "/{kernel.h,kernel.cpp,kernel.so,kernel.json,report.md} (" << std::setprecision(3)
            << seconds << " s, " << synth.candidates_proved() << " lowerings proved)\n";
  return 0;
}

}  // namespace

const Command& optimize_command() {
  static const Command command{
      "optimize",
      "lower, compile, validate and time a program's variants for a CPU; keep the fastest",
      "usage: axon optimize FILE --dims SPEC -o OUT/ [--target cpu|FILE.json] [--variants N] [--entry NAME]\n\n"
      "Explores the program's proven variants (as `axon explore`), plans each as loop nests, synthesizes\n"
      "and proves the instructions of every step from the target description, emits C++, compiles it\n"
      "with the system compiler, runs it in a child process on random inputs, checks the results against\n"
      "the float64 reference interpreter (rtol 1e-4, atol 1e-5 x reduction length) and keeps the fastest\n"
      "valid one. OUT/ receives kernel.h, kernel.cpp, kernel.so, kernel.json and report.md; the other\n"
      "candidates stay in OUT/candidates/. The kernel's C ABI: int ENTRY(const float* in..., float* out...),\n"
      "dense row-major float32 arrays whatever the declared dtype, sizes fixed at emission.\n"
      "--target cpu picks hw/x86-avx512.json when this CPU has AVX-512, else hw/x86-avx2.json.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"-o", "DIR", "the output folder (created)"},
       {"--target", "T", "cpu (default), or a description file hw/NAME.json"},
       {"--variants", "N", "variants of the nu-graph to try, the original included (default 4)"},
       {"--seed", "S", "seed of the random validation inputs (default 0)"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--quiet", "", "print only the final line"},
       {"--help", "", "show this help"}},
      optimize};
  return command;
}

}  // namespace axon::cli
