// The CPU emitter in its three steps: selection's step costs are the printed
// kernel's, kernels compose from their parts into one translation unit, and
// the printer refuses what the selection or the schedule does not give it.
#include "emit/cpu.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/bind.h"
#include "eval/interpreter.h"
#include "eval/rounding.h"
#include "hw/description.h"
#include "lang/load.h"
#include "tune/runner.h"

namespace axon {
namespace {

const std::string kSource = AXON_SOURCE_DIR;

// A program at its "test" sizes, planned, with a synthesizer for `target`.
struct Planned {
  ir::Program program;
  tile::Plan plan;
  smt::Prover prover;
  std::unique_ptr<isa::Synthesizer> synth;
};

std::unique_ptr<Planned> plan_program(const std::string& path, const hw::Description& target) {
  auto p = std::make_unique<Planned>();
  p->program = lang::load_program(path);
  ir::Dims dims = eval::bind_dims(p->program.kernel, p->program.size_presets.at("test"),
                                  std::vector<std::optional<eval::ProvidedInput>>(p->program.kernel.params.size()));
  p->plan = tile::plan_function(p->program.kernel, dims);
  p->synth = std::make_unique<isa::Synthesizer>(target, p->prover);
  return p;
}

std::string costs_text(const std::map<std::string, double>& costs) {
  std::string text;
  for (const auto& [step, cost] : costs) text += step + "=" + std::to_string(cost) + " ";
  return text;
}

// One row: a program, and how its stages are tiled.
struct CostRow {
  std::string program;  // under tests/programs
  enum class Tiling { Search, Default, FirstOption } tiling;
  bool fuse_rows;
};

TEST(EmitSelection, StepCostsAreThePrintedKernels) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  const std::vector<CostRow> rows = {
      {"matmul_batched.py", CostRow::Tiling::Search, false},
      {"matmul_batched.py", CostRow::Tiling::Default, false},
      {"matmul_vector.py", CostRow::Tiling::FirstOption, false},
      {"reductions.py", CostRow::Tiling::Search, false},
      {"reductions.py", CostRow::Tiling::FirstOption, false},
      {"mlp.py", CostRow::Tiling::Search, true},
      {"mlp.py", CostRow::Tiling::Default, false},
      {"cumsum_axes.py", CostRow::Tiling::Search, false},
  };
  for (const CostRow& row : rows) {
    std::unique_ptr<Planned> p = plan_program(kSource + "/tests/programs/" + row.program, target);
    const ir::Function& fn = p->program.kernel;
    tile::TilingPolicy policy =
        row.tiling == CostRow::Tiling::Default ? tile::TilingPolicy::Default : tile::TilingPolicy::Search;
    std::vector<tile::TileParams> fixed;
    if (row.tiling == CostRow::Tiling::FirstOption) {
      tile::TargetShape shape = emit::schedule_cpu(p->plan, fn, target, *p->synth).shape;
      for (const tile::Stage& s : p->plan.stages) fixed.push_back(tile::tiling_options(s, shape).front());
    }
    emit::CpuSchedule schedule = emit::schedule_cpu(p->plan, fn, target, *p->synth, policy, fixed, row.fuse_rows);
    emit::CpuSelection selection = emit::select_cpu(p->plan, fn, schedule, target, *p->synth);
    emit::CpuKernel printed = emit::print_cpu(p->plan, fn, schedule, selection, target);
    emit::CpuKernel emitted = emit::emit_cpu(p->plan, fn, target, *p->synth, policy, fixed, row.fuse_rows);
    std::string what =
        row.program + " tiling " + std::to_string(static_cast<int>(row.tiling)) + (row.fuse_rows ? " fused rows" : "");
    EXPECT_EQ(printed.source, emitted.source) << what;
    ASSERT_EQ(selection.stages.size(), printed.stages.size()) << what;
    for (size_t i = 0; i < printed.stages.size(); ++i) {
      EXPECT_EQ(selection.stages[i].step_cost, printed.stages[i].step_cost)
          << what << ", stage " << i << "\n  selected: " << costs_text(selection.stages[i].step_cost)
          << "\n  printed:  " << costs_text(printed.stages[i].step_cost);
      EXPECT_FALSE(selection.stages[i].holes.empty()) << what << ", stage " << i;
      for (const auto& [name, lowering] : selection.stages[i].holes) {
        if (lowering) {
          EXPECT_GE(lowering->tree.cost, 0) << what << ", hole " << name;
        }
      }
    }
  }
}

// An element-wise body of several instructions costs all of them per vector,
// not its last one alone (the model would see exp + tanh as a multiply).
TEST(EmitSelection, BodyStepCostSumsItsInstructions) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  std::string dir = testing::TempDir() + "/body_step_cost";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/two.py") << "import numpy as np\n\nSIZES = {\"test\": {\"M\": 8, \"N\": 64}}\n\n\n"
                                    "def two(x: \"f32[M, N]\") -> \"f32[M, N]\":\n"
                                    "    return np.exp(x) * np.tanh(x)\n";
  std::unique_ptr<Planned> p = plan_program(dir + "/two.py", target);
  emit::CpuSchedule schedule = emit::schedule_cpu(p->plan, p->program.kernel, target, *p->synth);
  emit::CpuSelection selection = emit::select_cpu(p->plan, p->program.kernel, schedule, target, *p->synth);
  auto recip = [&](const std::string& name) {
    for (const hw::Instruction& i : target.instructions)
      if (i.name == name) return 1.0 / i.throughput.at({});
    ADD_FAILURE() << "no " << name;
    return 0.0;
  };
  double least = recip("exp_ps") + recip("tanh_ps") + recip("mul_ps");
  ASSERT_EQ(selection.stages.size(), 1u);
  EXPECT_NEAR(selection.stages[0].step_cost.at("compute"), least, 1e-6 * least)
      << costs_text(selection.stages[0].step_cost);
}

// The search's batch: the prelude once, then each kernel's body in a
// namespace with its exports suffixed; no text is searched or cut.
TEST(EmitParts, TwoKernelsComposeIntoOneTranslationUnit) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  std::vector<std::unique_ptr<Planned>> planned;
  std::vector<emit::CpuKernel> kernels;
  for (std::string name : {"mlp.py", "matmul_batched.py"}) {
    planned.push_back(plan_program(kSource + "/tests/programs/" + name, target));
    Planned& p = *planned.back();
    kernels.push_back(emit::emit_cpu(p.plan, p.program.kernel, target, *p.synth));
  }
  ASSERT_EQ(kernels[0].parts.prelude, kernels[1].parts.prelude);
  const std::vector<emit::ExportNames> names = {{"axon_c0", "_c0", "", ""},
                                                {"axon_c1", "_c1", "int hooked = 1;", "out[0][0] += 0.0f * hooked;"}};
  std::string unit = kernels[0].parts.prelude;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const emit::CpuKernel& k = kernels[i];
    std::string composed = k.parts.prelude + "#include \"kernel.h\"\n" + k.parts.body + emit::print_exports(k);
    ASSERT_GE(k.source.size(), composed.size());
    EXPECT_EQ(k.source.substr(k.source.size() - composed.size()), composed) << "source is not its parts";
    EXPECT_EQ(k.source.rfind("// Generated by axon", 0), 0u);
    unit += "namespace " + names[i].ns + " {\n" + k.parts.body + "}  // namespace " + names[i].ns + "\n" +
            emit::print_exports(k, names[i]);
  }
  std::string dir = testing::TempDir() + "/emit_parts";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/batch.cpp") << unit;
  tune::CompileResult c = tune::compile_shared(dir + "/batch.cpp", dir + "/batch.so", target.compile_flags);
  ASSERT_TRUE(c.ok) << c.log;
  void* library = dlopen((dir + "/batch.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string& suffix = names[i].suffix;
    for (std::string symbol : {kernels[i].entry, std::string(emit::kPackedSymbol)})
      EXPECT_NE(dlsym(library, (symbol + suffix).c_str()), nullptr) << symbol + suffix;
    auto info = reinterpret_cast<const char* (*)()>(dlsym(library, (std::string(emit::kInfoSymbol) + suffix).c_str()));
    ASSERT_NE(info, nullptr) << emit::kInfoSymbol << suffix;
    EXPECT_EQ(std::string(info()), kernels[i].info_json);
  }
  dlclose(library);
}

// A program at `dims`, emitted with each stage's tiling the first option
// that blocks its fold by `k_block` (else the first that does not; with `mr`,
// the first register tile of mr rows where a stage has one; with `stream`,
// streaming stores wherever the output is stored a vector at a time),
// compiled, run on seeded inputs, with the outputs `out_shift` floats past a
// 64-byte boundary, and checked against the reference's rounding bound.
// Returns the kernel's source.
std::string run_checked(const std::string& path, const ir::Dims& dims, const hw::Description& target, int k_block,
                        bool fuse_rows, int mr = 0, bool stream = false, int out_shift = 0, bool transpose = false) {
  ir::Program program = lang::load_program(path);
  const ir::Function& fn = program.kernel;
  tile::Plan plan = tile::plan_function(fn, dims);
  smt::Prover prover;
  isa::Synthesizer synth(target, prover);
  tile::TargetShape shape = emit::schedule_cpu(plan, fn, target, synth).shape;
  std::vector<tile::TileParams> fixed;
  for (const tile::Stage& s : plan.stages) {
    std::vector<tile::TileParams> options = tile::tiling_options(s, shape);
    auto blocked = std::find_if(options.begin(), options.end(),
                                [&](const tile::TileParams& p) { return p.k_block == k_block && p.threads > 1; });
    auto plain = std::find_if(options.begin(), options.end(), [](const tile::TileParams& p) { return p.k_block == 0; });
    auto tiled = std::find_if(options.begin(), options.end(), [&](const tile::TileParams& p) {
      return mr > 0 && p.k_block == 0 && p.rows_dim >= 0 && p.mr == mr && p.threads == shape.cores;
    });
    auto transposed = std::find_if(options.begin(), options.end(), [&](const tile::TileParams& p) {
      return transpose && p.transpose && !p.stream && p.threads == shape.cores;
    });
    fixed.push_back(transposed != options.end() ? *transposed
                    : tiled != options.end()    ? *tiled
                    : blocked != options.end()  ? *blocked
                                                : *plain);
    tile::TileParams& p = fixed.back();
    p.stream = stream && p.vec_dim >= 0 && p.k_block == 0 &&
               tile::lane_access(s.out, p.vec_dim) == tile::LaneAccess::Contiguous;
  }
  emit::CpuKernel k = emit::emit_cpu(plan, fn, target, synth, tile::TilingPolicy::Search, fixed, fuse_rows);
  std::string sizes;
  for (const auto& [name, size] : dims) sizes += "_" + name + std::to_string(size);
  std::string dir = testing::TempDir() + "/run_checked_" + fn.name + sizes + "_" + std::to_string(k_block) + "_" +
                    std::to_string(mr) + (stream ? "_nt" + std::to_string(out_shift) : "") + (transpose ? "_T" : "");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/kernel.h") << k.header;
  std::ofstream(dir + "/kernel.cpp") << k.source;
  tune::CompileResult c = tune::compile_shared(dir + "/kernel.cpp", dir + "/kernel.so", target.compile_flags);
  if (!c.ok) {
    ADD_FAILURE() << path << ":\n" << c.log;
    return k.source;
  }
  std::vector<eval::Tensor> inputs;
  std::vector<std::vector<float>> in_floats;
  uint64_t state = 12345;
  for (const ir::Param& param : fn.params) {
    eval::Tensor t;
    for (const ir::Size& d : param.type.shape) t.shape.push_back(*d.evaluate(dims));
    std::vector<float> f;
    for (int64_t i = 0; i < t.numel(); ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      f.push_back(static_cast<float>(static_cast<double>(state >> 40) / static_cast<double>(1 << 24) * 4.0 - 2.0));
      t.data.push_back(f.back());
    }
    inputs.push_back(t);
    in_floats.push_back(f);
  }
  eval::EvalOptions options;
  options.bounds = true;
  eval::Evaluation want = eval::evaluate_bounded(fn, inputs, dims, options);
  std::vector<std::vector<float>> storage;
  std::vector<float*> out;
  for (const eval::Tensor& w : want.values) {
    storage.emplace_back(static_cast<size_t>(w.numel()) + 32, -12345.0f);
    auto address = reinterpret_cast<uintptr_t>(storage.back().data());
    out.push_back(storage.back().data() + (64 - address % 64) % 64 / sizeof(float) + out_shift);
  }
  // Kept mapped after dlclose: the OpenMP runtime it loaded keeps its idle
  // worker threads, which must not outlive their code.
  void* library = dlopen((dir + "/kernel.so").c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!library) {
    ADD_FAILURE() << dlerror();
    return k.source;
  }
  auto packed = reinterpret_cast<int (*)(const float* const*, float* const*)>(dlsym(library, emit::kPackedSymbol));
  std::vector<const float*> in;
  for (const auto& f : in_floats) in.push_back(f.data());
  EXPECT_EQ(packed(in.data(), out.data()), 0) << path;
  std::vector<std::vector<float>> got;
  for (size_t i = 0; i < out.size(); ++i) got.emplace_back(out[i], out[i] + want.values[i].numel());
  eval::BoundCheck check = eval::check_within_bound(got, want);
  EXPECT_TRUE(check.ok) << path << " (k_block " << k_block << "): " << check.text();
  dlclose(library);
  return k.source;
}

// Matrix-vector shapes and a deep fold with the fold in blocks (first, middle
// and a short last block; an epilogue applied only after the last), row groups whose
// intermediates live one row at a time on the stack, and scans a vector at
// a time: each printed, compiled, run and checked against the reference.
TEST(EmitSchedules, FoldBlocksRowLocalScratchAndVectorScansMatchTheReference) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2 here";
  for (int k_block : {8, 32}) {
    std::string gated = run_checked(kSource + "/bench/kernels/gated_mlp.py", {{"M", 5}, {"K", 130}, {"N", 1030}},
                                    target, k_block, false);
    EXPECT_NE(gated.find("k_block=" + std::to_string(k_block)), std::string::npos) << gated;
    std::string rms = run_checked(kSource + "/bench/kernels/rmsnorm_matmul.py", {{"M", 3}, {"K", 300}, {"N", 1040}},
                                  target, k_block, true);
    EXPECT_NE(rms.find("k_block=" + std::to_string(k_block)), std::string::npos) << rms;
  }
  for (const char* name : {"layernorm", "softmax", "add_rmsnorm"}) {
    std::string source =
        run_checked(kSource + "/bench/kernels/" + name + ".py", {{"M", 9}, {"N", 37}}, target, 0, true);
    EXPECT_NE(source.find("alignas(64) float axon_row_t"), std::string::npos) << name << ":\n" << source;
  }
  // A deep fold whose widest register tiles' panels do not stay in L2 over
  // all of it: in blocks of 1024 steps (five, the last of 4), many row tiles.
  std::string deep = run_checked(kSource + "/bench/kernels/matmul.py", {{"M", 13}, {"K", 4100}, {"N", 70}}, target,
                                 1024, false);
  EXPECT_NE(deep.find("k_block=1024"), std::string::npos) << deep;
  std::string scan = run_checked(kSource + "/bench/kernels/cumsum.py", {{"M", 3}, {"N", 37}}, target, 0, false);
  EXPECT_NE(scan.find("axon_prefix_sum_ps256("), std::string::npos) << scan;
  run_checked(kSource + "/tests/programs/cumsum_axes.py", {{"A", 3}, {"B", 5}, {"C", 21}}, target, 0, false);
}

// Gathers as in-register transposes: full tiles of W rows load W vectors down
// the rows and transpose them; partial row blocks and vector tails gather.
// A plain transpose and one mixed with a contiguous operand, on AVX2 and,
// where the CPU has it, AVX-512.
TEST(EmitSchedules, GathersAsTransposesMatchTheReference) {
  std::string dir = testing::TempDir() + "/transposes";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/mixed.py") << "import numpy as np\n\n\n"
                                      "def mixed(x: \"f32[M, N]\", y: \"f32[N, M]\") -> \"f32[N, M]\":\n"
                                      "    return x.T * y + 1.0\n";
  struct Machine {
    const char* description;
    bool here;
    const char* helper;
  };
  for (const Machine& m :
       {Machine{"x86-avx2.json", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), "axon_transpose8x8("},
        Machine{"x86-avx512.json", __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"),
                "axon_transpose16x16("}}) {
    if (!m.here) continue;
    hw::Description target = hw::load_description(kSource + "/hw/" + m.description);
    for (const std::string& path : {kSource + "/bench/kernels/transpose.py", dir + "/mixed.py"}) {
      for (ir::Dims dims : {ir::Dims{{"M", 37}, {"N", 70}}, ir::Dims{{"M", 64}, {"N", 32}}}) {
        std::string source = run_checked(path, dims, target, 0, false, 0, false, 0, true);
        EXPECT_NE(source.find(m.helper), std::string::npos) << m.description << " " << path << ":\n" << source;
      }
    }
  }
}

// Row groups whose members include contractions run a block of rows (the
// register tile's) at a time: attention's scores, their softmax and the
// weighted sum of values in one nest, each block's scores on the stack
// (a partial last block of rows, a vector tail, two threads).
TEST(EmitSchedules, RowGroupsRunContractionsABlockOfRowsAtATime) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2 here";
  struct Case {
    const char* path;
    ir::Dims dims;
  };
  for (const Case& c : {Case{"bench/kernels/attention.py", {{"H", 2}, {"S", 13}, {"T", 37}, {"D", 19}}},
                        Case{"bench/kernels/gqa.py", {{"B", 2}, {"H", 3}, {"S", 5}, {"T", 70}, {"D", 17}}},
                        Case{"bench/kernels/softmax_matmul.py", {{"M", 11}, {"T", 130}, {"D", 17}}}}) {
    for (int mr : {3, 4}) {
      std::string source = run_checked(kSource + "/" + c.path, c.dims, target, 0, true, mr);
      EXPECT_NE(source.find(std::to_string(mr) + " rows at a time"), std::string::npos) << c.path << ":\n" << source;
      EXPECT_NE(source.find("alignas(64) float axon_row_t"), std::string::npos) << c.path;
    }
  }
}

// Streaming stores: full output vectors go through the description's
// nontemporal store, each thread of a shared loop runs its fence after its
// share (a parallel region of its own), tails stay ordinary masked stores,
// and an output the instruction cannot take (a float past a boundary, or
// rows of 37 floats) is stored the ordinary way by its helper: row groups,
// register-tiled contractions, element-wise stages and vector scans, each
// checked against the reference.
TEST(EmitSchedules, StreamingStoresMatchTheReferenceAlignedOrNot) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2 here";
  struct Case {
    const char* path;
    ir::Dims dims;
    bool fuse_rows;
  };
  for (const Case& c : {Case{"bench/kernels/rmsnorm.py", {{"M", 9}, {"N", 37}}, true},
                        Case{"bench/kernels/layernorm.py", {{"M", 7}, {"N", 64}}, true},
                        Case{"bench/kernels/silu.py", {{"M", 5}, {"N", 72}}, false},
                        Case{"bench/kernels/matmul.py", {{"M", 7}, {"K", 9}, {"N", 48}}, false},
                        Case{"bench/kernels/cumsum.py", {{"M", 3}, {"N", 37}}, false}}) {
    for (int shift : {0, 1}) {
      std::string source = run_checked(kSource + "/" + c.path, c.dims, target, 0, c.fuse_rows, 0, true, shift);
      EXPECT_NE(source.find("axon_stream_ps(("), std::string::npos) << c.path << ":\n" << source;
      EXPECT_NE(source.find("#pragma omp parallel num_threads(2)"), std::string::npos) << c.path;
      EXPECT_NE(source.find("#pragma omp for schedule(static) nowait"), std::string::npos) << c.path;
      EXPECT_NE(source.find("_mm_sfence();"), std::string::npos) << c.path;
    }
  }
  // Asked for where the description has no streaming store, the stores are ordinary.
  std::ifstream in(kSource + "/hw/x86-avx2.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string flags = "\"nontemporal\": true,\n      \"fence\": \"_mm_sfence()\",";
  ASSERT_NE(json.find(flags), std::string::npos);
  json.replace(json.find(flags), flags.size(), "");
  hw::Description without = hw::parse_description(json, kSource + "/hw/x86-avx2.json");
  std::string plain = run_checked(kSource + "/bench/kernels/silu.py", {{"M", 5}, {"N", 72}}, without, 0, false, 0, true, 1);
  EXPECT_EQ(plain.find("axon_stream_ps(("), std::string::npos) << plain;
  EXPECT_EQ(plain.find("_mm_sfence();"), std::string::npos) << plain;
}

TEST(EmitPrinter, RefusesWhatWasNotSelectedOrIsNotImplemented) {
  hw::Description target = hw::load_description(kSource + "/hw/x86-avx2.json");
  std::unique_ptr<Planned> p = plan_program(kSource + "/tests/programs/reductions.py", target);
  const ir::Function& fn = p->program.kernel;
  emit::CpuSchedule schedule = emit::schedule_cpu(p->plan, fn, target, *p->synth);
  emit::CpuSelection selection = emit::select_cpu(p->plan, fn, schedule, target, *p->synth);
  auto refused = [&](const emit::CpuSchedule& s, const emit::CpuSelection& sel, const std::string& message) {
    try {
      emit::print_cpu(p->plan, fn, s, sel, target);
      ADD_FAILURE() << "printed; expected an InternalError naming " << message;
    } catch (const InternalError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  ASSERT_FALSE(selection.stages[0].holes.empty());
  for (const auto& [name, lowering] : selection.stages[0].holes) {
    emit::CpuSelection without = selection;
    without.stages[0].holes.erase(name);
    refused(schedule, without, "'" + name + "', which was not selected");
  }
  emit::CpuSchedule online = schedule, blocked = schedule, merged = schedule;
  online.stages[0].fold = emit::FoldKind::Online;
  refused(online, selection, "StageSchedule::fold");
  blocked.stages[0].order = emit::LoopOrder::KBlocked;
  blocked.stages[0].k_block = 64;  // its tiling has no blocks
  refused(blocked, selection, "StageSchedule::k_block");
  blocked.stages[0].order = emit::LoopOrder::ReductionOutermost;
  blocked.stages[0].k_block = 0;
  refused(blocked, selection, "StageSchedule::order");
  merged.stages[0].results = {0, 1};
  refused(merged, selection, "StageSchedule::results");
}

}  // namespace
}  // namespace axon
