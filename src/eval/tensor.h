// The reference interpreter's value: a dense float64 tensor.
//
// Every dtype is evaluated in float64 so that the interpreter is an oracle for
// lower-precision kernels; rounding to the program's dtype happens only at the
// boundaries (reading and writing .npy files).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace axon::eval {

/// A dense, row-major (C order) float64 tensor. Invariant: every dimension is
/// non-negative and data.size() == numel().
struct Tensor {
  std::vector<int64_t> shape;  // empty = a scalar (one element)
  std::vector<double> data;    // numel() elements

  /// Product of shape (1 for a scalar, 0 when any dimension is 0).
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  /// A tensor of the given shape filled with 0.0. Throws std::invalid_argument
  /// for a negative dimension, since that is a caller bug rather than bad input.
  static Tensor zeros(std::vector<int64_t> shape) {
    for (int64_t d : shape) {
      if (d < 0) throw std::invalid_argument("Tensor::zeros: negative dimension");
    }
    Tensor t;
    t.shape = std::move(shape);
    t.data.assign(static_cast<size_t>(t.numel()), 0.0);
    return t;
  }

  /// The shape as NumPy prints it: "(3, 4)", "(5,)", "()".
  std::string shape_str() const {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i > 0) s += ", ";
      s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
  }
};

}  // namespace axon::eval
