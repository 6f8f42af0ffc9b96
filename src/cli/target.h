// Resolving --target: a target name (cpu, trn1) or a description file.
#pragma once

#include <string>

#include "cli/args.h"
#include "hw/description.h"

namespace axon::cli {

/// The description --target names (default `fallback`): "cpu" is
/// hw/x86-avx512.json on a CPU with AVX-512 and hw/x86-avx2.json otherwise;
/// "trn1" is hw/trn1.json; anything else is a path to a .json description.
/// hw/ is $AXON_HW_DIR, else the source tree's hw/ folder.
hw::Description load_target(const ParsedArgs& args, const std::string& fallback);

/// Whether this CPU can run code for `description` (its requires_cpu feature).
bool cpu_supports(const hw::Description& description);

}  // namespace axon::cli
