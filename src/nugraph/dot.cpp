#include "nugraph/dot.h"

#include <sstream>

namespace axon::nugraph {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

std::string node_name(ClassId id, size_t index) {
  return "c" + std::to_string(id) + "_n" + std::to_string(index);
}

}  // namespace

std::string to_dot(const NuGraph& graph) {
  const std::vector<ClassId> classes = graph.classes();  // checks that the graph is clean
  std::ostringstream out;
  out << "digraph nugraph {\n"
      << "  compound=true;\n"
      << "  node [shape=box, fontname=\"monospace\"];\n";
  for (ClassId id : classes) {
    const ClassData& data = graph.data(id);
    out << "  subgraph cluster_c" << id << " {\n"
        << "    label=" << quoted("c" + std::to_string(id) + ": " + data.type.str()) << ";\n"
        << "    style=rounded;\n";
    const std::vector<ENode>& nodes = graph.nodes(id);
    for (size_t k = 0; k < nodes.size(); ++k)
      out << "    " << node_name(id, k) << " [label=" << quoted(nodes[k].label()) << "];\n";
    out << "  }\n";
  }
  for (ClassId id : classes) {
    const std::vector<ENode>& nodes = graph.nodes(id);
    for (size_t k = 0; k < nodes.size(); ++k) {
      const std::vector<ClassId>& children = nodes[k].children;
      for (size_t p = 0; p < children.size(); ++p) {
        out << "  " << node_name(id, k) << " -> " << node_name(children[p], 0);
        std::string attrs;
        // An edge into its own cluster cannot stop at the border.
        if (children[p] != id) attrs = "lhead=cluster_c" + std::to_string(children[p]);
        if (children.size() > 1)
          attrs += std::string(attrs.empty() ? "" : ", ") + "label=\"" + std::to_string(p) + "\"";
        if (!attrs.empty()) out << " [" << attrs << "]";
        out << ";\n";
      }
    }
  }
  out << "}\n";
  return out.str();
}

}  // namespace axon::nugraph
