#include "cli/commands.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "eval/bind.h"
#include "eval/interpreter.h"
#include "eval/npy.h"
#include "eval/rounding.h"
#include "lang/load.h"
#include "search/api.h"
#include "support/build_id.h"
#include "support/files.h"
#include "tune/runner.h"

#ifndef AXON_VERSION
#define AXON_VERSION "0.1.0"
#endif

namespace axon::cli {
namespace {

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) {
  throw UserError(loc, message);
}

std::optional<std::string> entry_of(const ParsedArgs& args) {
  return option_text(args, "--entry");
}
SourceLoc entry_loc(const ParsedArgs& args) {
  const Word* w = args.last("--entry");
  return w ? w->loc : SourceLoc{};
}

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(text);
}

}  // namespace

// --dims: comma-separated NAME=INT entries and preset names, applied in order.
ir::Dims parse_dims(const Word& word, const ir::Program& program) {
  return search::parse_sizes(program, word.text, [&](size_t offset) { return loc_in(word, offset); });
}

lang::ParamValues param_values(const ParsedArgs& args) {
  lang::ParamValues values;
  auto it = args.options.find("--param");
  if (it == args.options.end()) return values;
  for (const Word& word : it->second) {
    for (const Word& part : split_commas(word)) {
      size_t eq = part.text.find('=');
      std::string name = part.text.substr(0, eq);
      if (eq == std::string::npos || !lang::is_identifier(name))
        error(part.loc, "--param wants NAME=VALUE (e.g. eps=1e-5), not '" + part.text + "'");
      if (values.count(name)) error(part.loc, "--param gives '" + name + "' twice");
      values[name] = {part.text.substr(eq + 1), loc_in(part, eq + 1)};
    }
  }
  return values;
}

OptionSpec param_option() {
  return {"--param", "NAME=VALUE",
          "a value for a non-tensor parameter (eps: float = 1e-5), fixed when\n"
          "the kernel is built; default: the one in the file; repeatable",
          true};
}

std::vector<Word> split_commas(const Word& word) {
  std::vector<Word> parts;
  size_t begin = 0;
  while (true) {
    size_t comma = word.text.find(',', begin);
    parts.push_back(
        {word.text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), loc_in(word, begin)});
    if (comma == std::string::npos) return parts;
    begin = comma + 1;
  }
}

namespace {

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

int check(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  ir::Program program = lang::load_program(file.text, entry_of(args), entry_loc(args), param_values(args));
  std::cout << ir::print_function(program.kernel);
  for (const auto& [preset, dims] : program.size_presets) {
    std::cout << "sizes " << preset << ":";
    for (const auto& [name, value] : dims) std::cout << ' ' << name << '=' << value;
    std::cout << '\n';
  }
  return 0;
}

// run --check: each set of files against the results' rounding bounds;
// prints the worst element of each. kExitOutsideBound when one is outside.
int check_results(const std::vector<std::vector<Word>>& sets, const eval::Evaluation& want) {
  bool all_ok = true;
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::vector<Word>& files = sets[s];
    std::vector<eval::Tensor> got;
    std::string names;
    for (size_t i = 0; i < files.size(); ++i) {
      try {
        got.push_back(eval::read_npy(files[i].text));
      } catch (const eval::NpyError& e) {
        error(files[i].loc, e.what());
      }
      if (got.back().shape != want.values[i].shape)
        error(files[i].loc, files[i].text + " has shape " + got.back().shape_str() + " but result " +
                                std::to_string(i) + " is " + want.values[i].shape_str());
      names += (i ? "," : "") + files[i].text;
    }
    eval::BoundCheck c = eval::check_within_bound(got, want);
    all_ok = all_ok && c.ok;
    std::cout << std::setprecision(3) << "check " << names << ": " << (c.ok ? "within" : "OUTSIDE")
              << " the rounding bound (|error| <= " << eval::kBoundFactor << " E); max |error| / bound = " << c.worst
              << "\n";
    if (c.any) std::cout << "  worst: " << c.text() << "\n";
  }
  return all_ok ? 0 : kExitOutsideBound;
}

int run(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  ir::Program program = lang::load_program(file.text, entry_of(args), entry_loc(args), param_values(args));
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
  uint64_t seed = static_cast<uint64_t>(int_option(args, "--seed").value_or(0));
  std::vector<Word> outs;
  if (const Word* w = args.last("--out")) {
    outs = split_commas(*w);
    for (const Word& o : outs)
      if (o.text.empty()) error(o.loc, "empty file name in --out");
    if (outs.size() != fn.outputs.size())
      error(w->loc, "kernel '" + fn.name + "' returns " + std::to_string(fn.outputs.size()) +
                        " tensor(s) but --out names " + std::to_string(outs.size()) + " file(s)");
  }

  // --check, repeatable: each a set of arrays, one per result.
  std::vector<std::vector<Word>> checks;
  for (const Word& w : args.options.count("--check") ? args.options.at("--check") : std::vector<Word>{}) {
    checks.push_back(split_commas(w));
    for (const Word& c : checks.back())
      if (c.text.empty()) error(c.loc, "empty file name in --check");
    if (checks.back().size() != fn.outputs.size())
      error(w.loc, "kernel '" + fn.name + "' returns " + std::to_string(fn.outputs.size()) +
                       " tensor(s) but --check names " + std::to_string(checks.back().size()) + " file(s)");
  }
  eval::EvalOptions options;
  options.max_memory_bytes = max_memory_option(args);
  options.bounds = !checks.empty();

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
    // Checked arrays come from a kernel, which sees its inputs in their dtypes.
    if (options.bounds)
      for (double& x : inputs.back().data) x = eval::round_to(x, p.type.dtype);
  }
  eval::Evaluation evaluation = eval::evaluate_bounded(fn, inputs, dims, options);
  const std::vector<eval::Tensor>& results = evaluation.values;
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << "result" << (results.size() > 1 ? " " + std::to_string(i) : "") << ": " << fn.outputs[i]->type().str()
              << " = " << results[i].shape_str() << '\n'
              << summary(results[i]);
  }
  // Every output or none (support/files.h).
  FileSet files;
  std::vector<std::string> written;
  for (size_t i = 0; i < outs.size(); ++i) {
    try {
      files.add(outs[i].text, eval::to_npy_bytes(results[i], eval::NpyDtype::F64));
      written.push_back(outs[i].text);
    } catch (const FileError& e) {
      error(outs[i].loc, e.what());
    }
  }
  try {
    files.commit();
  } catch (const FileError& e) {
    for (const Word& w : outs)
      if (w.text == e.path()) error(w.loc, e.what());
    error(outs.front().loc, e.what());
  }
  for (const std::string& path : written) std::cout << "wrote " << path << " (float64)\n";
  return checks.empty() ? 0 : check_results(checks, evaluation);
}

}  // namespace

const Word& program_file(const ParsedArgs& args, const Word& command, size_t i, size_t count) {
  if (args.positional.size() <= i)
    error(command.loc, "axon " + command.text + " needs " +
                           (count == 1 ? "a program file" : std::to_string(count) + " program files"));
  if (args.positional.size() > count)
    error(args.positional[count].loc, "unexpected argument '" + args.positional[count].text + "'");
  const Word& file = args.positional[i];
  std::error_code ec;
  if (std::filesystem::is_directory(file.text, ec))
    error(file.loc, "'" + file.text + "' is a directory, not a program file");
  if (!std::filesystem::exists(file.text, ec)) error(file.loc, "no such file '" + file.text + "'");
  return file;
}

std::optional<std::string> option_text(const ParsedArgs& args, const std::string& name) {
  if (const Word* w = args.last(name)) return w->text;
  return std::nullopt;
}

std::optional<int64_t> int_option(const ParsedArgs& args, const std::string& name) {
  const Word* w = args.last(name);
  if (!w) return std::nullopt;
  auto value = parse_int(w->text);
  if (!value) error(w->loc, "bad " + name + " '" + w->text + "': expected a non-negative integer");
  return value;
}

int64_t max_memory_option(const ParsedArgs& args) {
  const Word* w = args.last("--max-memory");
  if (!w) return eval::default_max_memory();
  const std::string& t = w->text;
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = t.substr(used);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && (unit.substr(1) == "IB" || unit.substr(1) == "B")) unit = unit.substr(0, 1);
  const std::string units = "KMGT";
  size_t power = unit.empty() ? 0 : units.find(unit) + 1;
  if (used == 0 || t[0] == '-' || unit.size() > 1 || power == std::string::npos + 1 || !std::isfinite(value))
    error(w->loc, "bad --max-memory '" + t + "': expected bytes with an optional unit, such as 8G, 512M or 1.5G");
  double bytes = value * std::pow(1024.0, static_cast<double>(power));
  if (bytes < 1 || bytes > 9e18) error(w->loc, "--max-memory must be between 1 byte and 8 EiB");
  return static_cast<int64_t>(bytes);
}

RunLimits run_limits(const ParsedArgs& args) {
  RunLimits limits;
  limits.wall_seconds = static_cast<double>(int_option(args, "--time-limit").value_or(120));
  if (limits.wall_seconds < 1) error(args.last("--time-limit")->loc, "--time-limit must be at least 1 second");
  limits.memory_bytes = tune::default_memory_limit_bytes();
  if (std::optional<int64_t> mib = int_option(args, "--memory-limit")) {
    if (*mib < 1 || *mib > (int64_t{1} << 40))
      error(args.last("--memory-limit")->loc, "--memory-limit must be between 1 and 2^40 MiB");
    limits.memory_bytes = static_cast<size_t>(*mib) << 20;
  }
  limits.cpu_seconds = limits.wall_seconds * std::max(1u, std::thread::hardware_concurrency());
  if (std::optional<int64_t> cpu = int_option(args, "--cpu-limit")) {
    if (*cpu < 1) error(args.last("--cpu-limit")->loc, "--cpu-limit must be at least 1 second");
    limits.cpu_seconds = static_cast<double>(*cpu);
  }
  return limits;
}

const Command& check_command() {
  static const Command command{
      "check",
      "parse and shape-check a program; print its IR",
      "usage: axon check FILE [--entry NAME]\n\nParses FILE, checks every shape for all sizes, and prints the "
      "kernel's IR.\n",
      {{"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       param_option(),
       {"--help", "", "show this help"}},
      check};
  return command;
}

const Command& run_command() {
  static const Command command{
      "run",
      "evaluate a kernel with the float64 reference interpreter",
      "usage: axon run FILE [--dims SPEC] [--in NAME=FILE ...] [--seed S] [--out FILE[,FILE...]]\n"
      "                [--check FILE[,FILE...]] [--max-memory SIZE]\n\n"
      "Evaluates the kernel in float64 at concrete sizes. Parameters not given by --in are filled with\n"
      "seeded standard normals. Sizes come from --dims and from the shapes of the --in files, which must\n"
      "agree with each other and with the annotations. Prints each result's shape and a short summary.\n"
      "--check compares arrays computed elsewhere (a kernel, NumPy in float32) with the results, as\n"
      "axon optimize validates candidates: the inputs are first rounded to their declared dtypes, and\n"
      "every element must satisfy |got - expected| <= 8 E, E the rounding bound the interpreter carries\n"
      "beside each value (float32's unit round-off 2^-24, bf16's 2^-8 and f16's 2^-11 per the dtypes\n"
      "the program declares; the rules are in the README). Prints the largest |error| / bound and the\n"
      "worst element of each --check. Exit status 0 when every one is within the bound, 6 when one is\n"
      "outside it, 1 bad input.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both: test,M=8"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       param_option(),
       {"--in", "NAME=FILE", "read parameter NAME from a .npy file (float16/32/64, C order); repeatable", true},
       {"--seed", "S", "seed for the random normal inputs not given by --in (default 0)"},
       {"--out", "FILE[,FILE...]", "write the result(s) as float64 .npy, one file per returned tensor"},
       {"--check", "FILE[,FILE...]",
        "check .npy arrays, one per returned tensor, against the results'\n"
        "rounding bounds; repeatable (exit status 6 when one is outside)",
        true},
       {"--max-memory", "SIZE",
        "refuse to evaluate when the interpreter would need more memory:\n"
        "bytes, or with a unit K, M, G, T (default: half the physical memory)"},
       {"--help", "", "show this help"}},
      run};
  return command;
}

namespace {

const std::vector<const Command*>& all_commands() {
  static const std::vector<const Command*> commands = {&check_command(),   &run_command(),   &verify_command(),
                                                       &explore_command(), &hw_command(),    &optimize_command(),
                                                       &exec_command(),    &lower_command(), &bench_command(),
                                                       &time_command()};
  return commands;
}

std::string usage() {
  std::ostringstream out;
  out << "axon: a synthesizing superoptimizer for tensor programs written as NumPy code\n\n"
         "usage: axon <command> [options]\n\ncommands:\n";
  for (const Command* c : all_commands())
    out << "  " << c->name << std::string(12 - c->name.size(), ' ') << c->summary << '\n';
  out << "  help        show help for a command: axon help COMMAND\n\n"
         "options: --help, --version\n"
         "exit status: 0 success; 1 bad input or environment (file:line:col: error: ...); 2 a bug in\n"
         "             Axon (internal error); verify: 3 refuted, 4 unknown; optimize: 5 no candidate\n"
         "             kernel was valid; run --check: 6 outside the rounding bound\n";
  return out.str();
}

std::string command_help(const Command& c) {
  return c.usage + "\noptions:\n" + options_help(c.options);
}

const Command* find_command(const std::string& name) {
  for (const Command* c : all_commands())
    if (c->name == name) return c;
  return nullptr;
}

}  // namespace

int run_cli(const std::vector<Word>& words) {
  if (words.empty()) {
    std::cerr << usage();
    return 1;
  }
  const Word& first = words[0];
  if (first.text == "--help" || first.text == "-h") {
    std::cout << usage();
    return 0;
  }
  if (first.text == "--version") {
    std::cout << "axon " << AXON_VERSION << " (" << executable_identity() << ")\n";
    return 0;
  }
  if (first.text == "help") {
    const Command* c = words.size() > 1 ? find_command(words[1].text) : nullptr;
    if (words.size() > 1 && !c) error(words[1].loc, "unknown command '" + words[1].text + "'");
    std::cout << (c ? command_help(*c) : usage());
    return 0;
  }
  const Command* command = find_command(first.text);
  if (!command) {
    std::string names;
    for (const Command* c : all_commands()) names += c->name + ", ";
    error(first.loc, "unknown command '" + first.text + "' (commands: " + names + "help)");
  }
  ParsedArgs args = parse_options(std::vector<Word>(words.begin() + 1, words.end()), command->options);
  if (args.has("--help")) {
    std::cout << command_help(*command);
    return 0;
  }
  return command->run(first, args);
}

}  // namespace axon::cli
