// Measuring a cpu description's instructions on this machine: the numbers a
// description's cost fields should hold, taken from the processor in hand
// instead of from instruction tables (`axon hw FILE.json --measure`).
//
// Generated C++ times each instruction whose operands and result all live in
// the register space (the description's smallest memory, e.g. zmm) and whose
// emit text is an expression of fixed-size values:
//   - latency: one chain of the instruction, each result fed back as its first
//     operand of the result's type (instructions whose result type is none of
//     their operands' types, such as a broadcast or a horizontal sum, have no
//     chain and no measured latency);
//   - throughput: 4, 8 and 12 such chains side by side, the best kept (for
//     an instruction without a chain: as many independent applications to
//     values the compiler must treat as new on every iteration, through an
//     empty asm barrier);
// in core cycles, from the time of a chain of dependent register additions
// (one cycle each on every x86-64 core) timed just before each instruction,
// so that turbo, a virtual machine's drifting clock and the TSC's rate do not
// enter. Loads, stores, gathers, masked forms ({R}) and statements ({result})
// are listed as not measured, with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/description.h"

namespace axon::tune {

struct InstructionTiming {
  std::string name;
  std::optional<double> latency_cycles;  // nullopt: no chain through it
  double per_cycle_per_unit = 0;         // as the description's cost.throughput
};

struct InstructionMeasurement {
  double clock_ghz = 0;  // one core: the median of the clocks timed before each instruction
  std::vector<InstructionTiming> measured;
  std::vector<std::pair<std::string, std::string>> not_measured;  // name, why
};

/// The generated measurement program for `target`'s eligible instructions
/// (exported symbol axon_measure() returns its results as text), and the
/// instructions left out with why. Throws a UserError for a description that
/// is not a cpu one, or whose register space has no broadcast (an instruction
/// from a scalar to a vector of it) to make operands with.
std::string measurement_source(const hw::Description& target,
                               std::vector<std::pair<std::string, std::string>>* not_measured);

/// Compiles the program in `work_dir` and runs it in a child process (one
/// thread, about 0.2 s per instruction). A UserError when it does not
/// compile, crashes or times out.
InstructionMeasurement measure_instructions(const hw::Description& target, const std::string& work_dir);

}  // namespace axon::tune
