// A timing model of one Trainium1 NeuronCore-v2 that times an NKI instruction
// trace (time/trace.h), so it times any NKI kernel the simulator runs.
//
// The model is a list scheduler over the trace in program order. The Tensor,
// Vector, Scalar and GpSimd engines are in-order queues, each with its clock;
// an instruction starts when its queue is free and its operands are ready:
// read-after-write, write-after-read and write-after-write on overlapping
// boxes of one allocation, plus a dependent-instruction latency on the same
// engine or a semaphore wait (t_sync) across engines. DMA records are split
// into transfers over 16 in-order queues, each costing a fixed time plus one
// per descriptor (contiguous run) plus bytes at the queue's bandwidth, with a
// start latency overlapped across a few outstanding transfers. A loop body's
// tiles are fresh allocations per iteration (the trace's `buf`), so iterations
// overlap until SBUF or PSUM is full: an allocation waits until enough earlier
// ones have had their last use. Vector and GpSimd share the SBUF port, Vector
// and Scalar the PSUM port: an instruction holds the port for its duration.
// Instruction costs are those of research note nki.md 4.2; every number is a
// parameter of hw/trn1.json's "timing" object, with its source.
//
// What it is not: a cycle-accurate simulator. It does not know the Neuron
// compiler's instruction reordering, the real DMA descriptor generation, HBM
// bank conflicts, or anything the documentation does not state; it ranks
// candidates and explains where time goes.
#pragma once

#include <array>
#include <iosfwd>
#include <string>
#include <vector>

#include "hw/description.h"
#include "time/trace.h"

namespace axon::timing {

/// The model's parameters, read from a description's "timing" object.
struct Trn1Params {
  std::array<double, kComputeQueues> clock_ghz{};  // tensor, vector, scalar, gpsimd
  double min_ii_cycles = 0;                        // an instruction's shortest initiation interval
  double dependent_overhead_cycles = 0;            // a dependent instruction on the same engine waits this
  double access_overhead_cycles = 0;               // per tensor access, exposed in dependent chains (x2)
  double matmul_latency_cycles = 0;                // Tensor engine result latency
  double matmul_f32_factor = 0;                    // fp32 operands are this much slower
  double load_stationary_speedup = 0;              // LoadStationary vs a MultiplyMoving of the same size
  double transpose_f32_factor = 0;
  double stride_penalty = 0;  // inner stride > 16 B: this factor slower
  double activation_reduce_cycles = 0;
  double tensor_tensor_cycles_per_element = 0;
  double reciprocal_cycles_per_element = 0;
  double scan_cycles_per_element = 0;
  double bn_aggr_cycles_per_element = 0;
  double iota_base_cycles = 0;
  double sync_ns = 0;  // cross-engine semaphore wait
  int dma_queues = 0;
  double dma_queue_bytes_per_ns = 0;
  double dma_transfer_ns = 0;    // fixed queue time per transfer
  double dma_descriptor_ns = 0;  // queue time per descriptor
  double dma_latency_ns = 0;     // start latency, overlapped across outstanding transfers
  int dma_outstanding = 0;       // transfers in flight per queue
  int dma_partitions_per_transfer = 0;
  double sbuf_bytes_per_partition = 0;
  double psum_bytes_per_partition = 0;
  double launch_ns = 0;  // kernel launch, added once
};

/// Reads the parameters; a missing or out-of-range one is a UserError naming
/// "timing.NAME" in the description.
Trn1Params trn1_params(const hw::Description& description);

struct EngineUsage {
  std::string name;
  double busy_ns = 0;
  double utilization = 0;  // busy / total
  int64_t instructions = 0;
};

/// One piece of the timeline: a record (or one DMA transfer of it) on a track
/// (0-3 the compute engines, 4 + q DMA queue q).
struct Span {
  int track = 0;
  int32_t record = 0;
  double start_ns = 0, end_ns = 0;
};

struct Timing {
  double total_ns = 0;  // launch + the schedule's makespan
  double launch_ns = 0;
  std::vector<EngineUsage> engines;  // tensor, vector, scalar, gpsimd, dma (all queues: busy / queues)
  std::vector<double> dma_queue_busy_ns;
  int64_t instructions = 0;
  int64_t folded_memsets = 0;  // PSUM zeroing folded into the first matmul
  int64_t dma_bytes = 0, dma_descriptors = 0, dma_transfers = 0;
  double schedule_seconds = 0;  // how long the model took
  std::vector<Span> spans;      // when asked for
};

/// Times `trace` under `params`; with `keep_spans` the timeline is kept too.
Timing time_trace(const Trace& trace, const Trn1Params& params, bool keep_spans = false);

/// The timing as JSON (total, engines, DMA), and the timeline as a Chrome
/// trace (one track per engine and DMA queue; opens in Perfetto).
std::string timing_json(const Timing& timing);
void write_chrome_trace(const Trace& trace, const Timing& timing, std::ostream& out);
/// The timing as a Markdown paragraph and table: total, each engine's busy
/// time and utilization, DMA traffic.
std::string timing_markdown(const Timing& timing);
/// The timeline (spans kept) as an SVG picture: one row per compute engine
/// and one for all DMA queues together, spans closer than a pixel merged.
std::string timeline_svg(const Timing& timing);

/// The whole path for a caller such as the trn1 target: load the trace file
/// and time it with the description's parameters.
Timing time_trace_file(const std::string& trace_path, const hw::Description& description, bool keep_spans = false);

}  // namespace axon::timing
