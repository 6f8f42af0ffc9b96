// axon exec: run a kernel that `axon optimize` emitted, through its C ABI.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "cli/commands.h"
#include "emit/cpu.h"
#include "eval/bind.h"
#include "eval/npy.h"
#include "support/files.h"
#include "targets/trn1.h"
#include "tune/runner.h"

namespace axon::cli {
namespace {

struct Port {
  std::string name, dtype;
  std::vector<int64_t> shape;
  size_t elements() const {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }
};

constexpr int64_t kMostElements = int64_t{1} << 40;

std::vector<Port> ports(const nlohmann::json& list) {
  std::vector<Port> result;
  for (const nlohmann::json& p : list) {
    result.push_back({p.at("name"), p.at("dtype"), p.at("shape")});
    int64_t elements = 1;
    for (int64_t d : result.back().shape) {
      if (d < 1 || d > kMostElements / elements) throw std::out_of_range("a shape that is not a list of sizes >= 1");
      elements *= d;
    }
  }
  return result;
}

// A kernel's description: the ports that exec relies on, and the whole.
struct KernelInfo {
  nlohmann::json json;
  std::vector<Port> ins, outs;
};

KernelInfo kernel_info(const std::string& text) {
  KernelInfo info;
  info.json = nlohmann::json::parse(text);
  info.ins = ports(info.json.at("inputs"));
  info.outs = ports(info.json.at("outputs"));
  return info;
}

// Why kernel.json (`listed`) and the library's own description
// (`embedded`) disagree, or empty: each port's name, dtype and shape first.
std::string disagreement(const KernelInfo& listed, const KernelInfo& embedded) {
  for (auto [kind, a, b] :
       {std::tuple{"input", &listed.ins, &embedded.ins}, {"output", &listed.outs, &embedded.outs}}) {
    if (a->size() != b->size())
      return std::to_string(a->size()) + " " + kind + "(s) in kernel.json but " + std::to_string(b->size()) +
             " in kernel.so";
    for (size_t i = 0; i < a->size(); ++i) {
      const Port &p = (*a)[i], &q = (*b)[i];
      std::string which = std::string(kind) + " " + std::to_string(i) + " '" + q.name + "'";
      if (p.name != q.name) return which + " is called '" + p.name + "' in kernel.json";
      if (p.dtype != q.dtype)
        return which + " has dtype " + p.dtype + " in kernel.json but " + q.dtype + " in kernel.so";
      if (p.shape != q.shape)
        return which + " has shape " + ir::shape_str(p.shape) + " in kernel.json but " + ir::shape_str(q.shape) +
               " in kernel.so";
    }
  }
  for (const auto& [key, value] : embedded.json.items())
    if (!listed.json.contains(key) || listed.json[key] != value)
      return "'" + key + "' is " + (listed.json.contains(key) ? listed.json[key].dump() : "missing") +
             " in kernel.json but " + value.dump() + " in kernel.so";
  for (const auto& [key, value] : listed.json.items())
    if (!embedded.json.contains(key)) return "'" + key + "' in kernel.json is not in kernel.so";
  return "";
}

int exec(const Word& command, const ParsedArgs& args) {
  if (args.positional.empty()) throw UserError(command.loc, "axon exec needs the folder that axon optimize wrote");
  if (args.positional.size() > 1)
    throw UserError(args.positional[1].loc, "unexpected argument '" + args.positional[1].text + "'");
  const Word& dir = args.positional[0];
  std::filesystem::path folder(dir.text);
  std::ifstream info_file(folder / "kernel.json");
  RunLimits limits = run_limits(args);
  bool nki = std::filesystem::exists(folder / "kernel.py");
  if (!info_file || (!nki && !std::filesystem::exists(folder / "kernel.so")))
    throw UserError(dir.loc, "'" + dir.text +
                                 "' is not a folder written by axon optimize (no kernel.json with kernel.so or kernel.py)");
  KernelInfo listed, embedded;
  try {
    std::ostringstream text;
    text << info_file.rdbuf();
    listed = kernel_info(text.str());
    if (nki && listed.json.value("target", "") != "trn1") throw std::runtime_error("it does not describe an NKI kernel");
  } catch (const std::exception& e) {
    throw UserError(dir.loc, (folder / "kernel.json").string() + ": not a valid kernel description: " + e.what());
  }
  std::string so_path = (folder / "kernel.so").string();
  if (nki) {
    embedded = listed;  // the kernel is Python: the simulator checks what it is called with
  } else {
    // The library's own description, read in a child: the library is not trusted until it is checked.
    tune::StringResult own = tune::read_string_isolated(so_path, emit::kInfoSymbol, limits.wall_seconds);
    if (!own.ok)
      throw UserError(dir.loc, so_path + " is not a kernel library written by axon optimize: " + own.message);
    try {
      embedded = kernel_info(own.text);
    } catch (const std::exception& e) {
      throw UserError(dir.loc, so_path + ": its embedded description is not valid: " + e.what());
    }
    if (std::string why = disagreement(listed, embedded); !why.empty())
      throw UserError(dir.loc, (folder / "kernel.json").string() + " does not describe " + so_path + ": " + why);
  }
  const std::vector<Port>&ins = embedded.ins, &outs = embedded.outs;

  std::vector<std::optional<std::vector<float>>> given(ins.size());
  for (const Word& w : args.options.count("--in") ? args.options.at("--in") : std::vector<Word>{}) {
    size_t eq = w.text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.text.size())
      throw UserError(w.loc, "bad --in '" + w.text + "': expected NAME=FILE.npy");
    std::string name = w.text.substr(0, eq);
    size_t i = 0;
    while (i < ins.size() && ins[i].name != name) ++i;
    if (i == ins.size()) {
      std::string known;
      for (const Port& p : ins) known += (known.empty() ? "" : ", ") + p.name;
      throw UserError(w.loc, "the kernel has no input '" + name + "' (its inputs: " + known + ")");
    }
    if (given[i]) throw UserError(w.loc, "input '" + name + "' is given twice");
    eval::Tensor t;
    try {
      t = eval::read_npy(w.text.substr(eq + 1));
    } catch (const eval::NpyError& e) {
      throw UserError(loc_in(w, eq + 1), e.what());
    }
    if (t.shape != ins[i].shape)
      throw UserError(loc_in(w, eq + 1), "input '" + name + "' has shape " + ir::shape_str(t.shape) +
                                             " but the kernel was emitted for " + ir::shape_str(ins[i].shape) +
                                             " (kernel.json and kernel.so agree)");
    given[i] = std::vector<float>(t.data.begin(), t.data.end());
  }
  uint64_t seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  tune::RunRequest request;
  request.so_path = so_path;
  request.timeout_s = limits.wall_seconds;
  request.memory_limit_bytes = limits.memory_bytes;
  request.cpu_limit_s = limits.cpu_seconds;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!given[i]) {
      eval::Tensor t = eval::random_normal(ins[i].shape, seed, i);
      given[i] = std::vector<float>(t.data.begin(), t.data.end());
      std::cout << "  " << ins[i].name << ": random normal (seed " << seed << ")\n";
    }
    request.inputs.push_back(*given[i]);
  }
  for (const Port& p : outs) request.output_sizes.push_back(p.elements());
  request.warmup = 0;
  request.reps = static_cast<int>(int_option(args, "--time").value_or(0));
  tune::RunResult ran;
  if (nki) {
    std::vector<std::vector<int64_t>> in_shapes, out_shapes;
    std::vector<std::string> dtypes;
    for (const Port& p : ins) in_shapes.push_back(p.shape), dtypes.push_back(p.dtype);
    for (const Port& p : outs) out_shapes.push_back(p.shape);
    char work[] = "/tmp/axon-exec-XXXXXX";
    if (!mkdtemp(work)) throw UserError(dir.loc, std::string("cannot create a temporary folder: ") + std::strerror(errno));
    ran = targets::run_nki((folder / "kernel.py").string(), listed.json.at("kernel"), in_shapes, dtypes, request.inputs,
                           out_shapes, limits.wall_seconds, work);
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    if (request.reps > 0 && ran.status == tune::RunResult::Status::Ok)
      std::cout << "(--time: an NKI kernel runs under the simulator here, which has no timing model yet)\n";
    request.reps = 0;
  } else {
    ran = tune::run_isolated(request);
  }
  if (ran.status != tune::RunResult::Status::Ok) throw UserError(dir.loc, "the kernel failed: " + ran.message);

  std::vector<Word> files;
  if (const Word* w = args.last("--out")) {
    files = split_commas(*w);
    if (files.size() != outs.size())
      throw UserError(w->loc, "the kernel returns " + std::to_string(outs.size()) + " tensor(s) but --out names " +
                                  std::to_string(files.size()) + " file(s)");
  }
  FileSet out_files;  // every result or none (support/files.h)
  std::vector<std::string> written;
  for (size_t k = 0; k < outs.size(); ++k) {
    eval::Tensor t;
    t.shape = outs[k].shape;
    t.data.assign(ran.outputs[k].begin(), ran.outputs[k].end());
    double sum = 0;
    for (double x : t.data) sum += x;
    std::cout << "result " << k << ": f32" << ir::shape_str(t.shape) << ", sum " << sum << "\n";
    if (k < files.size()) {
      try {
        out_files.add(files[k].text, eval::to_npy_bytes(t, eval::NpyDtype::F32));
        written.push_back(files[k].text);
      } catch (const FileError& e) {
        throw UserError(files[k].loc, e.what());
      }
    }
  }
  try {
    out_files.commit();
  } catch (const FileError& e) {
    for (const Word& w : files)
      if (w.text == e.path()) throw UserError(w.loc, e.what());
    throw UserError(files.front().loc, e.what());
  }
  for (const std::string& p : written) std::cout << "wrote " << p << " (float32)\n";
  if (request.reps > 0) std::cout << "median " << ran.median() * 1e3 << " ms over " << ran.seconds.size() << " calls\n";
  return 0;
}

}  // namespace

const Command& exec_command() {
  static const Command command{
      "exec",
      "run a kernel emitted by axon optimize",
      "usage: axon exec OUT/ [--in NAME=FILE.npy ...] [--out FILE[,FILE...]] [--seed S] [--time N]\n"
      "                 [--time-limit S] [--memory-limit MIB] [--cpu-limit S]\n\n"
      "A CPU kernel (kernel.so): checks OUT/kernel.json against the description that OUT/kernel.so\n"
      "embeds (read in a child process) and each input's shape against both, then calls the kernel in a\n"
      "child process, under the limits, through its C ABI. A trn1 kernel (kernel.py): runs it under\n"
      "Axon's NKI simulator (sim/nki) in a child process, which also enforces the NKI API's rules.\n"
      "Inputs are float16/32/64 .npy, converted to float32; inputs not given are random normal.\n"
      "Results are written as float32 .npy.\n",
      {{"--in", "NAME=FILE", "an input as .npy (float16/32/64, C order, the emitted shape); repeatable", true},
       {"--out", "FILE[,FILE...]", "write the result(s) as float32 .npy"},
       {"--seed", "S", "seed for inputs not given (default 0)"},
       {"--time", "N", "also time N calls and print the median"},
       {"--time-limit", "S", "seconds the kernel may run, all calls together, before it is killed\n(default 120)"},
       {"--memory-limit", "MIB",
        "MiB the kernel may allocate beyond its inputs and outputs (default: half\nthe physical memory)"},
       {"--cpu-limit", "S",
        "CPU seconds the kernel may use, all threads together (default: the time\nlimit x the hardware threads)"},
       {"--help", "", "show this help"}},
      exec};
  return command;
}

}  // namespace axon::cli
