// Symbolic relations over the events of one skeleton: an n×n matrix of Z3
// Booleans in which statically-absent pairs are stored as nothing, so that
// composition and closure skip them (most pairs of a litmus test are absent).
// Rows are sparse (the pairs present, by column), so memory grows with the
// pairs that may be related, not with n²; every loop visits pairs in the
// order of the dense matrix, so the terms built are the same.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <z3++.h>

#include "redscope/budget.hpp"
#include "redscope/events.hpp"

namespace redscope {

class Rel {
 public:
  // `budget` (may be null) is checked once per row by every operation, and
  // passed on to the relations built from this one: a test too large to
  // encode stops at its --timeout / --max-memory while its terms are built.
  Rel(z3::context& ctx, std::size_t n, const Budget* budget = nullptr);
  static Rel from_static(z3::context& ctx, const BoolMatrix& m, const Budget* budget = nullptr);

  std::size_t size() const { return n_; }
  using Row = std::map<std::size_t, z3::expr>;  // column → cell, present pairs only

  bool maybe(std::size_t i, std::size_t j) const { return rows_[i].count(j) != 0; }
  const Row& row(std::size_t i) const { return rows_[i]; }  // row i's present pairs, by column
  z3::expr at(std::size_t i, std::size_t j) const;
  // Sets cell (i, j); a constant false clears it.
  void set(std::size_t i, std::size_t j, const z3::expr& e);
  // cell(i, j) := cell(i, j) ∨ e
  void add(std::size_t i, std::size_t j, const z3::expr& e);

  Rel operator|(const Rel& o) const;
  Rel operator&(const Rel& o) const;
  Rel compose(const Rel& o) const;         // this ; o
  Rel transitive_closure() const;          // this⁺ (Warshall)
  Rel reflexive() const;                   // this ∪ id
  Rel transpose() const;                   // this⁻¹
  Rel mask(const BoolMatrix& keep) const;  // this ∩ static relation

  // Replaces every non-constant cell by a fresh Boolean `name_i_j` defined
  // equal to it in `solver`; keeps formulas small when a relation is reused.
  Rel named(z3::solver& solver, const std::string& name) const;

 private:
  void poll() const;

  z3::context* ctx_;
  std::size_t n_;
  const Budget* budget_;
  std::vector<Row> rows_;
};

}  // namespace redscope
