#include "targets/trn1.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>

#include "emit/nki.h"
#include "eval/npy.h"
#include "support/files.h"
#include "support/process.h"
#include "time/trn1.h"
#include "tune/cache.h"

namespace axon::targets {

namespace fs = std::filesystem;

std::string nki_sim_dir() {
  if (const char* env = std::getenv("AXON_SIM_DIR"); env && *env) return env;
  return AXON_SIM_DIR;
}

std::string nki_sim_python() {
  if (const char* env = std::getenv("AXON_SIM_PYTHON"); env && *env) return env;
  std::string venv = (fs::path(nki_sim_dir()).parent_path().parent_path() / ".sim-venv" / "bin" / "python").string();
  if (access(venv.c_str(), X_OK) == 0) return venv;
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

namespace {

class NkiKernel : public search::TargetKernel {
 public:
  NkiKernel(emit::NkiKernel k, std::vector<std::vector<int64_t>> inputs, std::vector<std::vector<int64_t>> outputs,
            double estimate)
      : k_(std::move(k)),
        estimate_(estimate),
        identity_(tune::text_digest(k_.source)),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)) {}
  std::string identity() const override { return identity_; }
  std::string tilings() const override { return k_.tilings; }
  std::string stages_markdown() const override {
    std::string t = "Instructions issued at these sizes, per engine:";
    for (const auto& [engine, n] : k_.counts.instructions) t += " " + engine + " " + std::to_string(static_cast<int64_t>(n)) + ";";
    t += " HBM read " + std::to_string(static_cast<int64_t>(k_.counts.hbm_read_bytes)) + " B, written " +
         std::to_string(static_cast<int64_t>(k_.counts.hbm_write_bytes)) + " B.\n\n";
    return t + "```python\n" + k_.source + "```\n";
  }
  std::vector<fuse::RowGroup> row_groups() const override { return k_.groups; }
  const std::string& source() const override { return k_.source; }
  std::string code() const override { return k_.source; }
  std::map<std::string, std::string> files() const override {
    return {{"kernel.py", k_.source}, {"kernel.json", info_json()}};
  }
  // What `axon exec` needs to call it: the function and its ports.
  std::string info_json() const {
    nlohmann::json j;
    j["target"] = "trn1";
    j["kernel"] = k_.entry;
    j["file"] = "kernel.py";
    auto ports = [](const std::vector<std::string>& names, const std::vector<std::string>& dtypes,
                    const std::vector<std::vector<int64_t>>& shapes) {
      nlohmann::json list = nlohmann::json::array();
      for (size_t i = 0; i < shapes.size(); ++i)
        list.push_back({{"name", names[i]}, {"dtype", dtypes[i]}, {"shape", shapes[i]}});
      return list;
    };
    j["inputs"] = ports(k_.input_names, k_.input_dtypes, inputs_);
    std::vector<std::string> outs;
    for (size_t i = 0; i < outputs_.size(); ++i) outs.push_back("out" + std::to_string(i));
    j["outputs"] = ports(outs, std::vector<std::string>(outs.size(), "f32"), outputs_);
    // What it executes at these sizes, counted from the emitted loops.
    nlohmann::json counts;
    for (const auto& [engine, n] : k_.counts.instructions) counts[engine] = static_cast<int64_t>(n);
    j["instructions"] = counts;
    j["hbm_read_bytes"] = static_cast<int64_t>(k_.counts.hbm_read_bytes);
    j["hbm_write_bytes"] = static_cast<int64_t>(k_.counts.hbm_write_bytes);
    return j.dump(2) + "\n";
  }
  // What ranks candidates before any is simulated (Trn1Target::estimate).
  search::Estimate estimate() const override { return {estimate_, false, 0}; }

  const emit::NkiKernel& nki() const { return k_; }
  const std::vector<std::vector<int64_t>>& input_shapes() const { return inputs_; }
  const std::vector<std::vector<int64_t>>& output_shapes() const { return outputs_; }

 private:
  emit::NkiKernel k_;
  double estimate_;
  std::string identity_;
  std::vector<std::vector<int64_t>> inputs_, outputs_;
};

std::string runner_script() { return (fs::path(nki_sim_dir()) / "axon_nki_run.py").string(); }

class Trn1Target : public search::Target {
 public:
  Trn1Target(const hw::Description& description, smt::Prover& prover)
      : description_(description), synth_(description_, prover) {}

  const hw::Description& description() const override { return description_; }
  std::string cannot_run() const override {
    if (!fs::exists(runner_script()))
      return "the NKI simulator is not at " + nki_sim_dir() + " (set AXON_SIM_DIR to an Axon checkout's sim/nki)";
    return "";
  }
  const isa::Synthesizer& synthesizer() const override { return synth_; }
  std::string scoring() const override {
    if (params_)
      return "the shortest time by the trn1 timing model (src/time: one NeuronCore-v2, parameters in " +
             description_.path.substr(description_.path.rfind('/') + 1) +
             "), of the instruction trace the NKI simulator records at the requested sizes (while it validates the "
             "candidate there, or in a dry run when the candidates are validated at smaller sizes)";
    return "the fewest instructions on the busiest engine, counted at the requested sizes; every candidate is "
           "validated under the NKI simulator (the description has no timing parameters)";
  }
  std::string timing() const override { return params_ ? "simulated" : "none"; }
  bool times_dry() const override { return params_.has_value(); }

  // The heuristic kernel (transposes by whichever the description's costs
  // say is cheaper, each element-wise step's cheapest instructions) and, in
  // the tiling space, each transpose forced and the element-wise steps spread
  // over the engines (equal kernels are one to the search).
  std::vector<search::KernelPtr> kernels(const tile::Plan& plan, const ir::Function& fn,
                                         const search::PointRequest& request, double& points) override {
    std::vector<std::vector<int64_t>> ins, outs;
    for (int b : plan.inputs) ins.push_back(plan.buffers[static_cast<size_t>(b)].shape);
    for (int b : plan.outputs) outs.push_back(plan.buffers[static_cast<size_t>(b)].shape);
    std::vector<search::KernelPtr> out;
    using T = emit::NkiOptions::Transpose;
    std::vector<T> transposes{T::Cheaper};
    if (request.tiling_space && !request.default_tiling) transposes.insert(transposes.end(), {T::TensorEngine, T::Dma});
    using E = emit::NkiOptions::Engines;
    std::vector<std::pair<T, E>> points_here;
    for (T t : transposes) points_here.push_back({t, E::Cheapest});
    if (request.tiling_space && !request.default_tiling) points_here.push_back({T::Cheaper, E::Spread});
    for (auto [t, engines] : points_here) {
      emit::NkiOptions o;
      o.fuse_rows = request.fuse_rows;
      o.transpose = t;
      o.engines = engines;
      o.repropagate = request.algebra;
      o.step_variants = step_variants_;
      points += 1;
      emit::NkiKernel k = emit::emit_nki(plan, fn, description_, synth_, o);
      double e = estimate(k.counts);
      bool resident = k.resident > 0;
      out.push_back(std::make_shared<NkiKernel>(std::move(k), ins, outs, e));
      // The same point with every scratch buffer in HBM: SBUF space left to
      // the tiles (a kernel whose resident buffers crowd its tiles out of
      // SBUF fails the simulator's capacity rule at the requested sizes).
      if (resident && t == T::Cheaper && engines == E::Cheapest) {
        o.resident = false;
        points += 1;
        emit::NkiKernel h = emit::emit_nki(plan, fn, description_, synth_, o);
        double eh = estimate(h.counts);
        out.push_back(std::make_shared<NkiKernel>(std::move(h), ins, outs, eh));
      }
    }
    return out;
  }
  search::KernelPtr with_fault(const search::TargetKernel&, const std::string&) const override { return nullptr; }

  // The naive proxy: what a compiler without Axon's search would do, by the
  // same emitter, so that it is timed by the same model. It is a proxy, not
  // the Neuron compiler, and says so wherever it is shown.
  std::vector<search::Baseline> baselines(const tile::Plan& unfused, const ir::Function& original) override {
    emit::NkiOptions o;
    o.fuse_rows = false;
    o.repropagate = false;  // op-by-op lowering
    o.transpose = emit::NkiOptions::Transpose::Dma;
    std::vector<std::vector<int64_t>> ins, outs;
    for (int b : unfused.inputs) ins.push_back(unfused.buffers[static_cast<size_t>(b)].shape);
    for (int b : unfused.outputs) outs.push_back(unfused.buffers[static_cast<size_t>(b)].shape);
    search::Baseline naive{"naive",
                           "a proxy, not the Neuron compiler: the program as written, one stage per op (a transpose too) through HBM, "
                           "op-by-op lowering, transposes by element-strided DMA",
                           nullptr, ""};
    try {
      emit::NkiKernel k = emit::emit_nki(unfused, original, description_, synth_, o);
      double e = estimate(k.counts);
      naive.kernel = std::make_shared<NkiKernel>(std::move(k), ins, outs, e);
    } catch (const UserError& e) {
      naive.why_not = std::string("it cannot be emitted at these sizes: ") + e.what();
    }
    return {naive};
  }

  // The toolchain: kernel.py is the artifact (Python checks it when it runs).
  std::vector<search::Built> compile(const std::vector<const search::TargetKernel*>& kernels, const std::string& work_dir,
                                     int, const std::function<void()>& progress) override {
    std::vector<search::Built> built;
    for (const search::TargetKernel* k : kernels) {
      built.push_back(compile_alone(*k, (fs::path(work_dir) / ("nki-" + k->identity().substr(0, 16))).string()));
      progress();
    }
    return built;
  }
  search::Built compile_alone(const search::TargetKernel& kernel, const std::string& dir) override {
    const auto& k = dynamic_cast<const NkiKernel&>(kernel);
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string path = (fs::path(dir) / "kernel.py").string();
    try {
      write_file(path, k.source());
    } catch (const std::exception& e) {
      return {false, {}, e.what()};
    }
    return {true, {path, k.nki().entry}, ""};
  }
  // With a timing model, the chosen kernel's simulated timeline (Chrome trace).
  std::vector<std::string> artifact_files() const override {
    return params_ ? std::vector<std::string>{"timeline.json"} : std::vector<std::string>{};
  }
  std::vector<std::string> printed_files() const override { return {"kernel.py", "kernel.json"}; }

  tune::RunResult run(const search::TargetKernel& kernel, const search::Artifact& artifact,
                      const search::RunSpec& spec) override {
    const auto& k = dynamic_cast<const NkiKernel&>(kernel);
    std::string dir = (fs::path(artifact.path).parent_path() / ("run-" + std::to_string(runs_++))).string();
    std::string trace = spec.timed && params_ ? (fs::path(dir) / "trace.jsonl").string() : "";
    tune::RunResult r = run_nki(artifact.path, artifact.symbol, k.input_shapes(), k.nki().input_dtypes,
                                spec.dry ? std::vector<std::vector<float>>{} : *spec.inputs, k.output_shapes(),
                                spec.timeout_s, dir, trace, spec.dry);
    if (r.status == tune::RunResult::Status::Ok) {
      r.seconds = {k.estimate().seconds};
      if (!trace.empty()) {
        try {
          timing::Trace recorded = timing::load_trace(trace);
          timing::Timing t = timing::time_trace(recorded, *params_, spec.profile);
          r.seconds = {t.total_ns * 1e-9};
          if (spec.profile) {
            std::ostringstream chrome;
            timing::write_chrome_trace(recorded, t, chrome);
            r.profile_files["timeline.json"] = chrome.str();
            r.profile_markdown = timing::timing_markdown(t);
            r.profile_svg = timing::timeline_svg(t);
          }
        } catch (const std::exception& e) {
          r.status = tune::RunResult::Status::Failed;
          r.message = std::string("the timing model could not time the kernel's trace: ") + e.what();
        }
      }
    }
    std::error_code ec;
    fs::remove_all(dir, ec);  // its inputs and outputs are the search's, not the output folder's
    return r;
  }

 private:
  hw::Description description_;
  isa::Synthesizer synth_;
  // The instruction-level propagation's steps, kept across the kernels of a search.
  std::shared_ptr<emit::StepVariants> step_variants_ = std::make_shared<emit::StepVariants>();
  std::optional<timing::Trn1Params> params_ = timing_params(description_);
  int runs_ = 0;

  // A kernel's time before it is simulated, from what it issues: each
  // compute engine's instructions at their shortest initiation interval, and
  // the DMA's bytes over all queues plus each transfer's start latency spread
  // over the transfers in flight; the larger of the two. Without timing
  // parameters, the busiest engine's instruction count (in no unit).
  double estimate(const emit::NkiCounts& c) const {
    if (!params_) return c.busiest();
    const timing::Trn1Params& p = *params_;
    double compute_ns = 0, transfers = 0;
    for (const auto& [engine, n] : c.instructions) {
      if (engine == "dma") {
        transfers += n;
        continue;
      }
      for (const hw::Engine& e : description_.engines)
        if (e.name == engine && e.clock_ghz > 0) compute_ns = std::max(compute_ns, n * p.min_ii_cycles / e.clock_ghz);
    }
    double queues = std::max(1, p.dma_queues);
    double dma_ns = (c.hbm_read_bytes + c.hbm_write_bytes) / (queues * p.dma_queue_bytes_per_ns) +
                    transfers * p.dma_latency_ns / (queues * std::max(1, p.dma_outstanding));
    return (std::max(compute_ns, dma_ns) + p.launch_ns) * 1e-9;
  }

  // The timing model's parameters, when the description has them.
  static std::optional<timing::Trn1Params> timing_params(const hw::Description& d) {
    if (d.timing.empty()) return std::nullopt;
    return timing::trn1_params(d);
  }
};

}  // namespace

tune::RunResult run_nki(const std::string& kernel_py, const std::string& entry,
                        const std::vector<std::vector<int64_t>>& input_shapes, const std::vector<std::string>& dtypes,
                        const std::vector<std::vector<float>>& inputs,
                        const std::vector<std::vector<int64_t>>& output_shapes, double timeout_s,
                        const std::string& work_dir, const std::string& trace_path, bool dry) {
  tune::RunResult r;
  r.status = tune::RunResult::Status::Failed;
  fs::path dir(work_dir);
  try {
    fs::create_directories(dir);
    std::string ins, outs, types;
    for (size_t i = 0; i < dtypes.size(); ++i) types += (i ? "," : "") + dtypes[i];
    for (size_t i = 0; i < input_shapes.size() && dry; ++i) {
      // A dry run's inputs are shapes ("4096x8192"): zeros, no values read.
      std::string shape;
      for (int64_t d : input_shapes[i]) shape += (shape.empty() ? "" : "x") + std::to_string(d);
      ins += (i ? "," : "") + shape;
    }
    for (size_t i = 0; i < input_shapes.size() && !dry; ++i) {
      eval::Tensor t;
      t.shape = input_shapes[i];
      t.data.assign(inputs.at(i).begin(), inputs.at(i).end());
      std::string p = (dir / ("in" + std::to_string(i) + ".npy")).string();
      eval::write_npy(p, t, eval::NpyDtype::F32);
      ins += (i ? "," : "") + p;
    }
    for (size_t i = 0; i < output_shapes.size(); ++i)
      outs += (i ? "," : "") + (dir / ("out" + std::to_string(i) + ".npy")).string();
    std::string log = (dir / "sim.log").string();
    std::vector<std::string> argv{nki_sim_python(), runner_script(), "--kernel", kernel_py, "--entry", entry,
                                  "--inputs",       ins,             "--outputs", outs,     "--stats",
                                  (dir / "stats.json").string()};
    if (!types.empty()) argv.insert(argv.end(), {"--dtypes", types});
    if (dry) argv.push_back("--dry");
    if (!trace_path.empty()) argv.insert(argv.end(), {"--trace", trace_path});
    int status = run_limited(argv, log, timeout_s);
    if (status != 0) {
      r.status = status < 0 ? tune::RunResult::Status::TimedOut : tune::RunResult::Status::Failed;
      if (status < 0)
        r.message = "the NKI simulator did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s";
      else if (status == 1)
        r.message = "the NKI simulator rejected the kernel: " + first_line(log);
      else
        r.message = "the NKI simulator failed (exit " + std::to_string(status) + "; " + log + "): " + last_line(log);
      return r;
    }
    for (size_t i = 0; i < output_shapes.size() && !dry; ++i) {
      eval::Tensor t = eval::read_npy((dir / ("out" + std::to_string(i) + ".npy")).string());
      if (t.shape != output_shapes[i]) {
        r.message = "the NKI kernel returned shape " + ir::shape_str(t.shape) + " for output " + std::to_string(i) +
                    ", not " + ir::shape_str(output_shapes[i]);
        return r;
      }
      r.outputs.emplace_back(t.data.begin(), t.data.end());
    }
  } catch (const std::exception& e) {
    r.message = std::string("the NKI simulator could not be run: ") + e.what();
    return r;
  }
  r.status = tune::RunResult::Status::Ok;
  return r;
}

std::unique_ptr<search::Target> make_trn1_target(const hw::Description& description, smt::Prover& prover) {
  return std::make_unique<Trn1Target>(description, prover);
}

}  // namespace axon::targets
