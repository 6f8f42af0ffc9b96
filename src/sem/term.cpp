#include "sem/term.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>

namespace axon::sem {
namespace {

std::shared_ptr<const Index> share(const Index& i) { return std::make_shared<const Index>(i); }

Index node(Index::Kind kind, std::vector<std::shared_ptr<const Index>> args, ir::Size poly = 0) {
  Index result;
  result.kind = kind;
  result.args = std::move(args);
  result.poly = std::move(poly);
  return result;
}

// A Size with names replaced: stays a Size while every replacement is one.
Index substitute_size(const ir::Size& size, const Substitution& subst) {
  bool touched = false, all_poly = true;
  for (const std::string& n : size.names()) {
    auto it = subst.find(n);
    if (it == subst.end()) continue;
    touched = true;
    all_poly = all_poly && it->second.is_poly();
  }
  if (!touched) return size;
  Index result(0);
  for (const auto& [monomial, coefficient] : size.terms()) {
    Index product(coefficient);
    for (const auto& [atom, power] : monomial) {
      Index factor;
      if (atom.is_name()) {
        auto it = subst.find(atom.name);
        factor = it == subst.end() ? Index(ir::Size::name(atom.name)) : it->second;
      } else {
        Index num = substitute_size(*atom.numerator, subst);
        factor = num.is_poly() ? Index(ir::Size::floordiv(num.poly, atom.den)) : Index::div(num, atom.den);
      }
      for (int64_t p = 0; p < power; ++p) product = product * factor;
    }
    result = result + product;
  }
  (void)all_poly;
  return result;
}

const char* fold_name(ir::Op op) {
  return op == ir::Op::ReduceSum ? "sum" : op == ir::Op::ReduceMax ? "max" : "min";
}

std::string number_text(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// Prints a term; bound variables are renamed to "#depth" when canonical.
class Printer {
 public:
  explicit Printer(bool canonical) : canonical_(canonical) {}

  std::string index(const Index& i) {
    Index renamed = renames_.empty() ? i : substitute(i, renames_);
    return renamed.str();
  }

  std::string text() const { return out_.str(); }

  // Writes `t` to the one stream and returns "": each level appending its own
  // text keeps printing linear in the term's size (returning each subterm's
  // text would copy it once per enclosing level). In `out << a << term(b)` the
  // operands are evaluated left to right (C++17), so the text comes out in order.
  std::string term(const TermRef& t) {
    std::ostringstream& out = out_;
    switch (t->kind) {
      case TermKind::Number: out << number_text(t->number); break;
      case TermKind::SizeNum: out << "size(" << index(t->size) << ")"; break;
      case TermKind::Read:
        out << "t" << t->tensor << '[';
        for (size_t k = 0; k < t->index.size(); ++k) out << (k ? "," : "") << index(t->index[k]);
        out << ']';
        break;
      case TermKind::Apply:
        out << ir::op_name(t->op);
        if (t->op == ir::Op::Pow) out << '{' << number_text(t->number) << '}';
        out << '(';
        for (size_t k = 0; k < t->args.size(); ++k) out << (k ? ", " : "") << term(t->args[k]);
        out << ')';
        break;
      case TermKind::Select:
        out << "where(" << term(t->args[0]) << ' ' << ir::cmp_text(t->cmp) << ' ' << term(t->args[1]) << ", "
            << term(t->args[2]) << ", " << term(t->args[3]) << ')';
        break;
      case TermKind::IndexIf:
        out << "if(" << index(t->index[0]) << " < " << index(t->size) << ", " << term(t->args[0]) << ", "
            << term(t->args[1]) << ')';
        break;
      case TermKind::Symbol: out << t->var; break;
      case TermKind::Fold: {
        std::string name = t->var;
        std::string length = index(t->size);
        // Only this fold's variable changes meaning inside it: restore just
        // that one (copying every outer rename would cost the depth per fold).
        std::optional<Index> outer;
        if (auto it = renames_.find(t->var); it != renames_.end()) outer = it->second;
        if (canonical_) {
          name = "#" + std::to_string(depth_);
          renames_[t->var] = Index::var(name);
        }
        ++depth_;
        out << fold_name(t->op) << '[' << name << '<' << length << "](" << term(t->args[0]) << ')';
        --depth_;
        if (outer)
          renames_[t->var] = *outer;
        else
          renames_.erase(t->var);
        break;
      }
    }
    return {};
  }

 private:
  std::ostringstream out_;
  bool canonical_;
  int depth_ = 0;
  Substitution renames_;
};

void collect_names(const Index& i, std::set<std::string>& names) {
  for (const std::string& n : i.poly.names()) names.insert(n);
  for (const auto& a : i.args) collect_names(*a, names);
}

}  // namespace

Index Index::div(const Index& a, const ir::Size& d) {
  if (d == ir::Size(1)) return a;
  if (a.is_poly() && d.is_constant()) return ir::Size::floordiv(a.poly, *d.constant());
  return node(Kind::Div, {share(a)}, d);
}

Index Index::mod(const Index& a, const ir::Size& d) {
  if (d == ir::Size(1)) return Index(0);
  return node(Kind::Mod, {share(a)}, d);
}

Index operator+(const Index& a, const Index& b) {
  if (a.is_poly() && b.is_poly()) return a.poly + b.poly;
  if (a.is_poly() && a.poly == ir::Size(0)) return b;
  if (b.is_poly() && b.poly == ir::Size(0)) return a;
  return node(Index::Kind::Add, {share(a), share(b)});
}

Index operator*(const Index& a, const Index& b) {
  if (a.is_poly() && b.is_poly()) return a.poly * b.poly;
  if (a.is_poly() && a.poly == ir::Size(1)) return b;
  if (b.is_poly() && b.poly == ir::Size(1)) return a;
  if ((a.is_poly() && a.poly == ir::Size(0)) || (b.is_poly() && b.poly == ir::Size(0))) return Index(0);
  return node(Index::Kind::Mul, {share(a), share(b)});
}

std::string Index::str() const {
  switch (kind) {
    case Kind::Poly: return poly.str();
    case Kind::Div: return "(" + args[0]->str() + ")//(" + poly.str() + ")";
    case Kind::Mod: return "(" + args[0]->str() + ")%(" + poly.str() + ")";
    case Kind::Add: return "(" + args[0]->str() + " + " + args[1]->str() + ")";
    case Kind::Mul: return "(" + args[0]->str() + ")*(" + args[1]->str() + ")";
  }
  return "?";
}

TermRef number(double value) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Number;
  t->number = value;
  return t;
}

TermRef size_number(const ir::Size& size) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::SizeNum;
  t->size = size;
  return t;
}

TermRef read(int tensor, std::vector<Index> index) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Read;
  t->tensor = tensor;
  t->index = std::move(index);
  return t;
}

TermRef apply(ir::Op op, std::vector<TermRef> args, double exponent) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Apply;
  t->op = op;
  t->number = exponent;
  t->args = std::move(args);
  return t;
}

TermRef select(ir::Cmp cmp, TermRef a, TermRef b, TermRef then, TermRef otherwise) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Select;
  t->cmp = cmp;
  t->args = {std::move(a), std::move(b), std::move(then), std::move(otherwise)};
  return t;
}

TermRef index_if(const Index& lhs, const ir::Size& bound, TermRef then, TermRef otherwise) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::IndexIf;
  t->index = {lhs};
  t->size = bound;
  t->args = {std::move(then), std::move(otherwise)};
  return t;
}

TermRef fold(ir::Op op, const std::string& var, const ir::Size& length, TermRef body) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Fold;
  t->op = op;
  t->var = var;
  t->size = length;
  t->args = {std::move(body)};
  return t;
}

TermRef symbol(const std::string& name) {
  auto t = std::make_shared<Term>();
  t->kind = TermKind::Symbol;
  t->var = name;
  return t;
}

Index substitute(const Index& index, const Substitution& subst) {
  switch (index.kind) {
    case Index::Kind::Poly: return substitute_size(index.poly, subst);
    case Index::Kind::Div: return Index::div(substitute(*index.args[0], subst), index.poly);
    case Index::Kind::Mod: return Index::mod(substitute(*index.args[0], subst), index.poly);
    case Index::Kind::Add: return substitute(*index.args[0], subst) + substitute(*index.args[1], subst);
    case Index::Kind::Mul: return substitute(*index.args[0], subst) * substitute(*index.args[1], subst);
  }
  return index;
}

TermRef substitute(const TermRef& term, const Substitution& subst) {
  auto t = std::make_shared<Term>(*term);
  for (Index& i : t->index) i = substitute(i, subst);
  if (t->kind == TermKind::SizeNum || t->kind == TermKind::IndexIf || t->kind == TermKind::Fold) {
    Index s = substitute(Index(t->size), subst);
    AXON_CHECK(s.is_poly(), "sizes and bounds stay polynomial under substitution");
    t->size = s.poly;
  }
  if (t->kind == TermKind::Fold && subst.count(t->var)) {  // the bound variable shadows
    Substitution inner = subst;
    inner.erase(t->var);
    t->args[0] = substitute(t->args[0], inner);
    return t;
  }
  for (TermRef& a : t->args) a = substitute(a, subst);
  return t;
}

std::string canonical(const TermRef& term) {
  Printer printer(true);
  printer.term(term);
  return printer.text();
}

std::string str(const TermRef& term) {
  Printer printer(false);
  printer.term(term);
  return printer.text();
}

std::set<std::string> free_names(const Index& index) {
  std::set<std::string> names;
  collect_names(index, names);
  return names;
}

std::set<std::string> free_names(const TermRef& term) {
  std::set<std::string> names;
  for (const Index& i : term->index) collect_names(i, names);
  if (term->kind == TermKind::SizeNum || term->kind == TermKind::IndexIf || term->kind == TermKind::Fold)
    for (const std::string& n : term->size.names()) names.insert(n);
  for (const TermRef& a : term->args)
    for (const std::string& n : free_names(a)) names.insert(n);
  if (term->kind == TermKind::Fold) {
    std::set<std::string> body = free_names(term->args[0]);
    body.erase(term->var);
    for (const Index& i : term->index) collect_names(i, body);
    for (const std::string& n : term->size.names()) body.insert(n);
    return body;
  }
  return names;
}

}  // namespace axon::sem
