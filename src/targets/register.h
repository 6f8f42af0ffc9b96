// Every target built into axon, registered with the search (search/target.h).
#pragma once

namespace axon::targets {

/// Registers the cpu and trn1 targets and the short names "cpu" (the widest
/// x86 description this CPU runs) and "trn1". Idempotent; call once before
/// resolving a target.
void register_all();

}  // namespace axon::targets
