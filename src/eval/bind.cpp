#include "eval/bind.h"

#include <random>

#include "eval/interpreter.h"

namespace axon::eval {

ir::Dims bind_dims(const ir::Function& fn, const ir::Dims& given,
                   const std::vector<std::optional<ProvidedInput>>& provided) {
  AXON_CHECK(provided.size() == fn.params.size(), "one entry per parameter");
  ir::Dims dims = given;
  std::map<std::string, std::string> bound_by;  // size name -> the file that fixed it
  struct Compound {
    size_t param, axis;
    int64_t actual;
  };
  std::vector<Compound> compound;  // dims such as 3*D, bound by the plain names elsewhere
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (!provided[i]) continue;
    const ir::Param& p = fn.params[i];
    const ProvidedInput& in = *provided[i];
    const ir::Shape& declared = p.type.shape;
    std::string what = in.source + " has shape " + in.tensor.shape_str() + " but parameter '" + p.name + "' is " +
                       p.type.str();
    if (in.tensor.shape.size() != declared.size())
      throw UserError(p.annotation_loc, what + " (rank " + std::to_string(in.tensor.shape.size()) + " vs " +
                                            std::to_string(declared.size()) + ")");
    for (size_t k = 0; k < declared.size(); ++k) {
      int64_t actual = in.tensor.shape[k];
      const ir::Size& dim = declared[k];
      if (auto c = dim.constant()) {
        if (*c != actual) throw UserError(p.annotation_loc, what + ": dimension " + std::to_string(k) + " must be " + dim.str());
        continue;
      }
      auto names = dim.names();
      if (names.size() != 1 || dim != ir::Size::name(names[0])) {
        compound.push_back({i, k, actual});  // "3*D": checked once the names are bound
        continue;
      }
      const std::string& name = names[0];
      if (actual < 1)
        throw UserError(p.annotation_loc, what + ": size " + name + " would be " + std::to_string(actual) +
                                              ", but sizes are at least 1");
      auto [it, fresh] = dims.emplace(name, actual);
      if (fresh) {
        bound_by[name] = in.source;
      } else if (it->second != actual) {
        std::string other = bound_by.count(name) ? bound_by[name] : "--dims";
        throw UserError(p.annotation_loc, what + ": " + in.source + " gives " + name + "=" + std::to_string(actual) +
                                              " but " + other + " gives " + name + "=" + std::to_string(it->second));
      }
    }
  }
  for (const Compound& c : compound) {
    const ir::Param& p = fn.params[c.param];
    const ir::Size& dim = p.type.shape[c.axis];
    for (const std::string& name : dim.names())
      if (!dims.count(name))
        throw UserError(p.annotation_loc, "size " + name + " appears only inside the dimension " + dim.str() + " of '" +
                                              p.name + "'; give it with --dims " + name + "=...");
    int64_t want = *dim.evaluate(dims);
    if (want != c.actual)
      throw UserError(p.annotation_loc, provided[c.param]->source + " has shape " +
                                            provided[c.param]->tensor.shape_str() + " but parameter '" + p.name +
                                            "' is " + p.type.str() + ": dimension " + std::to_string(c.axis) + " is " +
                                            dim.str() + " = " + std::to_string(want));
  }
  for (const ir::Param& p : fn.params) concrete_shape(p.type.shape, dims, p.annotation_loc);
  return dims;
}

Tensor random_normal(const std::vector<int64_t>& shape, uint64_t seed, size_t index) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(index)};
  std::mt19937_64 engine(seq);
  std::normal_distribution<double> normal(0.0, 1.0);
  Tensor t = Tensor::zeros(shape);
  for (double& x : t.data) x = normal(engine);
  return t;
}

}  // namespace axon::eval
