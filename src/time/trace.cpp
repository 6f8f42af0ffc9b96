#include "time/trace.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace axon::timing {
namespace {

// A JSON reader for one trace line at a time, into a reused flat arena: a
// trace of 100,000 records is ~50 MB of JSON, and a general DOM spends most of
// the model's time allocating.
struct Node {
  enum Kind : uint8_t { Null, Bool, Number, String, Array, Object } kind = Null;
  bool is_integer = false;
  bool boolean = false;
  int32_t first = -1, next = -1;  // first child; next sibling
  int64_t integer = 0;
  double number = 0;
  std::string_view key, text;  // key in the parent object; a string's raw text
};

class LineParser {
 public:
  // Parses `line`; on an error, `error` and `error_at` say what and where.
  bool parse(std::string_view line) {
    text_ = line, pos_ = 0, nodes_.clear(), error.clear();
    int32_t root = value(0);
    if (root < 0) return false;
    skip();
    if (pos_ != text_.size()) return fail("unexpected text after the record");
    return true;
  }
  const Node& node(int32_t i) const { return nodes_[static_cast<size_t>(i)]; }
  const Node& root() const { return nodes_.front(); }
  int32_t find(const Node& object, std::string_view key) const {
    for (int32_t c = object.first; c >= 0; c = node(c).next)
      if (node(c).key == key) return c;
    return -1;
  }
  std::string error;
  size_t error_at = 0;

 private:
  bool fail(const std::string& message) {
    if (error.empty()) error = message, error_at = pos_;
    return false;
  }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  int32_t add(Node::Kind kind) {
    nodes_.emplace_back();
    nodes_.back().kind = kind;
    return static_cast<int32_t>(nodes_.size() - 1);
  }
  bool string(std::string_view& out) {
    size_t begin = ++pos_;  // after the quote
    while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= text_.size()) return fail("unterminated string");
    out = text_.substr(begin, pos_ - begin);
    ++pos_;
    return true;
  }
  int32_t value(int depth) {
    if (depth > 32) return fail("nested too deeply"), -1;
    skip();
    if (pos_ >= text_.size()) return fail("unexpected end of line"), -1;
    char c = text_[pos_];
    if (c == '{' || c == '[') {
      bool object = c == '{';
      int32_t self = add(object ? Node::Object : Node::Array);
      ++pos_;
      skip();
      int32_t last = -1;
      if (pos_ < text_.size() && text_[pos_] == (object ? '}' : ']')) return ++pos_, self;
      while (true) {
        std::string_view key;
        if (object) {
          skip();
          if (pos_ >= text_.size() || text_[pos_] != '"') return fail("expected a key"), -1;
          if (!string(key)) return -1;
          skip();
          if (pos_ >= text_.size() || text_[pos_] != ':') return fail("expected ':'"), -1;
          ++pos_;
        }
        int32_t child = value(depth + 1);
        if (child < 0) return -1;
        nodes_[static_cast<size_t>(child)].key = key;
        if (last < 0)
          nodes_[static_cast<size_t>(self)].first = child;
        else
          nodes_[static_cast<size_t>(last)].next = child;
        last = child;
        skip();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == (object ? '}' : ']')) return ++pos_, self;
        return fail(object ? "expected ',' or '}'" : "expected ',' or ']'"), -1;
      }
    }
    if (c == '"') {
      int32_t self = add(Node::String);
      std::string_view s;
      if (!string(s)) return -1;
      nodes_[static_cast<size_t>(self)].text = s;
      return self;
    }
    for (auto [word, kind, flag] : {std::tuple{"true", Node::Bool, true}, std::tuple{"false", Node::Bool, false},
                                    std::tuple{"null", Node::Null, false}})
      if (text_.substr(pos_, std::strlen(word)) == word) {
        int32_t self = add(kind);
        nodes_[static_cast<size_t>(self)].boolean = flag;
        pos_ += std::strlen(word);
        return self;
      }
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t begin = pos_;
      bool integer = true;
      ++pos_;
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' || text_[pos_] == 'e' ||
              text_[pos_] == 'E' || text_[pos_] == '+' || text_[pos_] == '-')) {
        if (!std::isdigit(static_cast<unsigned char>(text_[pos_]))) integer = false;
        ++pos_;
      }
      const char* first = text_.data() + begin;
      const char* last = text_.data() + pos_;
      int32_t self = add(Node::Number);
      Node& n = nodes_[static_cast<size_t>(self)];
      n.is_integer = integer;
      std::from_chars_result got =
          integer ? std::from_chars(first, last, n.integer) : std::from_chars(first, last, n.number);
      if (got.ec != std::errc() || got.ptr != last) return pos_ = begin, fail("bad number"), -1;
      if (integer) n.number = static_cast<double>(n.integer);
      return self;
    }
    return fail("expected a value"), -1;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Node> nodes_;
};

struct LineReader {
  std::shared_ptr<const SourceFile> file;
  int line;
  const LineParser& json;

  [[noreturn]] void fail(const std::string& message, size_t column = 0) const {
    throw UserError({file, line, static_cast<int>(column) + 1}, "bad trace record: " + message);
  }
  const Node* maybe(const Node& object, const char* key) const {
    int32_t i = json.find(object, key);
    return i < 0 ? nullptr : &json.node(i);
  }
  const Node& field(const Node& object, const char* key) const {
    const Node* v = maybe(object, key);
    if (!v) fail(std::string("missing field '") + key + "'");
    return *v;
  }
  int64_t integer(const Node& object, const char* key) const {
    const Node& v = field(object, key);
    if (v.kind != Node::Number || !v.is_integer) fail(std::string("'") + key + "' must be an integer");
    return v.integer;
  }
  std::string_view string(const Node& object, const char* key) const {
    const Node& v = field(object, key);
    if (v.kind != Node::String) fail(std::string("'") + key + "' must be a string");
    return v.text;
  }
  std::vector<const Node*> items(const Node& array) const {
    std::vector<const Node*> out;
    for (int32_t c = array.first; c >= 0; c = json.node(c).next) out.push_back(&json.node(c));
    return out;
  }
  std::pair<int64_t, int64_t> range(const Node& object, const char* key) const {
    const Node& v = field(object, key);
    std::vector<const Node*> two = v.kind == Node::Array ? items(v) : std::vector<const Node*>{};
    if (two.size() != 2 || !two[0]->is_integer || !two[1]->is_integer)
      fail(std::string("'") + key + "' must be [first, end] integers");
    int64_t lo = two[0]->integer, hi = two[1]->integer;
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
  static const std::map<std::string, Opcode> names = {{"nc_matmul", Opcode::Matmul},
                                                      {"nc_transpose", Opcode::Transpose},
                                                      {"activation", Opcode::Activation},
                                                      {"tensor_tensor", Opcode::TensorTensor},
                                                      {"tensor_scalar", Opcode::TensorScalar},
                                                      {"scalar_tensor_tensor", Opcode::ScalarTensorTensor},
                                                      {"tensor_reduce", Opcode::TensorReduce},
                                                      {"tensor_copy", Opcode::TensorCopy},
                                                      {"reciprocal", Opcode::Reciprocal},
                                                      {"tensor_tensor_scan", Opcode::Scan},
                                                      {"bn_stats", Opcode::BnStats},
                                                      {"bn_aggr", Opcode::BnAggr},
                                                      {"memset", Opcode::Memset},
                                                      {"iota", Opcode::Iota},
                                                      {"load", Opcode::Load},
                                                      {"store", Opcode::Store},
                                                      {"dma_copy", Opcode::DmaCopy},
                                                      {"load_transpose2d", Opcode::DmaTranspose},
                                                      {"dma_transpose", Opcode::DmaTranspose}};
  auto it = names.find(op);
  return it == names.end() ? Opcode::Other : it->second;
}

Operand parse_operand(const LineReader& r, const Node& j) {
  if (j.kind != Node::Object) r.fail("an operand must be an object");
  Operand o;
  std::string_view space = r.string(j, "mem");
  if (space == "sbuf")
    o.space = Space::Sbuf;
  else if (space == "psum")
    o.space = Space::Psum;
  else if (space == "shared_hbm" || space == "private_hbm" || space == "hbm")
    o.space = Space::Hbm;
  else
    r.fail("unknown memory '" + std::string(space) + "'");
  o.buf = r.integer(j, "buf");
  if (o.buf < 0) r.fail("'buf' must be an id >= 0");
  auto [p0, p1] = r.range(j, "part");
  auto [b0, b1] = r.range(j, "bytes");
  if (p1 > (int64_t{1} << 31)) r.fail("'part' out of range");
  o.p0 = static_cast<int32_t>(p0), o.p1 = static_cast<int32_t>(p1), o.b0 = b0, o.b1 = b1;
  o.contig = r.integer(j, "contig");
  o.alloc_bytes = r.maybe(j, "alloc") ? r.integer(j, "alloc") : 0;
  const Node& shape = r.field(j, "shape");
  if (shape.kind != Node::Array) r.fail("'shape' must be an array");
  o.elements = 1;
  o.free_elements = 1;
  bool first = true;
  for (const Node* size : r.items(shape)) {
    if (!size->is_integer || size->integer < 0) r.fail("'shape' must hold sizes");
    o.elements *= size->integer;
    if (!first) o.free_elements *= size->integer;
    first = false;
  }
  std::string_view d = r.string(j, "dtype");
  if (d == "float32" || d == "int32" || d == "uint32" || d == "tfloat32")
    o.dtype_bytes = 4;
  else if (d == "bfloat16" || d == "float16" || d == "int16" || d == "uint16")
    o.dtype_bytes = 2;
  else
    o.dtype_bytes = 1;  // fp8, int8, uint8, bool
  o.is_f32 = d == "float32" || d == "int32" || d == "uint32";
  if (o.contig <= 0) o.contig = o.dtype_bytes;
  return o;
}

Record parse_record(const LineReader& r) {
  const Node& j = r.json.root();
  if (j.kind != Node::Object) r.fail("expected one JSON object per line");
  Record rec;
  rec.line = r.line;
  rec.seq = r.integer(j, "seq");
  std::string_view engine = r.string(j, "engine");
  rec.queue = parse_queue(r, std::string(r.maybe(j, "queue") ? r.string(j, "queue") : engine));
  rec.op = std::string(r.string(j, "op"));
  rec.opcode = parse_opcode(rec.op);
  if (const Node* loc = r.maybe(j, "loc"); loc && loc->kind == Node::String) rec.loc = std::string(loc->text);
  if (const Node* n = r.maybe(j, "n"); n && n->is_integer) rec.n = n->integer;
  if (const Node* bytes = r.maybe(j, "bytes"); bytes && bytes->is_integer) rec.bytes = bytes->integer;
  if (const Node* mkn = r.maybe(j, "mkn")) {
    std::vector<const Node*> three = mkn->kind == Node::Array ? r.items(*mkn) : std::vector<const Node*>{};
    if (three.size() != 3) r.fail("'mkn' must be [M, K, N]");
    for (int i = 0; i < 3; ++i) {
      if (!three[static_cast<size_t>(i)]->is_integer) r.fail("'mkn' must be [M, K, N]");
      rec.mkn[i] = three[static_cast<size_t>(i)]->integer;
    }
  }
  const Node* accumulate = r.maybe(j, "accumulate");
  rec.accumulate = accumulate && accumulate->kind == Node::Bool && accumulate->boolean;
  bool rmw = r.maybe(j, "rmw") != nullptr;
  const Node& ins = r.field(j, "in");
  if (ins.kind != Node::Array) r.fail("'in' must be an array");
  for (const Node* in : r.items(ins)) {
    Operand o = parse_operand(r, *in);
    const Node* role = r.maybe(*in, "role");
    if (role && role->kind == Node::String && role->text == "reduce_res") {
      o.written = true;
      o.read = false;
      rec.reduces = true;
    }
    rec.operands.push_back(o);
  }
  const Node& out = r.field(j, "out");
  if (out.kind != Node::Null) {
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
  LineParser json;
  std::unordered_map<int64_t, int64_t> dense;  // trace buf id -> 0, 1, 2, ...
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string_view view(text.data() + begin, end - begin);
    if (view.find_first_not_of(" \t\r") != std::string_view::npos) {
      LineReader reader{file, line, json};
      if (!json.parse(view)) reader.fail("not valid JSON: " + json.error, json.error_at);
      trace.records.push_back(parse_record(reader));
      for (Operand& o : trace.records.back().operands)
        o.buf = dense.emplace(o.buf, static_cast<int64_t>(dense.size())).first->second;
    }
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
