// Trainium lowering: a plan as an instruction-level program over SBUF/PSUM
// tiles (partitions x free elements), every instruction from a proved
// lowering of the trn1 description. Printed for people (`axon lower`); NKI
// text emission is a later step.
#pragma once

#include <string>

#include "hw/description.h"
#include "isa/synth.h"
#include "tile/plan.h"

namespace axon::emit {

/// The listing of `plan` for the trn1 description `target`. Throws a
/// UserError at the kernel for stages this lowering does not handle.
std::string lower_trn1(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                       isa::Synthesizer& synth);

}  // namespace axon::emit
