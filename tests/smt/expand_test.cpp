// The expanded normal form (src/smt/expand.h), the sign analysis
// (src/smt/sign.h) and the ground lemmas (src/smt/lemmas.h): each law on a
// small term, the sign rules that let the prover divide, and the ones it must
// not claim (a square may be 0; recip(0) is unknown).
#include "smt/expand.h"

#include <gtest/gtest.h>
#include <z3++.h>

#include "smt/lemmas.h"
#include "smt/sign.h"

namespace axon::smt {
namespace {

using sem::Index;
using sem::TermRef;

TermRef x_at(const std::string& var) {
  return sem::read(0, {Index::var("$0"), Index::var(var)});
}
TermRef a_row() {
  return sem::read(1, {Index::var("$0")});
}
TermRef sum_over(const std::string& var, const ir::Size& length, TermRef body) {
  return sem::fold(ir::Op::ReduceSum, var, length, std::move(body));
}
ir::Size N() {
  return ir::Size::name("N");
}
ir::Size K() {
  return ir::Size::name("K");
}

TEST(SmtExpand, SumOfConstantIsLengthTimesValue) {
  TermRef s = expanded_normal_form(sum_over("$1", N(), a_row()));
  EXPECT_EQ(sem::str(s), sem::str(expanded_normal_form(sem::apply(ir::Op::Mul, {sem::size_number(N()), a_row()}))));
  EXPECT_EQ(sem::str(s).find("sum"), std::string::npos) << sem::str(s);
}

TEST(SmtExpand, ConstantLengthIsUnrolled) {
  TermRef s = expanded_normal_form(sum_over("$1", 3, x_at("$1")));
  std::string text = sem::str(s);
  EXPECT_EQ(text.find("sum"), std::string::npos) << text;
  for (const char* at : {"t0[$0,0]", "t0[$0,1]", "t0[$0,2]"}) EXPECT_NE(text.find(at), std::string::npos) << text;
}

TEST(SmtExpand, SumOverConcatenationSplits) {
  // sum_{j < N + K} (j < N ? x[i, j] : y[i, j - N])
  TermRef body = sem::index_if(Index::var("$1"), N(), x_at("$1"),
                               sem::read(2, {Index::var("$0"), Index::var("$1") + Index(-N())}));
  std::string text = sem::str(expanded_normal_form(sum_over("$1", N() + K(), body)));
  EXPECT_EQ(text.find("if("), std::string::npos) << text;
  EXPECT_NE(text.find("sum[$1<N](t0[$0,$1])"), std::string::npos) << text;
  EXPECT_NE(text.find("sum[$1<K](t2[$0,$1])"), std::string::npos) << text;
}

TEST(SmtExpand, SplitNeedsAnEvidentSplitPoint) {
  // The split point N lies in [0, K] only for some sizes: no split.
  TermRef body = sem::index_if(Index::var("$1"), N(), x_at("$1"), a_row());
  std::string text = sem::str(expanded_normal_form(sum_over("$1", K(), body)));
  EXPECT_NE(text.find("if("), std::string::npos) << text;
}

TEST(SmtExpand, LinearityPullsOutWhatTheVariableDoesNotReach) {
  TermRef body = sem::apply(ir::Op::Mul, {a_row(), sem::apply(ir::Op::Add, {x_at("$1"), sem::number(2.0)})});
  std::string text = sem::str(expanded_normal_form(sum_over("$1", N(), body)));
  EXPECT_NE(text.find("sum[$1<N](t0[$0,$1])"), std::string::npos) << text;
}

TEST(SmtExpand, ExpOfDifferenceIsQuotient) {
  TermRef e = sem::apply(ir::Op::Exp, {sem::apply(ir::Op::Sub, {x_at("$1"), a_row()})});
  std::string text = sem::str(expanded_normal_form(e));
  EXPECT_NE(text.find("recip(exp(t1[$0]))"), std::string::npos) << text;
}

TEST(SmtSign, EvidentSigns) {
  TermRef x = x_at("$1");
  TermRef square = sem::apply(ir::Op::Mul, {x, x});
  EXPECT_TRUE(sign_of(square).nonnegative);
  EXPECT_FALSE(sign_of(square).nonzero()) << "x * x may be 0";
  EXPECT_TRUE(sign_of(sem::apply(ir::Op::Add, {square, sem::number(1e-6)})).positive);
  EXPECT_FALSE(sign_of(sem::apply(ir::Op::Add, {square, sem::number(-1e-6)})).nonzero());
  EXPECT_TRUE(sign_of(sem::apply(ir::Op::Exp, {x})).positive);
  EXPECT_TRUE(sign_of(sum_over("$1", N(), sem::apply(ir::Op::Exp, {x}))).positive);
  EXPECT_FALSE(sign_of(sum_over("$1", N() - 1, sem::apply(ir::Op::Exp, {x}))).positive) << "N - 1 may be 0";
  EXPECT_FALSE(sign_of(sem::apply(ir::Op::Recip, {square})).nonnegative) << "recip(0) is unknown";
  EXPECT_TRUE(sign_of(sem::apply(ir::Op::Sqrt, {sem::apply(ir::Op::Add, {square, sem::number(0.5)})})).positive);
  EXPECT_FALSE(sign_of(sem::apply(ir::Op::Sqrt, {x})).nonnegative);
  EXPECT_TRUE(sign_of(sem::apply(ir::Op::Neg, {sem::apply(ir::Op::Exp, {x})})).negative);
}

TEST(SmtLemmas, OnlyEvidentDivisorsGetInverses) {
  z3::context ctx;
  Encoder enc(ctx);
  TermRef x = x_at("$1");
  TermRef over_exp = sem::apply(ir::Op::Div, {x, sem::apply(ir::Op::Exp, {x})});
  TermRef over_x = sem::apply(ir::Op::Div, {x, x});
  EXPECT_FALSE(ground_lemmas({over_exp}, enc).empty());
  EXPECT_TRUE(ground_lemmas({over_x}, enc).empty()) << "x may be 0";
  // With the lemmas, x / x = 1 is still not provable.
  z3::solver solver(ctx);
  for (const z3::expr& l : ground_lemmas({over_x, over_exp}, enc)) solver.add(l);
  solver.add(enc.term(over_x) != 1);
  EXPECT_EQ(solver.check(), z3::sat);
}

}  // namespace
}  // namespace axon::smt
