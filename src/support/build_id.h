// The identity of the running axon binary, for cache keys: two binaries
// built from different code never share it.
#pragma once

#include <string>

namespace axon {

/// "build-id HEX" from the executable's GNU build-id note (the linker's
/// SHA-1 of the linked contents), or, when the binary has none, "content ..."
/// from two 64-bit hashes and the length of /proc/self/exe's bytes. Computed once per process; never throws
/// (an unreadable executable gives "unknown", which only makes the cache miss).
const std::string& executable_identity();

}  // namespace axon
