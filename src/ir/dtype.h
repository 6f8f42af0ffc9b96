// Element types of Axon tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace axon::ir {

enum class DType : uint8_t { F32, BF16, F16 };

const char* dtype_name(DType dtype);                 // "f32", "bf16", "f16"
std::optional<DType> parse_dtype(std::string_view);  // inverse of dtype_name

/// The type of a binary operation's result: equal types stay, mixed types
/// widen to f32 (f16 and bf16 have no common narrower type).
inline DType promote(DType a, DType b) { return a == b ? a : DType::F32; }

}  // namespace axon::ir
