// models/scoped-cpp.cat (RC11 with CUDA's thread scopes, docs/model.md "The
// scoped C++ model") on tiny CUDA tests read as their source says
// (cuda::read_cuda_as_source): each named check on a test whose outcome it
// forbids on its own, the scopes that decide synchronisation and SC, the flag
// `racy`, and herd7's C tests under the same model. Every test runs through
// the registry's semantics (run_engine, which also reports the flags) on the
// z3 engine, the enumerator and auto, which must agree on the verdict and on
// the flags. The pattern is tests/test_axioms.cpp's for models/ptx.cat.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/dialects/cuda/compile.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_scoped_model {

using namespace redscope;

namespace {

// The named checks of models/scoped-cpp.cat (its flag `racy` forbids nothing).
const std::vector<std::string> kChecks = {"mo-total", "coherence",   "atomicity",
                                          "SC",       "no-thin-air", "no-dependency-cycle"};

constexpr EngineKind kEngines[] = {EngineKind::Z3, EngineKind::Enum, EngineKind::Auto};

// `text` with every `from` replaced by `to` (a test's SCOPE or SEM).
std::string with(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t p = 0; (p = text.find(from, p)) != std::string::npos; p += to.size())
    text.replace(p, from.size(), to);
  return text;
}

// A CUDA test read as its source says, under its default model scoped-cpp.
LitmusTest cuda_source(const std::string& text) {
  std::vector<LitmusTest> tests = cuda::read_cuda_as_source(text, "scoped.litmus");
  REQUIRE(tests.size() == 1);
  REQUIRE(EngineOptions{}.model_for(tests[0]) == builtin_model_named("scoped-cpp"));
  return std::move(tests[0]);
}

// A herd7 C test as `redscope run` reads it: through the registry's row for
// `C` files, which gives it the default model scoped-cpp (read_c_litmus
// alone leaves the model to the test's target).
LitmusTest c_test(std::string_view text) {
  const Dialect* d = dialect_for("herd.litmus", text.substr(0, kDialectHeadBytes));
  REQUIRE(d != nullptr);
  REQUIRE(d->name == "c-litmus");
  std::vector<LitmusTest> tests = d->parse(text, "herd.litmus");
  REQUIRE(tests.size() == 1);
  REQUIRE(EngineOptions{}.model_for(tests[0]) == builtin_model_named("scoped-cpp"));
  return std::move(tests[0]);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

struct Verdict {
  bool reached = false;            // some consistent execution meets the condition
  std::vector<std::string> flags;  // the model's flags some consistent execution raises
};

Verdict run_on(const LitmusTest& t, EngineKind e, const std::vector<std::string>& disabled) {
  EngineOptions o;
  o.engine = e;
  o.disabled_checks = disabled;
  const TestResult r = run_engine(t, o);
  INFO(to_string(e) << ": " << r.error.value_or(""));
  REQUIRE_FALSE(r.error.has_value());
  if (e != EngineKind::Auto) CHECK(r.engine == to_string(e));  // no engine stepped aside
  return {r.holds, r.flags};
}

// The verdict of `t` with the checks `disabled` left out, on z3, enum and
// auto, which must agree.
Verdict verdict(const LitmusTest& t, const std::vector<std::string>& disabled = {}) {
  INFO(t.name << (disabled.empty() ? " with every check" : " without " + joined(disabled)));
  const Verdict z3 = run_on(t, kEngines[0], disabled);
  for (const EngineKind e : kEngines) {
    if (e == kEngines[0]) continue;
    const Verdict v = run_on(t, e, disabled);
    INFO(to_string(e) << " against z3");
    CHECK(v.reached == z3.reached);
    CHECK(v.flags == z3.flags);
  }
  return z3;
}

bool reached(const LitmusTest& t, const std::vector<std::string>& disabled = {}) {
  return verdict(t, disabled).reached;
}

// Every check but `kept`, to leave out.
std::vector<std::string> all_but(const std::vector<std::string>& kept) {
  std::vector<std::string> out;
  for (const std::string& c : kChecks)
    if (std::find(kept.begin(), kept.end(), c) == kept.end()) out.push_back(c);
  return out;
}

// The checks whose removal alone reaches the outcome of `t`, which the full
// model forbids in race-free executions only (no flag).
std::set<std::string> reached_without_one(const LitmusTest& t) {
  const Verdict full = verdict(t);
  CHECK_FALSE(full.reached);
  CHECK(full.flags.empty());
  std::set<std::string> out;
  for (const std::string& c : kChecks)
    if (reached(t, {c})) out.insert(c);
  return out;
}

using Names = std::set<std::string>;

}  // namespace

TEST_CASE("scoped-cpp: the model's named checks are the six tested here", "[scoped-cpp]") {
  std::vector<std::string> checks, flags;
  for (const cat::Stmt& st : cat::builtin_model(*builtin_model_named("scoped-cpp")).stmts)
    if (st.check) (st.check->flag ? flags : checks).push_back(st.check->name);
  CHECK(checks == kChecks);
  CHECK(flags == std::vector<std::string>{"racy"});
}

// mo-total: "mo totally orders the writes of each location. The engine's co
// is a strict partial order per location (PTX needs that), so totality is
// checked here" (RC11, src11.als mo_total_per_address).
//
// Two readers in other CTAs see P0's 1 and P1's 2 in opposite orders. With co
// total, say 1 co 2: P3 reads 2 (r2) then 1 (r3), so r3 is fr-before the 2
// that r2 read, and r2 po r3. That breaks coherence (r2 hb r3, r3 fr ; rf r2:
// hb ; eco is reflexive) and, since all accesses are seq_cst at device scope
// in one GPU, SC as well (r2 po r3 fr 2, and 2 is hb & loc before r2: a
// seq_cst store read by a seq_cst load synchronises; a psc cycle of
// scope-inclusive events). 2 co 1 breaks both for P2. So leaving out
// coherence alone, or SC alone, still forbids it: only mo-total's removal
// reaches it, where the engine may leave 1 and 2 unordered and fr leads from
// no read of them. No RMW, no read before a write in any thread: atomicity
// and both thin-air checks have nothing to say.
//
// mo-total forbids nothing by itself (every other check left out: reached):
// an outcome is rf and final values, and some total co fits any of them; it
// forbids as the premise of the checks that read co (coherence, atomicity,
// SC). With relaxed accesses SC is silent, and leaving out coherence alone
// reaches the outcome as well.
TEST_CASE("scoped-cpp mo-total: two readers cannot see two writes in opposite orders",
          "[scoped-cpp]") {
  const std::string corr2 = R"(CUDA CoRR2
{ int x = 0; }
P0@cta 0,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_SEM);
}
P1@cta 1,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(2, cuda::memory_order_SEM);
}
P2@cta 2,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_SEM);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_SEM);
}
P3@cta 3,gpu 0 {
  int r2 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_SEM);
  int r3 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_SEM);
}
exists (P2:r0 == 1 /\ P2:r1 == 2 /\ P3:r2 == 2 /\ P3:r3 == 1)
)";
  const LitmusTest sc = cuda_source(with(corr2, "SEM", "seq_cst"));
  CHECK(reached_without_one(sc) == Names{"mo-total"});
  CHECK(reached(sc, {"coherence", "SC"}));
  CHECK(reached(sc, all_but({"mo-total"})));
  const LitmusTest rlx = cuda_source(with(corr2, "SEM", "relaxed"));
  CHECK(reached_without_one(rlx) == Names{"mo-total", "coherence"});
}

// coherence: "RC11 Coherence (rc11.cat coherence1), unscoped ...: scope
// decides only what synchronises, and hb says it": irreflexive hb ; eco?.
//
// CoRR: P1 reads P0's 1, then the initial 0. r0 po r1 (hb), and r1 is fr-before
// the 1 (the initial write is co-first, total or not), which r0 read: hb ; eco
// is reflexive at r0. Nothing else forbids it: no seq_cst event (SC), no RMW
// (atomicity), P1 only reads (po | rf is acyclic, no dependency), and x has
// one write besides the initial one (mo-total). Coherence alone forbids it.
TEST_CASE("scoped-cpp coherence: a thread does not read a write and then an older one",
          "[scoped-cpp]") {
  const LitmusTest corr = cuda_source(R"(CUDA CoRR
{ int x = 0; }
P0@cta 0,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_relaxed);
}
P1@cta 1,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
}
exists (P1:r0 == 1 /\ P1:r1 == 0)
)");
  CHECK(reached_without_one(corr) == Names{"coherence"});
  CHECK_FALSE(reached(corr, all_but({"coherence"})));
}

// atomicity: "RC11 Atomicity (rc11.cat atomicity), unscoped": empty rmw & (fr
// ; co).
//
// Two atomicAdd (relaxed device-scoped RMWs) in two CTAs both reading 0: co
// orders their writes (mo-total), and the co-later RMW's read is fr-before the
// co-earlier write: rmw & (fr ; co). Coherence holds (hb is po: relaxed RMWs
// do not synchronise, and no eco leads back into a thread), no seq_cst event,
// both reads read the initial write (po | rf is acyclic), no dependency.
//
// atomicity cannot be isolated from mo-total: it reads co, and with the two
// writes left unordered (co partial) rmw & (fr ; co) is empty, as it is in
// every execution whose co relates the initial writes only, while every
// other check, monotone in co, holds as it did under a total co (final
// values: every write is then co-maximal). So every outcome atomicity forbids
// is reached with mo-total left out too; the two together forbid it.
TEST_CASE("scoped-cpp atomicity: two RMWs do not both read the initial value", "[scoped-cpp]") {
  const LitmusTest lu = cuda_source(R"(CUDA LU
{ int x = 0; }
P0@cta 0,gpu 0 {
  int r0 = atomicAdd(x, 1);
}
P1@cta 1,gpu 0 {
  int r1 = atomicAdd(x, 1);
}
exists (P0:r0 == 0 /\ P1:r1 == 0)
)");
  CHECK(reached_without_one(lu) == Names{"atomicity", "mo-total"});
  CHECK_FALSE(reached(lu, all_but({"atomicity", "mo-total"})));
  CHECK(reached(lu, all_but({"atomicity"})));
}

// SC: "RC11 SC: acyclic(psc), scoped by Lustig et al. Figure 10:
// acyclic(incl & psc)": seq_cst operations and fences are ordered only with
// scope-inclusive ones.
//
// SB with seq_cst device-scoped stores and loads in two CTAs of one GPU: both
// loads reading 0 make x=1 po r0 fr y=1 po r1 fr x=1, a cycle of scb (po, fr)
// between seq_cst events that are scope-inclusive: psc-base is cyclic. Both
// loads read the initial writes, so nothing synchronises (hb is po) and eco
// leaves each thread never to come back (coherence holds); no RMW; po | rf is
// acyclic (rf only from the initial writes); fr from the initial writes needs
// no totality of co. SC alone forbids it.
TEST_CASE("scoped-cpp SC: seq_cst store buffering is forbidden", "[scoped-cpp]") {
  const LitmusTest sb = cuda_source(R"(CUDA SB
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_seq_cst);
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::memory_order_seq_cst);
}
P1@cta 1,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::memory_order_seq_cst);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_seq_cst);
}
exists (P0:r0 == 0 /\ P1:r1 == 0)
)");
  CHECK(reached_without_one(sb) == Names{"SC"});
  CHECK_FALSE(reached(sb, all_but({"SC"})));
}

// no-thin-air: "RC11 No-Thin-Air (rc11.cat no-thin-air; src11.als
// no_thin_air): acyclic(sb | rf)", which forbids load buffering of relaxed
// accesses (PTX allows it; cuda-check leaves this check out).
//
// LB with relaxed device-scoped accesses: each load reads the other thread's
// store, which is po-after that thread's load: po ; rf ; po ; rf is a cycle.
// The stores write constants (no dependency: no-dependency-cycle holds);
// relaxed accesses do not synchronise, so hb is po and every read reads a
// write co-last (no fr): coherence holds; no seq_cst event, no RMW, one write
// per location. No-thin-air alone forbids it.
TEST_CASE("scoped-cpp no-thin-air: relaxed load buffering is forbidden", "[scoped-cpp]") {
  const LitmusTest lb = cuda_source(R"(CUDA LB
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::memory_order_relaxed);
}
P1@cta 1,gpu 0 {
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_relaxed);
}
exists (P0:r0 == 1 /\ P1:r1 == 1)
)");
  CHECK(reached_without_one(lb) == Names{"no-thin-air"});
  CHECK_FALSE(reached(lb, all_but({"no-thin-air"})));
}

// no-dependency-cycle: "The part of No-Thin-Air no source disputes: no value
// justifies itself through its own dependencies ... Implied by no-thin-air
// (dependencies lie in po)": acyclic rf | data | ctrl | addr.
//
// Being implied by no-thin-air, it cannot be isolated by leaving it out
// alone: every rf ∪ dependency cycle is a po ∪ rf cycle. What can be shown:
// once no-thin-air is left out it is the one check that still forbids an
// out-of-thin-air value. LB where each store writes the low bit of the value
// its thread loaded: r0 = r1 = 1 needs each load to read the other's store,
// whose value is computed from the load itself: rf ; data ; rf ; data is a
// cycle (and po ; rf ; po ; rf). No program write of 1 exists outside that
// cycle: the 1 is out of thin air. Without no-thin-air it stays forbidden;
// without both it is reached (the cycle's values solve r0 = r1 & 1, r1 = r0
// & 1: 0 or 1). The mask keeps those values few: storing r0 itself makes
// every int a solution, more outcomes than the flag's run (a listing) may
// enumerate (docs/model.md "No-Thin-Air in the comparison": verdict only).
TEST_CASE("scoped-cpp no-dependency-cycle: no value justifies itself through its dependencies",
          "[scoped-cpp]") {
  const LitmusTest lb = cuda_source(R"(CUDA LB+data
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(r0 & 1, cuda::memory_order_relaxed);
}
P1@cta 1,gpu 0 {
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(r1 & 1, cuda::memory_order_relaxed);
}
exists (P0:r0 == 1 /\ P1:r1 == 1)
)");
  CHECK(reached_without_one(lb).empty());
  CHECK_FALSE(reached(lb, {"no-thin-air"}));
  CHECK(reached(lb, {"no-thin-air", "no-dependency-cycle"}));
  CHECK_FALSE(reached(lb, all_but({"no-dependency-cycle"})));
  CHECK_FALSE(reached(lb, all_but({"no-thin-air"})));
}

// Synchronisation is scoped: sw relates a release fence to an acquire fence,
// but hb takes only sw & scope-inclusive ("Lustig et al. Figure 10: hb := (sb
// | (incl & sw))+"), and a block scope holds the threads of its own CTA only.
// MP with relaxed device-scoped accesses (race-free at either scope) and
// release/acquire fences at device scope: x=1 hb r1 and r1 reading 0 is
// fr-before x=1, against coherence. At block scope in two CTAs the fences do
// not synchronise, hb is po, and the stale read breaks no check.
TEST_CASE("scoped-cpp scopes: block fences across CTAs do not synchronise", "[scoped-cpp]") {
  const std::string mp = R"(CUDA MP+fences
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_SCOPE);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::memory_order_relaxed);
}
P1@cta 1,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_SCOPE);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
}
exists (P1:r0 == 1 /\ P1:r1 == 0)
)";
  const LitmusTest device = cuda_source(with(mp, "SCOPE", "device"));
  const LitmusTest block = cuda_source(with(mp, "SCOPE", "block"));
  const Verdict d = verdict(device), b = verdict(block);
  CHECK_FALSE(d.reached);
  CHECK(d.flags.empty());
  CHECK(reached(device, {"coherence"}));  // it is coherence, through hb, that forbids it
  CHECK(b.reached);
  CHECK(b.flags.empty());
}

// SC is scoped: "acyclic psc & scope-inclusive". SB with relaxed
// device-scoped accesses separated by seq_cst fences: at device scope psc
// relates the two fences both ways (F0 po r0 fr y=1 po F1, and back), a
// cycle of scope-inclusive fences, against SC. At block scope in two CTAs the
// fences are not scope-inclusive, the cycle is not in psc & scope-inclusive,
// and no other check orders the relaxed accesses: both loads may read 0.
TEST_CASE("scoped-cpp scopes: block-scoped seq_cst fences in two CTAs do not order SB",
          "[scoped-cpp]") {
  const std::string sb = R"(CUDA SB+fences
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*x).store(1, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_SCOPE);
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::memory_order_relaxed);
}
P1@cta 1,gpu 0 {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_SCOPE);
  int r1 = cuda::atomic_ref<int, cuda::thread_scope_device>(*x).load(cuda::memory_order_relaxed);
}
exists (P0:r0 == 0 /\ P1:r1 == 0)
)";
  const LitmusTest device = cuda_source(with(sb, "SCOPE", "device"));
  const LitmusTest block = cuda_source(with(sb, "SCOPE", "block"));
  const Verdict d = verdict(device), b = verdict(block);
  CHECK_FALSE(d.reached);
  CHECK(d.flags.empty());
  CHECK(reached(device, {"SC"}));  // SC is what forbids it
  CHECK(b.reached);
  CHECK(b.flags.empty());
}

// The flag `racy` (`flag ~empty hrace as racy`): "two potentially concurrent
// conflicting actions, at least one of which is not atomic at a scope that
// includes the thread that performed the other operation, and neither happens
// before the other" (libcu++'s [intro.races]). A flag forbids nothing; it is
// raised when some consistent execution races.
TEST_CASE("scoped-cpp racy: plain accesses racing raise the flag", "[scoped-cpp]") {
  // A plain write and a plain read of one location in two threads of one CTA,
  // nothing ordering them: every execution races.
  const Verdict v = verdict(cuda_source(R"(CUDA R+plain
{ int x = 0; }
P0@cta 0,gpu 0 {
  *x = 1;
}
P1@cta 0,gpu 0 {
  int r0 = *x;
}
exists (P1:r0 == 0)
)"));
  CHECK(v.reached);
  CHECK(v.flags == std::vector<std::string>{"racy"});
}

TEST_CASE("scoped-cpp racy: block-scoped atomics across CTAs race, device-scoped ones do not",
          "[scoped-cpp]") {
  // MP with release/acquire on y at SCOPE and plain data. At device scope the
  // flag's accesses are scope-inclusive, and the plain read of x runs only
  // once hb orders it after the write: race-free, and forbidden by
  // coherence. At block scope in two CTAs the accesses of y are not
  // scope-inclusive and do not synchronise: they race (the consistent
  // execution in which P1 reads 0 has the pair in hrace), and the stale read
  // of x is reached as well (racing too).
  const std::string mp = R"(CUDA MP+rel-acq
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  *x = 1;
  cuda::atomic_ref<int, cuda::thread_scope_SCOPE>(*y).store(1, cuda::memory_order_release);
}
P1@cta 1,gpu 0 {
  int r1 = -1;
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_SCOPE>(*y).load(cuda::memory_order_acquire);
  if (r0 == 1) { r1 = *x; }
}
exists (P1:r0 == 1 /\ P1:r1 == 0)
)";
  const Verdict d = verdict(cuda_source(with(mp, "SCOPE", "device")));
  CHECK_FALSE(d.reached);
  CHECK(d.flags.empty());
  const Verdict b = verdict(cuda_source(with(mp, "SCOPE", "block")));
  CHECK(b.reached);
  CHECK(b.flags == std::vector<std::string>{"racy"});

  // Two atomicAdd_block in two CTAs: atomic, but not at a scope holding the
  // other thread, so they race; atomicity is unscoped, so the lost update
  // stays forbidden and the program is reported racy instead (docs/model.md
  // "Coherence and atomicity are unscoped"). Same CTA: race-free.
  const std::string lu = R"(CUDA LU+atomicAdd_block
{ int x = 0; }
P0@cta 0,gpu 0 {
  int r0 = atomicAdd_block(x, 1);
}
P1@cta CTA,gpu 0 {
  int r1 = atomicAdd_block(x, 1);
}
exists (P0:r0 == 0 /\ P1:r1 == 0)
)";
  const Verdict two = verdict(cuda_source(with(lu, "CTA", "1")));
  CHECK_FALSE(two.reached);
  CHECK(two.flags == std::vector<std::string>{"racy"});
  const Verdict one = verdict(cuda_source(with(lu, "CTA", "0")));
  CHECK_FALSE(one.reached);
  CHECK(one.flags.empty());
}

// herd7's C tests (docs/litmus-format.md "C tests") through the same
// front-end: C11's atomics at system scope, read under the default model
// scoped-cpp, give RC11's answers. SB with seq_cst atomics is forbidden (by
// SC), relaxed LB by no-thin-air; no race (all accesses atomic, system scope).
TEST_CASE("scoped-cpp: herd7's C tests give RC11's answers", "[scoped-cpp]") {
  const LitmusTest sb = c_test(R"(C SB+sc
{ x = 0; y = 0; }
P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_seq_cst);
  int r0 = atomic_load_explicit(y, memory_order_seq_cst);
}
P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_seq_cst);
  int r0 = atomic_load_explicit(x, memory_order_seq_cst);
}
exists (0:r0=0 /\ 1:r0=0)
)");
  const Verdict s = verdict(sb);
  CHECK_FALSE(s.reached);
  CHECK(s.flags.empty());
  CHECK(reached(sb, {"SC"}));

  const LitmusTest lb = c_test(R"(C LB
{ x = 0; y = 0; }
P0 (atomic_int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
  atomic_store_explicit(y, 1, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
  atomic_store_explicit(x, 1, memory_order_relaxed);
}
exists (0:r0=1 /\ 1:r0=1)
)");
  const Verdict l = verdict(lb);
  CHECK_FALSE(l.reached);
  CHECK(l.flags.empty());
  CHECK(reached(lb, {"no-thin-air"}));
}

}  // namespace unit_scoped_model
