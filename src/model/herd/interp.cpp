// herd7's cat interpreter on one candidate execution (herdtools7
// lib/interpreter.ml, function `interpret`): expressions are evaluated to
// values (model/herd/values.hpp), instructions run in continuation-passing
// style so that `with x from S` can try each element of S; every state that
// reaches the end of the model is an allowed branch.
#include "redscope/model/herd/interp.hpp"

#include <algorithm>
#include <map>
#include <set>

#ifdef __GLIBC__
#include <pthread.h>
#endif

#include <fmt/format.h>

#include "model/herd/values.hpp"

namespace redscope::cat::herd {
namespace detail {
namespace {

using K = Type::K;

// Nested calls of functions and procedures (a located error past it, not a
// stack overflow; the thread's stack is checked too, see StackFloor); a
// `let rec` fixpoint's iterations.
constexpr int kMaxDepth = 10000;
constexpr std::size_t kMaxFixIterations = 100000;

std::string type_name(const Value& v) { return to_string(type_of(v)); }

[[noreturn]] void mismatch(const Where& at, const std::string& want, const Value& got) {
  fail_at(at, fmt::format("type mismatch: {} expected, {} found", want, type_name(got)));
}

Value v_tuple(Values vs) {
  Value v;
  v.kind = VK::Tuple;
  v.elems = std::make_shared<const Values>(std::move(vs));
  return v;
}

Value v_event(std::size_t e) {
  Value v;
  v.kind = VK::Event;
  v.a = e;
  return v;
}

Value v_pair(std::size_t a, std::size_t b) {
  Value v;
  v.kind = VK::Pair;
  v.a = a;
  v.b = b;
  return v;
}

Value v_tag(std::string type, std::string name) {
  Value v;
  v.kind = VK::Tag;
  v.tag_type = std::move(type);
  v.tag = std::move(name);
  return v;
}

Value v_classrel(ClassRel r) {
  Value v;
  v.kind = VK::ClassRel;
  v.crel = std::make_shared<const ClassRel>(std::move(r));
  return v;
}

// tag2set: a tag as the singleton set of it.
Value tag2set(const Value& v) {
  if (v.kind != VK::Tag) return v;
  return make_valset(type_of(v), {v});
}

// v_as_vs: the components a tuple pattern takes from a value.
Values v_as_vs(const Value& v) {
  if (v.kind == VK::Tuple) return *v.elems;
  if (v.kind == VK::Pair) return {v_event(v.a), v_event(v.b)};
  return {v};
}

bool valset_has(const Values& s, const Value& v) {
  return std::binary_search(s.begin(), s.end(), v,
                            [](const Value& a, const Value& b) { return compare(a, b) < 0; });
}

bool valset_subset(const Values& a, const Values& b) {
  return std::all_of(a.begin(), a.end(), [&](const Value& v) { return valset_has(b, v); });
}

// The state of one branch: herd's `st` without what only shows.
struct State {
  Env env;
  std::set<std::string> flags;
  bool undef = false;
  std::vector<std::optional<std::string>> calls;  // `call ... as name` in progress
};
using Kont = std::function<void(State)>;

// The lowest address this thread's frames may reach before a nested call
// is refused (0: unknown): a margin of a quarter of its stack, at most
// 512 KiB, is left for what runs between two calls (an expression is at
// most kMaxNesting deep). A call is about 1 KiB of stack at -O1.
std::uintptr_t stack_floor() {
#ifdef __GLIBC__
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* addr = nullptr;
  std::size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return 0;
  return reinterpret_cast<std::uintptr_t>(addr) + std::min<std::size_t>(size / 4, 512 * 1024);
#else
  return 0;
#endif
}

struct DepthGuard {
  int& d;
  DepthGuard(int& depth, std::uintptr_t floor, const Where& at) : d(depth) {
    const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    if (++d > kMaxDepth || here < floor) {
      --d;
      fatal_at(at,
               fmt::format("recursion deeper than {} nested calls", d < kMaxDepth ? d : kMaxDepth));
    }
  }
  ~DepthGuard() { --d; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

// One run of a model on one execution: everything mutable lives here.
class Run {
 public:
  Run(const Execution& x, const Budget* budget, const std::vector<std::string>& variants,
      const std::function<bool(std::string_view)>& enabled)
      : variants_(variants),
        enabled_(enabled) {
    u_.n = x.n;
    u_.x = &x;
    u_.budget = budget;
    u_.all.assign(words_of(x.n), 0);
    for (std::size_t i = 0; i < x.n; ++i) set_bit(u_.all, i);
    u_.id = set_to_rln(u_, u_.all);
    u_.unv = cartesian(u_, u_.all, u_.all);
  }

  Verdict go(const Program* prelude, const Program& model);

 private:
  // Expressions.
  Value eval(const Exp& e, const Env& env);
  Value force(const std::shared_ptr<Thunk>& t);
  // Out of line, so that eval's frame stays small (nested calls recurse
  // through it).
  [[gnu::noinline]] Value app_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value bind_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value try_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value var(const Exp& e, const Env& env);
  [[gnu::noinline]] Value op1(const Exp& e, const Env& env);
  [[gnu::noinline]] Value op(const Exp& e, const Env& env);
  [[gnu::noinline]] Value union_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value inter_of(const Exp& e, const Env& env);
  Value inter2(const Where& at, const Where& a1, const Value& v1, const Where& a2, const Value& v2);
  Value diff2(const Where& at, const Where& a1, const Value& v1, const Where& a2, const Value& v2,
              const Env& env);
  [[gnu::noinline]] Value seq_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value add_of(const Exp& e, const Env& env);
  [[gnu::noinline]] Value explicit_set(const Exp& e, const Env& env);
  Value apply(const Where& at, const Value& f, const Value& arg);
  [[gnu::noinline]] Value match_tag(const Exp& e, const Env& env);
  [[gnu::noinline]] Value match_set(const Exp& e, const Env& env);
  [[gnu::noinline]] bool cond(const Exp& e, const Env& env);
  BitRel eval_rel(const Exp& e, const Env& env);
  EventBits eval_events(const Exp& e, const Env& env);
  [[gnu::noinline]] Value closure(const Exp& fun, const Env& env);
  Env with_group(const std::shared_ptr<const RecGroup>& g);
  Value singleton_set(std::size_t e) const {
    EventBits s(words_of(u_.n), 0);
    set_bit(s, e);
    return v_set(std::move(s));
  }
  BitRel pair_rel(std::size_t a, std::size_t b) const {
    BitRel r(u_.n, u_.budget);
    r.set(a, b);
    return r;
  }
  Env add_args(const Where& at, const Pattern& pat, const Value& v, Env env);
  Env add_pat(const Where& at, const Pattern& pat, std::shared_ptr<Thunk> t, Env env);
  Env bind_lazy(const std::vector<Binding>& bds, const Env& env);
  Env rec_funs(const Env& env, const std::vector<const Binding*>& funs);
  std::optional<Env> env_rec(const std::vector<Binding>& bds, const Env& env, const Where& at,
                             const std::function<bool(const Env&)>& check);
  bool stabilised(const Where& at, const Value& old, const Value& now, const Env& env);
  Values tags_universe(const Env& env, const std::string& type, const Where& at);
  bool test(const AppTest& t, const Env& env);
  bool variant(const VariantCond& c) const;

  // Instructions.
  void run(State st, const std::vector<Ins>& body, std::size_t i, const Kont& k);
  bool exec_test(State& st, const AppTest& t);
  void call(State st, const Ins& ins, const Kont& k);
  void forall(State st, const Ins& ins, const Kont& k);
  void with_from(const State& st, const Ins& ins, const Kont& k);
  void fail_branch(const State& st, const AppTest& t);
  const Program* included(const Ins& ins);
  void index_includes(const std::vector<Ins>& body);

  const Program* prelude_ = nullptr;
  const Program* model_ = nullptr;
  std::optional<std::map<std::string, const Program*>> includes_;  // by name, when needed

  Universe u_;
  const std::vector<std::string>& variants_;
  const std::function<bool(std::string_view)>& enabled_;
  std::size_t next_id_ = 1000;  // closures (primitives take their index)
  int depth_ = 0;
  std::uintptr_t floor_ = stack_floor();
  std::size_t ticks_ = 0;
  Verdict verdict_;
  std::set<std::string> flags_;
};

// ---------------------------------------------------------------------------
// Expressions (interpreter.ml `eval`).

Value Run::force(const std::shared_ptr<Thunk>& t) {
  if (t->v) return *t->v;
  if (t->err) std::rethrow_exception(t->err);
  if (t->busy) fail_at(t->at, "recursive use of a value being defined");
  t->busy = true;
  try {
    if (t->src) {  // add_pat_val: component `index` of a tuple
      const Values vs = v_as_vs(force(t->src));
      if (t->index >= vs.size()) fail_at(t->at, "binding mismatch");
      t->v = vs[t->index];
    } else {
      t->v = eval(*t->exp, t->env);
    }
  } catch (const InputError&) {
    t->err = std::current_exception();
    t->busy = false;
    throw;
  }
  t->busy = false;
  t->env = Env{};
  t->src.reset();
  return *t->v;
}

Value Run::var(const Exp& e, const Env& env) {
  const auto* t = lookup(env, e.name);
  if (!t)
    fail_at(e.at, fmt::format("'{}' is not bound: no file defines it and PTX executions "
                              "provide no such event set or relation",
                              e.name));
  return force(*t);
}

Value Run::eval(const Exp& e, const Env& env) {
  switch (e.kind) {
    case ExpKind::Empty: return v_empty();
    case ExpKind::Universe: return v_unv();
    case ExpKind::Tag: {
      const auto it = env.tags->find(e.name);
      if (it == env.tags->end()) fail_at(e.at, fmt::format("tag '{} is undefined", e.name));
      return v_tag(it->second, e.name);
    }
    case ExpKind::Var: return var(e, env);
    case ExpKind::Op1: return op1(e, env);
    case ExpKind::Op: return op(e, env);
    case ExpKind::App: return app_of(e, env);
    case ExpKind::Bind:
    case ExpKind::BindRec: return bind_of(e, env);
    case ExpKind::Fun: return closure(e, env);
    case ExpKind::ExplicitSet: return explicit_set(e, env);
    case ExpKind::Match: return match_tag(e, env);
    case ExpKind::MatchSet: return match_set(e, env);
    case ExpKind::Try: return try_of(e, env);
    case ExpKind::If: return eval(cond(e, env) ? *e.args[0] : *e.args[1], env);
  }
  fail_at(e.at, "unknown expression");
}

Value Run::app_of(const Exp& e, const Env& env) {
  const Value f = eval(*e.args[0], env);
  return apply(e.at, f, eval(*e.args[1], env));
}

Value Run::bind_of(const Exp& e, const Env& env) {
  if (e.kind == ExpKind::Bind) return eval(*e.body, bind_lazy(e.bindings, env));
  return eval(*e.body, *env_rec(e.bindings, env, e.at, [](const Env&) { return true; }));
}

// Any error of evaluation (herd's Misc.Exit) selects the alternative; a
// failing assert, a limit or the budget do not.
Value Run::try_of(const Exp& e, const Env& env) {
  try {
    return eval(*e.args[0], env);
  } catch (const FatalError&) {
    throw;
  } catch (const InputError&) {
    return eval(*e.args[1], env);
  }
}

// Unary operators: `r+`, `r*` and `r?` add the identity over all events
// (ks.id); `~` complements within all events, all pairs or all tags.
Value Run::op1(const Exp& e, const Env& env) {
  const Exp& a = *e.args[0];
  const Value v = eval(a, env);
  switch (e.op1) {
    case Op1::Plus:
      if (v.kind == VK::Empty || v.kind == VK::Unv) return v;
      if (v.kind != VK::Rel) mismatch(a.at, "rel", v);
      return v_rel(v.rel->plus());
    case Op1::Star:
    case Op1::Opt:
      if (v.kind == VK::Empty) return v_rel(u_.id);
      if (v.kind == VK::Unv) return v;
      if (v.kind != VK::Rel) mismatch(a.at, "rel", v);
      return v_rel(e.op1 == Op1::Star ? v.rel->star() : v.rel->reflexive());
    case Op1::Comp:
      switch (v.kind) {
        case VK::Empty: return v_unv();
        case VK::Unv: return v_empty();
        case VK::Set: {
          EventBits s = u_.all;
          for (std::size_t w = 0; w < s.size(); ++w) s[w] &= ~v.set[w];
          return v_set(std::move(s));
        }
        case VK::Rel: return v_rel(u_.unv - *v.rel);
        case VK::ValSet:
          if (v.elt->k == K::Tag) {
            Values out;
            for (Value& t : tags_universe(env, v.elt->tag, a.at))
              if (!valset_has(*v.elems, t)) out.push_back(std::move(t));
            return make_valset(*v.elt, std::move(out));
          }
          [[fallthrough]];
        default: fail_at(a.at, fmt::format("set or relation expected, {} found", type_name(v)));
      }
    case Op1::Inv:
      switch (v.kind) {
        case VK::Empty:
        case VK::Unv: return v;
        case VK::Rel: return v_rel(v.rel->inverse());
        case VK::Pair: return v_pair(v.b, v.a);
        case VK::ClassRel: {
          ClassRel r;
          for (const auto& [x, y] : *v.crel) r.emplace_back(y, x);
          std::sort(r.begin(), r.end(), [](const ClassPair& p, const ClassPair& q) {
            const int c = compare_bits(p.first, q.first);
            return c ? c < 0 : compare_bits(p.second, q.second) < 0;
          });
          return v_classrel(std::move(r));
        }
        default: mismatch(a.at, "rel", v);
      }
    case Op1::ToId:
      if (v.kind == VK::Empty) return v;
      if (v.kind == VK::Unv) return v_rel(u_.id);
      if (v.kind != VK::Set) mismatch(a.at, "events", v);
      return v_rel(set_to_rln(u_, v.set));
  }
  fail_at(e.at, "unknown operator");
}

Value Run::op(const Exp& e, const Env& env) {
  switch (e.op2) {
    case Op2::Union: return union_of(e, env);
    case Op2::Inter: return inter_of(e, env);
    case Op2::Diff: {
      const Value v1 = eval(*e.args[0], env);
      return diff2(e.at, e.args[0]->at, v1, e.args[1]->at, eval(*e.args[1], env), env);
    }
    case Op2::Seq: return seq_of(e, env);
    case Op2::Cartesian: {
      const EventBits a = eval_events(*e.args[0], env);
      return v_rel(cartesian(u_, a, eval_events(*e.args[1], env)));
    }
    case Op2::Add: return add_of(e, env);
    case Op2::Tuple: {
      Values vs;
      for (const auto& a : e.args) vs.push_back(eval(*a, env));
      return v_tuple(std::move(vs));
    }
  }
  fail_at(e.at, "unknown operator");
}

// Union is polymorphic (union_args, type_list): 0 is neutral, _ absorbs,
// a tag is the set of it; the others must have one type.
Value Run::union_of(const Exp& e, const Env& env) {
  std::vector<std::pair<const Where*, Value>> vs;
  bool unv = false;
  for (const auto& a : e.args) {
    Value v = eval(*a, env);
    if (v.kind == VK::Unv) unv = true;
    if (v.kind != VK::Empty) vs.emplace_back(&a->at, tag2set(v));
  }
  if (unv) return v_unv();
  if (vs.empty()) return v_empty();
  Type t = type_of(vs[0].second);
  for (std::size_t i = 1; i < vs.size(); ++i) {
    const Type ti = type_of(vs[i].second);
    auto u = unify(t, ti);
    if (!u)
      fail_at(*vs[i].first,
              fmt::format("type mismatch: {} expected, {} found", to_string(t), to_string(ti)));
    t = *u;
  }
  switch (t.k) {
    case K::Rel: {
      BitRel r(u_.n, u_.budget);
      for (const auto& [at, v] : vs) r |= *v.rel;
      return v_rel(std::move(r));
    }
    case K::Events: {
      EventBits s(words_of(u_.n), 0);
      for (const auto& [at, v] : vs)
        for (std::size_t w = 0; w < s.size(); ++w) s[w] |= v.set[w];
      return v_set(std::move(s));
    }
    case K::ClassRel: {
      ClassRel r;
      for (const auto& [at, v] : vs) r.insert(r.end(), v.crel->begin(), v.crel->end());
      std::sort(r.begin(), r.end(), [](const ClassPair& p, const ClassPair& q) {
        const int c = compare_bits(p.first, q.first);
        return c ? c < 0 : compare_bits(p.second, q.second) < 0;
      });
      r.erase(std::unique(r.begin(), r.end()), r.end());
      return v_classrel(std::move(r));
    }
    case K::Set: {
      Values all;
      for (const auto& [at, v] : vs) all.insert(all.end(), v.elems->begin(), v.elems->end());
      try {
        return make_valset(t.elt[0], std::move(all));
      } catch (const CompareError& c) {
        fail_at(e.at, c.msg);
      }
    }
    default: fail_at(e.at, fmt::format("cannot perform union on type '{}'", to_string(t)));
  }
}

// `r & (S1 * S2)` restricts domains; `e1 & ~e2` is a difference
// (interpreter.ml, the special cases of Inter).
Value Run::inter_of(const Exp& e, const Env& env) {
  if (e.args.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const Exp& x = *e.args[static_cast<std::size_t>(k)];
      const Exp& y = *e.args[static_cast<std::size_t>(1 - k)];
      if (y.kind == ExpKind::Op && y.op2 == Op2::Cartesian) {
        const BitRel r = eval_rel(x, env);
        const EventBits a = eval_events(*y.args[0], env);
        const EventBits b = eval_events(*y.args[1], env);
        return v_rel(r & cartesian(u_, a, b));
      }
      if (y.kind == ExpKind::Op1 && y.op1 == Op1::Comp) {
        const Value v1 = eval(x, env);
        return diff2(e.at, x.at, v1, y.args[0]->at, eval(*y.args[0], env), env);
      }
    }
  }
  Value acc = eval(*e.args[0], env);
  for (std::size_t i = 1; i < e.args.size(); ++i)
    acc = inter2(e.at, e.args[i - 1]->at, acc, e.args[i]->at, eval(*e.args[i], env));
  return acc;
}

bool is_other(VK k) {
  return k == VK::Event || k == VK::Pair || k == VK::Clo || k == VK::Prim || k == VK::Proc ||
         k == VK::Tuple;
}
bool is_rel(VK k) { return k == VK::Rel || k == VK::ClassRel; }
bool is_set(VK k) { return k == VK::Set || k == VK::ValSet; }

// The errors of intersection and difference on values of mixed kinds.
[[noreturn]] void mixed(const Where& at, const Where& a1, const Value& x, const Where& a2,
                        const Value& y, const char* what) {
  if (is_other(x.kind)) fail_at(a1, fmt::format("{} on {}", what, type_name(x)));
  if (is_other(y.kind)) fail_at(a2, fmt::format("{} on {}", what, type_name(y)));
  if ((is_rel(x.kind) && is_set(y.kind)) || (is_set(x.kind) && is_rel(y.kind)))
    fail_at(at, fmt::format("mixing sets and relations in {}", what));
  if (is_set(x.kind) && is_set(y.kind))
    fail_at(at, fmt::format("mixing event sets and sets in {}", what));
  fail_at(at, fmt::format("mixing event relation and class relation in {}", what));
}

Value Run::inter2(const Where& at, const Where& a1, const Value& v1, const Where& a2,
                  const Value& v2) {
  const Value x = tag2set(v1), y = tag2set(v2);
  if (x.kind == y.kind) {
    switch (x.kind) {
      case VK::Rel: return v_rel(*x.rel & *y.rel);
      case VK::Set: {
        EventBits s = x.set;
        for (std::size_t w = 0; w < s.size(); ++w) s[w] &= y.set[w];
        return v_set(std::move(s));
      }
      case VK::ClassRel: {
        ClassRel r;
        for (const ClassPair& p : *x.crel)
          if (std::find(y.crel->begin(), y.crel->end(), p) != y.crel->end()) r.push_back(p);
        return v_classrel(std::move(r));
      }
      case VK::ValSet: {
        Values out;
        try {
          for (const Value& v : *x.elems)
            if (valset_has(*y.elems, v)) out.push_back(v);
          return make_valset(*x.elt, std::move(out));
        } catch (const CompareError& c) {
          fail_at(at, c.msg);
        }
      }
      default: break;
    }
  }
  if (x.kind == VK::Unv) return y;
  if (y.kind == VK::Unv) return x;
  if (x.kind == VK::Empty || y.kind == VK::Empty) return v_empty();
  mixed(at, a1, x, a2, y, "intersection");
}

// eval_diff (interpreter.ml): `_ \ e` complements e; `0` on the right is
// neutral, on the left absorbs.
Value Run::diff2(const Where& at, const Where& a1, const Value& v1, const Where& a2,
                 const Value& v2, const Env& env) {
  const Value x = tag2set(v1), y = tag2set(v2);
  if (x.kind == y.kind) {
    switch (x.kind) {
      case VK::Rel: return v_rel(*x.rel - *y.rel);
      case VK::Set: {
        EventBits s = x.set;
        for (std::size_t w = 0; w < s.size(); ++w) s[w] &= ~y.set[w];
        return v_set(std::move(s));
      }
      case VK::ClassRel: {
        ClassRel r;
        for (const ClassPair& p : *x.crel)
          if (std::find(y.crel->begin(), y.crel->end(), p) == y.crel->end()) r.push_back(p);
        return v_classrel(std::move(r));
      }
      case VK::ValSet: {
        Values out;
        try {
          for (const Value& v : *x.elems)
            if (!valset_has(*y.elems, v)) out.push_back(v);
          return make_valset(*x.elt, std::move(out));
        } catch (const CompareError& c) {
          fail_at(at, c.msg);
        }
      }
      default: break;
    }
  }
  const bool y_plain = y.kind == VK::Rel || y.kind == VK::ClassRel || y.kind == VK::Set ||
                       y.kind == VK::ValSet || y.kind == VK::Empty || y.kind == VK::Unv;
  const bool x_plain = x.kind == VK::Rel || x.kind == VK::ClassRel || x.kind == VK::Set ||
                       x.kind == VK::ValSet || x.kind == VK::Empty || x.kind == VK::Unv;
  if (x.kind == VK::Unv) {
    switch (y.kind) {
      case VK::Rel: return v_rel(u_.unv - *y.rel);
      case VK::Set: return diff2(at, a1, v_set(u_.all), a2, y, env);
      case VK::ValSet:
        if (y.elt->k == K::Tag)
          return diff2(at, a1, make_valset(*y.elt, tags_universe(env, y.elt->tag, a1)), a2, y, env);
        fail_at(a1, fmt::format("cannot build universe for element type {}", to_string(*y.elt)));
      case VK::ClassRel: fail_at(a1, "cannot build universe for element type classrel");
      case VK::Empty: return x;
      default: break;
    }
  }
  if (x_plain && y.kind == VK::Unv) return v_empty();
  if (x.kind == VK::Empty && y_plain) return v_empty();
  if (x_plain && y.kind == VK::Empty) return x;
  mixed(at, a1, x, a2, y, "difference");
}

ClassRel compose_classes(const ClassRel& a, const ClassRel& b) {
  ClassRel r;
  for (const auto& [x, y] : a)
    for (const auto& [y2, z] : b)
      if (y == y2) r.emplace_back(x, z);
  std::sort(r.begin(), r.end(), [](const ClassPair& p, const ClassPair& q) {
    const int c = compare_bits(p.first, q.first);
    return c ? c < 0 : compare_bits(p.second, q.second) < 0;
  });
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// Sequence (seq_args, seq_args_id, seq_args_rel): `_` is skipped, `[S]`
// restricts, an empty intermediate result stops the evaluation with 0, and
// relations over classes compose only with one another.
Value Run::seq_of(const Exp& e, const Env& env) {
  enum class Acc : std::uint8_t { Unv, Id, Rel, Class } acc = Acc::Unv;
  EventBits id;
  BitRel rel;
  ClassRel cls;
  for (const auto& ap : e.args) {
    const Exp& a = *ap;
    const bool to_id = a.kind == ExpKind::Op1 && a.op1 == Op1::ToId;
    Value v = eval(to_id ? *a.args[0] : a, env);
    if (v.kind == VK::Empty) return v_empty();
    if (v.kind == VK::Unv) continue;
    if (to_id && v.kind != VK::Set) mismatch(a.args[0]->at, "events", v);
    if (v.kind == VK::Pair) v = v_rel(pair_rel(v.a, v.b));
    if (!to_id && v.kind != VK::Rel && v.kind != VK::ClassRel) mismatch(a.at, "rel", v);
    if ((acc == Acc::Class) != (v.kind == VK::ClassRel) && acc != Acc::Unv)
      fail_at(a.at, "mixing relations in sequence");
    if (v.kind == VK::ClassRel) {
      cls = acc == Acc::Unv ? *v.crel : compose_classes(cls, *v.crel);
      acc = Acc::Class;
      continue;
    }
    if (to_id && acc == Acc::Unv) {
      id = v.set, acc = Acc::Id;
    } else if (to_id && acc == Acc::Id) {
      for (std::size_t w = 0; w < id.size(); ++w) id[w] &= v.set[w];
    } else if (to_id) {
      for (std::size_t i = 0; i < u_.n; ++i)
        for (std::size_t w = 0; w < rel.words(); ++w) rel.row(i)[w] &= v.set[w];
    } else if (acc == Acc::Unv) {
      rel = *v.rel, acc = Acc::Rel;
    } else if (acc == Acc::Id) {
      rel = set_to_rln(u_, id).compose(*v.rel), acc = Acc::Rel;
    } else {
      rel = rel.compose(*v.rel);
    }
    if ((acc == Acc::Id && bits_empty(id)) || (acc == Acc::Rel && rel.empty())) return v_empty();
  }
  switch (acc) {
    case Acc::Unv: return v_rel(u_.unv);
    case Acc::Id: return v_rel(set_to_rln(u_, id));
    case Acc::Rel: return v_rel(std::move(rel));
    case Acc::Class: return v_classrel(std::move(cls));
  }
  return v_empty();
}

// `e ++ S` (interpreter.ml, Op Add): an event to an event set, a pair to a
// relation, any value to a set of values of its type.
Value Run::add_of(const Exp& e, const Env& env) {
  const Exp &e1 = *e.args[0], &e2 = *e.args[1];
  const Value v1 = eval(e1, env), v2 = eval(e2, env);
  if (v1.kind == VK::Unv) fail_at(e.at, "universe in set ++");
  if (v2.kind == VK::Unv) return v2;
  try {
    if (v2.kind == VK::Empty) {
      if (v1.kind == VK::Event) return singleton_set(v1.a);
      if (v1.kind == VK::Pair) return v_rel(pair_rel(v1.a, v1.b));
      return make_valset(type_of(v1), {v1});
    }
    if (v1.kind == VK::Empty && v2.kind == VK::ValSet && v2.elt->k == K::Set) {
      Values vs = *v2.elems;
      vs.push_back(make_valset(v2.elt->elt[0], {}));
      return make_valset(*v2.elt, std::move(vs));
    }
    if (v2.kind == VK::ValSet) {
      Values vs = *v2.elems;
      vs.push_back(v1);
      return make_valset(type_of(v1), std::move(vs));
    }
  } catch (const CompareError& c) {
    fail_at(e.at, c.msg);
  }
  if (v2.kind == VK::Rel) {
    const Values p = v_as_vs(v1);
    if (v1.kind != VK::Pair && !(v1.kind == VK::Tuple && p.size() == 2 && p[0].kind == VK::Event &&
                                 p[1].kind == VK::Event))
      fail_at(e1.at, fmt::format("this expression of type '{}' should be a pair", type_name(v1)));
    BitRel r = *v2.rel;
    r.set(p[0].a, p[1].a);
    return v_rel(std::move(r));
  }
  if (v2.kind == VK::Set) {
    if (v1.kind != VK::Event)
      fail_at(e1.at, fmt::format("this expression of type '{}' should be an event", type_name(v1)));
    EventBits s = v2.set;
    set_bit(s, v1.a);
    return v_set(std::move(s));
  }
  if (v2.kind == VK::ClassRel)
    fail_at(e2.at, fmt::format("this expression of type '{}' cannot occur here", type_name(v2)));
  fail_at(e2.at, fmt::format("this expression of type '{}' should be a set", type_name(v2)));
}

// `{e1, ..., en}`: events make an event set, pairs a relation, other
// values a set of values of one type; `_` may not be an element.
Value Run::explicit_set(const Exp& e, const Env& env) {
  if (e.args.empty()) return v_empty();
  Values vs;
  for (const auto& a : e.args) {
    vs.push_back(eval(*a, env));
    if (vs.back().kind == VK::Unv) fail_at(a->at, "universe in explicit set");
  }
  Type t = type_of(vs[0]);
  for (std::size_t i = 1; i < vs.size(); ++i) {
    const Type ti = type_of(vs[i]);
    auto u = unify(t, ti);
    if (!u)
      fail_at(e.args[i]->at,
              fmt::format("type mismatch: {} expected, {} found", to_string(t), to_string(ti)));
    t = *u;
  }
  if (t.k == K::Event) {
    EventBits s(words_of(u_.n), 0);
    for (const Value& v : vs) set_bit(s, v.a);
    return v_set(std::move(s));
  }
  if (t.k == K::Pair) {
    BitRel r(u_.n, u_.budget);
    for (const Value& v : vs) r.set(v.a, v.b);
    return v_rel(std::move(r));
  }
  try {
    return make_valset(t, std::move(vs));
  } catch (const CompareError& c) {
    fail_at(e.at, c.msg);
  }
}

Value Run::closure(const Exp& fun, const Env& env) {
  Value v;
  v.kind = VK::Clo;
  v.a = next_id_++;
  v.clo = std::make_shared<const Closure>(Closure{&fun, env, nullptr});
  return v;
}

// The environment of a `let rec` group's functions: its base and every
// function of the group (env_rec_funs).
Env Run::with_group(const std::shared_ptr<const RecGroup>& g) {
  Env env = g->base;
  for (std::size_t i = 0; i < g->funs.size(); ++i) {
    Value v;
    v.kind = VK::Clo;
    v.a = g->ids[i];
    v.clo = std::make_shared<const Closure>(Closure{g->funs[i].second, g->base, g});
    env = bind_name(env, g->funs[i].first, ready(std::move(v)));
  }
  return env;
}

Env Run::rec_funs(const Env& env, const std::vector<const Binding*>& funs) {
  if (funs.empty()) return env;
  auto g = std::make_shared<RecGroup>();
  g->base = env;
  for (const Binding* b : funs) {
    g->funs.emplace_back(*b->pat.names[0], b->exp.get());
    g->ids.push_back(next_id_++);
  }
  return with_group(g);
}

// eval_app: a closure's body in its environment plus the arguments, or a
// primitive (its errors located at the application).
Value Run::apply(const Where& at, const Value& f, const Value& arg) {
  if (f.kind == VK::Prim) {
    try {
      return f.prim(u_, arg);
    } catch (const PrimError& p) {
      fail_at(at, fmt::format("primitive {}: {}", f.tag, p.msg));
    }
  }
  if (f.kind != VK::Clo) fail_at(at, "closure or primitive expected");
  const DepthGuard guard(depth_, floor_, at);
  if ((++ticks_ & 255U) == 0) check(u_.budget);
  const Closure& c = *f.clo;
  const Env env = c.group ? with_group(c.group) : c.env;
  return eval(*c.fun->body, add_args(at, c.fun->pat, arg, env));
}

// add_args: one name takes the whole argument, a tuple of names its
// components (a pair's are its events).
Env Run::add_args(const Where& at, const Pattern& pat, const Value& v, Env env) {
  const Values vs = pat.names.size() == 1 ? Values{v} : v_as_vs(v);
  if (vs.size() != pat.names.size()) fail_at(at, "argument_mismatch");
  for (std::size_t i = pat.names.size(); i-- > 0;)
    if (pat.names[i]) env = bind_name(env, *pat.names[i], ready(vs[i]));
  return env;
}

// add_pat_val: a tuple pattern binds lazy components of the value.
Env Run::add_pat(const Where& at, const Pattern& pat, std::shared_ptr<Thunk> t, Env env) {
  if (!pat.tuple) {
    if (!pat.names.empty() && pat.names[0]) env = bind_name(env, *pat.names[0], std::move(t));
    return env;
  }
  for (std::size_t i = 0; i < pat.names.size(); ++i) {
    if (!pat.names[i]) continue;
    auto p = std::make_shared<Thunk>();
    p->src = t;
    p->index = i;
    p->at = at;
    env = bind_name(env, *pat.names[i], std::move(p));
  }
  return env;
}

// eval_bds: `let p1 = e1 and ... pn = en`, each ei lazily in `env`.
Env Run::bind_lazy(const std::vector<Binding>& bds, const Env& env) {
  Env out = env;
  for (std::size_t i = bds.size(); i-- > 0;) {
    auto t = std::make_shared<Thunk>();
    t->exp = bds[i].exp.get();
    t->env = env;
    t->at = bds[i].at;
    out = add_pat(bds[i].at, bds[i].pat, std::move(t), out);
  }
  return out;
}

Value pat2empty(const Pattern& pat) {
  if (!pat.tuple) return v_empty();
  return v_tuple(Values(pat.names.size(), v_empty()));
}

// env_rec: functions are recursive closures; other bindings are computed
// together by iteration from 0 until no value grows (env_rec_vals,
// fix_step: each binding sees the new values of those before it), the
// `when` test (`check`) evaluated at each step.
std::optional<Env> Run::env_rec(const std::vector<Binding>& bds, const Env& env, const Where& at,
                                const std::function<bool(const Env&)>& when) {
  std::vector<const Binding*> funs, vals;
  for (const Binding& b : bds) {
    if (b.exp->kind != ExpKind::Fun) {
      vals.push_back(&b);
    } else if (b.pat.tuple || b.pat.names.empty() || !b.pat.names[0]) {
      fail_at(b.at, "binding mismatch");
    } else {
      funs.push_back(&b);
    }
  }
  if (vals.empty()) return rec_funs(env, funs);
  Values cur;
  for (const Binding* b : vals) cur.push_back(pat2empty(b->pat));
  const auto build = [&] {
    Env e = env;
    for (std::size_t i = 0; i < vals.size(); ++i)
      e = add_pat(vals[i]->at, vals[i]->pat, ready(cur[i]), e);
    return rec_funs(e, funs);
  };
  for (std::size_t iter = 0;; ++iter) {
    check(u_.budget);
    if (iter >= kMaxFixIterations)
      fatal_at(at, fmt::format("let rec: no fixpoint after {} iterations", kMaxFixIterations));
    const Values old = cur;
    for (std::size_t i = 0; i < vals.size(); ++i) cur[i] = eval(*vals[i]->exp, build());
    const Env done = build();
    if (!when(done)) return std::nullopt;
    bool over = true;
    for (std::size_t i = 0; i < vals.size() && over; ++i)
      over = stabilised(at, old[i], cur[i], done);
    if (over) return done;
  }
}

// stabilised: the new value is within the old one.
bool Run::stabilised(const Where& at, const Value& old, const Value& now, const Env& env) {
  if (now.kind == VK::Empty || old.kind == VK::Unv) return true;
  switch (now.kind) {
    case VK::Rel:
      if (old.kind == VK::Empty) return now.rel->empty();
      if (old.kind == VK::Rel) return (*now.rel - *old.rel).empty();
      break;
    case VK::Unv:
      if (old.kind == VK::Rel) return (u_.unv - *old.rel).empty();
      if (old.kind == VK::Set) return bits_subset(u_.all, old.set);
      if (old.kind == VK::ValSet && old.elt->k == K::Tag)
        return valset_subset(tags_universe(env, old.elt->tag, at), *old.elems);
      if (old.kind == VK::Empty) return false;
      break;
    case VK::ClassRel:
      if (old.kind == VK::Empty) return now.crel->empty();
      if (old.kind == VK::ClassRel)
        return std::all_of(now.crel->begin(), now.crel->end(), [&](const ClassPair& p) {
          return std::find(old.crel->begin(), old.crel->end(), p) != old.crel->end();
        });
      break;
    case VK::Set:
      if (old.kind == VK::Empty) return bits_empty(now.set);
      if (old.kind == VK::Set) return bits_subset(now.set, old.set);
      break;
    case VK::ValSet:
      if (old.kind == VK::Empty) return now.elems->empty();
      if (old.kind == VK::ValSet) {
        try {
          return valset_subset(*now.elems, *old.elems);
        } catch (const CompareError& c) {
          fail_at(at, c.msg);
        }
      }
      break;
    default: break;
  }
  fail_at(at, fmt::format("illegal recursion on type '{}'", type_name(now)));
}

Values Run::tags_universe(const Env& env, const std::string& type, const Where& at) {
  const auto it = env.enums->find(type);
  if (it == env.enums->end()) fail_at(at, fmt::format("no enum {}", type));
  Values vs;
  for (const std::string& t : it->second) vs.push_back(v_tag(type, t));
  std::sort(vs.begin(), vs.end(), [](const Value& a, const Value& b) { return a.tag < b.tag; });
  vs.erase(std::unique(vs.begin(), vs.end(),
                       [](const Value& a, const Value& b) { return a.tag == b.tag; }),
           vs.end());
  return vs;
}

Value Run::match_tag(const Exp& e, const Env& env) {
  const Exp& a = *e.args[0];
  const Value v = eval(a, env);
  if (v.kind == VK::Tag) {
    for (const Clause& c : e.clauses)
      if (c.tag == v.tag) return eval(*c.exp, env);
    if (e.deflt) return eval(*e.deflt, env);
    fail_at(e.at, fmt::format("pattern matching failed on value '{}'", v.tag));
  }
  if (v.kind == VK::Empty) fail_at(a.at, "matching on empty");
  if (v.kind == VK::Unv) fail_at(a.at, "matching on universe");
  fail_at(a.at, fmt::format("matching on non-tag value of type '{}'", type_name(v)));
}

// `match S with {} -> e || x ++ rest -> e'`: x is the least element
// (Set.choose); `pre | x ++ post` binds pre to {} (MySet.split3 splits at
// the chosen, least, element).
Value Run::match_set(const Exp& e, const Env& env) {
  const Exp& a = *e.args[0];
  const Value v = eval(a, env);
  Value elt, rest, pre;
  switch (v.kind) {
    case VK::Empty: return eval(*e.body, env);
    case VK::Unv: fail_at(e.at, "Cannot set-match on universe");
    case VK::Set: {
      std::size_t first = u_.n;
      for (std::size_t i = 0; i < u_.n && first == u_.n; ++i)
        if (has_bit(v.set, i)) first = i;
      if (first == u_.n) return eval(*e.body, env);
      EventBits s = v.set;
      s[first / 64] &= ~(1ULL << (first % 64));
      elt = v_event(first), rest = v_set(std::move(s)), pre = v_set(EventBits(s.size(), 0));
      break;
    }
    case VK::Rel: {
      if (v.rel->empty()) return eval(*e.body, env);
      std::size_t i = 0;
      while (v.rel->row_empty(i)) ++i;
      std::size_t j = u_.n;
      v.rel->for_each(i, [&](std::size_t k) { j = std::min(j, k); });
      BitRel r = *v.rel;
      r.set(i, j, false);
      elt = v_pair(i, j), rest = v_rel(std::move(r)), pre = v_rel(BitRel(u_.n, u_.budget));
      break;
    }
    case VK::ValSet: {
      if (v.elems->empty()) return eval(*e.body, env);
      elt = v.elems->front();
      rest = make_valset(*v.elt, Values(v.elems->begin() + 1, v.elems->end()));
      pre = make_valset(*v.elt, {});
      break;
    }
    default: fail_at(a.at, fmt::format("set-matching on non-set value of type '{}'", type_name(v)));
  }
  Env m = env;
  const SetClause& c = e.elt;
  if (c.pre_elt_post) {
    if (c.p1) m = bind_name(m, *c.p1, ready(pre));
    if (c.p2) m = bind_name(m, *c.p2, ready(elt));
    if (c.p3) m = bind_name(m, *c.p3, ready(rest));
  } else {
    if (c.p1) m = bind_name(m, *c.p1, ready(elt));
    if (c.p2) m = bind_name(m, *c.p2, ready(rest));
  }
  return eval(*c.exp, m);
}

bool Run::variant(const VariantCond& c) const {
  switch (c.kind) {
    case VariantCond::Kind::Variant:
      return std::find(variants_.begin(), variants_.end(), c.name) != variants_.end();
    case VariantCond::Kind::Not: return !variant(*c.a);
    case VariantCond::Kind::And: return variant(*c.a) && variant(*c.b);
    case VariantCond::Kind::Or: return variant(*c.a) || variant(*c.b);
  }
  return false;
}

// eval_cond: `e in S`, `e1 = e2` (ValOrder.compare), `e1 subset e2`.
bool Run::cond(const Exp& e, const Env& env) {
  const Cond& c = e.cond;
  if (c.kind == Cond::Kind::Variant) return variant(c.variant);
  const Value v1 = eval(*c.a, env);
  if (c.kind == Cond::Kind::In) {
    if (v1.kind == VK::Event) return has_bit(eval_events(*c.b, env), v1.a);
    const Values p = v_as_vs(v1);
    if (v1.kind == VK::Pair ||
        (v1.kind == VK::Tuple && p.size() == 2 && p[0].kind == VK::Event && p[1].kind == VK::Event))
      return eval_rel(*c.b, env).has(p[0].a, p[1].a);
    const Value v2 = eval(*c.b, env);
    if (v2.kind != VK::ValSet)
      fail_at(c.b->at, fmt::format("set expected, found {}", type_name(v2)));
    if (!unify(type_of(v1), *v2.elt) &&
        !(type_of(v1).k == K::Tag && v2.elt->k == K::Tag && type_of(v1).tag == v2.elt->tag))
      fail_at(c.a->at, fmt::format("type mismatch: {} expected, {} found", to_string(*v2.elt),
                                   type_name(v1)));
    try {
      return valset_has(*v2.elems, v1);
    } catch (const CompareError& err) {
      fail_at(e.at, err.msg);
    }
  }
  const Value v2 = eval(*c.b, env);
  if (c.kind == Cond::Kind::Eq) {
    try {
      return compare(v1, v2) == 0;
    } catch (const CompareError& err) {
      fail_at(e.at, err.msg);
    }
  }
  const auto t = unify(type_of(v1), type_of(v2));
  if (!t || v1.kind == VK::Unv || v2.kind == VK::Unv) {
    if (v1.kind != VK::Unv && v2.kind != VK::Unv)
      fail_at(c.b->at,
              fmt::format("type mismatch: {} expected, {} found", type_name(v1), type_name(v2)));
  }
  const K k = t ? t->k : (v1.kind == VK::Unv ? type_of(v2).k : type_of(v1).k);
  if (k == K::Rel) {
    const auto as_rel = [&](const Value& v) {
      return v.kind == VK::Rel ? *v.rel : v.kind == VK::Unv ? u_.unv : BitRel(u_.n);
    };
    return (as_rel(v1) - as_rel(v2)).empty();
  }
  if (k == K::Events) {
    const auto as_set = [&](const Value& v) {
      return v.kind == VK::Set ? v.set : v.kind == VK::Unv ? u_.all : EventBits(u_.all.size(), 0);
    };
    return bits_subset(as_set(v1), as_set(v2));
  }
  if (k == K::Set) {
    const Values none;
    try {
      return valset_subset(v1.kind == VK::ValSet ? *v1.elems : none,
                           v2.kind == VK::ValSet ? *v2.elems : none);
    } catch (const CompareError& err) {
      fail_at(e.at, err.msg);
    }
  }
  fail_at(e.at, fmt::format("cannot perform subset on type '{}'", to_string(Type{k, {}, {}})));
}

// eval_rel, eval_events: a relation (a pair is one), an event set (an
// event is one); 0 and _ as such.
BitRel Run::eval_rel(const Exp& e, const Env& env) {
  const Value v = eval(e, env);
  switch (v.kind) {
    case VK::Rel: return *v.rel;
    case VK::Pair: return pair_rel(v.a, v.b);
    case VK::Empty: return BitRel(u_.n, u_.budget);
    case VK::Unv: return u_.unv;
    default: mismatch(e.at, "rel", v);
  }
}

EventBits Run::eval_events(const Exp& e, const Env& env) {
  const Value v = eval(e, env);
  switch (v.kind) {
    case VK::Set: return v.set;
    case VK::Event: return singleton_set(v.a).set;
    case VK::Empty: return EventBits(words_of(u_.n), 0);
    case VK::Unv: return u_.all;
    default: mismatch(e.at, "events", v);
  }
}

// eval_test, test2pred: acyclic, irreflexive, empty on relations,
// relations over classes and (empty only) event sets.
bool Run::test(const AppTest& t, const Env& env) {
  Value v = eval(*t.exp, env);
  switch (v.kind) {
    case VK::Event: v = singleton_set(v.a); break;
    case VK::Pair: v = v_rel(pair_rel(v.a, v.b)); break;
    case VK::Empty: v = v_rel(BitRel(u_.n, u_.budget)); break;
    case VK::Unv: v = v_rel(u_.unv); break;
    case VK::Rel:
    case VK::Set:
    case VK::ClassRel: break;
    default: fail_at(t.exp->at, "relation or set expected");
  }
  bool ok = false;
  if (v.kind == VK::Set && t.kind != TestKind::Empty) fail_at(t.exp->at, "relation expected");
  switch (t.kind) {
    case TestKind::Acyclic:
      ok = v.kind == VK::Rel ? v.rel->acyclic() : classrel_acyclic(*v.crel);
      break;
    case TestKind::Irreflexive:
      ok = v.kind == VK::Rel ? v.rel->irreflexive()
                             : std::none_of(v.crel->begin(), v.crel->end(),
                                            [](const ClassPair& p) { return p.first == p.second; });
      break;
    case TestKind::Empty:
      ok = v.kind == VK::Rel   ? v.rel->empty()
           : v.kind == VK::Set ? bits_empty(v.set)
                               : v.crel->empty();
      break;
  }
  return ok != t.negated;
}

// ---------------------------------------------------------------------------
// Instructions (interpreter.ml `exec`, `run`): each branch's state flows
// to the continuation `k`; a failing check ends its branch (kfail).

void Run::fail_branch(const State& st, const AppTest& t) {
  std::string name;
  if (t.name) {
    name = *t.name;
  } else if (!st.calls.empty() && st.calls.back()) {
    name = *st.calls.back();
  } else {
    name = fmt::format("{}:{}:{}", t.at.file ? *t.at.file : std::string(), t.at.loc.line,
                       t.at.loc.col);
  }
  verdict_.failing = {name};
}

// exec_test: a disabled (skipped) test is not evaluated; a check that
// fails ends the branch; undefined_unless marks it undefined; a flag holds
// its name when its test holds; an assert that fails is an error.
bool Run::exec_test(State& st, const AppTest& t) {
  if (t.name && !enabled_(*t.name)) return true;
  const bool ok = test(t, st.env);
  if (ok) {
    if (t.type == TestType::Flagged && t.name) st.flags.insert(*t.name);
    return true;
  }
  switch (t.type) {
    case TestType::Check: fail_branch(st, t); return false;
    case TestType::UndefinedUnless: st.undef = true; return true;
    case TestType::Flagged: return true;
    case TestType::Assert:
      fatal_at(t.at, fmt::format("{} assertion failed, check input test.",
                                 t.name ? *t.name : std::string("(unknown)")));
  }
  return true;
}

void Run::run(State st, const std::vector<Ins>& body, std::size_t i, const Kont& k) {
  const auto next = [&](std::size_t from) {
    return [&, from](State s) { run(std::move(s), body, from, k); };
  };
  for (; i < body.size(); ++i) {
    const Ins& ins = body[i];
    check(u_.budget);
    switch (ins.kind) {
      case InsKind::Let: st.env = bind_lazy(ins.bindings, st.env); break;
      case InsKind::Rec: {
        const auto when = [&](const Env& env) {
          if (!ins.test || (ins.test->name && !enabled_(*ins.test->name))) return true;
          return test(*ins.test, env);
        };
        auto env = env_rec(ins.bindings, st.env, ins.at, when);
        if (!env) return fail_branch(st, *ins.test);
        st.env = *env;
        break;
      }
      case InsKind::Test:
        if (!exec_test(st, *ins.test)) return;
        break;
      case InsKind::UnShow:
      case InsKind::Show:
      case InsKind::ShowAs:
      case InsKind::Debug:
      case InsKind::Events:  // bell constructs: ignored when running a model
        break;
      case InsKind::Include: {
        const Program* p = included(ins);
        if (!p) break;
        const DepthGuard guard(depth_, floor_, ins.at);
        return run(std::move(st), p->body, 0, next(i + 1));
      }
      case InsKind::Procedure: {
        Value p;
        p.kind = VK::Proc;
        p.proc = std::make_shared<const Procedure>(Procedure{&ins, st.env});
        st.env = bind_name(st.env, ins.name, ready(std::move(p)));
        break;
      }
      case InsKind::Call: return call(std::move(st), ins, next(i + 1));
      case InsKind::Enum: {
        auto tags = std::make_shared<Tags>(*st.env.tags);
        for (const std::string& t : ins.names) (*tags)[t] = ins.name;
        auto enums = std::make_shared<Enums>(*st.env.enums);
        (*enums)[ins.name] = ins.names;
        st.env.tags = std::move(tags);
        st.env.enums = std::move(enums);
        Values all;
        for (const std::string& t : ins.names) all.push_back(v_tag(ins.name, t));
        st.env = bind_name(st.env, ins.name, ready(make_valset(Type{K::Tag, ins.name, {}}, all)));
        break;
      }
      case InsKind::Forall: return forall(std::move(st), ins, next(i + 1));
      case InsKind::WithFrom: return with_from(st, ins, next(i + 1));
      case InsKind::IfVariant: {
        const DepthGuard guard(depth_, floor_, ins.at);
        return run(std::move(st), variant(ins.variant) ? ins.body : ins.else_body, 0, next(i + 1));
      }
      case InsKind::InsMatch: {
        const Value v = eval(*ins.exp, st.env);
        if (v.kind != VK::Tag) {
          if (v.kind == VK::Empty) fail_at(ins.exp->at, "matching on empty");
          if (v.kind == VK::Unv) fail_at(ins.exp->at, "matching on universe");
          fail_at(ins.exp->at, fmt::format("matching on non-tag value of type '{}'", type_name(v)));
        }
        const std::vector<Ins>* chosen = nullptr;
        for (const auto& [tag, b] : ins.clauses)
          if (!chosen && tag == v.tag) chosen = &b;
        if (!chosen && ins.deflt) chosen = &*ins.deflt;
        if (!chosen) fail_at(ins.at, fmt::format("pattern matching failed on value '{}'", v.tag));
        const DepthGuard guard(depth_, floor_, ins.at);
        return run(std::move(st), *chosen, 0, next(i + 1));
      }
    }
  }
  k(std::move(st));
}

// `call P(e) [as n]`: not run at all when n or P is a disabled name (herd's
// skipchecks, without strictskip); checks inside keep their own names, an
// unnamed one reports n. The caller's environment comes back after it.
void Run::call(State st, const Ins& ins, const Kont& k) {
  if ((ins.as && !enabled_(*ins.as)) || !enabled_(ins.name)) return k(std::move(st));
  const auto* t = lookup(st.env, ins.name);
  if (!t) fail_at(ins.at, fmt::format("'{}' is not bound: no procedure of this name", ins.name));
  const Value p = force(*t);
  if (p.kind != VK::Proc) fatal_at(ins.at, "procedure expected");
  const Ins& def = *p.proc->ins;
  Env penv = p.proc->env;
  if (def.rec) penv = bind_name(penv, def.name, ready(p));
  const Value arg = eval(*ins.exp, st.env);
  const Env caller = st.env;
  st.env = add_args(ins.at, def.pat, arg, penv);
  st.calls.push_back(ins.as ? ins.as : std::optional<std::string>(ins.name));
  const DepthGuard guard(depth_, floor_, ins.at);
  run(std::move(st), def.body, 0, [&](State s) {
    s.env = caller;
    s.calls.pop_back();
    k(std::move(s));
  });
}

// `forall x in S do body end`: the body once per element (a tag is the set
// of it), each time in the environment before the loop.
void Run::forall(State st, const Ins& ins, const Kont& k) {
  const Value v = tag2set(eval(*ins.exp, st.env));
  if (v.kind == VK::Empty) return k(std::move(st));
  if (v.kind != VK::ValSet) fail_at(ins.exp->at, "forall instruction applied to non-set value");
  const Env env0 = st.env;
  const DepthGuard guard(depth_, floor_, ins.at);
  std::function<void(State, std::size_t)> from = [&](State s, std::size_t idx) {
    if (idx == v.elems->size()) {
      s.env = env0;
      return k(std::move(s));
    }
    s.env = bind_name(env0, ins.name, ready((*v.elems)[idx]));
    run(std::move(s), ins.body, 0, [&, idx](State s2) { from(std::move(s2), idx + 1); });
  };
  from(std::move(st), 0);
}

// `with x from S`: the rest of the model once per element of S; the
// execution is allowed when some branch reaches the end. An empty S
// leaves no branch.
void Run::with_from(const State& st, const Ins& ins, const Kont& k) {
  const Value v = eval(*ins.exp, st.env);
  if (v.kind == VK::Empty) return;
  if (v.kind != VK::ValSet) fail_at(ins.exp->at, "set expected");
  const DepthGuard guard(depth_, floor_, ins.at);
  for (const Value& e : *v.elems) {
    check(u_.budget);
    State s = st;
    s.env = bind_name(st.env, ins.name, ready(e));
    k(std::move(s));
  }
}

void Run::index_includes(const std::vector<Ins>& body) {
  for (const Ins& i : body) {
    if (i.kind == InsKind::Include && i.included) {
      includes_->emplace(i.name, i.included.get());
      index_includes(i.included->body);
    }
    index_includes(i.body);
    index_includes(i.else_body);
    for (const auto& c : i.clauses) index_includes(c.second);
    if (i.deflt) index_includes(*i.deflt);
  }
}

// herd7 runs a file each time it is included (do_include); the loader reads
// it once, and a later include of it (`repeat`) has no Program of its own:
// it is the one an earlier include of the same name holds (that include
// may sit in a branch not taken, as cos-ok-opt.cat's cross.cat does).
const Program* Run::included(const Ins& ins) {
  if (ins.included) return ins.included.get();
  if (!includes_) {
    includes_.emplace();
    if (prelude_) index_includes(prelude_->body);
    index_includes(model_->body);
  }
  const auto it = includes_->find(ins.name);
  if (it != includes_->end()) return it->second;
  if (ins.repeat) return nullptr;  // read by another name: it ran (ast.hpp)
  fail_at(ins.at, fmt::format("include \"{}\": not loaded", ins.name));
}

Verdict Run::go(const Program* prelude, const Program& model) {
  prelude_ = prelude;
  model_ = &model;
  State st;
  st.env.enums = std::make_shared<const Enums>();
  st.env.tags = std::make_shared<const Tags>();
  const Execution& x = *u_.x;
  bool has_id = false;
  for (const auto& [name, s] : x.sets) st.env = bind_name(st.env, name, ready(v_set(s)));
  for (const auto& [name, r] : x.rels) {
    // Aliasing: the execution outlives the run; no copy.
    Value v;
    v.kind = VK::Rel;
    v.rel = std::shared_ptr<const BitRel>(std::shared_ptr<const BitRel>(), &r);
    st.env = bind_name(st.env, name, ready(std::move(v)));
    has_id = has_id || name == "id";
  }
  if (!has_id) st.env = bind_name(st.env, "id", ready(v_rel(u_.id)));
  const auto& prims = primitives();
  for (std::size_t i = 0; i < prims.size(); ++i) {
    Value p;
    p.kind = VK::Prim;
    p.a = i;
    p.tag = prims[i].name;
    p.prim = prims[i].fn;
    st.env = bind_name(st.env, prims[i].name, ready(std::move(p)));
  }
  const Kont done = [&](State s) {
    verdict_.allowed = true;
    verdict_.undefined = verdict_.undefined || s.undef;
    flags_.insert(s.flags.begin(), s.flags.end());
  };
  const Kont then_model = [&](State s) { run(std::move(s), model.body, 0, done); };
  if (prelude)
    run(std::move(st), prelude->body, 0, then_model);
  else
    then_model(std::move(st));
  verdict_.flags.assign(flags_.begin(), flags_.end());
  if (verdict_.allowed) verdict_.failing.clear();
  return verdict_;
}

}  // namespace
}  // namespace detail

Interpreter::Interpreter(std::shared_ptr<const Program> prelude,
                         std::shared_ptr<const Program> model, std::vector<std::string> variants,
                         std::function<bool(std::string_view)> enabled)
    : prelude_(std::move(prelude)),
      model_(std::move(model)),
      variants_(std::move(variants)),
      enabled_(std::move(enabled)) {
  if (!enabled_) enabled_ = [](std::string_view) { return true; };
}

Verdict Interpreter::run(const Execution& x, const Budget* budget) const {
  detail::Run r(x, budget, variants_, enabled_);
  return r.go(prelude_.get(), *model_);
}

// ---------------------------------------------------------------------------
// interface_of: a walk over the model and its includes, with the names in
// scope at each point.

namespace {

struct Walker {
  Interface out;
  std::set<std::string> bound;  // by the engine, the prelude, the primitives
  std::set<std::string> top;    // bound at the top level so far
  std::set<std::string> needs, checks, flags, variants;

  static void add(std::vector<std::string>& v, std::set<std::string>& seen, const std::string& s) {
    if (seen.insert(s).second) v.push_back(s);
  }

  void pattern(const Pattern& p, std::vector<std::string>& scope) {
    for (const auto& n : p.names)
      if (n) scope.push_back(*n);
  }

  void variant(const VariantCond& c) {
    if (c.kind == VariantCond::Kind::Variant) add(out.variants, variants, c.name);
    if (c.a) variant(*c.a);
    if (c.b) variant(*c.b);
  }

  void exp(const Exp& e, std::vector<std::string>& scope, bool in_try) {
    const std::size_t mark = scope.size();
    switch (e.kind) {
      case ExpKind::Var:
        if (!in_try && std::find(scope.begin(), scope.end(), e.name) == scope.end() &&
            !top.count(e.name) && !bound.count(e.name))
          add(out.needs, needs, e.name);
        break;
      case ExpKind::Bind:
        for (const Binding& b : e.bindings) exp(*b.exp, scope, in_try);
        for (const Binding& b : e.bindings) pattern(b.pat, scope);
        exp(*e.body, scope, in_try);
        break;
      case ExpKind::BindRec:
        for (const Binding& b : e.bindings) pattern(b.pat, scope);
        for (const Binding& b : e.bindings) exp(*b.exp, scope, in_try);
        exp(*e.body, scope, in_try);
        break;
      case ExpKind::Fun:
        pattern(e.pat, scope);
        exp(*e.body, scope, in_try);
        break;
      case ExpKind::MatchSet:
        exp(*e.args[0], scope, in_try);
        exp(*e.body, scope, in_try);
        for (const auto* n : {&e.elt.p1, &e.elt.p2, &e.elt.p3})
          if (*n) scope.push_back(**n);
        exp(*e.elt.exp, scope, in_try);
        break;
      case ExpKind::Try:
        exp(*e.args[0], scope, true);
        exp(*e.args[1], scope, in_try);
        break;
      case ExpKind::If:
        if (e.cond.kind == Cond::Kind::Variant) variant(e.cond.variant);
        if (e.cond.a) exp(*e.cond.a, scope, in_try);
        if (e.cond.b) exp(*e.cond.b, scope, in_try);
        for (const auto& a : e.args) exp(*a, scope, in_try);
        break;
      default:
        for (const auto& a : e.args) exp(*a, scope, in_try);
        for (const Clause& c : e.clauses) exp(*c.exp, scope, in_try);
        if (e.deflt) exp(*e.deflt, scope, in_try);
        break;
    }
    scope.resize(mark);
  }

  void define(const std::string& name, std::vector<std::string>& scope, bool at_top) {
    if (at_top) {
      top.insert(name);
      if (std::find(out.defines.begin(), out.defines.end(), name) == out.defines.end())
        out.defines.push_back(name);
    } else {
      scope.push_back(name);
    }
  }

  void test(const AppTest& t, std::vector<std::string>& scope) {
    exp(*t.exp, scope, false);
    if (!t.name) return;
    if (t.type == TestType::Check) add(out.checks, checks, *t.name);
    if (t.type == TestType::Flagged) add(out.flags, flags, *t.name);
  }

  void body(const std::vector<Ins>& is, std::vector<std::string>& scope, bool at_top) {
    for (const Ins& i : is) ins(i, scope, at_top);
  }

  void ins(const Ins& i, std::vector<std::string>& scope, bool at_top) {
    switch (i.kind) {
      case InsKind::Let:
        for (const Binding& b : i.bindings) exp(*b.exp, scope, false);
        for (const Binding& b : i.bindings)
          for (const auto& n : b.pat.names)
            if (n) define(*n, scope, at_top);
        break;
      case InsKind::Rec:
        for (const Binding& b : i.bindings)
          for (const auto& n : b.pat.names)
            if (n) define(*n, scope, at_top);
        for (const Binding& b : i.bindings) exp(*b.exp, scope, false);
        if (i.test) test(*i.test, scope);
        break;
      case InsKind::Test: test(*i.test, scope); break;
      case InsKind::ShowAs:
      case InsKind::Debug: exp(*i.exp, scope, true); break;
      case InsKind::Include:
        if (i.included && !i.repeat) body(i.included->body, scope, at_top);
        break;
      case InsKind::Procedure: {
        define(i.name, scope, at_top);
        const std::size_t mark = scope.size();
        pattern(i.pat, scope);
        body(i.body, scope, false);
        scope.resize(mark);
        break;
      }
      case InsKind::Call: exp(*i.exp, scope, false); break;
      case InsKind::Enum: define(i.name, scope, at_top); break;
      case InsKind::Forall: {
        exp(*i.exp, scope, false);
        const std::size_t mark = scope.size();
        scope.push_back(i.name);
        body(i.body, scope, false);
        scope.resize(mark);
        break;
      }
      case InsKind::WithFrom:
        exp(*i.exp, scope, false);
        define(i.name, scope, at_top);
        break;
      case InsKind::IfVariant:
        variant(i.variant);
        body(i.body, scope, at_top);
        body(i.else_body, scope, at_top);
        break;
      case InsKind::InsMatch:
        exp(*i.exp, scope, false);
        for (const auto& c : i.clauses) body(c.second, scope, at_top);
        if (i.deflt) body(*i.deflt, scope, at_top);
        break;
      default: break;
    }
  }
};

}  // namespace

Interface interface_of(const Program& model, const std::vector<std::string>& bound) {
  Walker w;
  w.bound.insert(bound.begin(), bound.end());
  w.bound.insert("id");
  for (const auto& p : detail::primitives()) w.bound.insert(p.name);
  std::vector<std::string> scope;
  w.body(model.body, scope, true);
  return std::move(w.out);
}

}  // namespace redscope::cat::herd
