// Shape and dtype inference: ir::infer_type through ir::Graph::make.
//
// Every table row builds one node from typed inputs and states the result type
// it must get ("f16[M, N]") or the substrings its error message must contain.
#include "ir/shape.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace axon::ir {
namespace {

const Size M = Size::name("M");
const Size N = Size::name("N");
const Size K = Size::name("K");
const Size B = Size::name("B");

// Builds nodes in one graph; inputs get fresh indices.
class Builder {
 public:
  NodeRef in(DType dtype, Shape shape) {
    const int64_t index = next_++;
    return graph_.input(index, "p" + std::to_string(index), TensorType{dtype, std::move(shape)});
  }
  NodeRef f32(Shape shape) { return in(DType::F32, std::move(shape)); }
  NodeRef f16(Shape shape) { return in(DType::F16, std::move(shape)); }
  NodeRef bf16(Shape shape) { return in(DType::BF16, std::move(shape)); }
  NodeRef constant(double value) { return graph_.constant(value); }
  NodeRef size(const Size& size) { return graph_.size_value(size); }

  NodeRef make(Op op, std::vector<NodeRef> inputs, Attrs attrs = {}) {
    return graph_.make(op, std::move(inputs), std::move(attrs));
  }
  NodeRef binary(Op op, NodeRef a, NodeRef b) { return make(op, {a, b}); }
  NodeRef reduce(Op op, NodeRef x, std::vector<int64_t> axes, bool keepdims = false) {
    Attrs attrs;
    attrs.axes = std::move(axes);
    attrs.keepdims = keepdims;
    return make(op, {x}, attrs);
  }
  NodeRef cumsum(NodeRef x, int64_t axis) {
    Attrs attrs;
    attrs.axes = {axis};
    return make(Op::Cumsum, {x}, attrs);
  }
  NodeRef einsum(const std::string& spec, std::vector<NodeRef> inputs) {
    Attrs attrs;
    attrs.name = spec;
    return make(Op::Contract, std::move(inputs), attrs);
  }
  NodeRef transpose(NodeRef x, std::vector<int64_t> perm) {
    Attrs attrs;
    attrs.axes = std::move(perm);
    return make(Op::Transpose, {x}, attrs);
  }
  NodeRef reshape(NodeRef x, Shape shape) {
    Attrs attrs;
    attrs.sizes = std::move(shape);
    return make(Op::Reshape, {x}, attrs);
  }
  NodeRef broadcast_to(NodeRef x, Shape shape) {
    Attrs attrs;
    attrs.sizes = std::move(shape);
    return make(Op::Broadcast, {x}, attrs);
  }
  NodeRef slice(NodeRef x, Shape starts, std::vector<int64_t> steps, Shape extents) {
    Attrs attrs;
    attrs.sizes = std::move(starts);
    attrs.axes = std::move(steps);
    attrs.extents = std::move(extents);
    return make(Op::Slice, {x}, attrs);
  }
  NodeRef concat(std::vector<NodeRef> parts, int64_t axis) {
    Attrs attrs;
    attrs.axes = {axis};
    return make(Op::Concat, std::move(parts), attrs);
  }
  NodeRef where(Cmp cmp, NodeRef a, NodeRef b, NodeRef t, NodeRef f) {
    Attrs attrs;
    attrs.cmp = cmp;
    return make(Op::Select, {a, b, t, f}, attrs);
  }

 private:
  Graph graph_;
  int64_t next_ = 0;
};

// One inference case. `expected` is the exact result type, or, for a row that
// must fail, empty with the error's required substrings in `error_parts`.
struct TypeRow {
  std::string input;
  std::function<NodeRef(Builder&)> build;
  std::string expected;
  std::vector<std::string> error_parts = {};
};

// The inferred type as text, or "error: <message>" for a UserError.
std::string outcome(const TypeRow& row) {
  Builder b;
  try {
    return row.build(b)->type().str();
  } catch (const UserError& e) {
    return std::string("error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

void check_rows(const std::vector<TypeRow>& rows) {
  for (const TypeRow& row : rows) {
    const std::string actual = outcome(row);
    if (row.error_parts.empty()) {
      EXPECT_EQ(actual, row.expected) << "input:    " << row.input << "\n  expected: " << row.expected
                                      << "\n  actual:   " << actual;
      continue;
    }
    std::string wanted = "error containing";
    for (const std::string& part : row.error_parts) wanted += " '" + part + "'";
    bool ok = actual.rfind("error: ", 0) == 0;
    for (const std::string& part : row.error_parts) ok = ok && actual.find(part) != std::string::npos;
    EXPECT_TRUE(ok) << "input:    " << row.input << "\n  expected: " << wanted << "\n  actual:   " << actual;
  }
}

// A row that must fail with every one of `parts` in the message.
TypeRow fails(std::string input, std::function<NodeRef(Builder&)> build, std::vector<std::string> parts) {
  return TypeRow{std::move(input), std::move(build), "", std::move(parts)};
}

TEST(ShapeTest, Broadcasting) {
  check_rows({
      {"[M, N] + [M, N]",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({M, N}), b.f32({M, N}));
       },
       "f32[M, N]"},
      {"[4, 3] * [4, 3]",
       [](Builder& b) {
         return b.binary(Op::Mul, b.f32({4, 3}), b.f32({4, 3}));
       },
       "f32[4, 3]"},
      {"[M, 1] - [1, N]",
       [](Builder& b) {
         return b.binary(Op::Sub, b.f32({M, 1}), b.f32({1, N}));
       },
       "f32[M, N]"},
      {"[1, N] / [M, 1]",
       [](Builder& b) {
         return b.binary(Op::Div, b.f32({1, N}), b.f32({M, 1}));
       },
       "f32[M, N]"},
      {"[5, 1] + [1, 7]",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({5, 1}), b.f32({1, 7}));
       },
       "f32[5, 7]"},
      {"[N] + [M, N] (rank extension)",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({N}), b.f32({M, N}));
       },
       "f32[M, N]"},
      {"[B, M, N] * [N]",
       [](Builder& b) {
         return b.binary(Op::Mul, b.f32({B, M, N}), b.f32({N}));
       },
       "f32[B, M, N]"},
      {"[M, 1, K] max [N, 1]",
       [](Builder& b) {
         return b.binary(Op::Max, b.f32({M, 1, K}), b.f32({N, 1}));
       },
       "f32[M, N, K]"},
      {"[] + [M, N] (scalar tensor)",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({}), b.f32({M, N}));
       },
       "f32[M, N]"},
      {"[M, N] + 2.0",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({M, N}), b.constant(2.0));
       },
       "f32[M, N]"},
      {"[1] min [1]", [](Builder& b) { return b.binary(Op::Min, b.f32({1}), b.f32({1})); }, "f32[1]"},
      {"[M*N] + [N*M] (symbolic equal)", [](Builder& b) { return b.binary(Op::Add, b.f32({M * N}), b.f32({N * M})); },
       "f32[M*N]"},
      {"[2*M + 1] + [1 + M*2] (symbolic equal)",
       [](Builder& b) { return b.binary(Op::Add, b.f32({2 * M + 1}), b.f32({1 + M * 2})); }, "f32[2*M + 1]"},
      {"[M - M + 1, N] + [K, N] (1 after simplification stretches)",
       [](Builder& b) {
         return b.binary(Op::Add, b.f32({M - M + 1, N}), b.f32({K, N}));
       },
       "f32[K, N]"},
      fails("[M] + [N] (symbolic mismatch)", [](Builder& b) { return b.binary(Op::Add, b.f32({M}), b.f32({N})); },
            {"cannot broadcast", "f32[M]", "f32[N]"}),
      fails("[M, N] * [N, M]",
            [](Builder& b) {
              return b.binary(Op::Mul, b.f32({M, N}), b.f32({N, M}));
            },
            {"cannot broadcast", "f32[M, N]", "f32[N, M]"}),
      fails("[3] + [4]", [](Builder& b) { return b.binary(Op::Add, b.f32({3}), b.f32({4})); },
            {"cannot broadcast", "f32[3]", "f32[4]"}),
      fails("[M + 1] + [M]", [](Builder& b) { return b.binary(Op::Add, b.f32({M + 1}), b.f32({M})); },
            {"cannot broadcast", "f32[M + 1]", "f32[M]"}),
      fails("[2, M] + [3, 1]",
            [](Builder& b) {
              return b.binary(Op::Add, b.f32({2, M}), b.f32({3, 1}));
            },
            {"cannot broadcast", "f32[2, M]", "f32[3, 1]"}),
  });
}

// broadcast_shapes on its own: the shape rule without dtypes.
TEST(ShapeTest, BroadcastShapesFunction) {
  struct Row {
    Shape a, b;
    std::string expected;  // shape text, or "error"
  };
  const std::vector<Row> rows = {
      {{M, N}, {M, N}, "[M, N]"}, {{M, 1}, {1, N}, "[M, N]"}, {{N}, {M, N}, "[M, N]"}, {{}, {}, "[]"},
      {{}, {K}, "[K]"},           {{1, 1}, {K}, "[1, K]"},    {{M}, {N}, "error"},     {{2}, {3}, "error"},
      {{M, 2}, {2, 2}, "error"},
  };
  for (const Row& row : rows) {
    std::string actual;
    try {
      actual = shape_str(broadcast_shapes(row.a, row.b));
    } catch (const ShapeError& e) {
      actual = "error";
      EXPECT_NE(std::string(e.what()).find(shape_str(row.a)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(shape_str(row.b)), std::string::npos) << e.what();
    }
    EXPECT_EQ(actual, row.expected) << "input:    broadcast_shapes(" << shape_str(row.a) << ", " << shape_str(row.b)
                                    << ")\n  expected: " << row.expected << "\n  actual:   " << actual;
  }
}

TEST(ShapeTest, NumElements) {
  EXPECT_EQ(num_elements({}), Size(1));
  EXPECT_EQ(num_elements({M, N, 4}), 4 * M * N);
  EXPECT_EQ(num_elements({M, 0}), Size(0));
}

TEST(ShapeTest, Reductions) {
  check_rows({
      {"sum [M, N, K] axes (1,)",
       [](Builder& b) {
         return b.reduce(Op::ReduceSum, b.f32({M, N, K}), {1});
       },
       "f32[M, K]"},
      {"sum [M, N, K] axes (1,) keepdims",
       [](Builder& b) {
         return b.reduce(Op::ReduceSum, b.f32({M, N, K}), {1}, true);
       },
       "f32[M, 1, K]"},
      {"max [M, N, K] axes (0, 2)",
       [](Builder& b) {
         return b.reduce(Op::ReduceMax, b.f32({M, N, K}), {0, 2});
       },
       "f32[N]"},
      {"min [M, N, K] axes (0, 2) keepdims",
       [](Builder& b) {
         return b.reduce(Op::ReduceMin, b.f32({M, N, K}), {0, 2}, true);
       },
       "f32[1, N, 1]"},
      {"sum [M, N] all axes",
       [](Builder& b) {
         return b.reduce(Op::ReduceSum, b.f32({M, N}), {0, 1});
       },
       "f32[]"},
      {"sum [M, N] all axes keepdims",
       [](Builder& b) {
         return b.reduce(Op::ReduceSum, b.f32({M, N}), {0, 1}, true);
       },
       "f32[1, 1]"},
      {"sum bf16[M] axes (0,) keeps the dtype", [](Builder& b) { return b.reduce(Op::ReduceSum, b.bf16({M}), {0}); },
       "bf16[]"},
      fails("sum [M, N] axes (2,)",
            [](Builder& b) {
              return b.reduce(Op::ReduceSum, b.f32({M, N}), {2});
            },
            {"axis 2", "out of range", "rank 2"}),
      fails("max [M, N] axes (-1,) (axes must be normalized)",
            [](Builder& b) {
              return b.reduce(Op::ReduceMax, b.f32({M, N}), {-1});
            },
            {"axis -1", "out of range"}),
      fails("sum [] axes (0,)", [](Builder& b) { return b.reduce(Op::ReduceSum, b.f32({}), {0}); },
            {"axis 0", "out of range", "rank 0"}),
      fails("sum [M, N] axes (1, 1)",
            [](Builder& b) {
              return b.reduce(Op::ReduceSum, b.f32({M, N}), {1, 1});
            },
            {"axis 1", "repeated"}),
      fails("min [M, N, K] axes (2, 0)",
            [](Builder& b) {
              return b.reduce(Op::ReduceMin, b.f32({M, N, K}), {2, 0});
            },
            {"sorted"}),
  });
}

TEST(ShapeTest, Cumsum) {
  check_rows({
      {"cumsum [M, N] axis 0",
       [](Builder& b) {
         return b.cumsum(b.f32({M, N}), 0);
       },
       "f32[M, N]"},
      {"cumsum f16[M, N] axis 1",
       [](Builder& b) {
         return b.cumsum(b.f16({M, N}), 1);
       },
       "f16[M, N]"},
      fails("cumsum [M, N] axis 2",
            [](Builder& b) {
              return b.cumsum(b.f32({M, N}), 2);
            },
            {"cumsum", "axis 2", "out of range"}),
      fails("cumsum [M] axis -1", [](Builder& b) { return b.cumsum(b.f32({M}), -1); }, {"axis -1", "out of range"}),
      fails("cumsum [] axis 0", [](Builder& b) { return b.cumsum(b.f32({}), 0); }, {"axis 0", "rank 0"}),
  });
}

TEST(ShapeTest, Contraction) {
  check_rows({
      {"ab,bc->ac [M, K] [K, N] (matmul)",
       [](Builder& b) {
         return b.einsum("ab,bc->ac", {b.f32({M, K}), b.f32({K, N})});
       },
       "f32[M, N]"},
      {"abc,acd->abd [B, M, K] [B, K, N] (batched)",
       [](Builder& b) {
         return b.einsum("abc,acd->abd", {b.f32({B, M, K}), b.f32({B, K, N})});
       },
       "f32[B, M, N]"},
      {"aa->a [N, N] (diagonal)",
       [](Builder& b) {
         return b.einsum("aa->a", {b.f32({N, N})});
       },
       "f32[N]"},
      {"aa-> [N, N] (trace)",
       [](Builder& b) {
         return b.einsum("aa->", {b.f32({N, N})});
       },
       "f32[]"},
      {"ab-> [M, N] (sum)",
       [](Builder& b) {
         return b.einsum("ab->", {b.f32({M, N})});
       },
       "f32[]"},
      {"ab->ba [M, N]",
       [](Builder& b) {
         return b.einsum("ab->ba", {b.f32({M, N})});
       },
       "f32[N, M]"},
      {"a,b->ab [M] [N] (outer)",
       [](Builder& b) {
         return b.einsum("a,b->ab", {b.f32({M}), b.f32({N})});
       },
       "f32[M, N]"},
      {"a,a-> [K] [K] (dot)",
       [](Builder& b) {
         return b.einsum("a,a->", {b.f32({K}), b.f32({K})});
       },
       "f32[]"},
      {"ab,bc,cd->ad (3 operands)",
       [](Builder& b) {
         return b.einsum("ab,bc,cd->ad", {b.f32({M, K}), b.f32({K, N}), b.f32({N, B})});
       },
       "f32[M, B]"},
      {"ab,bc->ac bf16 x bf16",
       [](Builder& b) {
         return b.einsum("ab,bc->ac", {b.bf16({M, K}), b.bf16({K, N})});
       },
       "bf16[M, N]"},
      {"ab,bc->ac f16 x bf16",
       [](Builder& b) {
         return b.einsum("ab,bc->ac", {b.f16({M, K}), b.bf16({K, N})});
       },
       "f32[M, N]"},
      {"ab,bc->ac [M, 2*K] [K*2, N] (symbolic equal)",
       [](Builder& b) {
         return b.einsum("ab,bc->ac", {b.f32({M, 2 * K}), b.f32({K * 2, N})});
       },
       "f32[M, N]"},
      fails("ab,bc->ac [M, K] [N, N] (size mismatch)",
            [](Builder& b) {
              return b.einsum("ab,bc->ac", {b.f32({M, K}), b.f32({N, N})});
            },
            {"subscript 'b'", "K", "f32[M, K]", "f32[N, N]"}),
      fails("aa->a [M, N] (diagonal of a non-square)",
            [](Builder& b) {
              return b.einsum("aa->a", {b.f32({M, N})});
            },
            {"subscript 'a'", "M", "N"}),
      fails("ab,bc->ac [M, K, 1] [K, N] (rank mismatch)",
            [](Builder& b) {
              return b.einsum("ab,bc->ac", {b.f32({M, K, 1}), b.f32({K, N})});
            },
            {"operand 0", "f32[M, K, 1]", "'ab'", "2 axes"}),
      fails("abc->a [M, N] (rank mismatch)",
            [](Builder& b) {
              return b.einsum("abc->a", {b.f32({M, N})});
            },
            {"operand 0", "f32[M, N]", "'abc'"}),
      fails("ab,bc->ac with one operand",
            [](Builder& b) {
              return b.einsum("ab,bc->ac", {b.f32({M, K})});
            },
            {"2 operands", "1 were given"}),
      fails("ab (no arrow)",
            [](Builder& b) {
              return b.einsum("ab", {b.f32({M, K})});
            },
            {"no '->'"}),
      fails("ab->c (unknown output label)",
            [](Builder& b) {
              return b.einsum("ab->c", {b.f32({M, K})});
            },
            {"output subscript 'c'", "not in any operand"}),
      fails("ab->aa (repeated output label)",
            [](Builder& b) {
              return b.einsum("ab->aa", {b.f32({M, K})});
            },
            {"output subscript 'a'", "repeated"}),
  });
}

TEST(ShapeTest, Transpose) {
  check_rows({
      {"transpose [M, N] (1, 0)",
       [](Builder& b) {
         return b.transpose(b.f32({M, N}), {1, 0});
       },
       "f32[N, M]"},
      {"transpose [M, N, K] (2, 0, 1)",
       [](Builder& b) {
         return b.transpose(b.f32({M, N, K}), {2, 0, 1});
       },
       "f32[K, M, N]"},
      {"transpose f16[M, N, K] (0, 1, 2)",
       [](Builder& b) {
         return b.transpose(b.f16({M, N, K}), {0, 1, 2});
       },
       "f16[M, N, K]"},
      {"transpose [] ()", [](Builder& b) { return b.transpose(b.f32({}), {}); }, "f32[]"},
      fails("transpose [M, N, K] (0, 0, 1)",
            [](Builder& b) {
              return b.transpose(b.f32({M, N, K}), {0, 0, 1});
            },
            {"(0, 0, 1)", "not a permutation", "f32[M, N, K]"}),
      fails("transpose [M, N, K] (0, 1)",
            [](Builder& b) {
              return b.transpose(b.f32({M, N, K}), {0, 1});
            },
            {"(0, 1)", "not a permutation"}),
      fails("transpose [M, N] (0, 2)",
            [](Builder& b) {
              return b.transpose(b.f32({M, N}), {0, 2});
            },
            {"not a permutation"}),
      fails("transpose [M, N] (-1, 0)",
            [](Builder& b) {
              return b.transpose(b.f32({M, N}), {-1, 0});
            },
            {"not a permutation"}),
  });
}

TEST(ShapeTest, Reshape) {
  check_rows({
      {"reshape [M, N*K] -> [M*N, K]",
       [](Builder& b) {
         return b.reshape(b.f32({M, N * K}), {M * N, K});
       },
       "f32[M*N, K]"},
      {"reshape [M, N] -> [M*N]",
       [](Builder& b) {
         return b.reshape(b.f32({M, N}), {M * N});
       },
       "f32[M*N]"},
      {"reshape [M, N] -> [N, M]",
       [](Builder& b) {
         return b.reshape(b.f32({M, N}), {N, M});
       },
       "f32[N, M]"},
      {"reshape [2*M, 3] -> [M, 6]",
       [](Builder& b) {
         return b.reshape(b.f32({2 * M, 3}), {M, 6});
       },
       "f32[M, 6]"},
      {"reshape bf16[M] -> [1, M, 1]",
       [](Builder& b) {
         return b.reshape(b.bf16({M}), {1, M, 1});
       },
       "bf16[1, M, 1]"},
      {"reshape [] -> [1]", [](Builder& b) { return b.reshape(b.f32({}), {1}); }, "f32[1]"},
      {"reshape [1, 1] -> []",
       [](Builder& b) {
         return b.reshape(b.f32({1, 1}), {});
       },
       "f32[]"},
      fails("reshape [M, N] -> [M, K]",
            [](Builder& b) {
              return b.reshape(b.f32({M, N}), {M, K});
            },
            {"cannot reshape", "f32[M, N]", "(M*N elements)", "[M, K]", "(K*M elements)"}),
      fails("reshape [4, 3] -> [5, 2]",
            [](Builder& b) {
              return b.reshape(b.f32({4, 3}), {5, 2});
            },
            {"f32[4, 3]", "(12 elements)", "[5, 2]", "(10 elements)"}),
      fails("reshape [M, N] -> [M, N, 2]",
            [](Builder& b) {
              return b.reshape(b.f32({M, N}), {M, N, 2});
            },
            {"(M*N elements)", "(2*M*N elements)"}),
  });
}

TEST(ShapeTest, BroadcastTo) {
  check_rows({
      {"broadcast_to [N] -> [M, N]",
       [](Builder& b) {
         return b.broadcast_to(b.f32({N}), {M, N});
       },
       "f32[M, N]"},
      {"broadcast_to [M, 1] -> [M, N]",
       [](Builder& b) {
         return b.broadcast_to(b.f32({M, 1}), {M, N});
       },
       "f32[M, N]"},
      {"broadcast_to f16[] -> [2, 3]",
       [](Builder& b) {
         return b.broadcast_to(b.f16({}), {2, 3});
       },
       "f16[2, 3]"},
      {"broadcast_to [M, N] -> [M, N]",
       [](Builder& b) {
         return b.broadcast_to(b.f32({M, N}), {M, N});
       },
       "f32[M, N]"},
      fails("broadcast_to [M] -> [M, N]",
            [](Builder& b) {
              return b.broadcast_to(b.f32({M}), {M, N});
            },
            {"cannot broadcast", "f32[M]", "[M, N]"}),
      fails("broadcast_to [M, N] -> [N] (fewer dims)",
            [](Builder& b) {
              return b.broadcast_to(b.f32({M, N}), {N});
            },
            {"cannot broadcast", "f32[M, N]", "[N]"}),
      fails("broadcast_to [M, N] -> [1, N] (shrinks)",
            [](Builder& b) {
              return b.broadcast_to(b.f32({M, N}), {1, N});
            },
            {"cannot broadcast", "[1, N]"}),
  });
}

TEST(ShapeTest, SliceExtents) {
  check_rows({
      {"slice [M, 12] (0:M:1, 1::3)",
       [](Builder& b) {
         return b.slice(b.f32({M, 12}), {0, 1}, {1, 3}, {M, 4});
       },
       "f32[M, 4]"},
      {"slice [M, N] (1:M-1, N//2:)",
       [](Builder& b) {
         return b.slice(b.f32({M, N}), {1, Size::floordiv(N, 2)}, {1, 1}, {M - 2, N - Size::floordiv(N, 2)});
       },
       "f32[M - 2, N - N//2]"},
      {"slice [8] reversed (7::-1)", [](Builder& b) { return b.slice(b.f32({8}), {7}, {-1}, {8}); }, "f32[8]"},
      {"slice [8] empty", [](Builder& b) { return b.slice(b.f32({8}), {0}, {1}, {0}); }, "f32[0]"},
      {"slice bf16[M] keeps the dtype",
       [](Builder& b) { return b.slice(b.bf16({M}), {0}, {2}, {Size::floordiv(M + 1, 2)}); }, "bf16[(M + 1)//2]"},
      fails("slice [M, N] with one axis given",
            [](Builder& b) {
              return b.slice(b.f32({M, N}), {0}, {1}, {M});
            },
            {"f32[M, N]", "each axis"}),
      fails("slice [8] step 0", [](Builder& b) { return b.slice(b.f32({8}), {0}, {0}, {8}); }, {"step", "zero"}),
      fails("slice [8] negative length", [](Builder& b) { return b.slice(b.f32({8}), {0}, {1}, {-1}); }, {"negative"}),
  });
}

TEST(ShapeTest, Concatenate) {
  check_rows({
      {"concat [M, 3] [M, 4] axis 1",
       [](Builder& b) {
         return b.concat({b.f32({M, 3}), b.f32({M, 4})}, 1);
       },
       "f32[M, 7]"},
      {"concat [M, N] [K, N] axis 0",
       [](Builder& b) {
         return b.concat({b.f32({M, N}), b.f32({K, N})}, 0);
       },
       "f32[K + M, N]"},
      {"concat [M] [M] [1] axis 0",
       [](Builder& b) {
         return b.concat({b.f32({M}), b.f32({M}), b.f32({1})}, 0);
       },
       "f32[2*M + 1]"},
      {"concat [N - N//2] [N//2] axis 0 (symbolic sum simplifies)",
       [](Builder& b) {
         const Size half = Size::floordiv(N, 2);
         return b.concat({b.f32({N - half}), b.f32({half})}, 0);
       },
       "f32[N]"},
      {"concat f16[2] bf16[3] axis 0 (dtype promotes)",
       [](Builder& b) {
         return b.concat({b.f16({2}), b.bf16({3})}, 0);
       },
       "f32[5]"},
      fails("concat [M, 3] [N, 4] axis 1",
            [](Builder& b) {
              return b.concat({b.f32({M, 3}), b.f32({N, 4})}, 1);
            },
            {"axis 1", "f32[M, 3]", "f32[N, 4]"}),
      fails("concat [M, 3] [3] axis 0 (rank differs)",
            [](Builder& b) {
              return b.concat({b.f32({M, 3}), b.f32({3})}, 0);
            },
            {"f32[M, 3]", "f32[3]"}),
      fails("concat [M] [M] axis 1",
            [](Builder& b) {
              return b.concat({b.f32({M}), b.f32({M})}, 1);
            },
            {"axis 1", "out of range"}),
      fails("concat [] [] axis 0",
            [](Builder& b) {
              return b.concat({b.f32({}), b.f32({})}, 0);
            },
            {"zero-dimensional"}),
      fails("concat of nothing", [](Builder& b) { return b.concat({}, 0); }, {"at least one"}),
  });
}

TEST(ShapeTest, DtypePromotion) {
  check_rows({
      {"f16 + f16", [](Builder& b) { return b.binary(Op::Add, b.f16({M}), b.f16({M})); }, "f16[M]"},
      {"bf16 * bf16", [](Builder& b) { return b.binary(Op::Mul, b.bf16({M}), b.bf16({M})); }, "bf16[M]"},
      {"f16 + bf16", [](Builder& b) { return b.binary(Op::Add, b.f16({M}), b.bf16({M})); }, "f32[M]"},
      {"bf16 - f16", [](Builder& b) { return b.binary(Op::Sub, b.bf16({M}), b.f16({M})); }, "f32[M]"},
      {"f16 / f32", [](Builder& b) { return b.binary(Op::Div, b.f16({M}), b.f32({M})); }, "f32[M]"},
      {"f16 * 2.5 (weak scalar)", [](Builder& b) { return b.binary(Op::Mul, b.f16({M}), b.constant(2.5)); }, "f16[M]"},
      {"1e30 + bf16 (weak scalar, even if large)",
       [](Builder& b) { return b.binary(Op::Add, b.constant(1e30), b.bf16({M})); }, "bf16[M]"},
      {"f16 / size(N) (weak scalar)",
       [](Builder& b) {
         return b.binary(Op::Div, b.f16({M, N}), b.size(N));
       },
       "f16[M, N]"},
      {"f16 + f32[] (a rank-0 tensor is not weak)", [](Builder& b) { return b.binary(Op::Add, b.f16({M}), b.f32({})); },
       "f32[M]"},
      {"2.0 + 3.0 (only weak scalars)", [](Builder& b) { return b.binary(Op::Add, b.constant(2.0), b.constant(3.0)); },
       "f32[]"},
      {"exp(f16)", [](Builder& b) { return b.make(Op::Exp, {b.f16({M})}); }, "f16[M]"},
      {"neg(bf16)",
       [](Builder& b) {
         return b.make(Op::Neg, {b.bf16({M, N})});
       },
       "bf16[M, N]"},
      {"pow(bf16, 3)",
       [](Builder& b) {
         Attrs attrs;
         attrs.value = 3.0;
         return b.make(Op::Pow, {b.bf16({M})}, attrs);
       },
       "bf16[M]"},
      {"maximum(f16, 0.0)", [](Builder& b) { return b.binary(Op::Max, b.f16({M}), b.constant(0.0)); }, "f16[M]"},
      {"constant", [](Builder& b) { return b.constant(1.0); }, "f32[]"},
      {"size(M)", [](Builder& b) { return b.size(M); }, "f32[]"},
  });
}

TEST(ShapeTest, Select) {
  check_rows({
      {"where([M, 1] < [1, N], [M, N], [M, N])",
       [](Builder& b) {
         return b.where(Cmp::Lt, b.f32({M, 1}), b.f32({1, N}), b.f32({M, N}), b.f32({M, N}));
       },
       "f32[M, N]"},
      {"where([M, N] > 0.0, [M, N], 0.0)",
       [](Builder& b) {
         return b.where(Cmp::Gt, b.f32({M, N}), b.constant(0.0), b.f32({M, N}), b.constant(0.0));
       },
       "f32[M, N]"},
      {"where([N] >= 0.0, 1.0, -1.0) (only the condition has a shape)",
       [](Builder& b) { return b.where(Cmp::Ge, b.f32({N}), b.constant(0.0), b.constant(1.0), b.constant(-1.0)); },
       "f32[N]"},
      {"where([M, 1] == [M, 1], [N], [1]) (all four broadcast)",
       [](Builder& b) {
         return b.where(Cmp::Eq, b.f32({M, 1}), b.f32({M, 1}), b.f32({N}), b.f32({1}));
       },
       "f32[M, N]"},
      {"where(f16 != f16, f16, 1.0)",
       [](Builder& b) { return b.where(Cmp::Ne, b.f16({M}), b.f16({M}), b.f16({M}), b.constant(1.0)); }, "f16[M]"},
      {"where(f16 <= f16, f16, bf16)",
       [](Builder& b) { return b.where(Cmp::Le, b.f16({M}), b.f16({M}), b.f16({M}), b.bf16({M})); }, "f32[M]"},
      fails("where([M] < [N], ...)",
            [](Builder& b) { return b.where(Cmp::Lt, b.f32({M}), b.f32({N}), b.f32({M}), b.f32({M})); },
            {"cannot broadcast", "f32[M]", "f32[N]"}),
      fails("where([M] < [M], [M], [K])",
            [](Builder& b) { return b.where(Cmp::Lt, b.f32({M}), b.f32({M}), b.f32({M}), b.f32({K})); },
            {"cannot broadcast", "f32[K]"}),
  });
}

// NumPy's np.where(cond, x, y) takes its dtype from x and y only: the operands
// of the comparison decide the condition, not the result.
TEST(ShapeTest, SelectDtypeComesFromTheBranches) {
  Builder b;
  NodeRef y = b.where(Cmp::Gt, b.f32({M}), b.f32({M}), b.f16({M}), b.f16({M}));
  EXPECT_EQ(y->type().str(), "f16[M]");
}

TEST(ShapeTest, ShapeErrorBecomesUserErrorAtTheGivenLocation) {
  auto file =
      std::make_shared<SourceFile>(SourceFile{"prog.py", "import numpy as np\ndef f(x, y):\n    return x + y\n"});
  const SourceLoc loc{file, 3, 14};
  Graph g;
  NodeRef x = g.input(0, "x", {DType::F32, {M}});
  NodeRef y = g.input(1, "y", {DType::F32, {N}});
  try {
    g.make(Op::Add, {x, y}, {}, loc);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().file, file);
    EXPECT_EQ(e.loc().line, 3);
    EXPECT_EQ(e.loc().col, 14);
    const std::string text = e.format();
    EXPECT_NE(text.find("prog.py:3:14: error: cannot broadcast"), std::string::npos) << text;
    EXPECT_NE(text.find("f32[M]"), std::string::npos) << text;
    EXPECT_NE(text.find("f32[N]"), std::string::npos) << text;
    EXPECT_NE(text.find("    return x + y\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n               ^\n"), std::string::npos) << text;
  }
  // A failed make leaves no node behind.
  EXPECT_EQ(g.size(), 2u);
}

TEST(ShapeTest, InferTypeThrowsShapeErrorDirectly) {
  Graph g;
  NodeRef x = g.input(0, "x", {DType::F32, {M, N}});
  Attrs attrs;
  attrs.sizes = {M, K};
  EXPECT_THROW(infer_type(Op::Reshape, std::vector<NodeRef>{x}, attrs), ShapeError);
  attrs.sizes = {N, M};
  EXPECT_EQ(infer_type(Op::Reshape, std::vector<NodeRef>{x}, attrs).str(), "f32[N, M]");
}

// Sizes come from the user's annotations, so a shape whose arithmetic overflows
// int64 is bad input: it must be a located UserError, not std::overflow_error.
TEST(ShapeTest, SizeOverflowIsAUserError) {
  const int64_t big = int64_t{1} << 62;
  const int64_t max = std::numeric_limits<int64_t>::max();
  check_rows({
      fails("reshape [2^62, 4] -> [4, 2^62]",
            [&](Builder& b) {
              return b.reshape(b.f32({big, 4}), {4, big});
            },
            {"overflow"}),
      fails("concat [2^63 - 1] [2^63 - 1] axis 0",
            [&](Builder& b) {
              return b.concat({b.f32({max}), b.f32({max})}, 0);
            },
            {"overflow"}),
  });
}

// A wrong number of inputs is a bug in the caller, not a user error.
TEST(ShapeTest, WrongArityIsAnInternalError) {
  Graph g;
  NodeRef x = g.input(0, "x", {DType::F32, {M}});
  EXPECT_THROW(g.make(Op::Add, {x}, {}), InternalError);
  EXPECT_THROW(g.make(Op::Exp, {x, x}, {}), InternalError);
  EXPECT_THROW(g.make(Op::Select, {x, x, x}, {}), InternalError);
  EXPECT_THROW(g.make(Op::Input, {}, {}), InternalError);
}

}  // namespace
}  // namespace axon::ir
