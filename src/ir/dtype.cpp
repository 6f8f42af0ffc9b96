#include "ir/dtype.h"

namespace axon::ir {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType d : {DType::F32, DType::BF16, DType::F16})
    if (text == dtype_name(d)) return d;
  return std::nullopt;
}

}  // namespace axon::ir
