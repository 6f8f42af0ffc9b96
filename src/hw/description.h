// Hardware descriptions: the targets' memories, engines and instructions,
// loaded from hw/<name>.json (format: hw/README.md) and validated. An
// instruction's meaning is a NumPy-subset expression compiled by Axon's own
// front end, so it has the same index-expression semantics (src/sem) as
// kernels and can be proved against them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/program.h"

namespace axon::hw {

struct Memory {
  std::string name;
  int64_t capacity_bytes = 0;
  double bandwidth_gbps = 0;
  std::vector<std::string> read_by, written_by;  // engines
};

struct Engine {
  std::string name;
  int units = 1;
  double clock_ghz = 0;
};

struct Operand {
  std::string name;  // empty for a result
  std::string space;  // a memory name
  ir::TensorType type;
  /// A compile-time number may stand for it (an NKI float argument such as
  /// tensor_scalar's operand0 or activation's scale) instead of a tile.
  bool immediate = false;
};

/// A cost that may depend on the instruction's sizes: a number, or a formula
/// over its size names with + - * / ( ) max min, e.g. "4 * max(min(64, M), N) + 100".
class Cost {
 public:
  Cost() = default;
  explicit Cost(std::string formula) : formula_(std::move(formula)) {}
  /// The value at the given sizes (names missing from `dims` are an error).
  double at(const ir::Dims& dims) const;
  const std::string& formula() const { return formula_; }

 private:
  std::string formula_ = "0";
};

struct Instruction {
  std::string name;
  std::string engine;
  std::vector<Operand> operands;
  Operand result;
  std::map<std::string, std::pair<int64_t, int64_t>> limits;  // size name -> [lo, hi]
  std::string semantics_text;
  /// The semantics as a kernel whose parameters are the operands, in order.
  ir::Program semantics;
  std::string accuracy;  // "exact" unless stated
  Cost latency, throughput;  // cycles; results per cycle per unit
  std::string emit;          // {operand}, {result} and {SIZE} placeholders
  /// A fused instruction: [first, then], two instructions of the description
  /// that it runs as one. Its operands are first's, its result then's (of
  /// first's result); its emitted call also returns first's result, and
  /// {result} names the tile that then's result is written to. Proved
  /// before use (isa::Synthesizer::prove_fusion); never a candidate of a hole.
  std::vector<std::string> fuses;
  /// A store that bypasses the caches (a streaming or non-temporal store):
  /// never a candidate of an ordinary hole, only of one that asks for it
  /// (isa::Spec::nontemporal). `fence` is the statement each thread runs
  /// after its last such store, before another thread or the caller reads
  /// what it wrote (they are weakly ordered); required with nontemporal.
  bool nontemporal = false;
  std::string fence;
};

/// One number of a timing model (the "timing" object of a description): its
/// value, unit and where it comes from, as the file states them.
struct TimingParameter {
  double value = 0;
  std::string unit;
  std::string source;  // "documented", "derived", "fitted guess" or "guess"
  std::string note;    // optional: the reference, or why the value was chosen
};

struct Description {
  std::string path, name, target, summary;
  int cores = 1;
  /// cpu targets: a C++ header (path relative to the description's folder)
  /// defining the helpers that emit texts call; flags for the system
  /// compiler; the CPU feature (__builtin_cpu_supports name) needed to run.
  std::string prelude, compile_flags, requires_cpu;
  /// cpu targets: the vendor whose processors the numbers were measured on
  /// ("intel", "amd"; "" for none in particular): `--target cpu` picks a
  /// description of this CPU's vendor first. It does not limit where a
  /// kernel runs (requires_cpu does).
  std::string cpu_vendor;
  std::vector<Memory> memories;
  std::vector<Engine> engines;
  std::vector<Instruction> instructions;
  /// Timing-model parameters by name (empty when the file has no "timing").
  /// Each value is finite and >= 0; a model checks which names it needs.
  std::map<std::string, TimingParameter> timing;
  std::string content_hash;  // of the file's bytes: part of cache keys

  const Instruction* find(const std::string& instruction) const;
};

/// Loads and validates `path`. Every problem is a UserError that names the
/// field (e.g. "instructions[3].cost.latency: expected a number").
Description load_description(const std::string& path);

/// The same from text in memory (tests).
Description parse_description(const std::string& text, const std::string& path);

}  // namespace axon::hw
