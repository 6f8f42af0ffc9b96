// The NumPy functions, tensor methods and indexing the language offers,
// each lowered to IR ops (internal to src/lang).
#pragma once

#include "lang/value.h"

namespace axon::lang {

/// True when np.<name> exists in the language (a function or a constant).
bool is_numpy_name(const std::string& name);
/// np.pi, np.e, or a NpFunction value.
Value numpy_attribute(const std::string& name, const SourceLoc& loc);
/// np.<ufunc>.<name>: np.add.reduce and its kin (a NpFunction "add.reduce").
Value ufunc_attribute(const std::string& ufunc, const std::string& name, const SourceLoc& loc);
/// math.<name>: math.pi, math.e, math.inf, or a function on numbers.
Value math_attribute(const std::string& name, const SourceLoc& loc);
/// math.<name>(args): folded now; its arguments must be numbers.
Value call_math(Builder& builder, const std::string& name, const CallArgs& call);
/// np.<name>(args).
Value call_numpy(Builder& builder, const std::string& name, const CallArgs& call);
/// x.<name>: x.T, x.shape, x.ndim, or a bound method.
Value tensor_attribute(Builder& builder, const Arg& tensor, const std::string& name, const SourceLoc& loc);
/// x.<name>(args) for a bound method.
Value call_method(Builder& builder, const Value& method, const CallArgs& call);
/// x[index] for a tensor x.
Value index_tensor(Builder& builder, const Arg& tensor, const Arg& index, const SourceLoc& loc);
/// a @ b with NumPy's matmul rules (1-D operands, broadcast batch dims).
ir::NodeRef matmul(Builder& builder, const Arg& a, const Arg& b, const SourceLoc& loc);

}  // namespace axon::lang
