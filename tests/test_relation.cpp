// Symbolic relations: closure and composition agree with brute force.
#include <catch2/catch.hpp>

#include <random>

#include "engine/z3/relation.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_relation {

using namespace redscope;

namespace {

BoolMatrix brute_closure(BoolMatrix m) {
  const std::size_t n = m.size();
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) m[i][j] = m[i][j] || (m[i][k] && m[k][j]);
  return m;
}

}  // namespace

TEST_CASE("transitive closure of a symbolic relation matches brute force", "[relation]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    z3::context c;
    z3::solver s(c);
    const std::size_t n = 6;
    Rel r(c, n);
    BoolMatrix truth(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (rng() % 3 != 0) continue;  // statically absent
        const z3::expr v =
            c.bool_const(("e" + std::to_string(i) + "_" + std::to_string(j)).c_str());
        r.set(i, j, v);
        truth[i][j] = rng() % 2;
        s.add(truth[i][j] ? v : !v);
      }
    const Rel cl = r.transitive_closure();
    REQUIRE(s.check() == z3::sat);
    const z3::model m = s.get_model();
    const BoolMatrix want = brute_closure(truth);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) CHECK(m.eval(cl.at(i, j), true).is_true() == want[i][j]);
  }
}

TEST_CASE("composition, transpose, reflexive and mask on static relations", "[relation]") {
  z3::context c;
  const BoolMatrix a = {{false, true, false}, {false, false, true}, {false, false, false}};
  const Rel r = Rel::from_static(c, a);
  const Rel rr = r.compose(r);
  CHECK(rr.maybe(0, 2));
  CHECK_FALSE(rr.maybe(0, 1));
  CHECK(r.transpose().maybe(1, 0));
  CHECK(r.reflexive().at(2, 2).is_true());
  const BoolMatrix keep = {{false, false, false}, {false, false, true}, {false, false, false}};
  CHECK_FALSE(r.mask(keep).maybe(0, 1));
  CHECK(r.mask(keep).maybe(1, 2));
}

namespace {

// A random relation whose cells are absent, sure (the constant true) or a
// fresh variable whose value `truth` fixes in `s`.
Rel random_rel(z3::context& c, z3::solver& s, std::mt19937& rng, std::size_t n,
               const std::string& tag, BoolMatrix& truth) {
  Rel r(c, n);
  truth.assign(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const unsigned kind = rng() % 4;
      if (kind == 0) continue;  // absent
      if (kind == 1) {
        r.set(i, j, c.bool_val(true));
        truth[i][j] = true;
        continue;
      }
      const z3::expr v = c.bool_const((tag + std::to_string(i) + "_" + std::to_string(j)).c_str());
      r.set(i, j, v);
      truth[i][j] = rng() % 2;
      s.add(truth[i][j] ? v : !v);
    }
  return r;
}

BoolMatrix brute(const BoolMatrix& a, const BoolMatrix& b, char op) {
  const std::size_t n = a.size();
  BoolMatrix m(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (op == '|') m[i][j] = a[i][j] || b[i][j];
      if (op == '&') m[i][j] = a[i][j] && b[i][j];
      if (op == '\\') m[i][j] = a[i][j] && !b[i][j];
      if (op == ';')
        for (std::size_t k = 0; k < n; ++k) m[i][j] = m[i][j] || (a[i][k] && b[k][j]);
    }
  return m;
}

}  // namespace

TEST_CASE("sure and conditional cells combine as brute force says", "[relation]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 30; ++round) {
    z3::context c;
    z3::solver s(c);
    const std::size_t n = 7;
    BoolMatrix ta, tb;
    const Rel a = random_rel(c, s, rng, n, "a", ta);
    const Rel b = random_rel(c, s, rng, n, "b", tb);
    REQUIRE(s.check() == z3::sat);
    const z3::model m = s.get_model();
    auto same = [&](const Rel& r, const BoolMatrix& want) {
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          CHECK(m.eval(r.at(i, j), true).is_true() == want[i][j]);
          // The two parts never overlap, and sure cells are the constant true.
          CHECK_FALSE((r.sure().has(i, j) && r.row(i).count(j)));
        }
    };
    same(a | b, brute(ta, tb, '|'));
    same(a & b, brute(ta, tb, '&'));
    same(a.minus(b), brute(ta, tb, '\\'));
    same(a.compose(b), brute(ta, tb, ';'));
    same(a.transitive_closure(), brute_closure(ta));
    BoolMatrix tt(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) tt[j][i] = ta[i][j];
    same(a.transpose(), tt);
  }
}

}  // namespace unit_relation
