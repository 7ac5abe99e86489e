// frontend/c: C and CUDA C++ thread bodies read as source (no compiler), and
// herd7's C litmus tests (docs/litmus-format.md "C tests (herd7's C format)").
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/events/events.hpp"
#include "redscope/frontend/c/c_source.hpp"
#include "redscope/frontend/container.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_c_source {

using namespace redscope;
using namespace redscope::csrc;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Locations x, y, z (int pointers), v (a volatile int pointer, herd7's
// header) and s (a CUDA __shared__ int, named directly).
std::vector<MemoryName> memory() {
  return {MemoryName{"x", "x", DataType::S32, true, false},
          MemoryName{"y", "y", DataType::S32, true, false},
          MemoryName{"z", "z", DataType::S32, true, false},
          MemoryName{"v", "v", DataType::S32, true, true},
          MemoryName{"s", "s", DataType::S32, false, false},
          MemoryName{"g", "g", DataType::U64, true, false},
          MemoryName{"d", "d", DataType::F64, true, false}};
}

ThreadCode lower(std::string_view body, Library lib) {
  BodyContext ctx;
  ctx.library = lib;
  ctx.memory = memory();
  ThreadCode tc;
  tc.name = "P0";
  lower_body(body, SourceLoc{1, 1}, "t.c", ctx, tc);
  return tc;
}

ThreadCode cuda_body(std::string_view body) { return lower(body, Library::Libcuxx); }
ThreadCode herd_body(std::string_view body) { return lower(body, Library::StdAtomic); }

// "line:col: message" of the error lowering `body` gives, or "no error".
std::string body_error(std::string_view body, Library lib) {
  try {
    (void)lower(body, lib);
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostic();
    CHECK(d.file == "t.c");
    return fmt::format("{}:{}: {}", d.loc.line, d.loc.col, d.message);
  }
  return "no error";
}

std::string test_error(std::string_view text) {
  try {
    (void)read_c_litmus(text, "t.litmus");
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostic();
    return fmt::format("{}:{}: {}", d.loc.line, d.loc.col, d.message);
  }
  return "no error";
}

const Instruction& first(const ThreadCode& tc, InstrKind k) {
  const auto it = std::find_if(tc.code.begin(), tc.code.end(),
                               [&](const Instruction& in) { return in.kind == k; });
  REQUIRE(it != tc.code.end());
  return *it;
}

std::size_t count(const ThreadCode& tc, InstrKind k) {
  return static_cast<std::size_t>(std::count_if(
      tc.code.begin(), tc.code.end(), [&](const Instruction& in) { return in.kind == k; }));
}

// Whether some jump goes back (a loop the expansion bounds).
bool loops(const ThreadCode& tc) {
  for (std::size_t i = 0; i < tc.code.size(); ++i) {
    const Instruction& in = tc.code[i];
    if ((in.kind == InstrKind::Goto || in.kind == InstrKind::Branch) && tc.labels.at(in.label) <= i)
      return true;
  }
  return false;
}

Expansion expand_test(const LitmusTest& t) { return expand(t, ExpandOptions{2, 20000}); }

TestResult run(const LitmusTest& t) {
  EngineOptions o;
  o.engine = EngineKind::Enum;
  return run_enum(t, o);
}

const fs::path kHerdC = fs::path(REDSCOPE_SHARED_DIR) / "conformance" / "herd7" / "herd" / "tests" /
                        "instructions" / "C";

}  // namespace

TEST_CASE("C: herd7's own C tests read as herd7 reads them", "[c_source]") {
  REQUIRE(fs::is_directory(kHerdC));
  std::size_t read = 0;
  for (const auto& entry : fs::directory_iterator(kHerdC)) {
    const fs::path p = entry.path();
    if (p.extension() != ".litmus") continue;
    const std::string stem = p.stem().string();
    INFO(p.string());
    const std::string text = slurp(p);
    if (fs::exists(p.string() + ".expected-failure")) {
      // herd7: "line 6, characters 4-12: unexpected 'int128_t' (in prog)";
      // its characters count from 0, redscope's columns from 1.
      REQUIRE(stem == "C07");
      CHECK_THAT(test_error(text), Contains("6:5: unexpected 'int128_t'"));
      continue;
    }
    const LitmusTest t = read_c_litmus(text, p.string());
    CHECK(t.arch == "C");
    CHECK(t.name == stem);
    const Expansion x = expand_test(t);
    CHECK_FALSE(x.skeletons.empty());
    for (const ThreadCode& tc : t.threads)
      for (const Instruction& in : tc.code)
        if (in.kind == InstrKind::Load || in.kind == InstrKind::Store ||
            in.kind == InstrKind::Atom || in.kind == InstrKind::Fence)
          CHECK(in.source.has_value());
    ++read;
  }
  CHECK(read == 14);
}

TEST_CASE("C: herd7's C tests give herd7's answers where the PTX model agrees", "[c_source]") {
  // Tests whose outcome needs no more than one thread's order, or atomicity:
  // the answer of herd7's expected output, under the event-graph machinery.
  for (const auto& [name, holds] : std::vector<std::pair<std::string, bool>>{{"C01", true},
                                                                             {"C02", false},
                                                                             {"C03", true},
                                                                             {"C04", true},
                                                                             {"C05", true},
                                                                             {"C06", true},
                                                                             {"C12", true},
                                                                             {"C14", true},
                                                                             {"C15", true},
                                                                             {"C16", true},
                                                                             {"C17", true}}) {
    INFO(name);
    const fs::path p = kHerdC / (name + ".litmus");
    const TestResult r = run(read_c_litmus(slurp(p), p.string()));
    REQUIRE_FALSE(r.error);
    CHECK(r.holds == holds);
  }
}

TEST_CASE("C: the header, init block, parameters and condition", "[c_source]") {
  const LitmusTest t = read_c_litmus(R"(C MP+rel-acq
"a description"
(* a comment *)
Variant=S128
{ [x] = 0; int y = 2; __uint128_t w; atomic_t a = ATOMIC_INIT(3); _Atomic __int128 b = -1 }

P0 (atomic_int* x, volatile int *y) {
  *y = 1;
  atomic_store_explicit(x, 1, memory_order_release);
}

void P1 (const atomic_int* x, int* y, __uint128_t *w, int *q) {
  int r0 = atomic_load_explicit(x, memory_order_acquire);
  int r1 = *y;
  *w = *q;
}
regions: x:PROP
locations [1:r1; w;]
exists (1:r0=1 /\ 1:r1 = 0 /\ [y]=1 /\ ~(w = 5))
)",
                                     "mp.litmus");
  CHECK(t.name == "MP+rel-acq");
  CHECK(t.metadata.at("Variant") == "S128");
  REQUIRE(t.threads.size() == 2);
  CHECK(t.threads[1].place == Placement{1, -2, 0});
  CHECK(t.quantifier == Quantifier::Exists);
  CHECK(t.locations.size() == 2);
  auto init = [&](const std::string& n) -> const InitEntry& {
    const auto it =
        std::find_if(t.init.begin(), t.init.end(), [&](const InitEntry& e) { return e.name == n; });
    REQUIRE(it != t.init.end());
    return *it;
  };
  CHECK(init("x").type == DataType::S32);
  CHECK(init("y").values.at(0).text == "2");
  CHECK(init("w").type == DataType::U64);  // 128 bits, held in 64
  CHECK(init("a").values.at(0).text == "3");
  CHECK(init("b").type == DataType::S64);
  CHECK(init("q").type == DataType::S32);  // named only by a parameter
  const Instruction& rel = first(t.threads[0], InstrKind::Store);
  CHECK(rel.source == SourceOrder{MemOrder::NonAtomic, ThreadScope::System});  // volatile: plain
  CHECK(t.threads[0].code.at(1).source == SourceOrder{MemOrder::Release, ThreadScope::System});
  CHECK(t.threads[0].code.at(1).sem == Sem::Release);
  CHECK(t.threads[0].code.at(1).scope == Scope::Sys);
  CHECK_FALSE(expand_test(t).skeletons.empty());

  // No condition: herd7's forall (true).
  const LitmusTest none = read_c_litmus("C none\n{}\nP0 (int *x) { *x = 1; }\n", "n.litmus");
  CHECK(none.quantifier == Quantifier::Forall);
  CHECK(none.condition.kind == CondExpr::Kind::True);
}

TEST_CASE("C: herd7's c11popl15 catalogue tests", "[c_source]") {
  // catalogue/c11popl15/tests/illustrative/a2.litmus: release with a
  // relaxed failure order, which is release's own read part.
  const LitmusTest a2 = read_c_litmus(R"(C a2
{ [x] = 0; [y] = 0; [z] = 0; }

P0 (atomic_int* x, atomic_int* y, atomic_int *z) {
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
  int r1 = atomic_compare_exchange_strong_explicit(x, z, 1, memory_order_release,
                                                   memory_order_relaxed);
}

P1 (atomic_int* x, volatile int* y) {
  int r2 = atomic_load_explicit(x, memory_order_acquire);
  if (r2) {
    *y = 1;
  }
}
)",
                                      "a2.litmus");
  const Instruction& cas = first(a2.threads[0], InstrKind::Atom);
  CHECK(cas.op == RmwOp::Cas);
  CHECK(cas.source == SourceOrder{MemOrder::Release, ThreadScope::System});
  CHECK_FALSE(expand_test(a2).skeletons.empty());

  // c_p.litmus: acquire with a relaxed failure order: the failed read would
  // need an order of its own, so it is refused where the order is written.
  CHECK_THAT(test_error(R"(C c_p
{ [p] = 0; [one] = 1; }
P0 (volatile int* p, atomic_int* one) {
  int t = atomic_compare_exchange_strong_explicit(p, one, 2, memory_order_acquire,
                                                  memory_order_relaxed);
}
exists (p=1)
)"),
             Contains("5:51: a failure order (memory_order_relaxed) other than the one "
                      "memory_order_acquire implies (memory_order_acquire) is not read"));

  // fig6.litmus: the seq_cst forms without _explicit (herd/libdir/c11.def).
  const LitmusTest fig6 = read_c_litmus(R"(C fig6
{ [x] = 0; [y] = 0; }
P0 (atomic_int* x, atomic_int* y) {
  atomic_store(y,3);
  int r = atomic_load(x);
}
exists (0:r=0)
)",
                                        "fig6.litmus");
  CHECK(fig6.threads[0].code.at(0).source == SourceOrder{MemOrder::SeqCst, ThreadScope::System});
  CHECK(fig6.threads[0].code.at(0).sem == Sem::Sc);
  CHECK(fig6.threads[0].code.at(1).kind == InstrKind::Load);
  CHECK(fig6.threads[0].code.at(1).sem == Sem::Sc);
}

TEST_CASE("C: a failed compare-exchange writes the expected value", "[c_source]") {
  // herd7's form: expected is a pointer, read plainly, written back plainly
  // on failure only (herd/CSem.ml ECas).
  const ThreadCode p = herd_body("int ok = atomic_compare_exchange_strong(x, z, 2);");
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[0].kind == InstrKind::Load);  // *z
  CHECK(p.code[0].source == SourceOrder{MemOrder::NonAtomic, ThreadScope::System});
  CHECK(p.code[1].kind == InstrKind::Atom);
  CHECK(p.code[1].op == RmwOp::Cas);
  CHECK(p.code[3].kind == InstrKind::Store);  // *z = old, when it failed
  CHECK(p.code[3].addr->name == "z");
  CHECK(p.code[3].guard.has_value());
  CHECK(p.code[3].guard_negated);

  // Outcomes: a failure gives the value read to the expected local.
  for (const auto& [init, want] : std::vector<std::pair<int, std::string>>{
           {3, "0:e=3 /\\ 0:ok=1 /\\ x=7"}, {4, "0:e=4 /\\ 0:ok=0 /\\ x=4"}}) {
    const std::string text = fmt::format(
        "C cas\n{{ x = {}; }}\nP0 (atomic_int* x) {{\n  int e = 3;\n"
        "  int ok = atomic_compare_exchange_strong_explicit(x, &e, 7, memory_order_acq_rel,"
        " memory_order_acquire);\n}}\nforall ({})\n",
        init, want);
    INFO(text);
    const TestResult r = run(read_c_litmus(text, "cas.litmus"));
    REQUIRE_FALSE(r.error);
    CHECK(r.holds);
  }

  // CUDA C++: the expected local receives the value read.
  const ThreadCode c = cuda_body(
      "int e = 0; bool ok = cuda::atomic_ref<int, cuda::thread_scope_device>(*x)"
      ".compare_exchange_strong(e, 1, cuda::std::memory_order_acquire);");
  const Instruction& cas = first(c, InstrKind::Atom);
  CHECK(cas.source == SourceOrder{MemOrder::Acquire, ThreadScope::Device});
  CHECK(cas.sem == Sem::Acquire);
  CHECK(cas.scope == Scope::Gpu);
  const auto mov_e = std::find_if(c.code.begin(), c.code.end(), [&](const Instruction& in) {
    return in.kind == InstrKind::Local && in.dst && in.dst->name == "e" && !in.srcs.empty() &&
           in.srcs[0].name == cas.dst->name;
  });
  CHECK(mov_e != c.code.end());
}

TEST_CASE("C: CUDA C++ operations and their orders and scopes", "[c_source]") {
  SECTION("an acquire load at device scope") {
    const ThreadCode tc = cuda_body(
        "int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y)"
        ".load(cuda::std::memory_order_acquire);");
    REQUIRE(tc.code.size() == 1);
    const Instruction& ld = tc.code[0];
    CHECK(ld.kind == InstrKind::Load);
    CHECK(ld.source == SourceOrder{MemOrder::Acquire, ThreadScope::Device});
    CHECK(ld.sem == Sem::Acquire);
    CHECK(ld.scope == Scope::Gpu);
    CHECK(ld.dst->name == "r0");
    CHECK(ld.addr->name == "y");
    CHECK(ld.loc.line == 1);
    CHECK(ld.loc.col == 10);
    CHECK_THAT(ld.text, Contains("int r0 = cuda::atomic_ref"));
  }
  SECTION("atomicAdd_block: relaxed, block scope") {
    const Instruction& a = first(cuda_body("int r0 = atomicAdd_block(x, 1);"), InstrKind::Atom);
    CHECK(a.op == RmwOp::Add);
    CHECK(a.source == SourceOrder{MemOrder::Relaxed, ThreadScope::Block});
    CHECK(a.sem == Sem::Relaxed);
    CHECK(a.scope == Scope::Cta);
    const Instruction& s = first(cuda_body("atomicAdd_system(x, 1);"), InstrKind::Atom);
    CHECK(s.source == SourceOrder{MemOrder::Relaxed, ThreadScope::System});
    const Instruction& d = first(cuda_body("atomicCAS(g, 0, 1);"), InstrKind::Atom);
    CHECK(d.op == RmwOp::Cas);
    CHECK(d.type == DataType::U64);
    CHECK(d.source == SourceOrder{MemOrder::Relaxed, ThreadScope::Device});
  }
  SECTION("fences") {
    const Instruction& f = first(cuda_body("__threadfence();"), InstrKind::Fence);
    CHECK(f.source == SourceOrder{MemOrder::SeqCst, ThreadScope::Device});
    CHECK(f.sem == Sem::Sc);
    CHECK(f.scope == Scope::Gpu);
    CHECK(first(cuda_body("__threadfence_block();"), InstrKind::Fence).source ==
          SourceOrder{MemOrder::SeqCst, ThreadScope::Block});
    CHECK(first(cuda_body("__threadfence_system();"), InstrKind::Fence).scope == Scope::Sys);
    const Instruction& a = first(
        cuda_body(
            "cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);"),
        InstrKind::Fence);
    CHECK(a.source == SourceOrder{MemOrder::AcqRel, ThreadScope::Block});
    CHECK(a.sem == Sem::AcqRel);
    CHECK(a.scope == Scope::Cta);
    const Instruction& t =
        first(cuda_body("cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, "
                        "cuda::thread_scope_thread);"),
              InstrKind::Fence);
    CHECK(t.source == SourceOrder{MemOrder::SeqCst, ThreadScope::Thread});
    CHECK(first(cuda_body("cuda::std::atomic_thread_fence(cuda::std::memory_order_release);"),
                InstrKind::Fence)
              .source == SourceOrder{MemOrder::Release, ThreadScope::System});
    const Instruction& c =
        first(herd_body("atomic_thread_fence(memory_order_consume);"), InstrKind::Fence);
    CHECK(c.source == SourceOrder{MemOrder::Consume, ThreadScope::System});
    CHECK(c.sem == Sem::Relaxed);
  }
  SECTION("volatile: relaxed.sys in CUDA C++, plain in herd7's C") {
    const Instruction& c = first(cuda_body("int r0 = *(volatile int *)x;"), InstrKind::Load);
    CHECK(c.source == SourceOrder{MemOrder::Relaxed, ThreadScope::System});
    CHECK(c.sem == Sem::Relaxed);
    CHECK(c.scope == Scope::Sys);
    const Instruction& h = first(herd_body("int r0 = *v;"), InstrKind::Load);
    CHECK(h.source == SourceOrder{MemOrder::NonAtomic, ThreadScope::System});
    CHECK(h.sem == Sem::Weak);
    const Instruction& hc = first(herd_body("*(volatile int *)x = 1;"), InstrKind::Store);
    CHECK(hc.source->order == MemOrder::NonAtomic);
    const Instruction& p = first(cuda_body("int r0 = *x;"), InstrKind::Load);
    CHECK(p.source == SourceOrder{MemOrder::NonAtomic, ThreadScope::System});
    CHECK(p.sem == Sem::Weak);
  }
  SECTION("seq_cst by default; std::atomic_ref is system-scoped") {
    const Instruction& s =
        first(cuda_body("cuda::std::atomic_ref<int>(*x).store(1);"), InstrKind::Store);
    CHECK(s.source == SourceOrder{MemOrder::SeqCst, ThreadScope::System});
    CHECK(s.sem == Sem::Sc);
    const Instruction& f =
        first(cuda_body("unsigned long long o = cuda::atomic_ref<unsigned long long, "
                        "cuda::thread_scope_block>(*g).fetch_max(3);"),
              InstrKind::Atom);
    CHECK(f.op == RmwOp::Max);
    CHECK(f.type == DataType::U64);
    CHECK(f.source == SourceOrder{MemOrder::SeqCst, ThreadScope::Block});
  }
  SECTION("__shared__ variables by name, and __syncthreads") {
    const ThreadCode tc = cuda_body("s = 1; __syncthreads(); int r1 = s; atomicAdd(&s, 2);");
    CHECK(tc.code.at(0).kind == InstrKind::Store);
    CHECK(tc.code.at(0).addr->name == "s");
    CHECK(tc.code.at(1).kind == InstrKind::Barrier);
    CHECK(tc.code.at(1).barrier.id.value == 0);
    CHECK(tc.code.at(2).kind == InstrKind::Load);
    CHECK(tc.code.at(3).kind == InstrKind::Atom);
  }
  SECTION("a spin loop is a loop") {
    const ThreadCode tc = cuda_body(
        "int e = 0;\n"
        "while (!cuda::atomic_ref<int, cuda::thread_scope_device>(*x)"
        ".compare_exchange_strong(e, 1, cuda::std::memory_order_acquire)) { e = 0; }\n"
        "*y = *y + 1;\n");
    CHECK(loops(tc));
    CHECK(loops(cuda_body("while (atomicCAS(x, 0, 1) != 0) { }")));
    CHECK(loops(herd_body("int i; for (i = 0; i < 3; i++) { *x = i; }")));
    CHECK(loops(herd_body("do { *x = 1; } while (*y == 0);")));
  }
}

TEST_CASE("C: statements and expressions", "[c_source]") {
  SECTION("a read, arithmetic and a write: *x = *x + 1") {
    const ThreadCode tc = cuda_body("*x = *x + 1;");
    REQUIRE(tc.code.size() == 3);
    CHECK(tc.code[0].kind == InstrKind::Load);
    CHECK(tc.code[1].kind == InstrKind::Local);
    CHECK(tc.code[1].op == RmwOp::Add);
    CHECK(tc.code[2].kind == InstrKind::Store);
    CHECK(count(cuda_body("*x += 2; *y -= 1; (*z)++; ++*x;"), InstrKind::Store) == 4);
  }
  SECTION("operands are read left to right, each a load of its own") {
    const ThreadCode tc = herd_body("int r = *x + *y * *x;");
    std::vector<std::string> order;
    for (const Instruction& in : tc.code)
      if (in.kind == InstrKind::Load) order.push_back(in.addr->name);
    CHECK(order == std::vector<std::string>{"x", "y", "x"});
  }
  SECTION("a local shadowing another gets a register of its own") {
    const ThreadCode tc = herd_body("int r0 = 1; { int r0 = 2; *x = r0; } *y = r0;");
    CHECK(tc.code.at(0).dst->name == "r0");
    CHECK(tc.code.at(1).dst->name == "r0#2");
    CHECK(tc.code.at(2).srcs.at(0).name == "r0#2");
    CHECK(tc.code.at(3).srcs.at(0).name == "r0");
  }
  SECTION("&& and || evaluate their right operand only when C does") {
    const ThreadCode tc = herd_body("int r = 0; if (*x == 1 && *y == 2) { r = 1; }");
    CHECK(count(tc, InstrKind::Branch) == 2);
  }
  SECTION("C's integer types and constants") {
    const ThreadCode tc = herd_body(
        "unsigned a = 0xffffffffu; long long b = -1; unsigned long long c = b; "
        "int i = (int)c; int e = 7 % 3; short f = 40000;");
    CHECK(tc.code.at(0).type == DataType::U32);
    CHECK(tc.code.at(1).type == DataType::S64);
    CHECK(tc.code.at(2).type == DataType::U64);
  }
  SECTION("floats move, but do not compute") {
    const ThreadCode tc =
        cuda_body("*d = 1.5; double r1 = *d; *d = r1; if (r1 != 0.0) { *x = 1; }");
    CHECK(tc.code.at(0).type == DataType::F64);
    CHECK(body_error("double r = *d + 1.0;", Library::Libcuxx) ==
          "1:15: floating-point arithmetic ('+') is not read by the source semantics: the IR "
          "computes no floating-point arithmetic in registers");
  }
}

TEST_CASE("C: what the reading does not cover is a located error", "[c_source]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"int a = 1;\nint b = a >> 1;",
       "2:11: '>>' of a signed value is not read by the source semantics"},
      {"int a = 1;\nint b = 1 << a;", "2:14: '<<' by a value computed at run time is not read"},
      {"  foo(x);", "1:3: unknown function 'foo'"},
      {"*(x + 1) = 1;", "1:1: only '*x', x a pointer parameter naming a location, is read"},
      {"*x = 1;\n  return;", "2:3: 'return' is not read by the source semantics"},
      {"int a[2];", "1:6: arrays are not read by the source semantics"},
      {"int r = q;", "1:9: unknown name 'q'"},
      {"int r; *x = r;", "1:13: 'r' is read but never assigned"},
      {"atomic_store_explicit(x, 1, memory_order_acquire);",
       "1:29: a store cannot be memory_order_acquire"},
      {"int r = atomic_load_explicit(x, memory_order_release);",
       "1:33: a load cannot be memory_order_release"},
      {"x = 1;", "1:1: 'x' is a pointer parameter: write to the location as *x"},
      {"int r = \"s\";", "1:9: string and character literals are not read"},
      {"goto L;", "1:1: 'goto' is not read by the source semantics"},
      {"int r = 010;", "1:9: octal constant '010' is not read"},
      {"char c = 1;", "1:1: 'char' is an 8-bit type"},
      {"int r0;\nr0 = __load{once}(x);",
       "2:6: herd7's Linux-kernel primitive '__load{...}' is not read"},
      {"*z++;", "1:3: *z++ is *(z++) in C, pointer arithmetic, which is not read"},
      {"if (*x) { *y = 1;", "1:9: this block has no closing '}'"},
  };
  for (const auto& [body, want] : cases) {
    INFO(body);
    CHECK_THAT(body_error(body, Library::StdAtomic), Contains(want));
  }
  const std::vector<std::pair<std::string, std::string>> cuda_cases = {
      {"cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*x).store(1);",
       "1:18: cuda::atomic_ref<unsigned int> of 'x', a int location: the types must agree"},
      {"cuda::atomic_ref<int, cuda::thread_scope_warp>(*x).store(1);",
       "1:23: 'cuda::thread_scope_warp' is not a thread scope"},
      {"int r = atomicInc(x, 3);", "1:19: 'atomicInc' has no overload for a int location"},
      {"cuda::atomic_ref<int, cuda::thread_scope_device> r(*x);",
       "1:50: expected '(' after the type cuda::atomic_ref<...>: named atomic_ref objects are "
       "not read"},
      {"int e = 0; cuda::atomic_ref<int, cuda::thread_scope_device>(*x).compare_exchange_strong("
       "e, 1, cuda::std::memory_order_seq_cst, cuda::std::memory_order_relaxed);",
       "1:128: a failure order (memory_order_relaxed) other than the one memory_order_seq_cst "
       "implies (memory_order_seq_cst) is not read"},
      {"int r = atomic_load_explicit(x, memory_order_relaxed);",
       "1:9: unknown function 'atomic_load_explicit'"},
      {"int r = *(volatile unsigned *)x;",
       "1:10: the cast reads 'x', a int location, as "
       "unsigned int"},
  };
  for (const auto& [body, want] : cuda_cases) {
    INFO(body);
    CHECK_THAT(body_error(body, Library::Libcuxx), Contains(want));
  }
  // herd7's C test format.
  CHECK_THAT(test_error("C t\n{}\nP0 (int128_t *x) {}\n"), Contains("3:5: unexpected 'int128_t'"));
  CHECK_THAT(test_error("C t\n{ __int128 x = 18446744073709551616; }\nP0 (__int128 *x) {}\n"),
             Contains("2:16: number '18446744073709551616' does not fit in 64 bits"));
  CHECK_THAT(test_error("C t\n{}\nP1 (int *x) {}\n"), Contains("3:1: expected thread 'P0' here"));
  CHECK_THAT(test_error("C t\n{}\nP0 (int x) {}\n"),
             Contains("3:9: parameter 'x' must be a pointer to its location"));
  CHECK_THAT(test_error("C t\n{}\nP0 (int *x) {\n  *x = 1;\n"),
             Contains("3:1: this thread's body has no closing '}'"));
  CHECK_THAT(test_error("C t\n{}\nP0 (int *x) { *x = 1; }\nexists (0:r9 = 1)\n"),
             Contains("4:9: register P0:r9 is neither initialised nor written by P0"));
}

TEST_CASE("C: every litmus/cuda body lowers, and the tests expand", "[c_source]") {
  const fs::path dir = fs::path(REDSCOPE_SOURCE_DIR) / "litmus" / "cuda";
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path p = entry.path();
    if (p.extension() != ".litmus") continue;
    INFO(p.string());
    const cuda::CudaSource src = cuda::read_cuda_source(slurp(p), p.string());
    LitmusTest t = src.skeleton;
    BodyContext ctx;
    ctx.library = Library::Libcuxx;
    ctx.test = &src.skeleton;
    for (const cuda::CudaLocation& l : src.locations)
      ctx.memory.push_back(MemoryName{l.name, l.name, cuda::data_type(l.type), !l.shared, false});
    for (std::size_t i = 0; i < src.threads.size(); ++i)
      lower_body(src.threads[i].body, src.threads[i].body_at, p.string(), ctx, t.threads[i]);
    redscope::detail::check_references(t);
    CHECK_FALSE(expand_test(t).skeletons.empty());
    ++n;
  }
  CHECK(n == 69);
}

TEST_CASE("C: herd7's __atomic_add_unless is one read-modify-write that writes unless",
          "[c_source]") {
  const ThreadCode tc = herd_body("int r0 = __atomic_add_unless{mb}(x, 10, 0);");
  const Instruction& rmw = first(tc, InstrKind::Atom);
  CHECK(rmw.op == RmwOp::AddUnless);
  CHECK(rmw.source == SourceOrder{MemOrder::NonAtomic, ThreadScope::System});
  CHECK(rmw.sem == Sem::Weak);
  CHECK_FALSE(loops(tc));
  // Two threads adding unless 1: exactly one adds when x starts at 0.
  const TestResult r = run(read_c_litmus(R"(C add-unless
{ x = 0; }
P0 (atomic_t *x) { int a = __atomic_add_unless{mb}(x, 1, 1); }
P1 (atomic_t *x) { int b = __atomic_add_unless{mb}(x, 1, 1); }
exists (0:a=1 /\ 1:b=0 /\ x=1)
)",
                                         "au.litmus"));
  REQUIRE_FALSE(r.error);
  CHECK(r.holds);
}

}  // namespace unit_c_source
