// Hardware descriptions: the shipped files load, and malformed ones are
// errors that name the field.
#include <gtest/gtest.h>

#include <filesystem>

#include "hw/description.h"
#include "lang/load.h"
#include "smt/prover.h"

namespace axon::hw {
namespace {

const std::string kValid = R"json({
  "name": "tiny", "target": "cpu", "summary": "test", "cores": 2,
  "engines": [{"name": "alu", "units": 1, "clock_ghz": 1.0}],
  "memories": [{"name": "mem", "capacity_bytes": 1024, "bandwidth_gbps": 1, "read_by": ["alu"], "written_by": ["alu"]},
               {"name": "reg", "capacity_bytes": 64, "bandwidth_gbps": 100}],
  "instructions": [
    {"name": "fma", "engine": "alu",
     "operands": [{"name": "a", "space": "reg", "type": "f32[P, 4]"}, {"name": "b", "space": "reg", "type": "f32[P, 4]"},
                  {"name": "c", "space": "reg", "type": "f32[P, 4]"}],
     "result": {"space": "reg", "type": "f32[P, 4]"}, "limits": {"P": [1, 8]},
     "semantics": "a * b + c", "cost": {"latency": 4, "throughput": 1}, "emit": "fma({a}, {b}, {c})"}
  ]
})json";

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kValid;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string outcome(const std::string& text) {
  try {
    Description d = parse_description(text, "t.json");
    return "ok " + std::to_string(d.instructions.size());
  } catch (const UserError& e) {
    return e.format();
  }
}

TEST(HwDescription, ShippedDescriptionsLoad) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(AXON_SOURCE_DIR) + "/hw")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    Description d = load_description(entry.path().string());
    EXPECT_FALSE(d.instructions.empty()) << entry.path();
    EXPECT_EQ(d.name, entry.path().stem().string()) << "the file is hw/<name>.json";
    std::cout << d.name << ": " << d.instructions.size() << " instructions, " << d.memories.size() << " memories, "
              << d.engines.size() << " engines\n";
  }
  if (files == 0) GTEST_SKIP() << "no hw/*.json yet";
}

TEST(HwDescription, ValidTextLoads) {
  Description d = parse_description(kValid, "t.json");
  ASSERT_EQ(d.instructions.size(), 1u);
  const Instruction& fma = d.instructions[0];
  EXPECT_EQ(fma.result.type.str(), "f32[P, 4]");
  EXPECT_EQ(fma.limits.at("P"), std::make_pair(int64_t{1}, int64_t{8}));
  EXPECT_EQ(d.content_hash.size(), 16u);
  EXPECT_EQ(fma.latency.at({}), 4.0);
  Description formula = parse_description(replaced("\"latency\": 4", "\"latency\": \"2 * max(min(64, P), 3) + 1\""), "t.json");
  EXPECT_EQ(formula.instructions[0].latency.at({{"P", 8}}), 17.0);
  EXPECT_NE(d.content_hash, parse_description(replaced("\"test\"", "\"other\""), "t.json").content_hash);
}

// The semantics is in the same language as kernels: the prover relates them.
TEST(HwDescription, SemanticsProvesAgainstAKernel) {
  Description d = parse_description(kValid, "t.json");
  auto file = std::make_shared<SourceFile>(SourceFile{"k.py", R"(import numpy as np
def k(x: "f32[P, 4]", y: "f32[P, 4]", z: "f32[P, 4]"):
    return z + y * x
)"});
  ir::Program kernel = lang::compile_source(file);
  smt::Prover prover;
  EXPECT_EQ(prover.prove_equal(d.instructions[0].semantics.kernel.outputs[0], kernel.kernel.outputs[0]).verdict,
            smt::Verdict::Proved);
}

struct BadRow {
  const char* name;
  std::string text;
  std::string expected;  // a substring of the formatted error
};

TEST(HwDescription, MalformedDescriptionsNameTheField) {
  const std::vector<BadRow> rows = {
      {"not json", "{\"name\": ", "t.json:1:10: error: not valid JSON"},
      {"missing name", replaced("\"name\": \"tiny\", ", ""), "description: missing field 'name'"},
      {"bad target", replaced("\"target\": \"cpu\"", "\"target\": \"gpu\""), "target: 'gpu' is not one of cpu, trn1, cuda"},
      {"bad cores", replaced("\"cores\": 2", "\"cores\": 0"), "description.cores: must be at least 1"},
      {"bad vendor", replaced("\"cores\": 2", "\"cores\": 2, \"cpu_vendor\": \"arm\""),
       "cpu_vendor: 'arm' is not one of intel, amd"},
      {"engine units", replaced("\"units\": 1", "\"units\": \"two\""), "engines[0].units: expected an integer"},
      {"unknown reader", replaced("\"read_by\": [\"alu\"]", "\"read_by\": [\"dma\"]"),
       "memories[0].read_by: no engine named 'dma'"},
      {"unknown engine", replaced("\"engine\": \"alu\"", "\"engine\": \"fpu\""),
       "instructions[0].engine: no engine named 'fpu'"},
      {"unknown space", replaced("\"name\": \"a\", \"space\": \"reg\"", "\"name\": \"a\", \"space\": \"zmm\""),
       "instructions[0].operands[0].space: no memory named 'zmm'"},
      {"bad type", replaced("\"name\": \"a\", \"space\": \"reg\", \"type\": \"f32[P, 4]\"",
                            "\"name\": \"a\", \"space\": \"reg\", \"type\": \"f64[P, 4]\""),
       "instructions[0].operands[0].type: unknown dtype 'f64'"},
      {"unbounded size", replaced("\"limits\": {\"P\": [1, 8]}", "\"limits\": {}"),
       "instructions[0].limits: size 'P' has no range"},
      {"bad range", replaced("[1, 8]", "[8, 1]"), "instructions[0].limits.P: needs 1 <= lo <= hi"},
      {"latency not a cost", replaced("\"latency\": 4", "\"latency\": true"),
       "instructions[0].cost.latency: expected a number or a formula"},
      {"zero throughput", replaced("\"throughput\": 1", "\"throughput\": 0"),
       "instructions[0].cost.throughput: must be positive"},
      {"cost formula syntax", replaced("\"latency\": 4", "\"latency\": \"4 * (P\""),
       "instructions[0].cost.latency: '4 * (P': missing ')'"},
      {"cost formula size", replaced("\"latency\": 4", "\"latency\": \"4 * Q\""),
       "instructions[0].cost.latency: '4 * Q' uses size 'Q', which has no range"},
      {"emit unknown", replaced("fma({a}, {b}, {c})", "fma({a}, {d})"),
       "instructions[0].emit: names no operand or size 'd'"},
      {"semantics unknown name", replaced("\"a * b + c\"", "\"a * q\""),
       "instructions[0].semantics: 'a * q': unknown name 'q'"},
      {"semantics wrong type", replaced("\"a * b + c\"", "\"np.sum(a, axis=1)\""),
       "instructions[0].semantics: 'np.sum(a, axis=1)' computes f32[P] but result.type is f32[P, 4]"},
      {"repeated operand", replaced("{\"name\": \"b\"", "{\"name\": \"a\""),
       "instructions[0].operands[1].name: operand 'a' repeated"},
      // Strings are printed into C++ comments and code: one line each.
      {"newline in the name", replaced("\"name\": \"tiny\"", "\"name\": \"tiny\\nint boom;\""),
       "t.json:2:11: error: description.name: contains the control character U+000A"},
      {"newline in the summary", replaced("\"summary\": \"test\"", "\"summary\": \"test\\n#error broken\""),
       "t.json:2:47: error: description.summary: contains the control character U+000A"},
      {"carriage return in an emit text", replaced("fma({a}, {b}, {c})", "fma({a}, {b},\\r{c})"),
       "instructions[0].emit: contains the control character U+000D"},
      {"tab in an engine name", replaced("\"name\": \"alu\"", "\"name\": \"a\\tlu\""),
       "engines[0].name: contains the control character U+0009"},
      // A fused instruction names two unfused instructions of the description.
      {"fuses not a pair", replaced("\"emit\": \"fma({a}, {b}, {c})\"", "\"emit\": \"fma({a}, {b}, {c})\", \"fuses\": [\"fma\"]"),
       "instructions[0].fuses: expected [first, then]"},
      {"fuses unknown", replaced("\"emit\": \"fma({a}, {b}, {c})\"", "\"emit\": \"fma({a}, {b}, {c})\", \"fuses\": [\"mul\", \"fma\"]"),
       "instructions[0].fuses: names no unfused instruction 'mul'"},
      // A streaming store names the fence that orders it; nothing else has one.
      {"nontemporal not a boolean", replaced("\"emit\": \"fma({a}, {b}, {c})\"", "\"emit\": \"fma({a}, {b}, {c})\", \"nontemporal\": 1"),
       "instructions[0].nontemporal: expected true or false"},
      {"nontemporal without a fence", replaced("\"emit\": \"fma({a}, {b}, {c})\"", "\"emit\": \"fma({a}, {b}, {c})\", \"nontemporal\": true"),
       "instructions[0].fence: a nontemporal store needs the statement that orders it"},
      {"a fence without nontemporal", replaced("\"emit\": \"fma({a}, {b}, {c})\"", "\"emit\": \"fma({a}, {b}, {c})\", \"fence\": \"f()\""),
       "instructions[0].fence: only a nontemporal store has a fence"},
      // Timing-model parameters: a value, a unit and a known source each.
      {"timing not an object", replaced("\"cores\": 2,", "\"cores\": 2, \"timing\": [],"),
       "timing: expected an object of parameters"},
      {"timing negative", replaced("\"cores\": 2,", "\"cores\": 2, \"timing\": {\"t\": {\"value\": -1, \"unit\": \"ns\", \"source\": \"guess\"}},"),
       "timing.t.value: expected a finite number >= 0"},
      {"timing no unit", replaced("\"cores\": 2,", "\"cores\": 2, \"timing\": {\"t\": {\"value\": 1, \"source\": \"guess\"}},"),
       "timing.t: missing field 'unit'"},
      {"timing bad source", replaced("\"cores\": 2,", "\"cores\": 2, \"timing\": {\"t\": {\"value\": 1, \"unit\": \"ns\", \"source\": \"folklore\"}},"),
       "timing.t.source: 'folklore' is not one of documented, derived, fitted guess, guess"},
      {"timing unknown field", replaced("\"cores\": 2,", "\"cores\": 2, \"timing\": {\"t\": {\"value\": 1, \"unit\": \"ns\", \"source\": \"guess\", \"why\": 1}},"),
       "timing.t: unknown field 'why'"},
  };
  for (const BadRow& row : rows) {
    std::string actual = outcome(row.text);
    EXPECT_NE(actual.find(row.expected), std::string::npos)
        << row.name << "\n  expected: " << row.expected << "\n  actual:   " << actual;
  }
}

// What is not a control character is kept as written, quotes and raw-string
// delimiters included: the emitter escapes it where it prints it.
TEST(HwDescription, PrintableStringsAreKept) {
  Description d = parse_description(replaced("\"name\": \"tiny\"", "\"name\": \"t)axon\\\" \\\\ ä\""), "t.json");
  EXPECT_EQ(d.name, "t)axon\" \\ ä");
}

}  // namespace
}  // namespace axon::hw
