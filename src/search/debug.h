// Dumps of the pipeline's stages at the verbosity $AXON_DEBUG sets:
// 1 each stage's time, 2 also its result (variants, plans, candidates).
#pragma once

#include <string>

namespace axon::search {

/// $AXON_DEBUG as a number, 0 when unset or not a number.
int debug_level();

/// Writes "axon: [stage] text" to stderr when debug_level() >= level.
void debug_dump(int level, const std::string& stage, const std::string& text);

}  // namespace axon::search
