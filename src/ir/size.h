// Symbolic integer sizes: the one expression type for shapes, indices and tile
// sizes (STYLE.md rule 5).
//
// A Size is a polynomial with int64 coefficients over atoms. An atom is either
// a name (an unknown integer >= 1, such as "M") or a floor division
// floor(num / den) of another Size by a positive constant. The polynomial is
// kept in a canonical form, so == compares the mathematics structurally:
// M + N == N + M and (M + 1) * (M - 1) == M*M - 1. Equal functions may still
// compare unequal when only floor-division reasoning could show it; passes that
// need more than structure should ask the prover.
//
// All arithmetic is checked: an int64 overflow throws std::overflow_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace axon::ir {

class Size {
 public:
  /// One variable of the polynomial. A name when `numerator` is null,
  /// otherwise floor(*numerator / den) with den >= 2. A floordiv atom's
  /// numerator is never constant and all its coefficients lie in [0, den), so
  /// its value is >= 0 whenever every name is >= 1.
  struct Atom {
    std::string name;
    std::shared_ptr<const Size> numerator;
    int64_t den = 0;

    bool is_name() const { return numerator == nullptr; }
    bool operator==(const Atom& other) const;
  };
  /// Sorted by atom, each atom once, every power >= 1; empty for the constant.
  using Monomial = std::vector<std::pair<Atom, int64_t>>;
  /// Graded lexicographic order, higher monomials first: the first term of a
  /// Size is its leading term and the constant comes last.
  struct MonomialOrder {
    bool operator()(const Monomial& a, const Monomial& b) const;
  };
  /// Every coefficient is nonzero.
  using Terms = std::map<Monomial, int64_t, MonomialOrder>;

  Size() = default;        // the constant 0
  Size(int64_t constant);  // NOLINT(google-explicit-constructor): `M + 1` should read as math

  /// A symbolic size. Throws std::invalid_argument when `n` is empty.
  static Size name(const std::string& n);

  /// floor(num / den) with Python semantics. Throws std::invalid_argument when
  /// den <= 0. Whole multiples of den are taken out of every coefficient, so
  /// (4*M + 2)//2 == 2*M + 1, (M + 3)//2 == (M + 1)//2 + 1 and -7//2 == -4; what
  /// remains becomes an atom printed like "(M + 1)//2".
  static Size floordiv(const Size& num, int64_t den);

  friend Size operator+(const Size& a, const Size& b);
  friend Size operator-(const Size& a, const Size& b);
  friend Size operator*(const Size& a, const Size& b);
  Size operator-() const;

  bool is_constant() const;
  std::optional<int64_t> constant() const;

  /// The q with q * d == *this as polynomials over the atoms, e.g.
  /// (2*M*N + 2*M).divide_exact(2*M) == N + 1. nullopt when no such q exists,
  /// when d is 0, or when computing q would overflow.
  std::optional<Size> divide_exact(const Size& d) const;

  /// The value for concrete names; nullopt when a name is missing from dims.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t>& dims) const;

  /// Every name used, also inside floordiv atoms; sorted and unique.
  std::vector<std::string> names() const;

  /// True only when the value is >= 0 for all names >= 1. Sound but
  /// incomplete: false means "not proven".
  bool provably_nonnegative() const;

  /// Canonical text: terms by descending degree, then by text, constant last;
  /// powers repeat the factor ("M*M"), e.g. "M*N - K + 3" or "(M + 1)//2".
  std::string str() const;
  size_t hash() const;
  const Terms& terms() const { return terms_; }

  friend bool operator==(const Size& a, const Size& b);
  friend bool operator!=(const Size& a, const Size& b) { return !(a == b); }
  /// A deterministic total order, unrelated to the numeric values.
  friend bool operator<(const Size& a, const Size& b);

 private:
  explicit Size(Terms terms) : terms_(std::move(terms)) {}

  Terms terms_;
};

std::ostream& operator<<(std::ostream& os, const Size& size);

}  // namespace axon::ir

template <>
struct std::hash<axon::ir::Size> {
  size_t operator()(const axon::ir::Size& size) const { return size.hash(); }
};
