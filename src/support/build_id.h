// The identity of the running axon binary, for cache keys: two binaries
// built from different code never share it.
#pragma once

#include <string>

namespace axon {

/// "build-id HEX" from the GNU build-id note (the linker's SHA-1 of the
/// linked contents) of the object that holds this code: the axon executable,
/// or the Python package's extension module. When it has none, "content ..."
/// from two 64-bit hashes and the length of that object's bytes. Computed once per process; never throws
/// (an unreadable executable gives "unknown", which only makes the cache miss).
const std::string& executable_identity();

}  // namespace axon
