// The proof scripts a proof carries (ProofResult::smtlib) are complete SMT-LIB2
// files: the z3 binary alone, reading each one, must answer exactly "unsat".
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "smt_testing.h"

namespace axon::smt {
namespace {

using smttest::compile;
using smttest::kernel_source;

// stdout (and stderr) of `command`, and its exit status.
std::string run(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    status = -1;
    return output;
  }
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  status = ::pclose(pipe);
  return output;
}

bool z3_available() {
  int status = 0;
  std::string out = run("z3 -version", status);
  return status == 0 && out.find("Z3") != std::string::npos;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

struct Pair {
  const char* name;
  const char* params;
  const char* a;
  const char* b;
};

class SmtEmit : public ::testing::TestWithParam<Pair> {};

TEST_P(SmtEmit, EveryScriptIsUnsatUnderZ3) {
  if (!z3_available()) GTEST_SKIP() << "the z3 binary is not installed (Debian package z3)";
  const Pair& pair = GetParam();
  ir::Program a = compile("a.py", kernel_source(pair.params, pair.a));
  ir::Program b = compile("b.py", kernel_source(pair.params, pair.b));
  smttest::PairOutcome o = smttest::prove_pair(a, b);
  ASSERT_EQ(o.verdict, Verdict::Proved) << o.how();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("axon_emit_" + std::to_string(::getpid()) + "_" + pair.name);
  fs::create_directories(dir);
  size_t scripts = 0;
  for (const ProofResult& r : o.results) {
    ASSERT_FALSE(r.smtlib.empty()) << "a proof with no obligations";
    for (const std::string& script : r.smtlib) {
      fs::path file = dir / ("obligation_" + std::to_string(scripts++) + ".smt2");
      {
        std::ofstream out(file);
        out << script;
        ASSERT_TRUE(out.good()) << file;
      }
      int status = 0;
      // A generous wall-clock limit: the scripts carry no resource limit of their own.
      std::string answer = trim(run("z3 -T:60 " + file.string(), status));
      EXPECT_EQ(answer, "unsat") << file << " (exit status " << status << ")";
      EXPECT_EQ(status, 0) << file;
    }
  }
  std::cout << "  " << pair.name << ": " << scripts << " script(s) checked by z3" << std::endl;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// One direct proof, one by induction, one after the sum normal form and using
// a declared fact.
INSTANTIATE_TEST_SUITE_P(
    SmtEmit, SmtEmit,
    ::testing::Values(
        Pair{"exp_of_sum", R"(a: "f32[M, N]", b: "f32[M, N]")", "np.exp(a + b)", "np.exp(a) * np.exp(b)"},
        Pair{"row_scale_past_matmul", R"(x: "f32[M, K]", w: "f32[K, N]", r: "f32[M, 1]")", "(x / r) @ w",
             "(x @ w) / r"},
        Pair{"matmul_associativity", R"(a: "f32[M, K]", b: "f32[K, N]", c: "f32[N, P]")", "(a @ b) @ c",
             "a @ (b @ c)"},
        Pair{"attention_deferred_normalization", R"(s: "f32[M, K]", v: "f32[K, N]")",
             "e = np.exp(s - np.max(s, axis=1, keepdims=True))\nreturn (e / np.sum(e, axis=1, keepdims=True)) @ v",
             "e = np.exp(s - np.max(s, axis=1, keepdims=True))\nreturn (e @ v) / np.sum(e, axis=1, keepdims=True)"}),
    [](const ::testing::TestParamInfo<Pair>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace axon::smt
