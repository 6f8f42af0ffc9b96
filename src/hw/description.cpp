#include "hw/description.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "lang/load.h"

namespace axon::hw {
namespace {

using Json = nlohmann::json;

// Cost formulas: numbers, size names, + - * / ( ), max(a, b), min(a, b).
class CostParser {
 public:
  CostParser(const std::string& text, const ir::Dims* dims) : text_(text), dims_(dims) {}

  // The value (names read from dims_, or 1 when only checking); throws
  // std::invalid_argument with a message on bad syntax or unknown names.
  double run() {
    double v = sum();
    skip();
    if (pos_ != text_.size()) throw std::invalid_argument("unexpected '" + text_.substr(pos_, 1) + "'");
    return v;
  }
  std::set<std::string> names;

 private:
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool accept(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  double sum() {
    double v = product();
    while (true) {
      if (accept('+')) v += product();
      else if (accept('-')) v -= product();
      else return v;
    }
  }
  double product() {
    double v = atom();
    while (true) {
      if (accept('*')) v *= atom();
      else if (accept('/')) v /= atom();
      else return v;
    }
  }
  double atom() {
    if (++depth_ > 64) throw std::invalid_argument("nested too deeply");
    skip();
    double v;
    if (accept('(')) {
      v = sum();
      if (!accept(')')) throw std::invalid_argument("missing ')'");
    } else if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      size_t used = 0;
      v = std::stod(text_.substr(pos_), &used);
      pos_ += used;
    } else if (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
      size_t begin = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      std::string name = text_.substr(begin, pos_ - begin);
      if (name == "max" || name == "min") {
        if (!accept('(')) throw std::invalid_argument(name + " needs '('");
        double a = sum();
        if (!accept(',')) throw std::invalid_argument(name + " takes two arguments");
        double b = sum();
        if (!accept(')')) throw std::invalid_argument("missing ')'");
        v = name == "max" ? std::max(a, b) : std::min(a, b);
      } else {
        names.insert(name);
        v = 1;
        if (dims_) {
          auto it = dims_->find(name);
          if (it == dims_->end()) throw std::invalid_argument("size '" + name + "' has no value");
          v = static_cast<double>(it->second);
        }
      }
    } else {
      throw std::invalid_argument("expected a number, a size name or '('");
    }
    --depth_;
    return v;
  }

  const std::string& text_;
  const ir::Dims* dims_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// Reads fields with errors that name them; `where` is the field's path.
class Reader {
 public:
  Reader(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& message, const std::string& near = "") const {
    throw UserError(locate(near), where + ": " + message);
  }

  const Json& field(const Json& object, const std::string& key, const std::string& where, const std::string& near = "") const {
    if (!object.is_object()) fail(where, "expected an object", near);
    auto it = object.find(key);
    if (it == object.end()) fail(where, "missing field '" + key + "'", near);
    return *it;
  }
  // Every string of a description is one line of text: names, summaries and
  // emit texts are printed into C++ comments and code, where a line break
  // (or any control character) would end a comment or a line of code early.
  std::string string(const Json& object, const std::string& key, const std::string& where, const std::string& near = "") const {
    const Json& v = field(object, key, where, near);
    if (!v.is_string()) fail(where + "." + key, "expected a string", near);
    std::string text = v.get<std::string>();
    for (unsigned char c : text)
      if (c < 0x20 || c == 0x7f) {
        char code[8];
        std::snprintf(code, sizeof code, "U+%04X", c);
        std::string escaped = v.dump();  // as the file most likely spells it
        throw UserError(locate(escaped.substr(1, escaped.size() - 2)),
                        where + "." + key + ": contains the control character " + code +
                            " (a description's strings are one line of text)");
      }
    return text;
  }
  std::string optional_string(const Json& object, const std::string& key, const std::string& where,
                              const std::string& fallback, const std::string& near = "") const {
    return object.contains(key) ? string(object, key, where, near) : fallback;
  }
  double number(const Json& object, const std::string& key, const std::string& where, double lo, const std::string& near = "") const {
    const Json& v = field(object, key, where, near);
    if (!v.is_number()) fail(where + "." + key, "expected a number", near);
    double x = v.get<double>();
    if (!(x >= lo)) fail(where + "." + key, "must be at least " + std::to_string(lo), near);
    return x;
  }
  int64_t integer(const Json& object, const std::string& key, const std::string& where, int64_t lo, const std::string& near = "") const {
    const Json& v = field(object, key, where, near);
    if (!v.is_number_integer()) fail(where + "." + key, "expected an integer", near);
    int64_t x = v.get<int64_t>();
    if (x < lo) fail(where + "." + key, "must be at least " + std::to_string(lo), near);
    return x;
  }
  const Json& array(const Json& object, const std::string& key, const std::string& where, const std::string& near = "") const {
    const Json& v = field(object, key, where, near);
    if (!v.is_array()) fail(where + "." + key, "expected an array", near);
    return v;
  }
  std::vector<std::string> strings(const Json& object, const std::string& key, const std::string& where) const {
    std::vector<std::string> out;
    if (!object.contains(key)) return out;
    const Json& v = array(object, key, where);
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(where + "." + key + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  // Where `"needle"` first appears in the file (1:1 when it does not).
  SourceLoc locate(const std::string& needle) const {
    size_t at = needle.empty() ? std::string::npos : file_->text.find("\"" + needle + "\"");
    if (at == std::string::npos) return {file_, 1, 1};
    int line = 1;
    size_t begin = 0;
    for (size_t i = 0; i < at; ++i)
      if (file_->text[i] == '\n') line = (begin = i + 1, line + 1);
    return {file_, line, static_cast<int>(at - begin) + 1};
  }

  std::shared_ptr<const SourceFile> file() const { return file_; }

 private:
  std::shared_ptr<const SourceFile> file_;
};

std::string fnv1a(const std::string& bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

Operand operand(const Reader& r, const Json& j, const std::string& where, const std::string& near, bool named,
                const std::set<std::string>& spaces) {
  Operand o;
  if (named) {
    o.name = r.string(j, "name", where, near);
    if (!lang::is_identifier(o.name)) r.fail(where + ".name", "'" + o.name + "' is not an identifier", near);
  }
  o.space = r.string(j, "space", where, near);
  if (j.contains("immediate")) {
    if (!named || !j["immediate"].is_boolean()) r.fail(where + ".immediate", "expected true or false on an operand", near);
    o.immediate = j["immediate"].get<bool>();
  }
  if (!spaces.count(o.space)) r.fail(where + ".space", "no memory named '" + o.space + "'", near);
  std::string type = r.string(j, "type", where, near);
  try {
    o.type = lang::parse_annotation(type, {});
  } catch (const UserError& e) {
    r.fail(where + ".type", e.what(), near);
  }
  return o;
}

// The semantics expression, compiled as a one-line kernel over the operands.
ir::Program compile_semantics(const Reader& r, const Instruction& ins, const std::string& where) {
  std::ostringstream source;
  source << "import numpy as np\n\ndef " << ins.name << "(";
  for (size_t i = 0; i < ins.operands.size(); ++i)
    source << (i ? ", " : "") << ins.operands[i].name << ": \"" << ins.operands[i].type.str() << "\"";
  source << "):\n    return " << ins.semantics_text << "\n";
  auto file = std::make_shared<SourceFile>();
  file->path = r.file()->path + ": " + where + ".semantics";
  file->text = source.str();
  ir::Program program;
  try {
    program = lang::compile_source(file);
  } catch (const UserError& e) {
    r.fail(where + ".semantics", std::string("'") + ins.semantics_text + "': " + e.what(), ins.name);
  }
  if (program.kernel.outputs.size() != 1)
    r.fail(where + ".semantics", "must be one expression with one result", ins.name);
  const ir::TensorType& got = program.kernel.outputs[0]->type();
  if (got != ins.result.type)
    r.fail(where + ".semantics", "'" + ins.semantics_text + "' computes " + got.str() + " but result.type is " +
                                     ins.result.type.str(), ins.name);
  return program;
}

// A cost: a positive number, or a formula over the instruction's sizes that
// is positive at the low end of every range.
Cost cost_field(const Reader& r, const Json& cost, const std::string& key, const std::string& where,
                const Instruction& ins, const std::string& near) {
  const Json& v = r.field(cost, key, where, near);
  std::string formula;
  if (v.is_number()) {
    std::ostringstream text;
    text.precision(17);
    text << v.get<double>();
    formula = text.str();
  } else if (v.is_string()) {
    formula = v.get<std::string>();
  } else {
    r.fail(where + "." + key, "expected a number or a formula", near);
  }
  CostParser check(formula, nullptr);
  try {
    check.run();
  } catch (const std::exception& e) {
    r.fail(where + "." + key, "'" + formula + "': " + e.what(), near);
  }
  ir::Dims low;
  for (const std::string& n : check.names) {
    if (!ins.limits.count(n)) r.fail(where + "." + key, "'" + formula + "' uses size '" + n + "', which has no range", near);
    low[n] = ins.limits.at(n).first;
  }
  double at_low = CostParser(formula, &low).run();
  if (!(at_low > 0) && !(key == "latency" && at_low == 0))
    r.fail(where + "." + key, "must be positive ('" + formula + "' is " + std::to_string(at_low) + ")", near);
  return Cost(formula);
}

Instruction instruction(const Reader& r, const Json& j, const std::string& where, const std::set<std::string>& engines,
                        const std::set<std::string>& spaces) {
  Instruction ins;
  ins.name = r.string(j, "name", where);
  if (!lang::is_identifier(ins.name)) r.fail(where + ".name", "'" + ins.name + "' is not an identifier", ins.name);
  const std::string& near = ins.name;
  ins.engine = r.string(j, "engine", where, near);
  if (!engines.count(ins.engine)) r.fail(where + ".engine", "no engine named '" + ins.engine + "'", near);
  const Json& ops = r.array(j, "operands", where, near);
  std::set<std::string> names;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string w = where + ".operands[" + std::to_string(i) + "]";
    ins.operands.push_back(operand(r, ops[i], w, near, true, spaces));
    if (!names.insert(ins.operands.back().name).second)
      r.fail(w + ".name", "operand '" + ins.operands.back().name + "' repeated", near);
  }
  ins.result = operand(r, r.field(j, "result", where, near), where + ".result", near, false, spaces);
  if (j.contains("limits")) {
    const Json& limits = j["limits"];
    if (!limits.is_object()) r.fail(where + ".limits", "expected an object of [lo, hi] ranges", near);
    for (const auto& [name, range] : limits.items()) {
      std::string w = where + ".limits." + name;
      if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() || !range[1].is_number_integer())
        r.fail(w, "expected [lo, hi] integers", near);
      int64_t lo = range[0].get<int64_t>(), hi = range[1].get<int64_t>();
      if (lo < 1 || hi < lo) r.fail(w, "needs 1 <= lo <= hi", near);
      ins.limits[name] = {lo, hi};
    }
  }
  std::vector<const Operand*> all;
  for (const Operand& o : ins.operands) all.push_back(&o);
  all.push_back(&ins.result);
  for (const Operand* o : all)
    for (const ir::Size& d : o->type.shape)
      for (const std::string& n : d.names())
        if (!ins.limits.count(n)) r.fail(where + ".limits", "size '" + n + "' has no range", near);
  ins.semantics_text = r.string(j, "semantics", where, near);
  ins.accuracy = r.optional_string(j, "accuracy", where, "exact", near);
  const Json& cost = r.field(j, "cost", where, near);
  ins.latency = cost_field(r, cost, "latency", where + ".cost", ins, near);
  ins.throughput = cost_field(r, cost, "throughput", where + ".cost", ins, near);
  ins.emit = r.string(j, "emit", where, near);
  for (size_t open = ins.emit.find('{'); open != std::string::npos; open = ins.emit.find('{', open + 1)) {
    size_t close = ins.emit.find('}', open);
    if (close == std::string::npos) r.fail(where + ".emit", "unclosed '{'", near);
    std::string name = ins.emit.substr(open + 1, close - open - 1);
    if (name != "result" && !names.count(name) && !ins.limits.count(name))
      r.fail(where + ".emit", "names no operand or size '" + name + "'", near);
  }
  if (j.contains("nontemporal")) {
    if (!j["nontemporal"].is_boolean()) r.fail(where + ".nontemporal", "expected true or false", near);
    ins.nontemporal = j["nontemporal"].get<bool>();
  }
  ins.fence = r.optional_string(j, "fence", where, "", near);
  if (ins.nontemporal && ins.fence.empty())
    r.fail(where + ".fence", "a nontemporal store needs the statement that orders it (for example _mm_sfence())", near);
  if (!ins.nontemporal && !ins.fence.empty()) r.fail(where + ".fence", "only a nontemporal store has a fence", near);
  if (j.contains("fuses")) {
    const Json& f = j["fuses"];
    if (!f.is_array() || f.size() != 2 || !f[0].is_string() || !f[1].is_string())
      r.fail(where + ".fuses", "expected [first, then]: the names of the two instructions it fuses", near);
    ins.fuses = {f[0].get<std::string>(), f[1].get<std::string>()};
  }
  ins.semantics = compile_semantics(r, ins, where);
  return ins;
}

// "timing": {"NAME": {"value": 1.4, "unit": "GHz", "source": "documented", "note": "..."}}
std::map<std::string, TimingParameter> timing_parameters(const Reader& r, const Json& timing) {
  static const std::set<std::string> sources = {"documented", "derived", "fitted guess", "guess"};
  if (!timing.is_object()) r.fail("timing", "expected an object of parameters");
  std::map<std::string, TimingParameter> out;
  for (const auto& [name, entry] : timing.items()) {
    std::string w = "timing." + name;
    if (!lang::is_identifier(name)) r.fail(w, "'" + name + "' is not an identifier", name);
    TimingParameter p;
    const Json& value = r.field(entry, "value", w, name);
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      r.fail(w + ".value", "expected a finite number >= 0", name);
    p.value = value.get<double>();
    p.unit = r.string(entry, "unit", w, name);
    if (p.unit.empty()) r.fail(w + ".unit", "must name a unit (ns, cycles, GHz, B/ns, bytes, count)", name);
    p.source = r.string(entry, "source", w, name);
    if (!sources.count(p.source))
      r.fail(w + ".source", "'" + p.source + "' is not one of documented, derived, fitted guess, guess", name);
    p.note = r.optional_string(entry, "note", w, "", name);
    for (const auto& [key, unused] : entry.items())
      if (key != "value" && key != "unit" && key != "source" && key != "note")
        r.fail(w, "unknown field '" + key + "' (value, unit, source, note)", name);
    out[name] = p;
  }
  return out;
}

}  // namespace

double Cost::at(const ir::Dims& dims) const { return CostParser(formula_, &dims).run(); }

const Instruction* Description::find(const std::string& instruction) const {
  for (const Instruction& i : instructions)
    if (i.name == instruction) return &i;
  return nullptr;
}

Description parse_description(const std::string& text, const std::string& path) {
  auto file = std::make_shared<SourceFile>(SourceFile{path, text});
  Reader r(file);
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // byte is 1-based; turn it into line and column.
    size_t byte = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    int line = 1;
    size_t begin = 0;
    for (size_t i = 0; i < byte; ++i)
      if (text[i] == '\n') line = (begin = i + 1, line + 1);
    std::string message = e.what();
    size_t colon = message.find(": ", message.find("parse error"));
    throw UserError({file, line, static_cast<int>(byte - begin) + 1},
                    "not valid JSON" + (colon == std::string::npos ? "" : message.substr(colon)));
  }
  Description d;
  d.path = path;
  d.content_hash = fnv1a(text);
  d.name = r.string(root, "name", "description");
  d.target = r.string(root, "target", "description");
  if (d.target != "cpu" && d.target != "trn1" && d.target != "cuda")
    r.fail("target", "'" + d.target + "' is not one of cpu, trn1, cuda", d.target);
  d.summary = r.optional_string(root, "summary", "description", "");
  d.cores = static_cast<int>(root.contains("cores") ? r.integer(root, "cores", "description", 1) : 1);
  d.prelude = r.optional_string(root, "prelude", "description", "");
  d.compile_flags = r.optional_string(root, "compile_flags", "description", "");
  d.requires_cpu = r.optional_string(root, "requires_cpu", "description", "");
  d.cpu_vendor = r.optional_string(root, "cpu_vendor", "description", "");
  if (!d.cpu_vendor.empty() && d.cpu_vendor != "intel" && d.cpu_vendor != "amd")
    r.fail("cpu_vendor", "'" + d.cpu_vendor + "' is not one of intel, amd", d.cpu_vendor);
  std::set<std::string> engines, spaces;
  const Json& engine_list = r.array(root, "engines", "description");
  for (size_t i = 0; i < engine_list.size(); ++i) {
    std::string w = "engines[" + std::to_string(i) + "]";
    Engine e;
    e.name = r.string(engine_list[i], "name", w);
    e.units = static_cast<int>(r.integer(engine_list[i], "units", w, 1, e.name));
    e.clock_ghz = r.number(engine_list[i], "clock_ghz", w, 0, e.name);
    if (!engines.insert(e.name).second) r.fail(w + ".name", "engine '" + e.name + "' repeated", e.name);
    d.engines.push_back(e);
  }
  const Json& memory_list = r.array(root, "memories", "description");
  for (size_t i = 0; i < memory_list.size(); ++i) {
    std::string w = "memories[" + std::to_string(i) + "]";
    Memory m;
    m.name = r.string(memory_list[i], "name", w);
    m.capacity_bytes = r.integer(memory_list[i], "capacity_bytes", w, 1, m.name);
    m.bandwidth_gbps = r.number(memory_list[i], "bandwidth_gbps", w, 0, m.name);
    m.read_by = r.strings(memory_list[i], "read_by", w);
    m.written_by = r.strings(memory_list[i], "written_by", w);
    for (const std::string& e : m.read_by)
      if (!engines.count(e)) r.fail(w + ".read_by", "no engine named '" + e + "'", m.name);
    for (const std::string& e : m.written_by)
      if (!engines.count(e)) r.fail(w + ".written_by", "no engine named '" + e + "'", m.name);
    if (!spaces.insert(m.name).second) r.fail(w + ".name", "memory '" + m.name + "' repeated", m.name);
    d.memories.push_back(m);
  }
  const Json& list = r.array(root, "instructions", "description");
  for (size_t i = 0; i < list.size(); ++i) {
    d.instructions.push_back(instruction(r, list[i], "instructions[" + std::to_string(i) + "]", engines, spaces));
    for (size_t k = 0; k + 1 < d.instructions.size(); ++k)
      if (d.instructions[k].name == d.instructions.back().name)
        r.fail("instructions[" + std::to_string(i) + "].name", "instruction '" + d.instructions.back().name + "' repeated",
               d.instructions.back().name);
  }
  for (size_t i = 0; i < d.instructions.size(); ++i)
    for (const std::string& part : d.instructions[i].fuses) {
      auto named = [&](const Instruction& x) { return x.name == part && x.fuses.empty(); };
      if (std::none_of(d.instructions.begin(), d.instructions.end(), named))
        r.fail("instructions[" + std::to_string(i) + "].fuses",
               "names no unfused instruction '" + part + "' of this description", d.instructions[i].name);
    }
  if (root.contains("timing")) d.timing = timing_parameters(r, root["timing"]);
  return d;
}

Description load_description(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError({std::make_shared<SourceFile>(SourceFile{path, ""}), 0, 0}, "cannot open hardware description");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_description(text.str(), path);
}

}  // namespace axon::hw
