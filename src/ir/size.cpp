#include "ir/size.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

namespace axon::ir {
namespace {

using Atom = Size::Atom;
using Monomial = Size::Monomial;
using Terms = Size::Terms;

// Beyond this many terms provably_nonnegative gives up: expanding (1 + t)^k
// doubles the terms per factor, and a deterministic limit beats a slow answer.
constexpr size_t kMaxExpandedTerms = 4096;
// divide_exact terminates anyway; the cap keeps a pathological input cheap.
constexpr int kMaxDivisionSteps = 4096;

[[noreturn]] void throw_overflow(const char* op, int64_t a, int64_t b) {
  throw std::overflow_error("size arithmetic overflows int64: " + std::to_string(a) + " " + op +
                            " " + std::to_string(b));
}

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow("+", a, b);
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow("*", a, b);
  return r;
}

int64_t checked_neg(int64_t a) {
  int64_t r;
  if (__builtin_sub_overflow(int64_t{0}, a, &r)) throw_overflow("-", 0, a);
  return r;
}

// Python's //, for den > 0 (so INT64_MIN / -1 cannot arise).
int64_t floor_div(int64_t a, int64_t den) {
  int64_t q = a / den;
  if (a % den != 0 && a < 0) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t den) {
  int64_t r = a % den;
  return r < 0 ? r + den : r;
}

int sign(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int compare_sizes(const Size& a, const Size& b);

int compare_atoms(const Atom& a, const Atom& b) {
  if (a.is_name() != b.is_name()) return a.is_name() ? -1 : 1;
  if (a.is_name()) return sign(a.name.compare(b.name), 0);
  if (a.den != b.den) return sign(a.den, b.den);
  return compare_sizes(*a.numerator, *b.numerator);
}

int64_t degree(const Monomial& m) {
  int64_t d = 0;
  for (const auto& [atom, power] : m) d = checked_add(d, power);
  return d;
}

// Negative when `a` is the higher monomial. Graded lex is a true monomial
// order (compatible with multiplication), which long division relies on.
int compare_monomials(const Monomial& a, const Monomial& b) {
  int64_t da = degree(a), db = degree(b);
  if (da != db) return da > db ? -1 : 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    // The monomial holding the smaller atom has a positive exponent where the
    // other has none, so it is the higher one.
    if (int c = compare_atoms(a[i].first, b[i].first); c != 0) return c;
    if (a[i].second != b[i].second) return a[i].second > b[i].second ? -1 : 1;
  }
  return sign(static_cast<int64_t>(b.size()), static_cast<int64_t>(a.size()));
}

int compare_sizes(const Size& a, const Size& b) {
  auto ia = a.terms().begin(), ib = b.terms().begin();
  for (; ia != a.terms().end() && ib != b.terms().end(); ++ia, ++ib) {
    if (int c = compare_monomials(ia->first, ib->first); c != 0) return c;
    if (ia->second != ib->second) return sign(ia->second, ib->second);
  }
  return sign(static_cast<int64_t>(a.terms().size()), static_cast<int64_t>(b.terms().size()));
}

Monomial multiply_monomials(const Monomial& a, const Monomial& b) {
  Monomial out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : (j == b.size() ? -1 : compare_atoms(a[i].first, b[j].first));
    if (c < 0) {
      out.push_back(a[i++]);
    } else if (c > 0) {
      out.push_back(b[j++]);
    } else {
      out.emplace_back(a[i].first, checked_add(a[i].second, b[j].second));
      ++i, ++j;
    }
  }
  return out;
}

// m / d when d divides m as a monomial.
std::optional<Monomial> divide_monomials(const Monomial& m, const Monomial& d) {
  Monomial out;
  size_t i = 0;
  for (const auto& [atom, power] : d) {
    while (i < m.size() && compare_atoms(m[i].first, atom) < 0) out.push_back(m[i++]);
    if (i == m.size() || !(m[i].first == atom) || m[i].second < power) return std::nullopt;
    if (m[i].second > power) out.emplace_back(atom, m[i].second - power);
    ++i;
  }
  out.insert(out.end(), m.begin() + static_cast<std::ptrdiff_t>(i), m.end());
  return out;
}

void add_term(Terms& terms, const Monomial& m, int64_t c) {
  if (c == 0) return;
  auto [it, inserted] = terms.emplace(m, c);
  if (inserted) return;
  it->second = checked_add(it->second, c);
  if (it->second == 0) terms.erase(it);
}

Terms multiply_terms(const Terms& a, const Terms& b) {
  Terms out;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) add_term(out, multiply_monomials(ma, mb), checked_mul(ca, cb));
  return out;
}

Terms single_term(Monomial m, int64_t c) {
  Terms t;
  if (c != 0) t.emplace(std::move(m), c);
  return t;
}

bool is_constant_terms(const Terms& t) {
  return t.empty() || (t.size() == 1 && t.begin()->first.empty());
}

// The atom alone, as a Size's terms would hold it: coefficient 1, power 1.
const Atom* lone_atom(const Terms& t) {
  if (t.size() != 1 || t.begin()->second != 1) return nullptr;
  const Monomial& m = t.begin()->first;
  return m.size() == 1 && m[0].second == 1 ? &m[0].first : nullptr;
}

std::string atom_text(const Atom& atom) {
  if (atom.is_name()) return atom.name;
  const Atom* inner = lone_atom(atom.numerator->terms());
  std::string num = atom.numerator->str();
  if (inner == nullptr || !inner->is_name()) num = "(" + num + ")";
  return num + "//" + std::to_string(atom.den);
}

std::string monomial_text(const Monomial& m) {
  std::vector<std::string> factors;
  for (const auto& [atom, power] : m) {
    std::string text = atom_text(atom);
    for (int64_t p = 0; p < power; ++p) factors.push_back(text);
  }
  std::sort(factors.begin(), factors.end());
  std::string out;
  for (const std::string& f : factors) out += (out.empty() ? "" : "*") + f;
  return out;
}

std::optional<int64_t> evaluate_atom(const Atom& atom, const std::map<std::string, int64_t>& dims) {
  if (atom.is_name()) {
    auto it = dims.find(atom.name);
    if (it == dims.end()) return std::nullopt;
    return it->second;
  }
  std::optional<int64_t> num = atom.numerator->evaluate(dims);
  if (!num) return std::nullopt;
  return floor_div(*num, atom.den);
}

void collect_names(const Size& size, std::set<std::string>& out) {
  for (const auto& [m, c] : size.terms()) {
    for (const auto& [atom, power] : m) {
      if (atom.is_name())
        out.insert(atom.name);
      else
        collect_names(*atom.numerator, out);
    }
  }
}

size_t hash_combine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t hash_atom(const Atom& atom) {
  if (atom.is_name()) return std::hash<std::string>{}(atom.name);
  return hash_combine(hash_combine(0x51ed270b27c5a3f1ULL, atom.numerator->hash()),
                      std::hash<int64_t>{}(atom.den));
}

// Terms of the polynomial after substituting 1 + t for each name: it is >= 0
// for all t >= 0 when every coefficient is. Names keep their atom, now read as t.
std::optional<Terms> shift_names_by_one(const Terms& terms) {
  Terms shifted;
  for (const auto& [m, c] : terms) {
    Terms product = single_term({}, c);
    for (const auto& [atom, power] : m) {
      Terms factor = single_term({{atom, 1}}, 1);
      if (atom.is_name()) add_term(factor, {}, 1);
      for (int64_t p = 0; p < power; ++p) {
        product = multiply_terms(product, factor);
        if (product.size() > kMaxExpandedTerms) return std::nullopt;
      }
    }
    for (const auto& [pm, pc] : product) add_term(shifted, pm, pc);
    if (shifted.size() > kMaxExpandedTerms) return std::nullopt;
  }
  return shifted;
}

bool all_coefficients_nonnegative(const Terms& terms) {
  return std::all_of(terms.begin(), terms.end(), [](const auto& term) { return term.second >= 0; });
}

}  // namespace

bool Size::Atom::operator==(const Atom& other) const { return compare_atoms(*this, other) == 0; }

bool Size::MonomialOrder::operator()(const Monomial& a, const Monomial& b) const {
  return compare_monomials(a, b) < 0;
}

Size::Size(int64_t constant) : terms_(single_term({}, constant)) {}

Size Size::name(const std::string& n) {
  if (n.empty()) throw std::invalid_argument("a size name must not be empty");
  return Size(single_term({{Atom{n, nullptr, 0}, 1}}, 1));
}

Size Size::floordiv(const Size& num, int64_t den) {
  if (den <= 0) {
    throw std::invalid_argument("floordiv of " + num.str() + " by " + std::to_string(den) +
                                ": the divisor must be positive");
  }
  // floor((d*q + r) / d) == q + floor(r / d) for integer q, so whole multiples
  // of den leave every coefficient and only residues in [0, den) stay inside.
  Terms quotient, residue;
  for (const auto& [m, c] : num.terms_) {
    add_term(quotient, m, floor_div(c, den));
    add_term(residue, m, floor_mod(c, den));
  }
  Size whole(std::move(quotient));
  // A constant residue r lies in [0, den), so floor(r / den) == 0.
  if (is_constant_terms(residue)) return whole;

  // floor(g*x / (g*d)) == floor(x / d): dividing out a common factor makes
  // (2*M)//4 and M//2 the same atom.
  int64_t g = den;
  for (const auto& [m, c] : residue) g = std::gcd(g, c);
  if (g > 1) {
    for (auto& [m, c] : residue) c /= g;
    den /= g;
  }
  // floor(floor(x / a) / b) == floor(x / (a*b)) for positive integers a, b.
  if (const Atom* inner = lone_atom(residue); inner != nullptr && !inner->is_name()) {
    int64_t combined;
    if (!__builtin_mul_overflow(inner->den, den, &combined))
      return whole + floordiv(*inner->numerator, combined);
  }
  Atom atom{"", std::make_shared<const Size>(Size(std::move(residue))), den};
  return whole + Size(single_term({{std::move(atom), 1}}, 1));
}

Size operator+(const Size& a, const Size& b) {
  Terms out = a.terms_;
  for (const auto& [m, c] : b.terms_) add_term(out, m, c);
  return Size(std::move(out));
}

Size operator-(const Size& a, const Size& b) { return a + (-b); }

Size operator*(const Size& a, const Size& b) { return Size(multiply_terms(a.terms_, b.terms_)); }

Size Size::operator-() const {
  Terms out = terms_;
  for (auto& [m, c] : out) c = checked_neg(c);
  return Size(std::move(out));
}

bool Size::is_constant() const { return is_constant_terms(terms_); }

std::optional<int64_t> Size::constant() const {
  if (!is_constant()) return std::nullopt;
  return terms_.empty() ? 0 : terms_.begin()->second;
}

std::optional<Size> Size::divide_exact(const Size& d) const {
  if (d.terms_.empty()) return std::nullopt;
  // Long division by the leading term. Under a monomial order it computes
  // the quotient over the rationals term by term, highest first, so the
  // remainder is zero exactly when d divides *this; a non-integer coefficient
  // along the way means the quotient is not an integer polynomial.
  const auto& [lead_m, lead_c] = *d.terms_.begin();
  Terms remainder = terms_, quotient;
  try {
    for (int step = 0; !remainder.empty(); ++step) {
      if (step == kMaxDivisionSteps) return std::nullopt;
      const auto [m, c] = *remainder.begin();
      if (lead_c != -1 && c % lead_c != 0) return std::nullopt;
      int64_t qc = lead_c == -1 ? checked_neg(c) : c / lead_c;
      std::optional<Monomial> qm = divide_monomials(m, lead_m);
      if (!qm) return std::nullopt;
      add_term(quotient, *qm, qc);
      for (const auto& [dm, dc] : d.terms_)
        add_term(remainder, multiply_monomials(*qm, dm), checked_neg(checked_mul(qc, dc)));
    }
  } catch (const std::overflow_error&) {
    return std::nullopt;  // documented: no quotient is reported rather than a wrong one
  }
  return Size(std::move(quotient));
}

std::optional<int64_t> Size::evaluate(const std::map<std::string, int64_t>& dims) const {
  int64_t total = 0;
  for (const auto& [m, c] : terms_) {
    int64_t value = c;
    for (const auto& [atom, power] : m) {
      std::optional<int64_t> base = evaluate_atom(atom, dims);
      if (!base) return std::nullopt;
      for (int64_t p = 0; p < power; ++p) value = checked_mul(value, *base);
    }
    total = checked_add(total, value);
  }
  return total;
}

std::vector<std::string> Size::names() const {
  std::set<std::string> found;
  collect_names(*this, found);
  return {found.begin(), found.end()};
}

bool Size::provably_nonnegative() const {
  // Names are >= 1 and floordiv atoms >= 0, so every monomial is >= 0.
  if (all_coefficients_nonnegative(terms_)) return true;
  try {
    std::optional<Terms> shifted = shift_names_by_one(terms_);
    return shifted && all_coefficients_nonnegative(*shifted);
  } catch (const std::overflow_error&) {
    return false;  // unproven, which is a sound answer
  }
}

std::string Size::str() const {
  if (terms_.empty()) return "0";
  struct Printed {
    int64_t degree;
    std::string text;
    int64_t coefficient;
  };
  std::vector<Printed> printed;
  for (const auto& [m, c] : terms_) printed.push_back({degree(m), monomial_text(m), c});
  // Stable over the structural order, so even names that print alike stay
  // deterministic.
  std::stable_sort(printed.begin(), printed.end(), [](const Printed& a, const Printed& b) {
    if (a.degree != b.degree) return a.degree > b.degree;
    return a.text < b.text;
  });
  std::string out;
  for (const Printed& term : printed) {
    bool negative = term.coefficient < 0;
    if (out.empty())
      out += negative ? "-" : "";
    else
      out += negative ? " - " : " + ";
    // Unsigned, so that INT64_MIN has a magnitude.
    uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(term.coefficient)
                                  : static_cast<uint64_t>(term.coefficient);
    if (term.text.empty())
      out += std::to_string(magnitude);
    else if (magnitude == 1)
      out += term.text;
    else
      out += std::to_string(magnitude) + "*" + term.text;
  }
  return out;
}

size_t Size::hash() const {
  size_t h = 0x2545f4914f6cdd1dULL;
  for (const auto& [m, c] : terms_) {
    for (const auto& [atom, power] : m)
      h = hash_combine(hash_combine(h, hash_atom(atom)), std::hash<int64_t>{}(power));
    // Marks the end of a monomial, so M*N + 1 and M + N hash apart.
    h = hash_combine(hash_combine(h, 0x7f4a7c15ULL), std::hash<int64_t>{}(c));
  }
  return h;
}

bool operator==(const Size& a, const Size& b) { return compare_sizes(a, b) == 0; }

bool operator<(const Size& a, const Size& b) { return compare_sizes(a, b) < 0; }

std::ostream& operator<<(std::ostream& os, const Size& size) { return os << size.str(); }

}  // namespace axon::ir
