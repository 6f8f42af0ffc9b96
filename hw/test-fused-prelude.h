// Prelude for kernels emitted for hw/test-fused.json (a test-only target).
// Its emit texts are plain SSE intrinsics and call no helpers; compile with
// -msse2 (the x86-64 baseline).
#ifndef AXON_TEST_FUSED_PRELUDE_H
#define AXON_TEST_FUSED_PRELUDE_H

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#endif  // AXON_TEST_FUSED_PRELUDE_H
