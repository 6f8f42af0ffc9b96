// axon lower: the verified instruction-level program for a target.
#include <iostream>

#include "cli/commands.h"
#include "cli/target.h"
#include "eval/bind.h"
#include "lang/load.h"
#include "search/pipeline.h"
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
  std::cout << search::lower_program(program, dims, target)->source();
  return 0;
}

}  // namespace

const Command& lower_command() {
  static const Command command{
      "lower",
      "print the verified instruction-level program for Trainium",
      "usage: axon lower FILE --dims SPEC [--target trn1|FILE.json] [--entry NAME]\n\n"
      "Plans the program as fused stages and lowers each to Trainium instructions over SBUF/PSUM tiles\n"
      "(rows on the 128 partitions, the innermost loop along the free dimension, contractions on the\n"
      "tensor engine with K tiles accumulated in PSUM). Every instruction comes from a lowering that the\n"
      "prover proved equal to its step for all tile sizes within the instruction's limits; the proofs\n"
      "are listed at the end. Emitting NKI text is not built yet. A kernel of more than " +
          std::to_string(tile::kMaxPlannedOps) + " ops is refused.\n",
      {{"--dims", "SPEC", "sizes: M=64,K=32, or a preset of the file's SIZES (test, bench), or both"},
       {"--target", "T", "trn1 (default), or a description file"},
       {"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--help", "", "show this help"}},
      lower};
  return command;
}

}  // namespace axon::cli
