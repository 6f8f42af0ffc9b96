// axon lower: the verified instruction-level program for a target.
#include <iostream>

#include "cli/commands.h"

namespace axon::cli {
namespace {

int lower(const Word& command, const ParsedArgs& args) {
  (void)args;
  throw UserError(command.loc, "lower is not built yet");
}

}  // namespace

const Command& lower_command() {
  static const Command command{"lower", "print the verified instruction-level program for a target",
                               "usage: axon lower FILE --target trn1 --dims SPEC\n",
                               {{"--dims", "SPEC", "sizes"}, {"--target", "T", "trn1"}, {"--help", "", "show this help"}},
                               lower};
  return command;
}

}  // namespace axon::cli
