// axon optimize: lower the program's variants for a CPU target, compile each,
// check it against the reference interpreter and keep the fastest.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/search.h"
#include "cli/target.h"
#include "emit/cpu.h"
#include "eval/bind.h"
#include "eval/interpreter.h"
#include "eval/rounding.h"
#include "fuse/epilogue.h"
#include "lang/load.h"
#include "support/build_id.h"
#include "support/files.h"
#include "tile/plan.h"
#include "tile/tiling.h"
#include "tune/cache.h"
#include "tune/cost.h"
#include "tune/report_html.h"
#include "tune/runner.h"

namespace axon::cli {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError({}, "cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every write checked (support/files.h); a failure is the user's disk's.
void write_file(const std::string& path, const std::string& text) {
  try {
    axon::write_file(path, text);
  } catch (const FileError& e) {
    throw UserError({}, e.what());
  }
}

// The longest fold of the plan (search.json reports it).
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

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The file a command's first word runs: itself when it holds a '/', else the
// first executable of that name on PATH; with its size and modification time,
// so a compiler replaced in place is another compiler. "not found" otherwise.
std::string resolved_executable(const std::string& command) {
  std::string word = command.substr(0, command.find(' '));
  size_t start = command.find_first_not_of(' ');
  if (start != std::string::npos) word = command.substr(start, command.find(' ', start) - start);
  std::vector<fs::path> tries;
  if (word.find('/') != std::string::npos) {
    tries.push_back(word);
  } else if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) tries.push_back(fs::path(dir.empty() ? "." : dir) / word);
  }
  for (const fs::path& p : tries) {
    std::error_code ec;
    fs::path real = fs::canonical(p, ec);
    if (ec || access(real.c_str(), X_OK) != 0 || !fs::is_regular_file(real, ec)) continue;
    auto size = fs::file_size(real, ec);
    auto time = fs::last_write_time(real, ec).time_since_epoch().count();
    return real.string() + " (" + std::to_string(size) + " bytes, mtime " + std::to_string(time) + ")";
  }
  return "not found";
}

// The cache's key: everything the output folder depends on, so that a hit
// writes exactly what a fresh search would.
//   program   the entry's name; every parameter in order with its dtype and
//             shape, used or not; and the whole source file as written
//             (helpers, constants, SIZES): no canonical form that could
//             forget a detail, at the price of a miss for an edited comment;
//   sizes     every concrete size;
//   target    the description's name, and a digest of its file and of the
//             prelude it pulls in;
//   compiler  $AXON_CXX as written, the file it resolves to on PATH and its
//             --version; this axon binary's build-id; and every search
//             setting that can change the choice (all but --quiet and --jobs).
tune::CacheKey cache_key(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                         const std::string& settings) {
  tune::CacheKey key;
  const ir::Function& fn = program.kernel;
  key.program = "entry " + fn.name + "\n";
  for (const ir::Param& p : fn.params) key.program += "param " + p.name + ": " + p.type.str() + "\n";
  key.program += "source " + std::to_string(program.source ? program.source->text.size() : 0) + "\n";
  if (program.source) key.program += program.source->text;
  key.sizes = dims_text(dims);
  key.target = target.name;
  key.hw_digest = tune::file_digest(target.path);
  if (!target.prelude.empty()) {
    std::string dir = target.path.substr(0, target.path.find_last_of('/') + 1);
    key.hw_digest += " prelude " + tune::file_digest(dir + target.prelude);
  }
  std::string cxx = tune::compiler_command();
  key.compiler = "compiler " + cxx + " at " + resolved_executable(cxx) + ": " + tune::compiler_version(cxx) +
                 "\naxon " + executable_identity() + "\nsearch " + settings;
  return key;
}

// The cache named by --cache, else the default one; nullopt with --no-cache.
// An unusable default cache is a warning (the search runs without it); an
// unusable --cache PATH is an error.
std::optional<tune::Cache> open_cache(const ParsedArgs& args) {
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
  // Shown with --quiet too: it silences progress, not problems.
  if (!cache->warning().empty()) std::cerr << "axon: warning: " << cache->warning() << "\n";
  return cache;
}

// A test-only hook: AXON_TEST_INJECT="1=crash,2=hang,3=wrong,4=memory" makes
// those candidates (by index, 0 = the original) trap, spin forever, return a
// wrong first element, or first allocate 1 GiB (and return 1 when that
// fails, as emitted kernels do), so tests can check that the search records such
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
  if (fault == "crash")
    source.insert(body, "  __builtin_trap();\n");
  else if (fault == "hang")
    source.insert(body, "  for (volatile int spin = 0;; spin = spin + 1) {\n  }\n");
  else if (fault == "memory")
    source.insert(body, "  void* hog = std::malloc(size_t{1} << 30);\n  if (!hog) return 1;\n  std::free(hog);\n");
  else if (fault == "wrong")
    source.replace(ret, end + 2 - ret,
                   "  int rc = " + source.substr(ret + 9, end - ret - 9) + ";\n  out[0][0] += 1.0f;\n  return rc;\n");
  return source;
}

const std::vector<std::string> kKernelFiles = {"kernel.h",  "kernel.cpp",  "kernel.so",  "kernel.json",
                                               "report.md", "report.html", "search.json"};
const char* const kFileList = "kernel.h,kernel.cpp,kernel.so,kernel.json,report.md,report.html,search.json";

// What OUT/ may hold for axon to replace it: what an earlier search wrote.
std::vector<std::string> own_names() {
  std::vector<std::string> names = kKernelFiles;
  names.push_back("candidates");
  return names;
}

void commit(StagedFolder& out, const Word& out_word) {
  try {
    out.commit();
  } catch (const FileError& e) {
    throw UserError(out_word.loc, e.what());
  }
}

// ---- Settings -----------------------------------------------------------------

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

struct Settings {
  SearchOptions search;
  tile::PlanOptions plan;
  tile::TilingPolicy policy = tile::TilingPolicy::Search;
  bool quiet = false;
  int jobs = 1;
  RunLimits limits;
  int64_t max_memory = 0;  // bytes the reference may use
};

Settings read_settings(const ParsedArgs& args) {
  Settings s;
  s.search.variants = static_cast<size_t>(int_option(args, "--variants").value_or(4));
  if (s.search.variants < 1) throw UserError(args.last("--variants")->loc, "--variants must be at least 1");
  s.search.seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  int64_t max_candidates = int_option(args, "--max-candidates").value_or(8);
  if (max_candidates < 1) throw UserError(args.last("--max-candidates")->loc, "--max-candidates must be at least 1");
  s.search.max_candidates = static_cast<size_t>(max_candidates);
  if (const Word* w = args.last("--budget")) {
    s.search.budget_seconds = seconds_option(*w);
    if (s.search.budget_seconds < 1) throw UserError(w->loc, "--budget must be at least 1 second");
  }
  s.quiet = args.has("--quiet");
  s.max_memory = max_memory_option(args);
  s.jobs =
      static_cast<int>(int_option(args, "--jobs")
                           .value_or(std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()))));
  if (s.jobs < 1) throw UserError(args.last("--jobs")->loc, "--jobs must be at least 1");
  s.limits = run_limits(args);
  // Ablations: each switches one stage of the search off.
  s.search.no_algebra = args.has("--no-algebra");
  s.search.no_fusion = args.has("--no-fusion");
  s.search.default_tiling = args.has("--default-tiling");
  s.search.no_tuning = args.has("--no-tuning");
  s.plan.fuse_elementwise = !s.search.no_fusion;
  if (s.search.default_tiling) s.policy = tile::TilingPolicy::Default;
  return s;
}

// Every setting that can change what the search chooses, as text for the
// cache key: all of Settings but `quiet`, `jobs` (parallel compiles never
// change a kernel) and `max_memory` (a limit that refuses before the search
// or changes nothing). A field added to Settings belongs here unless it is
// as harmless as those.
std::string settings_text(const Settings& s) {
  std::ostringstream t;
  t << std::setprecision(17) << s.search.text() << " variants=" << s.search.variants
    << " max-candidates=" << s.search.max_candidates << " budget=" << s.search.budget_seconds
    << " seed=" << s.search.seed << " time-limit=" << s.limits.wall_seconds << " memory-limit=" << s.limits.memory_bytes
    << " cpu-limit=" << s.limits.cpu_seconds << " fuse-elementwise=" << s.plan.fuse_elementwise
    << " policy=" << (s.policy == tile::TilingPolicy::Default ? "default" : "search");
  return t.str();
}

// ---- The candidate space --------------------------------------------------------

// The model's estimate of a candidate; whether memory bounds it more than
// compute; the bytes of its inputs and outputs.
void estimate(Candidate& c, const hw::Description& target) {
  double memory = 0, compute = 0;
  c.model_seconds = 0;
  std::map<int, double> resident;  // buffers a row group's earlier members touched: bytes per row
  for (size_t i = 0; i < c.plan->stages.size(); ++i) {
    const emit::StageReport& r = c.kernel.stages[i];
    const tile::Stage& stage = c.plan->stages[i];
    if (r.row_group < 0 || r.row_group == static_cast<int>(i)) resident.clear();
    tune::StageEstimate e = tune::estimate_stage(*c.plan, stage, r.tiling.params, r.step_cost, target, resident);
    if (r.row_group >= 0) {
      double rows = 1;
      for (int d = 0; d < r.row_loops; ++d) rows *= static_cast<double>(stage.extents[static_cast<size_t>(d)]);
      auto touch = [&](int b) {
        resident[b] = 4 * static_cast<double>(c.plan->buffers[static_cast<size_t>(b)].elements()) / rows;
      };
      for (const tile::Access& a : stage.leaves) touch(a.buffer);
      touch(stage.out.buffer);
    }
    c.model_seconds += e.seconds;
    memory += e.memory_seconds;
    compute += e.compute_seconds;
  }
  c.memory_bound = memory > compute;
  c.footprint_bytes = 0;
  for (const tile::Buffer& b : c.plan->buffers)
    if (b.kind != tile::Buffer::Kind::Scratch) c.footprint_bytes += 4 * b.elements();
}

// The tilings to emit for one plan, besides the heuristic one: every
// stage's options ranked by the model; the model's best for every stage,
// then, for the stages that cost most, their next options with the rest at
// their best. `points` grows by the size of this plan's tiling space.
std::vector<std::vector<tile::TileParams>> tiling_combinations(const tile::Plan& plan, const emit::CpuKernel& heuristic,
                                                               const hw::Description& target, double& points) {
  std::vector<std::vector<std::pair<double, tile::TileParams>>> ranked(plan.stages.size());
  double space = 1;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    for (const tile::TileParams& p : tile::tiling_options(plan.stages[i], heuristic.shape))
      ranked[i].push_back(
          {tune::estimate_stage(plan, plan.stages[i], p, heuristic.stages[i].step_cost, target).seconds, p});
    std::stable_sort(ranked[i].begin(), ranked[i].end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (ranked[i].empty()) ranked[i].push_back({0, heuristic.stages[i].tiling.params});
    space *= static_cast<double>(ranked[i].size());
  }
  points += space;
  std::vector<tile::TileParams> best;
  for (const auto& options : ranked) best.push_back(options[0].second);
  std::vector<std::vector<tile::TileParams>> combos{best};
  std::vector<size_t> by_cost(plan.stages.size());
  for (size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](size_t a, size_t b) { return ranked[a][0].first > ranked[b][0].first; });
  const size_t kStagesVaried = 2, kOptionsPerStage = 3;
  for (size_t k = 0; k < std::min(kStagesVaried, by_cost.size()); ++k) {
    size_t stage = by_cost[k];
    for (size_t o = 1; o < std::min(kOptionsPerStage + 1, ranked[stage].size()); ++o) {
      combos.push_back(best);
      combos.back()[stage] = ranked[stage][o].second;
    }
  }
  return combos;
}

std::string candidate_name(size_t variant, Candidate::Fusion fusion, int tiling) {
  std::string name = variant == 0 ? "original" : "variant " + std::to_string(variant);
  if (fusion == Candidate::kEpilogues) name += " / no rows";
  if (fusion == Candidate::kChains) name += " / chains only";
  if (fusion == Candidate::kNone) name += " / unfused";
  if (tiling > 0) name += " / tiling " + std::to_string(tiling);
  return name;
}

// Every variant x fusion choice x tiling, emitted, deduplicated by the
// digest of the emitted source, ranked by the cost model.
std::vector<Candidate> generate(const Variants& variants, const ir::Dims& dims, const hw::Description& target,
                                isa::Synthesizer& synth, const Settings& settings, SearchSpace& space) {
  std::vector<Candidate> all;
  std::set<std::string> seen;
  space.variants = variants.functions.size();
  std::vector<Candidate::Fusion> fusion_choices{Candidate::kAll, Candidate::kEpilogues, Candidate::kChains,
                                                Candidate::kNone};
  if (settings.search.no_fusion) fusion_choices = {Candidate::kNone};
  if (settings.search.no_tuning) fusion_choices = {Candidate::kChains};
  for (size_t v = 0; v < variants.functions.size(); ++v) {
    for (Candidate::Fusion fusion : fusion_choices) {
      tile::PlanOptions options = settings.plan;
      options.fuse_elementwise = fusion != Candidate::kNone;
      tile::Plan planned = tile::plan_function(variants.functions[v], dims, options);
      bool rows = fusion == Candidate::kAll;
      if ((rows || fusion == Candidate::kEpilogues) && fuse::fuse_epilogues(planned) == 0 && !rows)
        continue;  // the same plan as kChains
      auto plan = std::make_shared<const tile::Plan>(std::move(planned));
      ++space.plans;
      auto add = [&](emit::CpuKernel kernel, int tiling) {
        Candidate c;
        c.variant = v, c.fusion = fusion, c.tiling_index = tiling;
        c.pinned = fusion == Candidate::kChains && tiling == 0;
        c.name = candidate_name(v, fusion, tiling);
        c.fn = variants.functions[v];
        c.plan = plan;
        c.reduction = reduction_length(*plan);
        c.id = tune::text_digest(kernel.source + "\n" + target.compile_flags);
        c.kernel = std::move(kernel);
        estimate(c, target);
        if (!seen.insert(c.id).second) {
          ++space.duplicates;
          return;
        }
        all.push_back(std::move(c));
      };
      emit::CpuKernel heuristic =
          emit::emit_cpu(*plan, variants.functions[v], target, synth, settings.policy, {}, rows);
      if (settings.search.default_tiling || settings.search.no_tuning) {
        space.points += 1;
        add(std::move(heuristic), 0);
        continue;
      }
      std::vector<std::vector<tile::TileParams>> combos = tiling_combinations(*plan, heuristic, target, space.points);
      add(heuristic, 0);
      for (size_t k = 0; k < combos.size(); ++k)
        add(emit::emit_cpu(*plan, variants.functions[v], target, synth, settings.policy, combos[k], rows),
            static_cast<int>(k + 1));
    }
  }
  space.generated = all.size();
  // Rank: by the model, ties by generation order (deterministic).
  std::stable_sort(all.begin(), all.end(),
                   [](const Candidate& a, const Candidate& b) { return a.model_seconds < b.model_seconds; });
  for (size_t i = 0; i < all.size(); ++i) all[i].rank = static_cast<int>(i + 1);
  // Selection: the pinned ones (what the search measured before tuning
  // existed, so tuning never loses to it), then the model's order.
  size_t picked = 0;
  for (Candidate& c : all)
    if (c.pinned && picked < settings.search.max_candidates) c.selected = true, ++picked;
  for (Candidate& c : all)
    if (!c.selected && picked < settings.search.max_candidates) c.selected = true, ++picked;
  for (Candidate& c : all)
    if (!c.selected) c.status = "cut off: --max-candidates " + std::to_string(settings.search.max_candidates);
  space.selected = picked;
  space.cut_by_count = all.size() - picked;
  // Measured in the model's order.
  std::stable_partition(all.begin(), all.end(), [](const Candidate& c) { return c.selected; });
  return all;
}

// ---- Compilation in batches -------------------------------------------------------

// The batch source: the first kernel's includes and prelude once, then each
// kernel's body in its own namespace with its exported symbols renamed
// (ENTRY_cN, axon_kernel_packed_cN, axon_kernel_info_cN).
std::string batch_source(const std::vector<Candidate*>& batch) {
  const std::string marker = "// ---- kernel ----\n";
  const std::string& first = batch.front()->kernel.source;
  std::string preamble = first.substr(0, first.find(marker));
  size_t include = preamble.find("#include \"kernel.h\"\n");
  if (include != std::string::npos) preamble.erase(include, std::string("#include \"kernel.h\"\n").size());
  std::string out = preamble;
  for (Candidate* c : batch) {
    const std::string& src = c->kernel.source;
    size_t at = src.find(marker);
    AXON_CHECK(at != std::string::npos, "an emitted kernel without its kernel section");
    std::string unit = src.substr(at + marker.size());
    std::string suffix = "_c" + c->id.substr(0, 12);
    // The entry is a reserved name (emit::kernel_symbol), distinct from the other two and from their renamings.
    for (const std::string& name : {c->kernel.entry, std::string(emit::kPackedSymbol), std::string(emit::kInfoSymbol)})
      unit = std::regex_replace(unit, std::regex("\\b" + name + "\\("), name + suffix + "(");
    c->symbol = "axon_kernel_packed" + suffix;
    out += "// ---- " + c->name + " ----\nnamespace axon" + suffix + " {\n" + unit + "}  // namespace axon" + suffix +
           "\n";
  }
  return out;
}

// Compiles the selected candidates, several per translation unit, `jobs`
// units at once. A unit that fails is split into single kernels, so one
// bad kernel costs only itself.
void compile_batches(std::vector<Candidate*> todo, const fs::path& work, const hw::Description& target, int jobs,
                     const std::function<void()>& progress) {
  if (todo.empty()) return;
  size_t per_unit = std::clamp<size_t>((todo.size() + static_cast<size_t>(jobs) - 1) / static_cast<size_t>(jobs), 1, 6);
  std::vector<std::vector<Candidate*>> units;
  for (size_t i = 0; i < todo.size(); i += per_unit)
    units.emplace_back(todo.begin() + static_cast<long>(i),
                       todo.begin() + static_cast<long>(std::min(todo.size(), i + per_unit)));
  std::mutex lock;
  std::atomic<size_t> next{0};
  std::vector<std::string> logs;
  std::function<void(const std::vector<Candidate*>&, const std::string&)> build =
      [&](const std::vector<Candidate*>& unit, const std::string& name) {
        std::string cpp = (work / (name + ".cpp")).string(), so = (work / (name + ".so")).string();
        write_file(cpp, batch_source(unit));
        tune::CompileResult r = tune::compile_shared(cpp, so, target.compile_flags);
        if (!r.ok && unit.size() > 1) {
          for (size_t k = 0; k < unit.size(); ++k) build({unit[k]}, name + "_" + std::to_string(k));
          return;
        }
        std::lock_guard<std::mutex> guard(lock);
        for (Candidate* c : unit) {
          c->compiled = r.ok;
          c->so_path = so;
          if (!r.ok) {
            c->status = "compile error";
            logs.push_back(c->name + ":\n" + r.log);
          }
        }
        progress();
      };
  auto worker = [&] {
    for (size_t i; (i = next++) < units.size();) build(units[i], "batch" + std::to_string(i));
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < std::min<int>(jobs, static_cast<int>(units.size())); ++j) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const std::string& log : logs)
    std::cerr << "axon: warning: a candidate kernel does not compile (a bug in Axon; the search goes on without it): "
              << log << "\n";
}

// ---- The driver ---------------------------------------------------------------------

void write_kernel_files(const Candidate& c) {
  std::error_code ec;
  fs::create_directories(c.dir, ec);
  write_file(c.dir + "/kernel.h", c.kernel.header);
  write_file(c.dir + "/kernel.cpp", c.kernel.source);
}

// The chosen kernel, answered from the cache: the files as the search wrote
// them, into the staged folder. An entry without every file is no answer:
// it is removed, and the search runs again.
bool answer_from_cache(tune::Cache& cache, const tune::CacheKey& key, StagedFolder& out, const Word& out_word,
                       std::chrono::steady_clock::time_point t0) {
  std::optional<tune::CachedKernel> hit = cache.lookup(key);
  auto warn = [&] {
    if (!cache.warning().empty()) std::cerr << "axon: warning: " << cache.warning() << "\n";
  };
  if (!hit) {
    warn();
    return false;
  }
  std::string missing;
  for (const std::string& name : kKernelFiles)
    if (!hit->files.count(name)) missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty()) {
    cache.forget(key);
    std::cerr << "axon: warning: kernel cache " << cache.path() << ": the entry lacked " << missing
              << "; removed it and searching again\n";
    return false;
  }
  for (auto& [name, bytes] : hit->files) {
    if (std::find(kKernelFiles.begin(), kKernelFiles.end(), name) == kKernelFiles.end()) continue;
    if (name == "search.json") {  // as the search wrote it, but answered from the cache
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(bytes, nullptr, false);
      if (j.is_object()) {
        j["cache"] = "hit";
        bytes = j.dump(2) + "\n";
      }
    }
    write_file((fs::path(out.path()) / name).string(), bytes);
  }
  commit(out, out_word);
  std::cout << "chose " << hit->candidate << ": median " << std::setprecision(4) << hit->seconds * 1e3 << " ms; wrote "
            << out_word.text << "/{" << kFileList << "} from the cache " << cache.path() << " (" << std::setprecision(3)
            << seconds_since(t0) << " s)\n";
  return true;
}

// Reference results and their rounding bounds on random inputs, rounded to
// each parameter's dtype (float32 arrays hold them exactly: the kernel sees
// the same values).
struct Reference {
  std::vector<std::vector<float>> inputs;
  eval::Evaluation want;
  std::vector<size_t> output_sizes;
};

Reference reference_results(const ir::Function& fn, const ir::Dims& dims, uint64_t seed, int64_t max_memory) {
  Reference r;
  std::vector<eval::Tensor> inputs;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Param& p = fn.params[i];
    eval::Tensor t = eval::random_normal(eval::concrete_shape(p.type.shape, dims, p.annotation_loc), seed, i);
    std::vector<float> f(t.data.size());
    for (size_t k = 0; k < f.size(); ++k)
      f[k] = static_cast<float>(t.data[k] = eval::round_to(t.data[k], p.type.dtype));
    inputs.push_back(std::move(t));
    r.inputs.push_back(std::move(f));
  }
  eval::EvalOptions options;
  options.bounds = true;
  options.max_memory_bytes = max_memory;
  r.want = eval::evaluate_bounded(fn, inputs, dims, options);
  for (const eval::Tensor& t : r.want.values) r.output_sizes.push_back(t.data.size());
  return r;
}

// Why no candidate was valid: the closest wrong one's error against its
// bound, else the first candidate's failure.
std::string no_valid_kernel_text(const std::vector<Candidate>& all) {
  const Candidate* closest = nullptr;
  for (const Candidate& c : all)
    if (c.measured && c.status.rfind("wrong result", 0) == 0 && (!closest || c.max_error < closest->max_error))
      closest = &c;
  if (closest)
    return "the closest, " + closest->name + ", is outside its rounding bound (" +
           std::to_string(static_cast<int>(eval::kBoundFactor)) + " E) at " +
           closest->status.substr(std::string("wrong result: ").size());
  return "first: " + (all.empty() ? std::string("no candidates") : all[0].status);
}

// One search: its settings, state and the steps of `axon optimize` after
// the cache was asked.
class Search {
 public:
  Search(const ir::Program& program, const ir::Dims& dims, const hw::Description& target, const Settings& settings,
         std::optional<tune::Cache>& cache, const tune::CacheKey& key, fs::path out_dir,
         std::chrono::steady_clock::time_point t0)
      : settings_(settings),
        target_(target),
        cache_(cache),
        key_(key),
        out_dir_(std::move(out_dir)),
        work_(out_dir_ / "candidates"),
        t0_(t0),
        prover_(),
        synth_(target, prover_),
        bar_on_(!settings.quiet && isatty(fileno(stderr)) != 0 && std::getenv("TERM") != nullptr &&
                std::string(std::getenv("TERM")) != "dumb"),
        bar_(std::cerr, bar_on_) {
    result_.program = &program;
    result_.dims = dims;
    result_.target = &target;
    result_.options = settings.search;
    result_.cache_state = cache ? "miss" : "off";
    result_.synth = &synth_;
  }

  // The nu-graph's variants, the reference, the space ranked by the model.
  void explore(const SourceLoc& out_loc) {
    const SearchOptions& o = settings_.search;
    const ir::Program& program = *result_.program;
    variants_ = program_variants(program, o.no_algebra ? 1 : o.variants, o.no_algebra ? 0 : 3);
    const Variants& variants = variants_;
    result_.phases.algebra = variants.seconds;
    say(program.kernel.name + " at " + dims_text(result_.dims) + " for " + target_.name + ": " +
        std::to_string(variants.functions.size()) + " variant(s) from the nu-graph (" +
        std::to_string(variants.proved) + " proved rewrites, " + number(variants.seconds) + " s)");
    auto t_ref = std::chrono::steady_clock::now();
    reference_ = reference_results(program.kernel, result_.dims, o.seed, settings_.max_memory);
    result_.phases.reference = seconds_since(t_ref);
    std::error_code ec;
    fs::create_directories(work_, ec);
    if (ec) throw UserError(out_loc, "cannot create '" + work_.string() + "': " + ec.message());
    auto t_lower = std::chrono::steady_clock::now();
    result_.candidates = generate(variants, result_.dims, target_, synth_, settings_, result_.space);
    result_.phases.lowering = seconds_since(t_lower);
    const SearchSpace& s = result_.space;
    say("  space: " + number(s.points) + " points (" + std::to_string(s.plans) + " plans x tilings); " +
        std::to_string(s.generated) + " distinct kernels ranked by the cost model (" + std::to_string(s.duplicates) +
        " duplicates); measuring " + std::to_string(s.selected));
  }

  // Writes the selected candidates, takes what an interrupted search measured
  // from the cache, and compiles the rest in batches.
  void compile() {
    std::map<std::string, tune::CandidateRecord> measured;
    if (cache_) measured = cache_->candidates(key_);
    std::map<size_t, std::string> faults = injected_faults();
    std::vector<Candidate*> todo;
    for (size_t i = 0; i < result_.candidates.size() && result_.candidates[i].selected; ++i) {
      Candidate& c = result_.candidates[i];
      if (faults.count(i)) {  // the fault is part of the kernel: it gets its own identity
        c.kernel.source = inject_fault(c.kernel.source, faults.at(i));
        c.id = tune::text_digest(c.kernel.source + "\n" + target_.compile_flags);
      }
      c.dir = (work_ / ("c" + std::to_string(i))).string();
      write_kernel_files(c);
      if (measured.count(c.id)) resume(c, measured.at(c.id));
      // A valid record is compiled and timed again: its time was taken in
      // another run, under another load, and the choice compares times of
      // this one (a failure, the costly part of a search, is not retried).
      if (!c.from_record || c.valid) todo.push_back(&c);
    }
    state_.total = static_cast<int>(result_.space.selected);
    auto t_compile = std::chrono::steady_clock::now();
    compile_batches(todo, work_, target_, settings_.jobs, [&] {
      std::lock_guard<std::mutex> guard(state_lock_);
      state_.compiled = 0;
      for (const Candidate* c : todo) state_.compiled += c->compiled || !c->status.empty();
      state_.elapsed = seconds_since(t0_);
      bar_.update(state_);
    });
    result_.phases.compile = seconds_since(t_compile);
  }

  // Runs, validates and times the compiled candidates one at a time, within
  // the budget; returns the fastest valid one (null when none is).
  const Candidate* measure() {
    const Candidate* best = nullptr;
    auto better = [&](const Candidate& c) { return c.valid && (!best || c.seconds < best->seconds); };
    for (Candidate& c : result_.candidates) {
      if (!c.selected) break;
      if ((c.from_record && !c.valid) || !c.compiled) {
        if (!c.compiled) record(c);
        continue;
      }
      c.valid = false;  // a valid record counts once timed again, below
      if (best && seconds_since(t0_) > settings_.search.budget_seconds) {
        c.status = "cut off: --budget " + number(settings_.search.budget_seconds) + " s";
        ++result_.space.cut_by_budget;
        continue;
      }
      if (!cpu_supports(target_)) {
        c.status = "compiled, not run: this CPU lacks " + target_.requires_cpu;
        continue;
      }
      run(c);
      if (better(c)) best = &c;
      {
        std::lock_guard<std::mutex> guard(state_lock_);
        ++state_.measured;
        c.valid ? ++state_.valid : ++state_.failed;
        if (best) state_.best_seconds = best->seconds, state_.best_name = best->name;
        state_.elapsed = seconds_since(t0_);
        bar_.update(state_, true);
      }
      if (!bar_on_) say("  " + c.name + ": " + (c.valid ? "valid, median " + ms(c.seconds) + " ms" : c.status));
    }
    bar_.finish();
    confirm();
    for (const Candidate& c : result_.candidates)
      if (c.valid && (!best || c.seconds < best->seconds)) best = &c;
    return result_.best = best;
  }

  // OUT/: the chosen kernel compiled alone and checked again, its files, the
  // reports; the cache entry.
  void finish() {
    const Candidate& best = *result_.best;
    tune::CompileResult alone =
        tune::compile_shared(best.dir + "/kernel.cpp", (out_dir_ / "kernel.so").string(), target_.compile_flags);
    if (!alone.ok) throw InternalError(__FILE__, __LINE__, "the chosen kernel does not compile alone: " + alone.log);
    tune::RunRequest check = request((out_dir_ / "kernel.so").string(), "axon_kernel_packed");
    check.warmup = 0;
    tune::RunResult ran = tune::run_isolated(check);
    std::string why = ran.message;
    if (ran.status == tune::RunResult::Status::Ok) {
      eval::BoundCheck checked = eval::check_within_bound(ran.outputs, reference_.want);
      if (!checked.ok) why = "wrong result: " + checked.text();
    }
    if (!why.empty() || ran.status != tune::RunResult::Status::Ok)
      throw InternalError(__FILE__, __LINE__, "the chosen kernel, compiled alone, fails its check: " + why);
    write_file((out_dir_ / "kernel.h").string(), best.kernel.header);
    write_file((out_dir_ / "kernel.cpp").string(), best.kernel.source);
    write_file((out_dir_ / "kernel.json").string(), best.kernel.info_json + "\n");
    result_.phases.total = seconds_since(t0_);
    write_file((out_dir_ / "report.md").string(), report_markdown(result_));
    write_file((out_dir_ / "report.html").string(), report_html(result_));
    write_file((out_dir_ / "search.json").string(), search_json(result_));
    if (cache_) {
      tune::CachedKernel cached;
      for (const std::string& name : kKernelFiles) cached.files[name] = read_file((out_dir_ / name).string());
      cached.candidate = best.name;
      cached.seconds = best.seconds;
      cached.summary = cached.files["search.json"];
      cache_->store(key_, cached);
    }
  }

  // What `axon optimize` prints last, once OUT/ is in place.
  std::string chosen_line(const std::string& out_name) const {
    std::ostringstream t;
    t << "chose " << result_.best->name << ": median " << std::setprecision(4) << result_.best->seconds * 1e3
      << " ms; wrote " << out_name << "/{" << kFileList << "} (" << std::setprecision(3) << result_.phases.total
      << " s, " << synth_.candidates_proved() << " lowerings proved)\n";
    return t.str();
  }

  // OUT/report.md and search.json of a search without a valid kernel: every
  // candidate's error as a fraction of its bound.
  void write_failure_report() {
    result_.phases.total = seconds_since(t0_);
    write_file((out_dir_ / "report.md").string(), report_markdown(result_));
    write_file((out_dir_ / "search.json").string(), search_json(result_));
  }

  const SearchResult& result() const { return result_; }
  const fs::path& work() const { return work_; }

 private:
  static std::string number(double value) {
    std::ostringstream t;
    t << std::setprecision(3) << value;
    return t.str();
  }
  static std::string ms(double seconds) { return std::to_string(seconds * 1e3); }
  void say(const std::string& text) const {
    if (!settings_.quiet) std::cout << text << std::endl;
  }

  tune::RunRequest request(const std::string& so_path, const std::string& symbol) const {
    tune::RunRequest r;
    r.so_path = so_path;
    r.symbol = symbol;
    r.inputs = reference_.inputs;
    r.output_sizes = reference_.output_sizes;
    r.timeout_s = settings_.limits.wall_seconds;
    r.memory_limit_bytes = settings_.limits.memory_bytes;
    r.cpu_limit_s = settings_.limits.cpu_seconds;
    return r;
  }

  void run(Candidate& c) {
    tune::RunRequest r = request(c.so_path, c.symbol);
    r.warmup = 2;
    r.reps = 5;
    r.min_seconds = 0.2;
    // Memory-bound kernels whose data would stay in the caches between calls
    // are timed from cold caches: the largest cache is overwritten before each call.
    int64_t largest_cache = 0;
    for (size_t m = 1; m < target_.memories.size(); ++m)
      largest_cache = std::max(largest_cache, target_.memories[m].capacity_bytes);
    if (c.memory_bound && c.footprint_bytes < largest_cache) {
      r.flush_bytes = static_cast<size_t>(largest_cache) * 3 / 2;
      r.reps = 15;
      r.min_seconds = 0;
    }
    auto t_run = std::chrono::steady_clock::now();
    tune::RunResult ran = tune::run_isolated(r);
    c.measured = true;
    eval::BoundCheck checked;
    if (ran.status == tune::RunResult::Status::Ok) checked = eval::check_within_bound(ran.outputs, reference_.want);
    c.max_error = checked.worst;  // as a fraction of the bound
    if (ran.status != tune::RunResult::Status::Ok) {
      c.status = ran.message;
    } else if (!checked.ok) {
      c.status = "wrong result: " + checked.text();
    } else {
      c.valid = true;
      c.seconds = ran.median();
    }
    result_.phases.measure += seconds_since(t_run);
    c.finished_at = seconds_since(t0_);
    record(c);  // committed before it is reported
  }

  // The fastest few, timed again in the opposite order; each keeps the lower
  // of its two medians. Another process's load only ever slows a run down,
  // so one slowed run no longer decides the choice.
  void confirm() {
    const size_t kConfirmed = 3;
    std::vector<Candidate*> top;
    for (Candidate& c : result_.candidates)
      if (c.valid) top.push_back(&c);  // every valid one was timed in this run
    std::stable_sort(top.begin(), top.end(),
                     [](const Candidate* a, const Candidate* b) { return a->seconds < b->seconds; });
    if (top.size() < 2) return;
    top.resize(std::min(top.size(), kConfirmed));
    for (auto it = top.rbegin(); it != top.rend(); ++it) {
      if (seconds_since(t0_) > settings_.search.budget_seconds) break;
      Candidate& c = **it;
      Candidate again = c;
      again.valid = false;
      again.status.clear();
      run(again);
      if (again.valid) c.seconds = std::min(c.seconds, again.seconds);
      c.confirmed = again.valid;
      record(c);
    }
  }

  // Every measured candidate goes to the cache at once, so an interrupted
  // search resumes without measuring it again.
  void record(const Candidate& c) {
    if (cache_ && !c.id.empty())
      cache_->record_candidate(key_, c.id,
                               {c.valid      ? "ok"
                                : c.compiled ? "failed"
                                             : "compile error",
                                c.valid, c.seconds, c.max_error, c.status});
  }

  void resume(Candidate& c, const tune::CandidateRecord& r) {
    c.from_record = c.measured = true;
    c.compiled = !r.valid && r.status != "compile error";  // a valid one is compiled again, to be re-timed
    c.valid = r.valid;
    c.seconds = r.seconds;
    c.max_error = r.max_error;
    c.status = r.detail;
    ++result_.resumed;
    say("  " + c.name + ": measured before (" + (c.valid ? "valid; timed again" : c.status) + ")");
  }

  const Settings& settings_;
  const hw::Description& target_;
  std::optional<tune::Cache>& cache_;
  const tune::CacheKey& key_;
  fs::path out_dir_, work_;
  std::chrono::steady_clock::time_point t0_;
  smt::Prover prover_;
  isa::Synthesizer synth_;
  Variants variants_;  // owns the nodes of every candidate's function
  SearchResult result_;
  Reference reference_;
  bool bar_on_;  // a progress bar on a terminal, else a line per candidate
  tune::ProgressBar bar_;
  tune::ProgressState state_;
  std::mutex state_lock_;
};

int optimize(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  const Word* entry_word = args.last("--entry");
  ir::Program program =
      lang::load_program(file.text, option_text(args, "--entry"), entry_word ? entry_word->loc : SourceLoc{});
  const Word* out_word = args.last("-o");
  if (!out_word) throw UserError(command.loc, "optimize needs an output folder: -o OUT/");
  tile::check_plan_size(program.kernel);
  ir::Dims given;
  if (const Word* w = args.last("--dims")) given = parse_dims(*w, program);
  ir::Dims dims = eval::bind_dims(program.kernel, given,
                                  std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
  hw::Description target = load_target(args, "cpu");
  const SourceLoc target_loc = args.last("--target") ? args.last("--target")->loc : command.loc;
  if (target.target != "cpu")
    throw UserError(target_loc, "optimize emits code for cpu targets; " + target.name + " is a " + target.target +
                                    " target (use axon lower)");
  Settings settings = read_settings(args);

  // OUT/ is replaced whole, at the end, by what this run wrote (support/files.h).
  std::optional<StagedFolder> staged;
  try {
    staged.emplace(out_word->text, own_names());
  } catch (const FileError& e) {
    throw UserError(out_word->loc, e.what());
  }
  auto t0 = std::chrono::steady_clock::now();
  std::optional<tune::Cache> cache = open_cache(args);
  tune::CacheKey key = cache_key(program, dims, target, settings_text(settings));
  if (cache && answer_from_cache(*cache, key, *staged, *out_word, t0)) return 0;

  Search search(program, dims, target, settings, cache, key, staged->path(), t0);
  search.explore(out_word->loc);
  search.compile();
  if (!search.measure()) {
    // What the search did, its report and candidates, goes beside OUT/,
    // which stays as it was.
    std::string failed = out_word->text;
    while (failed.size() > 1 && failed.back() == '/') failed.pop_back();
    failed += ".failed";
    if (cpu_supports(target)) search.write_failure_report();
    try {
      staged->commit_to(failed);
    } catch (const FileError& e) {
      failed = "(nowhere: " + std::string(e.what()) + ")";
    }
    std::string where = failed + "/candidates";
    if (!cpu_supports(target))
      throw UserError(target_loc, "this CPU cannot run code for " + target.name + " (it needs " + target.requires_cpu +
                                      "): the candidates were emitted and compiled in " + where +
                                      " but none could be validated or timed; " + out_word->text +
                                      " was left as it was");
    throw NoValidKernelError(program.kernel.loc, "no candidate kernel was valid; " +
                                                     no_valid_kernel_text(search.result().candidates) + "; see " +
                                                     failed + "/report.md and " + where + " (" + out_word->text +
                                                     " was left as it was)");
  }
  search.finish();
  commit(*staged, *out_word);
  std::cout << search.chosen_line(out_word->text);
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
      "                     [--no-algebra] [--no-fusion] [--default-tiling] [--no-tuning]\n\n"
      "The search space is every proven variant of the nu-graph (as `axon explore`) x fusion (element-wise\n"
      "chains; epilogues: an element-wise consumer of a contraction or reduction applied as its result is\n"
      "stored; row groups: consecutive loop nests over the same rows inside one loop over them, so a row\n"
      "stays in cache; all three, without row groups, chains only, or none) x every valid tiling of every\n"
      "loop nest (register tile MR x NV, one thread or all cores).\n"
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
      "The fastest valid one is compiled alone and checked again. When none is valid, OUT/ gets\n"
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
      "--target cpu picks hw/x86-avx512.json when this CPU has AVX-512, else hw/x86-avx2.json.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"-o", "DIR", "the output folder (created)"},
       {"--target", "T", "cpu (default), or a description file hw/NAME.json"},
       {"--budget", "S",
        "seconds for the whole search: 90, 90s or 2m (default 90); candidates\n"
        "not measured by then are cut off (one at least is always measured)"},
       {"--max-candidates", "N", "candidates compiled and measured, at most (default 8)"},
       {"--variants", "N", "variants of the nu-graph to try, the original included (default 4)"},
       {"--seed", "S", "seed of the random validation inputs (default 0)"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--no-algebra", "", "ablation: the program as written, no nu-graph variants"},
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
       {"--quiet", "", "print only the final line"},
       {"--help", "", "show this help"}},
      optimize};
  return command;
}

}  // namespace axon::cli
