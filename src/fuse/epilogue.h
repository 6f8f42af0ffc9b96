// Epilogue fusion: an element-wise loop nest that reads the result of a fold
// (a contraction or a reduction) point for point moves into the fold's loop
// nest, applied to each folded value as it is stored, so the fold's result
// never goes to memory. For gated MLP `silu(x @ w1) * (x @ w3)` the product
// and the SiLU run in the store of the second matmul; for attention the
// division by the row sums runs in the store of P @ V.
#pragma once

#include "tile/plan.h"

namespace axon::fuse {

/// Fuses every element-wise stage T of `plan` into the fold S that produces
/// one of its operands when: S writes a scratch buffer B alone (no offset),
/// T is B's only reader and reads it exactly at T's own position (T's loops
/// are B's shape), T's other operands are ready when S runs (inputs, or
/// written by stages before S), and S is not a scan. B is then dropped (its
/// shape becomes {0}). Returns the number of stages fused.
int fuse_epilogues(tile::Plan& plan);

}  // namespace axon::fuse
