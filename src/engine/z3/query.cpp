// The analyses' query interface (query.hpp) over the private encoding.
#include "redscope/engine/z3/query.hpp"

#include <optional>

#include <z3++.h>

#include "engine/z3/z3_condition.hpp"
#include "engine/z3/z3_encoding.hpp"
#include "redscope/engine/z3/z3_guard.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

struct QuerySession::Impl {
  z3::context c;
  detail::InterruptOnStop guard;
  explicit Impl(const Budget* budget) : guard(budget, c) {}
};

QuerySession::QuerySession(const Budget* budget) : impl_(std::make_unique<Impl>(budget)) {}
QuerySession::~QuerySession() = default;

struct Query::Impl {
  z3::context& c;
  const Skeleton& sk;
  detail::ModelChoice choice;
  detail::SolverKind kind;
  z3::solver s;
  detail::Encoding enc;
  std::optional<z3::model> last;  // of the last satisfiable check

  Impl(z3::context& ctx, const Skeleton& skeleton, const QueryModel& m, const Budget* budget)
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
};

Query::Query(QuerySession& session, const Skeleton& sk, const QueryModel& model,
             const Budget* budget)
    : impl_(detail::translate_z3_errors(
          [&] { return std::make_unique<Impl>(session.impl_->c, sk, model, budget); })) {}

Query::~Query() = default;

void Query::require_values(const std::vector<Observable>& obs,
                           const std::vector<std::uint64_t>& values) {
  detail::translate_z3_errors([&] {
    Impl& q = *impl_;
    std::vector<z3::expr> terms;
    for (const Observable& o : obs) terms.push_back(q.enc.observable(o));
    for (std::size_t i = 0; i < terms.size(); ++i)
      q.s.add(terms[i] == q.c.bv_val(values[i], width_of(obs[i].type)));
  });
}

void Query::require_condition(const CondExpr& cond, const std::vector<Observable>& obs) {
  detail::translate_z3_errors([&] {
    Impl& q = *impl_;
    std::vector<z3::expr> terms;
    for (const Observable& o : obs) terms.push_back(q.enc.observable(o));
    q.s.add(condition_to_z3(q.c, cond, obs, terms));
  });
}

void Query::require_normal_end() {
  detail::translate_z3_errors([&] {
    Impl& q = *impl_;
    const RegName status{kStatusThread, kStatusRegister};
    if (q.sk.final_regs.count(status))
      q.s.add(q.enc.observable(Observable{"status", true, status, "", DataType::U32}) ==
              q.c.bv_val(0, 32));
  });
}

void Query::encode_final_values() {
  detail::translate_z3_errors([&] {
    for (const auto& [cell, ty] : impl_->sk.loc_types) (void)impl_->enc.final_value_of(cell);
  });
}

bool Query::possible_under(const std::vector<std::string>& checks) {
  return detail::translate_z3_errors([&] {
    Impl& q = *impl_;
    z3::expr_vector v(q.c);
    for (const auto& ch : q.enc.checks())
      if (ch.name.empty() || std::count(checks.begin(), checks.end(), ch.name))
        v.push_back(ch.literal);
    v.push_back(q.enc.barrier_literal());
    return q.check(v);
  });
}

bool Query::possible(Barriers barriers) {
  return detail::translate_z3_errors(
      [&] { return impl_->check(impl_->enc.all_literals(barriers == Barriers::MustPass)); });
}

bool Query::possible_with(const std::vector<ExecutionFact>& facts) {
  return detail::translate_z3_errors([&] {
    Impl& q = *impl_;
    if (facts.empty()) return possible(Barriers::MustPass);
    z3::expr all = q.term(facts[0]);
    for (std::size_t i = 1; i < facts.size(); ++i) all = all && q.term(facts[i]);
    const z3::expr_vector lits = q.enc.all_literals(true);
    q.s.push();
    q.s.add(all);
    bool sat = false;
    try {
      sat = q.check(lits);
    } catch (...) {
      q.s.pop();
      throw;
    }
    q.s.pop();
    return sat;
  });
}

std::optional<std::size_t> Query::possible_with_any(
    const std::vector<std::vector<ExecutionFact>>& alternatives) {
  return detail::translate_z3_errors([&]() -> std::optional<std::size_t> {
    Impl& q = *impl_;
    z3::expr_vector any(q.c);
    for (const auto& facts : alternatives) {
      z3::expr_vector all(q.c);
      for (const ExecutionFact& f : facts) all.push_back(q.term(f));
      any.push_back(z3::mk_and(all));
    }
    q.s.push();
    q.s.add(z3::mk_or(any));
    bool sat = false;
    try {
      sat = q.check(q.enc.all_literals(true));
    } catch (...) {
      q.s.pop();
      throw;
    }
    q.s.pop();
    if (!sat) return std::nullopt;
    for (std::size_t i = 0; i < any.size(); ++i)
      if (q.model().eval(any[static_cast<unsigned>(i)], true).is_true()) return i;
    return std::nullopt;  // (not reached: the model meets one of them)
  });
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
  return detail::translate_z3_errors([&] { return impl_->enc.witness(impl_->model(), skeleton); });
}

ChosenExecution Query::execution() const {
  return detail::translate_z3_errors([&] {
    detail::Encoding::Chosen c = impl_->enc.chosen(impl_->model());
    return ChosenExecution{std::move(c.executed), std::move(c.rf), std::move(c.co), std::move(c.sf),
                           std::move(c.sync_barrier)};
  });
}

std::vector<std::pair<std::string, std::uint64_t>> Query::final_values() const {
  return detail::translate_z3_errors([&] {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const auto& [cell, ty] : impl_->sk.loc_types)
      out.emplace_back(
          cell, impl_->model().eval(impl_->enc.final_value_of(cell), true).get_numeral_uint64());
    return out;
  });
}

const cat::StaticPrimitives& Query::static_primitives() const { return impl_->enc.static_prims(); }

}  // namespace redscope
