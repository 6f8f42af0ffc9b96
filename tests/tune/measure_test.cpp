// Measuring a description's register instructions on this machine, and the
// choice of description by this CPU's vendor.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "hw/description.h"
#include "support/diag.h"
#include "targets/cpu.h"
#include "tune/measure.h"

namespace axon::tune {
namespace {

const std::string kSource = AXON_SOURCE_DIR;

std::string temp_dir(const std::string& name) {
  std::string dir = testing::TempDir() + "/axon-measure-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Every shipped cpu description: the program is generated for each register
// instruction, and memory instructions are listed as not measured.
TEST(Measure, SourceCoversTheRegisterInstructions) {
  for (const char* name : {"x86-avx2.json", "x86-avx512.json", "x86-avx512-intel.json"}) {
    hw::Description d = hw::load_description(kSource + "/hw/" + name);
    std::vector<std::pair<std::string, std::string>> skipped;
    std::string source = measurement_source(d, &skipped);
    for (const char* measured : {"// fmadd_ps", "// add_ps", "// exp_ps", "// set1_ps"})
      EXPECT_NE(source.find(measured), std::string::npos) << name << " " << measured;
    bool load_skipped = false;
    for (const auto& [instruction, why] : skipped) {
      EXPECT_EQ(source.find("// " + instruction + "\n"), std::string::npos) << name << " " << instruction;
      if (instruction == "loadu_ps") load_skipped = why.find("dram") != std::string::npos;
    }
    EXPECT_TRUE(load_skipped) << name;
  }
}

TEST(Measure, OnlyCpuDescriptionsAreMeasured) {
  hw::Description d = hw::load_description(kSource + "/hw/trn1.json");
  try {
    measurement_source(d, nullptr);
    FAIL() << "a trn1 description was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu descriptions"), std::string::npos) << e.what();
  }
}

// Runs the measurement of a small description (broadcast, add, fmadd, a
// horizontal sum) on this CPU: a dependent fmadd chain takes a few cycles on
// any x86-64 core with FMA, and the clock is a plausible one.
TEST(Measure, MeasuresAChainOnThisCpu) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2/FMA here";
  hw::Description full = hw::load_description(kSource + "/hw/x86-avx2.json");
  std::string dir = temp_dir("chain");
  // A copy of the AVX2 description with four of its instructions: the measurement needs only those.
  hw::Description d = full;
  d.instructions.clear();
  for (const char* name : {"set1_ps", "add_ps", "fmadd_ps", "reduce_add_ps", "loadu_ps"}) {
    ASSERT_NE(full.find(name), nullptr) << name;
    d.instructions.push_back(*full.find(name));
  }
  InstructionMeasurement m = measure_instructions(d, dir);
  EXPECT_GT(m.clock_ghz, 0.3);
  EXPECT_LT(m.clock_ghz, 8.0);
  ASSERT_EQ(m.measured.size(), 4u);
  for (const InstructionTiming& t : m.measured) {
    EXPECT_GT(t.per_cycle_per_unit, 0) << t.name;
    if (t.name == "fmadd_ps") {
      ASSERT_TRUE(t.latency_cycles.has_value());
      EXPECT_GE(*t.latency_cycles, 2.0);
      EXPECT_LE(*t.latency_cycles, 10.0);
    }
    if (t.name == "set1_ps" || t.name == "reduce_add_ps") {
      EXPECT_FALSE(t.latency_cycles.has_value()) << t.name;
    }
  }
  ASSERT_EQ(m.not_measured.size(), 1u);
  EXPECT_EQ(m.not_measured[0].first, "loadu_ps");
  std::filesystem::remove_all(dir);
}

// `--target cpu` means a description this CPU runs, of its vendor where one
// names a vendor; a folder without the vendor's file falls back.
TEST(Measure, TargetCpuPicksTheDescriptionOfThisVendor) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2/FMA here";
  std::string path = targets::cpu_description_path(kSource + "/hw");
  hw::Description d = hw::load_description(path);
  EXPECT_TRUE(targets::cpu_supports(d)) << path;
  EXPECT_TRUE(d.cpu_vendor.empty() || d.cpu_vendor == targets::cpu_vendor()) << path;
  bool avx512 = __builtin_cpu_supports("avx512f");
  std::string vendor = targets::cpu_vendor();
  std::string expected = !avx512 ? "x86-avx2"
                         : vendor == "intel" ? "x86-avx512-intel"
                         : vendor == "amd"   ? "x86-avx512"
                                             : "x86-avx2";
  EXPECT_EQ(d.name, expected);

  // Only the AVX2 file, and one of another vendor: AVX2.
  std::string dir = temp_dir("vendor");
  std::filesystem::copy_file(kSource + "/hw/x86-avx2.json", dir + "/x86-avx2.json");
  std::filesystem::copy_file(kSource + "/hw/x86-avx2-prelude.h", dir + "/x86-avx2-prelude.h");
  EXPECT_EQ(targets::cpu_description_path(dir), dir + "/x86-avx2.json");
  if (avx512 && !vendor.empty()) {
    const char* other = vendor == "intel" ? "x86-avx512.json" : "x86-avx512-intel.json";
    std::filesystem::copy_file(kSource + "/hw/" + other, dir + "/" + other);
    std::filesystem::copy_file(kSource + "/hw/x86-avx512-prelude.h", dir + "/x86-avx512-prelude.h");
    EXPECT_EQ(targets::cpu_description_path(dir), dir + "/x86-avx2.json");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace axon::tune
