#include "emit/cpu.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "emit/cpu_walk.h"
#include "support/diag.h"

namespace axon::emit {
namespace {

// The reserved C name of a user's identifier (see kernel_symbol in cpu.h):
// "axon_<kind>_NAME" for an ASCII identifier, else "axon_<kind>u" and NAME
// with each byte outside [A-Za-z0-9] as '_' and two lowercase hex digits.
std::string mangled(const std::string& kind, const std::string& name) {
  auto ascii_word = [](unsigned char c) { return c < 0x80 && (std::isalnum(c) || c == '_'); };
  bool ascii = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
               std::all_of(name.begin(), name.end(), [&](char c) { return ascii_word(static_cast<unsigned char>(c)); });
  if (ascii) return "axon_" + kind + "_" + name;
  std::string text = "axon_" + kind + "u";
  for (unsigned char c : name) {
    if (c < 0x80 && std::isalnum(c)) {
      text += static_cast<char>(c);
    } else {
      char escape[4];
      std::snprintf(escape, sizeof escape, "_%02x", c);
      text += escape;
    }
  }
  return text;
}

// `text` as a C string literal: printable ASCII as itself except '"', '\\'
// and '?' (no trigraphs), a line break as \n ending a line of the literal
// (adjacent literals concatenate), every other byte as a three-digit octal escape.
std::string c_string_literal(const std::string& text) {
  std::string literal = "\"";
  for (unsigned char c : text) {
    if (c == '\n') {
      literal += "\\n\"\n      \"";
    } else if (c == '"' || c == '\\' || c == '?') {
      literal += '\\';
      literal += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      literal += static_cast<char>(c);
    } else {
      char escape[5];
      std::snprintf(escape, sizeof escape, "\\%03o", c);
      literal += escape;
    }
  }
  return literal + "\"";
}

// ---- 1. the schedule ----

// The proved lowering of hole `name` at `lanes` lanes, or nullopt (the
// synthesizer caches by the spec's text).
std::optional<isa::Lowering> lower_hole(isa::Synthesizer& synth, const std::string& name, int lanes,
                                        const std::string& memory, const std::string& registers) {
  return synth.lower(detail::hole_spec(name, lanes, memory, registers));
}

// The target's shape: the vector width is the widest plain load from memory
// that synthesizes; registers and caches from the description's memories.
void find_shape(const hw::Description& target, isa::Synthesizer& synth, CpuSchedule& schedule) {
  tile::TargetShape& shape = schedule.shape;
  schedule.memory = target.memories.at(0).name;
  const std::string& mem = schedule.memory;
  std::set<int64_t> widths;
  for (const hw::Instruction& ins : target.instructions)
    if (ins.operands.size() == 1 && ins.operands[0].space == mem && ins.result.space != mem &&
        ins.operands[0].type.rank() == 1)
      if (std::optional<int64_t> c = ins.operands[0].type.shape[0].constant()) {
        widths.insert(*c);
        schedule.registers = ins.result.space;
      }
  for (auto it = widths.rbegin(); it != widths.rend(); ++it) {
    shape.lanes = static_cast<int>(*it);
    if (lower_hole(synth, "load", shape.lanes, mem, schedule.registers)) break;
    shape.lanes = 0;
  }
  if (shape.lanes <= 0) throw UserError({}, target.path + ": no vector load from '" + mem + "' could be synthesized");
  for (const hw::Memory& m : target.memories) {
    if (m.name == schedule.registers) shape.registers = static_cast<int>(m.capacity_bytes / (4 * shape.lanes));
    if (m.name == "l1") shape.l1_bytes = m.capacity_bytes;
    if (m.name == "l2") shape.l2_bytes = m.capacity_bytes;
  }
  shape.cores = target.cores;
  shape.has_tail = shape.lanes > 1 && lower_hole(synth, "load_tail", shape.lanes, mem, schedule.registers) &&
                   lower_hole(synth, "store_tail", shape.lanes, mem, schedule.registers);
  shape.streaming_stores = lower_hole(synth, "store_stream", shape.lanes, mem, schedule.registers).has_value();
  shape.transposes = shape.lanes > 1 && lower_hole(synth, "transpose", shape.lanes, mem, schedule.registers);
  for (size_t m = 1; m < target.memories.size(); ++m)
    if (target.memories[m].name != schedule.registers)
      shape.last_cache_bytes = std::max(shape.last_cache_bytes, target.memories[m].capacity_bytes);
}

// ---- 2. selection: the walk with a source that synthesizes ----

class SynthesizingSource : public detail::LoweringSource {
 public:
  SynthesizingSource(const ir::Function& fn, const CpuSchedule& schedule, const hw::Description& target,
                     isa::Synthesizer& synth, CpuSelection& selection,
                     std::map<std::string, std::optional<isa::Lowering>>& lowerings)
      : fn_(fn), schedule_(schedule), target_(target), synth_(synth), selection_(selection), lowerings_(lowerings) {}

  const isa::Lowering* hole(size_t stage, const std::string& name, bool required) override {
    auto it = lowerings_.find(name);
    if (it == lowerings_.end())
      it = lowerings_
               .emplace(name, lower_hole(synth_, name, schedule_.shape.lanes, schedule_.memory, schedule_.registers))
               .first;
    if (!it->second && required) detail::throw_unproved_hole(fn_, target_, name);
    const isa::Lowering* lowering = it->second ? &*it->second : nullptr;
    selection_.stages.at(stage).holes[name] = lowering;
    return lowering;
  }

  const CoveredTile& tile(size_t stage, const std::string& key,
                          const std::function<CoveredTile()>& uncovered) override {
    std::map<std::string, CoveredTile>& tiles = selection_.stages.at(stage).tiles;
    auto it = tiles.find(key);
    if (it != tiles.end()) return it->second;
    CoveredTile t = uncovered();
    t.cover = isa::cover_expression(t.root, schedule_.registers, synth_, fn_.loc);
    return tiles.emplace(key, std::move(t)).first->second;
  }

 private:
  const ir::Function& fn_;
  const CpuSchedule& schedule_;
  const hw::Description& target_;
  isa::Synthesizer& synth_;
  CpuSelection& selection_;
  std::map<std::string, std::optional<isa::Lowering>>& lowerings_;
};

// ---- 3. printing: the walk with a source that only looks up ----

class SelectedSource : public detail::LoweringSource {
 public:
  explicit SelectedSource(const CpuSelection& selection) : selection_(selection) {}

  const isa::Lowering* hole(size_t stage, const std::string& name, bool required) override {
    const std::map<std::string, const isa::Lowering*>& holes = stage_at(stage).holes;
    auto it = holes.find(name);
    if (it == holes.end())
      throw InternalError(__FILE__, __LINE__,
                          "stage " + std::to_string(stage) + " prints the hole '" + name + "', which was not selected");
    if (!it->second && required)
      throw InternalError(__FILE__, __LINE__,
                          "stage " + std::to_string(stage) + " needs the hole '" + name + "', selected as unproved");
    return it->second;
  }

  const CoveredTile& tile(size_t stage, const std::string& key, const std::function<CoveredTile()>&) override {
    const std::map<std::string, CoveredTile>& tiles = stage_at(stage).tiles;
    auto it = tiles.find(key);
    if (it == tiles.end())
      throw InternalError(
          __FILE__, __LINE__,
          "stage " + std::to_string(stage) + " prints the expression '" + key + "', which was not selected");
    return it->second;
  }

 private:
  const StageSelection& stage_at(size_t stage) {
    AXON_CHECK(stage < selection_.stages.size(), "a selection with fewer stages than the schedule");
    return selection_.stages[stage];
  }
  const CpuSelection& selection_;
};

}  // namespace

std::string read_prelude(const hw::Description& target) {
  if (target.prelude.empty()) return "";
  std::string dir = target.path.substr(0, target.path.find_last_of('/') + 1);
  std::ifstream in(dir + target.prelude, std::ios::binary);
  if (!in) throw UserError({}, target.path + ": prelude '" + target.prelude + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  std::string prelude = text.str();
  // The users' names live under these prefixes (kernel_symbol); a helper there could collide.
  for (size_t at = prelude.find("axon_"); at != std::string::npos; at = prelude.find("axon_", at + 1)) {
    std::string next = prelude.substr(at + 5, 2);
    bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(prelude[at - 1])) || prelude[at - 1] == '_');
    if (word_start && (next == "k_" || next == "ku" || next == "p_" || next == "pu"))
      throw UserError({}, target.path + ": prelude '" + target.prelude + "' uses the name '" + prelude.substr(at, 7) +
                              "...', whose prefix is reserved for kernels and parameters");
  }
  return prelude;
}

namespace {

// The C names of the signature: each input under its mangled name, the
// outputs as the body's own axon_out<k>.
std::vector<std::string> param_names(const ir::Function& fn) {
  std::vector<std::string> names;
  for (const ir::Param& p : fn.params) names.push_back(parameter_name(p.name));
  for (size_t k = 0; k < fn.outputs.size(); ++k) names.push_back("axon_out" + std::to_string(k));
  return names;
}

std::string signature(const std::string& name, const KernelParts& parts) {
  std::string text = "int " + name + "(";
  for (size_t i = 0; i < parts.param_c_names.size(); ++i)
    text += (i ? ", " : "") + std::string(i < parts.inputs ? "const float* " : "float* ") + parts.param_c_names[i];
  return text + ")";
}

const std::vector<int64_t>& buffer_shape(const tile::Plan& plan, int buffer) {
  return plan.buffers.at(static_cast<size_t>(buffer)).shape;
}

std::string header(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   const std::string& entry, const KernelParts& parts) {
  std::ostringstream h;
  const std::vector<std::string>& names = parts.param_c_names;
  h << "// Generated by axon for target " << target.name << ": kernel " << fn.name << ".\n"
    << "// Dense row-major float32 arrays; sizes are fixed. Returns 0.\n";
  for (size_t i = 0; i < fn.params.size(); ++i)
    h << "//   in  " << fn.params[i].name << " (" << names[i] << "): f32"
      << ir::shape_str(buffer_shape(plan, plan.inputs[i])) << "\n";
  for (size_t k = 0; k < fn.outputs.size(); ++k)
    h << "//   out out" << k << " (" << names[fn.params.size() + k] << "): f32"
      << ir::shape_str(buffer_shape(plan, plan.outputs[k])) << "\n";
  h << "#pragma once\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
    << signature(entry, parts) << ";\n"
    << "#ifdef __cplusplus\n}\n#endif\n";
  return h.str();
}

// kernel.json: the user's names, the C names, dtypes and shapes.
std::string info_json(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                      const std::string& entry, const KernelParts& parts) {
  const std::vector<std::string>& names = parts.param_c_names;
  auto port = [](const std::string& name, const std::string& c_name, ir::DType dtype,
                 const std::vector<int64_t>& shape) {
    return nlohmann::ordered_json{
        {"name", name}, {"c_name", c_name}, {"dtype", ir::dtype_name(dtype)}, {"shape", shape}};
  };
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array(), outputs = nlohmann::ordered_json::array();
  for (size_t i = 0; i < fn.params.size(); ++i)
    inputs.push_back(port(fn.params[i].name, names[i], fn.params[i].type.dtype, buffer_shape(plan, plan.inputs[i])));
  for (size_t k = 0; k < fn.outputs.size(); ++k)
    outputs.push_back(port("out" + std::to_string(k), names[fn.params.size() + k], fn.outputs[k]->dtype(),
                           buffer_shape(plan, plan.outputs[k])));
  nlohmann::ordered_json info{{"kernel", fn.name},     {"symbol", entry},  {"packed_symbol", kPackedSymbol},
                              {"target", target.name}, {"inputs", inputs}, {"outputs", outputs}};
  // One field a line, one port a line.
  std::string text = "{";
  for (const auto& [key, value] : info.items()) {
    text += std::string(text.size() > 1 ? ",\n  " : "\n  ") + nlohmann::json(key).dump() + ": ";
    if (!value.is_array()) {
      text += value.dump();
      continue;
    }
    text += "[";
    for (size_t i = 0; i < value.size(); ++i) text += (i ? ",\n    " : "\n    ") + value[i].dump();
    text += value.empty() ? "]" : "\n  ]";
  }
  return text + "\n}";
}

// The kernel's own definitions: its scratch type and the compute function,
// whose statements the walk printed.
std::string body(const tile::Plan& plan, const detail::KernelWalk& walk, const KernelParts& parts) {
  std::ostringstream c;
  c << "// ---- kernel ----\n"
    << "namespace {\nstruct axon_scratch {\n  float* data = nullptr;\n  ~axon_scratch() { std::free(data); }\n};\n}  "
       "// namespace\n\n"
    << "static " << signature(kComputeFunction, parts) << " {\n";
  for (size_t i = 0; i < parts.inputs; ++i)
    c << "  const float* const axon_in" << i << " = " << parts.param_c_names[i] << ";\n";
  int64_t arena = 0;
  std::map<int, int64_t> offsets;
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    if (plan.buffers[b].kind == tile::Buffer::Kind::Scratch && !walk.row_local.count(static_cast<int>(b))) {
      offsets[static_cast<int>(b)] = arena;
      arena += (plan.buffers[b].elements() + 15) / 16 * 16;
    }
  std::vector<std::pair<std::string, int64_t>> extra_offsets;
  for (const auto& [name, floats] : walk.extra_scratch) {
    extra_offsets.push_back({name, arena});
    arena += (floats + 15) / 16 * 16;
  }
  if (arena > 0) {
    // Scratch is allocated once per calling thread and kept: a fresh
    // allocation per call would pay its page faults on every call.
    c << "  static thread_local axon_scratch scratch;\n"
      << "  if (!scratch.data) scratch.data = static_cast<float*>(std::aligned_alloc(64, " << arena * 4 << "));\n"
      << "  if (!scratch.data) return 1;\n"
      << "  float* const axon_arena = scratch.data;\n";
    for (const auto& [b, off] : offsets) c << "  float* const axon_t" << b << " = axon_arena + " << off << ";\n";
    for (const auto& [name, off] : extra_offsets) c << "  float* const " << name << " = axon_arena + " << off << ";\n";
  }
  c << walk.body << "  return 0;\n}\n\n";
  return c.str();
}

}  // namespace

std::string kernel_symbol(const std::string& kernel_name) {
  return mangled("k", kernel_name);
}

std::string parameter_name(const std::string& parameter) {
  return mangled("p", parameter);
}

namespace {

// A register-tiled stage that a row group can run a block of rows at a time:
// a plain fold (or none) along loops other than its vector and rows loops,
// every loop before its rows loop plain, not blocked along its fold.
bool tiled_member(const tile::Stage& s, const tile::TileParams& p) {
  if (p.k_block > 0 || s.scan_dim >= 0 || p.vec_dim <= p.rows_dim) return false;
  if (s.combine != tile::Combine::None && s.combine != tile::Combine::Sum) return false;
  for (int d = 0; d <= p.rows_dim; ++d)
    if (s.reduced[static_cast<size_t>(d)]) return false;
  return !s.reduced[static_cast<size_t>(p.vec_dim)];
}

}  // namespace

CpuSchedule schedule_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                         isa::Synthesizer& synth, tile::TilingPolicy policy, const std::vector<tile::TileParams>& fixed,
                         bool fuse_rows) {
  (void)fn;
  AXON_CHECK(fixed.empty() || fixed.size() == plan.stages.size(), "one fixed tiling per stage");
  CpuSchedule schedule;
  schedule.fuse_rows = fuse_rows;
  find_shape(target, synth, schedule);
  std::vector<bool> fusable;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    StageSchedule stage;
    stage.tiling = tile::choose_tiling(plan.stages[i], schedule.shape, policy);
    if (!fixed.empty()) stage.tiling.params = fixed.at(i);
    stage.results = {i};
    if (stage.tiling.params.k_block > 0) {
      stage.order = LoopOrder::KBlocked;
      stage.k_block = stage.tiling.params.k_block;
    }
    // Row fusion keeps a stage's leading loops outer: not where they are
    // vectorized (nor packed into panels); a register-tiled contraction joins
    // with its rows loop the innermost shared one, its tile's rows the
    // group's block of rows.
    const tile::TileParams& p = stage.tiling.params;
    fusable.push_back(fuse_rows && p.vec_dim > 0 && (p.rows_dim < 0 || tiled_member(plan.stages[i], p)));
    schedule.stages.push_back(std::move(stage));
  }
  auto accept = [&](const fuse::RowGroup& g) {
    int64_t mr = 0;
    for (size_t i = g.first; i <= g.last; ++i) {
      const tile::TileParams& p = schedule.stages[i].tiling.params;
      if (p.vec_dim < g.shared) return false;
      if (p.rows_dim < 0) continue;
      if (p.rows_dim != g.shared - 1 || (mr != 0 && mr != p.mr)) return false;
      mr = p.mr;
    }
    return true;
  };
  for (fuse::RowGroup g : fuse::row_groups(plan, fusable, accept, true)) {
    if (!accept(g)) continue;
    for (size_t i = g.first; i <= g.last; ++i)
      if (schedule.stages[i].tiling.params.rows_dim >= 0) g.block = schedule.stages[i].tiling.params.mr;
    schedule.row_groups.push_back(g);
  }
  return schedule;
}

CpuSelection select_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                        const hw::Description& target, isa::Synthesizer& synth) {
  CpuSelection selection;
  // Sized before the walk: it holds references into each stage's tiles.
  selection.stages.resize(plan.stages.size());
  auto lowerings = std::make_shared<std::map<std::string, std::optional<isa::Lowering>>>();
  SynthesizingSource source(fn, schedule, target, synth, selection, *lowerings);
  detail::KernelWalk walk = detail::walk_cpu(plan, fn, schedule, target, source);
  for (size_t i = 0; i < walk.stages.size(); ++i) {
    selection.stages[i].step_cost = walk.stages[i].step_cost;
    selection.stages[i].listing = walk.stages[i].listing;
  }
  selection.lowerings = lowerings;
  return selection;
}

CpuKernel print_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                    const CpuSelection& selection, const hw::Description& target) {
  std::string prelude = read_prelude(target);
  SelectedSource source(selection);
  detail::KernelWalk walk = detail::walk_cpu(plan, fn, schedule, target, source);
  CpuKernel k;
  k.entry = kernel_symbol(fn.name);
  k.shape = schedule.shape;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    int group = -1, loops = 0;
    int64_t block = 1;
    for (const fuse::RowGroup& g : schedule.row_groups)
      if (g.first <= i && i <= g.last) group = static_cast<int>(g.first), loops = g.shared, block = g.block;
    k.stages.push_back({plan.stages[i].what, schedule.stages[i].tiling, walk.stages[i].listing,
                        walk.stages[i].step_cost, group, loops, block});
  }
  k.parts.param_c_names = param_names(fn);
  k.parts.inputs = fn.params.size();
  k.parts.prelude =
      "#include <cstdint>\n#include <cstdlib>\n"
      "// ---- prelude: the helpers the description's instructions call ----\n" +
      prelude + "\n";
  k.parts.body = body(plan, walk, k.parts);
  k.header = header(plan, fn, target, k.entry, k.parts);
  k.info_json = info_json(plan, fn, target, k.entry, k.parts);
  k.parts.banner = "// Generated by axon for target " + target.name + " (" + target.summary.substr(0, 60) +
                   "...): kernel " + fn.name +
                   ".\n// Every instruction below comes from a proved lowering; see report.md.\n";
  k.source = kernel_source(k);
  return k;
}

std::string kernel_source(const CpuKernel& k, const ExportNames& names) {
  return k.parts.banner + k.parts.prelude + "#include \"kernel.h\"\n" + k.parts.body + print_exports(k, names);
}

std::string print_exports(const CpuKernel& kernel, const ExportNames& names) {
  const KernelParts& parts = kernel.parts;
  std::string compute = names.ns.empty() ? kComputeFunction : names.ns + "::" + kComputeFunction;
  std::string direct, packed;
  for (size_t i = 0; i < parts.param_c_names.size(); ++i) {
    direct += (i ? ", " : "") + parts.param_c_names[i];
    packed += (i ? ", " : "") +
              (i < parts.inputs ? "in[" + std::to_string(i) + "]" : "out[" + std::to_string(i - parts.inputs) + "]");
  }
  std::string call = compute + "(" + packed + ")";
  std::string s = "extern \"C\" " + signature(kernel.entry + names.suffix, parts) + " {\n  return " + compute + "(" +
                  direct + ");\n}\n\n";
  s += "extern \"C\" int " + std::string(kPackedSymbol) + names.suffix +
       "(const float* const* in, float* const* out) {\n  (void)in;\n";
  // Without hooks the call is returned directly: the text today's search edits (optimize.cpp, inject_fault).
  if (names.before_call.empty() && names.after_call.empty()) {
    s += "  return " + call + ";\n}\n\n";
  } else {
    if (!names.before_call.empty()) s += "  " + names.before_call + "\n";
    s += "  int rc = " + call + ";\n";
    if (!names.after_call.empty()) s += "  " + names.after_call + "\n";
    s += "  return rc;\n}\n\n";
  }
  s += "extern \"C\" const char* " + std::string(kInfoSymbol) + names.suffix + "() {\n  return " +
       c_string_literal(kernel.info_json) + ";\n}\n";
  return s;
}

CpuKernel emit_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, tile::TilingPolicy tiling, const std::vector<tile::TileParams>& fixed,
                   bool fuse_rows) {
  CpuSchedule schedule = schedule_cpu(plan, fn, target, synth, tiling, fixed, fuse_rows);
  CpuSelection selection = select_cpu(plan, fn, schedule, target, synth);
  return print_cpu(plan, fn, schedule, selection, target);
}

}  // namespace axon::emit
