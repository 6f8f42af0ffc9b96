// Encoding of sem Terms into Z3: tensors are uninterpreted functions from
// integer indices to reals, sizes and indices are integers, transcendentals
// and the reciprocal are uninterpreted, and every fold (a reduction of
// unknown length) is abstracted as an uninterpreted function of its free
// names, shared by alpha-equivalent folds.
#pragma once

#include <z3++.h>

#include <map>
#include <string>
#include <vector>

#include "sem/term.h"

namespace axon::smt {

class Encoder {
 public:
  explicit Encoder(z3::context& ctx);

  z3::expr index(const sem::Index& index);
  z3::expr term(const sem::TermRef& term);
  z3::expr size(const ir::Size& size) { return index(sem::Index(size)); }
  z3::context& ctx() { return ctx_; }

  /// Every size seen so far is >= 1.
  std::vector<z3::expr> size_constraints() const;

  // The primitive functions, for the facts file.
  z3::func_decl exp_fn, log_fn, sqrt_fn, tanh_fn, recip_fn;
  /// Whether any term encoded so far applied one of them (then facts may help).
  bool uses_primitives = false;

 private:
  z3::expr integer(const std::string& name);
  z3::expr apply(const sem::TermRef& t);
  z3::expr fold(const sem::TermRef& t);
  z3::expr real(double value);

  z3::context& ctx_;
  std::map<std::string, z3::expr> integers_;
  std::map<int, z3::func_decl> tensors_;
  std::map<std::string, z3::func_decl> folds_;
  std::map<std::string, z3::func_decl> powers_;
  std::map<std::string, z3::expr> symbols_;
};

/// The free names of a term in order of first occurrence (deterministic).
std::vector<std::string> ordered_free_names(const sem::TermRef& term);

}  // namespace axon::smt
