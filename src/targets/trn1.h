// The trn1 target (AWS Trainium, NeuronCore-v2) as far as it goes today: a
// printer of the instruction-level program (emit/trn1) behind the target
// seam. It has no toolchain or runner yet (no NKI text, no simulator), so a
// search for it prints its candidates and says that none can be run here.
#pragma once

#include <memory>

#include "search/target.h"

namespace axon::targets {

std::unique_ptr<search::Target> make_trn1_target(const hw::Description& description, smt::Prover& prover);

}  // namespace axon::targets
