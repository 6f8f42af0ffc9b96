// The axon subcommands. Each returns the process exit status; user errors
// are thrown as UserError and printed by main.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "ir/program.h"
#include "lang/load.h"

namespace axon::cli {

struct Command {
  std::string name;
  std::string summary;  // one line for `axon --help`
  std::string usage;    // the full text for `axon help NAME`, before the options
  std::vector<OptionSpec> options;
  int (*run)(const Word& command, const ParsedArgs& args);
};

// One per file: commands.cpp (check, run), verify.cpp, explore.cpp.
const Command& check_command();
const Command& run_command();
const Command& verify_command();
const Command& explore_command();
const Command& hw_command();
const Command& optimize_command();  // optimize.cpp
const Command& exec_command();      // exec.cpp
const Command& lower_command();     // lower.cpp
const Command& bench_command();     // bench.cpp
const Command& time_command();      // time.cpp

int run_cli(const std::vector<Word>& words);

// Shared by the commands.
/// The program file positional argument number `i` (checked to exist).
const Word& program_file(const ParsedArgs& args, const Word& command, size_t i = 0, size_t count = 1);
std::optional<std::string> option_text(const ParsedArgs& args, const std::string& name);
/// A non-negative integer option value.
std::optional<int64_t> int_option(const ParsedArgs& args, const std::string& name);
/// --max-memory: bytes, with an optional unit K, M, G or T (powers of 1024);
/// the default, half the physical memory, when absent.
int64_t max_memory_option(const ParsedArgs& args);
/// --dims: comma-separated NAME=INT entries and SIZES preset names, applied in order.
ir::Dims parse_dims(const Word& word, const ir::Program& program);
std::vector<Word> split_commas(const Word& word);
/// --param NAME=VALUE[,NAME=VALUE...] (repeatable): values for the kernel's
/// non-tensor parameters, fixed when it is built.
lang::ParamValues param_values(const ParsedArgs& args);
/// The --param option's row for a command's help.
OptionSpec param_option();
/// What a kernel's child process may use (optimize, exec): --time-limit S of
/// wall time (default 120), --memory-limit MIB beyond what it holds at its
/// first call (default: half this machine's physical memory), --cpu-limit S of
/// CPU time, all threads together (default: the time limit x this machine's
/// hardware threads, what a kernel on every core can use in that time).
struct RunLimits {
  double wall_seconds = 120;
  size_t memory_bytes = 0;
  double cpu_seconds = 0;
};
RunLimits run_limits(const ParsedArgs& args);

}  // namespace axon::cli
