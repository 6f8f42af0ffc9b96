// ir::Graph: hash-consing, creation ids, topological order, and the printer.
#include "ir/graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/program.h"

namespace axon::ir {
namespace {

const Size M = Size::name("M");
const Size N = Size::name("N");
const Size K = Size::name("K");

Attrs axes_attrs(std::vector<int64_t> axes, bool keepdims = false) {
  Attrs a;
  a.axes = std::move(axes);
  a.keepdims = keepdims;
  return a;
}

Attrs value_attrs(double value) {
  Attrs a;
  a.value = value;
  return a;
}

Attrs cmp_attrs(Cmp cmp) {
  Attrs a;
  a.cmp = cmp;
  return a;
}

Attrs spec_attrs(const std::string& spec) {
  Attrs a;
  a.name = spec;
  return a;
}

// Two nodes built in the same graph, and whether they must be the same node.
struct SharingRow {
  std::string input;
  std::function<NodeRef(Graph&)> first;
  std::function<NodeRef(Graph&)> second;
  bool same;
};

NodeRef x_of(Graph& g) {
  return g.input(0, "x", {DType::F32, {M, N}});
}
NodeRef y_of(Graph& g) {
  return g.input(1, "y", {DType::F32, {M, N}});
}

TEST(GraphTest, HashConsing) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<SharingRow> rows = {
      {"add(x, y) twice",
       [](Graph& g) {
         return g.make(Op::Add, {x_of(g), y_of(g)}, {});
       },
       [](Graph& g) {
         return g.make(Op::Add, {x_of(g), y_of(g)}, {});
       },
       true},
      {"add(x, y) vs add(y, x) (no commutativity in the graph)",
       [](Graph& g) {
         return g.make(Op::Add, {x_of(g), y_of(g)}, {});
       },
       [](Graph& g) {
         return g.make(Op::Add, {y_of(g), x_of(g)}, {});
       },
       false},
      {"add(x, y) vs mul(x, y)",
       [](Graph& g) {
         return g.make(Op::Add, {x_of(g), y_of(g)}, {});
       },
       [](Graph& g) {
         return g.make(Op::Mul, {x_of(g), y_of(g)}, {});
       },
       false},
      {"exp(exp(x)) twice", [](Graph& g) { return g.make(Op::Exp, {g.make(Op::Exp, {x_of(g)}, {})}, {}); },
       [](Graph& g) { return g.make(Op::Exp, {g.make(Op::Exp, {x_of(g)}, {})}, {}); }, true},
      {"sum(x, axes=[0]) vs sum(x, axes=[1])",
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({0})); },
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({1})); }, false},
      {"sum(x, axes=[1]) vs sum(x, axes=[1], keepdims)",
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({1})); },
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({1}, true)); }, false},
      {"sum(x, axes=[1], keepdims) twice",
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({1}, true)); },
       [](Graph& g) { return g.make(Op::ReduceSum, {x_of(g)}, axes_attrs({1}, true)); }, true},
      {"pow(x, 2) vs pow(x, 3)", [](Graph& g) { return g.make(Op::Pow, {x_of(g)}, value_attrs(2.0)); },
       [](Graph& g) { return g.make(Op::Pow, {x_of(g)}, value_attrs(3.0)); }, false},
      {"where(x < y, x, y) vs where(x <= y, x, y)",
       [](Graph& g) {
         return g.make(Op::Select, {x_of(g), y_of(g), x_of(g), y_of(g)}, cmp_attrs(Cmp::Lt));
       },
       [](Graph& g) {
         return g.make(Op::Select, {x_of(g), y_of(g), x_of(g), y_of(g)}, cmp_attrs(Cmp::Le));
       },
       false},
      {"einsum ab->ba vs transpose (1, 0)",
       [](Graph& g) { return g.make(Op::Contract, {x_of(g)}, spec_attrs("ab->ba")); },
       [](Graph& g) {
         return g.make(Op::Transpose, {x_of(g)}, axes_attrs({1, 0}));
       },
       false},
      {"einsum ab->a vs einsum ab->b", [](Graph& g) { return g.make(Op::Contract, {x_of(g)}, spec_attrs("ab->a")); },
       [](Graph& g) { return g.make(Op::Contract, {x_of(g)}, spec_attrs("ab->b")); }, false},
      {"constant 1.0 twice", [](Graph& g) { return g.constant(1.0); }, [](Graph& g) { return g.constant(1.0); }, true},
      {"constant 1.0 vs 2.0", [](Graph& g) { return g.constant(1.0); }, [](Graph& g) { return g.constant(2.0); },
       false},
      {"constant 0.0 vs -0.0", [](Graph& g) { return g.constant(0.0); }, [](Graph& g) { return g.constant(-0.0); },
       false},
      {"constant -0.0 twice", [](Graph& g) { return g.constant(-0.0); }, [](Graph& g) { return g.constant(-0.0); },
       true},
      {"constant NaN twice (equal to itself)", [nan](Graph& g) { return g.constant(nan); },
       [nan](Graph& g) { return g.constant(nan); }, true},
      {"constant inf twice", [](Graph& g) { return g.constant(INFINITY); },
       [](Graph& g) { return g.constant(INFINITY); }, true},
      {"constant inf vs -inf", [](Graph& g) { return g.constant(INFINITY); },
       [](Graph& g) { return g.constant(-INFINITY); }, false},
      {"size(M) twice", [](Graph& g) { return g.size_value(M); }, [](Graph& g) { return g.size_value(M); }, true},
      {"size(M + N) vs size(N + M)", [](Graph& g) { return g.size_value(M + N); },
       [](Graph& g) { return g.size_value(N + M); }, true},
      {"size(M) vs size(N)", [](Graph& g) { return g.size_value(M); }, [](Graph& g) { return g.size_value(N); }, false},
      {"constant 3.0 vs size(3) (different ops)", [](Graph& g) { return g.constant(3.0); },
       [](Graph& g) { return g.size_value(3); }, false},
      {"input x twice", [](Graph& g) { return x_of(g); }, [](Graph& g) { return x_of(g); }, true},
      {"input 0 'x' vs input 1 'x'",
       [](Graph& g) {
         return g.input(0, "x", {DType::F32, {M}});
       },
       [](Graph& g) {
         return g.input(1, "x", {DType::F32, {M}});
       },
       false},
      {"reshape x to [M*N] twice",
       [](Graph& g) {
         Attrs a;
         a.sizes = {M * N};
         return g.make(Op::Reshape, {x_of(g)}, a);
       },
       [](Graph& g) {
         Attrs a;
         a.sizes = {N * M};
         return g.make(Op::Reshape, {x_of(g)}, a);
       },
       true},
      {"slice x[:, 0:2] vs x[:, 1:3] (different starts)",
       [](Graph& g) {
         Attrs a;
         a.sizes = {0, 0};
         a.axes = {1, 1};
         a.extents = {M, 2};
         return g.make(Op::Slice, {x_of(g)}, a);
       },
       [](Graph& g) {
         Attrs a;
         a.sizes = {0, 1};
         a.axes = {1, 1};
         a.extents = {M, 2};
         return g.make(Op::Slice, {x_of(g)}, a);
       },
       false},
      {"slice x[:, 0:2] vs x[:, 0:3] (different extents)",
       [](Graph& g) {
         Attrs a;
         a.sizes = {0, 0};
         a.axes = {1, 1};
         a.extents = {M, 2};
         return g.make(Op::Slice, {x_of(g)}, a);
       },
       [](Graph& g) {
         Attrs a;
         a.sizes = {0, 0};
         a.axes = {1, 1};
         a.extents = {M, 3};
         return g.make(Op::Slice, {x_of(g)}, a);
       },
       false},
  };
  for (const SharingRow& row : rows) {
    Graph g;
    NodeRef a = row.first(g);
    const size_t after_first = g.size();
    NodeRef b = row.second(g);
    const std::string expected = row.same ? "the same node" : "different nodes";
    const std::string actual = a == b ? "the same node" : "different nodes";
    EXPECT_EQ(actual, expected) << "input:    " << row.input << "\n  expected: " << expected
                                << "\n  actual:   " << actual;
    if (row.same) {
      EXPECT_EQ(g.size(), after_first) << "input: " << row.input << " (no new node for an equal one)";
    }
  }
}

TEST(GraphTest, EqualAttrsMeansEqualHash) {
  Attrs a = axes_attrs({0, 1}, true);
  Attrs b = axes_attrs({0, 1}, true);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_FALSE(value_attrs(0.0) == value_attrs(-0.0));
  const double nan = std::nan("");
  EXPECT_TRUE(value_attrs(nan) == value_attrs(nan));
  EXPECT_EQ(value_attrs(nan).hash(), value_attrs(nan).hash());
}

// An equal node made again keeps the location where it was first written.
TEST(GraphTest, SharedNodeKeepsItsFirstLocation) {
  auto file = std::make_shared<SourceFile>(SourceFile{"p.py", "a\nb\n"});
  Graph g;
  NodeRef x = x_of(g);
  NodeRef first = g.make(Op::Exp, {x}, {}, SourceLoc{file, 1, 1});
  NodeRef second = g.make(Op::Exp, {x}, {}, SourceLoc{file, 2, 1});
  ASSERT_EQ(first, second);
  EXPECT_EQ(second->loc().line, 1);
}

TEST(GraphTest, IdsFollowCreationOrder) {
  Graph g;
  EXPECT_EQ(g.size(), 0u);
  NodeRef x = x_of(g);
  NodeRef y = y_of(g);
  NodeRef sum = g.make(Op::Add, {x, y}, {});
  NodeRef again = g.make(Op::Add, {x, y}, {});  // not new: no id used
  NodeRef c = g.constant(2.0);
  NodeRef prod = g.make(Op::Mul, {sum, c}, {});
  const std::vector<std::pair<std::string, NodeRef>> rows = {
      {"x", x}, {"y", y}, {"add(x, y)", sum}, {"const 2.0", c}, {"mul(add, 2.0)", prod}};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].second->id(), static_cast<int>(i))
        << "input: " << rows[i].first << "\n  expected id: " << i << "\n  actual id:   " << rows[i].second->id();
  }
  EXPECT_EQ(again->id(), sum->id());
  EXPECT_EQ(g.size(), 5u);
}

// Checks the contract of topological_order: every reachable node exactly once,
// every input before its users.
void expect_topological(const std::vector<NodeRef>& outputs, const std::vector<NodeRef>& order,
                        const std::string& what) {
  std::unordered_map<NodeRef, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_TRUE(position.emplace(order[i], i).second) << what << ": node %" << order[i]->id() << " listed twice";
  }
  std::vector<NodeRef> stack = outputs;
  std::set<NodeRef> reachable;
  while (!stack.empty()) {
    NodeRef n = stack.back();
    stack.pop_back();
    if (!reachable.insert(n).second) continue;
    ASSERT_TRUE(position.count(n)) << what << ": reachable node %" << n->id() << " missing";
    for (NodeRef in : n->inputs()) {
      ASSERT_TRUE(position.count(in)) << what << ": input %" << in->id() << " missing";
      EXPECT_LT(position[in], position[n]) << what << ": input %" << in->id() << " after its user %" << n->id();
      stack.push_back(in);
    }
  }
  EXPECT_EQ(reachable.size(), order.size()) << what << ": unreachable nodes listed";
}

std::vector<int> ids(const std::vector<NodeRef>& nodes) {
  std::vector<int> result;
  for (NodeRef n : nodes) result.push_back(n->id());
  return result;
}

std::string ids_text(const std::vector<int>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

TEST(GraphTest, TopologicalOrder) {
  Graph g;
  NodeRef x = x_of(g);                                      // 0
  NodeRef y = y_of(g);                                      // 1
  NodeRef e = g.make(Op::Exp, {x}, {});                     // 2
  NodeRef l = g.make(Op::Log, {x}, {});                     // 3
  NodeRef diamond = g.make(Op::Add, {e, l}, {});            // 4: x reached twice
  NodeRef twice = g.make(Op::Mul, {diamond, diamond}, {});  // 5: the same input twice
  NodeRef other = g.make(Op::Sub, {y, e}, {});              // 6
  g.make(Op::Tanh, {y}, {});                                // 7: not reachable from the outputs below

  struct Row {
    std::string input;
    std::vector<NodeRef> outputs;
    std::vector<int> expected;
  };
  const std::vector<Row> rows = {
      {"x", {x}, {0}},
      {"exp(x)", {e}, {0, 2}},
      {"diamond", {diamond}, {0, 2, 3, 4}},
      {"mul(diamond, diamond)", {twice}, {0, 2, 3, 4, 5}},
      {"two outputs sharing exp(x)", {twice, other}, {0, 2, 3, 4, 5, 1, 6}},
      {"the same output twice", {other, other}, {1, 0, 2, 6}},
      {"no outputs", {}, {}},
  };
  for (const Row& row : rows) {
    const std::vector<NodeRef> order = topological_order(row.outputs);
    expect_topological(row.outputs, order, row.input);
    EXPECT_EQ(ids(order), row.expected) << "input:    " << row.input << "\n  expected: " << ids_text(row.expected)
                                        << "\n  actual:   " << ids_text(ids(order));
    EXPECT_EQ(ids(topological_order(row.outputs)), ids(order)) << "input: " << row.input << " (not deterministic)";
  }
}

// Two graphs built the same way give the same order of ids, whatever the
// addresses of their nodes.
TEST(GraphTest, TopologicalOrderIsDeterministicAcrossGraphs) {
  auto build = [](Graph& g) {
    NodeRef x = x_of(g);
    NodeRef y = y_of(g);
    std::vector<NodeRef> layer = {x, y};
    for (int i = 0; i < 50; ++i) {
      NodeRef a = g.make(i % 2 ? Op::Add : Op::Mul, {layer[i % layer.size()], layer[(i * 7) % layer.size()]}, {});
      layer.push_back(a);
    }
    return std::vector<NodeRef>{layer.back(), layer[layer.size() / 2]};
  };
  Graph g1, g2;
  std::vector<NodeRef> out1 = build(g1);
  std::vector<NodeRef> out2 = build(g2);
  std::vector<NodeRef> order1 = topological_order(out1);
  expect_topological(out1, order1, "layered graph");
  EXPECT_EQ(ids(order1), ids(topological_order(out2)));
}

TEST(GraphTest, TopologicalOrderOfADeepChainNeedsNoRecursion) {
  constexpr int kLength = 100000;
  Graph g;
  NodeRef x = g.input(0, "x", {DType::F32, {M}});
  NodeRef node = x;
  for (int i = 0; i < kLength; ++i) node = g.make(i % 2 ? Op::Neg : Op::Exp, {node}, {});
  const std::vector<NodeRef> order = topological_order({node});
  ASSERT_EQ(order.size(), static_cast<size_t>(kLength + 1));
  for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i]->id(), static_cast<int>(i));

  // A deep chain whose links also point back at the input: a wide and deep DAG.
  NodeRef wide = x;
  for (int i = 0; i < kLength; ++i) wide = g.make(Op::Add, {wide, x}, {});
  const std::vector<NodeRef> order2 = topological_order({wide, node});
  EXPECT_EQ(order2.size(), static_cast<size_t>(2 * kLength + 1));
  EXPECT_EQ(order2.front(), x);
  EXPECT_EQ(order2.back(), node);
}

TEST(GraphTest, PrintFunction) {
  Graph g;
  Function fn;
  fn.name = "softmax_matmul";
  fn.params = {Param{"x", {DType::F32, {M, K}}, {}, {}}, Param{"w", {DType::F16, {K, N}}, {}, {}}};
  NodeRef x = g.input(0, "x", fn.params[0].type);
  NodeRef w = g.input(1, "w", fn.params[1].type);
  NodeRef mm = g.make(Op::Contract, {x, w}, spec_attrs("ab,bc->ac"));
  NodeRef mx = g.make(Op::ReduceMax, {mm}, axes_attrs({1}, true));
  NodeRef e = g.make(Op::Exp, {g.make(Op::Sub, {mm, mx}, {})}, {});
  NodeRef s = g.make(Op::ReduceSum, {e}, axes_attrs({1}, true));
  NodeRef p = g.make(Op::Div, {e, s}, {});
  NodeRef half = g.make(Op::Mul, {p, g.constant(0.5)}, {});
  NodeRef scaled = g.make(Op::Div, {half, g.size_value(N)}, {});
  NodeRef sq = g.make(Op::Pow, {scaled}, value_attrs(2.0));
  NodeRef t = g.make(Op::Transpose, {sq}, axes_attrs({1, 0}));
  NodeRef pos = g.make(Op::Select, {t, g.constant(0.0), t, g.constant(-1.0)}, cmp_attrs(Cmp::Gt));
  Attrs c;
  c.axes = {0};
  NodeRef cs = g.make(Op::Cumsum, {pos}, c);
  Attrs r;
  r.sizes = {M * N};
  NodeRef flat = g.make(Op::Reshape, {cs}, r);
  fn.outputs = {flat, mx};
  fn.returns_tuple = true;

  const std::string expected =
      "kernel softmax_matmul(x: f32[M, K], w: f16[K, N])\n"
      "  %0 = einsum(\"ab,bc->ac\", x, w)                        : f32[M, N]\n"
      "  %1 = max(%0, axes=[1], keepdims)                      : f32[M, 1]\n"
      "  %2 = sub(%0, %1)                                      : f32[M, N]\n"
      "  %3 = exp(%2)                                          : f32[M, N]\n"
      "  %4 = sum(%3, axes=[1], keepdims)                      : f32[M, 1]\n"
      "  %5 = div(%3, %4)                                      : f32[M, N]\n"
      "  %6 = mul(%5, 0.5)                                     : f32[M, N]\n"
      "  %7 = div(%6, size(N))                                 : f32[M, N]\n"
      "  %8 = pow(%7, 2.0)                                     : f32[M, N]\n"
      "  %9 = transpose(%8, axes=[1, 0])                       : f32[N, M]\n"
      "  %10 = where(%9 > 0.0, %9, -1.0)                       : f32[N, M]\n"
      "  %11 = cumsum(%10, axis=0)                             : f32[N, M]\n"
      "  %12 = reshape(%11, [M*N])                             : f32[M*N]\n"
      "  return %12, %1\n";
  const std::string actual = print_function(fn);
  EXPECT_EQ(actual, expected) << "input: softmax_matmul built by hand\n  expected:\n"
                              << expected << "  actual:\n"
                              << actual;
}

TEST(GraphTest, PrintFunctionReturningAParameter) {
  Graph g;
  Function fn;
  fn.name = "identity";
  fn.params = {Param{"x", {DType::BF16, {}}, {}, {}}};
  fn.outputs = {g.input(0, "x", fn.params[0].type)};
  EXPECT_EQ(print_function(fn), "kernel identity(x: bf16[])\n  return x\n");
}

}  // namespace
}  // namespace axon::ir
