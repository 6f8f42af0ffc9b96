// Trainium emission: a plan as an NKI kernel (Beta 1, `neuronxcc.nki`).
//
// Each stage is a loop nest over tiles: one loop dimension on the 128 SBUF
// partitions, one along the free dimension, the others as outer loops
// (`nl.affine_range`). Partial tiles are peeled: the full tiles run in a
// loop and the remainder is a second copy of the body with its exact static
// size, so no instruction needs a mask. Contractions run on the Tensor engine
// with the contracted dimension on partitions, accumulated in one PSUM bank
// (`acc += nisa.nc_matmul(...)`); element-wise bodies, reductions along the
// free dimension and scans are covered by proved instruction trees of the
// description (isa/cover), whose `emit` texts are the NKI calls. Stages of a
// row group share one loop over row tiles and hand their [P, 1] statistics
// and [P, F] rows to each other in SBUF instead of HBM scratch.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "fuse/rows.h"
#include "hw/description.h"
#include "isa/synth.h"
#include "tile/plan.h"

namespace axon::emit {

/// What the instruction-level propagation found for each step expression it
/// saw: the expression's proved variants and, for each, the time its
/// cheapest cover adds to each engine. Shared by the kernels of one search
/// (which lower the same steps many times over) so that each expression is
/// propagated and covered once per tile size.
struct StepVariants {
  struct Entry {
    std::shared_ptr<ir::Graph> graph;  // the variants' nodes
    std::vector<std::pair<ir::NodeRef, std::map<std::string, double>>> variants;
  };
  std::map<std::string, Entry> by_step;  // by the expression, its leaves and the block's sizes
};

struct NkiOptions {
  bool fuse_rows = true;  // row groups keep intermediates on chip
  /// An operand of a contraction that HBM holds with the contracted
  /// dimension innermost: loaded row-contiguous and transposed on the Tensor
  /// engine, or read by a transposing DMA; by default whichever the
  /// description's costs say is cheaper at the tile's size.
  enum class Transpose { Cheaper, TensorEngine, Dma } transpose = Transpose::Cheaper;
  /// The engine of each element-wise step: the cheapest proved instructions
  /// wherever they run, or spread: each step's instructions on the engines
  /// that leave the kernel's busiest engine least busy so far (by the
  /// description's costs), so that Vector, Scalar and GpSimd work in parallel.
  enum class Engines { Cheapest, Spread } engines = Engines::Cheapest;
  /// Scratch buffers that fit stay in SBUF for the whole kernel (with
  /// fuse_rows); false: they go through HBM.
  bool resident = true;
  /// Operator propagation again on each lowered step's expression (which
  /// lowering may have put together from several ops of the program: an
  /// epilogue, a row group's member): its proved variants are covered with
  /// instructions and the one that leaves the busiest compute engine least
  /// to do is emitted.
  bool repropagate = true;
  /// Where the propagated steps are kept between kernels (null: this kernel's own).
  std::shared_ptr<StepVariants> step_variants;
};

/// What the kernel executes at its sizes, counted from the emitted loops.
struct NkiCounts {
  std::map<std::string, double> instructions;  // engine -> instructions issued
  std::map<std::string, double> busy_ns;       // engine -> its time by the description's costs (no overlap)
  double hbm_read_bytes = 0, hbm_write_bytes = 0;
  int repropagated = 0;  // steps whose expression the instruction-level propagation rewrote
  /// The most instructions any one engine issues (DMA transfers excluded).
  double busiest() const;
  std::string busiest_engine() const;
};

struct NkiKernel {
  std::string entry;   // the kernel function's name in the source
  std::vector<std::string> input_names;   // its parameters, in order
  std::vector<std::string> input_dtypes;  // their HBM types: "f32", "bf16", "f16"
  std::string source;  // kernel.py
  NkiCounts counts;
  std::vector<fuse::RowGroup> groups;  // the row groups that run fused
  std::string tilings;                 // per stage, for tables
  int resident = 0;                    // scratch buffers kept in SBUF for the whole kernel
};

/// The NKI kernel of `plan` for the trn1 description `target`. Throws a
/// UserError at the kernel for what this emitter cannot express.
NkiKernel emit_nki(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, const NkiOptions& options = {});

}  // namespace axon::emit
