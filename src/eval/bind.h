// Binding a kernel's parameters to concrete tensors and sizes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eval/tensor.h"
#include "ir/program.h"

namespace axon::eval {

/// A tensor the user supplied for a parameter, and where it came from.
struct ProvidedInput {
  Tensor tensor;
  std::string source;  // e.g. "x.npy", for messages
};

/// The sizes of a call: `given` (from --dims) completed and checked by the
/// shapes of the provided inputs (one optional entry per parameter). A rank or
/// dim that disagrees with an annotation, or with `given`, is a UserError at
/// the parameter's annotation that names both sides. Every size the
/// parameters use must end up known.
ir::Dims bind_dims(const ir::Function& fn, const ir::Dims& given,
                   const std::vector<std::optional<ProvidedInput>>& provided);

/// Standard-normal values for parameter `index`, reproducible from `seed`.
Tensor random_normal(const std::vector<int64_t>& shape, uint64_t seed, size_t index);

}  // namespace axon::eval
