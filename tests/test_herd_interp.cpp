// herd7's cat interpreter (model/herd/interp.hpp) on tiny hand-made
// executions, one construct or built-in per test; the trees are built by
// hand (model/herd/ast.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "redscope/model/herd/interp.hpp"
#include "redscope/model/herd/parse.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_herd_interp {

using namespace redscope::cat::herd;
using redscope::BitRel;
using redscope::InputError;

namespace {

const auto kFile = std::make_shared<const std::string>("t.cat");

Where at(int line = 1, int col = 1) { return Where{kFile, {line, col}}; }

ExpPtr mk(ExpKind k, int line = 1, int col = 1) {
  auto e = std::make_unique<Exp>();
  e->kind = k;
  e->at = at(line, col);
  return e;
}

ExpPtr V(const std::string& n, int line = 1, int col = 1) {
  auto e = mk(ExpKind::Var, line, col);
  e->name = n;
  return e;
}
ExpPtr Tg(const std::string& n) {
  auto e = mk(ExpKind::Tag);
  e->name = n;
  return e;
}
ExpPtr Z() { return mk(ExpKind::Empty); }
ExpPtr U() { return mk(ExpKind::Universe); }

template <class... A>
std::vector<ExpPtr> L(A&&... a) {
  std::vector<ExpPtr> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

ExpPtr O2(Op2 op, std::vector<ExpPtr> args, int line = 1, int col = 1) {
  auto e = mk(ExpKind::Op, line, col);
  e->op2 = op;
  e->args = std::move(args);
  return e;
}
ExpPtr Or(ExpPtr a, ExpPtr b) { return O2(Op2::Union, L(std::move(a), std::move(b))); }
ExpPtr And(ExpPtr a, ExpPtr b) { return O2(Op2::Inter, L(std::move(a), std::move(b))); }
ExpPtr Minus(ExpPtr a, ExpPtr b) { return O2(Op2::Diff, L(std::move(a), std::move(b))); }
ExpPtr Semi(ExpPtr a, ExpPtr b) { return O2(Op2::Seq, L(std::move(a), std::move(b))); }
ExpPtr Cart(ExpPtr a, ExpPtr b) { return O2(Op2::Cartesian, L(std::move(a), std::move(b))); }
ExpPtr Add(ExpPtr a, ExpPtr b) { return O2(Op2::Add, L(std::move(a), std::move(b))); }
ExpPtr Tup(std::vector<ExpPtr> args) { return O2(Op2::Tuple, std::move(args)); }

ExpPtr O1(Op1 op, ExpPtr a) {
  auto e = mk(ExpKind::Op1);
  e->op1 = op;
  e->args = L(std::move(a));
  return e;
}

ExpPtr App(ExpPtr f, ExpPtr a, int line = 1, int col = 1) {
  auto e = mk(ExpKind::App, line, col);
  e->args = L(std::move(f), std::move(a));
  return e;
}
ExpPtr Call1(const std::string& f, ExpPtr a) { return App(V(f), std::move(a)); }
ExpPtr Call2(const std::string& f, ExpPtr a, ExpPtr b) {
  return App(V(f), Tup(L(std::move(a), std::move(b))));
}

Pattern pat(std::vector<std::string> names, bool tuple = false) {
  Pattern p;
  p.tuple = tuple || names.size() != 1;
  for (auto& n : names) p.names.emplace_back(n == "_" ? std::nullopt : std::optional(n));
  return p;
}

ExpPtr Fun(std::vector<std::string> params, ExpPtr body, const std::string& name = "*fun*") {
  auto e = mk(ExpKind::Fun);
  e->pat = pat(std::move(params));
  e->body = std::move(body);
  e->name = name;
  return e;
}

ExpPtr Set(std::vector<ExpPtr> elts) {
  auto e = mk(ExpKind::ExplicitSet);
  e->args = std::move(elts);
  return e;
}

ExpPtr Try(ExpPtr a, ExpPtr b) {
  auto e = mk(ExpKind::Try);
  e->args = L(std::move(a), std::move(b));
  return e;
}

ExpPtr If(Cond::Kind k, ExpPtr a, ExpPtr b, ExpPtr then, ExpPtr otherwise) {
  auto e = mk(ExpKind::If);
  e->cond.kind = k;
  e->cond.a = std::move(a);
  e->cond.b = std::move(b);
  e->args = L(std::move(then), std::move(otherwise));
  return e;
}

Binding B(const std::string& name, ExpPtr e) { return Binding{at(), pat({name}), std::move(e)}; }

ExpPtr Let(std::vector<Binding> bds, ExpPtr body, bool rec = false) {
  auto e = mk(rec ? ExpKind::BindRec : ExpKind::Bind);
  e->bindings = std::move(bds);
  e->body = std::move(body);
  return e;
}

template <class... A>
std::vector<Binding> Bs(A&&... a) {
  std::vector<Binding> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

Ins LetI(std::vector<Binding> bds, bool rec = false) {
  Ins i;
  i.kind = rec ? InsKind::Rec : InsKind::Let;
  i.at = at();
  i.bindings = std::move(bds);
  return i;
}
Ins LetI(const std::string& name, ExpPtr e) { return LetI(Bs(B(name, std::move(e)))); }

AppTest mktest(TestKind k, ExpPtr e, std::optional<std::string> name, TestType type, bool neg) {
  AppTest t;
  t.at = at(7, 3);
  t.type = type;
  t.negated = neg;
  t.kind = k;
  t.exp = std::move(e);
  t.name = std::move(name);
  return t;
}

Ins Test(TestKind k, ExpPtr e, std::optional<std::string> name = {},
         TestType type = TestType::Check, bool neg = false) {
  Ins i;
  i.kind = InsKind::Test;
  i.at = at(7, 3);
  i.test = mktest(k, std::move(e), std::move(name), type, neg);
  return i;
}

Ins With(const std::string& x, ExpPtr e) {
  Ins i;
  i.kind = InsKind::WithFrom;
  i.at = at();
  i.name = x;
  i.exp = std::move(e);
  return i;
}

template <class... A>
std::vector<Ins> Is(A&&... a) {
  std::vector<Ins> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

std::shared_ptr<const Program> P(std::vector<Ins> body) {
  auto p = std::make_shared<Program>();
  p->file = "t.cat";
  p->body = std::move(body);
  return p;
}

EventBits bits(std::size_t n, std::vector<std::size_t> es) {
  EventBits b((n + 63) / 64, 0);
  for (auto e : es) b[e / 64] |= 1ULL << (e % 64);
  return b;
}

BitRel rel(std::size_t n, std::vector<std::pair<std::size_t, std::size_t>> ps) {
  BitRel r(n);
  for (auto [a, b] : ps) r.set(a, b);
  return r;
}

// 0: W x, 1: a fence, 2: R x, in program order; 0 -rf-> 2.
Execution fixture() {
  Execution x;
  x.n = 3;
  x.sets = {{"W", bits(3, {0})},  {"R", bits(3, {2})},  {"F", bits(3, {1})}, {"M", bits(3, {0, 2})},
            {"E0", bits(3, {0})}, {"E1", bits(3, {1})}, {"E2", bits(3, {2})}};
  x.rels = {{"po", rel(3, {{0, 1}, {1, 2}, {0, 2}})},
            {"po1", rel(3, {{0, 1}, {1, 2}})},
            {"loc", rel(3, {{0, 0}, {0, 2}, {2, 0}, {2, 2}})},
            {"rf", rel(3, {{0, 2}})}};
  return x;
}

Verdict run(std::vector<Ins> body, const std::function<bool(std::string_view)>& enabled = {},
            std::vector<std::string> variants = {}) {
  const Interpreter in(nullptr, P(std::move(body)), std::move(variants), enabled);
  return in.run(fixture());
}

// The model `check empty (if a = b then 0 else _)` after `pre`: allowed iff
// a and b are equal values.
bool equal(ExpPtr a, ExpPtr b, std::vector<Ins> pre = {}) {
  pre.push_back(Test(TestKind::Empty, If(Cond::Kind::Eq, std::move(a), std::move(b), Z(), U())));
  return run(std::move(pre)).allowed;
}

std::string error_of(std::vector<Ins> body) {
  try {
    run(std::move(body));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("herd interp: set operators", "[herd]") {
  CHECK(equal(Or(V("W"), V("R")), V("M")));
  CHECK(equal(And(V("M"), V("R")), V("R")));
  CHECK(equal(Minus(V("M"), V("W")), V("R")));
  CHECK(equal(O1(Op1::Comp, V("F")), V("M")));
  CHECK(equal(Minus(U(), V("M")), V("F")));
  CHECK(equal(Or(Z(), V("W")), V("W")));
  CHECK(equal(And(U(), V("W")), V("W")));
  CHECK_FALSE(equal(V("W"), V("R")));
}

TEST_CASE("herd interp: relation operators", "[herd]") {
  CHECK(equal(Cart(V("W"), V("R")), V("rf")));
  CHECK(equal(O1(Op1::Plus, V("po1")), V("po")));
  CHECK(equal(O1(Op1::Star, V("po1")), Or(V("po"), V("id"))));
  CHECK(equal(O1(Op1::Opt, V("rf")), Or(V("rf"), V("id"))));
  CHECK(equal(O1(Op1::Inv, V("rf")), Cart(V("R"), V("W"))));
  CHECK(equal(O1(Op1::ToId, V("W")), And(V("id"), Cart(V("W"), V("W")))));
  CHECK(equal(Semi(V("po1"), V("po1")), V("rf")));
  CHECK(equal(Semi(O1(Op1::ToId, V("W")), V("po")), Cart(V("W"), Or(V("F"), V("R")))));
  CHECK(equal(Semi(V("po"), O1(Op1::ToId, V("R"))), Cart(Or(V("W"), V("F")), V("R"))));
  CHECK(equal(O1(Op1::Comp, V("po")), Minus(Cart(U(), U()), V("po"))));
  CHECK(equal(And(V("po"), Cart(V("W"), V("R"))), V("rf")));  // restrict_domains
  CHECK(equal(And(V("po"), O1(Op1::Comp, V("po1"))), V("rf")));
  // `_` is skipped in a sequence, as herd's seq_args does.
  CHECK(equal(Semi(U(), V("rf")), V("rf")));
  CHECK(equal(Semi(V("rf"), V("rf")), Z()));
}

TEST_CASE("herd interp: explicit sets, ++ and sets of values", "[herd]") {
  CHECK(equal(Add(V("R"), Set(L(V("W")))), Set(L(V("W"), V("R")))));
  CHECK(equal(Or(Set(L(V("W"))), Set(L(V("R")))), Set(L(V("R"), V("W")))));
  CHECK(equal(Set(L(V("W"), V("W"))), Set(L(V("W")))));
  CHECK(equal(And(Set(L(V("W"), V("R"))), Set(L(V("R"), V("F")))), Set(L(V("R")))));
  CHECK(equal(Minus(Set(L(V("W"), V("R"))), Set(L(V("R")))), Set(L(V("W")))));
  CHECK(equal(Add(V("W"), Z()), Set(L(V("W")))));
  CHECK(equal(Set(L(Tup(L(V("W"), V("R"))))), Set(L(Tup(L(V("W"), V("R")))))));
}

TEST_CASE("herd interp: enum, tags and match", "[herd]") {
  auto pre = [&] {
    Ins e;
    e.kind = InsKind::Enum;
    e.at = at();
    e.name = "T";
    e.names = {"a", "b"};
    return Is(std::move(e));
  };
  CHECK(equal(V("T"), Set(L(Tg("a"), Tg("b"))), pre()));
  CHECK(equal(O1(Op1::Comp, Set(L(Tg("a")))), Set(L(Tg("b"))), pre()));
  CHECK(equal(Or(Tg("a"), Tg("b")), V("T"), pre()));
  auto m = mk(ExpKind::Match);
  m->args = L(Tg("b"));
  m->clauses.push_back(Clause{"a", V("W")});
  m->deflt = V("R");
  CHECK(equal(std::move(m), V("R"), pre()));
  CHECK_THAT(error_of(Is(LetI("x", Tg("c")), Test(TestKind::Empty, V("x")))),
             Catch::Contains("tag 'c is undefined"));
}

TEST_CASE("herd interp: let, let ... and, lazy bindings", "[herd]") {
  // `and` binds at once: b sees the a before.
  CHECK(equal(V("b"), V("R"), Is(LetI("a", V("R")), LetI(Bs(B("a", V("W")), B("b", V("a")))))));
  // An unused binding is never evaluated (herd binds lazy values).
  CHECK(run(Is(LetI("x", V("nosuch")), Test(TestKind::Empty, V("F"), {}, TestType::Check, true)))
            .allowed);
  // A tuple pattern.
  Binding b{at(), pat({"p", "q"}), Tup(L(V("W"), V("R")))};
  CHECK(equal(V("q"), V("R"), Is(LetI(Bs(std::move(b))))));
  CHECK(equal(Let(Bs(B("y", V("W"))), Or(V("y"), V("R"))), V("M")));
}

TEST_CASE("herd interp: let rec least fixpoint over relations", "[herd]") {
  // let rec r = po1 | r;po1 is po1+.
  CHECK(equal(V("r"), V("po"), Is(LetI(Bs(B("r", Or(V("po1"), Semi(V("r"), V("po1"))))), true))));
  // Two mutually recursive sets.
  CHECK(equal(V("b"), V("M"),
              Is(LetI(Bs(B("a", Or(V("W"), V("b"))), B("b", Or(V("R"), V("a")))), true))));
  CHECK(equal(Let(Bs(B("s", Or(V("W"), V("s")))), V("s"), true), V("W")));
}

TEST_CASE("herd interp: let rec ... when test", "[herd]") {
  Ins rec = LetI(Bs(B("r", Or(V("po1"), Semi(V("r"), V("po1"))))), true);
  rec.test = mktest(TestKind::Irreflexive, V("r"), std::string("w"), TestType::Check, false);
  CHECK(run(Is(std::move(rec))).allowed);
  Ins bad = LetI(Bs(B("r", Or(V("po1"), Semi(V("r"), V("po1"))))), true);
  bad.test = mktest(TestKind::Empty, V("r"), std::string("w"), TestType::Check, false);
  auto v = run(Is(std::move(bad)));
  CHECK_FALSE(v.allowed);
  CHECK(v.failing == std::vector<std::string>{"w"});
}

TEST_CASE("herd interp: functions, tuples, currying, recursion", "[herd]") {
  CHECK(equal(Call2("g", V("W"), V("M")), V("W"),
              Is(LetI("g", Fun({"a", "b"}, And(V("a"), V("b")))))));
  CHECK(equal(App(Call1("h", V("W")), V("R")), V("M"),
              Is(LetI("h", Fun({"a"}, Fun({"b"}, Or(V("a"), V("b"))))))));
  // let rec f(S) = match S with {} -> 0 || e ++ rest -> {e} | f(rest) end
  auto ms = mk(ExpKind::MatchSet);
  ms->args = L(V("S"));
  ms->body = Z();
  ms->elt.p1 = "e";
  ms->elt.p2 = "rest";
  ms->elt.exp = Or(Set(L(V("e"))), Call1("f", V("rest")));
  CHECK(equal(Call1("f", V("M")), V("M"),
              Is(LetI(Bs(B("f", Fun({"S"}, std::move(ms), "f"))), true))));
  // A closure sees the environment of its definition.
  CHECK(equal(Call1("k", Z()), V("W"),
              Is(LetI("c", V("W")), LetI("k", Fun({"_"}, V("c"))), LetI("c", V("R")))));
}

TEST_CASE("herd interp: match on sets picks the least element", "[herd]") {
  auto ms = mk(ExpKind::MatchSet);
  ms->args = L(V("M"));
  ms->body = V("F");
  ms->elt.p1 = "x";
  ms->elt.p2 = "rest";
  ms->elt.exp = V("rest");
  CHECK(equal(std::move(ms), V("R")));  // x is event 0
  auto pep = mk(ExpKind::MatchSet);
  pep->args = L(Set(L(V("W"), V("R"), V("F"))));
  pep->body = Z();
  pep->elt.pre_elt_post = true;
  pep->elt.p1 = "pre";
  pep->elt.p2 = "x";
  pep->elt.p3 = "post";
  pep->elt.exp = Tup(L(V("pre"), V("x")));
  // Sets order as sequences: {0} < {1} < {2}; herd's split3 leaves pre empty.
  CHECK(equal(std::move(pep), Tup(L(Z(), V("W")))));
  auto em = mk(ExpKind::MatchSet);
  em->args = L(Z());
  em->body = V("F");
  em->elt.p1 = "x";
  em->elt.exp = V("x");
  CHECK(equal(std::move(em), V("F")));
}

TEST_CASE("herd interp: try catches an unbound name", "[herd]") {
  CHECK(equal(Try(V("nosuch"), V("W")), V("W")));
  CHECK(equal(Try(V("R"), V("W")), V("R")));
  // A type error is caught too.
  CHECK(equal(Try(Or(V("W"), V("po")), V("F")), V("F")));
}

TEST_CASE("herd interp: if on =, subset, in and variants", "[herd]") {
  CHECK(equal(If(Cond::Kind::Subset, V("W"), V("M"), V("W"), V("R")), V("W")));
  CHECK(equal(If(Cond::Kind::Subset, V("M"), V("W"), V("W"), V("R")), V("R")));
  CHECK(equal(If(Cond::Kind::In, V("W"), Set(L(V("W"), V("R"))), V("W"), V("R")), V("W")));
  auto variant = [](const std::string& v) {
    auto e = mk(ExpKind::If);
    e->cond.kind = Cond::Kind::Variant;
    e->cond.variant.name = v;
    e->args = L(Z(), U());
    return e;
  };
  CHECK(run(Is(Test(TestKind::Empty, variant("sc"))), {}, {"sc"}).allowed);
  CHECK_FALSE(run(Is(Test(TestKind::Empty, variant("sc")))).allowed);
}

TEST_CASE("herd interp: errors are located and name both types", "[herd]") {
  const std::string e =
      error_of(Is(Test(TestKind::Empty, O2(Op2::Union, L(V("W"), V("po", 4, 9))))));
  CHECK_THAT(e, Catch::Contains("t.cat:4:9"));
  CHECK_THAT(e, Catch::Contains("type mismatch"));
  CHECK_THAT(e, Catch::Contains("events"));
  CHECK_THAT(e, Catch::Contains("rel"));
  const std::string u = error_of(Is(Test(TestKind::Empty, V("DMB.ISH", 2, 5))));
  CHECK_THAT(u, Catch::Contains("t.cat:2:5"));
  CHECK_THAT(u, Catch::Contains("'DMB.ISH' is not bound"));
  CHECK_THAT(error_of(Is(Test(TestKind::Acyclic, V("W")))), Catch::Contains("relation expected"));
  CHECK_THAT(error_of(Is(Test(TestKind::Empty, App(V("W"), V("R"))))),
             Catch::Contains("closure or primitive expected"));
}

TEST_CASE("herd interp: checks, flags, undefined_unless, assert", "[herd]") {
  CHECK(run(Is(Test(TestKind::Acyclic, V("po"), "sc"))).allowed);
  auto v = run(Is(Test(TestKind::Acyclic, Or(V("po"), O1(Op1::Inv, V("po"))), "sc")));
  CHECK_FALSE(v.allowed);
  CHECK(v.failing == std::vector<std::string>{"sc"});
  CHECK_FALSE(run(Is(Test(TestKind::Irreflexive, V("id")))).allowed);
  CHECK(run(Is(Test(TestKind::Empty, V("rf"), "ne", TestType::Check, true))).allowed);

  v = run(Is(Test(TestKind::Empty, V("rf"), "f1", TestType::Flagged, true),
             Test(TestKind::Empty, V("rf"), "f2", TestType::Flagged)));
  CHECK(v.allowed);
  CHECK(v.flags == std::vector<std::string>{"f1"});

  v = run(Is(Test(TestKind::Empty, V("rf"), "u", TestType::UndefinedUnless)));
  CHECK(v.allowed);
  CHECK(v.undefined);
  CHECK_FALSE(run(Is(Test(TestKind::Empty, Z(), "u", TestType::UndefinedUnless))).undefined);

  CHECK_THAT(error_of(Is(Test(TestKind::Empty, V("rf"), "a", TestType::Assert))),
             Catch::Contains("a assertion failed"));
}

TEST_CASE("herd interp: disabled checks never forbid and are not evaluated", "[herd]") {
  const auto off = [](std::string_view n) { return n != "sc"; };
  CHECK(run(Is(Test(TestKind::Empty, V("po"), "sc")), off).allowed);
  CHECK(run(Is(Test(TestKind::Empty, V("nosuch"), "sc")), off).allowed);
  CHECK_FALSE(run(Is(Test(TestKind::Empty, V("po"), "other")), off).allowed);
}

TEST_CASE("herd interp: with x from S branches", "[herd]") {
  // Allowed iff some branch passes every enabled check.
  CHECK(run(Is(With("x", Set(L(V("W"), V("R")))), Test(TestKind::Empty, And(V("x"), V("W")))))
            .allowed);
  CHECK_FALSE(
      run(Is(With("x", Set(L(V("W")))), Test(TestKind::Empty, And(V("x"), V("W"))))).allowed);
  CHECK_FALSE(run(Is(With("x", Z()))).allowed);  // no branch at all
  // Flags are those of the allowed branches.
  auto v = run(Is(With("x", Set(L(V("W"), V("R"), V("F")))),
                  Test(TestKind::Empty, And(V("x"), V("W")), "w", TestType::Flagged, true),
                  Test(TestKind::Empty, And(V("x"), V("R")), "r", TestType::Flagged, true),
                  Test(TestKind::Empty, And(V("x"), V("F")))));
  CHECK(v.allowed);
  CHECK(v.flags == std::vector<std::string>{"r", "w"});
  // A co-like choice: with co from linearisations(M, 0).
  CHECK(run(Is(With("co", Call2("linearisations", V("M"), Z())),
               Test(TestKind::Empty, And(V("co"), Cart(V("R"), V("W"))))))
            .allowed);
}

namespace {

// The strict total order of events listed first to last.
ExpPtr order(std::vector<std::string> es) {
  std::vector<ExpPtr> parts;
  for (std::size_t i = 0; i < es.size(); ++i)
    for (std::size_t j = i + 1; j < es.size(); ++j) parts.push_back(Cart(V(es[i]), V(es[j])));
  return O2(Op2::Union, std::move(parts));
}

}  // namespace

TEST_CASE("herd interp: linearisations", "[herd]") {
  const auto all = [] { return Or(Or(V("E0"), V("E1")), V("E2")); };
  // 3 unordered events: 6 orders.
  std::vector<ExpPtr> six;
  std::vector<std::string> p = {"E0", "E1", "E2"};
  do six.push_back(order(p));
  while (std::next_permutation(p.begin(), p.end()));
  CHECK(six.size() == 6);
  CHECK(equal(Call2("linearisations", all(), Z()), Set(std::move(six))));
  // A total order has one linearisation; a cycle has none.
  CHECK(equal(Call2("linearisations", all(), V("po1")), Set(L(V("po")))));
  CHECK(equal(Call2("linearisations", all(), Or(V("rf"), O1(Op1::Inv, V("rf")))), Z()));
  // Restricted to S (paths through events outside S count).
  CHECK(equal(Call2("linearisations", V("M"), V("po1")), Set(L(V("rf")))));
}

TEST_CASE("herd interp: classes-loc, classes, domain, range, fromto", "[herd]") {
  // Event 1 (the fence) has no location.
  CHECK(equal(Call1("classes-loc", U()), Set(L(V("M")))));
  CHECK(equal(Call1("classes", V("rf")), Set(L(V("M")))));
  CHECK(equal(Call1("domain", V("po")), Or(V("W"), V("F"))));
  CHECK(equal(Call1("range", V("rf")), V("R")));
  CHECK(equal(Call1("fromto", V("F")), V("rf")));
  CHECK(equal(Call1("as_transitive", V("rf")), V("rf")));
  CHECK_THAT(error_of(Is(Test(TestKind::Empty, Call1("fail", Z())))),
             Catch::Contains("primitive fail: fail on {}"));
  CHECK_THAT(error_of(Is(Test(TestKind::Empty, Call1("domain", V("W"))))),
             Catch::Contains("primitive domain: argument mismatch"));
}

TEST_CASE("herd interp: lift and delift over classes", "[herd]") {
  CHECK(equal(Call1("delift", Call2("lift", Call1("classes-loc", U()), V("rf"))),
              Cart(V("M"), V("M"))));
  CHECK(run(Is(Test(TestKind::Acyclic, Call2("lift", Set(L(V("W"), V("R"))), V("rf"))))).allowed);
}

TEST_CASE("herd interp: procedures and calls", "[herd]") {
  auto proc = [] {
    Ins p;
    p.kind = InsKind::Procedure;
    p.at = at();
    p.name = "p";
    p.pat = pat({"x"});
    p.body = Is(Test(TestKind::Empty, V("x"), "inner"));
    return p;
  };
  auto call = [](ExpPtr arg) {
    Ins c;
    c.kind = InsKind::Call;
    c.at = at();
    c.name = "p";
    c.exp = std::move(arg);
    c.as = "outer";
    return c;
  };
  CHECK(run(Is(proc(), call(Minus(V("F"), V("F"))))).allowed);
  auto v = run(Is(proc(), call(V("W"))));
  CHECK_FALSE(v.allowed);
  CHECK(v.failing == std::vector<std::string>{"inner"});
  // A disabled `as` name skips the call (herd's skipchecks).
  CHECK(run(Is(proc(), call(V("W"))), [](std::string_view n) { return n != "outer"; }).allowed);
  // The caller's environment comes back after the call.
  CHECK(equal(V("x"), V("R"), Is(LetI("x", V("R")), proc(), call(Z()))));
}

TEST_CASE("herd interp: forall", "[herd]") {
  auto fa = [](ExpPtr check) {
    Ins f;
    f.kind = InsKind::Forall;
    f.at = at();
    f.name = "x";
    f.exp = Set(L(V("W"), V("R")));
    f.body = Is(Test(TestKind::Empty, std::move(check)));
    return f;
  };
  CHECK(run(Is(fa(And(V("x"), V("F"))))).allowed);
  CHECK_FALSE(run(Is(fa(And(V("x"), V("R"))))).allowed);
}

TEST_CASE("herd interp: include and if variant", "[herd]") {
  Ins inc;
  inc.kind = InsKind::Include;
  inc.at = at();
  inc.name = "lib.cat";
  inc.included = P(Is(LetI("libset", V("R"))));
  Ins again;
  again.kind = InsKind::Include;
  again.at = at();
  again.name = "lib.cat";
  again.repeat = true;
  CHECK(equal(V("libset"), V("R"), Is(std::move(inc), std::move(again))));
  auto iv = [] {
    Ins i;
    i.kind = InsKind::IfVariant;
    i.at = at();
    i.variant.name = "strong";
    i.body = Is(LetI("s", V("W")));
    i.else_body = Is(LetI("s", V("R")));
    return i;
  };
  CHECK(equal(V("s"), V("R"), Is(iv())));
  auto prog = Is(iv(), Test(TestKind::Empty, And(V("s"), V("W"))));
  CHECK_FALSE(run(std::move(prog), {}, {"strong"}).allowed);
}

TEST_CASE("herd interp: recursion is bounded", "[herd]") {
  auto body = Is(LetI(Bs(B("f", Fun({"x"}, Call1("f", V("x")), "f"))), true),
                 Test(TestKind::Empty, Call1("f", V("W"))));
  CHECK_THAT(error_of(std::move(body)), Catch::Contains("recursion deeper than"));
  // try does not catch it.
  auto body2 = Is(LetI(Bs(B("f", Fun({"x"}, Call1("f", V("x")), "f"))), true),
                  Test(TestKind::Empty, Try(Call1("f", V("W")), Z())));
  CHECK_THAT(error_of(std::move(body2)), Catch::Contains("recursion deeper than"));
}

TEST_CASE("herd interp: runs are re-entrant", "[herd]") {
  const Interpreter in(nullptr,
                       P(Is(With("co", Call2("linearisations", U(), Z())),
                            Test(TestKind::Acyclic, Or(V("po"), V("co"))))),
                       {}, {});
  const Execution x = fixture();
  std::vector<std::thread> ts;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < 50; ++k) ok[static_cast<std::size_t>(t)] += in.run(x).allowed;
    });
  for (auto& t : ts) t.join();
  CHECK(ok == std::vector<int>(4, 50));
}

TEST_CASE("herd interp: interface_of", "[herd]") {
  auto m = P(Is(LetI("a", Or(V("po"), V("mystery"))), Test(TestKind::Acyclic, V("a"), "sc"),
                Test(TestKind::Empty, Try(V("opt"), Z()), "fl", TestType::Flagged)));
  const Interface i = interface_of(*m, {"po"});
  CHECK(i.defines == std::vector<std::string>{"a"});
  CHECK(i.needs == std::vector<std::string>{"mystery"});
  CHECK(i.checks == std::vector<std::string>{"sc"});
  CHECK(i.flags == std::vector<std::string>{"fl"});
}

// The same, from text (model/herd/parse.hpp).

namespace {

Verdict run_text(const std::string& text,
                 const std::function<bool(std::string_view)>& enabled = {}) {
  auto prog = std::make_shared<const Program>(parse_program(text, "m.cat"));
  const Interpreter in(nullptr, prog, {}, enabled);
  return in.run(fixture());
}

}  // namespace

TEST_CASE("herd interp: a model from text", "[herd]") {
  const std::string sc = R"("sc"
let fr = rf^-1 ; co
with co from linearisations(W, 0)
let com = rf | co | (rf^-1 ; co)
acyclic po | com as sc
flag ~empty rf as has-rf
undefined_unless empty (po & po^-1) as racy
)";
  const Verdict v = run_text(sc);
  CHECK(v.allowed);
  CHECK_FALSE(v.undefined);
  CHECK(v.flags == std::vector<std::string>{"has-rf"});
  CHECK_FALSE(run_text("acyclic po | po^-1 as cyc").allowed);
  CHECK(
      run_text("acyclic po | po^-1 as cyc", [](std::string_view n) { return n != "cyc"; }).allowed);
}

TEST_CASE("herd interp: functions and procedures from text", "[herd]") {
  CHECK(run_text(R"(let fencerel(S) = (po & (_ * S)) ; po
let f = fencerel(F)
empty f \ rf as ok
~empty f as nonempty
)")
            .allowed);
  CHECK(run_text(R"(let rec evts(S) = match S with {} -> 0 || e ++ es -> {e} | evts(es) end
let all = evts(M)
empty all \ M
empty M \ all
)")
            .allowed);
  CHECK_FALSE(run_text(R"(procedure irr(r) = irreflexive r end
call irr(po ; po^-1) as inner
)")
                  .allowed);
  CHECK(run_text(R"(let x = try nosuch with rf
empty x \ rf
enum Sc = 'cta || 'gpu
let w = match 'gpu with 'cta -> W || 'gpu -> R end
empty w \ R
)")
            .allowed);
}

TEST_CASE("herd interp: a repeated include runs the file again", "[herd]") {
  // As herd7's cos.cat: the first include sits in a branch not taken; the
  // loader marks the second `repeat`, which still runs the file.
  auto lib = P(Is(LetI("libset", V("R"))));
  Ins first;
  first.kind = InsKind::Include;
  first.at = at();
  first.name = "lib.cat";
  first.included = lib;
  Ins branch;
  branch.kind = InsKind::IfVariant;
  branch.at = at();
  branch.variant.name = "never";
  branch.body = Is(std::move(first));
  Ins again;
  again.kind = InsKind::Include;
  again.at = at();
  again.name = "lib.cat";
  again.repeat = true;
  CHECK(equal(V("libset"), V("R"), Is(std::move(branch), std::move(again))));
}

}  // namespace unit_herd_interp
