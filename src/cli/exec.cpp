// axon exec: run a kernel that `axon optimize` emitted, through its C ABI.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "eval/bind.h"
#include "eval/npy.h"
#include "support/files.h"
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

std::vector<Port> ports(const nlohmann::json& list) {
  std::vector<Port> result;
  for (const nlohmann::json& p : list) result.push_back({p.at("name"), p.at("dtype"), p.at("shape")});
  return result;
}

int exec(const Word& command, const ParsedArgs& args) {
  if (args.positional.empty()) throw UserError(command.loc, "axon exec needs the folder that axon optimize wrote");
  if (args.positional.size() > 1)
    throw UserError(args.positional[1].loc, "unexpected argument '" + args.positional[1].text + "'");
  const Word& dir = args.positional[0];
  std::filesystem::path folder(dir.text);
  std::ifstream info_file(folder / "kernel.json");
  if (!info_file || !std::filesystem::exists(folder / "kernel.so"))
    throw UserError(dir.loc,
                    "'" + dir.text + "' is not a folder written by axon optimize (no kernel.json and kernel.so)");
  nlohmann::json info;
  std::vector<Port> ins, outs;
  try {
    info = nlohmann::json::parse(info_file);
    ins = ports(info.at("inputs"));
    outs = ports(info.at("outputs"));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(dir.loc, (folder / "kernel.json").string() + ": not a valid kernel description: " + e.what());
  }

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
                                             " but the kernel was emitted for " + ir::shape_str(ins[i].shape));
    given[i] = std::vector<float>(t.data.begin(), t.data.end());
  }
  uint64_t seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  tune::RunRequest request;
  request.so_path = (folder / "kernel.so").string();
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
  tune::RunResult ran = tune::run_isolated(request);
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
      "usage: axon exec OUT/ [--in NAME=FILE.npy ...] [--out FILE[,FILE...]] [--seed S] [--time N]\n\n"
      "Loads OUT/kernel.so in a child process and calls it through its C ABI with the given inputs\n"
      "(converted to float32; inputs not given are random normal). Results are written as float32 .npy.\n",
      {{"--in", "NAME=FILE", "an input as .npy (float16/32/64, C order, the emitted shape); repeatable", true},
       {"--out", "FILE[,FILE...]", "write the result(s) as float32 .npy"},
       {"--seed", "S", "seed for inputs not given (default 0)"},
       {"--time", "N", "also time N calls and print the median"},
       {"--help", "", "show this help"}},
      exec};
  return command;
}

}  // namespace axon::cli
