// Resolving --target: a target name (cpu, trn1) or a description file.
#pragma once

#include <string>

#include "cli/args.h"
#include "hw/description.h"

namespace axon::cli {

/// The description --target names (default `fallback`), as
/// search::load_description resolves it, with errors at the option.
hw::Description load_target(const ParsedArgs& args, const std::string& fallback);

/// The --target text (default `fallback`) and where it was written.
Word target_word(const ParsedArgs& args, const std::string& fallback, const SourceLoc& command_loc);

}  // namespace axon::cli
