// Symbolic relations over the events of one skeleton, as a pair: the pairs
// related in every execution, as bits (`sure()`: program order, pinned co,
// static relations between unguarded events), and the pairs related under a
// condition, as Z3 Booleans in sparse rows (`row(i)`). Pairs in neither are
// statically absent and cost nothing. The constant part is combined a word
// at a time, so a test of a thousand events in one thread (po: half a
// million pairs) builds no term for it; only conditional cells build terms.
// The two parts never overlap: a cell is sure, conditional or absent, and a
// conditional cell is never a constant.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <z3++.h>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/events/events.hpp"

namespace redscope {

class Rel {
 public:
  // `budget` (may be null) is checked once per row by every operation, and
  // passed on to the relations built from this one: a test too large to
  // encode stops at its --timeout / --max-memory while its terms are built.
  // Its n x n bits and rows are charged to the budget before they are made
  // (Budget::charge), as is every copy an operation makes.
  Rel(z3::context& ctx, std::size_t n, const Budget* budget = nullptr);
  // The bytes of an empty relation over n events.
  static std::size_t bytes_for(std::size_t n);
  static Rel from_static(z3::context& ctx, const BoolMatrix& m, const Budget* budget = nullptr);
  static Rel from_bits(z3::context& ctx, BitRel sure, const Budget* budget = nullptr);

  std::size_t size() const { return n_; }
  using Row = std::map<std::size_t, z3::expr>;  // column → cell, conditional pairs only

  bool maybe(std::size_t i, std::size_t j) const {
    return sure_.has(i, j) || rows_[i].count(j) != 0;
  }
  // The pairs related in every execution.
  const BitRel& sure() const { return sure_; }
  // Row i's conditional pairs, by column (the sure ones are in sure()).
  const Row& row(std::size_t i) const { return rows_[i]; }
  // Calls f(j, cell) for every present pair of row i, the sure ones with the
  // constant true.
  template <class F>
  void for_row(std::size_t i, F&& f) const {
    if (!sure_.row_empty(i)) {
      const z3::expr t = ctx_->bool_val(true);
      sure_.for_each(i, [&](std::size_t j) { f(j, t); });
    }
    for (const auto& [j, e] : rows_[i]) f(j, e);
  }
  z3::expr at(std::size_t i, std::size_t j) const;
  // Sets cell (i, j); a constant false clears it, a constant true makes it sure.
  void set(std::size_t i, std::size_t j, const z3::expr& e);
  // cell(i, j) := cell(i, j) ∨ e
  void add(std::size_t i, std::size_t j, const z3::expr& e);

  Rel operator|(const Rel& o) const;
  Rel operator&(const Rel& o) const;
  Rel minus(const Rel& o) const;    // this \ o
  Rel compose(const Rel& o) const;  // this ; o
  // [S] ; this (rows: cell i is S's condition on event i) or this ; [S]
  // (cols): the cells compose() would make, with no n³ composition.
  Rel rows_within(const std::vector<z3::expr>& s) const;
  // S * T: cell (i, j) is S(i) ∧ T(j), constants folded; sure × sure rows
  // are set a word at a time.
  static Rel product(z3::context& ctx, const std::vector<z3::expr>& s,
                     const std::vector<z3::expr>& t, const Budget* budget);
  Rel cols_within(const std::vector<z3::expr>& s) const;
  Rel transitive_closure() const;          // this⁺ (Warshall)
  Rel reflexive() const;                   // this ∪ id
  Rel transpose() const;                   // this⁻¹
  Rel mask(const BoolMatrix& keep) const;  // this ∩ static relation

  // Replaces every conditional cell that is not already a constant by a
  // fresh Boolean `name_i_j` defined equal to it in `solver`; keeps formulas
  // small when a relation is reused.
  Rel named(z3::solver& solver, const std::string& name) const;

 private:
  void poll() const;
  Rel copy() const;
  // cell(i, j) := cell(i, j) ∨ e for a conditional e, unless (i, j) is sure.
  void add_cond(std::size_t i, std::size_t j, const z3::expr& e);
  // Drops the conditional cells that the sure part now covers.
  void normalize();

  z3::context* ctx_;
  std::size_t n_;
  const Budget* budget_;
  BitRel sure_;
  std::vector<Row> rows_;
};

}  // namespace redscope
