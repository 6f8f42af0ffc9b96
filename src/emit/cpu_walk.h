// The walk of a CPU kernel's loop nests, shared by instruction selection and
// printing (cpu.h): it decides, in one place, which holes and covered
// expressions each stage needs and in what order, and writes the text.
// select_cpu runs it with a LoweringSource that synthesizes (the text is
// dropped); print_cpu with one that only looks up the selection. Internal to
// src/emit.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "emit/cpu.h"

namespace axon::emit::detail {

/// Where the walk gets its lowerings, per stage (the plan's stage index).
class LoweringSource {
 public:
  virtual ~LoweringSource() = default;
  /// The lowering of a named data-movement hole; nullptr when none is proved
  /// and !required. A required hole with none throws.
  virtual const isa::Lowering* hole(size_t stage, const std::string& name, bool required) = 0;
  /// The covered expression `key` of the stage; `uncovered` builds it without its cover.
  virtual const CoveredTile& tile(size_t stage, const std::string& key,
                                  const std::function<CoveredTile()>& uncovered) = 0;
};

struct StageWalk {
  std::vector<std::string> listing;
  std::map<std::string, double> step_cost;
};

struct KernelWalk {
  std::string body;  // the statements inside the compute function, after its scratch pointers
  std::vector<StageWalk> stages;
  std::vector<std::pair<std::string, int64_t>> extra_scratch;  // packed panels: name, floats
  std::set<int> row_local;  // scratch buffers held one row at a time inside their row group, not in the arena
};

/// Walks every stage of `schedule`. Throws an InternalError when the schedule
/// holds a value the walk does not implement (cpu.h, StageSchedule).
KernelWalk walk_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                    const hw::Description& target, LoweringSource& source);

/// The spec of a named hole at `lanes` f32 lanes between `memory` and `registers`.
isa::Spec hole_spec(const std::string& name, int lanes, const std::string& memory, const std::string& registers);

/// The UserError of a required hole that no instruction sequence implements.
[[noreturn]] void throw_unproved_hole(const ir::Function& fn, const hw::Description& target, const std::string& name);

}  // namespace axon::emit::detail
