// Lowering: runs the program symbolically, building IR for its tensor
// operations. Helpers are inlined at each call; numbers and sizes fold.
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "lang/load.h"
#include "lang/numpy_api.h"
#include "lang/parser.h"

namespace axon::lang {
namespace {

using K = Value::Kind;

constexpr size_t kMaxCallDepth = 64;

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

SourceLoc shifted(const SourceLoc& loc, size_t offset) {
  SourceLoc result = loc;
  result.col += 1 + static_cast<int>(offset);  // past the opening quote
  return result;
}

std::string trim(const std::string& s, size_t& offset) {
  size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) {
    offset += s.size();
    return "";
  }
  size_t end = s.find_last_not_of(" \t");
  offset += begin;
  return s.substr(begin, end - begin + 1);
}

struct Scope {
  std::map<std::string, Value> names;
};

class Lowerer {
 public:
  Lowerer(Module module, SourceLoc entry_loc, ParamValues params)
      : module_(std::move(module)),
        graph_(std::make_shared<ir::Graph>()),
        builder_(*graph_),
        entry_loc_(std::move(entry_loc)),
        params_(std::move(params)) {}

  ir::Program run(const std::optional<std::string>& entry) {
    ir::Program program;
    program.graph = graph_;
    program.source = module_.file;
    collect_globals(program);
    const FunctionDef* kernel = choose_kernel(entry);
    program.kernel = lower_kernel(*kernel);
    return program;
  }

 private:
  // ---- module level ----
  void collect_globals(ir::Program& program) {
    Scope scope;
    for (const StmtPtr& s : module_.body) {
      switch (s->kind) {
        case StmtKind::Import: globals_[s->alias] = Value::of(K::Module, s->text); break;
        case StmtKind::Def:
          functions_[s->def->name] = s->def.get();
          globals_[s->def->name] = Value::of(K::Function, s->def->name);
          order_.push_back(s->def.get());
          break;
        case StmtKind::Assign:
          if (s->targets.size() == 1 && s->targets[0]->kind == ExprKind::Name && s->targets[0]->text == "SIZES") {
            program.size_presets = size_presets(*s->value);
            break;
          }
          [[fallthrough]];
        case StmtKind::AugAssign: statement(*s, scope); break;
        case StmtKind::Pass: break;
        case StmtKind::Expr:
          if (s->value->kind == ExprKind::String) break;  // a docstring
          error(s->loc, "only imports, defs, constants and docstrings may appear at the top level");
        case StmtKind::Return: error(s->loc, "'return' outside a function");
        case StmtKind::If:
          error(s->loc, "'if' at the top level of the file is not supported; put it inside the kernel");
      }
      for (auto& [name, value] : scope.names) globals_[name] = value;
      scope.names.clear();
    }
  }

  std::map<std::string, ir::Dims> size_presets(const Expr& dict) {
    if (dict.kind != ExprKind::Dict)
      error(dict.loc, "SIZES must be a dict literal like {\"test\": {\"M\": 32}, \"bench\": {\"M\": 4096}}");
    std::map<std::string, ir::Dims> presets;
    for (size_t i = 0; i + 1 < dict.args.size(); i += 2) {
      const Expr& key = *dict.args[i];
      const Expr& value = *dict.args[i + 1];
      if (key.kind != ExprKind::String) error(key.loc, "SIZES keys must be strings such as \"test\" and \"bench\"");
      if (value.kind != ExprKind::Dict) error(value.loc, "SIZES[\"" + key.text + "\"] must be a dict of sizes");
      ir::Dims& dims = presets[key.text];
      for (size_t j = 0; j + 1 < value.args.size(); j += 2) {
        const Expr& name = *value.args[j];
        const Expr& size = *value.args[j + 1];
        if (name.kind != ExprKind::String || !is_identifier(name.text))
          error(name.loc, "size names in SIZES must be strings holding identifiers");
        if (size.kind != ExprKind::Int) error(size.loc, "the size of '" + name.text + "' must be a positive integer");
        errno = 0;
        long long n = std::strtoll(size.text.c_str(), nullptr, 10);
        if (errno || n < 1) error(size.loc, "the size of '" + name.text + "' must be a positive integer");
        dims[name.text] = n;
      }
    }
    return presets;
  }

  const FunctionDef* choose_kernel(const std::optional<std::string>& entry) {
    if (order_.empty()) error({module_.file, 1, 1}, "the file defines no kernel (no 'def')");
    if (!entry) return order_.back();
    auto it = functions_.find(*entry);
    if (it != functions_.end()) return it->second;
    std::string known;
    for (const FunctionDef* f : order_) known += (known.empty() ? "" : ", ") + f->name;
    error(entry_loc_.known() ? entry_loc_ : SourceLoc{module_.file, 1, 1},
          "no function named '" + *entry + "' in " + module_.file->path + " (it defines: " + known + ")");
  }

  ir::Function lower_kernel(const FunctionDef& def) {
    ir::Function fn;
    fn.name = def.name;
    fn.loc = def.loc;
    Scope scope;
    std::set<std::string> settings;
    for (const Param& p : def.params) {
      if (!is_setting(p)) {
        ir::Param param{p.name, parse_annotation(p.annotation->text, p.annotation->loc), p.loc, p.annotation->loc};
        auto index = static_cast<int64_t>(fn.params.size());
        scope.names[p.name] = Value::tensor(graph_->input(index, p.name, param.type, p.loc));
        fn.params.push_back(param);
        continue;
      }
      Value v = setting_value(p);
      settings.insert(p.name);
      scope.names[p.name] = v;
      fn.settings.push_back({p.name, python_text(v), p.loc});
    }
    for (const auto& [name, given] : params_)
      if (!settings.count(name))
        error(given.loc, "kernel '" + def.name + "' has no non-tensor parameter named '" + name + "'");
    call_stack_.push_back(def.name);
    std::optional<Value> result = body(def, scope);
    call_stack_.pop_back();
    if (!result || result->is(K::None)) error(def.loc, "kernel '" + def.name + "' does not return a value");
    SourceLoc where = result_loc_;
    if (result->is(K::Tuple)) {
      fn.returns_tuple = true;
      if (result->items.empty()) error(where, "kernel '" + def.name + "' returns an empty tuple");
      for (const Value& v : result->items) fn.outputs.push_back(builder_.tensor({v, where}, "a returned value"));
    } else {
      fn.outputs.push_back(builder_.tensor({*result, where}, "the returned value"));
    }
    if (def.returns) check_return(def, fn);
    return fn;
  }

  // ---- non-tensor parameters ----
  // A kernel parameter is a tensor when its annotation is a string
  // ("f32[M, N]"); annotated int, float or bool, or unannotated with a
  // default, it is a setting, fixed when the kernel is built.
  static bool is_setting(const Param& p) {
    if (p.annotation && p.annotation->kind == ExprKind::String) return false;
    if (p.annotation && p.annotation->kind == ExprKind::Name &&
        (p.annotation->text == "int" || p.annotation->text == "float" || p.annotation->text == "bool"))
      return true;
    if (p.annotation)
      error(p.annotation->loc, "kernel parameter '" + p.name +
                                   "' needs a tensor annotation string such as \"f32[M, N]\", or int, float or bool "
                                   "with a default value");
    if (!p.default_value)
      error(p.loc, "kernel parameter '" + p.name + "' needs a type annotation string such as \"f32[M, N]\"");
    return true;
  }

  // The setting's value: the one given (--param), else the default, checked
  // against the annotation as Python would convert it.
  Value setting_value(const Param& p) {
    std::string type = p.annotation ? p.annotation->text : "";
    Value v;
    SourceLoc where;
    if (auto it = params_.find(p.name); it != params_.end()) {
      where = it->second.loc;
      v = parse_setting(it->second, type.empty() ? kind_name(eval_global(*p.default_value)) : type, p.name);
    } else if (p.default_value) {
      where = p.default_value->loc;
      v = eval_global(*p.default_value);
    } else {
      error(p.loc, "kernel parameter '" + p.name + ": " + type +
                       "' needs a default value (non-tensor parameters are fixed when the kernel is built; "
                       "give one with --param " +
                       p.name + "=VALUE)");
    }
    if (v.is(K::None) || type.empty()) {
      if (!v.is(K::None) && !v.is(K::Int) && !v.is(K::Float) && !v.is(K::Bool))
        error(where, "the default of kernel parameter '" + p.name + "' must be a number, True, False or None, not " +
                         v.describe());
      if (v.is(K::Int) && !v.size.is_constant()) error(where, "the default of '" + p.name + "' must be a constant");
      return v;
    }
    if (type == "float" && (v.is(K::Int) && v.size.is_constant())) return Value::real(*v.known_number());
    bool fits = (type == "float" && v.is(K::Float)) || (type == "int" && v.is(K::Int) && v.size.is_constant()) ||
                (type == "bool" && v.is(K::Bool));
    if (!fits) error(where, "kernel parameter '" + p.name + ": " + type + "' cannot be " + v.describe());
    return v;
  }

  static std::string kind_name(const Value& v) {
    if (v.is(K::Int)) return "int";
    if (v.is(K::Bool)) return "bool";
    return "float";
  }

  static Value parse_setting(const ParamValue& given, const std::string& type, const std::string& name) {
    const std::string& t = given.text;
    if (type == "bool") {
      if (t == "True" || t == "true" || t == "1") return boolean_value(true);
      if (t == "False" || t == "false" || t == "0") return boolean_value(false);
    } else if (!t.empty()) {
      errno = 0;
      char* end = nullptr;
      if (type == "int") {
        long long n = std::strtoll(t.c_str(), &end, 10);
        if (!*end && !errno) return Value::integer(static_cast<int64_t>(n));
      } else {
        double x = std::strtod(t.c_str(), &end);
        if (!*end && !errno && std::isfinite(x)) return Value::real(x);
      }
    }
    error(given.loc, "'" + t + "' is not a valid " + type + " for parameter '" + name + "'");
  }

  // The value as Python's repr would print it: part of the kernel's identity.
  static std::string python_text(const Value& v) {
    if (v.is(K::None)) return "None";
    if (v.is(K::Bool)) return v.number ? "True" : "False";
    if (v.is(K::Int)) return v.size.str();
    char text[64];
    auto end = std::to_chars(text, text + sizeof text, v.number).ptr;  // the shortest text that reads back exactly
    std::string s(text, end);
    if (s.find_first_of(".enai") == std::string::npos) s += ".0";
    return s;
  }

  void check_return(const FunctionDef& def, ir::Function& fn) {
    const Expr& ann = *def.returns;
    std::vector<const Expr*> parts;
    if (ann.kind == ExprKind::String) parts.push_back(&ann);
    else if (ann.kind == ExprKind::Tuple)
      for (const ExprPtr& e : ann.args) parts.push_back(e.get());
    for (const Expr* e : parts)
      if (e->kind != ExprKind::String)
        error(e->loc, "a return annotation must be a string such as \"f32[M, N]\" or a tuple of them");
    if (parts.empty()) error(ann.loc, "a return annotation must be a string such as \"f32[M, N]\" or a tuple of them");
    if (parts.size() != fn.outputs.size() || (ann.kind == ExprKind::Tuple) != fn.returns_tuple)
      error(ann.loc, "the return annotation declares " + std::to_string(parts.size()) + " result(s) but the kernel returns " +
                         std::to_string(fn.outputs.size()));
    std::vector<ir::TensorType> declared;
    for (size_t i = 0; i < parts.size(); ++i) {
      ir::TensorType t = parse_annotation(parts[i]->text, parts[i]->loc);
      if (t != fn.outputs[i]->type())
        error(parts[i]->loc, "the kernel returns " + fn.outputs[i]->type().str() + " but the annotation says " + t.str());
      declared.push_back(t);
    }
    fn.declared_results = declared;
  }

  // Runs a function body; the returned value, or nullopt without a return.
  std::optional<Value> body(const FunctionDef& def, Scope& scope) { return block(def.body, scope); }

  // Runs statements until a return, which may sit in the branch of an if.
  std::optional<Value> block(const std::vector<StmtPtr>& stmts, Scope& scope) {
    for (size_t i = 0; i < stmts.size(); ++i) {
      const Stmt& s = *stmts[i];
      if (s.kind == StmtKind::Return) {
        if (i + 1 < stmts.size()) error(stmts[i + 1]->loc, "code after 'return' is never run");
        result_loc_ = s.value ? s.value->loc : s.loc;
        return s.value ? eval(*s.value, scope) : Value::of(K::None);
      }
      if (s.kind == StmtKind::If) {
        // Resolved now: only the branch taken is evaluated.
        const std::vector<StmtPtr>& taken = truth(*s.value, scope) ? s.body : s.orelse;
        if (std::optional<Value> result = block(taken, scope)) return result;
        continue;
      }
      if (s.kind == StmtKind::Def) {  // a local helper: sees the names defined before it, and itself
        Value helper = local_function(*s.def, scope);
        locals_.at(helper.text).scope.names[s.def->name] = helper;
        scope.names[s.def->name] = helper;
        continue;
      }
      if (s.kind == StmtKind::Import) error(s.loc, "imports belong at the top level of the file");
      if (s.kind == StmtKind::Expr && s.value->kind != ExprKind::String)
        error(s.loc, "this expression's value is not used; assign it to a name");
      statement(s, scope);
    }
    return std::nullopt;
  }

  // The truth of a condition, known when the kernel is built: numbers,
  // parameters, None, and comparisons of sizes whose difference is constant.
  bool truth(const Expr& e, Scope& scope) { return truth_of(eval(e, scope), e.loc); }

  bool truth_of(const Value& v, const SourceLoc& loc) {
    switch (v.kind) {
      case K::None: return false;
      case K::Bool:
      case K::Float: return v.number != 0;
      case K::Int:
        if (v.size.is_constant()) return *v.size.constant() != 0;
        error(loc, "this condition depends on the symbolic size " + v.size.str() +
                       ", which is not known when the kernel is built");
      case K::Tuple: return !v.items.empty();
      case K::String: return !v.text.empty();
      case K::Compare: return compare_now(v, loc);
      case K::Tensor:
        error(loc,
              "this condition depends on tensor data, which is not known when the kernel is built; "
              "choose element by element with np.where(cond, a, b)");
      case K::Ellipsis:
      case K::Slice:
      case K::Module:
      case K::Function:
      case K::NpFunction:
      case K::Method: return true;
    }
    return true;
  }

  bool compare_now(const Value& v, const SourceLoc& loc) {
    const Value &a = v.items[0], &b = v.items[1];
    if (a.is(K::Tensor) || b.is(K::Tensor))
      error(loc,
            "this comparison depends on tensor data, which is not known when the kernel is built; "
            "choose element by element with np.where(cond, a, b)");
    double x = 0, y = 0;
    if (a.is(K::Int) && b.is(K::Int)) {
      ir::Size difference = a.size - b.size;
      if (!difference.is_constant())
        error(loc, "this comparison of the sizes " + a.size.str() + " and " + b.size.str() +
                       " is not known when the kernel is built (sizes are symbolic); give them fixed values in the "
                       "annotation, or use np.where");
      x = static_cast<double>(*difference.constant());
    } else {
      auto l = a.known_number(), r = b.known_number();
      if (!l || !r) error(loc, "this comparison is not known when the kernel is built");
      x = *l, y = *r;
    }
    return compare_numbers(v.cmp, x, y);
  }

  static Value boolean_value(bool b) {
    Value v = Value::of(K::Bool);
    v.number = b ? 1 : 0;
    return v;
  }

  void statement(const Stmt& s, Scope& scope) {
    if (s.kind == StmtKind::Assign) {
      Value v = eval(*s.value, scope);
      if (s.annotation) check_local_annotation(*s.annotation, v, s.value->loc);
      for (const ExprPtr& target : s.targets) assign(*target, v, s.value->loc, scope);
    } else if (s.kind == StmtKind::AugAssign) {
      const Expr& target = *s.targets[0];
      if (target.kind != ExprKind::Name) error(target.loc, "augmented assignment needs a plain name");
      Value current = eval(target, scope);
      Value rhs = eval(*s.value, scope);
      assign(target, builder_.binary(s.text, {current, target.loc}, {rhs, s.value->loc}, s.loc), s.loc, scope);
    }
  }

  // `y: "f32[M, N]" = ...` is checked like a return annotation; a name such
  // as np.ndarray, float or int is accepted as documentation.
  void check_local_annotation(const Expr& ann, const Value& v, const SourceLoc& value_loc) {
    if (ann.kind != ExprKind::String) return;
    ir::TensorType declared = parse_annotation(ann.text, ann.loc);
    if (!v.is(K::Tensor))
      error(value_loc, "the annotation says " + declared.str() + " but the value is " + v.describe());
    if (v.node->type() != declared)
      error(ann.loc, "the value is " + v.node->type().str() + " but the annotation says " + declared.str());
  }

  void assign(const Expr& target, const Value& v, const SourceLoc& value_loc, Scope& scope) {
    if (target.kind == ExprKind::Name) {
      if (target.text == "np" || target.text == "numpy") error(target.loc, "assigning to '" + target.text + "' hides numpy");
      scope.names[target.text] = v;
      return;
    }
    if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
      if (!v.is(K::Tuple)) error(value_loc, "cannot unpack " + v.describe() + " into " + std::to_string(target.args.size()) + " names");
      if (v.items.size() != target.args.size())
        error(value_loc, "cannot unpack " + std::to_string(v.items.size()) + " values into " +
                             std::to_string(target.args.size()) + " names");
      for (size_t i = 0; i < v.items.size(); ++i) assign(*target.args[i], v.items[i], value_loc, scope);
      return;
    }
    if (target.kind == ExprKind::Subscript) error(target.loc, "assignment to part of a tensor is not supported (tensors are immutable)");
    error(target.loc, "cannot assign to this expression");
  }

  // ---- expressions ----
  Value lookup(const Expr& e, Scope& scope) {
    if (auto it = scope.names.find(e.text); it != scope.names.end()) return it->second;
    if (auto it = globals_.find(e.text); it != globals_.end()) return it->second;
    if (e.text == "np" || e.text == "numpy") error(e.loc, "name '" + e.text + "' is not defined; add 'import numpy as np'");
    if (e.text == "float" || e.text == "bool") return Value::of(K::NpFunction, "builtin." + e.text);
    if (is_numpy_name(e.text)) error(e.loc, "unknown name '" + e.text + "'; did you mean np." + e.text + "?");
    error(e.loc, "unknown name '" + e.text + "'");
  }

  // Size arithmetic is exact; overflowing int64 is the program's error.
  Value eval(const Expr& e, Scope& scope) {
    try {
      return eval_unchecked(e, scope);
    } catch (const std::overflow_error&) {
      error(e.loc, "integer overflow in size arithmetic (beyond 64-bit integers)");
    }
  }

  Value eval_unchecked(const Expr& e, Scope& scope) {
    switch (e.kind) {
      case ExprKind::Name: return lookup(e, scope);
      case ExprKind::Int: {
        errno = 0;
        long long n = std::strtoll(e.text.c_str(), nullptr, 10);
        if (errno == ERANGE) error(e.loc, "integer literal " + e.text + " is too large");
        return Value::integer(static_cast<int64_t>(n));
      }
      case ExprKind::Float: return Value::real(e.number);
      case ExprKind::String: return Value::of(K::String, e.text);
      case ExprKind::Bool: {
        Value v = Value::of(K::Bool);
        v.number = e.number;
        return v;
      }
      case ExprKind::None: return Value::of(K::None);
      case ExprKind::Ellipsis: return Value::of(K::Ellipsis);
      case ExprKind::Unary: {
        if (e.text == "not") return boolean_value(!truth(*e.args[0], scope));
        Value operand = eval(*e.args[0], scope);
        if (e.text == "~") return builder_.logical_not({operand, e.args[0]->loc}, e.loc, false);
        if (e.text == "+") {
          builder_.tensor({operand, e.args[0]->loc}, "the operand of unary '+'");
          return operand;
        }
        return builder_.unary(ir::Op::Neg, {operand, e.args[0]->loc}, e.loc);
      }
      case ExprKind::Binary: {
        Value l = eval(*e.args[0], scope);
        Value r = eval(*e.args[1], scope);
        return builder_.binary(e.text, {l, e.args[0]->loc}, {r, e.args[1]->loc}, e.loc);
      }
      case ExprKind::Compare: return compare(e, scope);
      case ExprKind::Lambda: return local_function(*e.lambda, scope);
      case ExprKind::IfElse: return eval(truth(*e.args[0], scope) ? *e.args[1] : *e.args[2], scope);
      case ExprKind::BoolOp: {  // Python's: the operand that decides, the right one unevaluated when not needed
        Value left = eval(*e.args[0], scope);
        bool left_true = truth_of(left, e.args[0]->loc);
        if (e.text == "and" ? !left_true : left_true) return left;
        return eval(*e.args[1], scope);
      }
      case ExprKind::Call: return call(e, scope);
      case ExprKind::Attribute: return attribute(e, scope);
      case ExprKind::Subscript: return subscript(e, scope);
      case ExprKind::Slice: {
        Value v = Value::of(K::Slice);
        for (const ExprPtr& part : e.args) v.items.push_back(part ? eval(*part, scope) : Value::of(K::None));
        for (size_t i = 0; i < 3; ++i)
          if (!v.items[i].is(K::None) && !v.items[i].is(K::Int))
            error(e.args[i]->loc, "slice bounds must be integers or sizes, not " + v.items[i].describe());
        return v;
      }
      case ExprKind::Tuple:
      case ExprKind::List: {
        std::vector<Value> items;
        for (const ExprPtr& part : e.args) items.push_back(eval(*part, scope));
        return Value::tuple(std::move(items));
      }
      case ExprKind::Dict: error(e.loc, "dict literals are only allowed for SIZES");
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }

  Value compare(const Expr& e, Scope& scope) {
    static const std::map<std::string, ir::Cmp> kCmp = {{"<", ir::Cmp::Lt},  {"<=", ir::Cmp::Le}, {">", ir::Cmp::Gt},
                                                        {">=", ir::Cmp::Ge}, {"==", ir::Cmp::Eq}, {"!=", ir::Cmp::Ne}};
    if (e.text == "is" || e.text == "is not") {  // only `is None` has a meaning NumPy code relies on
      Value left = eval(*e.args[0], scope), right = eval(*e.args[1], scope);
      if (!left.is(K::None) && !right.is(K::None))
        error(e.loc, "'" + e.text + "' is only supported against None (x is None); compare values with == or !=");
      return boolean_value(left.is(K::None) == right.is(K::None) ? e.text == "is" : e.text != "is");
    }
    Value v = Value::of(K::Compare);
    for (int i = 0; i < 2; ++i) {
      Value side = eval(*e.args[i], scope);
      builder_.tensor({side, e.args[i]->loc}, "a compared value");  // checks it is a number or tensor
      v.items.push_back(side);
    }
    v.cmp = kCmp.at(e.text);
    return v;
  }

  // A comparison indexed, transposed or called a method on is its mask.
  Value as_mask_if_compare(Value v, const SourceLoc& loc) {
    return v.is(K::Compare) ? builder_.materialize({v, loc}) : v;
  }

  Value attribute(const Expr& e, Scope& scope) {
    Value base = as_mask_if_compare(eval(*e.args[0], scope), e.args[0]->loc);
    if (base.is(K::Module) && base.text == "math") return math_attribute(e.text, e.loc);
    if (base.is(K::Module)) return numpy_attribute(e.text, e.loc);
    if (base.is(K::Tensor)) {
      Value v = tensor_attribute(builder_, {base, e.args[0]->loc}, e.text, e.loc);
      if (e.text == "T" || e.text == "mT") v.boolean = base.boolean;  // a mask moved is a mask
      return v;
    }
    if (base.is(K::NpFunction) && base.text.find('.') == std::string::npos)
      return ufunc_attribute(base.text, e.text, e.loc);
    error(e.loc, base.describe() + " has no attribute '" + e.text + "'");
  }

  Value subscript(const Expr& e, Scope& scope) {
    Value base = as_mask_if_compare(eval(*e.args[0], scope), e.args[0]->loc);
    Value index = eval(*e.args[1], scope);
    const SourceLoc& index_loc = e.args[1]->loc;
    if (base.is(K::Tensor)) {
      Value v = index_tensor(builder_, {base, e.args[0]->loc}, {index, index_loc}, e.loc);
      v.boolean = base.boolean && v.is(K::Tensor);
      return v;
    }
    if (base.is(K::Tuple)) {
      int64_t n = static_cast<int64_t>(base.items.size());
      if (index.is(K::Int) && index.size.is_constant()) {
        int64_t i = *index.size.constant();
        if (i < -n || i >= n)
          error(index_loc, "index " + std::to_string(i) + " is out of range for a tuple of " + std::to_string(n));
        return base.items[i < 0 ? i + n : i];
      }
      if (index.is(K::Slice) && index.items[2].is(K::None)) {
        auto bound = [&](const Value& v, int64_t fallback) {
          if (v.is(K::None)) return fallback;
          int64_t b = builder_.constant_int({v, index_loc}, "a tuple slice bound");
          return std::max<int64_t>(0, std::min(n, b < 0 ? b + n : b));
        };
        int64_t lo = bound(index.items[0], 0), hi = bound(index.items[1], n);
        std::vector<Value> items;
        for (int64_t i = lo; i < hi; ++i) items.push_back(base.items[i]);
        return Value::tuple(items);
      }
      error(index_loc, "a tuple index must be a constant integer or a simple slice");
    }
    error(e.loc, base.describe() + " cannot be indexed");
  }

  Value call(const Expr& e, Scope& scope) {
    Value callee = eval(*e.args[0], scope);
    CallArgs args;
    args.loc = e.loc;
    for (size_t i = 1; i < e.args.size(); ++i) args.positional.push_back({eval(*e.args[i], scope), e.args[i]->loc});
    for (const Keyword& k : e.keywords) args.keywords.push_back({k.name, {eval(*k.value, scope), k.loc}});
    switch (callee.kind) {
      case K::NpFunction:
        if (callee.text.rfind("builtin.", 0) == 0) {
          args.callee = callee.text.substr(8);
          return call_builtin(args);
        }
        if (callee.text.rfind("math.", 0) == 0) {
          args.callee = callee.text;
          return call_math(builder_, callee.text.substr(5), args);
        }
        args.callee = "np." + callee.text;
        return call_numpy(builder_, callee.text, args);
      case K::Method: {
        args.callee = "." + callee.text;
        Value v = call_method(builder_, callee, args);
        bool moves = callee.text == "reshape" || callee.text == "transpose" || callee.text == "swapaxes";
        if (moves && callee.items[0].boolean && v.is(K::Tensor)) v.boolean = true;
        return v;
      }
      case K::Function:
        if (auto it = locals_.find(callee.text); it != locals_.end()) {
          args.callee = it->second.def->name;
          return call_function(*it->second.def, args, &it->second.scope);
        }
        args.callee = callee.text;
        return call_function(*functions_.at(callee.text), args);
      default: error(e.args[0]->loc, callee.describe() + " cannot be called");
    }
  }

  // float(...) of a number or of "inf"/"-inf" (how Python spells infinity);
  // bool(...) of a number. Tensors keep their dtype.
  Value call_builtin(const CallArgs& call) {
    auto args = bind_args(call, {"x"}, 1);
    const Value& v = args[0]->value;
    if (call.callee == "float" && v.is(K::String)) {
      std::string t;
      for (char c : v.text)
        if (!std::isspace(static_cast<unsigned char>(c)))
          t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      double inf = std::numeric_limits<double>::infinity();
      if (t == "inf" || t == "+inf" || t == "infinity" || t == "+infinity") return Value::real(inf);
      if (t == "-inf" || t == "-infinity") return Value::real(-inf);
      char* end = nullptr;
      double x = std::strtod(t.c_str(), &end);
      if (t.empty() || *end != '\0' || t.find("nan") != std::string::npos)
        error(args[0]->loc,
              "float() of the string '" + v.text + "' is not supported (float(\"inf\") and float(\"-inf\") are)");
      return Value::real(x);
    }
    auto x = v.known_number();
    if (!x)
      error(args[0]->loc, call.callee + "() takes a number here, not " + v.describe() +
                              (v.is(K::Tensor) ? "; use .astype(...) on tensors" : ""));
    if (call.callee == "bool") return boolean_value(*x != 0);
    return Value::real(*x);
  }

  // A lambda or nested def: a Function value naming it and the names it
  // sees (those bound when it was defined, as a closure over straight-line code).
  Value local_function(const FunctionDef& def, const Scope& scope) {
    std::string key = def.name + "@" + std::to_string(def.loc.line) + ":" + std::to_string(def.loc.col) + "#" +
                      std::to_string(locals_.size());
    locals_[key] = {&def, scope};
    return Value::of(K::Function, key);
  }

  Value call_function(const FunctionDef& def, const CallArgs& call, const Scope* enclosing = nullptr) {
    for (const std::string& active : call_stack_)
      if (active == def.name) error(call.loc, "recursive call to '" + def.name + "': helpers are inlined, so they cannot recurse");
    if (call_stack_.size() >= kMaxCallDepth) error(call.loc, "helpers are nested too deeply");
    std::vector<std::string> names;
    size_t required = 0;
    for (const Param& p : def.params) {
      names.push_back(p.name);
      if (!p.default_value) {
        if (required != names.size() - 1)
          error(p.loc, "parameter '" + p.name + "' without a default follows one with a default");
        ++required;
      }
    }
    std::vector<std::optional<Arg>> bound = bind_args(call, names, required);
    Scope scope = enclosing ? *enclosing : Scope{};
    Scope defaults = scope;  // a default sees what the function sees, not its other parameters
    for (size_t i = 0; i < def.params.size(); ++i) {
      const Param& p = def.params[i];
      Arg arg = bound[i] ? *bound[i] : Arg{eval(*p.default_value, defaults), p.default_value->loc};
      if (p.annotation && p.annotation->kind == ExprKind::String) check_helper_arg(def, p, arg);
      scope.names[p.name] = arg.value;
    }
    call_stack_.push_back(def.name);
    SourceLoc saved = result_loc_;
    std::optional<Value> result = body(def, scope);
    result_loc_ = saved;
    call_stack_.pop_back();
    return result.value_or(Value::of(K::None));
  }

  Value eval_global(const Expr& e) {
    Scope empty;
    return eval(e, empty);
  }

  // Helper annotations check what they can without binding names: the
  // rank and any constant dims.
  void check_helper_arg(const FunctionDef& def, const Param& p, const Arg& arg) {
    ir::TensorType declared = parse_annotation(p.annotation->text, p.annotation->loc);
    if (!arg.value.is(K::Tensor)) return;
    const ir::TensorType& actual = arg.value.node->type();
    bool fits = actual.rank() == declared.rank();
    for (int k = 0; fits && k < actual.rank(); ++k)
      fits = !declared.shape[k].is_constant() || declared.shape[k] == actual.shape[k];
    if (!fits)
      error(arg.loc, "argument '" + p.name + "' of " + def.name + "() is " + actual.str() + " but its annotation says " +
                         declared.str());
  }

  Module module_;
  std::shared_ptr<ir::Graph> graph_;
  Builder builder_;
  std::map<std::string, Value> globals_;
  std::map<std::string, const FunctionDef*> functions_;
  struct LocalFunction {
    const FunctionDef* def;
    Scope scope;
  };
  std::map<std::string, LocalFunction> locals_;  // lambdas and nested defs, by their Function value's key
  std::vector<const FunctionDef*> order_;
  std::vector<std::string> call_stack_;
  SourceLoc result_loc_;
  SourceLoc entry_loc_;
  ParamValues params_;
};

}  // namespace

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A dimension of an annotation: a positive integer, a size name, or sums and
// products of them ("3*D", "H*S", "2*D + 1"), as integer size arithmetic.
ir::Size parse_dim(const std::string& dim, const SourceLoc& loc) {
  const std::string bad =
      "dimension '" + dim + "' must be a positive integer, a size name, or a product or sum of them";
  size_t at = 0;
  auto skip = [&] {
    while (at < dim.size() && (dim[at] == ' ' || dim[at] == '\t')) ++at;
  };
  auto atom = [&]() -> ir::Size {
    skip();
    size_t begin = at;
    while (at < dim.size() && (std::isalnum(static_cast<unsigned char>(dim[at])) || dim[at] == '_')) ++at;
    std::string word = dim.substr(begin, at - begin);
    if (word.empty()) error(loc, bad);
    if (is_identifier(word)) return ir::Size::name(word);
    errno = 0;
    char* end = nullptr;
    long long n = std::strtoll(word.c_str(), &end, 10);
    if (*end || errno || n < 1) error(loc, bad);
    return static_cast<int64_t>(n);
  };
  auto product = [&]() {
    ir::Size p = atom();
    for (skip(); at < dim.size() && dim[at] == '*'; skip()) ++at, p = p * atom();
    return p;
  };
  try {
    ir::Size total = product();
    for (skip(); at < dim.size() && (dim[at] == '+' || dim[at] == '-'); skip()) {
      char op = dim[at++];
      total = op == '+' ? total + product() : total - product();
    }
    if (at != dim.size()) error(loc, bad);
    if (total.is_constant() && *total.constant() < 1) error(loc, bad);
    return total;
  } catch (const std::overflow_error&) {
    error(loc, "dimension '" + dim + "' overflows 64-bit integers");
  }
}

ir::TensorType parse_annotation(const std::string& full_text, const SourceLoc& loc) {
  size_t end = full_text.find_last_not_of(" \t");
  const std::string text = full_text.substr(0, end == std::string::npos ? 0 : end + 1);  // trailing blanks
  size_t open = text.find('[');
  size_t offset = 0;
  if (open == std::string::npos || text.back() != ']')
    error(loc, "annotation \"" + text + "\" must look like \"f32[M, N]\" (a dtype, then dims in brackets)");
  std::string dtype_text = trim(text.substr(0, open), offset);
  auto dtype = ir::parse_dtype(dtype_text);
  if (!dtype)
    error(shifted(loc, offset), "unknown dtype '" + dtype_text + "' in annotation \"" + text +
                                    "\" (Axon supports f32, bf16 and f16)");
  ir::TensorType type;
  type.dtype = *dtype;
  std::string inner = text.substr(open + 1, text.size() - open - 2);
  if (inner.find_first_not_of(" \t") == std::string::npos) return type;  // "f32[]": a scalar
  size_t begin = 0;
  while (true) {
    size_t comma = inner.find(',', begin);
    size_t dim_offset = open + 1 + begin;
    std::string dim = trim(inner.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), dim_offset);
    SourceLoc dim_loc = shifted(loc, dim_offset);
    if (dim.empty()) {
      if (comma == std::string::npos && !type.shape.empty()) break;  // trailing comma
      error(dim_loc, "empty dimension in annotation \"" + text + "\"");
    }
    type.shape.push_back(parse_dim(dim, dim_loc));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return type;
}

ir::Program compile_source(const std::shared_ptr<const SourceFile>& file, const std::optional<std::string>& entry,
                           const SourceLoc& entry_loc, const ParamValues& params) {
  return Lowerer(parse_module(file), entry_loc, params).run(entry);
}

ir::Program load_program(const std::string& path, const std::optional<std::string>& entry, const SourceLoc& entry_loc,
                         const ParamValues& params) {
  auto file = std::make_shared<SourceFile>();
  file->path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) error({file, 0, 0}, std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) error({file, 0, 0}, "cannot read file");
  file->text = text.str();
  if (file->text.size() > kMaxFileBytes)
    error({file, 0, 0}, "file is too large (" + std::to_string(file->text.size()) + " bytes; the limit is " +
                            std::to_string(kMaxFileBytes) + ")");
  return compile_source(file, entry, entry_loc, params);
}

}  // namespace axon::lang
