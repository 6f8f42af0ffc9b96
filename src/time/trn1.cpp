#include "time/trn1.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <queue>
#include <sstream>

namespace axon::timing {
namespace {

constexpr int kDmaTrack = kComputeQueues;

double parameter(const hw::Description& d, const std::string& name, double lo, double hi) {
  auto it = d.timing.find(name);
  SourceLoc where{std::make_shared<SourceFile>(SourceFile{d.path, ""}), 0, 0};
  if (it == d.timing.end())
    throw UserError(where, "timing." + name + ": missing (the trn1 timing model needs it; see hw/README.md)");
  double v = it->second.value;
  if (v < lo || v > hi)
    throw UserError(where, "timing." + name + ": " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "]");
  return v;
}

// ---------------------------------------------------------------------------
// Instruction costs (nki.md 4.2), in cycles of the instruction's engine.

bool any_operand(const Record& r, Space space) {
  for (const Operand& o : r.operands)
    if (o.space == space) return true;
  return false;
}

const Operand* first_read(const Record& r) {
  for (const Operand& o : r.operands)
    if (o.read && !o.written) return &o;
  return r.operands.empty() ? nullptr : &r.operands.front();
}

double compute_cycles(const Record& r, const Trn1Params& p, bool new_stationary) {
  const double n = static_cast<double>(std::max<int64_t>(r.n, 1));
  const double ii = p.min_ii_cycles;
  bool f32_inputs = false, all_bf16 = true;
  int reads = 0;
  for (const Operand& o : r.operands)
    if (o.read && !o.written) {
      ++reads;
      f32_inputs |= o.is_f32;
      all_bf16 &= o.dtype_bytes == 2;
    }
  double cycles = 0;
  switch (r.opcode) {
    case Opcode::Matmul: {
      double m = static_cast<double>(r.mkn[0]), moving = static_cast<double>(r.mkn[2]);
      double factor = f32_inputs ? p.matmul_f32_factor : 1;
      cycles = std::max(std::min(ii, m), moving) * factor;
      if (new_stationary) cycles = std::max(cycles, std::max(m, ii) / p.load_stationary_speedup * factor);
      return cycles;
    }
    case Opcode::Transpose: {
      const Operand* in = first_read(r);
      if (r.queue != Queue::Tensor) return std::max(ii, n);
      double parts = in ? in->p1 - in->p0 : 128;
      cycles = std::max(parts, std::min(ii, n));
      return cycles * (f32_inputs ? p.transpose_f32_factor : 1);
    }
    case Opcode::Activation: cycles = std::max(ii, n) + (r.reduces ? p.activation_reduce_cycles : 0); break;
    case Opcode::TensorTensor:
    case Opcode::ScalarTensorTensor: {
      bool fast = any_operand(r, Space::Psum) || all_bf16;
      cycles = std::max(ii, fast ? n : p.tensor_tensor_cycles_per_element * n);
      break;
    }
    case Opcode::Scan: cycles = std::max(ii, p.scan_cycles_per_element * n); break;
    case Opcode::Reciprocal: cycles = std::max(ii, p.reciprocal_cycles_per_element * n); break;
    case Opcode::BnAggr: cycles = std::max(ii, p.bn_aggr_cycles_per_element * n); break;
    case Opcode::TensorReduce: cycles = std::max(ii, all_bf16 ? n / 2 : n); break;
    case Opcode::Iota: cycles = p.iota_base_cycles + n; break;
    case Opcode::TensorScalar:
    case Opcode::TensorCopy:
    case Opcode::BnStats:
    case Opcode::Memset:
    case Opcode::Other:
    case Opcode::Load:
    case Opcode::Store:
    case Opcode::DmaCopy:
    case Opcode::DmaTranspose: cycles = std::max(ii, n); break;
  }
  // An inner stride above 16 bytes halves the access bandwidth.
  for (const Operand& o : r.operands)
    if (o.space != Space::Hbm && o.free_elements > 1 && o.contig <= o.dtype_bytes) {
      cycles *= p.stride_penalty;
      break;
    }
  return cycles;
}

// ---------------------------------------------------------------------------
// Dependences: the accesses to each allocation still able to order a later one.

struct Access {
  int32_t p0, p1;
  int64_t b0, b1;
  double end;  // when the access completed
  Queue queue;
  bool accumulate;  // a PSUM += on the Tensor engine
};

bool overlaps(const Access& a, const Operand& o) {
  return a.p0 < o.p1 && o.p0 < a.p1 && a.b0 < o.b1 && o.b0 < a.b1;
}
bool contains(const Operand& o, const Access& a) {
  return o.p0 <= a.p0 && a.p1 <= o.p1 && o.b0 <= a.b0 && a.b1 <= o.b1;
}

struct BufferState {
  std::vector<Access> reads, writes;
};

// Keeps a list short: past `limit` entries, the oldest half becomes one
// conservative entry (the union box, the latest end).
void bound(std::vector<Access>& list, size_t limit = 2048) {
  if (list.size() <= limit) return;
  size_t half = list.size() / 2;
  Access merged = list[0];
  for (size_t i = 1; i < half; ++i) {
    const Access& a = list[i];
    merged.p0 = std::min(merged.p0, a.p0), merged.p1 = std::max(merged.p1, a.p1);
    merged.b0 = std::min(merged.b0, a.b0), merged.b1 = std::max(merged.b1, a.b1);
    if (a.end > merged.end) merged.end = a.end, merged.queue = a.queue;
    merged.accumulate = false;
  }
  list.erase(list.begin() + 1, list.begin() + static_cast<long>(half));
  list[0] = merged;
}

// ---------------------------------------------------------------------------
// A shared port: busy intervals; an instruction takes the first gap that fits.

class Port {
 public:
  double earliest(double t, double d) const {
    auto it = busy_.upper_bound(t);
    if (it != busy_.begin()) {
      auto prev = std::prev(it);
      if (prev->second > t) t = prev->second;
    }
    for (; it != busy_.end() && it->first < t + d; ++it) t = std::max(t, it->second);
    return t;
  }
  void take(double start, double end) {
    if (end <= start) return;
    auto next = busy_.lower_bound(start);
    if (next != busy_.end() && next->first <= end) {  // touches the next interval: join it
      end = std::max(end, next->second);
      next = busy_.erase(next);
    }
    if (next != busy_.begin()) {
      auto prev = std::prev(next);
      if (prev->second >= start) {
        prev->second = std::max(prev->second, end);
        return;
      }
    }
    busy_.emplace(start, end);
  }

 private:
  std::map<double, double> busy_;  // start -> end, disjoint
};

// ---------------------------------------------------------------------------
// On-chip capacity: bytes per partition held from an allocation's first use
// to its last.

class Capacity {
 public:
  explicit Capacity(double limit) : limit_(limit) {}
  // The earliest time >= t at which `bytes` more fit.
  double acquire(double bytes, double t) {
    used_ += bytes;
    while (used_ > limit_ && !freed_.empty()) {
      t = std::max(t, freed_.top().first);
      used_ -= freed_.top().second;
      freed_.pop();
    }
    return t;
  }
  void release(double bytes, double at) { freed_.push({at, bytes}); }

 private:
  using Entry = std::pair<double, double>;  // (free at, bytes)
  double limit_, used_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> freed_;
};

struct DmaQueue {
  double free = 0;            // when its bandwidth is next free
  std::vector<double> slots;  // completion times of the transfers in flight
};

class Scheduler {
 public:
  Scheduler(const Trace& trace, const Trn1Params& p, bool keep_spans)
      : trace_(trace), p_(p), keep_(keep_spans), sbuf_(p.sbuf_bytes_per_partition), psum_(p.psum_bytes_per_partition) {
    dma_.resize(static_cast<size_t>(p.dma_queues));
    for (DmaQueue& q : dma_) q.slots.assign(static_cast<size_t>(p.dma_outstanding), 0.0);
    fold_psum_zeroing();
    // The first and last record touching each on-chip allocation.
    for (size_t i = 0; i < trace.records.size(); ++i)
      if (!folded_[i])
        for (const Operand& o : trace.records[i].operands) {
          if (o.buf < 0) continue;
          size_t b = static_cast<size_t>(o.buf);
          if (b >= first_.size()) first_.resize(b + 1, -1), last_.resize(b + 1, -1), buffers_.resize(b + 1);
          if (first_[b] < 0) first_[b] = static_cast<int64_t>(i);
          last_[b] = static_cast<int64_t>(i);
        }
  }

  Timing run() {
    Timing t;
    t.engines.resize(kComputeQueues + 1);
    for (int e = 0; e <= kComputeQueues; ++e)
      t.engines[static_cast<size_t>(e)].name = queue_name(static_cast<Queue>(e));
    t.dma_queue_busy_ns.assign(dma_.size(), 0);
    double makespan = 0;
    for (size_t i = 0; i < trace_.records.size(); ++i) {
      const Record& r = trace_.records[i];
      if (folded_[i]) continue;
      auto [start, end] = r.queue == Queue::Dma ? schedule_dma(r, i, t) : schedule_compute(r, i, t);
      makespan = std::max(makespan, end);
      (void)start;
      ++t.engines[static_cast<size_t>(r.queue)].instructions;
    }
    t.instructions = static_cast<int64_t>(trace_.records.size());
    t.folded_memsets = std::count(folded_.begin(), folded_.end(), true);
    t.launch_ns = p_.launch_ns;
    t.total_ns = makespan + p_.launch_ns;
    double dma_busy = 0;
    for (size_t q = 0; q < dma_.size(); ++q) dma_busy += t.dma_queue_busy_ns[q];
    t.engines[kComputeQueues].busy_ns = dma_.empty() ? 0 : dma_busy / static_cast<double>(dma_.size());
    for (EngineUsage& e : t.engines) e.utilization = t.total_ns > 0 ? e.busy_ns / t.total_ns : 0;
    return t;
  }

 private:
  // nl.zeros of a PSUM tile followed by matmuls accumulating into all of it
  // costs nothing on the hardware: the first matmul of the group overwrites
  // instead of accumulating (an inference from the ISA's accumulate flag; the
  // memset the simulator records is dropped).
  void fold_psum_zeroing() {
    const std::vector<Record>& records = trace_.records;
    folded_.assign(records.size(), false);
    std::map<int64_t, size_t> zeroed;  // PSUM buf -> its pending memset
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      for (const Operand& o : r.operands) {
        auto it = zeroed.find(o.buf);
        if (it == zeroed.end()) continue;
        const Operand& zero = records[it->second].operands.back();
        if (r.opcode == Opcode::Matmul && r.accumulate && o.written && o.p0 <= zero.p0 && zero.p1 <= o.p1 &&
            o.b0 <= zero.b0 && zero.b1 <= o.b1)
          folded_[it->second] = true;
        zeroed.erase(it);
      }
      if (r.opcode == Opcode::Memset && r.operands.size() == 1 && r.operands[0].space == Space::Psum)
        zeroed[r.operands[0].buf] = i;
    }
  }

  // When a record on `queue` may read what `a` wrote.
  double ready_after_write(const Access& a, Queue queue, bool accumulate) const {
    if (a.queue != queue) return a.end + p_.sync_ns;
    if (queue == Queue::Tensor)
      return accumulate && a.accumulate ? a.end : a.end + cycles_ns(p_.matmul_latency_cycles, queue);
    if (queue == Queue::Dma) return a.end;
    return a.end + cycles_ns(p_.dependent_overhead_cycles + 2 * p_.access_overhead_cycles, queue);
  }
  double after(const Access& a, Queue queue) const { return a.queue == queue ? a.end : a.end + p_.sync_ns; }

  double cycles_ns(double cycles, Queue q) const { return cycles / p_.clock_ghz[static_cast<size_t>(q)]; }

  // The earliest start its operands allow, and capacity for new allocations.
  double operands_ready(const Record& r, size_t index, double t) {
    for (const Operand& o : r.operands) {
      BufferState& b = buffers_[static_cast<size_t>(o.buf)];
      if (o.read)
        for (const Access& a : b.writes)
          if (overlaps(a, o)) t = std::max(t, ready_after_write(a, r.queue, r.accumulate));
      if (o.written) {
        for (const Access& a : b.reads)
          if (overlaps(a, o)) t = std::max(t, after(a, r.queue));
        for (const Access& a : b.writes)
          if (overlaps(a, o)) t = std::max(t, r.accumulate && a.accumulate ? a.end : after(a, r.queue));
      }
      int64_t& first = first_[static_cast<size_t>(o.buf)];
      if (o.space != Space::Hbm && first == static_cast<int64_t>(index)) {
        double bytes = static_cast<double>(std::max(o.alloc_bytes, o.b1));
        t = (o.space == Space::Psum ? psum_ : sbuf_).acquire(bytes, t);
        first = -2;  // acquired once, however many operands name it
      }
    }
    return t;
  }

  void record_accesses(const Record& r, size_t index, double end) {
    for (const Operand& o : r.operands) {
      BufferState& b = buffers_[static_cast<size_t>(o.buf)];
      Access a{o.p0, o.p1, o.b0, o.b1, end, r.queue, r.accumulate && r.queue == Queue::Tensor};
      if (o.written) {
        auto dominated = [&](const Access& x) { return contains(o, x); };
        b.reads.erase(std::remove_if(b.reads.begin(), b.reads.end(), dominated), b.reads.end());
        b.writes.erase(std::remove_if(b.writes.begin(), b.writes.end(), dominated), b.writes.end());
        b.writes.push_back(a);
        bound(b.writes);
      } else if (o.read) {
        bool merged = false;
        for (Access& x : b.reads)
          if (x.p0 == a.p0 && x.p1 == a.p1 && x.b0 == a.b0 && x.b1 == a.b1) {
            if (a.end >= x.end) x = a;
            merged = true;
            break;
          }
        if (!merged) b.reads.push_back(a), bound(b.reads);
      }
      size_t buf = static_cast<size_t>(o.buf);
      if (o.space != Space::Hbm && last_[buf] == static_cast<int64_t>(index)) {
        double bytes = static_cast<double>(std::max(o.alloc_bytes, o.b1));
        (o.space == Space::Psum ? psum_ : sbuf_).release(bytes, end);
        last_[buf] = -1;  // released once, however many operands name it
      }
    }
  }

  std::pair<double, double> schedule_compute(const Record& r, size_t index, Timing& t) {
    size_t e = static_cast<size_t>(r.queue);
    bool new_stationary = false;
    if (r.opcode == Opcode::Matmul && !r.operands.empty()) {
      const Operand& s = r.operands.front();
      new_stationary =
          s.buf != stationary_.buf || s.p0 != stationary_.p0 || s.b0 != stationary_.b0 || s.b1 != stationary_.b1;
      stationary_ = s;
    }
    double d = cycles_ns(compute_cycles(r, p_, new_stationary), r.queue);
    double start = operands_ready(r, index, engine_free_[e]);
    // Shared ports: Vector/GpSimd on SBUF, Vector/Scalar on PSUM.
    bool sbuf_port = (r.queue == Queue::Vector || r.queue == Queue::Gpsimd) && any_operand(r, Space::Sbuf);
    bool psum_port = (r.queue == Queue::Vector || r.queue == Queue::Scalar) && any_operand(r, Space::Psum);
    for (double before = -1; before != start;) {
      before = start;
      if (sbuf_port) start = sbuf_port_.earliest(start, d);
      if (psum_port) start = psum_port_.earliest(start, d);
    }
    double end = start + d;
    if (sbuf_port) sbuf_port_.take(start, end);
    if (psum_port) psum_port_.take(start, end);
    engine_free_[e] = end;
    t.engines[e].busy_ns += d;
    record_accesses(r, index, end);
    if (keep_) t.spans.push_back({static_cast<int>(e), static_cast<int32_t>(index), start, end});
    return {start, end};
  }

  std::pair<double, double> schedule_dma(const Record& r, size_t index, Timing& t) {
    if (r.operands.empty()) return {0, 0};
    const Operand& src = r.operands.front();
    const Operand& dst = r.operands.back();
    int64_t bytes = std::max<int64_t>(r.bytes, 0);
    int64_t run = std::max<int64_t>(1, std::min(src.contig, dst.contig));
    if (r.opcode == Opcode::DmaTranspose) run = src.dtype_bytes;  // one element per descriptor
    int64_t descriptors = bytes == 0 ? 0 : (bytes + run - 1) / run;
    const Operand& chip = dst.space != Space::Hbm ? dst : src;
    int64_t partitions = std::max(1, chip.p1 - chip.p0);
    int64_t per = std::max(1, p_.dma_partitions_per_transfer);
    int64_t transfers = std::clamp<int64_t>((partitions + per - 1) / per, 1, static_cast<int64_t>(dma_.size()));
    double ready = operands_ready(r, index, 0);
    // The transfers go to the queues whose bandwidth frees first.
    std::vector<size_t> order(dma_.size());
    for (size_t q = 0; q < order.size(); ++q) order[q] = q;
    std::partial_sort(order.begin(), order.begin() + transfers, order.end(), [&](size_t a, size_t b) {
      return dma_[a].free < dma_[b].free || (dma_[a].free == dma_[b].free && a < b);
    });
    double first = 1e300, last = 0;
    for (int64_t k = 0; k < transfers; ++k) {
      DmaQueue& q = dma_[order[static_cast<size_t>(k)]];
      double share_bytes = static_cast<double>(bytes) / static_cast<double>(transfers);
      double share_desc = std::ceil(static_cast<double>(descriptors) / static_cast<double>(transfers));
      auto slot = std::min_element(q.slots.begin(), q.slots.end());
      double start = std::max({ready, q.free, *slot});
      double occupancy =
          p_.dma_transfer_ns + share_desc * p_.dma_descriptor_ns + share_bytes / p_.dma_queue_bytes_per_ns;
      double done = start + occupancy + p_.dma_latency_ns;
      q.free = start + occupancy;
      *slot = done;
      t.dma_queue_busy_ns[order[static_cast<size_t>(k)]] += occupancy;
      first = std::min(first, start);
      last = std::max(last, done);
      if (keep_)
        t.spans.push_back(
            {kDmaTrack + static_cast<int>(order[static_cast<size_t>(k)]), static_cast<int32_t>(index), start, done});
    }
    t.dma_bytes += bytes;
    t.dma_descriptors += descriptors;
    t.dma_transfers += transfers;
    record_accesses(r, index, last);
    return {first, last};
  }

  const Trace& trace_;
  const Trn1Params& p_;
  bool keep_;
  std::array<double, kComputeQueues> engine_free_{};
  std::vector<DmaQueue> dma_;
  std::vector<BufferState> buffers_;
  std::vector<int64_t> first_, last_;
  std::vector<bool> folded_;
  Operand stationary_;
  Port sbuf_port_, psum_port_;
  Capacity sbuf_, psum_;
};

}  // namespace

Trn1Params trn1_params(const hw::Description& d) {
  Trn1Params p;
  const char* clocks[] = {"tensor_clock_ghz", "vector_clock_ghz", "scalar_clock_ghz", "gpsimd_clock_ghz"};
  for (size_t e = 0; e < p.clock_ghz.size(); ++e) p.clock_ghz[e] = parameter(d, clocks[e], 0.01, 100);
  p.min_ii_cycles = parameter(d, "min_ii_cycles", 0, 1e6);
  p.dependent_overhead_cycles = parameter(d, "dependent_overhead_cycles", 0, 1e6);
  p.access_overhead_cycles = parameter(d, "access_overhead_cycles", 0, 1e6);
  p.matmul_latency_cycles = parameter(d, "matmul_latency_cycles", 0, 1e6);
  p.matmul_f32_factor = parameter(d, "matmul_f32_factor", 1, 64);
  p.load_stationary_speedup = parameter(d, "load_stationary_speedup", 1, 64);
  p.transpose_f32_factor = parameter(d, "transpose_f32_factor", 1, 64);
  p.stride_penalty = parameter(d, "stride_penalty", 1, 64);
  p.activation_reduce_cycles = parameter(d, "activation_reduce_cycles", 0, 1e6);
  p.tensor_tensor_cycles_per_element = parameter(d, "tensor_tensor_cycles_per_element", 0.01, 1e3);
  p.reciprocal_cycles_per_element = parameter(d, "reciprocal_cycles_per_element", 0.01, 1e3);
  p.scan_cycles_per_element = parameter(d, "scan_cycles_per_element", 0.01, 1e3);
  p.bn_aggr_cycles_per_element = parameter(d, "bn_aggr_cycles_per_element", 0.01, 1e3);
  p.iota_base_cycles = parameter(d, "iota_base_cycles", 0, 1e6);
  p.sync_ns = parameter(d, "sync_ns", 0, 1e6);
  p.dma_queues = static_cast<int>(parameter(d, "dma_queues", 1, 1024));
  p.dma_queue_bytes_per_ns = parameter(d, "dma_queue_bytes_per_ns", 1e-3, 1e6);
  p.dma_transfer_ns = parameter(d, "dma_transfer_ns", 0, 1e6);
  p.dma_descriptor_ns = parameter(d, "dma_descriptor_ns", 0, 1e6);
  p.dma_latency_ns = parameter(d, "dma_latency_ns", 0, 1e7);
  p.dma_outstanding = static_cast<int>(parameter(d, "dma_outstanding", 1, 1024));
  p.dma_partitions_per_transfer = static_cast<int>(parameter(d, "dma_partitions_per_transfer", 1, 128));
  p.sbuf_bytes_per_partition = parameter(d, "sbuf_bytes_per_partition", 1, 1e9);
  p.psum_bytes_per_partition = parameter(d, "psum_bytes_per_partition", 1, 1e9);
  p.launch_ns = parameter(d, "launch_ns", 0, 1e9);
  return p;
}

Timing time_trace(const Trace& trace, const Trn1Params& params, bool keep_spans) {
  auto begin = std::chrono::steady_clock::now();
  Timing t = Scheduler(trace, params, keep_spans).run();
  t.schedule_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return t;
}

Timing time_trace_file(const std::string& trace_path, const hw::Description& description, bool keep_spans) {
  Trn1Params params = trn1_params(description);
  return time_trace(load_trace(trace_path), params, keep_spans);
}

std::string timing_json(const Timing& t) {
  nlohmann::ordered_json j;
  j["total_ns"] = t.total_ns;
  j["total_ms"] = t.total_ns * 1e-6;
  j["launch_ns"] = t.launch_ns;
  j["instructions"] = t.instructions;
  j["folded_psum_memsets"] = t.folded_memsets;
  nlohmann::ordered_json engines = nlohmann::ordered_json::object();
  for (const EngineUsage& e : t.engines)
    engines[e.name] = {{"busy_ns", e.busy_ns}, {"utilization", e.utilization}, {"instructions", e.instructions}};
  j["engines"] = engines;
  j["dma"] = {{"bytes", t.dma_bytes},
              {"descriptors", t.dma_descriptors},
              {"transfers", t.dma_transfers},
              {"queue_busy_ns", t.dma_queue_busy_ns}};
  j["schedule_seconds"] = t.schedule_seconds;
  return j.dump(1);
}

std::string timing_markdown(const Timing& t) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << "Simulated " << t.total_ns * 1e-3 << " us on one NeuronCore-v2 (launch " << t.launch_ns * 1e-3 << " us), "
      << t.instructions << " instructions; DMA moved " << t.dma_bytes << " B in " << t.dma_transfers
      << " transfers of " << t.dma_descriptors << " descriptors.\n\n"
      << "| engine | busy us | utilization | instructions |\n|---|---|---|---|\n";
  for (const EngineUsage& e : t.engines)
    out << "| " << e.name << " | " << e.busy_ns * 1e-3 << " | " << std::setprecision(1) << 100 * e.utilization
        << "% | " << e.instructions << " |\n"
        << std::setprecision(3);
  return out.str();
}

std::string timeline_svg(const Timing& t) {
  const double width = 900, left = 60, row = 18, gap = 4;
  const int rows = kComputeQueues + 1;
  const char* names[] = {"tensor", "vector", "scalar", "gpsimd", "dma"};
  double height = rows * (row + gap) + 24;
  double scale = t.total_ns > 0 ? (width - left - 10) / t.total_ns : 0;
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" role=\"img\" aria-label=\"simulated timeline\">\n";
  std::vector<std::vector<std::pair<double, double>>> merged(static_cast<size_t>(rows));
  for (const Span& s : t.spans) {
    size_t r = static_cast<size_t>(std::min(s.track, rows - 1));
    double x0 = left + s.start_ns * scale, x1 = std::max(x0 + 0.5, left + s.end_ns * scale);
    auto& spans = merged[r];
    if (!spans.empty() && x0 <= spans.back().second + 1.0)
      spans.back().second = std::max(spans.back().second, x1);
    else
      spans.emplace_back(x0, x1);
  }
  for (int r = 0; r < rows; ++r) {
    double y = r * (row + gap);
    out << "<text x=\"0\" y=\"" << y + row - 5 << "\">" << names[r] << "</text>\n";
    out << "<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << width - left - 10 << "\" height=\"" << row
        << "\" fill=\"#f2f2f2\"/>\n";
    for (const auto& [x0, x1] : merged[static_cast<size_t>(r)])
      out << "<rect x=\"" << x0 << "\" y=\"" << y << "\" width=\"" << x1 - x0 << "\" height=\"" << row
          << "\" fill=\"" << (r == rows - 1 ? "#c77c2e" : "#3b6ea8") << "\"/>\n";
  }
  out << "<text x=\"" << left << "\" y=\"" << height - 6 << "\">0</text><text x=\"" << width - 10
      << "\" y=\"" << height - 6 << "\" text-anchor=\"end\">" << std::setprecision(2) << t.total_ns * 1e-3
      << " us</text>\n</svg>\n";
  return out.str();
}

void write_chrome_trace(const Trace& trace, const Timing& t, std::ostream& out) {
  // Chrome's trace-event format: complete events ("ph": "X") in microseconds,
  // one thread per engine and DMA queue.
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  int tracks = kComputeQueues + static_cast<int>(t.dma_queue_busy_ns.size());
  for (int k = 0; k < tracks; ++k) {
    std::string name =
        k < kComputeQueues ? queue_name(static_cast<Queue>(k)) : "dma" + std::to_string(k - kComputeQueues);
    out << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":" << k << ",\"args\":{\"name\":\"" << name
        << "\"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":" << k
        << ",\"args\":{\"sort_index\":" << k << "}},\n";
  }
  char number[64];
  for (const Span& s : t.spans) {
    const Record& r = trace.records[static_cast<size_t>(s.record)];
    out << "{\"ph\":\"X\",\"pid\":0,\"tid\":" << s.track << ",\"name\":" << nlohmann::json(r.op).dump();
    std::snprintf(number, sizeof number, ",\"ts\":%.4f,\"dur\":%.4f", s.start_ns * 1e-3,
                  (s.end_ns - s.start_ns) * 1e-3);
    out << number << ",\"args\":{\"seq\":" << r.seq << ",\"loc\":" << nlohmann::json(r.loc).dump() << "}},\n";
  }
  out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"NeuronCore-v2 (axon time, "
         "simulated)\"}}\n]}\n";
}

}  // namespace axon::timing
