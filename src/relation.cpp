#include "redscope/relation.hpp"

#include <fmt/format.h>

namespace redscope {

Rel::Rel(z3::context& ctx, std::size_t n) : ctx_(&ctx), n_(n), cells_(n * n) {}

Rel Rel::from_static(z3::context& ctx, const BoolMatrix& m) {
  Rel r(ctx, m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m.size(); ++j)
      if (m[i][j]) r.cells_[i * r.n_ + j] = ctx.bool_val(true);
  return r;
}

z3::expr Rel::at(std::size_t i, std::size_t j) const {
  const auto& c = cells_[i * n_ + j];
  return c ? *c : ctx_->bool_val(false);
}

void Rel::set(std::size_t i, std::size_t j, const z3::expr& e) {
  auto& c = cells_[i * n_ + j];
  if (e.is_false()) c.reset(); else c = e;
}

void Rel::add(std::size_t i, std::size_t j, const z3::expr& e) {
  if (e.is_false()) return;
  auto& c = cells_[i * n_ + j];
  if (!c) { c = e; return; }
  if (c->is_true()) return;
  if (e.is_true()) { c = e; return; }
  c = *c || e;
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
  for (std::size_t k = 0; k < cells_.size(); ++k)
    if (o.cells_[k]) r.add(k / n_, k % n_, *o.cells_[k]);
  return r;
}

Rel Rel::operator&(const Rel& o) const {
  Rel r(*ctx_, n_);
  for (std::size_t k = 0; k < cells_.size(); ++k)
    if (cells_[k] && o.cells_[k]) r.cells_[k] = conj(*cells_[k], *o.cells_[k]);
  return r;
}

Rel Rel::compose(const Rel& o) const {
  Rel r(*ctx_, n_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t k = 0; k < n_; ++k) {
      if (!maybe(i, k)) continue;
      for (std::size_t j = 0; j < n_; ++j)
        if (o.maybe(k, j)) r.add(i, j, conj(at(i, k), o.at(k, j)));
    }
  return r;
}

Rel Rel::transitive_closure() const {
  Rel r = *this;
  for (std::size_t k = 0; k < n_; ++k)
    for (std::size_t i = 0; i < n_; ++i) {
      if (!r.maybe(i, k)) continue;
      const z3::expr ik = r.at(i, k);
      for (std::size_t j = 0; j < n_; ++j)
        if (r.maybe(k, j)) r.add(i, j, conj(ik, r.at(k, j)));
    }
  return r;
}

Rel Rel::reflexive() const {
  Rel r = *this;
  for (std::size_t i = 0; i < n_; ++i) r.cells_[i * n_ + i] = ctx_->bool_val(true);
  return r;
}

Rel Rel::transpose() const {
  Rel r(*ctx_, n_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j) r.cells_[j * n_ + i] = cells_[i * n_ + j];
  return r;
}

Rel Rel::mask(const BoolMatrix& keep) const {
  Rel r(*ctx_, n_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j)
      if (keep[i][j]) r.cells_[i * n_ + j] = cells_[i * n_ + j];
  return r;
}

Rel Rel::named(z3::solver& solver, const std::string& name) const {
  Rel r = *this;
  for (std::size_t k = 0; k < cells_.size(); ++k) {
    if (!cells_[k] || cells_[k]->is_true() || cells_[k]->is_const()) continue;
    z3::expr v = ctx_->bool_const(fmt::format("{}_{}_{}", name, k / n_, k % n_).c_str());
    solver.add(v == *cells_[k]);
    r.cells_[k] = v;
  }
  return r;
}

}  // namespace redscope
