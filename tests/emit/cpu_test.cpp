// The CPU emitter in its three steps: selection's step costs are the printed
// kernel's, kernels compose from their parts into one translation unit, and
// the printer refuses what the selection or the schedule does not give it.
#include "emit/cpu.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "eval/bind.h"
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
  blocked.stages[0].k_block = 64;
  refused(blocked, selection, "StageSchedule::order");
  merged.stages[0].results = {0, 1};
  refused(merged, selection, "StageSchedule::results");
}

}  // namespace
}  // namespace axon
