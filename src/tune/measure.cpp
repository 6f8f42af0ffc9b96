#include "tune/measure.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "emit/cpu.h"
#include "support/diag.h"
#include "support/files.h"
#include "tune/runner.h"

namespace axon::tune {
namespace {

constexpr const char* kSymbol = "axon_measure";
constexpr int kChainUnroll = 8;
constexpr int kIndependent[] = {4, 8, 12};

// The register space: the smallest memory (registers hold the least).
const hw::Memory& register_space(const hw::Description& d) {
  if (d.memories.empty()) throw UserError({}, d.path + ": a description without memories has no registers to measure");
  return *std::min_element(d.memories.begin(), d.memories.end(),
                           [](const hw::Memory& a, const hw::Memory& b) { return a.capacity_bytes < b.capacity_bytes; });
}

bool fixed_size(const ir::TensorType& t) {
  return t.dtype == ir::DType::F32 && t.rank() <= 1 &&
         std::all_of(t.shape.begin(), t.shape.end(), [](const ir::Size& s) { return s.is_constant(); });
}

// Why `i` cannot be timed by the generated chains ("" when it can).
std::string why_not_measured(const hw::Instruction& i, const std::string& regs) {
  if (!i.fuses.empty()) return "a fused instruction";
  if (i.nontemporal || i.result.space != regs) return "its result is in " + i.result.space + ", not " + regs;
  if (i.operands.empty()) return "no operands";
  for (const hw::Operand& o : i.operands) {
    if (o.space != regs) return "operand " + o.name + " is in " + o.space + ", not " + regs;
    if (!fixed_size(o.type)) return "operand " + o.name + " is " + o.type.str() + ", not f32[] or f32[W]";
  }
  if (!fixed_size(i.result.type)) return "its result is " + i.result.type.str() + ", not f32[] or f32[W]";
  if (!i.limits.empty()) return "it has sizes (limits)";
  if (i.emit.find("{result}") != std::string::npos) return "its emit text is a statement ({result})";
  return "";
}

std::string substitute(std::string text, const std::string& name, const std::string& value) {
  const std::string key = "{" + name + "}";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

class SourceWriter {
 public:
  explicit SourceWriter(const hw::Instruction& broadcast) : broadcast_(broadcast) {}

  // A value of `type` equal to `number`: a literal for f32[], else the broadcast of one.
  std::string value(const ir::TensorType& type, double number) const {
    std::ostringstream literal;
    literal.precision(9);
    literal << number << (number == static_cast<int64_t>(number) ? ".0f" : "f");
    if (type.rank() == 0) return "float(" + literal.str() + ")";
    return substitute(broadcast_.emit, broadcast_.operands[0].name, literal.str());
  }

  // One timed body per instruction: chain (when chained >= 0) or independent applications.
  std::string measure(const hw::Instruction& i, size_t index) const {
    std::ostringstream out;
    int chained = -1;
    for (size_t k = 0; k < i.operands.size() && chained < 0; ++k)
      if (i.operands[k].type == i.result.type) chained = static_cast<int>(k);
    out << "  {  // " << i.name << "\n    const double cycle_ns = axon_m_cycle_ns();\n";
    // Operands other than the varied one: constants of 1 the compiler cannot see through.
    auto constants = [&](int varied) {
      std::ostringstream c;
      for (size_t k = 0; k < i.operands.size(); ++k) {
        if (static_cast<int>(k) == varied) continue;
        c << "        auto c" << k << " = " << value(i.operands[k].type, 1.0) << "; AXON_M_KEEP(c" << k << ");\n";
      }
      return c.str();
    };
    auto applied = [&](int varied, const std::string& var) {
      std::string e = i.emit;
      for (size_t k = 0; k < i.operands.size(); ++k)
        e = substitute(e, i.operands[k].name, static_cast<int>(k) == varied ? var : "c" + std::to_string(k));
      return e;
    };
    out << "    double latency = -1;\n";
    if (chained >= 0) {
      out << "    latency = axon_m_ns_per_iteration([](long n) {\n"
          << constants(chained) << "        auto v = " << value(i.operands[chained].type, 0.5) << "; AXON_M_KEEP(v);\n"
          << "        for (long it = 0; it < n; ++it) {\n";
      for (int u = 0; u < kChainUnroll; ++u) out << "          v = " << applied(chained, "v") << "; AXON_M_KEEP(v);\n";
      out << "        }\n      }) / " << kChainUnroll << " / cycle_ns;\n";
    }
    out << "    double cycles_each = std::numeric_limits<double>::infinity();\n";
    // Independent chains where there is a chain (results written over an
    // operand, as accumulations are), else fresh inputs to every application.
    const int varied = std::max(chained, 0);
    for (int k : kIndependent) {
      out << "    cycles_each = std::min(cycles_each, axon_m_ns_per_iteration([](long n) {\n" << constants(varied);
      for (int j = 0; j < k; ++j)
        out << "        auto a" << j << " = " << value(i.operands[varied].type, 1.0 + 0.125 * j) << "; AXON_M_KEEP(a"
            << j << ");\n";
      out << "        for (long it = 0; it < n; ++it) {\n";
      for (int j = 0; j < k; ++j) {
        std::string a = "a" + std::to_string(j);
        if (chained >= 0)
          out << "          " << a << " = " << applied(varied, a) << "; AXON_M_KEEP(" << a << ");\n";
        else
          out << "          { AXON_M_KEEP(" << a << "); auto r = " << applied(varied, a) << "; AXON_M_KEEP(r); }\n";
      }
      out << "        }\n      }) / " << k << " / cycle_ns);\n";
    }
    out << "    std::snprintf(line, sizeof line, \"%zu %.6g %.6g %.6g\\n\", static_cast<size_t>(" << index
        << "), latency, 1 / cycles_each, 1 / cycle_ns);\n    out += line;\n  }\n";
    return out.str();
  }

 private:
  const hw::Instruction& broadcast_;
};

}  // namespace

std::string measurement_source(const hw::Description& target,
                               std::vector<std::pair<std::string, std::string>>* not_measured) {
  if (target.target != "cpu")
    throw UserError({}, target.path + ": --measure times cpu descriptions on this machine; this one is for target '" +
                            target.target + "'");
  const std::string& regs = register_space(target).name;
  const hw::Instruction* broadcast = nullptr;
  std::vector<size_t> eligible;
  for (size_t k = 0; k < target.instructions.size(); ++k) {
    const hw::Instruction& i = target.instructions[k];
    std::string why = why_not_measured(i, regs);
    if (!why.empty()) {
      if (not_measured) not_measured->emplace_back(i.name, why);
      continue;
    }
    eligible.push_back(k);
    if (!broadcast && i.operands.size() == 1 && i.operands[0].type.rank() == 0 && i.result.type.rank() == 1)
      broadcast = &i;
  }
  if (!broadcast)
    throw UserError({}, target.path + ": no instruction broadcasts an f32[] in " + regs +
                            " to a vector there, so the measurement cannot make its operands");

  std::ostringstream src;
  src << "// Generated by axon hw --measure for " << target.name << ": latency and throughput of its\n"
      << "// register instructions on this machine, in core cycles (src/tune/measure.h).\n"
      << emit::read_prelude(target) << "\n"
      << "#include <algorithm>\n#include <chrono>\n#include <cstdio>\n#include <limits>\n#include <string>\n\n"
      << "// An empty asm that claims to change x: the compiler can neither fold nor hoist through it.\n"
      << "#define AXON_M_KEEP(x) __asm__ volatile(\"\" : \"+v\"(x))\n\n"
      << "namespace {\n"
      << "double axon_m_now_ns() {\n"
      << "  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();\n"
      << "}\n"
      << "// ns per iteration of body(n): n grown until a run takes 2 ms, then the best of 9 runs.\n"
      << "template <class Body>\ndouble axon_m_ns_per_iteration(Body body) {\n"
      << "  long n = 16;\n"
      << "  for (;;) {\n    double t0 = axon_m_now_ns();\n    body(n);\n"
      << "    if (axon_m_now_ns() - t0 > 2e6 || n > (1L << 40)) break;\n    n *= 2;\n  }\n"
      << "  double best = std::numeric_limits<double>::infinity();\n"
      << "  for (int r = 0; r < 9; ++r) {\n    double t0 = axon_m_now_ns();\n    body(n);\n"
      << "    best = std::min(best, (axon_m_now_ns() - t0) / n);\n  }\n  return best;\n}\n"
      << "// ns per core cycle: a chain of 100 dependent register additions per iteration (not of\n"
      << "// an immediate, which some cores add at register renaming, outside the chain).\n"
      << "double axon_m_cycle_ns() {\n"
      << "  return axon_m_ns_per_iteration([](long n) {\n"
      << "    long x = 0, one = 1;\n"
      << "    __asm__ volatile(\"\" : \"+r\"(one));\n"
      << "    for (long it = 0; it < n; ++it) __asm__ volatile(\".rept 100\\n\\taddq %1, %0\\n\\t.endr\" : \"+r\"(x) : \"r\"(one));\n"
      << "  }) / 100;\n}\n"
      << "}  // namespace\n\n"
      << "// One line per instruction: its index, latency (-1: none), results per cycle, and the\n"
      << "// clock in GHz timed just before it (a virtual machine's clock drifts).\n"
      << "extern \"C\" const char* " << kSymbol << "() {\n"
      << "  static std::string out;\n  char line[160];\n";
  SourceWriter writer(*broadcast);
  for (size_t k : eligible) src << writer.measure(target.instructions[k], k);
  src << "  return out.c_str();\n}\n";
  return src.str();
}

InstructionMeasurement measure_instructions(const hw::Description& target, const std::string& work_dir) {
#if !defined(__x86_64__)
  throw UserError({}, "--measure counts cycles with x86-64 integer additions; this build is not for x86-64");
#endif
  std::vector<std::pair<std::string, std::string>> skipped;
  std::string source = measurement_source(target, &skipped);
  std::string source_path = work_dir + "/measure.cpp", so_path = work_dir + "/measure.so";
  write_file(source_path, source);
  CompileResult compiled = compile_shared(source_path, so_path, target.compile_flags);
  if (!compiled.ok) throw UserError({}, "the measurement program did not compile (" + compiled.command + "):\n" + compiled.log);
  StringResult run = read_string_isolated(so_path, kSymbol, 600);
  if (!run.ok) throw UserError({}, "the measurement program failed: " + run.message);

  InstructionMeasurement result;
  result.not_measured = std::move(skipped);
  std::istringstream lines(run.text);
  size_t index;
  double latency, per_cycle, ghz;
  std::vector<double> clocks;
  while (lines >> index >> latency >> per_cycle >> ghz) {
    AXON_CHECK(index < target.instructions.size(), "a measured instruction index out of range");
    const hw::Instruction& i = target.instructions[index];
    int units = 1;
    for (const hw::Engine& e : target.engines)
      if (e.name == i.engine) units = std::max(1, e.units);
    InstructionTiming t;
    t.name = i.name;
    if (latency >= 0) t.latency_cycles = latency;
    t.per_cycle_per_unit = per_cycle / units;
    result.measured.push_back(std::move(t));
    clocks.push_back(ghz);
  }
  if (clocks.empty()) throw UserError({}, "the measurement program printed no results: " + run.text.substr(0, 200));
  std::sort(clocks.begin(), clocks.end());
  result.clock_ghz = clocks[clocks.size() / 2];
  return result;
}

}  // namespace axon::tune
