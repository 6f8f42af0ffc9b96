// axon hw: load, validate and summarize a hardware description.
#include <iostream>

#include "cli/commands.h"
#include "hw/description.h"

namespace axon::cli {
namespace {

int describe(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  hw::Description d = hw::load_description(file.text);
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
      "usage: axon hw FILE.json\n\nChecks every field of a hardware description (format: hw/README.md), compiles each\n"
      "instruction's semantics, and prints the memories, engines and instructions.\n",
      {{"--help", "", "show this help"}},
      describe};
  return command;
}

}  // namespace axon::cli
