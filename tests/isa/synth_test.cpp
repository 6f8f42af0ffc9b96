// Instruction synthesis: holes filled from the description's instructions,
// each choice proved; the search finds operand orders and conversions.
#include "isa/synth.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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

// A streaming store (nontemporal in the description) fills only a hole that
// asks for one, even where it is the cheaper store; that hole takes nothing
// else, and a description without one has no lowering for it.
TEST(Synthesis, StreamingStoresOnlyWhereAsked) {
  std::ifstream in(kHw + "x86-avx2.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string json = buffer.str();
  size_t at = json.find("\"name\": \"stream_ps\"");
  ASSERT_NE(at, std::string::npos);
  std::string cheaper = json;
  const std::string slow = "\"throughput\": 1.0";
  size_t cost = cheaper.find(slow, at);
  ASSERT_NE(cost, std::string::npos);
  cheaper.replace(cost, slow.size(), "\"throughput\": 8.0");
  std::string without = json;
  const std::string flags = "\"nontemporal\": true,\n      \"fence\": \"_mm_sfence()\",";
  ASSERT_NE(without.find(flags), std::string::npos);
  without.replace(without.find(flags), flags.size(), "");
  for (const std::string* text : {&json, &cheaper, &without}) {
    hw::Description target = hw::parse_description(*text, kHw + "variant.json");
    smt::Prover prover;
    Synthesizer synth(target, prover);
    Spec store = spec_from_source("store", "def h(v: 'f32[8]'):\n    return v", {"ymm"}, "dram", {});
    Spec stream = store;
    stream.nontemporal = true;
    std::optional<Lowering> plain = synth.lower(store), streaming = synth.lower(stream);
    ASSERT_TRUE(plain);
    if (text == &without) {  // stream_ps is an ordinary store there
      EXPECT_FALSE(streaming) << streaming->tree.str();
      continue;
    }
    EXPECT_EQ(plain->tree.str(), "storeu_ps(l0)");
    ASSERT_TRUE(streaming);
    EXPECT_EQ(streaming->tree.str(), "stream_ps(l0)");
    EXPECT_EQ(streaming->proof.verdict, smt::Verdict::Proved);
    EXPECT_EQ(emit_text(streaming->tree, {"v"}, {}, "p"), "axon_stream_ps(p, v)");
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

// trn1: an activation's scale may be a neutral number the spec does not
// have, and a column may be negated to become its bias: exp(x - m) is one
// Scalar-engine instruction (with the negation on the column), proved.
TEST(Synthesis, Trn1NeutralImmediatesAndNegatedColumns) {
  hw::Description target = hw::load_description(kHw + "trn1.json");
  smt::Prover prover;
  Synthesizer synth(target, prover);
  std::map<std::string, std::pair<int64_t, int64_t>> ranges{{"P", {1, 128}}, {"F", {1, 512}}};
  Spec spec = spec_from_source("exp of shifted", "def h(x: 'f32[P, F]', m: 'f32[P, 1]'):\n    return np.exp(x - m)",
                               {"sbuf", "sbuf"}, "sbuf", ranges);
  std::optional<Lowering> l = synth.lower(spec);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->proof.verdict, smt::Verdict::Proved);
  EXPECT_EQ(l->tree.instr->name, "activation_exp_affine") << l->tree.str();
  ASSERT_EQ(l->tree.args.size(), 3u);
  ASSERT_TRUE(l->tree.args[1].constant.has_value());
  EXPECT_EQ(*l->tree.args[1].constant, 1.0);
  ASSERT_TRUE(l->tree.args[2].instr);
  EXPECT_EQ(l->tree.args[2].args.at(0).leaf, 1);
  EXPECT_EQ(emit_text(l->tree, {"x", "m"}, {{"P", 128}, {"F", 512}}).substr(0, 49),
            "nisa.activation(op=nl.exp, data=x, scale=1, bias=");

  // A plain product needs no invented number: the tie goes to the tree without one.
  Spec mul = spec_from_source("scale", "def h(x: 'f32[P, F]', s: 'f32[P, 1]'):\n    return x * s", {"sbuf", "sbuf"},
                              "sbuf", ranges);
  std::optional<Lowering> m = synth.lower(mul);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tree.str(), "tensor_scalar_mul(l0, l1, F=F, P=P)");
}

// A fused instruction is used only once the prover shows it computes its
// second instruction over its first; one whose semantics disagree is refused.
TEST(Synthesis, FusionsAreProvedBeforeUse) {
  hw::Description target = hw::load_description(kHw + "trn1.json");
  auto named = [&](const std::string& name) -> const hw::Instruction& {
    for (const hw::Instruction& i : target.instructions)
      if (i.name == name) return i;
    throw std::runtime_error("no instruction " + name);
  };
  smt::Prover prover;
  Synthesizer synth(target, prover);
  const hw::Instruction& fused = named("activation_exp_affine_reduce_add");
  ASSERT_EQ(fused.fuses, (std::vector<std::string>{"activation_exp_affine", "tensor_reduce_add"}));
  std::optional<Lowering> proved = synth.prove_fusion(fused, named("activation_exp_affine"), named("tensor_reduce_add"));
  ASSERT_TRUE(proved);
  EXPECT_EQ(proved->proof.verdict, smt::Verdict::Proved);
  // The same fused instruction does not compute a max over the exponentials.
  EXPECT_FALSE(synth.prove_fusion(fused, named("activation_exp_affine"), named("tensor_reduce_max")));
  // Nor the sum of another activation.
  EXPECT_FALSE(synth.prove_fusion(fused, named("activation_tanh_affine"), named("tensor_reduce_add")));
  // A fused instruction is never a candidate of a hole: a row sum is tensor_reduce_add.
  Spec sum = spec_from_source("sum", "def h(x: 'f32[P, F]'):\n    return np.sum(x, axis=1, keepdims=True)", {"sbuf"},
                              "sbuf", {{"P", {1, 128}}, {"F", {1, 512}}});
  std::optional<Lowering> l = synth.lower(sum);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->tree.str(), "tensor_reduce_add(l0, F=F, P=P)");
}

}  // namespace
}  // namespace axon::isa
