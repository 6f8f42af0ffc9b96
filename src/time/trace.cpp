#include "time/trace.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

namespace axon::timing {
namespace {

using Json = nlohmann::json;

struct LineReader {
  std::shared_ptr<const SourceFile> file;
  int line;
  size_t begin;  // offset of the line in the file

  [[noreturn]] void fail(const std::string& message, size_t column = 0) const {
    throw UserError({file, line, static_cast<int>(column) + 1}, "bad trace record: " + message);
  }
  const Json& field(const Json& object, const char* key) const {
    auto it = object.find(key);
    if (it == object.end()) fail(std::string("missing field '") + key + "'");
    return *it;
  }
  int64_t integer(const Json& object, const char* key) const {
    const Json& v = field(object, key);
    if (!v.is_number_integer()) fail(std::string("'") + key + "' must be an integer");
    return v.get<int64_t>();
  }
  std::pair<int64_t, int64_t> range(const Json& object, const char* key) const {
    const Json& v = field(object, key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
      fail(std::string("'") + key + "' must be [first, end] integers");
    int64_t lo = v[0].get<int64_t>(), hi = v[1].get<int64_t>();
    if (lo < 0 || hi < lo) fail(std::string("'") + key + "' must have 0 <= first <= end");
    return {lo, hi};
  }
};

Queue parse_queue(const LineReader& r, const std::string& name) {
  if (name == "tensor") return Queue::Tensor;
  if (name == "vector") return Queue::Vector;
  if (name == "scalar") return Queue::Scalar;
  if (name == "gpsimd") return Queue::Gpsimd;
  if (name == "dma") return Queue::Dma;
  r.fail("unknown engine '" + name + "' (tensor, vector, scalar, gpsimd, dma)");
}

Opcode parse_opcode(const std::string& op) {
  static const std::map<std::string, Opcode> names = {
      {"nc_matmul", Opcode::Matmul},         {"nc_transpose", Opcode::Transpose},
      {"activation", Opcode::Activation},    {"tensor_tensor", Opcode::TensorTensor},
      {"tensor_scalar", Opcode::TensorScalar}, {"scalar_tensor_tensor", Opcode::ScalarTensorTensor},
      {"tensor_reduce", Opcode::TensorReduce}, {"tensor_copy", Opcode::TensorCopy},
      {"reciprocal", Opcode::Reciprocal},    {"tensor_tensor_scan", Opcode::Scan},
      {"bn_stats", Opcode::BnStats},         {"bn_aggr", Opcode::BnAggr},
      {"memset", Opcode::Memset},            {"iota", Opcode::Iota},
      {"load", Opcode::Load},                {"store", Opcode::Store},
      {"dma_copy", Opcode::DmaCopy},         {"load_transpose2d", Opcode::DmaTranspose},
      {"dma_transpose", Opcode::DmaTranspose}};
  auto it = names.find(op);
  return it == names.end() ? Opcode::Other : it->second;
}

Operand parse_operand(const LineReader& r, const Json& j) {
  if (!j.is_object()) r.fail("an operand must be an object");
  Operand o;
  const Json& mem = r.field(j, "mem");
  if (!mem.is_string()) r.fail("'mem' must be a string");
  const std::string space = mem.get<std::string>();
  if (space == "sbuf") o.space = Space::Sbuf;
  else if (space == "psum") o.space = Space::Psum;
  else if (space == "shared_hbm" || space == "private_hbm" || space == "hbm") o.space = Space::Hbm;
  else r.fail("unknown memory '" + space + "'");
  o.buf = r.integer(j, "buf");
  auto [p0, p1] = r.range(j, "part");
  auto [b0, b1] = r.range(j, "bytes");
  o.p0 = static_cast<int32_t>(p0), o.p1 = static_cast<int32_t>(p1), o.b0 = b0, o.b1 = b1;
  o.contig = r.integer(j, "contig");
  o.alloc_bytes = j.contains("alloc") ? r.integer(j, "alloc") : 0;
  const Json& shape = r.field(j, "shape");
  if (!shape.is_array()) r.fail("'shape' must be an array");
  o.elements = 1;
  o.free_elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_number_integer() || shape[i].get<int64_t>() < 0) r.fail("'shape' must hold sizes");
    o.elements *= shape[i].get<int64_t>();
    if (i) o.free_elements *= shape[i].get<int64_t>();
  }
  const Json& dtype = r.field(j, "dtype");
  if (!dtype.is_string()) r.fail("'dtype' must be a string");
  const std::string d = dtype.get<std::string>();
  if (d == "float32" || d == "int32" || d == "uint32") o.dtype_bytes = 4;
  else if (d == "bfloat16" || d == "float16" || d == "int16" || d == "uint16") o.dtype_bytes = 2;
  else if (d == "tfloat32") o.dtype_bytes = 4;
  else o.dtype_bytes = 1;  // fp8, int8, uint8, bool
  o.is_f32 = d == "float32" || d == "int32" || d == "uint32";
  if (o.contig <= 0) o.contig = o.dtype_bytes;
  return o;
}

Record parse_record(const LineReader& r, const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    size_t column = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    std::string message = e.what();
    size_t colon = message.find(": ", message.find("parse error"));
    r.fail("not valid JSON" + (colon == std::string::npos ? "" : message.substr(colon)), column);
  }
  if (!j.is_object()) r.fail("expected one JSON object per line");
  Record rec;
  rec.line = r.line;
  rec.seq = r.integer(j, "seq");
  const Json& engine = r.field(j, "engine");
  if (!engine.is_string()) r.fail("'engine' must be a string");
  const Json* queue = j.contains("queue") ? &j["queue"] : &engine;
  if (!queue->is_string()) r.fail("'queue' must be a string");
  rec.queue = parse_queue(r, queue->get<std::string>());
  const Json& op = r.field(j, "op");
  if (!op.is_string()) r.fail("'op' must be a string");
  rec.op = op.get<std::string>();
  rec.opcode = parse_opcode(rec.op);
  if (j.contains("loc") && j["loc"].is_string()) rec.loc = j["loc"].get<std::string>();
  if (j.contains("n") && j["n"].is_number_integer()) rec.n = j["n"].get<int64_t>();
  if (j.contains("bytes") && j["bytes"].is_number_integer()) rec.bytes = j["bytes"].get<int64_t>();
  if (j.contains("mkn")) {
    const Json& mkn = j["mkn"];
    if (!mkn.is_array() || mkn.size() != 3) r.fail("'mkn' must be [M, K, N]");
    for (int i = 0; i < 3; ++i) {
      if (!mkn[i].is_number_integer()) r.fail("'mkn' must be [M, K, N]");
      rec.mkn[i] = mkn[i].get<int64_t>();
    }
  }
  rec.accumulate = j.contains("accumulate") && j["accumulate"].is_boolean() && j["accumulate"].get<bool>();
  bool rmw = j.contains("rmw");
  const Json& ins = r.field(j, "in");
  if (!ins.is_array()) r.fail("'in' must be an array");
  for (const Json& in : ins) {
    Operand o = parse_operand(r, in);
    if (in.contains("role") && in["role"] == "reduce_res") {
      o.written = true;
      o.read = false;
      rec.reduces = true;
    }
    rec.operands.push_back(o);
  }
  const Json& out = r.field(j, "out");
  if (!out.is_null()) {
    Operand o = parse_operand(r, out);
    o.written = true;
    o.read = rec.accumulate || rmw;
    rec.operands.push_back(o);
  }
  return rec;
}

}  // namespace

const char* queue_name(Queue q) {
  switch (q) {
    case Queue::Tensor: return "tensor";
    case Queue::Vector: return "vector";
    case Queue::Scalar: return "scalar";
    case Queue::Gpsimd: return "gpsimd";
    case Queue::Dma: return "dma";
  }
  return "?";
}

Trace parse_trace(std::shared_ptr<const SourceFile> file) {
  Trace trace;
  trace.file = file;
  const std::string& text = file->text;
  int line = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string_view view(text.data() + begin, end - begin);
    bool blank = view.find_first_not_of(" \t\r") == std::string_view::npos;
    if (!blank) trace.records.push_back(parse_record({file, line, begin}, std::string(view)));
    begin = end + 1;
  }
  return trace;
}

Trace load_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError({std::make_shared<SourceFile>(SourceFile{path, ""}), 0, 0}, "cannot open trace file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trace(std::make_shared<SourceFile>(SourceFile{path, text.str()}));
}

}  // namespace axon::timing
