// The CPU target (x86-64 with AVX-512 or AVX2): the first implementation of
// the target seam (search/target.h). Its tile space is register tiles x
// threads per stage (tile/tiling), ranked by the analytic model of
// tune/cost; its printer is emit/cpu; its toolchain the system C++ compiler
// (tune/runner compile_shared), several kernels to a translation unit; its
// runner a forked child (tune/runner run_isolated).
#pragma once

#include <memory>

#include "search/target.h"

namespace axon::targets {

/// Whether this CPU can run code for `description` (its requires_cpu feature).
bool cpu_supports(const hw::Description& description);

std::unique_ptr<search::Target> make_cpu_target(const hw::Description& description, smt::Prover& prover);

}  // namespace axon::targets
