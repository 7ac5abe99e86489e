#include "redscope/relation.hpp"

#include <optional>

#include <fmt/format.h>

namespace redscope {

Rel::Rel(z3::context& ctx, std::size_t n, const Budget* budget)
    : ctx_(&ctx),
      n_(n),
      budget_(budget),
      rows_(n) {}

void Rel::poll() const {
  if (budget_) budget_->check();
}

Rel Rel::from_static(z3::context& ctx, const BoolMatrix& m, const Budget* budget) {
  Rel r(ctx, m.size(), budget);
  for (std::size_t i = 0; i < m.size(); ++i, r.poll())
    for (std::size_t j = 0; j < m.size(); ++j)
      if (m[i][j]) r.rows_[i].insert_or_assign(j, ctx.bool_val(true));
  return r;
}

z3::expr Rel::at(std::size_t i, std::size_t j) const {
  const auto it = rows_[i].find(j);
  return it != rows_[i].end() ? it->second : ctx_->bool_val(false);
}

void Rel::set(std::size_t i, std::size_t j, const z3::expr& e) {
  if (e.is_false())
    rows_[i].erase(j);
  else
    rows_[i].insert_or_assign(j, e);
}

void Rel::add(std::size_t i, std::size_t j, const z3::expr& e) {
  if (e.is_false()) return;
  const auto [it, fresh] = rows_[i].try_emplace(j, e);
  if (fresh) return;
  z3::expr& c = it->second;
  if (c.is_true()) return;
  if (e.is_true()) {
    c = e;
    return;
  }
  c = c || e;
}

namespace {
z3::expr conj(const z3::expr& a, const z3::expr& b) {
  if (a.is_true()) return b;
  if (b.is_true()) return a;
  return a && b;
}
}  // namespace

Rel Rel::operator|(const Rel& o) const {
  Rel r = *this;
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : o.rows_[i]) r.add(i, j, e);
  return r;
}

Rel Rel::operator&(const Rel& o) const {
  Rel r(*ctx_, n_, budget_);
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : rows_[i])
      if (const auto it = o.rows_[i].find(j); it != o.rows_[i].end())
        r.rows_[i].insert_or_assign(j, conj(e, it->second));
  return r;
}

Rel Rel::compose(const Rel& o) const {
  Rel r(*ctx_, n_, budget_);
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [k, ik] : rows_[i])
      for (const auto& [j, kj] : o.rows_[k]) r.add(i, j, conj(ik, kj));
  return r;
}

// Warshall. Row k is read while row i grows; when i == k that is one row,
// so it is read from a copy (the terms stay those of the dense matrix).
Rel Rel::transitive_closure() const {
  Rel r = *this;
  for (std::size_t k = 0; k < n_; ++k, poll())
    for (std::size_t i = 0; i < n_; ++i) {
      const auto ik_it = r.rows_[i].find(k);
      if (ik_it == r.rows_[i].end()) continue;
      const z3::expr ik = ik_it->second;
      std::optional<Row> own;  // the copy, only when i == k
      if (i == k) own = r.rows_[k];
      for (const auto& [j, kj] : own ? *own : r.rows_[k]) r.add(i, j, conj(ik, kj));
    }
  return r;
}

Rel Rel::reflexive() const {
  Rel r = *this;
  for (std::size_t i = 0; i < n_; ++i) r.rows_[i].insert_or_assign(i, ctx_->bool_val(true));
  return r;
}

Rel Rel::transpose() const {
  Rel r(*ctx_, n_, budget_);
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : rows_[i]) r.rows_[j].insert_or_assign(i, e);
  return r;
}

Rel Rel::mask(const BoolMatrix& keep) const {
  Rel r(*ctx_, n_, budget_);
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : rows_[i])
      if (keep[i][j]) r.rows_[i].insert_or_assign(j, e);
  return r;
}

Rel Rel::named(z3::solver& solver, const std::string& name) const {
  Rel r = *this;
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : rows_[i]) {
      if (e.is_true() || e.is_const()) continue;
      z3::expr v = ctx_->bool_const(fmt::format("{}_{}_{}", name, i, j).c_str());
      solver.add(v == e);
      r.rows_[i].insert_or_assign(j, v);
    }
  return r;
}

}  // namespace redscope
