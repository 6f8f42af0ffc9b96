// ISA synthesis: fill a hole of a lowering sketch with target instructions.
//
// A hole is a Spec: a small tensor expression over typed leaves, each leaf in
// a memory space of the target (a vector in registers, a scalar in memory, a
// tile in SBUF...). The synthesizer enumerates instruction trees from the
// description, at most two deep (an instruction whose operands are leaves or
// conversions of leaves: loads, broadcasts, transposes), filters them by
// running both sides on random inputs, and keeps the cheapest one that the
// prover proves equal to the spec for every value of the spec's symbolic
// sizes. Nothing here knows an instruction by name: they are data.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hw/description.h"
#include "smt/prover.h"

namespace axon::isa {

/// What a hole must compute. `root` is built in `graph` over `leaves` (Input
/// nodes 0..n-1). Symbolic sizes in the leaf types range over `ranges`.
struct Spec {
  std::shared_ptr<ir::Graph> graph = std::make_shared<ir::Graph>();
  std::vector<ir::NodeRef> leaves;
  std::vector<std::string> leaf_spaces;
  ir::NodeRef root = nullptr;
  std::string result_space;
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;  // symbolic size -> [lo, hi]
  std::string what;                                           // for reports: "add", "load (tail)", ...
  /// Only trees whose every instruction runs on one of these engines; empty: any.
  std::set<std::string> engines;
  /// A streaming store: the instructions that write the result's space are
  /// nontemporal ones (hw::Instruction::nontemporal). Otherwise none is.
  bool nontemporal = false;

  /// Adds leaf Input number leaves.size() with this type and space.
  ir::NodeRef leaf(const ir::TensorType& type, const std::string& space);
};

/// An instruction applied to operands: a node of a lowering. A leaf (instr ==
/// nullptr) stands for spec leaf `leaf`, or, with leaf < 0, for the number
/// `constant`: a neutral value (1, 0 or -1) that the synthesizer may give an
/// immediate operand that the spec leaves unused (an activation's scale of 1).
struct InstrTree {
  const hw::Instruction* instr = nullptr;
  int leaf = -1;
  std::vector<InstrTree> args;            // one per operand
  std::map<std::string, ir::Size> sizes;  // the instruction's size names, in the spec's sizes
  double cost = 0;                        // reciprocal throughputs, summed over the tree
  std::optional<double> constant = std::nullopt;  // a number leaf (leaf < 0)

  std::string str() const;  // "fmadd_ps(l0, set1_ps(l1), l2)"
};

/// A proved filling of a hole.
struct Lowering {
  InstrTree tree;
  std::string spec_text;  // the spec as one NumPy-like expression over l0, l1, ..., with their types
  smt::ProofResult proof;
};

class Synthesizer {
 public:
  Synthesizer(const hw::Description& target, smt::Prover& prover) : target_(target), prover_(prover) {}

  /// The cheapest proved instruction tree computing spec.root, or nullopt
  /// when none of the candidates is proved. Results are cached by the spec's text.
  std::optional<Lowering> lower(const Spec& spec);

  /// Every lowering used so far (for reports), in order of first use.
  const std::vector<Lowering>& used() const { return used_; }
  /// The proof that `fused` (an instruction whose description says it fuses
  /// `first` and then `then`) computes then(first(operands)) for all operands
  /// within `first`'s limits; nullopt when it is not proved. Cached; a proved
  /// fusion is listed in used() like a lowering.
  std::optional<Lowering> prove_fusion(const hw::Instruction& fused, const hw::Instruction& first,
                                       const hw::Instruction& then);

  /// The prover the lowerings are proved with (for other proofs of the
  /// same emission, which then share its cache).
  smt::Prover& prover() { return prover_; }

  int candidates_tried() const { return tried_; }
  int candidates_proved() const { return proved_; }

 private:
  const hw::Description& target_;
  smt::Prover& prover_;
  std::map<std::string, std::optional<Lowering>> cache_;
  std::vector<Lowering> used_;
  int tried_ = 0, proved_ = 0;
};

/// A hole written as NumPy: `text` is one `def` whose parameters are the
/// leaves (in `spaces`) and whose return value is the root.
Spec spec_from_source(const std::string& what, const std::string& text, const std::vector<std::string>& spaces,
                      const std::string& result_space, std::map<std::string, std::pair<int64_t, int64_t>> ranges);

/// The instruction's semantics with its parameters replaced by `args`, built in `into`.
ir::NodeRef instantiate(const hw::Instruction& instr, ir::Graph& into, const std::vector<ir::NodeRef>& args);

/// The text of `tree` for the emitter: each operand placeholder replaced by
/// the text of its argument (`leaf_text(i)` for leaves), each size name by its
/// value under `dims` and `{result}` by `result` (statement-form emits).
/// An emit pattern with each {name} that `fill` has replaced by its text
/// (other braces kept as written).
std::string fill_emit(const std::string& pattern, const std::map<std::string, std::string>& fill);

std::string emit_text(const InstrTree& tree, const std::vector<std::string>& leaf_text, const ir::Dims& dims,
                      const std::string& result = "");

}  // namespace axon::isa
