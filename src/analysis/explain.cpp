// `redscope explain`: the axioms that forbid an outcome (a minimal unsat
// core over the axiom literals, per path) and, for each, the edges of the
// execution that would need it broken; or a witness for an allowed outcome.
#include "redscope/analysis/explain.hpp"
#include "redscope/core/json.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/execution_words.hpp"
#include "analysis/model_view.hpp"
#include "analysis/read_values.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/cat_eval.hpp"
#include "redscope/model/primitives.hpp"
#include "redscope/report/report.hpp"

namespace redscope {

std::string describe_event(const Skeleton& sk, EventId e) {
  const Event& x = sk.ev(e);
  if (x.is_init) return fmt::format("the initial value of {}", x.loc);
  std::string half;
  if (x.in_rmw) half = x.is_read() ? " (its read)" : " (its write)";
  return fmt::format("P{}'s {}{}", x.thread, x.text, half);
}

namespace {

struct Target {
  std::vector<Observable> obs;
  std::vector<std::uint64_t> values;  // with an outcome
  std::string text;
};

Target parse_target(const LitmusTest& test, const Expansion& ex, const ExplainRequest& req) {
  Target t;
  if (!req.outcome) {
    t.obs = observables_of(test, ex, false);
    t.text = fmt::format("the condition {}", test.condition_text);
    return t;
  }
  const std::vector<Observable> all = observables_of(test, ex, true);
  std::stringstream ss(*req.outcome);
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
      return s;
    };
    item = trim(item);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(fmt::format("--outcome: '{}' is not LABEL=VALUE", item));
    const std::string label = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    auto it =
        std::find_if(all.begin(), all.end(), [&](const Observable& o) { return o.label == label; });
    if (it == all.end())
      throw std::invalid_argument(
          fmt::format("--outcome: the test has no register or location '{}'", label));
    const auto bits = literal_bits(value, it->type);
    if (!bits)
      throw std::invalid_argument(
          fmt::format("--outcome: '{}' is not a value of {}'s type", value, label));
    t.obs.push_back(*it);
    t.values.push_back(*bits);
    t.text += (t.text.empty() ? "" : "; ") + label + "=" + value;
  }
  if (t.obs.empty()) throw std::invalid_argument("--outcome names no register or location");
  return t;
}

// One path's query with the target asserted. `test_obs`: the test's own
// observables (condition, filter, locations), which the filter is read over
// whatever the target names.
std::unique_ptr<Query> path_query(QuerySession& session, const Skeleton& sk,
                                  const QueryModel& model, const LitmusTest& test, const Target& t,
                                  const std::vector<Observable>& test_obs, const Budget* budget) {
  auto q = std::make_unique<Query>(session, sk, model, budget);
  if (t.values.empty())
    q->require_condition(test.condition, t.obs);
  else
    q->require_values(t.obs, t.values);
  if (test.filter) q->require_condition(*test.filter, test_obs);
  q->require_normal_end();
  return q;
}

std::vector<std::string> without(std::vector<std::string> v, const std::string& a) {
  v.erase(std::remove(v.begin(), v.end(), a), v.end());
  return v;
}

// --- the edges that break an axiom, read off the execution -----------------
//
// The execution (the Z3 model's choice, or the one the enumerator reached
// without the axiom) is evaluated concretely with the model's
// own text (cat::Evaluator), and the relation the failing check constrains
// is taken apart: a cycle (acyclic), a pair (empty) or a loop (irreflexive),
// each step derived down to the relations the model starts from. A step is
// shown in a let-bound name only where its definition is no path (it holds
// an inverse, as fr = rf^-1 ; co does). Works for any model.
class Breaker {
 public:
  // `exec` on `sk` under `model` (its primitives that do not depend on the
  // execution: `prims`); `values`: what its executed reads read.
  Breaker(const Skeleton& sk, const QueryModel& model, const cat::StaticPrimitives& prims,
          ChosenExecution exec, std::map<EventId, std::uint64_t> values, const Budget* budget)
      : budget_(budget),
        values_(std::move(values)),
        sk_(sk),
        m_(model.model()),
        exec_(std::move(exec)),
        view_(sk, model, prims, &exec_, budget) {}

  Breach breach(const std::string& axiom) {
    Breach b;
    b.axiom = axiom;
    for (const cat::Stmt& st : m_.stmts)
      if (st.check && !st.check->flag && st.check->name == axiom && broken(*st.check, b)) break;
    if (b.why.empty()) b.why = axiom + ": the execution below breaks it";
    return b;
  }

 private:
  struct Step {
    std::vector<ExecEdge> edges;
    std::vector<std::string> notes;
  };

  std::string ev(EventId e) const { return describe_event(sk_, e); }
  // "x=1": the value a read returns.
  std::string value_words(EventId e) const {
    const auto it = values_.find(e);
    return fmt::format("{}={}", sk_.ev(e).loc, it == values_.end() ? 0 : it->second);
  }
  std::size_t n() const { return sk_.size(); }

  bool broken(const cat::Check& c, Breach& b) {
    const cat::Value v = view_.eval(*c.expr);
    const std::string text = cat::to_text(m_, *c.expr);
    Step st;
    if (c.negated) {
      b.why = fmt::format("{}: {} must not be empty, and is", b.axiom, text);
      return true;
    }
    if (c.kind == cat::CheckKind::Acyclic) {
      const std::vector<std::pair<EventId, EventId>> cyc = cycle(v.rel);
      if (cyc.empty()) return false;
      for (const auto& [u, w] : cyc) append(st, derive(*c.expr, u, w, 0));
      b.why = fmt::format("{}: a cycle in {}", b.axiom, text);
    } else if (c.kind == cat::CheckKind::Irreflexive) {
      const auto a = first_pair(v.rel, true);
      if (!a) return false;
      st = derive(*c.expr, a->first, a->first, 0);
      b.why = fmt::format("{}: {} relates {} to itself", b.axiom, text, ev(a->first));
    } else if (c.expr->type == cat::Type::Rel) {
      const auto a = first_pair(v.rel, false);
      if (!a) return false;
      st = derive(*c.expr, a->first, a->second, 0);
      b.why = fmt::format("{}: {} relates {} to {}", b.axiom, text, ev(a->first), ev(a->second));
    } else {
      for (EventId e = 0; e < n(); ++e)
        if ((v.set[e / 64] >> (e % 64)) & 1U) {
          b.why = fmt::format("{}: {} holds {}", b.axiom, text, ev(e));
          return true;
        }
      return false;
    }
    for (const std::string& note : st.notes) b.why += "; " + note;
    if (!st.edges.empty())
      b.why += fmt::format(" ({} step{}, below)", st.edges.size(), st.edges.size() == 1 ? "" : "s");
    b.edges = std::move(st.edges);
    return true;
  }

  static void append(Step& into, Step s) {
    for (ExecEdge& e : s.edges) into.edges.push_back(std::move(e));
    for (std::string& x : s.notes)
      if (std::find(into.notes.begin(), into.notes.end(), x) == into.notes.end())
        into.notes.push_back(std::move(x));
  }

  static std::optional<std::pair<EventId, EventId>> first_pair(const BitRel& r, bool diagonal) {
    for (EventId a = 0; a < r.size(); ++a)
      for (EventId b = 0; b < r.size(); ++b)
        if (r.has(a, b) && (!diagonal || a == b)) return std::pair{a, b};
    return std::nullopt;
  }

  // A shortest cycle of r, as its edges.
  std::vector<std::pair<EventId, EventId>> cycle(const BitRel& r) const {
    std::vector<std::pair<EventId, EventId>> best;
    for (EventId s = 0; s < n(); ++s) {
      const std::vector<EventId> p = path(r, s, s);
      if (!p.empty() && (best.empty() || p.size() - 1 < best.size())) {
        best.clear();
        for (std::size_t i = 0; i + 1 < p.size(); ++i) best.emplace_back(p[i], p[i + 1]);
      }
    }
    return best;
  }

  // A shortest path of one or more r-steps from a to b (its events), or none.
  static std::vector<EventId> path(const BitRel& r, EventId a, EventId b) {
    const std::size_t n = r.size();
    std::vector<std::optional<EventId>> via(n);
    std::deque<EventId> q;
    for (EventId v = 0; v < n; ++v)
      if (r.has(a, v) && !via[v]) via[v] = a, q.push_back(v);
    while (!q.empty() && !via[b]) {
      const EventId u = q.front();
      q.pop_front();
      for (EventId v = 0; v < n; ++v)
        if (r.has(u, v) && !via[v]) via[v] = u, q.push_back(v);
    }
    if (!via[b]) return {};
    std::vector<EventId> p{b};
    for (EventId v = *via[b]; p.size() <= n; v = *via[v]) {
      p.insert(p.begin(), v);
      if (v == a && p.size() > 1) break;
    }
    return p;
  }

  bool has(const cat::Expr& e, EventId u, EventId v) const { return view_.eval(e).rel.has(u, v); }

  // A step in a primitive, with words for the engine's own relations.
  Step primitive_step(const std::string& name, EventId u, EventId v) const {
    Step s{{ExecEdge{u, v, name}}, {}};
    if (name == "rf")
      s.notes.push_back(fmt::format("{} reads {} from {}", ev(v), value_words(v), ev(u)));
    else if (name == "sf")
      s.notes.push_back(fmt::format("{} precedes {} in Fence-SC order", ev(u), ev(v)));
    else if (name == "sync_barrier")
      s.notes.push_back(fmt::format("{} arrives before {} passes", ev(u), ev(v)));
    return s;
  }

  static bool symmetric(const BitRel& r) { return r == r.inverse(); }

  // Why (u, v) is in e: the steps from u to v. `depth` 0: the check's own
  // expression, where a let-bound name is always opened. Names opened
  // within names can double the work per name (`let a1 = a0 ; a0`, ...), so
  // a derivation stops after kMaxDerive steps (a note says so) and checks
  // the budget at each.
  static constexpr std::size_t kMaxDerive = 100'000;
  Step derive(const cat::Expr& e, EventId u, EventId v, int depth) {
    using cat::Op;
    if (depth > cat::kMaxNesting) return {};
    if (++derived_ > kMaxDerive)
      return {{}, {fmt::format("(the derivation stops after {} steps)", kMaxDerive)}};
    check(budget_);
    switch (e.op) {
      case Op::Ref: {
        const cat::Slot& slot = m_.slots[e.slot];
        // ms (a property of the pair, primitive or defined) is stated, not opened.
        if (slot.primitive || slot.name == "ms") return primitive_step(slot.name, u, v);
        const cat::Expr* def = view_.definition(e.slot);
        if (!def) return {{ExecEdge{u, v, slot.name}}, {}};
        Step inner = derive(*def, u, v, depth + 1);
        if (depth > 0 && u != v && slot.name == "sync")
          inner.notes.insert(inner.notes.begin(),
                             fmt::format("{} synchronizes with {}", ev(u), ev(v)));
        // No path (fr = rf^-1 ; co): one step under its name, with its notes.
        if (depth > 0 && has_inverse(*def, 0)) return {{ExecEdge{u, v, slot.name}}, inner.notes};
        return inner;
      }
      case Op::Union: {  // n-ary: the first operand that holds the pair
        std::size_t i = 0;
        while (i + 1 < e.args.size() && !has(*e.args[i], u, v)) ++i;
        return derive(*e.args[i], u, v, depth + 1);
      }
      case Op::Inter: return intersection(e, u, v, depth);
      case Op::Diff: {  // n-ary: args[0] minus every other
        Step s = derive(*e.args[0], u, v, depth + 1);
        for (std::size_t i = 1; i < e.args.size(); ++i)
          s.notes.push_back(
              fmt::format("{} and {} are not in {}", ev(u), ev(v), cat::to_text(m_, *e.args[i])));
        return s;
      }
      case Op::Seq: return sequence(e, u, v, depth);
      case Op::Plus:
      case Op::Star:
      case Op::Opt: {
        if (u == v && e.op != Op::Plus) return {};
        const BitRel r = view_.eval(*e.args[0]).rel;
        if (e.op == Op::Opt) return derive(*e.args[0], u, v, depth + 1);
        const std::vector<EventId> p = path(r, u, v);
        Step s;
        for (std::size_t i = 0; i + 1 < p.size(); ++i)
          append(s, derive(*e.args[0], p[i], p[i + 1], depth + 1));
        return s;
      }
      case Op::Inverse: {
        Step s = derive(*e.args[0], v, u, depth + 1);
        return s;
      }
      case Op::IfVariant: {
        return derive(*e.args[view_.variant_on(e.variant) ? 0 : 1], u, v, depth + 1);
      }
      default: return {};  // [S], S * T, ~r: membership, not a step
    }
  }

  // (u, v) in a1 ; ... ; ak (n-ary): a path u = w0, w1, ..., wk = v with
  // (w(i-1), wi) in ai, found layer by layer (from[i][x]: the w(i-1) that
  // first reached x), then each step derived in its operand.
  Step sequence(const cat::Expr& e, EventId u, EventId v, int depth) {
    const std::size_t k = e.args.size();
    charge(budget_, k * n() * sizeof(EventId));
    std::vector<std::vector<EventId>> from(k, std::vector<EventId>(n(), 0));
    std::vector<char> at(n(), 0);
    at[u] = 1;
    for (std::size_t i = 0; i < k; ++i) {
      check(budget_);
      const BitRel r = view_.eval(*e.args[i]).rel;
      std::vector<char> next(n(), 0);
      for (EventId w = 0; w < n(); ++w)
        for (EventId x = 0; x < n() && at[w]; ++x)
          if (!next[x] && r.has(w, x)) next[x] = 1, from[i][x] = w;
      at = std::move(next);
    }
    if (!at[v]) return {};
    std::vector<EventId> path(k + 1, v);
    for (std::size_t i = k; i-- > 0;) path[i] = from[i][path[i + 1]];
    Step s;
    for (std::size_t i = 0; i < k; ++i)
      append(s, derive(*e.args[i], path[i], path[i + 1], depth + 1));
    return s;
  }

  // (u, v) in r & s: derived in the operand that is not a symmetric
  // relation (same location, morally strong: a property of the pair); the
  // others are stated: a symmetric one as a note (ms in words), a primitive
  // one as an edge of its own (rmw).
  Step intersection(const cat::Expr& e, EventId u, EventId v, int depth) {
    std::size_t main = 0;
    for (std::size_t i = 0; i < e.args.size(); ++i)
      if (!symmetric(view_.eval(*e.args[i]).rel)) {
        main = i;
        if (e.args[i]->op != cat::Op::Ref) break;
      }
    Step s = derive(*e.args[main], u, v, depth + 1);
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (i == main) continue;
      const cat::Expr& a = *e.args[i];
      const bool ref = a.op == cat::Op::Ref;
      const bool prim = ref && m_.slots[a.slot].primitive;
      const std::string name = prim ? m_.slots[a.slot].name : "";
      if (ref && m_.slots[a.slot].name == "ms")  // the model's ms, primitive or defined
        // (one note per pair, whichever way it was reached)
        s.notes.push_back(fmt::format("{} and {} are morally strong because {}", ev(std::min(u, v)),
                                      ev(std::max(u, v)),
                                      view_.pair_words(a.slot, std::min(u, v), std::max(u, v))));
      else if (prim && !symmetric(view_.eval(a).rel))
        s.edges.push_back(ExecEdge{u, v, name});
    }
    return s;
  }

  // An inverse in e's own text (names it uses are judged when reached).
  static bool has_inverse(const cat::Expr& e, int depth) {
    if (depth > cat::kMaxNesting) return false;
    if (e.op == cat::Op::Inverse) return true;
    return std::any_of(e.args.begin(), e.args.end(),
                       [&](const auto& a) { return has_inverse(*a, depth + 1); });
  }

  const Budget* budget_;
  std::map<EventId, std::uint64_t> values_;  // of the executed memory events
  const Skeleton& sk_;
  const cat::Model& m_;
  ChosenExecution exec_;  // the execution the model is evaluated on
  ModelView view_;
  std::size_t derived_ = 0;  // derive() calls so far (kMaxDerive)
};

// Sync edges of an allowed witness, in words, with why the two are morally
// strong (the model's `ms`, in its words).
std::vector<std::string> sync_notes(const Skeleton& sk, const QueryModel& model, const Query& q,
                                    const Witness& w, const Budget* budget) {
  std::vector<std::string> out;
  std::optional<ModelView> statics;  // made only when there is a sync edge
  for (const ExecEdge& e : w.edges) {
    if (e.kind != "sync") continue;
    if (!statics) statics.emplace(sk, model, q.static_primitives(), nullptr, budget);
    const std::optional<std::size_t> ms = statics->slot("ms");
    out.push_back(fmt::format(
        "{} synchronizes with {}{}", describe_event(sk, e.from), describe_event(sk, e.to),
        ms ? fmt::format(" ({})", statics->pair_words(*ms, e.from, e.to)) : ""));
  }
  return out;
}

}  // namespace

namespace {

// What every explanation of `target` says about the test, before its verdict.
Explanation explanation_of(const LitmusTest& test, const EngineOptions& opts,
                           std::shared_ptr<const Expansion> ex, const Target& target) {
  Explanation out;
  out.test = test.name;
  out.file = test.file;
  out.model = opts.model_for(test);
  out.model_file = opts.model_file;
  out.expansion = std::move(ex);
  out.outcome = target.text;
  out.target_sm = test.target_sm;
  return out;
}

// The one unsat-core service, behind `explain` and `xval`'s "forbidden by":
// per complete path, the target asserted with the test's filter and a normal
// end (path_query), and a minimal unsat core of the enabled named checks
// (Query::minimal_core); the axioms are their union in file order. `breaches`: also the execution
// that breaks each one (explain's words; xval needs only the names).
Explanation explain_target(const LitmusTest& test, const EngineOptions& opts,
                           std::shared_ptr<const Expansion> ex, const Target& target,
                           bool breaches) {
  Explanation out = explanation_of(test, opts, ex, target);
  const QueryModel model(test, opts);
  const std::vector<std::string> all = model.enabled_checks();  // in file order
  const std::vector<Observable> test_obs = observables_of(test, *ex, false);
  QuerySession session(opts.budget);  // the watchdog may interrupt its checks
  struct Forbidden {
    std::size_t skeleton;
    std::vector<std::string> core;
  };
  std::vector<Forbidden> cores;
  for (std::size_t i = 0; i < ex->skeletons.size(); ++i) {
    const Skeleton& sk = ex->skeletons[i];
    if (sk.cut) continue;
    ++out.paths;
    const auto p = path_query(session, sk, model, test, target, test_obs, opts.budget);
    if (p->possible_under(all)) {
      out.allowed = true;
      out.witness = p->witness(i);
      out.notes = sync_notes(sk, model, *p, out.witness, opts.budget);
      return out;
    }
    if (p->possible(Barriers::MayHang)) {
      out.barrier_needed = true;
      continue;
    }
    if (!p->possible_under({})) {
      ++out.paths_without_values;
      continue;
    }
    cores.push_back({i, p->minimal_core(all)});
  }
  for (const std::string& a : all)  // file order
    for (const Forbidden& f : cores)
      if (std::count(f.core.begin(), f.core.end(), a) &&
          std::find(out.axioms.begin(), out.axioms.end(), a) == out.axioms.end())
        out.axioms.push_back(a);
  if (!breaches) return out;
  // For each axiom, the first path whose minimal core has it: the execution
  // that gives the outcome once that axiom is dropped.
  for (const std::string& a : out.axioms) {
    const auto f = std::find_if(cores.begin(), cores.end(), [&](const Forbidden& x) {
      return std::count(x.core.begin(), x.core.end(), a);
    });
    const Skeleton& sk = ex->skeletons[f->skeleton];
    const auto p = path_query(session, sk, model, test, target, test_obs, opts.budget);
    if (!p->possible_under(without(all, a)) && !p->possible_under(without(f->core, a))) continue;
    const Witness w = p->witness(f->skeleton);
    Breach b = Breaker(sk, model, p->static_primitives(), p->execution(),
                       {w.values.begin(), w.values.end()}, opts.budget)
                   .breach(a);
    b.execution = w;
    out.breaches.push_back(std::move(b));
  }
  return out;
}

// --- without the solver (a build with REDSCOPE_WITH_Z3=OFF) -------------------
//
// The enumerator decides whether the target is reached under a set of the
// model's checks (the others left out through EngineOptions::disabled_checks),
// and a minimal forbidding set is found by deletion over the whole test, in
// file order: drop a check, keep it dropped while the target stays
// unreached. What differs from explain_target: one set for the test, not the
// union of one core per path; each breach is the execution the enumerator
// finds once its axiom is dropped from that set, without the edges that
// break it (Breaker reads the solver's execution); an allowed outcome's
// witness has no synchronization notes. docs/cli.md "explain".

// The target as a condition: its values, each compared bit for bit.
CondExpr target_condition(const Target& t) {
  CondExpr all;
  all.kind = CondExpr::Kind::And;
  for (std::size_t k = 0; k < t.obs.size(); ++k) {
    const Observable& o = t.obs[k];
    CondExpr c;
    c.kind = CondExpr::Kind::Cmp;
    c.cmp = CmpOp::Eq;
    c.lhs.kind = o.is_register ? CondTerm::Kind::Reg : CondTerm::Kind::Loc;
    c.lhs.thread = o.is_register ? o.reg.thread : 0;
    c.lhs.name = o.is_register ? o.reg.name : o.label;
    c.rhs.kind = CondTerm::Kind::Const;
    c.rhs.value.text = fmt::format("{:#x}", t.values[k]);
    all.kids.push_back(std::move(c));
  }
  return all;
}

// Whether some outcome the enumerator finds with `disabled` left out reaches
// the target (its values, or the condition's proposition); its witness. A
// verdict-only run with the target as an `exists` condition: the search
// stops at the first outcome that reaches it. With No-Thin-Air left out, the
// values along an rf ∪ data cycle are every solution of its equations
// (docs/model.md "Values along an rf ∪ data cycle"): a read-modify-write
// that reads its own write may take any of 2^32 values. Where that makes the
// search give up, it is made again with values that follow rf acyclically
// (EngineOptions::acyclic_values_only, the enumerator before issue 43): a
// target reached there is reached; one not reached may still be reached out
// of thin air, which docs/cli.md states.
constexpr std::size_t kExactChoices = 200'000;

std::optional<Witness> reached(const LitmusTest& test, const EngineOptions& opts, const Target& t,
                               const std::vector<std::string>& disabled) {
  LitmusTest q = test;
  q.quantifier = Quantifier::Exists;
  if (!t.values.empty()) q.condition = target_condition(t);
  EngineOptions o = opts;
  o.engine = EngineKind::Enum;
  o.observe_all = true;
  o.verdict_only = true;
  o.listing.reset();
  o.disabled_checks = disabled;
  // The exact search gives way at kExactChoices (a test without such a
  // cycle then makes the same search again, in full).
  o.give_way_after = std::numeric_limits<std::size_t>::max();  // at the limit: EnumGaveWay
  o.enum_limit = std::min(opts.enum_limit, kExactChoices);
  TestResult r;
  try {
    r = run_enum(q, o);
  } catch (const EnumGaveWay&) {
    o.give_way_after = 0;  // the limit's error, if even this search reaches it
    o.enum_limit = opts.enum_limit;
    o.acyclic_values_only = true;
    r = run_enum(q, o);
  }
  if (!r.holds || !r.verdict_witness) return std::nullopt;
  return r.verdict_witness->witness;
}

// The execution behind `w`, a witness reached with the checks `disabled`
// off: the enumerator's search again (every path), stopped at the execution
// whose rf and co are w's, as witness labels name them.
struct Pinned {
  Skeleton sk;
  ChosenExecution x;
};
struct PinnedFound {};

std::optional<Pinned> pin(const LitmusTest& test, const EngineOptions& opts,
                          const std::vector<std::string>& disabled, const Witness& w) {
  LitmusTest t = test;
  t.filter.reset();
  EngineOptions o = search_options(opts);
  o.disabled_checks = disabled;
  o.enum_limit = std::min(opts.enum_limit, kExactChoices);
  // Edge texts compared as sets (sorted: w's once, each candidate's as met).
  const auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<std::string> rf = sorted(w.rf.texts()), co = sorted(w.co.texts());
  std::optional<Pinned> found;
  o.on_execution = [&](const EnumCandidate& c) {
    const Witness cw = witness_words(c.sk, c.executed, c.rf, c.co);
    if (sorted(cw.rf.texts()) != rf || sorted(cw.co.texts()) != co) return false;
    found = Pinned{c.sk, ChosenExecution{c.executed, c.rf, c.co, c.sf, c.sync_barrier}};
    throw PinnedFound{};
  };
  try {
    (void)run_enum(t, o);
  } catch (const PinnedFound&) {
  } catch (const InputError&) {  // past the limit: the breach keeps its plain words
  }
  return found;
}

// The words and edges of axiom `a`'s breach in `w`'s execution, as the solver
// path gives them (Breaker); none when the execution cannot be found again.
std::optional<Breach> breach_in(const LitmusTest& test, const EngineOptions& opts,
                                const std::vector<std::string>& disabled, const Witness& w,
                                const std::string& a) {
  const std::optional<Pinned> p = pin(test, opts, disabled, w);
  if (!p) return std::nullopt;
  std::map<EventId, std::uint64_t> values;
  ReadValues rv(p->x.rf, p->sk);
  for (EventId e = 0; e < p->sk.size(); ++e)
    if (p->x.executed[e] && p->sk.ev(e).is_read()) values[e] = rv.of_read(e);
  const QueryModel model(test, opts);  // every check on: `a` is the one broken
  const cat::StaticPrimitives prims =
      cat::static_primitives(p->sk, model.model(), model.variants(), opts.budget);
  return Breaker(p->sk, model, prims, p->x, std::move(values), opts.budget).breach(a);
}

Explanation explain_by_enumeration(const LitmusTest& test, const EngineOptions& opts,
                                   std::shared_ptr<const Expansion> ex, const Target& target) {
  Explanation out = explanation_of(test, opts, ex, target);
  for (const Skeleton& sk : ex->skeletons) out.paths += sk.cut ? 0 : 1;
  const std::vector<std::string> all = QueryModel(test, opts).enabled_checks();
  const auto off = [&](const std::vector<std::string>& kept) {
    std::vector<std::string> d = opts.disabled_checks;
    for (const std::string& a : all)
      if (std::find(kept.begin(), kept.end(), a) == kept.end()) d.push_back(a);
    return d;
  };
  if (auto w = reached(test, opts, target, off(all))) {
    out.allowed = true;
    out.witness = std::move(*w);
    return out;
  }
  if (!reached(test, opts, target, off({}))) {
    out.paths_without_values = out.paths;
    return out;
  }
  std::vector<std::string> core = all;
  for (const std::string& a : all)
    if (!reached(test, opts, target, off(without(core, a)))) core = without(core, a);
  out.axioms = core;
  for (const std::string& a : core) {
    Breach b;
    b.axiom = a;
    b.why = fmt::format(
        "{} is needed: without it (the other axioms of this set kept) the "
        "enumerator reaches the outcome.",
        a);
    if (auto w = reached(test, opts, target, off(without(core, a)))) {
      if (auto words = breach_in(test, opts, off(without(core, a)), *w, a)) b = std::move(*words);
      b.execution = std::move(*w);
    }
    out.breaches.push_back(std::move(b));
  }
  return out;
}

}  // namespace

Explanation explain(const LitmusTest& test, const EngineOptions& opts, const ExplainRequest& req) {
  // Explanations are a cat model's axioms on event graphs; a PTO program has
  // neither (its semantics are its operations', docs/model.md): refused
  // (std::invalid_argument: a usage error, exit 2), not explained wrongly.
  if (test.program)
    throw std::invalid_argument(fmt::format(
        "{}: explain needs an event-graph test; PTO programs have no events or model axioms to "
        "explain: `redscope run {}` lists their outcomes, notes and each witness's choices",
        test.file, test.file));
  auto ex = std::make_shared<const Expansion>(expand(test, opts.expand));
  const Target target = parse_target(test, *ex, req);
  if (!z3_available()) return explain_by_enumeration(test, opts, ex, target);
  return explain_target(test, opts, ex, target, true);
}

std::vector<std::string> forbidding_axioms(const LitmusTest& test, const EngineOptions& opts,
                                           const std::vector<Observable>& obs,
                                           const std::vector<std::uint64_t>& values) {
  auto ex = std::make_shared<const Expansion>(expand(test, opts.expand));
  Target t;
  t.obs = obs;
  t.values = values;
  if (!z3_available()) return explain_by_enumeration(test, opts, ex, t).axioms;
  return explain_target(test, opts, ex, t, false).axioms;
}

namespace {

std::string model_name(const Explanation& e) { return redscope::model_name(e.model, e.model_file); }

std::string edge_text(const Skeleton& sk, const ExecEdge& e) {
  return fmt::format("{} -{}-> {}", describe_event(sk, e.from), e.kind, describe_event(sk, e.to));
}

}  // namespace

std::string render_text(const Explanation& e) {
  std::string s = fmt::format("Explain {} ({}): {} is {}\n", e.test, model_name(e), e.outcome,
                              e.allowed ? "Allowed" : "Forbidden");
  if (e.allowed) {
    s += "A witness execution:\n";
    for (const std::string& r : e.witness.rf) s += "  rf " + r + "\n";
    for (const std::string& r : e.witness.co) s += "  co " + r + "\n";
    for (const std::string& n : e.notes) s += "  " + n + "\n";
    return s;
  }
  if (e.axioms.empty()) {
    s += fmt::format(
        "No path of the test produces these values, whatever the axioms ({} of {} paths "
        "checked){}.\n",
        e.paths_without_values, e.paths,
        e.barrier_needed ? "; some would only by hanging at a barrier" : "");
    return s;
  }
  std::string names;
  for (const std::string& a : e.axioms) names += (names.empty() ? "" : ", ") + a;
  s += fmt::format(
      "Forbidden by: {} (a minimal set: dropping any one of them on its path allows the outcome)\n",
      names);
  for (const Breach& b : e.breaches) {
    s += "\n" + b.why + "\n";
    const Skeleton& sk = e.expansion->skeletons[b.execution.skeleton];
    for (const ExecEdge& x : b.edges) s += "    " + edge_text(sk, x) + "\n";
    s += fmt::format("  The execution that would give the outcome without {}:\n", b.axiom);
    for (const std::string& r : b.execution.rf) s += "    rf " + r + "\n";
    for (const std::string& r : b.execution.co) s += "    co " + r + "\n";
  }
  if (e.paths_without_values)
    s += fmt::format("({} other paths cannot produce these values at all.)\n",
                     e.paths_without_values);
  return s;
}

namespace {

Json edges_json(const Skeleton& sk, const std::vector<ExecEdge>& v) {
  Json a = Json::array();
  for (const ExecEdge& x : v)
    a.push(Json::object()
               .set("kind", x.kind)
               .set("from", describe_event(sk, x.from))
               .set("to", describe_event(sk, x.to)));
  return a;
}

Json witness_json(const Witness& w) {
  return Json::object()
      .set("rf", Json::strings(w.rf.texts()))
      .set("co", Json::strings(w.co.texts()));
}

}  // namespace

std::string render_json(const Explanation& e) {
  // Field names as in run's JSON: target is the Target sm; outcome is what is explained.
  Json o = Json::object();
  o.set("test", e.test).set("file", e.file).set("model", model_name(e));
  o.set("target", fmt::format("sm_{}", e.target_sm)).set("outcome", e.outcome);
  o.set("verdict", e.allowed ? "allowed" : "forbidden");
  if (e.allowed) {
    o.set("witness", witness_json(e.witness)).set("synchronization", Json::strings(e.notes));
    return o.dump(Json::Layout::Line) + "\n";
  }
  Json axioms = Json::array(), breaches = Json::array();
  for (const std::string& a : e.axioms) axioms.push(a);
  for (const Breach& b : e.breaches) {
    const Skeleton& sk = e.expansion->skeletons[b.execution.skeleton];
    breaches.push(Json::object()
                      .set("axiom", b.axiom)
                      .set("why", b.why)
                      .set("edges", edges_json(sk, b.edges))
                      .set("execution", witness_json(b.execution)));
  }
  o.set("axioms", std::move(axioms)).set("breaches", std::move(breaches));
  o.set("paths", e.paths).set("paths_without_values", e.paths_without_values);
  return o.dump(Json::Layout::Line) + "\n";
}

}  // namespace redscope
