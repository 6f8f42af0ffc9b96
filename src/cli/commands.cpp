#include "cli/commands.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "eval/bind.h"
#include "eval/interpreter.h"
#include "eval/npy.h"
#include "lang/load.h"

#ifndef AXON_VERSION
#define AXON_VERSION "0.1.0"
#endif

namespace axon::cli {
namespace {

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

const char* kUsage =
    "axon: a synthesizing superoptimizer for tensor programs written as NumPy code\n"
    "\n"
    "usage: axon <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE        parse and shape-check a program; print its IR\n"
    "  run FILE          evaluate a kernel with the float64 reference interpreter\n"
    "  help [COMMAND]    show help for a command\n"
    "\n"
    "options: --help, --version\n"
    "exit status: 0 success, 1 bad input (file:line:col: error: ...), 2 internal error\n";

const std::vector<OptionSpec> kCheckOptions = {
    {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
    {"--help", "", "show this help"},
};

const std::vector<OptionSpec> kRunOptions = {
    {"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both: test,M=8"},
    {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
    {"--in", "NAME=FILE", "read parameter NAME from a .npy file (float16/32/64, C order); repeatable", true},
    {"--seed", "S", "seed for the random normal inputs not given by --in (default 0)"},
    {"--out", "FILE[,FILE...]", "write the result(s) as float64 .npy, one file per returned tensor"},
    {"--help", "", "show this help"},
};

std::string command_help(const std::string& command) {
  if (command == "check")
    return "usage: axon check FILE [--entry NAME]\n\nParses FILE, checks every shape for all sizes, and prints the "
           "kernel's IR.\n\noptions:\n" +
           options_help(kCheckOptions);
  if (command == "run")
    return "usage: axon run FILE [--dims SPEC] [--in NAME=FILE ...] [--seed S] [--out FILE[,FILE...]]\n\n"
           "Evaluates the kernel in float64 at concrete sizes. Parameters not given by --in are filled with\n"
           "seeded standard normals. Sizes come from --dims and from the shapes of the --in files, which must\n"
           "agree with each other and with the annotations. Prints each result's shape and a short summary.\n\n"
           "options:\n" +
           options_help(kRunOptions);
  return kUsage;
}

// The program file: the one positional argument.
const Word& program_file(const ParsedArgs& args, const Word& command) {
  if (args.positional.empty()) error(command.loc, "axon " + command.text + " needs a program file");
  if (args.positional.size() > 1) error(args.positional[1].loc, "unexpected argument '" + args.positional[1].text + "'");
  const Word& file = args.positional[0];
  std::error_code ec;
  if (std::filesystem::is_directory(file.text, ec)) error(file.loc, "'" + file.text + "' is a directory, not a program file");
  if (!std::filesystem::exists(file.text, ec)) error(file.loc, "no such file '" + file.text + "'");
  return file;
}

std::optional<std::string> entry_of(const ParsedArgs& args) {
  if (const Word* w = args.last("--entry")) return w->text;
  return std::nullopt;
}

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(text);
}

// --dims: comma-separated NAME=INT entries and preset names, applied in order.
ir::Dims parse_dims(const Word& word, const ir::Program& program) {
  std::vector<std::string> used = program.size_names();
  auto is_used = [&](const std::string& n) { return std::find(used.begin(), used.end(), n) != used.end(); };
  ir::Dims dims;
  std::map<std::string, bool> explicit_names;
  size_t begin = 0;
  while (begin <= word.text.size()) {
    size_t comma = word.text.find(',', begin);
    std::string item = word.text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    SourceLoc loc = loc_in(word, begin);
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      auto preset = program.size_presets.find(item);
      if (preset == program.size_presets.end()) {
        std::string known;
        for (const auto& [name, _] : program.size_presets) known += (known.empty() ? "" : ", ") + name;
        error(loc, "bad --dims entry '" + item + "': expected NAME=INTEGER" +
                       (known.empty() ? std::string(" (the file has no SIZES presets)") : " or a preset (" + known + ")"));
      }
      for (const auto& [name, value] : preset->second)
        if (is_used(name)) dims[name] = value;
    } else {
      std::string name = item.substr(0, eq);
      auto value = parse_int(item.substr(eq + 1));
      if (name.empty() || !value)
        error(loc, "bad --dims entry '" + item + "': expected NAME=INTEGER, e.g. M=64");
      if (*value < 1) error(loc_in(word, begin + eq + 1), "size " + name + " must be at least 1");
      if (explicit_names[name]) error(loc, "size " + name + " is given twice");
      explicit_names[name] = true;
      if (!is_used(name)) {
        std::string known;
        for (const std::string& n : used) known += (known.empty() ? "" : ", ") + n;
        error(loc, "kernel '" + program.kernel.name + "' has no size '" + name + "'" +
                       (known.empty() ? std::string(" (it has no symbolic sizes)") : " (its sizes: " + known + ")"));
      }
      dims[name] = *value;
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return dims;
}

std::vector<Word> split_commas(const Word& word) {
  std::vector<Word> parts;
  size_t begin = 0;
  while (true) {
    size_t comma = word.text.find(',', begin);
    parts.push_back({word.text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin),
                     loc_in(word, begin)});
    if (comma == std::string::npos) return parts;
    begin = comma + 1;
  }
}

std::string summary(const eval::Tensor& t) {
  std::ostringstream out;
  out << std::setprecision(6);
  if (t.data.empty()) return "  (no elements)\n";
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  int64_t nans = 0;
  for (double x : t.data) {
    if (std::isnan(x)) {
      ++nans;
      continue;
    }
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  double n = static_cast<double>(t.data.size() - nans);
  double mean = n > 0 ? sum / n : NAN, var = 0;
  for (double x : t.data)
    if (!std::isnan(x)) var += (x - mean) * (x - mean);
  out << "  mean " << mean << "  std " << (n > 0 ? std::sqrt(var / n) : NAN) << "  min " << lo << "  max " << hi;
  if (nans) out << "  nan " << nans;
  out << "\n  [";
  for (size_t i = 0; i < std::min<size_t>(t.data.size(), 6); ++i) out << (i ? ", " : "") << t.data[i];
  out << (t.data.size() > 6 ? ", ...]\n" : "]\n");
  return out.str();
}

int check_command(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  ir::Program program = lang::load_program(file.text, entry_of(args));
  std::cout << ir::print_function(program.kernel);
  for (const auto& [preset, dims] : program.size_presets) {
    std::cout << "sizes " << preset << ":";
    for (const auto& [name, value] : dims) std::cout << ' ' << name << '=' << value;
    std::cout << '\n';
  }
  return 0;
}

int run_command(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  ir::Program program = lang::load_program(file.text, entry_of(args));
  const ir::Function& fn = program.kernel;
  ir::Dims given;
  if (const Word* w = args.last("--dims")) given = parse_dims(*w, program);

  std::vector<std::optional<eval::ProvidedInput>> provided(fn.params.size());
  for (const Word& w : args.options.count("--in") ? args.options.at("--in") : std::vector<Word>{}) {
    size_t eq = w.text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.text.size())
      error(w.loc, "bad --in '" + w.text + "': expected NAME=FILE.npy");
    std::string name = w.text.substr(0, eq);
    size_t index = 0;
    while (index < fn.params.size() && fn.params[index].name != name) ++index;
    if (index == fn.params.size()) {
      std::string known;
      for (const ir::Param& p : fn.params) known += (known.empty() ? "" : ", ") + p.name;
      error(w.loc, "kernel '" + fn.name + "' has no parameter '" + name + "' (its parameters: " + known + ")");
    }
    if (provided[index]) error(w.loc, "parameter '" + name + "' is given twice");
    std::string path = w.text.substr(eq + 1);
    try {
      provided[index] = eval::ProvidedInput{eval::read_npy(path), path};
    } catch (const eval::NpyError& e) {
      error(loc_in(w, eq + 1), e.what());
    }
  }
  uint64_t seed = 0;
  if (const Word* w = args.last("--seed")) {
    auto s = parse_int(w->text);
    if (!s) error(w->loc, "bad --seed '" + w->text + "': expected a non-negative integer");
    seed = static_cast<uint64_t>(*s);
  }
  std::vector<Word> outs;
  if (const Word* w = args.last("--out")) {
    outs = split_commas(*w);
    for (const Word& o : outs)
      if (o.text.empty()) error(o.loc, "empty file name in --out");
    if (outs.size() != fn.outputs.size())
      error(w->loc, "kernel '" + fn.name + "' returns " + std::to_string(fn.outputs.size()) + " tensor(s) but --out names " +
                        std::to_string(outs.size()) + " file(s)");
  }

  ir::Dims dims = eval::bind_dims(fn, given, provided);
  std::vector<eval::Tensor> inputs;
  std::ostringstream header;
  header << fn.name << " at ";
  bool first = true;
  for (const auto& [name, value] : dims) header << (first ? "" : ", ") << name << '=' << value, first = false;
  if (dims.empty()) header << "fixed sizes";
  std::cout << header.str() << '\n';
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Param& p = fn.params[i];
    std::cout << "  " << p.name << ": " << p.type.str() << "  ";
    if (provided[i]) {
      inputs.push_back(provided[i]->tensor);
      std::cout << "from " << provided[i]->source << '\n';
    } else {
      inputs.push_back(eval::random_normal(eval::concrete_shape(p.type.shape, dims, p.annotation_loc), seed, i));
      std::cout << "random normal (seed " << seed << ")\n";
    }
  }
  std::vector<eval::Tensor> results = eval::evaluate(fn, inputs, dims);
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << "result" << (results.size() > 1 ? " " + std::to_string(i) : "") << ": " << fn.outputs[i]->type().str()
              << " = " << results[i].shape_str() << '\n'
              << summary(results[i]);
  }
  // Write every output or none: a failure removes what this run wrote.
  std::vector<std::string> written;
  for (size_t i = 0; i < outs.size(); ++i) {
    try {
      eval::write_npy(outs[i].text, results[i], eval::NpyDtype::F64);
      written.push_back(outs[i].text);
    } catch (const std::exception& e) {
      for (const std::string& path : written) std::filesystem::remove(path);
      error(outs[i].loc, std::string("cannot write: ") + e.what());
    }
  }
  for (const std::string& path : written) std::cout << "wrote " << path << " (float64)\n";
  return 0;
}

}  // namespace

int run_cli(const std::vector<Word>& words) {
  if (words.empty()) {
    std::cerr << kUsage;
    return 1;
  }
  const Word& command = words[0];
  if (command.text == "--help" || command.text == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (command.text == "--version") {
    std::cout << "axon " << AXON_VERSION << '\n';
    return 0;
  }
  if (command.text == "help") {
    std::cout << command_help(words.size() > 1 ? words[1].text : "");
    return 0;
  }
  const std::vector<OptionSpec>* specs = command.text == "check" ? &kCheckOptions
                                         : command.text == "run" ? &kRunOptions
                                                                 : nullptr;
  if (!specs) error(command.loc, "unknown command '" + command.text + "' (commands: check, run, help)");
  ParsedArgs args = parse_options(std::vector<Word>(words.begin() + 1, words.end()), *specs);
  if (args.has("--help")) {
    std::cout << command_help(command.text);
    return 0;
  }
  return command.text == "check" ? check_command(command, args) : run_command(command, args);
}

}  // namespace axon::cli
