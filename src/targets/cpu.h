// The CPU target (x86-64 with AVX-512 or AVX2): the first implementation of
// the target seam (search/target.h). Its tile space is register tiles x
// threads per stage (tile/tiling), ranked by the analytic model of
// tune/cost; its printer is emit/cpu; its toolchain the system C++ compiler
// (tune/runner compile_shared), several kernels to a translation unit; its
// runner a forked child (tune/runner run_isolated).
#pragma once

#include <memory>
#include <string>

#include "search/target.h"

namespace axon::targets {

/// Whether this CPU can run code for `description` (its requires_cpu feature).
bool cpu_supports(const hw::Description& description);

/// This CPU's vendor as descriptions name it: "intel", "amd", or "" for another.
std::string cpu_vendor();

/// The description `--target cpu` means on this CPU, from the folder `hw`:
/// the first of x86-avx512-intel.json, x86-avx512.json (AMD) and
/// x86-avx2.json whose requires_cpu this CPU has and whose cpu_vendor, when
/// it names one, is this CPU's (a file the folder lacks is passed over).
/// AVX2 is the fallback for everything else.
std::string cpu_description_path(const std::string& hw);

std::unique_ptr<search::Target> make_cpu_target(const hw::Description& description, smt::Prover& prover);

}  // namespace axon::targets
