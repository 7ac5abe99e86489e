// The Z3 engine: all-SAT enumeration of the outcomes a test allows under a
// cat model, encoded by Encoding (z3_encoding.hpp).
#include "redscope/engine/engine.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <z3++.h>

#include "engine/z3/z3_condition.hpp"
#include "engine/z3/z3_encoding.hpp"
#include "redscope/engine/z3/solver_process.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/engine/z3/z3_guard.hpp"
#include "redscope/model/cat.hpp"

namespace redscope {
namespace {

using Clock = std::chrono::steady_clock;
using detail::choice_for;
using detail::Encoding;
using detail::InterruptOnStop;
using detail::ModelChoice;
using detail::translate_z3_errors;

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

  // `deciding`: only executions that decide the condition (a verdict-only
  // run's one query: deciding_to_z3).
  SkeletonSolver(z3::context& c, const Skeleton& sk, const LitmusTest& test,
                 const std::vector<Observable>& obs, const EngineOptions& opts,
                 const ModelChoice& model, bool deciding = false)
      : c_(c),
        deciding_(deciding),
        sk_(sk),
        test_(test),
        obs_(obs),
        opts_(opts),
        model_(model),
        float_tables_(opts.float_tables) {
    open(detail::SolverKind::Smt);
  }

  // Some execution satisfies the axioms (and, `with_barriers`, passes every
  // barrier) with an outcome not blocked yet.
  bool sat(bool with_barriers) {
    for (;;) {
      const z3::check_result r = cur_->s.check(cur_->enc.all_literals(with_barriers));
      if (r == z3::sat) return true;
      if (r == z3::unsat) return false;
      if (opts_.budget)
        opts_.budget->check();  // an interrupt (--timeout) is not the conflict limit
      if (!limited()) detail::solver_gave_up(cur_->s);
      open(detail::SolverKind::FiniteDomain);
    }
  }

  z3::model model() const { return cur_->s.get_model(); }
  const std::vector<z3::expr>& terms() const { return cur_->terms; }
  Encoding& encoding() { return cur_->enc; }

  void block(const std::vector<std::uint64_t>& vals) {
    blocked_.push_back(vals);
    add_block(vals);
  }

 private:
  struct Session {
    z3::solver s;
    Encoding enc;
    std::vector<z3::expr> terms;
    detail::SolverKind kind;
    Session(z3::context& c, z3::solver solver, const Skeleton& sk, const ModelChoice& m,
            detail::SolverKind k, const Budget* budget)
        : s(std::move(solver)),
          enc(c, s, sk, m, k, budget),
          kind(k) {}
  };

  // The SMT core under a conflict limit, which a hard check exceeds.
  bool limited() const { return may_move_ && cur_->kind == detail::SolverKind::Smt; }

  void open(detail::SolverKind kind) {
    z3::solver s = detail::make_solver(c_, kind, sk_);
    cur_ = std::make_unique<Session>(c_, std::move(s), sk_, model_, kind, opts_.budget);
    // Both only where the model implies what they assume (cat::Shortcuts).
    cur_->enc.use_float_tables(float_tables_ && cur_->enc.shortcuts().no_thin_air);
    cur_->enc.pin_po_loc_co(true);
    cur_->enc.encode();
    for (const Observable& o : obs_) cur_->terms.push_back(cur_->enc.observable(o));
    // herd's `filter`: only executions satisfying it are considered.
    bool fp = cur_->enc.uses_fp_theory();
    if (test_.filter) {
      const z3::expr f = condition_to_z3(c_, *test_.filter, obs_, cur_->terms);
      fp = fp || mentions_fp(f);
      cur_->s.add(f);
    }
    if (deciding_) {
      const z3::expr d = deciding_to_z3(c_, test_, obs_, cur_->terms);
      fp = fp || mentions_fp(d);
      cur_->s.add(d);
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
      diff.push_back(cur_->terms[i] !=
                     c_.bv_val(static_cast<std::uint64_t>(vals[i]), width_of(obs_[i].type)));
    cur_->s.add(z3::mk_or(diff));
  }

  z3::context& c_;
  bool deciding_;
  const Skeleton& sk_;
  const LitmusTest& test_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  const ModelChoice& model_;
  bool float_tables_;
  bool may_move_ = false;
  std::unique_ptr<Session> cur_;
  std::vector<std::vector<std::uint64_t>> blocked_;
};

// All outcomes of one complete skeleton not already in `found`.
void enumerate(z3::context& c, const Skeleton& sk, std::size_t index, const LitmusTest& test,
               const std::vector<Observable>& obs, const EngineOptions& opts,
               const ModelChoice& model, std::map<std::vector<std::uint64_t>, Witness>& found,
               IncompletePaths& inc) {
  SkeletonSolver s(c, sk, test, obs, opts, model);
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
      throw InputError(
          Diagnostic{test.file, test.condition_loc,
                     fmt::format("more than {} outcomes: the observed values are not bounded by "
                                 "the test; observe fewer registers or raise --max-outcomes",
                                 opts.max_outcomes)});
    s.block(vals);
  }
}

// Verdict only: per complete path, one query for an execution that decides
// the condition (the proposition asserted; forall: its negation). The first
// satisfiable one is the witness; all unsatisfiable prove there is none.
// Paths cut by the unroll bound are counted as in a full run; paths that
// hang at a barrier are not looked for.
std::optional<std::pair<std::vector<std::uint64_t>, Witness>> decide(
    z3::context& c, const Expansion& ex, const LitmusTest& test, const EngineOptions& opts,
    const ModelChoice& model, const std::vector<Observable>& obs, IncompletePaths& inc) {
  for (std::size_t i = 0; i < ex.skeletons.size(); ++i) {
    const Skeleton& sk = ex.skeletons[i];
    if (sk.cut) {
      SkeletonSolver s(c, sk, test, obs, opts, model);
      if (s.sat(false)) ++inc.bound_cut;
      continue;
    }
    SkeletonSolver s(c, sk, test, obs, opts, model, true);
    if (!s.sat(true)) continue;
    const z3::model m = s.model();
    std::vector<std::uint64_t> vals;
    for (const z3::expr& t : s.terms()) vals.push_back(m.eval(t, true).get_numeral_uint64());
    return std::pair{std::move(vals), s.encoding().witness(m, i)};
  }
  return std::nullopt;
}

// What the solver found for a test: the paths cut or hanging at a barrier,
// and the outcomes (a verdict-only run: the one that decided, if any).
struct Solved {
  IncompletePaths inc;
  detail::FoundOutcomes found;
  std::optional<std::pair<std::vector<std::uint64_t>, Witness>> decided;
};

Solved solve(z3::context& c, const Expansion& ex, const LitmusTest& test, const EngineOptions& opts,
             const ModelChoice& choice, const std::vector<Observable>& obs) {
  const InterruptOnStop guard(opts.budget, c);  // the watchdog may interrupt its checks
  Solved s;
  if (opts.verdict_only) {
    s.decided = decide(c, ex, test, opts, choice, obs, s.inc);
  } else {
    for (std::size_t i = 0; i < ex.skeletons.size(); ++i)
      enumerate(c, ex.skeletons[i], i, test, obs, opts, choice, s.found, s.inc);
  }
  return s;
}

// The answer of a solver process (solver_process.hpp).
std::string encode(const Solved& s) {
  detail::WireOut w;
  w.u(s.inc.bound_cut);
  w.u(s.inc.barrier_deadlock);
  detail::put(w, s.found);
  w.b(s.decided.has_value());
  if (s.decided) {
    w.u64s(s.decided->first);
    detail::put(w, s.decided->second);
  }
  return std::move(w.bytes());
}

Solved decode(const std::string& answer) {
  detail::WireIn in(answer);
  Solved s;
  s.inc.bound_cut = in.u();
  s.inc.barrier_deadlock = in.u();
  s.found = detail::get_found(in);
  if (in.b()) {
    std::vector<std::uint64_t> vals = in.u64s();
    s.decided.emplace(std::move(vals), detail::get_witness(in));
  }
  return s;
}

}  // namespace

bool z3_available() { return true; }

TestResult run_z3(const LitmusTest& test, const EngineOptions& opts) {
  const auto t0 = Clock::now();
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  const std::shared_ptr<const cat::Model> model = model_of(opts, test);
  cat::require_typed(*model, "the z3 engine");
  const ModelChoice choice = choice_for(test, opts, *model);
  // In a solver process (solver_process.hpp), whose context is never
  // released: the process ends with _exit.
  const auto elsewhere = [&] {
    return decode(detail::run_isolated(opts.budget, [&](const Budget* b) {
      EngineOptions o = opts;  // the child's budget: it shares no lock with ours
      o.budget = b;
      o.expand.budget = b;
      return translate_z3_errors([&] {
        auto* c = new z3::context;  // NOLINT: released with the process, not before
        return encode(solve(*c, ex, test, o, choice, r.observables));
      });
    }));
  };
  // A small test in this process, as fast as it always was, for a while.
  const auto here = [&](const Budget* b) {
    EngineOptions o = opts;
    o.budget = b;
    o.expand.budget = b;
    return translate_z3_errors([&] {
      z3::context c;
      return solve(c, ex, test, o, choice, r.observables);
    });
  };
  Solved s = !opts.solver_process && detail::small_for_process(ex, *model)
                 ? detail::here_first(opts.budget, here, elsewhere)
                 : elsewhere();
  r.incomplete.bound_cut += s.inc.bound_cut;
  r.incomplete.barrier_deadlock += s.inc.barrier_deadlock;
  if (opts.verdict_only) {
    const VerdictBy by = s.decided ? VerdictBy::Witness : VerdictBy::SolverProof;
    settle_verdict(r, test, std::move(s.decided), by);
  } else {
    settle_result(r, test, std::move(s.found));
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace redscope
