// The declared facts about primitive functions (src/smt/facts.cpp): each one
// holds numerically at many points, and each axiom builds and is satisfiable,
// alone and all together (a false or inconsistent fact would let the prover
// prove anything).
#include "smt/facts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace axon::smt {
namespace {

// Special values: zero, units, small and large magnitudes. The largest stay
// where the doubles in every fact's check remain finite (exp(300 + 300) is
// about 1e260, 1e150 squared is 1e300).
std::vector<double> special_values() {
  std::vector<double> v = {0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-8, -1e-8, 1e-150, -1e-150, 20.0, -20.0,
                           100.0, -100.0, 300.0, -300.0, 1e6, -1e6, 1e150, -1e150};
  return v;
}

// The (a, b) points a fact is checked at: every pair of special values, then
// seeded uniform points in [-20, 20] and log-uniform magnitudes.
std::vector<std::pair<double, double>> sample_points(uint64_t seed) {
  std::vector<std::pair<double, double>> points;
  std::vector<double> special = special_values();
  for (double a : special)
    for (double b : special) points.push_back({a, b});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-20.0, 20.0), exponent(-30.0, 30.0);
  std::bernoulli_distribution sign(0.5);
  for (int i = 0; i < 4000; ++i) points.push_back({uniform(rng), uniform(rng)});
  auto magnitude = [&] { return (sign(rng) ? 1.0 : -1.0) * std::pow(10.0, exponent(rng)); };
  for (int i = 0; i < 2000; ++i) points.push_back({magnitude(), magnitude()});
  return points;
}

// Exp facts at log-uniform magnitudes overflow double (exp(700) is inf, and
// holds() does not count inf == inf as close); such points test floating
// point, not the fact: exp arguments stay within |a|, |b| <= 300.
bool exp_overflows(const Fact& fact, double a, double b) {
  if (fact.name.rfind("exp", 0) != 0 && fact.name != "log_exp") return false;
  return std::fabs(a) > 300 || std::fabs(b) > 300;
}

// Quantified problems over uninterpreted functions rarely get a definite
// "sat" from Z3 (model finding for the quantifiers may not finish); what the
// checks below demand is that Z3 never answers "unsat". A short limit keeps
// the suite fast; "unknown" is reported, not failed.
constexpr unsigned kTimeoutMs = 1000;

// A solver with the test's time limit.
z3::solver timed_solver(z3::context& ctx) {
  z3::solver solver(ctx);
  z3::params p(ctx);
  p.set("timeout", kTimeoutMs);
  solver.set(p);
  return solver;
}

const char* result_name(z3::check_result r) { return r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown"; }

TEST(SmtFacts, ListIsNonEmptyWithDistinctNames) {
  const std::vector<Fact>& facts = primitive_facts();
  ASSERT_FALSE(facts.empty());
  std::set<std::string> names;
  for (const Fact& f : facts) {
    EXPECT_TRUE(names.insert(f.name).second) << "duplicate fact " << f.name;
    EXPECT_FALSE(f.statement.empty()) << f.name;
    EXPECT_TRUE(static_cast<bool>(f.axiom)) << f.name;
    EXPECT_TRUE(static_cast<bool>(f.holds)) << f.name;
  }
}

TEST(SmtFacts, EachHoldsAtSeededRandomAndSpecialPoints) {
  std::vector<std::pair<double, double>> points = sample_points(20240611);
  for (const Fact& fact : primitive_facts()) {
    int checked = 0, failures = 0;
    for (const auto& [a, b] : points) {
      if (exp_overflows(fact, a, b)) continue;
      ++checked;
      if (!fact.holds(a, b)) {
        if (++failures <= 5)
          ADD_FAILURE() << fact.name << " (" << fact.statement << ") fails at a = " << a << ", b = " << b;
      }
    }
    EXPECT_EQ(failures, 0) << fact.name;
    EXPECT_GE(checked, 3000) << fact.name;
    std::cout << "  " << fact.name << ": " << checked << " points" << std::endl;
  }
}

TEST(SmtFacts, EachAxiomBuildsAndIsSatisfiableAlone) {
  for (const Fact& fact : primitive_facts()) {
    z3::context ctx;
    Encoder enc(ctx);
    try {
      z3::expr axiom = fact.axiom(ctx, enc);
      EXPECT_TRUE(axiom.is_bool()) << fact.name;
      z3::solver solver = timed_solver(ctx);
      solver.add(axiom);
      z3::check_result r = solver.check();
      EXPECT_NE(r, z3::unsat) << fact.name << " (" << fact.statement << ") is unsatisfiable on its own";
      std::cout << "  " << fact.name << " alone: " << result_name(r) << std::endl;
    } catch (const z3::exception& e) {
      ADD_FAILURE() << fact.name << ": Z3 exception " << e.msg();
    }
  }
}

TEST(SmtFacts, AllAxiomsTogetherAreConsistent) {
  z3::context ctx;
  Encoder enc(ctx);
  z3::solver solver = timed_solver(ctx);
  for (const Fact& fact : primitive_facts()) solver.add(fact.axiom(ctx, enc));
  z3::check_result r = solver.check();
  EXPECT_NE(r, z3::unsat) << "the declared facts contradict each other";
  std::cout << "  all facts together: " << result_name(r) << std::endl;
}

// Things the facts must not imply (each is false for the real functions).
TEST(SmtFacts, DoNotImplyFalseClaims) {
  struct Claim {
    const char* text;
    std::function<z3::expr(z3::context&, Encoder&)> build;
  };
  std::vector<Claim> claims = {
      {"exp(x) = 1 for all x", [](z3::context& c, Encoder& e) { return e.exp_fn(c.real_const("x")) == 1; }},
      {"exp(x) = x", [](z3::context& c, Encoder& e) { return e.exp_fn(c.real_const("x")) == c.real_const("x"); }},
      {"log(x * y) = log(x) + log(y)",
       [](z3::context& c, Encoder& e) {
         z3::expr x = c.real_const("x"), y = c.real_const("y");
         return e.log_fn(x * y) == e.log_fn(x) + e.log_fn(y);
       }},
      {"0 * recip(0) = 1",
       [](z3::context& c, Encoder& e) { return c.real_val(0) * e.recip_fn(c.real_val(0)) == 1; }},
      {"sqrt(x * x) = x", [](z3::context& c, Encoder& e) {
         z3::expr x = c.real_const("x");
         return e.sqrt_fn(x * x) == x;
       }},
      {"tanh(x) = x", [](z3::context& c, Encoder& e) {
         z3::expr x = c.real_const("x");
         return e.tanh_fn(x) == x;
       }},
  };
  for (const Claim& claim : claims) {
    z3::context ctx;
    Encoder enc(ctx);
    z3::solver solver = timed_solver(ctx);
    for (const Fact& fact : primitive_facts()) solver.add(fact.axiom(ctx, enc));
    solver.add(!claim.build(ctx, enc));
    EXPECT_NE(solver.check(), z3::unsat) << "the facts imply " << claim.text;
  }
}

}  // namespace
}  // namespace axon::smt
