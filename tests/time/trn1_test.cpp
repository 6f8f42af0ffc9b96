// The trn1 timing model on small hand-written traces: parallel engines,
// dependences, shared ports, DMA accounting, capacity, parameters and errors.
#include "time/trn1.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/description.h"

namespace axon::timing {
namespace {

const hw::Description& trn1() {
  static const hw::Description d = hw::load_description(std::string(AXON_SOURCE_DIR) + "/hw/trn1.json");
  return d;
}

// One operand of a trace record.
std::string operand(const std::string& mem, int buf, int partitions, int bytes, const std::string& dtype = "float32",
                    int alloc = -1) {
  int item = dtype == "float32" ? 4 : 2;
  std::ostringstream out;
  out << "{\"shape\": [" << partitions << ", " << bytes / item << "], \"dtype\": \"" << dtype << "\", \"mem\": \""
      << mem << "\", \"buf\": " << buf << ", \"part\": [0, " << partitions << "], \"bytes\": [0, " << bytes
      << "], \"contig\": " << bytes << ", \"alloc\": "
      << (mem == "shared_hbm" ? 0
          : alloc < 0         ? bytes
                              : alloc)
      << "}";
  return out.str();
}

std::string record(int seq, const std::string& engine, const std::string& op, const std::vector<std::string>& ins,
                   const std::string& out, const std::string& extra = "") {
  std::ostringstream text;
  text << "{\"seq\": " << seq << ", \"engine\": \"" << engine << "\", \"op\": \"" << op << "\", \"in\": [";
  for (size_t i = 0; i < ins.size(); ++i) text << (i ? ", " : "") << ins[i];
  text << "], \"out\": " << out << extra << "}\n";
  return text.str();
}

Timing timed(const std::string& text) {
  auto file = std::make_shared<SourceFile>(SourceFile{"t.jsonl", text});
  return time_trace(parse_trace(file), trn1_params(trn1()), true);
}

double busy(const Timing& t, const std::string& engine) {
  for (const EngineUsage& e : t.engines)
    if (e.name == engine) return e.busy_ns;
  return -1;
}

// A 128 x 512 f32 elementwise op on `engine` from buffer `in` to buffer `out`.
std::string op(int seq, const std::string& engine, int in, int out, const std::string& name = "tensor_copy") {
  return record(seq, engine, name, {operand("sbuf", in, 128, 2048)}, operand("sbuf", out, 128, 2048), ", \"n\": 512");
}

TEST(Trn1Timing, ShippedParametersLoadWithSources) {
  Trn1Params p = trn1_params(trn1());
  EXPECT_DOUBLE_EQ(p.clock_ghz[0], 2.8);
  EXPECT_EQ(p.dma_queues, 16);
  for (const auto& [name, parameter] : trn1().timing)
    EXPECT_FALSE(parameter.source.empty() || parameter.note.empty()) << name;
}

TEST(Trn1Timing, MissingParameterIsNamed) {
  hw::Description d = trn1();
  d.timing.erase("sync_ns");
  try {
    trn1_params(d);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("timing.sync_ns: missing"), std::string::npos) << e.what();
  }
}

TEST(Trn1Timing, EnginesRunInParallelAndInOrder) {
  Trn1Params p = trn1_params(trn1());
  double vector_op = 512 / p.clock_ghz[1], scalar_op = 512 / p.clock_ghz[2];
  // Independent: Vector and Scalar overlap; two on Vector run one after the other.
  Timing parallel = timed(op(0, "vector", 0, 1) + op(1, "scalar", 2, 3));
  EXPECT_NEAR(parallel.total_ns - p.launch_ns, std::max(vector_op, scalar_op), 1e-6);
  Timing serial = timed(op(0, "vector", 0, 1) + op(1, "vector", 2, 3));
  EXPECT_NEAR(serial.total_ns - p.launch_ns, 2 * vector_op, 1e-6);
  EXPECT_NEAR(busy(serial, "vector"), 2 * vector_op, 1e-6);
  EXPECT_NEAR(busy(serial, "scalar"), 0, 1e-9);
}

TEST(Trn1Timing, DependencesWaitWithSyncAcrossEngines) {
  Trn1Params p = trn1_params(trn1());
  double vector_op = 512 / p.clock_ghz[1], scalar_op = 512 / p.clock_ghz[2];
  // Scalar reads what Vector wrote (RAW): one after the other, plus a semaphore.
  Timing raw = timed(op(0, "vector", 0, 1) + op(1, "scalar", 1, 2));
  EXPECT_NEAR(raw.total_ns - p.launch_ns, vector_op + p.sync_ns + scalar_op, 1e-6);
  // Scalar overwrites what Vector reads (WAR): also ordered.
  Timing war = timed(op(0, "vector", 0, 1) + op(1, "scalar", 2, 0));
  EXPECT_NEAR(war.total_ns - p.launch_ns, vector_op + p.sync_ns + scalar_op, 1e-6);
  // Disjoint halves of one buffer: no dependence.
  std::string low = operand("sbuf", 1, 64, 2048),
              high =
                  "{\"shape\": [64, 512], \"dtype\": \"float32\", \"mem\": "
                  "\"sbuf\", \"buf\": 1, \"part\": [64, 128], \"bytes\": [0, 2048], \"contig\": 2048, \"alloc\": 2048}";
  Timing disjoint = timed(record(0, "vector", "tensor_copy", {operand("sbuf", 0, 64, 2048)}, low, ", \"n\": 512") +
                          record(1, "scalar", "activation", {high}, operand("sbuf", 2, 64, 2048), ", \"n\": 512"));
  EXPECT_NEAR(disjoint.total_ns - p.launch_ns, std::max(vector_op, scalar_op), 1e-6);
}

TEST(Trn1Timing, SharedPortsSerialize) {
  Trn1Params p = trn1_params(trn1());
  double vector_op = 512 / p.clock_ghz[1], gpsimd_op = 512 / p.clock_ghz[3];
  // Vector and GpSimd share the SBUF port.
  Timing shared = timed(op(0, "vector", 0, 1) + op(1, "gpsimd", 2, 3));
  EXPECT_NEAR(shared.total_ns - p.launch_ns, vector_op + gpsimd_op, 1e-6);
}

TEST(Trn1Timing, DmaCountsBytesAndDescriptors) {
  // 128 partitions x 2 KiB from rows of a wider HBM tensor: 128 descriptors of 2 KiB.
  std::string src = operand("shared_hbm", 0, 128, 8192);
  src.replace(src.find("\"bytes\": [0, 8192]"), 18, "\"bytes\": [0, 2048]");
  src.replace(src.find("\"contig\": 8192"), 14, "\"contig\": 2048");
  Timing t = timed(record(0, "dma", "load", {src}, operand("sbuf", 1, 128, 2048), ", \"bytes\": 262144"));
  EXPECT_EQ(t.dma_bytes, 262144);
  EXPECT_EQ(t.dma_descriptors, 128);
  EXPECT_EQ(t.dma_transfers, 16);
  Trn1Params p = trn1_params(trn1());
  double per_queue = p.dma_transfer_ns + 8 * p.dma_descriptor_ns + 16384 / p.dma_queue_bytes_per_ns;
  EXPECT_NEAR(t.total_ns - p.launch_ns, per_queue + p.dma_latency_ns, 1e-6);
}

TEST(Trn1Timing, CapacityDelaysANewAllocation) {
  Trn1Params p = trn1_params(trn1());
  // Two 128 KiB tiles cannot both live in 192 KiB: the second Scalar op waits
  // for the Vector op that last reads the first tile.
  int big = 128 * 1024;
  std::string a = record(0, "vector", "memset", {}, operand("sbuf", 0, 128, big), ", \"n\": 32768");
  std::string b =
      record(1, "scalar", "activation", {operand("sbuf", 2, 128, 2048)}, operand("sbuf", 1, 128, big), ", \"n\": 512");
  double memset = 32768 / p.clock_ghz[1], activation = 512 / p.clock_ghz[2];
  Timing t = timed(a + b);
  EXPECT_NEAR(t.total_ns - p.launch_ns, memset + activation, 1e-6);
  Timing small = timed(a + record(1, "scalar", "activation", {operand("sbuf", 2, 128, 2048)},
                                  operand("sbuf", 1, 128, 2048), ", \"n\": 512"));
  EXPECT_NEAR(small.total_ns - p.launch_ns, memset, 1e-6);
}

TEST(Trn1Timing, PsumZeroingFoldsIntoTheMatmul) {
  std::string acc = operand("psum", 2, 128, 2048);
  std::string trace = record(0, "vector", "memset", {}, acc, ", \"n\": 512") +
                      record(1, "tensor", "nc_matmul",
                             {operand("sbuf", 0, 128, 256, "bfloat16"), operand("sbuf", 1, 128, 1024, "bfloat16")}, acc,
                             ", \"n\": 128, \"mkn\": [128, 128, 512], \"accumulate\": true");
  Timing t = timed(trace);
  EXPECT_EQ(t.folded_memsets, 1);
  EXPECT_NEAR(busy(t, "vector"), 0, 1e-9);
  Trn1Params p = trn1_params(trn1());
  EXPECT_NEAR(t.total_ns - p.launch_ns, 512 / p.clock_ghz[0], 1e-6);
}

TEST(Trn1Timing, ChromeTraceHasATrackPerQueue) {
  Timing t = timed(op(0, "vector", 0, 1) + op(1, "scalar", 1, 2));
  auto file = std::make_shared<SourceFile>(SourceFile{"t.jsonl", op(0, "vector", 0, 1) + op(1, "scalar", 1, 2)});
  std::ostringstream out;
  write_chrome_trace(parse_trace(file), t, out);
  nlohmann::json j = nlohmann::json::parse(out.str());
  int spans = 0, names = 0;
  for (const auto& e : j["traceEvents"]) {
    spans += e["ph"] == "X";
    names += e["ph"] == "M" && e["name"] == "thread_name";
  }
  EXPECT_EQ(spans, 2);
  EXPECT_EQ(names, 4 + 16);
  nlohmann::json summary = nlohmann::json::parse(timing_json(t));
  EXPECT_GT(summary["total_ns"].get<double>(), 0);
  EXPECT_EQ(summary["engines"]["vector"]["instructions"], 1);
}

TEST(Trn1Timing, BadTraceLinesAreUserErrors) {
  struct Row {
    std::string text, expected;
  };
  const std::vector<Row> rows = {
      {"{\"seq\": 0, \"engine\": \"vector\", \"op\": \"x\", \"in\": [], \"out\": nul}\n", "t.jsonl:1:"},
      {"\n{\"seq\": 0, \"engine\": \"npu\", \"op\": \"x\", \"in\": [], \"out\": null}\n",
       "t.jsonl:2:1: error: bad trace record: unknown engine 'npu'"},
      {"{\"seq\": 0, \"engine\": \"vector\", \"op\": \"x\", \"in\": []}\n", "missing field 'out'"},
      {"{\"seq\": 0, \"engine\": \"vector\", \"op\": \"x\", \"in\": [{\"mem\": \"sbuf\"}], \"out\": null}\n",
       "missing field 'buf'"},
      {"[1, 2]\n", "expected one JSON object per line"},
  };
  for (const Row& row : rows) {
    std::string actual;
    try {
      parse_trace(std::make_shared<SourceFile>(SourceFile{"t.jsonl", row.text}));
      actual = "ok";
    } catch (const UserError& e) {
      actual = e.format();
    }
    EXPECT_NE(actual.find(row.expected), std::string::npos)
        << "input: " << row.text << "expected: " << row.expected << "\nactual: " << actual;
  }
}

}  // namespace
}  // namespace axon::timing
