// The axon subcommands. Each returns the process exit status; user errors
// are thrown as UserError and printed by main.
#pragma once

#include <vector>

#include "cli/args.h"

namespace axon::cli {

int run_cli(const std::vector<Word>& words);

}  // namespace axon::cli
