// axon hw: load, validate and summarize a hardware description.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "hw/description.h"
#include "support/diag.h"
#include "tune/measure.h"

namespace axon::cli {
namespace {

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Each register instruction's described cost next to the one measured here.
int measure(const Word& file, const hw::Description& d) {
  char work[] = "/tmp/axon-measure-XXXXXX";
  if (!mkdtemp(work)) throw UserError(file.loc, std::string("cannot create a temporary folder: ") + std::strerror(errno));
  tune::InstructionMeasurement m;
  try {
    m = tune::measure_instructions(d, work);
  } catch (...) {
    std::filesystem::remove_all(work);
    throw;
  }
  std::filesystem::remove_all(work);
  std::cout << d.name << " measured on this machine, one thread; clock " << fixed(m.clock_ghz, 2)
            << " GHz (the median; each instruction is timed in\n"
               "cycles of a chain of dependent register additions timed just before it)\n\n"
            << "| instruction | engine | latency described | latency measured | throughput described | "
               "throughput measured |\n|---|---|---|---|---|---|\n";
  for (const tune::InstructionTiming& t : m.measured) {
    const hw::Instruction& i = *d.find(t.name);
    ir::Dims none;
    std::cout << "| " << t.name << " | " << i.engine << " | " << fixed(i.latency.at(none), 1) << " | "
              << (t.latency_cycles ? fixed(*t.latency_cycles, 1) : "-") << " | " << fixed(i.throughput.at(none), 3)
              << " | " << fixed(t.per_cycle_per_unit, 3) << " |\n";
  }
  std::cout << "\nLatency in core cycles (\"-\": the result is none of its operands' types, so no chain); "
               "throughput in instructions per cycle per unit of the engine.\nNot measured:\n";
  for (const auto& [name, why] : m.not_measured) std::cout << "  " << name << ": " << why << "\n";
  return 0;
}

int describe(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  hw::Description d = hw::load_description(file.text);
  if (args.has("--measure")) return measure(file, d);
  std::cout << d.name << " (target " << d.target << ", " << d.cores << " core(s)): " << d.summary << "\n"
            << "content hash " << d.content_hash << "\n\nmemories:\n";
  for (const hw::Memory& m : d.memories)
    std::cout << "  " << m.name << ": " << m.capacity_bytes << " bytes, " << m.bandwidth_gbps << " GB/s\n";
  std::cout << "engines:\n";
  for (const hw::Engine& e : d.engines)
    std::cout << "  " << e.name << ": " << e.units << " x " << e.clock_ghz << " GHz\n";
  std::cout << "instructions (" << d.instructions.size() << "):\n";
  for (const hw::Instruction& i : d.instructions) {
    std::cout << "  " << i.name << "(";
    for (size_t k = 0; k < i.operands.size(); ++k)
      std::cout << (k ? ", " : "") << i.operands[k].name << ": " << i.operands[k].space << " "
                << i.operands[k].type.str();
    std::cout << ") -> " << i.result.space << " " << i.result.type.str() << " = " << i.semantics_text << "   ["
              << i.engine << ", latency " << i.latency.formula() << ", " << i.throughput.formula() << "/cycle]\n";
  }
  return 0;
}

}  // namespace

const Command& hw_command() {
  static const Command command{
      "hw",
      "load and validate a hardware description (hw/*.json); print a summary",
      "usage: axon hw FILE.json [--measure]\n\nChecks every field of a hardware description (format: hw/README.md), compiles each\n"
      "instruction's semantics, and prints the memories, engines and instructions.\n\n"
      "With --measure (cpu descriptions): times each instruction whose operands and result are\n"
      "register values on this machine, one thread, and prints its latency (a chain of it) and\n"
      "throughput (independent chains) in core cycles beside the description's figures,\n"
      "to fill in a description for the processor in hand. The cycle is timed by a chain of\n"
      "dependent register additions. Loads, stores and other memory instructions are listed as\n"
      "not measured. Takes about 0.2 s per instruction.\n",
      {{"--measure", "", "time the register instructions here and compare (cpu descriptions)"},
       {"--help", "", "show this help"}},
      describe};
  return command;
}

}  // namespace axon::cli
