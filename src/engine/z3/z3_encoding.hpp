// One skeleton's candidate executions in Z3, checked against a cat model
// (models/ptx.cat unless the user gives another). Private to the engines.
//
// The engine's part, hand-tuned: values, rf, co (a strict partial order per
// location, by transitivity clauses), the Fence-SC order (ranks), barrier
// arrival and pass times, final values, static value sets and float tables.
// Everything the model states — derived relations and axioms — is evaluated
// from the model text by SymbolicModel (z3_model.hpp), each check asserted
// under the literal of its name.
#pragma once

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <z3++.h>

#include "engine/z3/relation.hpp"
#include "engine/z3/z3_model.hpp"
#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/z3_values.hpp"
#include "redscope/events/value_sets.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope::detail {

// How witnesses name an event (query.hpp: witness_label, query_model.cpp).
inline std::string event_label(const Skeleton& s, EventId e) { return witness_label(s, e); }

// Recorded at construction (expr.cpp), so shared subterms cost nothing: an
// `add r0, r0, r0` chain is a small graph that unfolds exponentially.
inline bool has_float_op(const ExprPtr& e) { return e && e->has_float; }

// Float arithmetic, or a float register or cell (a condition or filter may
// compare it as a float).
inline bool has_float_op(const Skeleton& sk) {
  for (const auto& [x, t] : sk.loc_types)
    if (float_format(t)) return true;
  for (const auto& [r, t] : sk.reg_types)
    if (float_format(t)) return true;
  for (EventId e = 0; e < sk.size(); ++e)
    if (has_float_op(sk.ev(e).value) || has_float_op(sk.ev(e).guard) ||
        has_float_op(sk.ev(e).barrier_logical))
      return true;
  for (const auto& [r, v] : sk.final_regs)
    if (has_float_op(v)) return true;
  return std::any_of(sk.assumptions.begin(), sk.assumptions.end(),
                     [](const ExprPtr& a) { return has_float_op(a); });
}

// Which Z3 solver an encoding is made for. Smt: Z3's general SMT core, with
// integer ranks (difference logic) for acyclicity; the only one with the
// floating-point theory. FiniteDomain: Booleans, bit-vectors and
// cardinality constraints only (ranks are bit-vectors), bit-blasted into
// Z3's incremental SAT solver, which proves "no further outcome" 100x and
// more faster on tests with many RMWs (docs/performance.md).
enum class SolverKind : std::uint8_t { Smt, FiniteDomain };

inline SolverKind solver_kind_for(const Skeleton& sk) {
  return has_float_op(sk) ? SolverKind::Smt : SolverKind::FiniteDomain;
}

// Smt is Z3's simple solver, its SMT core alone. Z3_mk_solver's default
// wraps that core in a combined solver together with a tactic solver for
// every logic, built on the first assertion and re-configured by every
// set(params): about 40 M instructions, two thirds of a two-thread test's
// whole z3 run (docs/performance.md, "Start-up"). The combined solver answers
// a check under assumptions from that same core (combined_solver.cpp,
// check_sat, Z3 4.8); only a check without assumptions differs, and callers
// take no model from those (Encoding::all_literals(false)). A skeleton with
// float operations keeps the combined solver: the floating-point theory's
// models differ on the simple one (litmus/float/f32-four-reds-four-results),
// and witnesses stay as they were.
inline z3::solver make_solver(z3::context& c, SolverKind k, const Skeleton& sk) {
  if (k == SolverKind::FiniteDomain) return z3::solver(c, "QF_FD");
  return has_float_op(sk) ? z3::solver(c) : z3::solver(c, z3::solver::simple());
}

// A solver that answered "unknown": an error of that test, never taken as
// "no further outcome".
[[noreturn]] inline void solver_gave_up(z3::solver& s) {
  throw z3::exception(("the solver gave up (" + s.reason_unknown() + ")").c_str());
}

// A check under assumptions that never passes "unknown" off as an answer.
inline bool is_sat(z3::solver& s, const z3::expr_vector& assumptions) {
  switch (s.check(assumptions)) {
    case z3::sat: return true;
    case z3::unsat: return false;
    case z3::unknown: break;
  }
  solver_gave_up(s);
}

// What an encoding checks: the model, its variant (`if "sm6x"`) and which
// named checks are enabled.
struct ModelChoice {
  const cat::Model& model;
  ModelRef kind = kDefaultModel;  // its variants (ptx-sm6x: "sm6x") are turned on
  std::function<bool(std::string_view)> enabled = [](std::string_view) { return true; };
};

// The model a test is checked against under `opts` (`m`: model_of(opts, test)).
inline ModelChoice choice_for(const LitmusTest& test, const EngineOptions& opts,
                              const cat::Model& m) {
  return ModelChoice{m, opts.model_for(test),
                     [&opts](std::string_view a) { return opts.enables(a); }};
}

class Encoding {
 public:
  // `budget` (may be null): checked in the loops that build the terms.
  Encoding(z3::context& c, z3::solver& s, const Skeleton& sk, const ModelChoice& model,
           SolverKind kind, const Budget* budget = nullptr)
      : c_(c),
        s_(s),
        sk_(sk),
        n_(sk.size()),
        kind_(kind),
        budget_(budget),
        prims_(cat::static_primitives(sk, model.model, model.kind->variant_list(), budget)),
        cuts_(cat::shortcuts(model.model, model.enabled)),
        model_(
            c, s, model.model, n_, model.kind->variant_list(), model.enabled,
            [this](const std::string& name) { return rank_const(name); }, budget),
        rf_(c, n_, budget),
        co_(c, n_, budget),
        sf_(c, n_, budget),
        sbar_(c, n_, budget),
        live_(c.bool_const("barrier_progress")) {}

  void encode() {
    values();
    reads_from();
    coherence_order();
    fence_sc_order();
    barriers();
    primitives();
    model_.encode();
    value_domains();
    for (const ExprPtr& a : sk_.assumptions) s_.add(to_z3(a));
  }

  // Float operations whose operands take few values (value_sets.hpp) become
  // lookup tables over the concrete operand pairs, computed by the bit-exact
  // C++ functions of values.hpp, instead of Z3's floating-point theory. Only
  // sound while No-Thin-Air is assumed in every check: the tables cover the
  // operand values its value-set constraints allow, and leave the result
  // unconstrained outside them. Call before encode().
  void use_float_tables(bool on) { float_tables_ = on; }
  // Whether some term of the encoding needs the floating-point theory (a
  // float operation the tables did not cover); false before encode().
  bool uses_fp_theory() const { return uses_fp_; }
  // Fix co between a thread's own writes to one location to their program
  // order instead of leaving it to the solver. Only sound while the model's
  // checks imply it in every check (cat::Shortcuts::own_writes_in_po: for
  // PTX, the two writes are morally strong, so Coherence orders them, and
  // po-loc ∪ co acyclic leaves only program order). Saves a choice per pair
  // and the transitivity triples among them (a thread of N stores: N³
  // clauses). Ignored when the model does not imply it. Call before encode().
  void pin_po_loc_co(bool on) { pin_po_loc_ = on && cuts_.own_writes_in_po; }
  // What the model lets the engine assume.
  const cat::Shortcuts& shortcuts() const { return cuts_; }

  // The model's checks, each with its literal (SymbolicModel::checks).
  const std::vector<SymbolicModel::CheckLiteral>& checks() const { return model_.checks(); }
  z3::expr barrier_literal() const { return live_; }

  // The literals of the enabled checks (and barrier progress).
  z3::expr_vector all_literals(bool with_barriers) const {
    z3::expr_vector v(c_);
    for (const auto& ch : model_.checks())
      if (ch.enabled) v.push_back(ch.literal);
    if (with_barriers) v.push_back(live_);
    return v;
  }

  z3::expr observable(const Observable& o) {
    if (o.is_register) {
      auto it = sk_.final_regs.find(o.reg);
      const unsigned w = width_of(o.type);
      if (it == sk_.final_regs.end()) return c_.bv_val(0, w);
      const z3::expr v = to_z3(make_resize(it->second, w, is_signed(o.type)));
      return v.is_bool() ? z3::ite(v, c_.bv_val(1, 1), c_.bv_val(0, 1)) : v;
    }
    const z3::expr v = final_value(o.loc);
    if (o.lane_width == 0) return v;
    return v.extract(o.lane_shift + o.lane_width - 1, o.lane_shift);  // a lane (LaneView)
  }

  // The solver's choice of rf / co / fr between two events (false when the
  // pair can never be related).
  z3::expr rf(EventId w, EventId r) const {
    return rf_.maybe(w, r) ? rf_.at(w, r) : c_.bool_val(false);
  }
  z3::expr co(EventId a, EventId b) const {
    return co_.maybe(a, b) ? co_.at(a, b) : c_.bool_val(false);
  }
  // From-reads, rf⁻¹ ; co (for queries; the model states its own).
  z3::expr fr(EventId r, EventId w) const {
    z3::expr e = c_.bool_val(false);
    for (EventId x = 0; x < n_; ++x)
      if (rf_.maybe(x, r) && co_.maybe(x, w)) e = e || (rf_.at(x, r) && co_.at(x, w));
    return e;
  }
  z3::expr executed(EventId e) const { return exec_[e]; }
  z3::expr final_value_of(const std::string& cell) { return final_value(cell); }

  // The execution a Z3 model chose: rf, co, fr and, when the model defines
  // one, its `sync` relation as edges.
  Witness witness(const z3::model& m, std::size_t skeleton = 0) {
    Witness w;
    w.skeleton = skeleton;
    for (EventId e = 0; e < n_; ++e)
      if (m.eval(exec_[e], true).is_true()) w.executed.push_back(e);
    const BitRel rf = concrete(m, rf_), co = concrete(m, co_);
    const BitRel fr = rf.inverse().compose(co);
    const Rel* sync = model_.binding("sync");
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = 0; b < n_; ++b) {
        if (rf.has(a, b)) {
          w.rf.push_back(fmt::format("{} -> {}", event_label(sk_, a), event_label(sk_, b)));
          w.edges.push_back(ExecEdge{a, b, "rf"});
        }
        if (!sk_.ev(a).is_init && co.has(a, b)) {
          w.co.push_back(fmt::format("{} -> {}", event_label(sk_, a), event_label(sk_, b)));
          w.edges.push_back(ExecEdge{a, b, "co"});
        }
        if (fr.has(a, b)) w.edges.push_back(ExecEdge{a, b, "fr"});
        if (sync && holds(m, *sync, a, b)) w.edges.push_back(ExecEdge{a, b, "sync"});
      }
    for (EventId e : w.executed)
      if (ev(e).is_memory())
        w.values.emplace_back(e, m.eval(value_of(e), true).get_numeral_uint64());
    return w;
  }

  static bool holds(const z3::model& m, const Rel& r, EventId a, EventId b) {
    return r.maybe(a, b) && m.eval(r.at(a, b), true).is_true();
  }
  // A relation's value in a Z3 model.
  BitRel concrete(const z3::model& m, const Rel& r) const {
    BitRel out(n_);
    for (EventId a = 0; a < n_; ++a)
      r.for_row(a, [&](EventId b, const z3::expr& e) {
        if (e.is_true() || m.eval(e, true).is_true()) out.set(a, b);
      });
    return out;
  }
  // The candidate execution a Z3 model chose, for evaluating the model on it
  // concretely (explain).
  struct Chosen {
    std::vector<bool> executed;
    BitRel rf, co, sf, sync_barrier;
  };
  Chosen chosen(const z3::model& m) const {
    Chosen c{std::vector<bool>(n_), concrete(m, rf_), concrete(m, co_), concrete(m, sf_),
             concrete(m, sbar_)};
    for (EventId e = 0; e < n_; ++e) c.executed[e] = m.eval(exec_[e], true).is_true();
    return c;
  }
  const cat::StaticPrimitives& static_prims() const { return prims_; }
  z3::expr value(EventId e) { return value_of(e); }

 private:
  const Event& ev(EventId e) const { return sk_.ev(e); }
  const Placement& place(EventId e) const {
    return sk_.placement[static_cast<std::size_t>(ev(e).thread)];
  }
  z3::expr exec(EventId e) const { return exec_[e]; }

  // ---- the model's primitives ---------------------------------------------
  // The static primitives hold between executed events only (a candidate
  // execution consists of those); unguarded events execute always, so their
  // pairs stay the constant true. Then the engine's choices.
  void primitives() {
    for (const auto& [name, bits] : prims_.sets) {
      SymSet& set = model_.set(name);
      for (EventId e = 0; e < n_; ++e)
        if ((bits[e / 64] >> (e % 64)) & 1U) set[e] = exec(e);
    }
    std::vector<EventId> guarded;
    for (EventId e = 0; e < n_; ++e)
      if (!exec(e).is_true()) guarded.push_back(e);
    for (const auto& [name, rel] : prims_.rels) {
      Rel& r = model_.rel(name);
      r = Rel::from_bits(c_, rel, budget_);
      for (EventId g : guarded) {  // a guarded event's pairs hold when it executes
        check_budget();
        for (EventId x = 0; x < n_; ++x) {
          if (rel.has(g, x)) r.set(g, x, both_executed(g, x));
          if (rel.has(x, g)) r.set(x, g, both_executed(x, g));
        }
      }
    }
    model_.rel("rf") = rf_;
    model_.rel("co") = co_;
    model_.rel("sf") = sf_;
    model_.rel("sync_barrier") = sbar_;
  }

  // ---- values --------------------------------------------------------------
  void values() {
    for (EventId e = 0; e < n_; ++e) {
      exec_.push_back(ev(e).guard ? to_z3(ev(e).guard) : c_.bool_val(true));
      if (ev(e).is_read()) {
        read_val_.emplace(e, c_.bv_const(fmt::format("val_{}", e).c_str(), width_of(ev(e).type)));
      }
    }
  }

  z3::expr value_of(EventId e) {
    if (ev(e).is_read()) return read_val_.at(e);
    return to_z3(ev(e).value);
  }

  z3::expr to_z3(const ExprPtr& p) {
    auto it = memo_.find(p.get());
    if (it != memo_.end()) return it->second;
    const ExprNode& n = *p;
    auto k = [&](std::size_t i) { return to_z3(n.kids[i]); };
    z3::expr r = c_.bool_val(true);
    switch (n.op) {
      case ExprOp::Const:
        r = n.width == 1 ? c_.bool_val(n.bits != 0)
                         : c_.bv_val(static_cast<std::uint64_t>(n.bits), n.width);
        break;
      case ExprOp::Read: r = read_val_.at(sk_.vertex(n.read)); break;
      case ExprOp::Add: r = k(0) + k(1); break;
      case ExprOp::Sub: r = k(0) - k(1); break;
      case ExprOp::Mul: r = k(0) * k(1); break;
      case ExprOp::Div: r = n.is_signed ? k(0) / k(1) : z3::udiv(k(0), k(1)); break;
      case ExprOp::And: r = k(0) & k(1); break;
      case ExprOp::Or: r = k(0) | k(1); break;
      case ExprOp::Xor: r = k(0) ^ k(1); break;
      case ExprOp::Inc: r = z3_int_inc(k(0), k(1)); break;
      case ExprOp::Dec: r = z3_int_dec(k(0), k(1)); break;
      case ExprOp::Min:
        r = n.is_signed ? z3::ite(k(0) <= k(1), k(0), k(1))
                        : z3::ite(z3::ule(k(0), k(1)), k(0), k(1));
        break;
      case ExprOp::Max:
        r = n.is_signed ? z3::ite(k(0) >= k(1), k(0), k(1))
                        : z3::ite(z3::uge(k(0), k(1)), k(0), k(1));
        break;
      case ExprOp::FAdd:
      case ExprOp::FMin:
      case ExprOp::FMax:
      case ExprOp::FCmp:
        if (auto t = float_table(p)) {
          r = *t;
          break;
        }
        uses_fp_ = true;
        if (n.op == ExprOp::FAdd)
          r = z3_float_add(n.ffmt, k(0), k(1), n.ftz);
        else if (n.op == ExprOp::FMin)
          r = z3_float_min(n.ffmt, k(0), k(1));
        else if (n.op == ExprOp::FMax)
          r = z3_float_max(n.ffmt, k(0), k(1));
        else
          r = z3_float_compare(n.cmp, n.ffmt, k(0), k(1));
        break;
      case ExprOp::Concat: r = z3::concat(k(0), k(1)); break;
      case ExprOp::Extract: r = k(0).extract(n.lo + n.width - 1, n.lo); break;
      case ExprOp::Not: r = !k(0); break;
      case ExprOp::Ite: r = z3::ite(k(0), k(1), k(2)); break;
      case ExprOp::Resize: {
        const z3::expr a = k(0);
        const unsigned from = n.kids[0]->width;
        if (n.width < from)
          r = a.extract(n.width - 1, 0);
        else
          r = n.is_signed ? z3::sext(a, n.width - from) : z3::zext(a, n.width - from);
        break;
      }
      case ExprOp::Cmp: {
        const z3::expr a = k(0), b = k(1);
        switch (n.cmp) {
          case CmpOp::Eq: r = a == b; break;
          case CmpOp::Ne: r = a != b; break;
          case CmpOp::Lt: r = n.is_signed ? a < b : z3::ult(a, b); break;
          case CmpOp::Le: r = n.is_signed ? a <= b : z3::ule(a, b); break;
          case CmpOp::Gt: r = n.is_signed ? a > b : z3::ugt(a, b); break;
          case CmpOp::Ge: r = n.is_signed ? a >= b : z3::uge(a, b); break;
        }
        break;
      }
    }
    memo_.emplace(p.get(), r);
    return r;
  }

  // The float operation `p` as a table (use_float_tables): its read leaves
  // all have known value sets with at most kTableCombinations combinations,
  // giving at most kTableRows distinct operand pairs. The result is a fresh
  // constant; for each result value, "the operands are one of the pairs that
  // produce it" implies it. Operands outside the sets, which No-Thin-Air's
  // value constraints exclude, leave it unconstrained. (Implications, not an
  // ite chain over the pairs: with the chain the SMT core needed over 500
  // conflicts on the first checks of 6 f32 atoms and the whole run took
  // about three times as long.)
  static constexpr std::size_t kTableCombinations = 4096;
  static constexpr std::size_t kTableRows = 256;

  std::optional<z3::expr> float_table(const ExprPtr& p) {
    if (!float_tables_) return std::nullopt;
    if (!sets_) sets_ = value_sets(sk_, ValueSetLimits{.budget = budget_});
    const ExprNode& n = *p;
    const std::vector<ReadRef> reads = reads_of(p);
    std::vector<const std::vector<std::uint64_t>*> domains;
    std::size_t combinations = 1;
    for (const ReadRef& r : reads) {
      const auto& set = (*sets_)[sk_.vertex(r)];
      if (!set || set->empty()) return std::nullopt;
      combinations *= set->size();
      if (combinations > kTableCombinations) return std::nullopt;
      domains.push_back(&*set);
    }
    // (a, b) -> result, over every combination of the reads' values.
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> rows;
    std::vector<std::size_t> pick(reads.size(), 0);
    auto lookup = [&](ReadRef ref) {
      const auto i =
          static_cast<std::size_t>(std::find(reads.begin(), reads.end(), ref) - reads.begin());
      return (*domains[i])[pick[i]];
    };
    for (;;) {
      const std::uint64_t a = evaluate(n.kids[0], lookup), b = evaluate(n.kids[1], lookup);
      rows.emplace(std::pair{a, b}, evaluate(p, lookup));
      if (rows.size() > kTableRows) return std::nullopt;
      std::size_t k = 0;
      while (k < pick.size() && ++pick[k] == domains[k]->size()) pick[k++] = 0;
      if (k == pick.size()) break;
    }
    const z3::expr x = to_z3(n.kids[0]), y = to_z3(n.kids[1]);
    const unsigned w = n.kids[0]->width;
    std::map<std::uint64_t, z3::expr_vector> by_result;
    for (const auto& [ab, res] : rows) {
      auto it = by_result.try_emplace(res, c_).first;
      z3::expr match = x == c_.bv_val(ab.first, w);
      if (!(y.is_numeral())) match = match && y == c_.bv_val(ab.second, w);
      it->second.push_back(match);
    }
    auto value = [&](std::uint64_t v) {
      return n.op == ExprOp::FCmp ? c_.bool_val(v != 0) : c_.bv_val(v, n.width);
    };
    const std::string name = fmt::format("ftable_{}", tables_++);
    const z3::expr f =
        n.op == ExprOp::FCmp ? c_.bool_const(name.c_str()) : c_.bv_const(name.c_str(), n.width);
    for (const auto& [res, matches] : by_result)
      s_.add(z3::implies(z3::mk_or(matches), f == value(res)));
    return f;
  }

  // ---- rf and co -------------------------------------------------------------
  // Every executed read takes its value from exactly one executed write to the
  // same location (the initial write included).
  void reads_from() {
    for (EventId r = 0; r < n_; ++r) {
      if (!ev(r).is_read()) continue;
      check_budget();
      z3::expr_vector choices(c_);
      for (EventId w = 0; w < n_; ++w) {
        if (!ev(w).is_write() || ev(w).loc != ev(r).loc) continue;
        spend(kClauseBytes);
        z3::expr v = c_.bool_const(fmt::format("rf_{}_{}", w, r).c_str());
        s_.add(z3::implies(v, exec(w) && value_of(r) == value_of(w)));
        rf_.set(w, r, v);
        choices.push_back(v);
      }
      s_.add(z3::implies(exec(r), z3::mk_or(choices) && z3::atmost(choices, 1)));
      s_.add(z3::implies(!exec(r), !z3::mk_or(choices)));
    }
  }

  // Coherence order is a strict partial order per location (DESIGN §2): the
  // initial write precedes every executed write; weak racing writes may stay
  // unordered. fr = rf⁻¹;co. Each location's final value is that of one
  // co-maximal write.
  void coherence_order() {
    std::vector<EventId> writes;
    std::map<std::string, std::vector<EventId>> by_loc;
    for (EventId w = 0; w < n_; ++w)
      if (ev(w).is_write()) writes.push_back(w), by_loc[ev(w).loc].push_back(w);
    for (const auto& [loc, ws] : by_loc)
      for (EventId a : ws) {
        check_budget();
        for (EventId b : ws) {
          if (a == b || ev(b).is_init) continue;
          if (ev(a).is_init) {
            co_.set(a, b, exec(b));
            continue;
          }
          if (pinned(a, b)) {
            co_.set(a, b, both_executed(a, b));
            continue;
          }
          if (pinned(b, a)) continue;
          spend(kClauseBytes);
          z3::expr v = c_.bool_const(fmt::format("co_{}_{}", a, b).c_str());
          s_.add(z3::implies(v, exec(a) && exec(b)));
          co_.set(a, b, v);
        }
      }
    for (EventId a : writes)
      co_.for_row(a, [&](EventId b, const z3::expr& ab) {
        if (a < b && co_.maybe(b, a)) {
          spend(kClauseBytes);
          s_.add(!(ab && co_.at(b, a)));
        }
      });
    // Transitivity over the present pairs only. When co(a, b) and co(b, x)
    // are both pinned, so is co(a, x) (po-loc is transitive): for a pinned
    // (a, b) only b's unpinned successors need visiting, which keeps one
    // thread's N stores at N² steps.
    std::vector<std::vector<EventId>> unpinned(n_);
    std::vector<std::size_t> successors(n_, 0);
    for (EventId b : writes)
      co_.for_row(b, [&](EventId x, const z3::expr&) {
        ++successors[b];
        if (!pinned(b, x)) unpinned[b].push_back(x);
      });
    // The clauses below, charged before they are made: cubic in the writes
    // to one cell (issue 28: a hostile test is refused at --max-memory
    // instead of growing Z3 past it).
    std::size_t triples = 0;
    for (EventId a : writes)
      co_.for_row(a, [&](EventId b, const z3::expr&) {
        triples += pinned(a, b) ? unpinned[b].size() : successors[b];
      });
    charge(budget_, triples * kClauseBytes);
    for (EventId a : writes) {
      if (ev(a).is_init) continue;
      check_budget();
      co_.for_row(a, [&](EventId b, const z3::expr& ab) {
        check_budget();  // a row of clauses per b: w² per a is too coarse a step
        auto step = [&](EventId x) {
          if (a == x || pinned(a, x)) return;
          spend(kClauseBytes);
          s_.add(z3::implies(ab && co_.at(b, x), co_.at(a, x)));
        };
        if (pinned(a, b))
          for (EventId x : unpinned[b]) step(x);
        else
          co_.for_row(b, [&](EventId x, const z3::expr&) { step(x); });
      });
    }
  }

  void check_budget() const {
    if (budget_) budget_->check();
  }
  // Z3's memory per transitivity clause once solved, about (measured: 3
  // threads of 20 and of 40 stores to one cell, 560 bytes per clause);
  // charged at half that, so no test that fits is refused.
  static constexpr std::size_t kClauseBytes = 256;
  // Charges one term or clause about to be made (Budget::charge sums small
  // charges and reads the resident size once per MiB), so that the encoder
  // stops at --max-memory itself, whether or not the watchdog gets the CPU.
  void spend(std::size_t bytes) const { charge(budget_, bytes); }

  // co(a, b) is fixed by program order (pin_po_loc_co) for morally strong
  // pairs (one proxy and one virtual address: aliases may be seen out of
  // program order, docs/model.md "Proxies"); such a pair also
  // satisfies transitivity on its own, since co(a, m) and co(m, b) imply that
  // a and b executed.
  bool pinned(EventId a, EventId b) const {
    return pin_po_loc_ && poloc_.has(a, b) && ms_.has(a, b);
  }
  // exec(a) ∧ exec(b), the constant true when both are unconditional (which
  // acyclic() recognises).
  z3::expr both_executed(EventId a, EventId b) const {
    if (exec(a).is_true()) return exec(b);
    if (exec(b).is_true()) return exec(a);
    return exec(a) && exec(b);
  }

  z3::expr final_value(const std::string& loc) {
    auto it = final_.find(loc);
    if (it != final_.end()) return it->second;
    const EventId init = sk_.init_write.at(loc);
    z3::expr fin = c_.bv_const(fmt::format("final_{}", loc).c_str(), width_of(ev(init).type));
    z3::expr_vector choices(c_);
    for (EventId w = 0; w < n_; ++w) {
      if (!ev(w).is_write() || ev(w).loc != loc) continue;
      check_budget();
      // A write with an unconditional co successor (pinned) is never last.
      if (!co_.sure().row_empty(w)) continue;
      z3::expr pick = c_.bool_const(fmt::format("last_{}", w).c_str());
      z3::expr maximal = exec(w);
      for (const auto& [x, wx] : co_.row(w)) maximal = maximal && !wx;
      s_.add(z3::implies(pick, maximal && fin == value_of(w)));
      choices.push_back(pick);
    }
    s_.add(z3::mk_or(choices));
    final_.emplace(loc, fin);
    return fin;
  }

  // Fence-SC order (PTX §8.9.2): an acyclic order relating every pair of
  // morally strong fence.sc; a fence.sc synchronizes with its successors.
  void fence_sc_order() {
    std::vector<EventId> fences;
    for (EventId e = 0; e < n_; ++e)
      if (ev(e).is_sc_fence()) fences.push_back(e);
    std::map<EventId, z3::expr> rank;
    for (EventId f : fences) rank.emplace(f, rank_const(fmt::format("sc_rank_{}", f)));
    for (std::size_t i = 0; i < fences.size(); ++i)
      for (std::size_t j = i + 1; j < fences.size(); ++j) {
        const EventId a = fences[i], b = fences[j];
        if (!ms_.has(a, b)) continue;
        spend(2 * kClauseBytes);
        const z3::expr o = c_.bool_const(fmt::format("sc_{}_{}", a, b).c_str());
        const z3::expr both = exec(a) && exec(b);
        sf_.set(a, b, o && both);
        sf_.set(b, a, !o && both);
        s_.add(z3::implies(o && both, lt(rank.at(a), rank.at(b))));
        s_.add(z3::implies(!o && both, lt(rank.at(b), rank.at(a))));
      }
  }

  // Barriers (Dat3M's bar.cta.sync a{, b{, q}}): barriers of one CTA with the
  // same name form a class. Each arrives at a time; a waiting barrier passes
  // once q arrivals of its class have happened (all executed members when q is
  // absent). A arrives before B passes ⇒ A synchronizes with B. Passing is a
  // progress condition: an execution whose barriers cannot all pass hangs and
  // yields no outcome. It is asserted under `barrier_progress`.
  void barriers() {
    std::vector<EventId> bars;
    for (EventId e = 0; e < n_; ++e)
      if (ev(e).is_barrier()) bars.push_back(e);
    if (bars.empty()) return;
    std::map<EventId, z3::expr> arr, pas;
    for (EventId b : bars) {
      arr.emplace(b, rank_const(fmt::format("arrive_{}", b)));
      pas.emplace(b, ev(b).barrier_arrive_only ? arr.at(b) : rank_const(fmt::format("pass_{}", b)));
      s_.add(z3::implies(live_, le(arr.at(b), pas.at(b))));
    }
    for (EventId a : bars) {
      check_budget();
      for (EventId b : bars)
        if (po_.has(a, b)) s_.add(z3::implies(live_, lt(pas.at(a), arr.at(b))));
    }
    for (EventId b : bars) {
      if (ev(b).barrier_arrive_only) continue;
      spend(bars.size() * kClauseBytes);
      z3::expr_vector arrived(c_);
      z3::expr all = c_.bool_val(true);
      for (EventId a : bars) {
        const z3::expr same = same_barrier(a, b) && exec(a) && exec(b);
        const z3::expr before = le(arr.at(a), pas.at(b));
        arrived.push_back(same && before);
        all = all && z3::implies(same, before);
        if (a != b) sbar_.set(a, b, same && before);
      }
      const z3::expr passes =
          ev(b).quorum ? z3::atleast(arrived, static_cast<unsigned>(*ev(b).quorum)) : all;
      s_.add(z3::implies(live_ && exec(b), passes));
    }
  }

  z3::expr same_barrier(EventId a, EventId b) {
    const Event& x = ev(a);
    const Event& y = ev(b);
    if (!(place(a) == place(b)) || x.barrier_id != y.barrier_id) return c_.bool_val(false);
    if (!x.barrier_logical && !y.barrier_logical) return c_.bool_val(true);
    if (!x.barrier_logical || !y.barrier_logical) return c_.bool_val(false);
    return to_z3(x.barrier_logical) == to_z3(y.barrier_logical);
  }

  // Value domains (value_sets.hpp): when the model's checks keep rf ∪ dep
  // acyclic (cat::Shortcuts::no_thin_air), every read returns, and every
  // write writes, a value of its statically computed set. The constraint is
  // implied by that check, and asserted under its literal, so it changes no
  // outcome; it spares the solver from proving value bounds through
  // bit-vector arithmetic (an unsat proof that x is none of the values not
  // yet found), which dominated tests with many RMWs.
  void value_domains() {
    if (!cuts_.no_thin_air) return;
    if (!sets_) sets_ = value_sets(sk_, ValueSetLimits{.budget = budget_});
    const ValueSets& sets = *sets_;
    const z3::expr* lit = model_.literal(cuts_.no_thin_air_check);
    const z3::expr nta = lit ? *lit : c_.bool_val(true);
    for (EventId e = 0; e < n_; ++e) {
      if (!sets[e] || (ev(e).is_write() && const_value(ev(e).value))) continue;
      spend(sets[e]->size() * kClauseBytes);
      const z3::expr v = value_of(e);
      z3::expr_vector in(c_);
      for (std::uint64_t x : *sets[e]) in.push_back(v == c_.bv_val(x, width_of(ev(e).type)));
      s_.add(z3::implies(nta, z3::mk_or(in)));
    }
  }

  // Ranks and barrier times: integers for the SMT core; for the
  // finite-domain solver, bit-vectors wide enough to number 2n+2 points, so
  // that every acyclic order of the events and every arrive/pass schedule of
  // the barriers still has a ranking.
  z3::expr rank_const(const std::string& name) const {
    if (kind_ == SolverKind::Smt) return c_.int_const(name.c_str());
    unsigned bits = 1;
    while ((std::size_t{1} << bits) < 2 * n_ + 2) ++bits;
    return c_.bv_const(name.c_str(), bits);
  }
  static z3::expr lt(const z3::expr& a, const z3::expr& b) {
    return a.is_int() ? a < b : z3::ult(a, b);
  }
  static z3::expr le(const z3::expr& a, const z3::expr& b) {
    return a.is_int() ? a <= b : z3::ule(a, b);
  }

  z3::context& c_;
  z3::solver& s_;
  const Skeleton& sk_;
  std::size_t n_;
  SolverKind kind_;
  // --timeout / --max-memory: building the terms of a large test takes time
  // before the solver (which the budget interrupts) ever runs.
  const Budget* budget_;
  cat::StaticPrimitives prims_;
  cat::Shortcuts cuts_;
  SymbolicModel model_;
  const BitRel& po_ = prims_.rel("po");
  const BitRel& poloc_ = prims_.rel("po-loc");
  const BitRel& ms_ = prims_.rel("ms");
  std::vector<z3::expr> exec_;
  std::map<EventId, z3::expr> read_val_;
  std::unordered_map<const ExprNode*, z3::expr> memo_;
  std::map<std::string, z3::expr> final_;
  Rel rf_, co_, sf_, sbar_;
  z3::expr live_;
  std::optional<ValueSets> sets_;
  bool float_tables_ = false;
  bool pin_po_loc_ = false;
  bool uses_fp_ = false;
  unsigned tables_ = 0;
};

}  // namespace redscope::detail
