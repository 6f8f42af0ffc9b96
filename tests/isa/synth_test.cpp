// Instruction synthesis: holes filled from the description's instructions,
// each choice proved; the search finds operand orders and conversions.
#include "isa/synth.h"

#include <gtest/gtest.h>

#include "hw/description.h"

namespace axon::isa {
namespace {

const std::string kHw = std::string(AXON_SOURCE_DIR) + "/hw/";

struct Row {
  std::string text;                 // the hole as a def
  std::vector<std::string> spaces;  // of its parameters
  std::string result_space;
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  std::string expected;  // InstrTree::str(), or "" for none
};

TEST(Synthesis, Avx2HolesTable) {
  hw::Description target = hw::load_description(kHw + "x86-avx2.json");
  smt::Prover prover;
  Synthesizer synth(target, prover);
  std::vector<Row> rows = {
      {"def h(x: 'f32[8]'):\n    return x", {"dram"}, "ymm", {}, "loadu_ps(l0)"},
      {"def h(x: 'f32[R]'):\n    return x", {"dram"}, "ymm", {{"R", {1, 7}}}, "maskload_ps(l0, R=R)"},
      {"def h(s: 'f32[]'):\n    return np.broadcast_to(s, (8,))", {"dram"}, "ymm", {}, "set1_ps(load_ss(l0))"},
      {"def h(x: 'f32[8, S]'):\n    return x[:, 0]",
       {"dram"},
       "ymm",
       {{"S", {2, 1 << 30}}},
       "loadu_strided_ps(l0, S=S)"},
      // a < b is b > a: the operands are swapped.
      {"def h(a: 'f32[8]', b: 'f32[8]', c: 'f32[8]', d: 'f32[8]'):\n    return np.where(a < b, c, d)",
       {"ymm", "ymm", "ymm", "ymm"},
       "ymm",
       {},
       "select_gt_ps(l1, l0, l2, l3)"},
      {"def h(x: 'f32[8]'):\n    return 1.0 / np.sqrt(x)", {"ymm"}, "ymm", {}, "rsqrt_ps(l0)"},
      {"def h(acc: 'f32[8]', a: 'f32[8]', b: 'f32[8]'):\n    return acc + a * b",
       {"ymm", "ymm", "ymm"},
       "ymm",
       {},
       "fmadd_ps(l1, l2, l0)"},
      {"def h(x: 'f32[8]'):\n    return np.sum(x)", {"ymm"}, "ymm", {}, "reduce_add_ps(l0)"},
      // No instruction computes a cube root.
      {"def h(x: 'f32[8]'):\n    return x ** 0.3", {"ymm"}, "ymm", {}, ""},
  };
  for (const Row& r : rows) {
    Spec spec = spec_from_source("test", r.text, r.spaces, r.result_space, r.ranges);
    std::optional<Lowering> l = synth.lower(spec);
    std::string got = l ? l->tree.str() : "";
    EXPECT_EQ(got, r.expected) << "hole:\n" << r.text;
    if (l) {
      EXPECT_EQ(l->proof.verdict, smt::Verdict::Proved) << r.text;
    }
  }
}

TEST(Synthesis, EmitTextFillsOperandsAndSizes) {
  hw::Description target = hw::load_description(kHw + "x86-avx2.json");
  smt::Prover prover;
  Synthesizer synth(target, prover);
  Spec spec = spec_from_source("tail", "def h(x: 'f32[R]'):\n    return x", {"dram"}, "ymm", {{"R", {1, 7}}});
  std::optional<Lowering> l = synth.lower(spec);
  ASSERT_TRUE(l);
  EXPECT_EQ(emit_text(l->tree, {"p"}, {{"R", 3}}), "_mm256_maskload_ps(p, axon_tail_mask8(3))");
}

}  // namespace
}  // namespace axon::isa
