// The Z3 engine: all-SAT enumeration of the outcomes a test allows under the
// PTX model encoded by PtxEncoding (ptx_encoding.hpp).
#include "redscope/engine.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <z3++.h>

#include "ptx_encoding.hpp"
#include "z3_condition.hpp"

namespace redscope {
namespace {

using Clock = std::chrono::steady_clock;
using detail::PtxEncoding;

std::int64_t signed_view(std::uint64_t bits, DataType t) {
  const unsigned w = width_of(t);
  if (!is_signed(t) || w == 64) return static_cast<std::int64_t>(bits);
  return static_cast<std::int64_t>(bits << (64 - w)) >> (64 - w);
}

}  // namespace

std::string_view to_string(Observation o) {
  switch (o) {
    case Observation::Always: return "Always";
    case Observation::Sometimes: return "Sometimes";
    case Observation::Never: return "Never";
  }
  return "?";
}

std::string TestResult::render_value(std::size_t outcome, std::size_t obs) const {
  return format_value(outcomes[outcome].values[obs], observables[obs].type);
}

std::vector<Observable> observables_of(const LitmusTest& t, const Expansion& ex, bool observe_all) {
  std::map<RegName, DataType> regs;
  std::map<std::string, DataType> locs;
  for (const Skeleton& s : ex.skeletons) {
    for (const auto& [r, ty] : s.reg_types) if (observe_all) regs.emplace(r, ty);
    if (observe_all) for (const auto& [x, ty] : s.loc_types) locs.emplace(x, ty);
  }
  auto reg_type = [&](const RegName& r) {
    for (const Skeleton& s : ex.skeletons) {
      auto it = s.reg_types.find(r);
      if (it != s.reg_types.end()) return it->second;
    }
    return DataType::S32;
  };
  auto add_term = [&](const CondTerm& term) {
    if (term.kind == CondTerm::Kind::Reg) { RegName r{term.thread, term.name}; regs.emplace(r, reg_type(r)); }
    if (term.kind == CondTerm::Kind::Loc) locs.emplace(term.name, ex.skeletons.front().loc_types.at(term.name));
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) { add_term(e.lhs); add_term(e.rhs); }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  for (const CondTerm& term : t.locations) add_term(term);
  std::vector<Observable> out;
  for (const auto& [r, ty] : regs)
    out.push_back(Observable{fmt::format("P{}:{}", r.thread, r.name), true, r, "", ty});
  for (const auto& [x, ty] : locs) out.push_back(Observable{x, false, {}, x, ty});
  return out;
}

namespace {

// One comparison of a condition, resolved against the observables: each side
// is an observable (index) or constant bits, compared at one type.
struct CmpPlan {
  std::optional<std::size_t> side[2];
  std::uint64_t bits[2] = {0, 0};
  DataType type = DataType::S64;
  bool ok = true;  // false when a literal is not a value of `type`
  const Literal* bad = nullptr;
};

std::optional<std::size_t> find_observable(const CondTerm& t, const std::vector<Observable>& obs) {
  for (std::size_t i = 0; i < obs.size(); ++i) {
    const bool match = t.kind == CondTerm::Kind::Reg ? (obs[i].is_register && obs[i].reg == RegName{t.thread, t.name})
                                                     : (!obs[i].is_register && obs[i].loc == t.name);
    if (match) return i;
  }
  return std::nullopt;
}

// Constants take the type of the observable they are compared with (a
// float literal against a float location, ...); two observables compare
// at the left one's type.
CmpPlan plan(const CondExpr& e, const std::vector<Observable>& obs) {
  CmpPlan p;
  const CondTerm* terms[2] = {&e.lhs, &e.rhs};
  for (int i = 0; i < 2; ++i)
    if (terms[i]->kind != CondTerm::Kind::Const) p.side[i] = find_observable(*terms[i], obs);
  if (p.side[0]) p.type = obs[*p.side[0]].type;
  else if (p.side[1]) p.type = obs[*p.side[1]].type;
  for (int i = 0; i < 2; ++i) {
    if (terms[i]->kind != CondTerm::Kind::Const) continue;
    const auto b = literal_bits(terms[i]->value.text, p.type);
    if (!b) { p.ok = false; p.bad = &terms[i]->value; continue; }
    p.bits[i] = *b;
  }
  return p;
}

std::uint64_t convert(std::uint64_t v, DataType from, DataType to) {
  const unsigned fw = width_of(from), tw = width_of(to);
  if (fw < tw && is_signed(from)) v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << (64 - fw)) >> (64 - fw));
  return mask_to(v, tw);
}

// Equality compares bits (so -0.0 and 0.0 differ, and NaN equals its own
// pattern); ordering compares floats numerically and integers in their signedness.
bool compare_values(CmpOp op, DataType t, std::uint64_t a, std::uint64_t b) {
  if (op == CmpOp::Eq) return a == b;
  if (op == CmpOp::Ne) return a != b;
  if (auto f = float_format(t)) return float_compare(op, *f, a, b);
  const unsigned w = width_of(t);
  if (is_signed(t)) {
    const auto x = static_cast<std::int64_t>(a << (64 - w)) >> (64 - w), y = static_cast<std::int64_t>(b << (64 - w)) >> (64 - w);
    return op == CmpOp::Lt ? x < y : op == CmpOp::Le ? x <= y : op == CmpOp::Gt ? x > y : x >= y;
  }
  return op == CmpOp::Lt ? a < b : op == CmpOp::Le ? a <= b : op == CmpOp::Gt ? a > b : a >= b;
}

}  // namespace

void check_condition_literals(const LitmusTest& t, const std::vector<Observable>& obs) {
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      const CmpPlan p = plan(e, obs);
      if (!p.ok)
        throw InputError(Diagnostic{t.file, p.bad->loc, fmt::format("'{}' is not a value of type .{}, the type it is compared at", p.bad->text, to_string(p.type))});
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
}

bool eval_condition(const CondExpr& c, const std::vector<Observable>& obs, const std::vector<std::uint64_t>& values) {
  switch (c.kind) {
    case CondExpr::Kind::True: return true;
    case CondExpr::Kind::False: return false;
    case CondExpr::Kind::And:  // n-ary: the parser keeps `a /\ b /\ c` flat
      for (const CondExpr& k : c.kids) if (!eval_condition(k, obs, values)) return false;
      return true;
    case CondExpr::Kind::Or:
      for (const CondExpr& k : c.kids) if (eval_condition(k, obs, values)) return true;
      return false;
    case CondExpr::Kind::Not: return !eval_condition(c.kids[0], obs, values);
    case CondExpr::Kind::Cmp: break;
  }
  const CmpPlan p = plan(c, obs);
  std::uint64_t v[2];
  for (int i = 0; i < 2; ++i)
    v[i] = p.side[i] ? convert(values[*p.side[i]], obs[*p.side[i]].type, p.type) : p.bits[i];
  return compare_values(c.cmp, p.type, v[0], v[1]);
}

// The condition `e` over the observables' Z3 terms, with the semantics of
// eval_condition (declared in z3_condition.hpp).
z3::expr condition_to_z3(z3::context& c, const CondExpr& e, const std::vector<Observable>& obs,
                         const std::vector<z3::expr>& terms) {
  switch (e.kind) {
    case CondExpr::Kind::True: return c.bool_val(true);
    case CondExpr::Kind::False: return c.bool_val(false);
    case CondExpr::Kind::And: case CondExpr::Kind::Or: {  // n-ary
      z3::expr_vector kids(c);
      for (const CondExpr& k : e.kids) kids.push_back(condition_to_z3(c, k, obs, terms));
      return e.kind == CondExpr::Kind::And ? z3::mk_and(kids) : z3::mk_or(kids);
    }
    case CondExpr::Kind::Not: return !condition_to_z3(c, e.kids[0], obs, terms);
    case CondExpr::Kind::Cmp: break;
  }
  const CmpPlan p = plan(e, obs);
  const unsigned w = width_of(p.type);
  std::vector<z3::expr> v;
  for (int i = 0; i < 2; ++i) {
    if (!p.side[i]) { v.push_back(c.bv_val(static_cast<std::uint64_t>(p.bits[i]), w)); continue; }
    z3::expr t = terms[*p.side[i]];
    const DataType from = obs[*p.side[i]].type;
    const unsigned fw = width_of(from);
    if (fw > w) t = t.extract(w - 1, 0);
    else if (fw < w) t = is_signed(from) ? z3::sext(t, w - fw) : z3::zext(t, w - fw);
    v.push_back(t);
  }
  const z3::expr &a = v[0], &b = v[1];
  if (e.cmp == CmpOp::Eq) return a == b;
  if (e.cmp == CmpOp::Ne) return a != b;
  if (auto f = float_format(p.type)) return z3_float_compare(e.cmp, *f, a, b);
  const bool sgn = is_signed(p.type);
  switch (e.cmp) {
    case CmpOp::Lt: return sgn ? a < b : z3::ult(a, b);
    case CmpOp::Le: return sgn ? a <= b : z3::ule(a, b);
    case CmpOp::Gt: return sgn ? a > b : z3::ugt(a, b);
    case CmpOp::Ge: return sgn ? a >= b : z3::uge(a, b);
    default: return c.bool_val(true);
  }
}

namespace {

// One skeleton's encoding behind a solver that starts as Z3's general SMT
// core, cheap per check (the many satisfiable checks of a test with many
// outcomes), and moves for good to the finite-domain SAT solver when one
// check needs more than kSmtConflicts conflicts: the unsat proof that no
// further outcome exists is where the SMT core can take minutes on tests
// with many RMWs (docs/performance.md). Blocked outcomes are replayed on the
// move. Float operations are lookup tables where their operands take few
// values (PtxEncoding::use_float_tables, while No-Thin-Air is assumed); a
// skeleton that still needs the floating-point theory stays on the SMT core
// (the only one with that theory), without a limit.
class SkeletonSolver {
 public:
  static constexpr unsigned kSmtConflicts = 500;

  SkeletonSolver(z3::context& c, const Skeleton& sk, const LitmusTest& test, const std::vector<Observable>& obs, const EngineOptions& opts)
      : c_(c), sk_(sk), test_(test), obs_(obs), opts_(opts),
        float_tables_(opts.float_tables && !opts.disables(Axiom::NoThinAir)) {
    open(detail::SolverKind::Smt);
  }

  // Some execution satisfies the axioms (and, `with_barriers`, passes every
  // barrier) with an outcome not blocked yet.
  bool sat(bool with_barriers) {
    for (;;) {
      const z3::check_result r = cur_->s.check(cur_->enc.all_literals(with_barriers, opts_.disabled_axioms));
      if (r == z3::sat) return true;
      if (r == z3::unsat) return false;
      if (opts_.budget) opts_.budget->check();  // an interrupt (--timeout) is not the conflict limit
      if (!limited()) detail::solver_gave_up(cur_->s);
      open(detail::SolverKind::FiniteDomain);
    }
  }

  z3::model model() const { return cur_->s.get_model(); }
  const std::vector<z3::expr>& terms() const { return cur_->terms; }
  PtxEncoding& encoding() { return cur_->enc; }

  void block(const std::vector<std::uint64_t>& vals) {
    blocked_.push_back(vals);
    add_block(vals);
  }

 private:
  struct Session {
    z3::solver s;
    PtxEncoding enc;
    std::vector<z3::expr> terms;
    detail::SolverKind kind;
    Session(z3::context& c, z3::solver solver, const Skeleton& sk, ModelKind m, detail::SolverKind k,
            const Budget* budget)
        : s(std::move(solver)), enc(c, s, sk, m, k, budget), kind(k) {}
  };

  // The SMT core under a conflict limit, which a hard check exceeds.
  bool limited() const { return may_move_ && cur_->kind == detail::SolverKind::Smt; }

  void open(detail::SolverKind kind) {
    z3::solver s = detail::make_solver(c_, kind);
    cur_ = std::make_unique<Session>(c_, std::move(s), sk_, opts_.model.value_or(model_for_target(test_.target_sm)), kind,
                                     opts_.budget);
    cur_->enc.use_float_tables(float_tables_);
    cur_->enc.pin_po_loc_co(!opts_.disables(Axiom::Coherence) && !opts_.disables(Axiom::ScPerLocation));
    cur_->enc.encode();
    for (const Observable& o : obs_) cur_->terms.push_back(cur_->enc.observable(o));
    // herd's `filter`: only executions satisfying it are considered.
    bool fp = cur_->enc.uses_fp_theory();
    if (test_.filter) {
      const z3::expr f = condition_to_z3(c_, *test_.filter, obs_, cur_->terms);
      fp = fp || mentions_fp(f);
      cur_->s.add(f);
    }
    if (kind == detail::SolverKind::Smt) {
      may_move_ = !fp;
      // Relevancy propagation off: a third less time per check on tests with
      // hundreds of outcomes (docs/performance.md).
      z3::params p(c_);
      p.set("relevancy", 0u);
      if (may_move_) p.set("max_conflicts", kSmtConflicts);
      cur_->s.set(p);
    }
    for (const auto& vals : blocked_) add_block(vals);
  }

  // Whether a term has a floating-point (or rounding-mode) subterm.
  static bool mentions_fp(const z3::expr& e) {
    std::vector<z3::expr> todo{e};
    std::set<unsigned> seen;
    while (!todo.empty()) {
      const z3::expr t = todo.back();
      todo.pop_back();
      if (!seen.insert(t.id()).second) continue;
      const Z3_sort_kind k = t.get_sort().sort_kind();
      if (k == Z3_FLOATING_POINT_SORT || k == Z3_ROUNDING_MODE_SORT) return true;
      if (t.is_app())
        for (unsigned i = 0; i < t.num_args(); ++i) todo.push_back(t.arg(i));
    }
    return false;
  }

  void add_block(const std::vector<std::uint64_t>& vals) {
    z3::expr_vector diff(c_);
    for (std::size_t i = 0; i < vals.size(); ++i)
      diff.push_back(cur_->terms[i] != c_.bv_val(static_cast<std::uint64_t>(vals[i]), width_of(obs_[i].type)));
    cur_->s.add(z3::mk_or(diff));
  }

  z3::context& c_;
  const Skeleton& sk_;
  const LitmusTest& test_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  bool float_tables_;
  bool may_move_ = false;
  std::unique_ptr<Session> cur_;
  std::vector<std::vector<std::uint64_t>> blocked_;
};

// All outcomes of one complete skeleton not already in `found`.
void enumerate(z3::context& c, const Skeleton& sk, std::size_t index, const LitmusTest& test, const std::vector<Observable>& obs,
               const EngineOptions& opts, std::map<std::vector<std::uint64_t>, Witness>& found, IncompletePaths& inc) {
  SkeletonSolver s(c, sk, test, obs, opts);
  if (sk.cut) {
    if (s.sat(false)) ++inc.bound_cut;
    return;
  }
  if (!s.sat(true)) {
    // No execution completes. If one exists once barriers need not pass,
    // the path hangs at a barrier.
    if (s.sat(false)) ++inc.barrier_deadlock;
    return;
  }
  if (obs.empty()) {
    found.emplace(std::vector<std::uint64_t>{}, s.encoding().witness(s.model(), index));
    return;
  }
  for (const auto& [vals, w] : found) s.block(vals);
  while (s.sat(true)) {
    if (opts.budget) opts.budget->check();
    const z3::model m = s.model();
    std::vector<std::uint64_t> vals;
    for (const z3::expr& t : s.terms()) vals.push_back(m.eval(t, true).get_numeral_uint64());
    found.emplace(vals, s.encoding().witness(m, index));
    if (found.size() > opts.max_outcomes)
      throw InputError(Diagnostic{test.file, test.condition_loc,
                                  fmt::format("more than {} outcomes: the observed values are not bounded by the test; observe fewer registers or raise --max-outcomes", opts.max_outcomes)});
    s.block(vals);
  }
}

}  // namespace

TestResult start_result(const LitmusTest& test, const EngineOptions& opts, const Expansion& ex) {
  TestResult r;
  r.test = test.name;
  r.file = test.file;
  r.model = opts.model.value_or(model_for_target(test.target_sm));
  r.target_sm = test.target_sm;
  r.quantifier = test.quantifier;
  r.condition_text = test.condition_text;
  r.skeletons = ex.skeletons.size();
  r.observables = observables_of(test, ex, opts.observe_all);
  check_condition_literals(test, r.observables);
  return r;
}

void settle_result(TestResult& r, const LitmusTest& test, std::map<std::vector<std::uint64_t>, Witness> found) {
  for (auto& [vals, w] : found)
    r.outcomes.push_back(Outcome{vals, eval_condition(test.condition, r.observables, vals), std::move(w)});
  std::sort(r.outcomes.begin(), r.outcomes.end(), [&](const Outcome& a, const Outcome& b) {
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      const auto x = signed_view(a.values[i], r.observables[i].type), y = signed_view(b.values[i], r.observables[i].type);
      if (x != y) return x < y;
    }
    return false;
  });
  const auto sat = static_cast<std::size_t>(std::count_if(r.outcomes.begin(), r.outcomes.end(), [](const Outcome& o) { return o.satisfies; }));
  const std::size_t unsat = r.outcomes.size() - sat;
  r.observation = sat == 0 ? Observation::Never : unsat == 0 ? Observation::Always : Observation::Sometimes;
  switch (test.quantifier) {
    case Quantifier::Exists: r.holds = sat > 0; break;
    case Quantifier::NotExists: r.holds = sat == 0; break;
    case Quantifier::Forall: r.holds = unsat == 0; break;
  }
}

TestResult run_z3(const LitmusTest& test, const EngineOptions& opts) {
  const auto t0 = Clock::now();
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  z3::context c;
  const Budget::Z3Guard guard(opts.budget, c);  // the watchdog may interrupt its checks
  std::map<std::vector<std::uint64_t>, Witness> found;
  for (std::size_t i = 0; i < ex.skeletons.size(); ++i) enumerate(c, ex.skeletons[i], i, test, r.observables, opts, found, r.incomplete);
  settle_result(r, test, std::move(found));
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::vector<Axiom> forbidding_axioms(const LitmusTest& test, const EngineOptions& opts, const std::vector<Observable>& obs,
                                     const std::vector<std::uint64_t>& values) {
  const Expansion ex = expand(test, opts.expand);
  std::vector<Axiom> out;
  z3::context c;
  const Budget::Z3Guard guard(opts.budget, c);
  for (const Skeleton& sk : ex.skeletons) {
    if (sk.cut) continue;
    const detail::SolverKind kind = detail::solver_kind_for(sk);
    z3::solver s = detail::make_solver(c, kind);
    PtxEncoding enc(c, s, sk, opts.model.value_or(model_for_target(test.target_sm)), kind, opts.budget);
    enc.encode();
    for (std::size_t i = 0; i < obs.size(); ++i) s.add(enc.observable(obs[i]) == c.bv_val(static_cast<std::uint64_t>(values[i]), width_of(obs[i].type)));
    z3::expr_vector lits = enc.all_literals(true, {});
    if (detail::is_sat(s, lits)) continue;
    const z3::expr_vector core = s.unsat_core();
    for (Axiom a : kAllAxioms)
      for (unsigned k = 0; k < core.size(); ++k)
        if (z3::eq(core[static_cast<int>(k)], enc.literal(a)) && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  return out;
}

TestResult run_engine(const LitmusTest& test, const EngineOptions& opts) {
  switch (opts.engine) {
    case EngineKind::Enum: return run_enum(test, opts);
    case EngineKind::Op: return run_op(test, opts);
    case EngineKind::Z3: break;
  }
  return run_z3(test, opts);
}

}  // namespace redscope
