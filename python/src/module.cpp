// axon._axon: the extension module under the `axon` package (python/axon).
// Thin bindings: programs are loaded, sizes bound, programs verified and
// kernels searched by the same C++ code as the command line; the Python
// package shapes the results into its API.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>

#include "errors.h"
#include "eval/bind.h"
#include "library.h"
#include "search/api.h"
#include "search/target.h"
#include "search/verify.h"
#include "smt/prover.h"
#include "targets/register.h"

namespace nb = nanobind;

namespace axon::python {
namespace {

nb::list ports_list(const std::vector<Port>& ports) {
  nb::list list;
  for (const Port& p : ports) {
    nb::dict d;
    d["name"] = p.name;
    d["dtype"] = p.dtype;
    d["shape"] = nb::tuple(nb::cast(p.shape));
    list.append(d);
  }
  return list;
}

// A kernel's parameters and sizes, for jit and for timing NumPy.
nb::dict signature(const std::string& file, const std::optional<std::string>& text,
                   const std::optional<std::string>& entry) {
  ir::Program program = search::load_program(file, text, entry);
  nb::list params;
  for (const ir::Param& p : program.kernel.params) {
    nb::dict d;
    d["name"] = p.name;
    d["annotation"] = p.type.str();
    d["rank"] = p.type.rank();
    params.append(d);
  }
  nb::dict result;
  result["kernel"] = program.kernel.name;
  result["params"] = params;
  result["results"] = program.kernel.outputs.size();
  result["returns_tuple"] = program.kernel.returns_tuple;
  result["sizes"] = program.size_names();
  result["presets"] = program.size_presets;
  return result;
}

// The sizes that the given shapes (one per parameter, None where unknown)
// and `given` bind, by eval::bind_dims: the command line's rules.
ir::Dims bind_sizes(const std::string& file, const std::optional<std::string>& text,
                    const std::optional<std::string>& entry,
                    const std::vector<std::optional<std::vector<int64_t>>>& shapes, const ir::Dims& given) {
  ir::Program program = search::load_program(file, text, entry);
  const ir::Function& fn = program.kernel;
  if (shapes.size() != fn.params.size())
    throw ArgumentError("kernel '" + fn.name + "' takes " + std::to_string(fn.params.size()) + " array(s) but " +
                        std::to_string(shapes.size()) + " were given");
  std::vector<std::optional<eval::ProvidedInput>> provided(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i]) continue;
    eval::ProvidedInput in;
    in.tensor.shape = *shapes[i];  // bind_dims reads shapes only: no data is made
    in.source = "argument " + std::to_string(i + 1) + " ('" + fn.params[i].name + "')";
    provided[i] = std::move(in);
  }
  return eval::bind_dims(fn, given, provided);
}

nb::dict tensor_dict(const eval::Tensor& t) {
  nb::dict d;
  d["shape"] = nb::tuple(nb::cast(t.shape));
  d["data"] = t.data;
  return d;
}

nb::dict verify(const std::string& file_a, const std::optional<std::string>& text_a,
                const std::optional<std::string>& entry_a, const std::string& file_b,
                const std::optional<std::string>& text_b, const std::optional<std::string>& entry_b,
                std::optional<unsigned> rlimit) {
  search::VerifyRequest request;
  request.file_a = file_a;
  request.file_b = file_b;
  request.text_a = text_a;
  request.text_b = text_b;
  request.entry_a = entry_a;
  request.entry_b = entry_b;
  if (rlimit) request.prover.rlimit = *rlimit;
  search::VerifyResult verified;
  {
    nb::gil_scoped_release unlocked;
    verified = search::verify(request);
  }
  nb::dict result;
  result["verdict"] = smt::verdict_name(verified.verdict);
  nb::list per_result;
  for (const smt::ProofResult& r : verified.results) {
    nb::dict d;
    d["verdict"] = smt::verdict_name(r.verdict);
    d["method"] = r.method;
    d["detail"] = r.detail;
    d["seconds"] = r.seconds;
    d["obligations"] = r.smtlib.size();
    per_result.append(d);
  }
  result["results"] = per_result;
  result["unproved"] = verified.unproved();
  result["smtlib"] = verified.proof_scripts();
  result["counterexample"] = nb::none();
  if (const smt::Counterexample* cex = verified.counterexample()) {
    nb::dict c;
    c["result"] = verified.counterexample_result();
    c["sizes"] = cex->dims;
    nb::dict inputs;
    const ir::Function& fa = verified.a.kernel;
    for (size_t i = 0; i < cex->inputs.size() && i < fa.params.size(); ++i)
      inputs[fa.params[i].name.c_str()] = tensor_dict(cex->inputs[i]);
    c["inputs"] = inputs;
    c["index"] = nb::tuple(nb::cast(cex->index));
    c["f"] = cex->lhs;
    c["g"] = cex->rhs;
    c["relative_difference"] = cex->relative_difference();
    c["shapes_differ"] = std::isnan(cex->lhs) && std::isnan(cex->rhs) && cex->index.empty();
    result["counterexample"] = c;
  }
  return result;
}

// The command line's defaults (cli/optimize.cpp read_options and run_limits),
// so that a search from Python and one from `axon optimize` with the same
// settings share their cache entries; keyword arguments override them.
search::Options search_options(const nb::dict& given) {
  // Options left out keep 0 where 0 means the command line's default
  // (search::Options::with_defaults), so both share cache entries.
  search::Options o;
  auto at_least = [](const std::string& name, double value, double least) {
    if (!(value >= least)) throw ArgumentError(name + " must be at least " + std::to_string(static_cast<int>(least)));
    return value;
  };
  for (auto [key, value] : given) {
    std::string name = nb::cast<std::string>(key);
    if (name == "budget")
      o.budget_seconds = at_least(name, nb::cast<double>(value), 1);
    else if (name == "max_candidates")
      o.max_candidates = static_cast<size_t>(at_least(name, nb::cast<double>(value), 1));
    else if (name == "variants")
      o.variants = static_cast<size_t>(at_least(name, nb::cast<double>(value), 1));
    else if (name == "seed")
      o.seed = nb::cast<uint64_t>(value);
    else if (name == "jobs")
      o.jobs = static_cast<int>(at_least(name, nb::cast<double>(value), 1));
    else if (name == "time_limit")
      o.time_limit_seconds = at_least(name, nb::cast<double>(value), 1);
    else if (name == "memory_limit_mib")
      o.memory_limit_bytes = static_cast<size_t>(at_least(name, nb::cast<double>(value), 1)) << 20;
    else if (name == "cpu_limit")
      o.cpu_limit_seconds = at_least(name, nb::cast<double>(value), 1);
    else if (name == "max_memory")
      o.max_memory = static_cast<int64_t>(at_least(name, nb::cast<double>(value), 1));
    else if (name == "no_algebra")
      o.no_algebra = nb::cast<bool>(value);
    else if (name == "no_fusion")
      o.no_fusion = nb::cast<bool>(value);
    else if (name == "default_tiling")
      o.default_tiling = nb::cast<bool>(value);
    else if (name == "no_tuning")
      o.no_tuning = nb::cast<bool>(value);
    else if (name == "time_numpy")
      o.time_numpy = nb::cast<bool>(value);
    else
      throw ArgumentError("unknown search option '" + name + "'");
  }
  o.quiet = true;
  return o;
}

nb::dict optimize(const std::string& file, const std::optional<std::string>& text,
                  const std::optional<std::string>& entry, const std::string& dims, const ir::Dims& sizes,
                  const std::string& target, const nb::dict& options, const std::optional<std::string>& cache,
                  const std::string& out) {
  search::OptimizeRequest request;
  request.file = file;
  request.text = text;
  request.entry = entry;
  request.dims = dims;
  request.sizes = sizes;
  request.target = target;
  request.options = search_options(options);
  if (!cache) {
    request.cache = search::OptimizeRequest::Cache::Off;
  } else if (!cache->empty()) {
    request.cache = search::OptimizeRequest::Cache::Path;
    request.cache_path = *cache;
  }
  request.out = out;
  search::OptimizeSummary summary;
  {
    nb::gil_scoped_release unlocked;
    summary = search::optimize(request, nullptr);
  }
  nb::dict result;
  result["out"] = summary.out;
  result["candidate"] = summary.candidate;
  result["seconds"] = summary.seconds;
  result["numpy_seconds"] = summary.numpy_seconds;
  result["from_cache"] = summary.from_cache;
  result["cache_path"] = summary.cache_path;
  result["line"] = summary.line;
  return result;
}

}  // namespace
}  // namespace axon::python

NB_MODULE(_axon, m) {
  using namespace axon::python;
  register_error_translator();
  axon::targets::register_all();

  // Subclassed by axon.Kernel, whose calls then go straight to Library::call.
  nb::class_<Library>(m, "Library", nb::dynamic_attr())
      .def(nb::init<const std::string&>(), nb::arg("folder"))
      .def("__call__", &Library::call)
      .def_prop_ro("info_text", &Library::info)
      .def_prop_ro(
          "inputs", [](const Library& l) { return ports_list(l.inputs()); },
          "The parameters in order: dicts of name, dtype (as declared) and shape.")
      .def_prop_ro("outputs", [](const Library& l) { return ports_list(l.outputs()); });
  m.def("set_converter", &set_converter, nb::arg("converter"));
  m.def("signature", &signature, nb::arg("file"), nb::arg("text").none(), nb::arg("entry").none());
  m.def("bind_sizes", &bind_sizes, nb::arg("file"), nb::arg("text").none(), nb::arg("entry").none(), nb::arg("shapes"),
        nb::arg("given"));
  m.def("verify", &verify, nb::arg("file_a"), nb::arg("text_a").none(), nb::arg("entry_a").none(), nb::arg("file_b"),
        nb::arg("text_b").none(), nb::arg("entry_b").none(), nb::arg("rlimit").none());
  m.def(
      "set_hw_dir", [](const std::string& dir) { axon::search::set_hw_dir(dir); }, nb::arg("dir"));
  m.def("optimize", &optimize, nb::arg("file"), nb::arg("text").none(), nb::arg("entry").none(), nb::arg("dims"),
        nb::arg("sizes"), nb::arg("target"), nb::arg("options"), nb::arg("cache").none(), nb::arg("out"));
}
