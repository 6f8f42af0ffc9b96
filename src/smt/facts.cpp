#include "smt/facts.h"

#include <cmath>

namespace axon::smt {
namespace {

// forall xs. body, with E-matching patterns (each pattern a term over xs).
z3::expr quantified(z3::context& ctx, const std::vector<z3::expr>& xs, const std::vector<z3::expr>& patterns,
                const z3::expr& body) {
  std::vector<Z3_app> bound;
  for (const z3::expr& x : xs) bound.push_back(reinterpret_cast<Z3_app>(static_cast<Z3_ast>(x)));
  std::vector<Z3_ast> terms;
  for (const z3::expr& p : patterns) terms.push_back(p);
  Z3_pattern pattern = Z3_mk_pattern(ctx, static_cast<unsigned>(terms.size()), terms.data());
  Z3_ast q = Z3_mk_forall_const(ctx, 0, static_cast<unsigned>(bound.size()), bound.data(), 1, &pattern, body);
  ctx.check_error();
  return z3::expr(ctx, q);
}

bool close(double x, double y) { return std::fabs(x - y) <= 1e-9 * (1.0 + std::fabs(x) + std::fabs(y)); }

}  // namespace

const std::vector<Fact>& primitive_facts() {
  static const std::vector<Fact> facts = {
      {"exp_positive", "exp(a) > 0",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.exp_fn(a)}, e.exp_fn(a) > 0);
       },
       [](double a, double) { return std::exp(a) > 0 || std::exp(a) == 0.0; }},  // underflow rounds to 0
      {"exp_zero", "exp(0) = 1", [](z3::context& c, Encoder& e) { return e.exp_fn(c.real_val(0)) == 1; },
       [](double, double) { return std::exp(0.0) == 1.0; }},
      {"exp_add", "exp(a + b) = exp(a) * exp(b)",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a"), b = c.real_const("b");
         return quantified(c, {a, b}, {e.exp_fn(a + b)}, e.exp_fn(a + b) == e.exp_fn(a) * e.exp_fn(b));
       },
       [](double a, double b) { return close(std::exp(a + b), std::exp(a) * std::exp(b)); }},
      {"exp_sub", "exp(a - b) = exp(a) * recip(exp(b))",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a"), b = c.real_const("b");
         return quantified(c, {a, b}, {e.exp_fn(a - b)}, e.exp_fn(a - b) == e.exp_fn(a) * e.recip_fn(e.exp_fn(b)));
       },
       [](double a, double b) { return close(std::exp(a - b), std::exp(a) * (1.0 / std::exp(b))); }},
      {"recip_inverse", "a != 0 -> a * recip(a) = 1",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.recip_fn(a)}, z3::implies(a != 0, a * e.recip_fn(a) == 1));
       },
       [](double a, double) { return a == 0 || close(a * (1.0 / a), 1.0); }},
      {"recip_product", "a != 0 and b != 0 -> recip(a * b) = recip(a) * recip(b)",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a"), b = c.real_const("b");
         return quantified(c, {a, b}, {e.recip_fn(a * b)},
                       z3::implies(a != 0 && b != 0, e.recip_fn(a * b) == e.recip_fn(a) * e.recip_fn(b)));
       },
       [](double a, double b) { return a == 0 || b == 0 || close(1.0 / (a * b), (1.0 / a) * (1.0 / b)); }},
      {"recip_positive", "a > 0 -> recip(a) > 0",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.recip_fn(a)}, z3::implies(a > 0, e.recip_fn(a) > 0));
       },
       [](double a, double) { return a <= 0 || 1.0 / a > 0; }},
      {"sqrt_square", "a >= 0 -> sqrt(a) >= 0 and sqrt(a) * sqrt(a) = a",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.sqrt_fn(a)},
                       z3::implies(a >= 0, e.sqrt_fn(a) >= 0 && e.sqrt_fn(a) * e.sqrt_fn(a) == a));
       },
       [](double a, double) { return a < 0 || (std::sqrt(a) >= 0 && close(std::sqrt(a) * std::sqrt(a), a)); }},
      {"tanh_odd", "tanh(-a) = -tanh(a)",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.tanh_fn(-a)}, e.tanh_fn(-a) == -e.tanh_fn(a));
       },
       [](double a, double) { return close(std::tanh(-a), -std::tanh(a)); }},
      {"log_exp", "log(exp(a)) = a",
       [](z3::context& c, Encoder& e) {
         z3::expr a = c.real_const("a");
         return quantified(c, {a}, {e.log_fn(e.exp_fn(a))}, e.log_fn(e.exp_fn(a)) == a);
       },
       [](double a, double) { return std::fabs(a) > 700 || close(std::log(std::exp(a)), a); }},
  };
  return facts;
}

}  // namespace axon::smt
