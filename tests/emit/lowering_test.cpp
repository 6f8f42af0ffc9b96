// Lowering end to end below the command line: golden emitted code, the
// test-only fused instruction picked up from data, and Trainium lowerings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "emit/cpu.h"
#include "emit/nki.h"
#include "eval/bind.h"
#include "fuse/epilogue.h"
#include "hw/description.h"
#include "lang/load.h"
#include "tune/runner.h"

namespace axon {
namespace {

const std::string kSource = AXON_SOURCE_DIR;

struct Lowered {
  emit::CpuKernel kernel;
  std::vector<std::string> instructions;  // every instruction name used
  bool all_proved = true;
};

Lowered lower_cpu_on(const ir::Program& program, const ir::Dims& dims, const hw::Description& target) {
  tile::Plan plan = tile::plan_function(program.kernel, dims);
  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  Lowered l;
  l.kernel = emit::emit_cpu(plan, program.kernel, target, synth);
  std::function<void(const isa::InstrTree&)> walk = [&](const isa::InstrTree& t) {
    if (t.instr) l.instructions.push_back(t.instr->name);
    for (const isa::InstrTree& a : t.args) walk(a);
  };
  for (const isa::Lowering& used : synth.used()) {
    walk(used.tree);
    l.all_proved = l.all_proved && used.proof.verdict == smt::Verdict::Proved;
  }
  return l;
}

Lowered lower_cpu(const std::string& program_path, const ir::Dims& dims, const std::string& target_path) {
  return lower_cpu_on(lang::load_program(program_path), dims, hw::load_description(target_path));
}

// The program's "test" preset, bound.
ir::Dims test_dims(const ir::Program& program) {
  return eval::bind_dims(program.kernel, program.size_presets.at("test"),
                         std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
}

bool uses(const Lowered& l, const std::string& name) {
  return std::find(l.instructions.begin(), l.instructions.end(), name) != l.instructions.end();
}

// Emitted code is compared with a committed file; AXON_UPDATE_GOLDEN=1 rewrites it.
void expect_golden(const std::string& name, const std::string& text) {
  std::string path = kSource + "/tests/emit/golden/" + name;
  const char* update = std::getenv("AXON_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing: run the tests once with AXON_UPDATE_GOLDEN=1";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(want.str(), text) << "emitted code differs from " << path
                              << " (if the change is intended: AXON_UPDATE_GOLDEN=1 ctest -R Golden)";
}

// The kernel without the prelude (which is the description's file, not emitted code).
std::string kernel_part(const std::string& source) {
  return source.substr(source.find("// ---- kernel ----"));
}

TEST(Golden, RmsnormAvx2) {
  Lowered l = lower_cpu(kSource + "/examples/rmsnorm.py", {{"M", 7}, {"N", 33}}, kSource + "/hw/x86-avx2.json");
  EXPECT_TRUE(l.all_proved);
  expect_golden("rmsnorm_avx2.cpp", kernel_part(l.kernel.source));
}

TEST(Golden, MatmulAvx512) {
  Lowered l =
      lower_cpu(kSource + "/bench/kernels/matmul.py", {{"M", 9}, {"K", 5}, {"N", 37}}, kSource + "/hw/x86-avx512.json");
  EXPECT_TRUE(l.all_proved);
  EXPECT_TRUE(uses(l, "fmadd_ps"));
  expect_golden("matmul_avx512.cpp", kernel_part(l.kernel.source));
}

// This machine may lack AVX-512: the emitted code is at least compiled.
TEST(Emit, Avx512KernelsCompile) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx512.json");
  for (std::string name : {"matmul", "softmax", "layernorm", "cumsum", "transpose"}) {
    ir::Program program = lang::load_program(kSource + "/bench/kernels/" + name + ".py");
    ir::Dims dims = test_dims(program);
    for (auto& [size, value] : dims) value += 3;  // tails
    tile::Plan plan = tile::plan_function(program.kernel, dims);
    smt::Prover prover;
    isa::Synthesizer synth(target, prover);
    emit::CpuKernel k = emit::emit_cpu(plan, program.kernel, target, synth);
    std::string dir = testing::TempDir() + "/avx512_" + name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/kernel.h") << k.header;
    std::ofstream(dir + "/kernel.cpp") << k.source;
    tune::CompileResult c = tune::compile_shared(dir + "/kernel.cpp", dir + "/kernel.so", target.compile_flags);
    EXPECT_TRUE(c.ok) << name << ":\n" << c.log;
  }
}

TEST(Synthesis, PicksUpTheFusedInstructionOfATestDescription) {
  std::string program = testing::TempDir() + "/fused_relu.py";
  std::ofstream(program) << "import numpy as np\n\ndef k(a: 'f32[M, N]', b: 'f32[M, N]', c: 'f32[M, N]'):\n"
                            "    return np.maximum(a * b + c, 0.0)\n";
  Lowered fused = lower_cpu(program, {{"M", 3}, {"N", 8}}, kSource + "/hw/test-fused.json");
  EXPECT_TRUE(fused.all_proved);
  EXPECT_TRUE(uses(fused, "fused_mul_add_relu"));
  EXPECT_NE(fused.kernel.source.find("_mm_max_ps(_mm_add_ps(_mm_mul_ps("), std::string::npos);  // its emit
  // The same program on AVX2, which has no such instruction, uses its own.
  Lowered plain = lower_cpu(program, {{"M", 3}, {"N", 8}}, kSource + "/hw/x86-avx2.json");
  EXPECT_FALSE(uses(plain, "fused_mul_add_relu"));
  EXPECT_TRUE(uses(plain, "max_ps"));
}

// A scan along the vector loop (cumsum over the last axis) runs a vector at a
// time, prefix sums of the lanes plus a carried total, with both steps
// synthesized from the description and proved. Without the prefix
// instruction, or with wrong semantics for it, it is not used: the scan
// runs one lane at a time.
TEST(Emit, ScansAlongTheVectorLoopUsePrefixSums) {
  ir::Program program = lang::load_program(kSource + "/bench/kernels/cumsum.py");
  const ir::Dims dims{{"M", 3}, {"N", 37}};  // vectors and a tail
  for (const char* name : {"x86-avx2.json", "x86-avx512.json"}) {
    std::ifstream in(kSource + "/hw/" + name);
    std::stringstream text;
    text << in.rdbuf();
    auto lower = [&](const std::string& json) {
      return lower_cpu_on(program, dims, hw::parse_description(json, kSource + "/hw/variant.json"));
    };
    Lowered vectors = lower(text.str());
    EXPECT_TRUE(vectors.all_proved) << name;
    EXPECT_TRUE(uses(vectors, "prefix_sum_ps")) << name;
    EXPECT_TRUE(uses(vectors, "bcast_last_ps")) << name;
    EXPECT_EQ(vectors.kernel.source.find("for (int64_t i1 = 0; i1 < 37; ++i1)"), std::string::npos) << name;
    std::string removed = text.str();
    size_t begin = removed.rfind("    {", removed.find("\"name\": \"prefix_sum_ps\""));
    removed.erase(begin, removed.find("    },", begin) + 7 - begin);
    std::string wrong = text.str();
    size_t at = wrong.find("np.cumsum(x, axis=0)");
    ASSERT_NE(at, std::string::npos) << name;
    wrong.replace(at, 20, "np.cumsum(np.abs(x), axis=0)");  // no correction recovers the sums
    for (const std::string& json : {removed, wrong}) {
      Lowered lanes = lower(json);
      EXPECT_TRUE(lanes.all_proved) << name;
      EXPECT_FALSE(uses(lanes, "prefix_sum_ps")) << name;
      EXPECT_NE(lanes.kernel.source.find("for (int64_t i1 = 0; i1 < 37; ++i1)"), std::string::npos) << name;
    }
  }
}

// The NKI kernel of a program at small sizes (partial tiles everywhere),
// with row groups and epilogues as the search's first plan has them.
std::string nki_of_file(const std::string& path, const std::optional<ir::Dims>& sizes = std::nullopt) {
  hw::Description target = hw::load_description(kSource + "/hw/trn1.json");
  ir::Program program = lang::load_program(path);
  ir::Dims dims = sizes ? *sizes : test_dims(program);
  tile::Plan plan = tile::plan_function(program.kernel, dims);
  fuse::fuse_epilogues(plan);
  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  std::string source = emit::emit_nki(plan, program.kernel, target, synth).source;
  for (const isa::Lowering& l : synth.used())
    EXPECT_EQ(l.proof.verdict, smt::Verdict::Proved) << path << ": " << l.spec_text;
  return source;
}

// The same for a bench kernel.
std::string nki_of(const std::string& name, const ir::Dims& dims) {
  return nki_of_file(kSource + "/bench/kernels/" + name + ".py", dims);
}

// Rotate-half RoPE with the concatenation outermost: the two halves run as
// one row group that loads each row of x once (both halves read both halves)
// and stores each row of the result once, its halves written side by side
// into one SBUF tile, not as two half-width DMAs each.
TEST(Trn1, ConcatenationPartsShareTheirRowsLoadsAndStores) {
  std::string source =
      nki_of_file(kSource + "/tests/trn1/programs/rope_halves.py", ir::Dims{{"H", 8}, {"S", 256}, {"E", 64}});
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = source.find(what); at != std::string::npos; at = source.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("nl.load(x["), 1u) << source;
  EXPECT_EQ(count("nl.store("), 1u) << source;
  EXPECT_NE(source.find("nl.load(x[i1, p0 * 128 + ip, jf])"), std::string::npos) << source;
  EXPECT_NE(source.find("[:, 0:64] = "), std::string::npos) << source;
  EXPECT_NE(source.find("[:, 64:128] = "), std::string::npos) << source;
}

// Intermediates whose accesses differ from the plain (rows, columns) layout
// stay in SBUF: dimensions of one dropped (a rank-0 sum, [1, N] and [N, 1, M]
// results), a dimension the program splits in two (heads), a buffer whose
// last dimension every access walks on the partitions (a column layout),
// loops of a single step, rows at a partition offset, one element of a row
// picked by an outer loop (retnet), and a column written as a row from a
// one-column tile (xent). Whether the kernels compute the right numbers is
// the trn1_programs test's to check, under the simulator.
TEST(Trn1, IntermediatesOfOtherLayoutsStayInSbuf) {
  for (std::string name : {"bloom_alibi_attention", "whisper_conv_stem", "einsum_basic", "reductions_full",
                           "scalars_fixed", "fixed_only", "retnet_decay_mask", "xent_ufunc_reduce"}) {
    std::string source = nki_of_file(kSource + "/tests/programs/" + name + ".py");
    EXPECT_EQ(source.find("buffer=nl.hbm)"), std::string::npos) << name << " keeps an intermediate in HBM:\n" << source;
    EXPECT_NE(source.find("kept in SBUF"), std::string::npos) << name << "\n" << source;
  }
  // Rows read or written at a partition offset (a concatenation's second
  // part, a shifted copy) move by DMA within SBUF, where no compute engine
  // may start; the copy is a proved lowering like any other.
  for (std::string name : {"concat", "rwkv_token_shift_pad"}) {
    std::string source = nki_of_file(kSource + "/tests/programs/" + name + ".py");
    EXPECT_EQ(source.find("buffer=nl.hbm)"), std::string::npos) << name << " keeps an intermediate in HBM:\n" << source;
    EXPECT_NE(source.find("nisa.dma_copy(dst="), std::string::npos) << name << "\n" << source;
  }
  // gpt2's heads: [S, H * D] written whole, read one head at a time; the
  // [H, T, T] scores stored straight into the [H * T, T] result's view.
  std::string heads = nki_of_file(kSource + "/tests/programs/gpt2_qkv_heads.py");
  EXPECT_NE(heads.find("scratch6 = nl.ndarray((5, 6), dtype=nl.float32, buffer=nl.sbuf)"), std::string::npos) << heads;
  EXPECT_EQ(heads.find("buffer=nl.hbm)"), std::string::npos) << heads;
  EXPECT_NE(heads.find("out0.reshape((2, 5, 5))"), std::string::npos) << heads;
  std::string flat = nki_of_file(kSource + "/tests/trn1/programs/flatten_result.py");
  EXPECT_EQ(flat.find("buffer=nl.hbm)"), std::string::npos) << flat;
  EXPECT_NE(flat.find("nl.store(out0_v0[ip, jf]"), std::string::npos) << flat;
}

TEST(Golden, RmsnormMatmulTrn1) {
  expect_golden("rmsnorm_matmul_trn1.py", nki_of("rmsnorm_matmul", {{"M", 5}, {"K", 130}, {"N", 65}}));
}
// An input that is the same for every head (rope's cos and sin) is loaded
// once per row tile: the head loop runs inside the row-tile loop, below the loads.
TEST(Trn1, LoopInvariantInputsAreLoadedAboveTheLoop) {
  std::string source = nki_of("rope", {{"H", 3}, {"S", 300}, {"D", 18}});
  size_t stage = source.find("# stage 2");
  ASSERT_NE(stage, std::string::npos) << source;
  size_t cos = source.find("nl.load(cos[", stage), head = source.find("for i", stage);
  ASSERT_NE(cos, std::string::npos) << source;
  ASSERT_NE(head, std::string::npos) << source;
  EXPECT_LT(cos, head) << source;
  EXPECT_NE(source.find("# loaded once for the loop", stage), std::string::npos) << source;
  // x, which each head reads at its own place, is loaded inside the head loop.
  EXPECT_GT(source.find("nl.load(x[", head), head) << source;
}

TEST(Golden, SoftmaxTrn1) {
  expect_golden("softmax_trn1.py", nki_of("softmax", {{"M", 130}, {"N", 65}}));
}
TEST(Golden, CumsumTrn1) {
  expect_golden("cumsum_trn1.py", nki_of("cumsum", {{"M", 33}, {"N", 65}}));
}

// Tile sizes come from the description: halve the moving operand's limit and the N tiles follow.
TEST(Trn1, TileSizesFollowTheDescriptionsLimits) {
  std::ifstream in(kSource + "/hw/trn1.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  for (size_t at = json.find("\"N\": [1, 512]"); at != std::string::npos; at = json.find("\"N\": [1, 512]", at))
    json.replace(at, 13, "\"N\": [1, 256]");
  hw::Description target = hw::parse_description(json, kSource + "/hw/trn1-narrow.json");
  ir::Program program = lang::load_program(kSource + "/bench/kernels/matmul.py");
  tile::Plan plan = tile::plan_function(program.kernel, {{"M", 200}, {"K", 300}, {"N", 600}});
  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  std::string source = emit::emit_nki(plan, program.kernel, target, synth).source;
  EXPECT_NE(source.find("jn = nl.arange(256)"), std::string::npos) << source;
  EXPECT_NE(source.find("jn = nl.arange(88)"), std::string::npos) << source;  // 600 = 2 x 256 + 88
  EXPECT_NE(source.find("ip = nl.arange(44)"), std::string::npos) << source;  // 300 = 2 x 128 + 44
}

// The transposes of a matmul's stationary tiles follow the description's
// costs: the Tensor engine at trn1's documented costs, the transposing DMA
// once the description makes it the cheaper one. That DMA is the
// description's fusion of a load and nc_transpose, used only as proved equal
// to the pair: with semantics that are not the pair's it is never emitted.
TEST(Trn1, TransposesFollowTheDescriptionsCosts) {
  std::ifstream in(kSource + "/hw/trn1.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  ir::Program program = lang::load_program(kSource + "/bench/kernels/matmul.py");
  tile::Plan plan = tile::plan_function(program.kernel, {{"M", 200}, {"K", 300}, {"N", 600}});
  bool fusion_proved = false;
  auto emit = [&](const std::string& description) {
    hw::Description target = hw::parse_description(description, kSource + "/hw/trn1-variant.json");
    smt::Prover prover;
    isa::Synthesizer synth(target, prover);
    std::string source = emit::emit_nki(plan, program.kernel, target, synth).source;
    fusion_proved = false;
    for (const isa::Lowering& l : synth.used())
      if (l.tree.instr && l.tree.instr->name == "dma_load_transpose")  // only as a fusion: never synthesized
        fusion_proved = l.proof.verdict == smt::Verdict::Proved;
    return source;
  };
  std::string documented = emit(json);
  EXPECT_NE(documented.find("nisa.nc_transpose("), std::string::npos) << documented;
  EXPECT_EQ(documented.find("nl.load_transpose2d("), std::string::npos) << documented;
  const std::string cost = "\"latency\": \"2800 + P * F * 42\", \"throughput\": \"1 / (2800 + P * F * 42)\"";
  size_t at = json.find(cost);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, cost.size(), "\"latency\": \"1\", \"throughput\": \"1\"");
  std::string cheap_dma = emit(json);
  EXPECT_NE(cheap_dma.find("nl.load_transpose2d("), std::string::npos) << cheap_dma;
  EXPECT_EQ(cheap_dma.find("nisa.nc_transpose("), std::string::npos) << cheap_dma;
  EXPECT_TRUE(fusion_proved);
  const std::string semantics = "\"semantics\": \"x.T\",\n      \"cost\": {\"latency\": \"1\"";
  at = json.find(semantics);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, semantics.size(), "\"semantics\": \"x.T + x.T\",\n      \"cost\": {\"latency\": \"1\"");
  std::string wrong = emit(json);
  EXPECT_EQ(wrong.find("nl.load_transpose2d("), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("nisa.nc_transpose("), std::string::npos) << wrong;
}

TEST(Trn1, ContractionsUseTheTensorEngineAndEveryLoweringIsProved) {
  for (std::string name : {"matmul", "transpose_matmul", "softmax", "rmsnorm", "rmsnorm_matmul"}) {
    ir::Program program = lang::load_program(kSource + "/bench/kernels/" + name + ".py");
    std::string source = nki_of(name, test_dims(program));
    bool contraction = name.find("matmul") != std::string::npos;
    EXPECT_EQ(source.find("nisa.nc_matmul(") != std::string::npos, contraction) << name << "\n" << source;
    EXPECT_NE(source.find("@nki.jit"), std::string::npos);
    // Every intermediate stays in SBUF, the matmul's operand too.
    EXPECT_EQ(source.find("scratch"), std::string::npos) << name << " keeps an intermediate in HBM:\n" << source;
  }
}

// A contraction whose operand rows a row group computes, and one whose
// output rows a row group reads, run inside the group's nest: QK^T, the
// softmax and the product with V in one loop, nothing in HBM between them,
// at sizes with partial tiles and with several PSUM tiles along a row.
TEST(Trn1, RowGroupsAndTheirContractionsShareOneNestInSbuf) {
  for (auto [name, dims] :
       std::vector<std::pair<std::string, ir::Dims>>{{"attention", {{"H", 2}, {"S", 130}, {"T", 700}, {"D", 17}}},
                                                     {"softmax_matmul", {{"M", 130}, {"T", 600}, {"D", 33}}},
                                                     {"layernorm_matmul", {{"M", 7}, {"K", 300}, {"N", 53}}},
                                                     {"rmsnorm_matmul", {{"M", 5}, {"K", 130}, {"N", 65}}}}) {
    std::string source = nki_of(name, dims);
    EXPECT_EQ(source.find("scratch"), std::string::npos) << name << " keeps an intermediate in HBM:\n" << source;
    EXPECT_NE(source.find("on the Tensor engine"), std::string::npos) << name;
  }
  std::string attention = nki_of("attention", {{"H", 2}, {"S", 130}, {"T", 700}, {"D", 17}});
  EXPECT_NE(attention.find("leaving its rows in SBUF"), std::string::npos) << attention;
  EXPECT_NE(attention.find("its rows multiplied in SBUF"), std::string::npos) << attention;
  EXPECT_NE(attention.find("buffer=nl.sbuf)"), std::string::npos) << "700 columns take two PSUM tiles:\n" << attention;
}

// One program (its source text) emitted for trn1 at M=256, N=2048 with two
// sets of options; every lowering either used must be proved.
std::pair<emit::NkiKernel, emit::NkiKernel> nki_pair(const std::string& text, const emit::NkiOptions& first,
                                                     const emit::NkiOptions& second) {
  auto file = std::make_shared<SourceFile>();
  file->path = "<trn1>";
  file->text = text;
  ir::Program program = lang::compile_source(file);
  hw::Description target = hw::load_description(kSource + "/hw/trn1.json");
  tile::Plan plan = tile::plan_function(program.kernel, {{"M", 256}, {"N", 2048}});
  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  emit::NkiKernel a = emit::emit_nki(plan, program.kernel, target, synth, first);
  emit::NkiKernel b = emit::emit_nki(plan, program.kernel, target, synth, second);
  for (const isa::Lowering& l : synth.used()) EXPECT_EQ(l.proof.verdict, smt::Verdict::Proved) << l.spec_text;
  return {std::move(a), std::move(b)};
}

// Spreading element-wise steps over the engines: steps that Vector and
// Scalar can both run (x * a + b with columns a, b: a two-operation
// tensor_scalar on Vector, or an activation's scale and bias on Scalar), in a
// kernel whose compute outweighs its DMA, go to whichever engine leaves the
// busiest one least busy: the cheapest kernel puts every step on Scalar, the
// spread one moves some to Vector; every lowering is still proved.
TEST(Trn1, SpreadElementwiseStepsOverTheEngines) {
  emit::NkiOptions cheapest, spread;
  cheapest.engines = emit::NkiOptions::Engines::Cheapest;
  spread.engines = emit::NkiOptions::Engines::Spread;
  auto [a, b] = nki_pair(
      "import numpy as np\n"
      "def k(x: 'f32[M, N]', a: 'f32[M, 1]', b: 'f32[M, 1]', c: 'f32[M, 1]', d: 'f32[M, 1]') -> 'f32[M, N]':\n"
      "    y = x * a + b\n"
      "    y = y * c + d\n"
      "    y = y * a + d\n"
      "    y = y * c + b\n"
      "    y = y * a + b\n"
      "    y = y * c + d\n"
      "    return y * y\n",
      cheapest, spread);
  auto busy = [](const emit::NkiKernel& k, const std::string& engine) {
    return k.counts.busy_ns.count(engine) ? k.counts.busy_ns.at(engine) : 0.0;
  };
  // Spreading keeps a step's greedy cover only where it leaves the busiest
  // engine less to do than the cheapest cover: never a busier kernel. (Here
  // the cheapest cover is already one Scalar-engine activation per step,
  // x * a + b as its scale and bias, and the greedy split does not beat it.)
  EXPECT_LE(std::max(busy(b, "vector"), busy(b, "scalar")), std::max(busy(a, "vector"), busy(a, "scalar")))
      << a.source << "\n----\n"
      << b.source;
  EXPECT_GT(busy(a, "scalar"), 0);
}

// The instruction-level round of operator propagation: lowering puts a
// step's expression together (here a chain fused into one block), and a
// proved variant of it covers with fewer instructions on the busiest engine
// (0.5 * x * (1 + t) as x * (0.5 * t + 0.5): the last factor one activation
// with scale and bias, on the Scalar engine, instead of two Vector steps).
// The kernel says which expression it emitted; every lowering is proved; the
// variants never leave the busiest engine busier.
TEST(Trn1, OperatorPropagationRewritesLoweredSteps) {
  emit::NkiOptions off, on;
  off.repropagate = false;
  auto [a, b] = nki_pair(
      "import numpy as np\n"
      "def k(x: 'f32[M, N]') -> 'f32[M, N]':\n"
      "    return 0.5 * x * (1.0 + np.tanh(0.8 * (x + 0.044715 * x ** 3)))\n",
      off, on);
  EXPECT_EQ(a.counts.repropagated, 0);
  EXPECT_GT(b.counts.repropagated, 0);
  EXPECT_NE(b.source.find("as operator propagation rewrote it (each rewrite proved)"), std::string::npos) << b.source;
  EXPECT_LT(b.counts.busiest(), a.counts.busiest()) << a.source << "\n----\n" << b.source;
}

}  // namespace
}  // namespace axon
