// axon lower: the verified instruction-level program for a target.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/target.h"
#include "eval/bind.h"
#include "lang/load.h"
#include "search/pipeline.h"
#include "support/files.h"
#include "tile/plan.h"

namespace axon::cli {
namespace {

int lower(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  const Word* entry = args.last("--entry");
  ir::Program program = lang::load_program(file.text, option_text(args, "--entry"), entry ? entry->loc : SourceLoc{});
  tile::check_plan_size(program.kernel);
  ir::Dims given;
  if (const Word* w = args.last("--dims")) given = parse_dims(*w, program);
  ir::Dims dims = eval::bind_dims(program.kernel, given,
                                  std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
  hw::Description target = load_target(args, "trn1");
  if (target.target != "trn1")
    throw UserError(args.last("--target") ? args.last("--target")->loc : command.loc,
                    "lower prints Trainium programs; " + target.name + " is a " + target.target +
                        " target (use axon optimize for cpu)");
  search::KernelPtr kernel = search::lower_program(program, dims, target);
  if (const Word* out = args.last("-o")) {
    FileSet files;  // every file or none (support/files.h)
    std::error_code ec;
    std::filesystem::create_directories(out->text, ec);
    if (ec) throw UserError(out->loc, "cannot create '" + out->text + "': " + ec.message());
    try {
      for (const auto& [name, bytes] : kernel->files()) files.add((std::filesystem::path(out->text) / name).string(), bytes);
      files.commit();
    } catch (const FileError& e) {
      throw UserError(out->loc, e.what());
    }
    for (const auto& [name, bytes] : kernel->files()) std::cout << "wrote " << (std::filesystem::path(out->text) / name).string() << "\n";
    return 0;
  }
  std::cout << kernel->source();
  return 0;
}

}  // namespace

const Command& lower_command() {
  static const Command command{
      "lower",
      "print the NKI kernel for Trainium (no search)",
      "usage: axon lower FILE --dims SPEC [--target trn1|FILE.json] [--entry NAME] [-o OUT/]\n\n"
      "Plans the program as fused stages and prints the NKI kernel (NKI Beta 1, neuronxcc.nki) that\n"
      "axon optimize --target trn1 starts its search from: rows on the 128 partitions, the free\n"
      "dimension along each partition, contractions on the Tensor engine with K tiles accumulated in\n"
      "PSUM, partial tiles peeled, row groups kept in SBUF. Every instruction comes from a lowering that\n"
      "the prover proved equal to its step for all tile sizes within the instruction's limits. With -o,\n"
      "writes OUT/kernel.py and OUT/kernel.json, which axon exec runs under the NKI simulator.\n"
      "A kernel of more than " +
          std::to_string(tile::kMaxPlannedOps) + " ops is refused.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"--target", "T", "trn1 (default), or a description file"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"-o", "OUT", "write kernel.py and kernel.json into the folder OUT (created) instead of printing"},
       {"--help", "", "show this help"}},
      lower};
  return command;
}

}  // namespace axon::cli
