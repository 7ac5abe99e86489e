#include "engine/z3/relation.hpp"

#include <optional>

#include <fmt/format.h>

namespace redscope {

Rel::Rel(z3::context& ctx, std::size_t n, const Budget* budget)
    : ctx_(&ctx),
      n_(n),
      budget_(budget),
      sure_(n, budget) {
  charge(budget, n * sizeof(Row));
  rows_.resize(n);
}

std::size_t Rel::bytes_for(std::size_t n) { return BitRel::bytes_for(n) + n * sizeof(Row); }

void Rel::poll() const {
  if (budget_) budget_->check();
}

// A copy of this relation, charged before it is made.
Rel Rel::copy() const {
  charge(budget_, bytes_for(n_));
  return *this;
}

Rel Rel::from_static(z3::context& ctx, const BoolMatrix& m, const Budget* budget) {
  return from_bits(ctx, BitRel::from(m), budget);
}

Rel Rel::from_bits(z3::context& ctx, BitRel sure, const Budget* budget) {
  Rel r(ctx, sure.size(), budget);
  r.sure_ = std::move(sure);
  return r;
}

z3::expr Rel::at(std::size_t i, std::size_t j) const {
  if (sure_.has(i, j)) return ctx_->bool_val(true);
  const auto it = rows_[i].find(j);
  return it != rows_[i].end() ? it->second : ctx_->bool_val(false);
}

void Rel::set(std::size_t i, std::size_t j, const z3::expr& e) {
  sure_.set(i, j, e.is_true());
  if (e.is_true() || e.is_false())
    rows_[i].erase(j);
  else
    rows_[i].insert_or_assign(j, e);
}

void Rel::add(std::size_t i, std::size_t j, const z3::expr& e) {
  if (e.is_false() || sure_.has(i, j)) return;
  if (e.is_true()) {
    sure_.set(i, j);
    rows_[i].erase(j);
    return;
  }
  add_cond(i, j, e);
}

void Rel::add_cond(std::size_t i, std::size_t j, const z3::expr& e) {
  if (sure_.has(i, j)) return;
  const auto [it, fresh] = rows_[i].try_emplace(j, e);
  if (!fresh) it->second = it->second || e;
}

void Rel::normalize() {
  for (std::size_t i = 0; i < n_; ++i)
    for (auto it = rows_[i].begin(); it != rows_[i].end();)
      it = sure_.has(i, it->first) ? rows_[i].erase(it) : std::next(it);
}

Rel Rel::operator|(const Rel& o) const {
  Rel r = copy();
  r.sure_ = sure_ | o.sure_;
  r.normalize();
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : o.rows_[i]) r.add_cond(i, j, e);
  return r;
}

// A conditional cell meets a sure one: the conditional cell stays.
Rel Rel::operator&(const Rel& o) const {
  Rel r(*ctx_, n_, budget_);
  r.sure_ = sure_ & o.sure_;
  for (std::size_t i = 0; i < n_; ++i, poll()) {
    for (const auto& [j, e] : rows_[i]) {
      if (o.sure_.has(i, j))
        r.rows_[i].insert_or_assign(j, e);
      else if (const auto it = o.rows_[i].find(j); it != o.rows_[i].end())
        r.rows_[i].insert_or_assign(j, e && it->second);
    }
    for (const auto& [j, e] : o.rows_[i])
      if (sure_.has(i, j)) r.rows_[i].insert_or_assign(j, e);
  }
  return r;
}

// A cell minus a sure one is absent; minus a conditional one, conditional.
Rel Rel::minus(const Rel& o) const {
  Rel r(*ctx_, n_, budget_);
  r.sure_ = sure_ - o.sure_;
  for (std::size_t i = 0; i < n_; ++i, poll()) {
    for (const auto& [j, e] : rows_[i]) {
      if (o.sure_.has(i, j)) continue;
      const auto it = o.rows_[i].find(j);
      r.rows_[i].insert_or_assign(j, it == o.rows_[i].end() ? e : e && !it->second);
    }
    sure_.for_each(i, [&](std::size_t j) {
      if (const auto it = o.rows_[i].find(j); it != o.rows_[i].end()) {
        r.sure_.set(i, j, false);
        r.rows_[i].insert_or_assign(j, !it->second);
      }
    });
  }
  return r;
}

// Sure ; sure is word-parallel; a conditional step on either side makes a
// conditional cell (unless the pair is sure anyway).
Rel Rel::compose(const Rel& o) const {
  Rel r(*ctx_, n_, budget_);
  r.sure_ = sure_.compose(o.sure_);
  for (std::size_t i = 0; i < n_; ++i, poll()) {
    for (const auto& cell : rows_[i]) {  // not a structured binding: a lambda uses it
      const std::size_t k = cell.first;
      const z3::expr& ik = cell.second;
      o.sure_.for_each(k, [&](std::size_t j) { r.add_cond(i, j, ik); });
      for (const auto& [j, kj] : o.rows_[k]) r.add_cond(i, j, ik && kj);
    }
    sure_.for_each(i, [&](std::size_t k) {
      for (const auto& [j, kj] : o.rows_[k]) r.add_cond(i, j, kj);
    });
  }
  return r;
}

Rel Rel::product(z3::context& ctx, const std::vector<z3::expr>& s, const std::vector<z3::expr>& t,
                 const Budget* budget) {
  Rel r(ctx, s.size(), budget);
  std::vector<std::uint64_t> sure_t(r.sure_.words(), 0);
  std::vector<std::size_t> cond_t;
  for (std::size_t j = 0; j < t.size(); ++j) {
    if (t[j].is_true()) sure_t[j / 64] |= 1ULL << (j % 64);
    if (!t[j].is_true() && !t[j].is_false()) cond_t.push_back(j);
  }
  for (std::size_t i = 0; i < s.size(); ++i, r.poll()) {
    if (s[i].is_false()) continue;
    if (s[i].is_true()) {
      std::copy(sure_t.begin(), sure_t.end(), r.sure_.row(i));
      for (std::size_t j : cond_t) r.rows_[i].insert_or_assign(j, t[j]);
      continue;
    }
    for (std::size_t j = 0; j < t.size(); ++j) {
      if (t[j].is_false()) continue;
      r.rows_[i].insert_or_assign(j, t[j].is_true() ? s[i] : s[i] && t[j]);
    }
  }
  return r;
}

// compose() with an identity [S] on the left: a sure S(i) keeps row i as it
// is, an absent one drops it, a conditional one makes each cell S(i) && cell.
Rel Rel::rows_within(const std::vector<z3::expr>& s) const {
  Rel r(*ctx_, n_, budget_);
  for (std::size_t i = 0; i < n_; ++i, poll()) {
    if (s[i].is_false()) continue;
    if (s[i].is_true()) {
      std::copy(sure_.row(i), sure_.row(i) + sure_.words(), r.sure_.row(i));
      r.rows_[i] = rows_[i];
      continue;
    }
    sure_.for_each(i, [&](std::size_t j) { r.rows_[i].insert_or_assign(j, s[i]); });
    for (const auto& [j, e] : rows_[i]) r.rows_[i].insert_or_assign(j, s[i] && e);
  }
  return r;
}

// compose() with an identity [S] on the right: column j kept, dropped, or
// each cell cell && S(j).
Rel Rel::cols_within(const std::vector<z3::expr>& s) const {
  Rel r(*ctx_, n_, budget_);
  std::vector<std::uint64_t> keep(sure_.words(), 0);
  std::vector<std::size_t> cond;
  for (std::size_t j = 0; j < n_; ++j) {
    if (s[j].is_true()) keep[j / 64] |= 1ULL << (j % 64);
    if (!s[j].is_true() && !s[j].is_false()) cond.push_back(j);
  }
  for (std::size_t i = 0; i < n_; ++i, poll()) {
    for (std::size_t k = 0; k < keep.size(); ++k) r.sure_.row(i)[k] = sure_.row(i)[k] & keep[k];
    for (std::size_t j : cond)
      if (sure_.has(i, j)) r.rows_[i].insert_or_assign(j, s[j]);
    for (const auto& [j, e] : rows_[i]) {
      if (s[j].is_true())
        r.rows_[i].insert_or_assign(j, e);
      else if (!s[j].is_false())
        r.rows_[i].insert_or_assign(j, e && s[j]);
    }
  }
  return r;
}

// Warshall: for each k, every i reaching k gains k's successors. A sure
// (i, k) takes k's sure row a word at a time. Row k is read while row i
// grows; when i == k that is one row, so it is read from a copy.
Rel Rel::transitive_closure() const {
  Rel r = copy();
  const std::size_t w = r.sure_.words();
  for (std::size_t k = 0; k < n_; ++k, poll())
    for (std::size_t i = 0; i < n_; ++i) {
      const bool sure_ik = r.sure_.has(i, k);
      const auto ik_it = r.rows_[i].find(k);
      if (!sure_ik && ik_it == r.rows_[i].end()) continue;
      const Row own = i == k ? r.rows_[k] : Row{};
      const Row& kr = i == k ? own : r.rows_[k];
      if (sure_ik) {
        std::uint64_t* ri = r.sure_.row(i);
        const std::uint64_t* rk = r.sure_.row(k);
        for (std::size_t x = 0; x < w; ++x) ri[x] |= rk[x];
        for (const auto& [j, kj] : kr) r.add_cond(i, j, kj);
      } else {
        const z3::expr ik = ik_it->second;
        r.sure_.for_each(k, [&](std::size_t j) { r.add_cond(i, j, ik); });
        for (const auto& [j, kj] : kr) r.add_cond(i, j, ik && kj);
      }
    }
  r.normalize();
  return r;
}

Rel Rel::reflexive() const {
  Rel r = copy();
  for (std::size_t i = 0; i < n_; ++i) {
    r.sure_.set(i, i);
    r.rows_[i].erase(i);
  }
  return r;
}

Rel Rel::transpose() const {
  Rel r(*ctx_, n_, budget_);
  r.sure_ = sure_.inverse();
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (const auto& [j, e] : rows_[i]) r.rows_[j].insert_or_assign(i, e);
  return r;
}

Rel Rel::mask(const BoolMatrix& keep) const { return *this & from_static(*ctx_, keep, budget_); }

Rel Rel::named(z3::solver& solver, const std::string& name) const {
  Rel r = copy();
  for (std::size_t i = 0; i < n_; ++i, poll())
    for (auto& [j, e] : r.rows_[i]) {
      if (e.is_const()) continue;
      z3::expr v = ctx_->bool_const(fmt::format("{}_{}_{}", name, i, j).c_str());
      solver.add(v == e);
      e = v;
    }
  return r;
}

}  // namespace redscope
