#include "targets/cpu.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "emit/cpu.h"
#include "support/files.h"
#include "tile/tiling.h"
#include "tune/cache.h"
#include "tune/cost.h"
#include "tune/runner.h"

namespace axon::targets {
namespace {

namespace fs = std::filesystem;

// The model's estimate of a kernel: the stages' times, with a row group's
// re-reads of rows served from the level that holds a row, and its members'
// operands shared by all rows read again for each block of rows; whether memory bounds it
// more than compute; the bytes of its inputs and outputs.
search::Estimate estimate(const tile::Plan& plan, const emit::CpuKernel& kernel, const hw::Description& target) {
  search::Estimate result;
  double memory = 0, compute = 0;
  std::map<int, double> resident;  // buffers a row group's earlier members touched: bytes per row
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const emit::StageReport& r = kernel.stages[i];
    const tile::Stage& stage = plan.stages[i];
    if (r.row_group < 0 || r.row_group == static_cast<int>(i)) resident.clear();
    tune::StageEstimate e = tune::estimate_stage(plan, stage, r.tiling.params, r.step_cost, target, resident);
    if (r.row_group >= 0) {
      e = tune::with_memory_seconds(
          e, tune::row_group_reread_seconds(plan, stage, r.tiling.params, r.row_loops, r.row_block, target));
      double rows = 1;
      for (int d = 0; d < r.row_loops; ++d) rows *= static_cast<double>(stage.extents[static_cast<size_t>(d)]);
      rows /= static_cast<double>(r.row_block);  // what one iteration of the group's loop touches
      auto touch = [&](int b) {
        resident[b] = 4 * static_cast<double>(plan.buffers[static_cast<size_t>(b)].elements()) / rows;
      };
      for (const tile::Access& a : stage.leaves) touch(a.buffer);
      touch(stage.out.buffer);
    }
    result.seconds += e.seconds;
    memory += e.memory_seconds;
    compute += e.compute_seconds;
  }
  result.memory_bound = memory > compute;
  result.compute_seconds = compute;
  for (const tile::Buffer& b : plan.buffers)
    if (b.kind != tile::Buffer::Kind::Scratch) result.footprint_bytes += 4 * b.elements();
  return result;
}

std::string stage_text(const emit::StageReport& s, size_t i) {
  std::ostringstream r;
  const tile::TileParams& p = s.tiling.params;
  r << "### stage " << i << ": " << s.what << "\n\n- tiling: vector loop " << p.vec_dim << ", W=" << p.lanes
    << ", rows loop " << p.rows_dim << ", MR=" << p.mr << ", NV=" << p.nv << ", threads=" << p.threads
    << (p.k_block > 0 ? ", fold in blocks of " + std::to_string(p.k_block) : std::string())
    << (p.transpose ? ", gathers as transposes" : "") << (p.stream ? ", streaming stores" : "") << " ("
    << s.tiling.valid
    << " of " << s.tiling.enumerated << " register tiles valid)\n";
  for (const tile::TileConstraint& c : s.tiling.constraints)
    r << "  - " << c.what << ": `" << c.lhs.str() << " <= " << c.bound << "`\n";
  r << "- instructions, by step (l0, l1, ... are the step's operands):\n";
  for (const std::string& l : s.listing) r << "  - `" << l << "`\n";
  return r.str() + "\n";
}

class CpuKernelHandle : public search::TargetKernel {
 public:
  CpuKernelHandle(emit::CpuKernel kernel, search::Estimate estimate, const std::string& flags)
      : kernel_(std::move(kernel)), estimate_(estimate), flags_(flags) {
    identity_ = tune::text_digest(kernel_.source + "\n" + flags_);
  }
  /// The same kernel with test-only statements in its packed wrapper.
  CpuKernelHandle(const CpuKernelHandle& other, const std::string& before_call, const std::string& after_call)
      : CpuKernelHandle(other) {
    hooks_.before_call = before_call;
    hooks_.after_call = after_call;
    kernel_.source = emit::kernel_source(kernel_, hooks_);
    identity_ = tune::text_digest(kernel_.source + "\n" + flags_);
  }
  std::string identity() const override { return identity_; }
  std::string tilings() const override {
    std::string t;
    for (const emit::StageReport& s : kernel_.stages) {
      const tile::TileParams& p = s.tiling.params;
      t += (t.empty() ? "" : " ") + std::to_string(p.mr) + "x" + std::to_string(p.nv) + "@" +
           std::to_string(p.threads) + (p.k_block > 0 ? "/k" + std::to_string(p.k_block) : "") +
           (p.vector_scan ? "" : "/lanes") + (p.transpose ? "/T" : "") + (p.stream ? "/nt" : "");
    }
    return t;
  }
  std::string stages_markdown() const override {
    std::string text;
    for (size_t i = 0; i < kernel_.stages.size(); ++i) text += stage_text(kernel_.stages[i], i);
    return text;
  }
  std::vector<fuse::RowGroup> row_groups() const override {
    std::vector<fuse::RowGroup> rows;
    const std::vector<emit::StageReport>& stages = kernel_.stages;
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].row_group < 0) continue;
      if (rows.empty() || rows.back().first != static_cast<size_t>(stages[i].row_group))
        rows.push_back({i, i, stages[i].row_loops, stages[i].row_block});
      rows.back().last = i;
    }
    return rows;
  }
  const std::string& source() const override { return kernel_.source; }
  std::string code() const override { return kernel_.parts.body + "\n" + emit::print_exports(kernel_, hooks_); }
  std::map<std::string, std::string> files() const override {
    return {{"kernel.h", kernel_.header}, {"kernel.cpp", kernel_.source}, {"kernel.json", kernel_.info_json + "\n"}};
  }
  search::Estimate estimate() const override { return estimate_; }

  const emit::CpuKernel& kernel() const { return kernel_; }
  /// Its exports in a batch: its body in namespace `ns`, each symbol + suffix.
  std::string exports(const std::string& ns, const std::string& suffix) const {
    emit::ExportNames names = hooks_;
    names.ns = ns;
    names.suffix = suffix;
    return emit::print_exports(kernel_, names);
  }

 private:
  emit::CpuKernel kernel_;
  emit::ExportNames hooks_;
  search::Estimate estimate_;
  std::string flags_, identity_;
};

const CpuKernelHandle& cpu_kernel(const search::TargetKernel& k) {
  const auto* handle = dynamic_cast<const CpuKernelHandle*>(&k);
  AXON_CHECK(handle != nullptr, "a kernel of another target handed to the cpu target");
  return *handle;
}

// The tilings to print for one plan, besides the heuristic one: every
// stage's options ranked by the model; the model's best for every stage,
// then, for the stages that cost most, their next options with the rest at
// their best. `points` grows by the size of this plan's tiling space. The
// instruction costs come from the heuristic schedule's selection: nothing is
// printed to rank.
std::vector<std::vector<tile::TileParams>> tiling_combinations(const tile::Plan& plan,
                                                               const emit::CpuSchedule& heuristic,
                                                               const emit::CpuSelection& selected,
                                                               const hw::Description& target, double& points) {
  std::vector<std::vector<std::pair<search::Estimate, tile::TileParams>>> ranked(plan.stages.size());
  double space = 1;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    std::vector<tile::TileParams> options = tile::tiling_options(plan.stages[i], heuristic.shape);
    for (const tile::TileParams& p : options)
      if (!p.stream) {  // streaming stores: one combination of their own, below
        tune::StageEstimate e = tune::estimate_stage(plan, plan.stages[i], p, selected.stages[i].step_cost, target);
        search::Estimate rank;
        rank.seconds = e.seconds;
        rank.compute_seconds = e.compute_seconds;
        ranked[i].push_back({rank, p});
      }
    // As the search ranks kernels: within the model's resolution, less compute
    // first (where memory bounds a stage, gathers as transposes before gathers).
    std::stable_sort(ranked[i].begin(), ranked[i].end(),
                     [](const auto& a, const auto& b) { return search::ranks_before(a.first, b.first); });
    if (ranked[i].empty()) ranked[i].push_back({search::Estimate{}, heuristic.stages[i].tiling.params});
    space *= static_cast<double>(std::max<size_t>(1, options.size()));
  }
  points += space;
  std::vector<tile::TileParams> best;
  for (const auto& options : ranked) best.push_back(options[0].second);
  std::vector<std::vector<tile::TileParams>> combos{best};
  std::vector<size_t> by_cost(plan.stages.size());
  for (size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](size_t a, size_t b) { return ranked[a][0].first.seconds > ranked[b][0].first.seconds; });
  // Contractions that a row group could run together take one register
  // tile's rows: the best with every register-tiled stage at the rows of the
  // costliest one, where that stage has such an option.
  {
    std::vector<tile::TileParams> aligned = best;
    std::optional<size_t> widest;
    for (size_t i = 0; i < best.size(); ++i)
      if (best[i].rows_dim >= 0 && (!widest || ranked[i][0].first.seconds > ranked[*widest][0].first.seconds))
        widest = i;
    bool changed = false;
    for (size_t i = 0; widest && i < best.size(); ++i) {
      if (best[i].rows_dim < 0 || best[i].mr == best[*widest].mr) continue;
      for (const auto& [estimate, p] : ranked[i])
        if (p.rows_dim == best[i].rows_dim && p.vec_dim == best[i].vec_dim && p.mr == best[*widest].mr &&
            p.k_block == 0) {
          aligned[i] = p, changed = true;
          break;
        }
    }
    if (changed) combos.push_back(aligned);
  }
  // Streaming stores, where offered, as one combination: the best with every
  // stage that may stream streaming. Not ranked among each stage's options:
  // where memory bounds a stage the model would rank every streaming option
  // first and leave no room to measure their ordinary twins, and streaming
  // loses where the arithmetic bounds the stage (measured: gelu at 4096 x 4096
  // on a 2-core Zen 4, 7.7-12.4 ms streaming against 5.5 ms).
  {
    std::vector<tile::TileParams> streaming = best;
    bool any = false;
    for (size_t i = 0; i < best.size(); ++i) {
      tile::TileParams p = best[i];
      p.stream = true;
      if (tile::may_stream(plan.stages[i], p, heuristic.shape)) streaming[i] = p, any = true;
    }
    if (any) combos.push_back(streaming);
  }
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

// The batch source, built from the kernels' parts: the prelude once, then
// each kernel's body in a namespace of its own and its exports with a suffix
// (ENTRY_cN, axon_kernel_packed_cN, axon_kernel_info_cN) calling into it.
std::string batch_source(const std::vector<const CpuKernelHandle*>& batch, std::vector<std::string>& symbols) {
  std::string out = batch.front()->kernel().parts.prelude;
  for (const CpuKernelHandle* c : batch) {
    AXON_CHECK(c->kernel().parts.prelude == batch.front()->kernel().parts.prelude,
               "kernels of one batch must share their description's prelude");
    std::string suffix = "_c" + c->identity().substr(0, 12);
    std::string ns = "axon" + suffix;
    symbols.push_back(std::string(emit::kPackedSymbol) + suffix);
    out +=
        "namespace " + ns + " {\n" + c->kernel().parts.body + "}  // namespace " + ns + "\n" + c->exports(ns, suffix);
  }
  return out;
}

// The test-only faults (search/pipeline.cpp), as statements of the packed wrapper.
struct Fault {
  const char* name;
  const char* before_call;
  const char* after_call;
};
constexpr Fault kFaults[] = {
    {"crash", "__builtin_trap();", ""},
    {"hang", "for (volatile int spin = 0;; spin = spin + 1) {\n  }", ""},
    {"memory", "void* hog = std::malloc(size_t{1} << 30);\n  if (!hog) return 1;\n  std::free(hog);", ""},
    {"wrong", "", "out[0][0] += 1.0f;"},
};

class CpuTarget : public search::Target {
 public:
  CpuTarget(const hw::Description& description, smt::Prover& prover)
      : description_(description), synth_(description_, prover) {}

  const hw::Description& description() const override { return description_; }
  std::string cannot_run() const override {
    return cpu_supports(description_) ? "" : "this CPU lacks " + description_.requires_cpu;
  }
  const isa::Synthesizer& synthesizer() const override { return synth_; }

  std::vector<search::KernelPtr> kernels(const tile::Plan& plan, const ir::Function& fn,
                                         const search::PointRequest& request, double& points) override {
    tile::TilingPolicy policy = request.default_tiling ? tile::TilingPolicy::Default : tile::TilingPolicy::Search;
    std::vector<search::KernelPtr> kernels;
    auto add = [&](emit::CpuKernel k) {
      search::Estimate e = estimate(plan, k, description_);
      kernels.push_back(std::make_shared<CpuKernelHandle>(std::move(k), e, description_.compile_flags));
    };
    // Schedule, select the instructions (with their costs), print: the
    // heuristic tiling first; its selection's costs rank the tile space.
    emit::CpuSchedule heuristic = emit::schedule_cpu(plan, fn, description_, synth_, policy, {}, request.fuse_rows);
    emit::CpuSelection selected = emit::select_cpu(plan, fn, heuristic, description_, synth_);
    add(emit::print_cpu(plan, fn, heuristic, selected, description_));
    if (!request.tiling_space) {
      points += 1;
      return kernels;
    }
    for (const std::vector<tile::TileParams>& combo :
         tiling_combinations(plan, heuristic, selected, description_, points)) {
      emit::CpuSchedule schedule = emit::schedule_cpu(plan, fn, description_, synth_, policy, combo, request.fuse_rows);
      add(emit::print_cpu(plan, fn, schedule, emit::select_cpu(plan, fn, schedule, description_, synth_),
                          description_));
    }
    return kernels;
  }

  search::KernelPtr with_fault(const search::TargetKernel& kernel, const std::string& fault) const override {
    for (const Fault& f : kFaults)
      if (fault == f.name) return std::make_shared<CpuKernelHandle>(cpu_kernel(kernel), f.before_call, f.after_call);
    return nullptr;
  }

  // Several kernels per translation unit, `jobs` units at once. A unit that
  // fails is split into single kernels, so one bad kernel costs only itself.
  std::vector<search::Built> compile(const std::vector<const search::TargetKernel*>& kernels,
                                     const std::string& work_dir, int jobs,
                                     const std::function<void()>& progress) override {
    std::vector<search::Built> built(kernels.size());
    if (kernels.empty()) return built;
    size_t per_unit =
        std::clamp<size_t>((kernels.size() + static_cast<size_t>(jobs) - 1) / static_cast<size_t>(jobs), 1, 6);
    std::vector<std::vector<size_t>> units;
    for (size_t i = 0; i < kernels.size(); i += per_unit) {
      units.emplace_back();
      for (size_t k = i; k < std::min(kernels.size(), i + per_unit); ++k) units.back().push_back(k);
    }
    std::mutex lock;
    std::atomic<size_t> next{0};
    std::function<void(const std::vector<size_t>&, const std::string&)> build = [&](const std::vector<size_t>& unit,
                                                                                    const std::string& name) {
      std::string cpp = (fs::path(work_dir) / (name + ".cpp")).string();
      std::string so = (fs::path(work_dir) / (name + ".so")).string();
      std::vector<const CpuKernelHandle*> batch;
      for (size_t k : unit) batch.push_back(&cpu_kernel(*kernels[k]));
      std::vector<std::string> symbols;
      write_user_file(cpp, batch_source(batch, symbols));
      tune::CompileResult r = tune::compile_shared(cpp, so, description_.compile_flags);
      if (!r.ok && unit.size() > 1) {
        for (size_t k = 0; k < unit.size(); ++k) build({unit[k]}, name + "_" + std::to_string(k));
        return;
      }
      std::lock_guard<std::mutex> guard(lock);
      for (size_t k = 0; k < unit.size(); ++k) built[unit[k]] = {r.ok, {so, symbols[k]}, r.ok ? "" : r.log};
      progress();
    };
    auto worker = [&] {
      for (size_t i; (i = next++) < units.size();) build(units[i], "batch" + std::to_string(i));
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::min<int>(jobs, static_cast<int>(units.size())); ++j) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    return built;
  }

  search::Built compile_alone(const search::TargetKernel& kernel, const std::string& dir) override {
    const CpuKernelHandle& k = cpu_kernel(kernel);
    for (const auto& [name, bytes] : k.files()) write_user_file((fs::path(dir) / name).string(), bytes);
    std::string so = (fs::path(dir) / "kernel.so").string();
    tune::CompileResult r =
        tune::compile_shared((fs::path(dir) / "kernel.cpp").string(), so, description_.compile_flags);
    return {r.ok, {so, emit::kPackedSymbol}, r.ok ? "" : r.log};
  }

  std::vector<std::string> artifact_files() const override { return {"kernel.so"}; }
  std::vector<std::string> printed_files() const override { return {"kernel.h", "kernel.cpp", "kernel.json"}; }

  tune::RunResult run(const search::TargetKernel& kernel, const search::Artifact& artifact,
                      const search::RunSpec& spec) override {
    tune::RunRequest r;
    r.so_path = artifact.path;
    r.symbol = artifact.symbol;
    r.inputs = *spec.inputs;
    r.output_sizes = spec.output_sizes;
    r.timeout_s = spec.timeout_s;
    r.memory_limit_bytes = spec.memory_limit_bytes;
    r.cpu_limit_s = spec.cpu_limit_s;
    if (!spec.timed) {
      r.warmup = 0;
      return tune::run_isolated(r);
    }
    r.warmup = 2;
    r.reps = 5;
    r.min_seconds = 0.2;
    // Memory-bound kernels whose data would stay in the caches between calls
    // are timed from cold caches: the largest cache is overwritten before each call.
    int64_t largest_cache = 0;
    for (size_t m = 1; m < description_.memories.size(); ++m)
      largest_cache = std::max(largest_cache, description_.memories[m].capacity_bytes);
    search::Estimate e = kernel.estimate();
    if (e.memory_bound && e.footprint_bytes < largest_cache) {
      r.flush_bytes = static_cast<size_t>(largest_cache) * 3 / 2;
      r.reps = 15;
      r.min_seconds = 0;
    }
    return tune::run_isolated(r);
  }

 private:
  hw::Description description_;
  isa::Synthesizer synth_;
};

}  // namespace

bool cpu_supports(const hw::Description& d) {
  const std::string& f = d.requires_cpu;
  if (f.empty()) return true;
  __builtin_cpu_init();
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (f == "sse2") return __builtin_cpu_supports("sse2");
  return false;
}

std::string cpu_vendor() {
  __builtin_cpu_init();
  if (__builtin_cpu_is("intel")) return "intel";
  if (__builtin_cpu_is("amd")) return "amd";
  return "";
}

std::string cpu_description_path(const std::string& hw) {
  const std::string here = cpu_vendor();
  for (const char* name : {"x86-avx512-intel.json", "x86-avx512.json"}) {
    std::string path = hw + "/" + name;
    if (!std::filesystem::exists(path)) continue;  // a folder of one's own descriptions may lack it
    hw::Description d = hw::load_description(path);
    if (cpu_supports(d) && (d.cpu_vendor.empty() || d.cpu_vendor == here)) return path;
  }
  return hw + "/x86-avx2.json";
}

std::unique_ptr<search::Target> make_cpu_target(const hw::Description& description, smt::Prover& prover) {
  return std::make_unique<CpuTarget>(description, prover);
}

}  // namespace axon::targets
