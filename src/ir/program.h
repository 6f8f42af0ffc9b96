// Program: a parsed kernel with its graph, parameters and size presets.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace axon::ir {

struct Param {
  std::string name;
  TensorType type;
  SourceLoc loc;             // the parameter's name in the source
  SourceLoc annotation_loc;  // its annotation string
};

/// A non-tensor parameter of the kernel (`eps: float = 1e-5`), fixed when the
/// kernel is built: its default, or the value given for it (--param).
struct Setting {
  std::string name;
  std::string value;  // as Python prints it: "1e-05", "4", "True", "None"
  SourceLoc loc;
};

/// One kernel: tensor parameters in order, outputs (one, or several for a tuple
/// return), and the return annotation when there is one.
struct Function {
  std::string name;
  std::vector<Param> params;
  std::vector<NodeRef> outputs;
  bool returns_tuple = false;
  std::optional<std::vector<TensorType>> declared_results;
  SourceLoc loc;
  std::vector<Setting> settings;  // the non-tensor parameters, in order
};

/// Concrete values for symbolic sizes, by name.
using Dims = std::map<std::string, int64_t>;

struct Program {
  std::shared_ptr<Graph> graph;  // owns every node of `kernel`
  Function kernel;
  /// The file's SIZES dict, e.g. {"test": {M: 32}, "bench": {M: 4096}}.
  std::map<std::string, Dims> size_presets;
  std::shared_ptr<const SourceFile> source;
  /// Every symbolic size name the parameters use, sorted.
  std::vector<std::string> size_names() const;
};

/// A readable listing of the kernel, one node per line (what `axon check` prints).
std::string print_function(const Function& function);

/// The kernel as NumPy code, one assignment per op ("t3 = np.exp(t2)"),
/// ending in "return ...": how variants are shown to people.
std::string print_numpy(const Function& function);

}  // namespace axon::ir
