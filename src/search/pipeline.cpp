#include "search/pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "eval/bind.h"
#include "eval/rounding.h"
#include "fuse/epilogue.h"
#include "ir/program.h"
#include "search/debug.h"
#include "search/numpy_time.h"
#include "support/files.h"

namespace axon::search {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string number(double value) {
  std::ostringstream t;
  t << std::setprecision(3) << value;
  return t.str();
}

std::string ms(double seconds) {
  return std::to_string(seconds * 1e3);
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

std::string candidate_name(size_t variant, Candidate::Fusion fusion, int tiling) {
  std::string name = variant == 0 ? "original" : "variant " + std::to_string(variant);
  if (fusion == Candidate::kEpilogues) name += " / no rows";
  if (fusion == Candidate::kChains) name += " / chains only";
  if (fusion == Candidate::kNone) name += " / unfused";
  if (tiling > 0) name += " / tiling " + std::to_string(tiling);
  return name;
}

// A test-only hook: AXON_TEST_INJECT="1=crash,2=hang,3=wrong,4=memory" makes
// those candidates (by index, 0 = the first measured) trap, spin forever,
// return a wrong first element, or first allocate 1 GiB, through the
// target's with_fault, so tests can check that the search records such
// candidates and goes on. Not for users.
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

}  // namespace

Reference reference_results(const ir::Function& fn, const ir::Dims& dims, uint64_t seed, int64_t max_memory) {
  Reference r;
  std::vector<eval::Tensor> inputs;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Param& p = fn.params[i];
    eval::Tensor t = eval::random_normal(eval::concrete_shape(p.type.shape, dims, p.annotation_loc), seed, i);
    std::vector<float> f(t.data.size());
    for (size_t k = 0; k < f.size(); ++k)
      f[k] = static_cast<float>(t.data[k] = eval::round_to(t.data[k], p.type.dtype));
    r.shapes.push_back(t.shape);
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

KernelPtr lower_program(const ir::Program& program, const ir::Dims& dims, const hw::Description& description) {
  smt::Prover prover;
  std::unique_ptr<Target> target = make_target(description, prover);
  // The search's first plan: element-wise chains, epilogues and row groups fused.
  tile::Plan plan = tile::plan_function(program.kernel, dims);
  fuse::fuse_epilogues(plan);
  PointRequest request;
  request.tiling_space = false;
  request.fuse_rows = true;
  double points = 0;
  std::vector<KernelPtr> kernels = target->kernels(plan, program.kernel, request, points);
  AXON_CHECK(!kernels.empty(), "a target printed no kernel for a plan");
  return kernels.front();
}

class Search::Impl {
 public:
  Impl(const ir::Program& program, const ir::Dims& dims, Target& target, const Options& options, tune::Cache* cache,
       const tune::CacheKey& key, std::string work_dir, Observer& observer)
      : options_(options),
        target_(target),
        cache_(cache),
        key_(key),
        work_(std::move(work_dir)),
        observer_(observer),
        t0_(Clock::now()),
        prover_(whole_proof_options()) {
    result_.program = &program;
    result_.dims = dims;
    result_.target = &target.description();
    result_.options = options;
    result_.cache_state = cache ? "miss" : "off";
    result_.synth = &target.synthesizer();
    result_.scoring = target.scoring();
    result_.timing = target.timing();
    for (const std::string& f : target.printed_files())
      if (f.size() > 3 && f.substr(f.size() - 3) == ".py") result_.code_file = f;
  }

  // The pipeline: one line per stage.
  bool run() {
    stage(
        "algebra", [&] { explore_variants(); }, result_.phases.algebra);
    stage(
        "reference", [&] { compute_reference(); }, result_.phases.reference);
    stage(
        "space", [&] { generate(); }, result_.phases.lowering);
    stage(
        "compile", [&] { compile(); }, result_.phases.compile);
    stage(
        "measure",
        [&] {
          measure();
          confirm();
        },
        result_.phases.measure);
    if (!result_.best) return false;
    stage(
        "proof", [&] { prove_variant(); }, result_.phases.algebra);
    stage(
        "numpy", [&] { time_numpy_baseline(); }, result_.phases.numpy);
    stage(
        "baselines", [&] { time_baselines(); }, result_.phases.baselines);
    return true;
  }

  // ---- the stages ----

  void explore_variants() {
    const ir::Program& program = *result_.program;
    result_.variants =
        program_variants(program, options_.no_algebra ? 1 : options_.variants, options_.no_algebra ? 0 : 3);
    const Variants& v = result_.variants;
    observer_.note(program.kernel.name + " at " + dims_text(result_.dims) + " for " + target_.description().name +
                   ": " + std::to_string(v.functions.size()) + " variant(s) from the nu-graph (" +
                   std::to_string(v.proved) + " proved rewrites, " + number(v.seconds) + " s)");
    if (debug_level() >= 2)
      for (size_t i = 0; i < v.functions.size(); ++i)
        debug_dump(2, "algebra", "variant " + std::to_string(i) + ":\n" + ir::print_numpy(v.functions[i]));
  }

  void compute_reference() {
    // A target that times dry validates at smaller sizes when the requested
    // ones are large; the reference at the requested sizes is then computed
    // only if some candidate needs it (full_reference).
    if (target_.times_dry()) {
      ir::Dims small = check_sizes(result_.dims);
      if (small != result_.dims) {
        try {
          check_reference_ = reference_results(result_.program->kernel, small, options_.seed, options_.max_memory);
          result_.check_dims = small;
        } catch (const UserError& e) {
          debug_dump(1, "reference", "not validating at " + dims_text(small) + ": " + e.what());
        }
      }
    }
    if (result_.check_dims.empty()) full_reference();
    std::error_code ec;
    fs::create_directories(work_, ec);
    if (ec) throw UserError({}, "cannot create '" + work_ + "': " + ec.message());
  }

  // Every variant x fusion choice x the target's tilings, printed,
  // deduplicated by identity, ranked by the target's cost model.
  void generate() {
    SearchSpace& space = result_.space;
    const Variants& variants = result_.variants;
    std::vector<Candidate>& all = result_.candidates;
    std::set<std::string> seen;
    space.variants = variants.functions.size();
    std::vector<Candidate::Fusion> fusion_choices{Candidate::kAll, Candidate::kEpilogues, Candidate::kChains,
                                                  Candidate::kNone};
    if (options_.no_fusion) fusion_choices = {Candidate::kNone};
    if (options_.no_tuning) fusion_choices = {Candidate::kChains};
    for (size_t v = 0; v < variants.functions.size(); ++v) {
      for (Candidate::Fusion fusion : fusion_choices) {
        int epilogues = 0;
        tile::Plan planned = plan_for(variants.functions[v], result_.dims, fusion, epilogues);
        bool rows = fusion == Candidate::kAll;
        if (fusion == Candidate::kEpilogues && epilogues == 0) continue;  // the same plan as kChains
        auto plan = std::make_shared<const tile::Plan>(std::move(planned));
        ++space.plans;
        PointRequest request;
        request.fuse_rows = rows;
        request.default_tiling = options_.default_tiling;
        request.algebra = !options_.no_algebra;
        request.tiling_space = !options_.default_tiling && !options_.no_tuning;
        std::vector<KernelPtr> kernels = target_.kernels(*plan, variants.functions[v], request, space.points);
        std::vector<KernelPtr> twins = check_twins(variants.functions[v], fusion, request, kernels.size());
        for (size_t k = 0; k < kernels.size(); ++k) {
          Candidate c;
          c.variant = v, c.fusion = fusion, c.tiling_index = static_cast<int>(k);
          c.pinned = fusion == Candidate::kChains && k == 0;
          c.name = candidate_name(v, fusion, static_cast<int>(k));
          c.fn = variants.functions[v];
          c.plan = plan;
          c.reduction = reduction_length(*plan);
          c.kernel = kernels[k];
          c.check_kernel = twins.empty() ? nullptr : twins[k];
          c.id = c.kernel->identity();
          c.estimate = c.kernel->estimate();
          if (!seen.insert(c.id).second) {
            ++space.duplicates;
            if (c.pinned)  // the kernel measured before tuning stays measured under the name it was found first
              for (Candidate& earlier : all)
                if (earlier.id == c.id) earlier.pinned = true;
            continue;
          }
          all.push_back(std::move(c));
        }
      }
    }
    space.generated = all.size();
    select();
    observer_.note("  space: " + number(space.points) + " points (" + std::to_string(space.plans) +
                   " plans x tilings); " + std::to_string(space.generated) +
                   " distinct kernels ranked by the cost model (" + std::to_string(space.duplicates) +
                   " duplicates); measuring " + std::to_string(space.selected));
    if (debug_level() >= 2) {
      std::string list;
      for (const Candidate& c : all)
        list += std::to_string(c.rank) + ". " + c.name + " [" + c.kernel->tilings() + "] model " +
                ms(c.estimate.seconds) + " ms" + (c.selected ? "" : " (cut off)") + "\n";
      debug_dump(2, "space", list);
    }
  }

  // Rank by the model (ranks_before), then by generation order (deterministic); select the
  // pinned ones (what the search measured before tuning existed, so tuning
  // never loses to it), then the model's order.
  void select() {
    std::vector<Candidate>& all = result_.candidates;
    SearchSpace& space = result_.space;
    std::stable_sort(all.begin(), all.end(),
                     [](const Candidate& a, const Candidate& b) { return ranks_before(a.estimate, b.estimate); });
    for (size_t i = 0; i < all.size(); ++i) all[i].rank = static_cast<int>(i + 1);
    size_t picked = 0;
    for (Candidate& c : all)
      if (c.pinned && picked < options_.max_candidates) c.selected = true, ++picked;
    for (Candidate& c : all)
      if (!c.selected && picked < options_.max_candidates) c.selected = true, ++picked;
    for (Candidate& c : all)
      if (!c.selected) {
        c.state = Candidate::State::CutOff;
        c.status = "cut off: --max-candidates " + std::to_string(options_.max_candidates);
      }
    space.selected = picked;
    space.cut_by_count = all.size() - picked;
    std::stable_partition(all.begin(), all.end(), [](const Candidate& c) { return c.selected; });
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
        KernelPtr faulty = target_.with_fault(*c.kernel, faults.at(i));
        AXON_CHECK(faulty != nullptr, "the target has no test faults");
        c.kernel = faulty;
        c.id = c.kernel->identity();
      }
      c.dir = (fs::path(work_) / ("c" + std::to_string(i))).string();
      write_candidate_files(c);
      // A valid record is compiled and timed again: its time was taken in
      // another run, under another load, and the choice compares times of
      // this one (a failure, the costly part of a search, is not retried).
      bool again = !measured.count(c.id) || resume(c, measured.at(c.id));
      if (again) todo.push_back(&c);
    }
    progress_.total = static_cast<int>(result_.space.selected);
    std::vector<const TargetKernel*> kernels;
    for (Candidate* c : todo) kernels.push_back(c->kernel.get());
    std::vector<Candidate*> twinned;
    for (Candidate* c : todo)
      if (c->check_kernel) kernels.push_back(c->check_kernel.get()), twinned.push_back(c);
    std::vector<Built> built = target_.compile(kernels, work_, options_.jobs, [&] {
      ++progress_.compiled;
      progress_.elapsed = seconds_since(t0_);
      observer_.progress(progress_, false);
    });
    for (size_t i = 0; i < twinned.size(); ++i) {
      const Built& b = built[todo.size() + i];
      twinned[i]->check_artifact = b.artifact;
      if (!b.ok) built[static_cast<size_t>(std::find(todo.begin(), todo.end(), twinned[i]) - todo.begin())] = b;
    }
    for (size_t i = 0; i < todo.size(); ++i) {
      Candidate& c = *todo[i];
      c.artifact = built[i].artifact;
      if (built[i].ok) {
        c.state = Candidate::State::Compiled;
      } else {
        c.state = Candidate::State::CompileError;
        c.status = "compile error";
        observer_.warning("a candidate kernel does not compile (a bug in Axon; the search goes on without it): " +
                          c.name + ":\n" + built[i].log);
      }
    }
  }

  // Runs, validates and times the compiled candidates one at a time, within
  // the budget.
  void measure() {
    const Candidate* best = nullptr;
    std::string cannot_run = target_.cannot_run();
    for (Candidate& c : result_.candidates) {
      if (!c.selected) break;
      if (c.state == Candidate::State::CompileError) {
        record(c);
        continue;
      }
      if (c.state == Candidate::State::Failed) continue;  // a failed record is not run again
      if (best && seconds_since(t0_) > options_.budget_seconds) {
        c.state = Candidate::State::CutOff;
        c.status = "cut off: --budget " + number(options_.budget_seconds) + " s";
        ++result_.space.cut_by_budget;
        continue;
      }
      if (!cannot_run.empty()) {
        c.state = Candidate::State::Compiled;
        c.status = "compiled, not run: " + cannot_run;
        continue;
      }
      run(c);
      if (c.valid() && (!best || c.seconds < best->seconds)) best = &c;
      ++progress_.measured;
      c.valid() ? ++progress_.valid : ++progress_.failed;
      if (best) progress_.best_seconds = best->seconds, progress_.best_name = best->name;
      progress_.elapsed = seconds_since(t0_);
      observer_.progress(progress_, true);
      observer_.candidate(c.name, c.valid() ? "valid, " + score_text(result_, c.seconds) : c.status);
    }
    observer_.done();
  }

  // The fastest few, timed again in the opposite order; each keeps the lower
  // of its two medians. Another process's load only ever slows a run down,
  // so one slowed run no longer decides the choice.
  void confirm() {
    const size_t kConfirmed = 3;
    std::vector<Candidate*> top;
    for (Candidate& c : result_.candidates)
      if (c.valid()) top.push_back(&c);  // every valid one was timed in this run
    std::stable_sort(top.begin(), top.end(),
                     [](const Candidate* a, const Candidate* b) { return a->seconds < b->seconds; });
    if (top.size() >= 2) {
      top.resize(std::min(top.size(), kConfirmed));
      for (auto it = top.rbegin(); it != top.rend(); ++it) {
        if (seconds_since(t0_) > options_.budget_seconds) break;
        Candidate& c = **it;
        Candidate again = c;
        again.state = Candidate::State::Compiled;
        again.status.clear();
        run(again);
        if (again.valid() && again.seconds < c.seconds)
          c.seconds = again.seconds, c.seconds_min = again.seconds_min, c.seconds_max = again.seconds_max;
        c.confirmed = again.valid();
        record(c);
      }
    }
    const Candidate* best = nullptr;
    for (const Candidate& c : result_.candidates)
      if (c.valid() && (!best || c.seconds < best->seconds)) best = &c;
    result_.best = best;
    if (best) debug_dump(1, "measure", "chose " + best->name + ": median " + ms(best->seconds) + " ms");
  }

  // The chosen variant's rewrites, proved whole: program == variant, for
  // every size (the local proofs merged them; this is the one the report shows).
  void prove_variant() {
    const Candidate& best = *result_.best;
    if (best.variant == 0) return;
    const ir::Function& original = result_.program->kernel;
    result_.variant_proof = prover_.prove_equal(original.outputs[0], best.fn.outputs[0]);
    debug_dump(
        1, "proof",
        std::string(smt::verdict_name(result_.variant_proof->verdict)) + " (" +
            (result_.variant_proof->method.empty() ? result_.variant_proof->detail : result_.variant_proof->method) +
            ")");
  }

  void time_numpy_baseline() {
    if (!options_.time_numpy) {
      result_.numpy.why_not = "not asked for";
      return;
    }
    if (result_.timing == "simulated") {
      result_.numpy.why_not = "the kernel's time is simulated for " + result_.target->name + ", not comparable with NumPy here";
      return;
    }
    if (!result_.scoring.empty()) {
      result_.numpy.why_not = "the kernel has no time to compare with (" + result_.target->name + " has no timing model)";
      return;
    }
    const Reference& ref = full_reference();
    result_.numpy = time_numpy(*result_.program, ref.inputs, ref.shapes, work_, 60);
    if (result_.numpy.measured)
      debug_dump(1, "numpy", "median " + ms(result_.numpy.median) + " ms");
    else
      debug_dump(1, "numpy", result_.numpy.why_not);
  }

  // The target's baseline kernels for the program as written, each checked
  // against the reference and timed like the candidates. A baseline that
  // fails is reported as such; it never stops the search.
  void time_baselines() {
    const ir::Function& original = result_.variants.functions.at(0);
    tile::PlanOptions unfused;
    unfused.fuse_elementwise = false;
    unfused.transposes_as_stages = true;
    tile::Plan plan = tile::plan_function(original, result_.dims, unfused);
    std::vector<Baseline> twins;
    if (!result_.check_dims.empty())
      twins = target_.baselines(tile::plan_function(original, result_.check_dims, unfused), original);
    for (const Baseline& b : target_.baselines(plan, original)) {
      BaselineTime t;
      t.name = b.name;
      t.label = b.label;
      std::string dir = (fs::path(work_) / ("baseline-" + b.name)).string();
      KernelPtr twin;
      for (const Baseline& w : twins)
        if (w.name == b.name) twin = w.kernel;
      Built built = b.kernel ? target_.compile_alone(*b.kernel, dir) : Built{};
      Built twin_built = twin ? target_.compile_alone(*twin, dir + "-check") : Built{};
      if (!b.kernel) {
        t.why_not = b.why_not;
      } else if (!built.ok || (twin && !twin_built.ok)) {
        t.why_not = "it does not compile: " + built.log + twin_built.log;
      } else {
        Checked ran = run_checked(*b.kernel, built.artifact, twin.get(), twin_built.artifact, false);
        if (!ran.why_not.empty()) {
          t.why_not = ran.why_not;
        } else {
          t.measured = true;
          t.seconds = ran.run.median();
        }
      }
      debug_dump(1, "baselines", b.name + ": " + (t.measured ? ms(t.seconds) + " ms" : t.why_not));
      result_.baselines.push_back(std::move(t));
    }
  }

  // ---- the output ----

  void write_output(const std::string& dir) {
    const Candidate& best = *result_.best;
    Built alone = target_.compile_alone(*best.kernel, dir);
    if (!alone.ok) throw InternalError(__FILE__, __LINE__, "the chosen kernel does not compile alone: " + alone.log);
    // A simulated time costs no more to take than the check, and its
    // profile (where the time went) goes into the reports.
    Built twin;
    if (best.check_kernel) {
      twin = target_.compile_alone(*best.check_kernel, (fs::path(work_) / "chosen-check").string());
      if (!twin.ok) throw InternalError(__FILE__, __LINE__, "the chosen kernel's twin does not compile alone: " + twin.log);
    }
    Checked checked = run_checked(*best.kernel, alone.artifact, best.check_kernel.get(), twin.artifact, true);
    const tune::RunResult& ran = checked.run;
    std::string why = checked.why_not;
    if (checked.timed_out)  // the machine, not a bug: it passed within the limit before
      throw UserError({}, "the chosen kernel's final check did not finish within --time-limit " +
                              number(options_.time_limit_seconds) +
                              " s this time, although it did while it was measured (is the machine busy?); run "
                              "again, or with a larger --time-limit");
    if (!why.empty() || ran.status != tune::RunResult::Status::Ok)
      throw InternalError(__FILE__, __LINE__, "the chosen kernel, compiled alone, fails its check: " + why);
    for (const auto& [name, bytes] : best.kernel->files()) write_user_file((fs::path(dir) / name).string(), bytes);
    for (const auto& [name, bytes] : ran.profile_files) write_user_file((fs::path(dir) / name).string(), bytes);
    result_.profile_markdown = ran.profile_markdown;
    result_.profile_svg = ran.profile_svg;
    result_.phases.total = seconds_since(t0_);
    write_user_file((fs::path(dir) / "report.md").string(), report_markdown(result_));
    write_user_file((fs::path(dir) / "report.html").string(), report_html(result_));
    write_user_file((fs::path(dir) / "search.json").string(), search_json(result_));
  }

  void write_failure_report(const std::string& dir) {
    result_.phases.total = seconds_since(t0_);
    write_user_file((fs::path(dir) / "report.md").string(), report_markdown(result_));
    write_user_file((fs::path(dir) / "search.json").string(), search_json(result_));
  }

  std::string no_valid_kernel_text() const {
    const Candidate* closest = nullptr;
    for (const Candidate& c : result_.candidates)
      if (c.measured && c.status.rfind("wrong result", 0) == 0 && (!closest || c.max_error < closest->max_error))
        closest = &c;
    if (closest)
      return "the closest, " + closest->name + ", is outside its rounding bound (" +
             std::to_string(static_cast<int>(eval::kBoundFactor)) + " E) at " +
             closest->status.substr(std::string("wrong result: ").size());
    return "first: " + (result_.candidates.empty() ? std::string("no candidates") : result_.candidates[0].status);
  }

  SearchResult result_;

 private:
  void stage(const std::string& name, const std::function<void()>& body, double& seconds) {
    Clock::time_point t = Clock::now();
    body();
    seconds += seconds_since(t);
    observer_.stage(name, seconds);
    debug_dump(1, name, number(seconds) + " s");
  }

  void write_candidate_files(const Candidate& c) {
    std::error_code ec;
    fs::create_directories(c.dir, ec);
    for (const auto& [name, bytes] : c.kernel->files()) write_user_file((fs::path(c.dir) / name).string(), bytes);
  }

  RunSpec spec(bool timed, const Reference& reference) const {
    RunSpec s;
    s.inputs = &reference.inputs;
    s.output_sizes = reference.output_sizes;
    s.timeout_s = options_.time_limit_seconds;
    s.memory_limit_bytes = options_.memory_limit_bytes;
    s.cpu_limit_s = options_.cpu_limit_seconds;
    s.timed = timed;
    return s;
  }

  void run(Candidate& c) {
    Checked checked = run_checked(*c.kernel, c.artifact, c.check_kernel.get(), c.check_artifact, false);
    const tune::RunResult& ran = checked.run;
    c.measured = true;
    c.max_error = checked.worst;  // as a fraction of the bound
    if (!checked.why_not.empty()) {
      c.state = Candidate::State::Failed;
      c.status = checked.why_not;
    } else {
      c.state = Candidate::State::Valid;
      c.seconds = ran.median();
      c.seconds_min = *std::min_element(ran.seconds.begin(), ran.seconds.end());
      c.seconds_max = *std::max_element(ran.seconds.begin(), ran.seconds.end());
    }
    c.finished_at = seconds_since(t0_);
    record(c);  // committed before it is reported
  }

  // A kernel run, checked against the reference, and timed. With a twin at
  // the check sizes, the twin is run and checked there and the kernel timed
  // dry at the requested sizes; otherwise the kernel does both.
  struct Checked {
    tune::RunResult run;  // the timed run
    std::string why_not;  // empty when valid
    double worst = 0;     // the check's largest error, as a fraction of the bound
    bool timed_out = false;
  };
  Checked run_checked(const TargetKernel& kernel, const Artifact& artifact, const TargetKernel* twin,
                      const Artifact& twin_artifact, bool profile) {
    Checked out;
    auto check = [&](const tune::RunResult& ran, const Reference& ref) {
      out.timed_out |= ran.status == tune::RunResult::Status::TimedOut;
      if (ran.status != tune::RunResult::Status::Ok) return out.why_not = ran.message, false;
      eval::BoundCheck checked = eval::check_within_bound(ran.outputs, ref.want);
      out.worst = checked.worst;
      if (!checked.ok) return out.why_not = "wrong result" + (twin ? " at " + dims_text(result_.check_dims) : "") + ": " + checked.text(), false;
      return true;
    };
    if (!twin) {
      RunSpec s = spec(true, full_reference());
      s.profile = profile;
      out.run = target_.run(kernel, artifact, s);
      check(out.run, full_reference());
      return out;
    }
    RunSpec small = spec(false, check_reference_);
    if (!check(target_.run(*twin, twin_artifact, small), check_reference_)) return out;
    RunSpec dry = spec(true, check_reference_);
    dry.dry = true;
    dry.inputs = nullptr;
    dry.profile = profile;
    out.run = target_.run(kernel, artifact, dry);
    out.timed_out |= out.run.status == tune::RunResult::Status::TimedOut;
    if (out.run.status != tune::RunResult::Status::Ok) out.why_not = out.run.message;
    return out;
  }

  // The reference at the requested sizes, computed on first use.
  const Reference& full_reference() {
    if (!full_reference_done_) {
      reference_ = reference_results(result_.program->kernel, result_.dims, options_.seed, options_.max_memory);
      full_reference_done_ = true;
    }
    return reference_;
  }

  // The plan of `fn` at `dims` for a fusion choice; `epilogues` the fold
  // epilogues fused into it.
  static tile::Plan plan_for(const ir::Function& fn, const ir::Dims& dims, Candidate::Fusion fusion, int& epilogues) {
    tile::PlanOptions plan_options;
    plan_options.fuse_elementwise = fusion != Candidate::kNone;
    tile::Plan plan = tile::plan_function(fn, dims, plan_options);
    epilogues = fusion == Candidate::kAll || fusion == Candidate::kEpilogues ? fuse::fuse_epilogues(plan) : 0;
    return plan;
  }

  // The kernels of `fn` at the check sizes, one per kernel of the requested
  // sizes' plan (the same choices in the same order); none (validate at the
  // requested sizes) when there are no check sizes or they do not pair up.
  std::vector<KernelPtr> check_twins(const ir::Function& fn, Candidate::Fusion fusion, const PointRequest& request,
                                     size_t count) {
    if (result_.check_dims.empty()) return {};
    try {
      int epilogues = 0;
      tile::Plan small = plan_for(fn, result_.check_dims, fusion, epilogues);
      double points = 0;
      std::vector<KernelPtr> twins = target_.kernels(small, fn, request, points);
      if (twins.size() == count) return twins;
      debug_dump(1, "space", "the check sizes give " + std::to_string(twins.size()) + " kernels, not " +
                                 std::to_string(count) + ": validating at the requested sizes");
    } catch (const UserError& e) {
      debug_dump(1, "space", std::string("no kernel at the check sizes (") + e.what() + "): validating at the requested sizes");
    }
    return {};
  }

  // Sizes to validate at: each size above 640 becomes 640 plus its remainder
  // modulo 128 (several 128-partition and 512-element tiles, the same partial
  // tile, the same divisibility by powers of two up to 128).
  static ir::Dims check_sizes(const ir::Dims& dims) {
    ir::Dims small = dims;
    for (auto& [name, value] : small)
      if (value > 640) value = 640 + value % 128;
    return small;
  }

  // Every measured candidate goes to the cache at once, so an interrupted
  // search resumes without measuring it again.
  void record(const Candidate& c) {
    if (cache_ && !c.id.empty())
      cache_->record_candidate(key_, c.id,
                               {c.valid()      ? "ok"
                                : c.compiled() ? "failed"
                                               : "compile error",
                                c.valid(), c.seconds, c.max_error, c.status});
  }

  // Takes an interrupted search's record; true when it is to be measured again.
  bool resume(Candidate& c, const tune::CandidateRecord& r) {
    c.from_record = c.measured = true;
    c.state = r.valid                       ? Candidate::State::Valid
              : r.status == "compile error" ? Candidate::State::CompileError
                                            : Candidate::State::Failed;
    c.seconds = r.seconds;
    c.max_error = r.max_error;
    c.status = r.detail;
    ++result_.resumed;
    observer_.note("  " + c.name + ": measured before (" + (c.valid() ? "valid; timed again" : c.status) + ")");
    if (!c.valid()) return false;
    c.state = Candidate::State::Generated;  // valid once timed again
    return true;
  }

  const Options& options_;
  Target& target_;
  tune::Cache* cache_;
  const tune::CacheKey& key_;
  std::string work_;
  Observer& observer_;
  Clock::time_point t0_;
  Reference reference_;        // at the requested sizes (full_reference)
  bool full_reference_done_ = false;
  Reference check_reference_;  // at the check sizes, when there are any
  Progress progress_;
  smt::Prover prover_;

  // The chosen variant's proof in one piece only confirms what its local
  // rewrites proved; it gets a budget, so a hard one cannot stall the search.
  static smt::ProverOptions whole_proof_options() {
    smt::ProverOptions o;
    o.budget_s = 30;
    return o;
  }
};

Search::Search(const ir::Program& program, const ir::Dims& dims, Target& target, const Options& options,
               tune::Cache* cache, const tune::CacheKey& key, std::string work_dir, Observer& observer)
    : impl_(std::make_unique<Impl>(program, dims, target, options, cache, key, std::move(work_dir), observer)),
      result_(impl_->result_) {}

Search::~Search() = default;

bool Search::run() {
  return impl_->run();
}
void Search::write_output(const std::string& dir) {
  impl_->write_output(dir);
}
void Search::write_failure_report(const std::string& dir) {
  impl_->write_failure_report(dir);
}
std::string Search::no_valid_kernel_text() const {
  return impl_->no_valid_kernel_text();
}

}  // namespace axon::search
