// The NKI simulator's instruction trace (sim/nki/README.md, "Trace format"):
// one JSON object per line, one instruction each, in program order, every
// operand naming the allocation and the box of it that it touches. This is
// what the timing model reads; nothing here knows about costs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/diag.h"

namespace axon::timing {

/// The instruction queue a record runs on.
enum class Queue : uint8_t { Tensor, Vector, Scalar, Gpsimd, Dma };
constexpr int kComputeQueues = 4;  // Tensor .. Gpsimd
const char* queue_name(Queue q);

enum class Space : uint8_t { Sbuf, Psum, Hbm };

/// The instructions the model prices; anything else is Other (priced as a
/// one-input Vector-style instruction on its queue).
enum class Opcode : uint8_t {
  Matmul,
  Transpose,
  Activation,
  TensorTensor,
  TensorScalar,
  ScalarTensorTensor,
  TensorReduce,
  TensorCopy,
  Reciprocal,
  Scan,
  BnStats,
  BnAggr,
  Memset,
  Iota,
  Load,
  Store,
  DmaCopy,
  DmaTranspose,
  Other
};

/// One operand: the box [p0, p1) x [b0, b1) of allocation `buf` (partitions
/// and bytes per partition on chip; rows of the first dimension and bytes of
/// a row in HBM).
struct Operand {
  Space space = Space::Sbuf;
  int64_t buf = -1;  // renumbered densely from 0 in order of appearance (the trace's own id may be any)
  int32_t p0 = 0, p1 = 1;
  int64_t b0 = 0, b1 = 0;
  int64_t contig = 0;         // bytes of one contiguous run
  int64_t alloc_bytes = 0;    // bytes per partition the allocation holds (0 in HBM)
  int64_t elements = 1;       // all elements of the view
  int64_t free_elements = 1;  // elements per partition (the shape without its first dim)
  int dtype_bytes = 4;
  bool is_f32 = true;    // float32 (or an int32 kind): Tensor-engine f32 rates
  bool written = false;  // the instruction writes it (outs, reduce_res)
  bool read = true;      // the instruction reads it
};

struct Record {
  int64_t seq = 0;
  int line = 0;  // line in the trace file
  Queue queue = Queue::Vector;
  Opcode opcode = Opcode::Other;
  std::string op;                 // the trace's name
  std::string loc;                // kernel FILE:LINE
  std::vector<Operand> operands;  // inputs first, then the output(s)
  int64_t n = 1;                  // elements per partition of the first operand
  int64_t bytes = 0;              // DMA
  int64_t mkn[3] = {0, 0, 0};     // nc_matmul
  bool accumulate = false;        // PSUM += (nc_matmul)
  bool reduces = false;           // activation with a reduce_res
};

struct Trace {
  std::shared_ptr<const SourceFile> file;
  std::vector<Record> records;
};

/// Parses a trace; a malformed line is a UserError at its file:line:col.
Trace parse_trace(std::shared_ptr<const SourceFile> file);
/// Reads and parses `path`.
Trace load_trace(const std::string& path);

}  // namespace axon::timing
