// The analyses' query interface (query.hpp) over the private encoding.
#include "redscope/engine/z3/query.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <z3++.h>

#include "engine/z3/z3_condition.hpp"
#include "engine/z3/z3_encoding.hpp"
#include "redscope/engine/z3/solver_process.hpp"
#include "redscope/engine/z3/z3_guard.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

namespace {

using detail::WireIn;
using detail::WireOut;

// ---- the child: one skeleton's encoding and solver --------------------------

struct Solver {
  z3::context& c;
  const Skeleton& sk;
  detail::ModelChoice choice;
  detail::SolverKind kind;
  z3::solver s;
  detail::Encoding enc;
  std::optional<z3::model> last;  // of the last satisfiable check

  Solver(z3::context& ctx, const Skeleton& skeleton, const QueryModel& m, const Budget* budget)
      : c(ctx),
        sk(skeleton),
        choice{m.model(), m.kind(), [&m](std::string_view a) { return m.enabled(a); }},
        kind(detail::solver_kind_for(skeleton)),
        s(detail::make_solver(ctx, kind, skeleton)),
        enc(ctx, s, skeleton, choice, kind, budget) {
    enc.encode();
  }

  bool check(const z3::expr_vector& assumptions) {
    const bool sat = detail::is_sat(s, assumptions);
    if (sat) last = s.get_model();
    return sat;
  }

  const z3::model& model() const {
    if (!last) throw std::logic_error("Query: no satisfiable check yet");
    return *last;
  }

  z3::expr term(const ExecutionFact& f) const {
    switch (f.kind) {
      case ExecutionFact::Kind::Rf: return enc.rf(f.from, f.to);
      case ExecutionFact::Kind::Co: return enc.co(f.from, f.to);
      case ExecutionFact::Kind::Fr: return enc.fr(f.from, f.to);
      case ExecutionFact::Kind::Executed: break;
    }
    return enc.executed(f.from);
  }

  std::vector<z3::expr> terms(const std::vector<Observable>& obs) {
    std::vector<z3::expr> out;
    for (const Observable& o : obs) out.push_back(enc.observable(o));
    return out;
  }

  void require_values(const std::vector<Observable>& obs,
                      const std::vector<std::uint64_t>& values) {
    const std::vector<z3::expr> t = terms(obs);
    for (std::size_t i = 0; i < t.size(); ++i)
      s.add(t[i] == c.bv_val(values[i], width_of(obs[i].type)));
  }

  void require_normal_end() {
    const RegName status{kStatusThread, kStatusRegister};
    if (sk.final_regs.count(status))
      s.add(enc.observable(Observable{"status", true, status, "", DataType::U32}) ==
            c.bv_val(0, 32));
  }

  bool possible_under(const std::vector<std::string>& checks) {
    z3::expr_vector v(c);
    for (const auto& ch : enc.checks())
      if (ch.name.empty() || std::count(checks.begin(), checks.end(), ch.name))
        v.push_back(ch.literal);
    v.push_back(enc.barrier_literal());
    return check(v);
  }

  // `constraint` holds for this check only.
  bool check_with(const z3::expr& constraint) {
    const z3::expr_vector lits = enc.all_literals(true);
    s.push();
    s.add(constraint);
    bool sat = false;
    try {
      sat = check(lits);
    } catch (...) {
      s.pop();
      throw;
    }
    s.pop();
    return sat;
  }

  bool possible_with(const std::vector<ExecutionFact>& facts) {
    if (facts.empty()) return check(enc.all_literals(true));
    z3::expr all = term(facts[0]);
    for (std::size_t i = 1; i < facts.size(); ++i) all = all && term(facts[i]);
    return check_with(all);
  }

  std::optional<std::size_t> possible_with_any(
      const std::vector<std::vector<ExecutionFact>>& alternatives) {
    z3::expr_vector any(c);
    for (const auto& facts : alternatives) {
      z3::expr_vector all(c);
      for (const ExecutionFact& f : facts) all.push_back(term(f));
      any.push_back(z3::mk_and(all));
    }
    if (!check_with(z3::mk_or(any))) return std::nullopt;
    for (std::size_t i = 0; i < any.size(); ++i)
      if (model().eval(any[static_cast<unsigned>(i)], true).is_true()) return i;
    return std::nullopt;  // (not reached: the model meets one of them)
  }

  std::vector<std::pair<std::string, std::uint64_t>> final_values() {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const auto& [cell, ty] : sk.loc_types)
      out.emplace_back(cell, model().eval(enc.final_value_of(cell), true).get_numeral_uint64());
    return out;
  }
};

// ---- the codec of requests and answers --------------------------------------

enum class Op : std::uint8_t {
  Open,
  RequireValues,
  RequireCondition,
  RequireNormalEnd,
  EncodeFinalValues,
  PossibleUnder,
  Possible,
  PossibleWith,
  PossibleWithAny,
  Witness,
  Execution,
  FinalValues
};

WireOut request(Op op) {
  WireOut w;
  w.u(static_cast<std::uint8_t>(op));
  return w;
}

void put(WireOut& w, const std::vector<Observable>& obs) {
  w.u(obs.size());
  for (const Observable& o : obs) {
    w.str(o.label);
    w.b(o.is_register);
    w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(o.reg.thread)));
    w.str(o.reg.name);
    w.str(o.loc);
    w.u(static_cast<std::uint8_t>(o.type));
    w.u(o.lane_shift);
    w.u(o.lane_width);
  }
}

std::vector<Observable> get_observables(WireIn& r) {
  std::vector<Observable> obs(r.size());
  for (Observable& o : obs) {
    o.label = r.str();
    o.is_register = r.b();
    o.reg.thread = static_cast<ThreadId>(static_cast<std::int64_t>(r.u()));
    o.reg.name = r.str();
    o.loc = r.str();
    o.type = static_cast<DataType>(r.u());
    o.lane_shift = static_cast<unsigned>(r.u());
    o.lane_width = static_cast<unsigned>(r.u());
  }
  return obs;
}

void put(WireOut& w, const SourceLoc& l) {
  w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(l.line)));
  w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(l.col)));
}

SourceLoc get_loc(WireIn& r) {
  SourceLoc l;
  l.line = static_cast<int>(static_cast<std::int64_t>(r.u()));
  l.col = static_cast<int>(static_cast<std::int64_t>(r.u()));
  return l;
}

void put(WireOut& w, const CondTerm& t) {
  w.u(static_cast<std::uint8_t>(t.kind));
  w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(t.thread)));
  w.str(t.name);
  w.str(t.value.text);
  put(w, t.value.loc);
  put(w, t.loc);
}

CondTerm get_term(WireIn& r) {
  CondTerm t;
  t.kind = static_cast<CondTerm::Kind>(r.u());
  t.thread = static_cast<ThreadId>(static_cast<std::int64_t>(r.u()));
  t.name = r.str();
  t.value.text = r.str();
  t.value.loc = get_loc(r);
  t.loc = get_loc(r);
  return t;
}

// Conditions nest at most kMaxConditionDepth deep (litmus.hpp): recursion
// is bounded.
void put(WireOut& w, const CondExpr& e) {
  w.u(static_cast<std::uint8_t>(e.kind));
  w.u(e.kids.size());
  for (const CondExpr& k : e.kids) put(w, k);
  w.u(static_cast<std::uint8_t>(e.cmp));
  put(w, e.lhs);
  put(w, e.rhs);
}

CondExpr get_condition(WireIn& r) {
  CondExpr e;
  e.kind = static_cast<CondExpr::Kind>(r.u());
  e.kids.resize(r.size());
  for (CondExpr& k : e.kids) k = get_condition(r);
  e.cmp = static_cast<CmpOp>(r.u());
  e.lhs = get_term(r);
  e.rhs = get_term(r);
  return e;
}

void put(WireOut& w, const std::vector<ExecutionFact>& facts) {
  w.u(facts.size());
  for (const ExecutionFact& f : facts) {
    w.u(static_cast<std::uint8_t>(f.kind));
    w.u(f.from);
    w.u(f.to);
  }
}

std::vector<ExecutionFact> get_facts(WireIn& r) {
  std::vector<ExecutionFact> facts(r.size());
  for (ExecutionFact& f : facts) {
    f.kind = static_cast<ExecutionFact::Kind>(r.u());
    f.from = r.u();
    f.to = r.u();
  }
  return facts;
}

void put(WireOut& w, const std::vector<std::string>& v) {
  w.u(v.size());
  for (const std::string& x : v) w.str(x);
}

std::vector<std::string> get_strings(WireIn& r) {
  std::vector<std::string> v(r.size());
  for (std::string& x : v) x = r.str();
  return v;
}

void put(WireOut& w, const BitRel& rel) {
  w.u(rel.size());
  for (std::size_t i = 0; i < rel.size(); ++i)
    for (std::size_t x = 0; x < rel.words(); ++x) w.u(rel.row(i)[x]);
}

BitRel get_rel(WireIn& r) {
  BitRel rel(r.size());
  for (std::size_t i = 0; i < rel.size(); ++i)
    for (std::size_t x = 0; x < rel.words(); ++x) rel.row(i)[x] = r.u();
  return rel;
}

// One request to a query's Solver (in this process or in a solver
// process: the same bytes either way), its answer's bytes.
std::string serve(Solver* q, WireIn& in) {
  const auto op = static_cast<Op>(in.u());
  const Skeleton& sk = q->sk;
  WireOut w;
  switch (op) {
    case Op::Open: break;  // (the transport makes the Solver)
    case Op::RequireValues: {
      const std::vector<Observable> obs = get_observables(in);
      q->require_values(obs, in.u64s());
      break;
    }
    case Op::RequireCondition: {
      const CondExpr cond = get_condition(in);
      const std::vector<Observable> obs = get_observables(in);
      q->s.add(condition_to_z3(q->c, cond, obs, q->terms(obs)));
      break;
    }
    case Op::RequireNormalEnd: q->require_normal_end(); break;
    case Op::EncodeFinalValues:
      for (const auto& [cell, ty] : sk.loc_types) (void)q->enc.final_value_of(cell);
      break;
    case Op::PossibleUnder: w.b(q->possible_under(get_strings(in))); break;
    case Op::Possible: w.b(q->check(q->enc.all_literals(in.b()))); break;
    case Op::PossibleWith: w.b(q->possible_with(get_facts(in))); break;
    case Op::PossibleWithAny: {
      std::vector<std::vector<ExecutionFact>> alts(in.size());
      for (auto& a : alts) a = get_facts(in);
      const std::optional<std::size_t> i = q->possible_with_any(alts);
      w.u(i ? *i + 1 : 0);
      break;
    }
    case Op::Witness: detail::put(w, q->enc.witness(q->model(), in.u())); break;
    case Op::Execution: {
      const detail::Encoding::Chosen c = q->enc.chosen(q->model());
      w.u(c.executed.size());
      for (const bool e : c.executed) w.b(e);
      for (const BitRel* r : {&c.rf, &c.co, &c.sf, &c.sync_barrier}) put(w, *r);
      break;
    }
    case Op::FinalValues:
      for (const auto& [cell, v] : q->final_values()) {
        w.str(cell);
        w.u(v);
      }
      break;
  }
  return std::move(w.bytes());
}

// ---- the session: small queries in this process, then in its process ------

// What a session's small queries did, as requests to the session's solver
// process (queries by number; a skeleton and a model by their address,
// which a forked process shares): the same Z3 calls in the same order on
// one context, so that a process that replays them holds the state this
// process held, and answers as this process would have.
enum class SessionOp : std::uint8_t { Open, Call, Close };

std::string session_request(SessionOp op, std::size_t id) {
  WireOut w;
  w.u(static_cast<std::uint8_t>(op));
  w.u(id);
  return std::move(w.bytes());
}

// The session's solver process: one context, the queries by number.
detail::SolverProcess::Handler session_handler() {
  return [c = static_cast<z3::context*>(nullptr), queries = std::map<std::size_t, Solver*>()](
             WireIn& in, const Budget* own) mutable {
    return detail::translate_z3_errors([&]() -> std::string {
      if (!c) c = new z3::context;  // NOLINT: released with the process, not before
      const auto op = static_cast<SessionOp>(in.u());
      const std::size_t id = in.u();
      if (op == SessionOp::Call) return serve(queries.at(id), in);
      if (op == SessionOp::Close) {
        delete queries.at(id);  // as this process did (its terms freed), for the same state
        queries.erase(id);
        return {};
      }
      const auto* sk = reinterpret_cast<const Skeleton*>(in.u());
      const auto* model = reinterpret_cast<const QueryModel*>(in.u());
      queries[id] = new Solver(*c, *sk, *model, own);  // NOLINT: deleted by Close
      return {};
    });
  };
}

}  // namespace

// A session's small queries run in this process on one context, as they
// always did, for kInProcessSeconds from the first (solver_process.hpp);
// past that, with time left on the test's budget, the session moves: its
// solver process replays what they did and answers from then on. A query
// on a large skeleton has a solver process of its own.
struct QuerySession::Impl {
  const Budget* budget;
  std::unique_ptr<z3::context> c;
  std::map<std::size_t, std::unique_ptr<Solver>> here;
  std::optional<std::chrono::steady_clock::time_point> until;  // of the attempt here
  std::vector<std::string> log;                                // what was done here
  std::unique_ptr<detail::SolverProcess> child;                // once moved
  std::size_t next = 0;

  explicit Impl(const Budget* b) : budget(b) {}
  ~Impl() { drop(); }

  void drop() {
    if (!c) return;
    const detail::InProcessZ3 section;
    here.clear();
    c.reset();
  }

  // `f` here, inside a section, its checks interrupted at the test's
  // deadline or at the attempt's end: its answer, or nothing when it ran
  // out of the latter (Z3's errors as SolverError).
  template <class F>
  std::optional<std::string> attempt(F f) {
    if (!until) until = detail::attempt_end();
    if (std::chrono::steady_clock::now() >= *until) {  // the time here is over
      if (budget) budget->check();                     // (or the test's)
      return std::nullopt;
    }
    const detail::InProcessBudget limit(budget, *until);
    try {
      const detail::InProcessZ3 section;
      if (!c) c = std::make_unique<z3::context>();
      const detail::InterruptOnStop guard(limit.get(), *c);
      return detail::translate_z3_errors(f);
    } catch (const std::exception&) {
      if (!limit.moved()) {
        limit.check_spent();
        throw;
      }
    }
    return std::nullopt;
  }

  // The session's process, which replays what was done here.
  void move() {
    drop();
    child = std::make_unique<detail::SolverProcess>(budget, session_handler());
    for (const std::string& r : log) child->call(r);
    log.clear();
  }

  // `request` (done by `here_f` in this process while the session may stay).
  template <class F>
  std::string run(const std::string& request, F here_f) {
    if (!child) {
      if (std::optional<std::string> a = attempt(here_f)) {
        log.push_back(request);
        return *std::move(a);
      }
      move();
    }
    return child->call(request);
  }

  // `elsewhere`: the session moves now (EngineOptions::solver_process).
  std::size_t open(const Skeleton& sk, const QueryModel& model, const Budget* b, bool elsewhere) {
    if (elsewhere && !child) move();
    const std::size_t id = next++;
    WireOut w;
    w.bytes() = session_request(SessionOp::Open, id);
    w.u(reinterpret_cast<std::uintptr_t>(&sk));
    w.u(reinterpret_cast<std::uintptr_t>(&model));
    run(w.bytes(), [&] {
      here[id] = std::make_unique<Solver>(*c, sk, model, b);
      return std::string();
    });
    return id;
  }

  std::string call(std::size_t id, const std::string& request) {
    return run(session_request(SessionOp::Call, id) + request, [&] {
      WireIn in(request);
      return serve(here.at(id).get(), in);
    });
  }

  void close(std::size_t id) noexcept {
    try {
      const std::string request = session_request(SessionOp::Close, id);
      if (child) {
        child->call(request);
      } else if (c) {
        const detail::InProcessZ3 section;
        here.erase(id);
        log.push_back(request);
      }
    } catch (...) {  // (a session past its budget: its process is gone)
    }
  }
};

QuerySession::QuerySession(const Budget* budget) : impl_(std::make_unique<Impl>(budget)) {}
QuerySession::~QuerySession() = default;

// A query in its session, or, on a large skeleton, in a solver process of
// its own (a fresh context: it was never in this process). With
// EngineOptions::solver_process the session moves at once. Requests and
// answers are the same bytes either way. The static primitives need no
// solver: they are computed here, when asked.
struct Query::Impl {
  QuerySession::Impl& session;
  const Skeleton& sk;
  const QueryModel& model;
  const Budget* budget;
  std::optional<std::size_t> id;  // in the session
  std::unique_ptr<detail::SolverProcess> own;
  mutable std::optional<cat::StaticPrimitives> prims;

  Impl(QuerySession::Impl& s, const Skeleton& skeleton, const QueryModel& m, const Budget* b)
      : session(s),
        sk(skeleton),
        model(m),
        budget(b) {
    if (detail::small_for_process(skeleton, m.model())) {
      id = session.open(skeleton, m, b, m.options().solver_process);
      return;
    }
    own = std::make_unique<detail::SolverProcess>(
        session.budget ? session.budget : b,
        [&skeleton, &m, q = static_cast<Solver*>(nullptr)](WireIn& in, const Budget* mine) mutable {
          return detail::translate_z3_errors([&] {
            if (q) return serve(q, in);
            auto* c = new z3::context;              // NOLINT: released with the process
            q = new Solver(*c, skeleton, m, mine);  // NOLINT: likewise
            return std::string();
          });
        });
    WireOut w = request(Op::Open);
    own->call(w.bytes());
  }

  ~Impl() {
    if (id) session.close(*id);
  }

  std::string call(WireOut& w) { return id ? session.call(*id, w.bytes()) : own->call(w.bytes()); }
  bool yes(WireOut& w) {
    const std::string a = call(w);
    WireIn in(a);
    return in.b();
  }
};

Query::Query(QuerySession& session, const Skeleton& sk, const QueryModel& model,
             const Budget* budget)
    : impl_(std::make_unique<Impl>(*session.impl_, sk, model, budget)) {}

Query::~Query() = default;

void Query::require_values(const std::vector<Observable>& obs,
                           const std::vector<std::uint64_t>& values) {
  WireOut w = request(Op::RequireValues);
  put(w, obs);
  w.u64s(values);
  impl_->call(w);
}

void Query::require_condition(const CondExpr& cond, const std::vector<Observable>& obs) {
  WireOut w = request(Op::RequireCondition);
  put(w, cond);
  put(w, obs);
  impl_->call(w);
}

void Query::require_normal_end() {
  WireOut w = request(Op::RequireNormalEnd);
  impl_->call(w);
}

void Query::encode_final_values() {
  WireOut w = request(Op::EncodeFinalValues);
  impl_->call(w);
}

bool Query::possible_under(const std::vector<std::string>& checks) {
  WireOut w = request(Op::PossibleUnder);
  put(w, checks);
  return impl_->yes(w);
}

bool Query::possible(Barriers barriers) {
  WireOut w = request(Op::Possible);
  w.b(barriers == Barriers::MustPass);
  return impl_->yes(w);
}

bool Query::possible_with(const std::vector<ExecutionFact>& facts) {
  WireOut w = request(Op::PossibleWith);
  put(w, facts);
  return impl_->yes(w);
}

std::optional<std::size_t> Query::possible_with_any(
    const std::vector<std::vector<ExecutionFact>>& alternatives) {
  WireOut w = request(Op::PossibleWithAny);
  w.u(alternatives.size());
  for (const auto& a : alternatives) put(w, a);
  const std::string a = impl_->call(w);
  WireIn in(a);
  const std::uint64_t i = in.u();
  return i == 0 ? std::nullopt : std::optional<std::size_t>(i - 1);
}

std::vector<std::string> Query::minimal_core(std::vector<std::string> core) {
  for (std::size_t i = 0; i < core.size();) {
    std::vector<std::string> smaller = core;
    smaller.erase(smaller.begin() + static_cast<std::ptrdiff_t>(i));
    if (!possible_under(smaller))
      core = std::move(smaller);
    else
      ++i;
  }
  return core;
}

Witness Query::witness(std::size_t skeleton) const {
  WireOut w = request(Op::Witness);
  w.u(skeleton);
  const std::string a = impl_->call(w);
  WireIn in(a);
  return detail::get_witness(in);
}

ChosenExecution Query::execution() const {
  WireOut w = request(Op::Execution);
  const std::string a = impl_->call(w);
  WireIn in(a);
  ChosenExecution c;
  c.executed.resize(in.size());
  for (std::size_t i = 0; i < c.executed.size(); ++i) c.executed[i] = in.b();
  c.rf = get_rel(in);
  c.co = get_rel(in);
  c.sf = get_rel(in);
  c.sync_barrier = get_rel(in);
  return c;
}

std::vector<std::pair<std::string, std::uint64_t>> Query::final_values() const {
  WireOut w = request(Op::FinalValues);
  const std::string a = impl_->call(w);
  WireIn in(a);
  std::vector<std::pair<std::string, std::uint64_t>> out;
  while (!in.done()) {
    std::string cell = in.str();
    out.emplace_back(std::move(cell), in.u());
  }
  return out;
}

// The same primitives the encoding computed (Encoding's constructor:
// cat::static_primitives of the skeleton, model and variants), kept here,
// wherever the query's solver runs or moves.
const cat::StaticPrimitives& Query::static_primitives() const {
  if (!impl_->prims)
    impl_->prims.emplace(cat::static_primitives(
        impl_->sk, impl_->model.model(), impl_->model.kind()->variant_list(), impl_->budget));
  return *impl_->prims;
}

}  // namespace redscope
