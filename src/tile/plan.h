// Planning: a program at concrete sizes as a list of loop-nest stages.
//
// Each materialized value (a parameter, a reduction, contraction, scan,
// concatenation, an output, or an element-wise value with several users)
// gets a dense row-major buffer. Every other op is fused into the stage that
// consumes it: element-wise ops become the stage's body expression, and
// transposes, broadcasts, slices and reshapes of buffers become affine
// accesses (strides and an offset over the stage's loops).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/program.h"

namespace axon::tile {

struct Buffer {
  enum class Kind { Input, Output, Scratch };
  Kind kind = Kind::Scratch;
  int param = -1;  // Input/Output: position among the kernel's inputs/outputs
  std::vector<int64_t> shape;
  int64_t elements() const;
};

/// Element `offset + sum_d strides[d] * i_d` of `buffer`, over a stage's loops.
struct Access {
  int buffer = -1;
  int64_t offset = 0;
  std::vector<int64_t> strides;
  bool operator<(const Access& other) const;
};

enum class Combine { None, Sum, Max, Min, Scan };
const char* combine_name(Combine combine);

/// out[loops] (op)= body[loops] over the loop nest `extents`. Loops marked
/// `reduced` are folded with `combine` (the output does not move along them);
/// a Scan folds along `scan_dim` and writes every prefix.
struct Stage {
  std::string what;  // the ops it computes, for comments
  std::vector<int64_t> extents;
  std::vector<bool> reduced;
  int scan_dim = -1;
  Combine combine = Combine::None;
  Access out;
  /// The body: a scalar expression over `leaves` (Input i reads access i).
  std::shared_ptr<ir::Graph> graph;
  ir::NodeRef body = nullptr;
  std::vector<Access> leaves;
  /// Node fusion of an element-wise consumer (fuse::fuse_epilogues): the
  /// folded value is stored to `out` through `epilogue`, a scalar expression
  /// in `graph` whose Input i reads `epilogue_leaves[i]` at the output's
  /// position (they do not move along folded loops), except Input
  /// `epilogue_result`, which is the folded value. Null when there is none.
  ir::NodeRef epilogue = nullptr;
  std::shared_ptr<ir::Graph> epilogue_graph;
  std::vector<Access> epilogue_leaves;
  int epilogue_result = -1;
};

struct Plan {
  std::vector<Buffer> buffers;
  std::vector<Stage> stages;
  std::vector<int> inputs, outputs;  // buffer ids in parameter / result order
  int64_t flops = 0;                 // element operations, for reports
};

struct PlanOptions {
  /// Element-wise ops with one consumer run inside the stage that reads them.
  /// Off (an ablation), every op gets its own stage and buffer.
  bool fuse_elementwise = true;
  /// A transpose gets its own stage and buffer, like any other op, instead of
  /// becoming its reader's access pattern: the naive proxy's "one stage per
  /// op" (a compiler that moves the data where the program says so).
  bool transposes_as_stages = false;
};

/// The most ops (nodes other than parameters and constants) of a kernel that
/// optimize and lower take: each op costs a proved instruction lowering and
/// each stage a compiled loop nest, so a 100,000-op kernel would compile for
/// hours. Real kernels have a few hundred at most.
constexpr size_t kMaxPlannedOps = 10'000;

/// Throws a UserError at the kernel's `def` when it has more than kMaxPlannedOps ops.
void check_plan_size(const ir::Function& fn);

/// The plan of `fn` at `dims` (every size of fn bound).
Plan plan_function(const ir::Function& fn, const ir::Dims& dims, const PlanOptions& options = {});

/// Row-major strides of a shape.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);

}  // namespace axon::tile
