// The solver's process (engine/z3/solver_process.hpp, issue 43): the codec,
// a child killed at the deadline and past --max-memory and reaped, the
// handler's exceptions rethrown as they were, a fork waiting for another
// thread's in-process Z3, and the same results from a solver process as
// from this one: the engine, the PTO twin, verdicts and explain.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "redscope/analysis/explain.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/solver_process.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_solver_process {

using namespace redscope;
using detail::SolverProcess;
using detail::WireIn;
using detail::WireOut;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Whether `pid` is gone (reaped: not even a zombie of ours).
bool gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

std::string file(const char* relative) { return std::string(REDSCOPE_SOURCE_DIR) + "/" + relative; }

// What a result says, timings and engine aside: outcomes, witnesses and verdict.
std::string listing(const TestResult& r) {
  std::string s = fmt::format("holds {} observation {} incomplete {}/{} verdict_by {}\n", r.holds,
                              to_string(r.observation), r.incomplete.bound_cut,
                              r.incomplete.barrier_deadlock, verdict_by_word(r.verdict_by));
  const auto witness = [&](const Outcome& o) {
    for (std::uint64_t v : o.values) s += fmt::format("{} ", v);
    s += "|";
    for (const std::string& e : o.witness.rf) s += " rf " + e;
    for (const std::string& e : o.witness.co) s += " co " + e;
    for (const std::string& c : o.witness.choices) s += " choice " + c;
    for (const ExecEdge& e : o.witness.edges) s += fmt::format(" {}:{}-{}", e.kind, e.from, e.to);
    for (const auto& [e, v] : o.witness.values) s += fmt::format(" v{}={}", e, v);
    s += fmt::format(" sk{}\n", o.witness.skeleton);
  };
  for (const Outcome& o : r.outcomes) witness(o);
  if (r.verdict_witness) witness(*r.verdict_witness);
  return s;
}

}  // namespace

TEST_CASE("solver process: the codec keeps witnesses and their shared edge texts",
          "[solver-process]") {
  Witness w;
  w.rf.push_back("init x -> P1#0 ld r0, x");
  w.co.push_back(w.rf.items()[0]);  // one text, shared
  w.co.push_back(std::string(300, 'c'));
  w.choices = {"order: tree", ""};
  w.skeleton = 7;
  w.executed = {0, 1, 300};
  w.edges = {{0, 1, "rf"}, {1, 300, "co"}};
  w.values = {{1, 0xffffffffffffffffULL}, {300, 0}};
  detail::FoundOutcomes found{{{1, 2}, w}, {{}, Witness{}}};
  WireOut out;
  detail::put(out, found);
  out.u(1ULL << 63);
  WireIn in(out.bytes());
  const detail::FoundOutcomes back = detail::get_found(in);
  CHECK(in.u() == 1ULL << 63);
  CHECK(in.done());
  REQUIRE(back.size() == 2);
  const Witness& b = back.at({1, 2});
  CHECK(b.rf.texts() == w.rf.texts());
  CHECK(b.co.texts() == w.co.texts());
  CHECK(b.co.items()[0] == b.rf.items()[0]);  // still one string
  CHECK(b.choices == w.choices);
  CHECK(b.skeleton == 7);
  CHECK(b.executed == w.executed);
  CHECK(b.edges == w.edges);
  CHECK(b.values == w.values);
  // A cut message is an internal error, not a crash or a silent default.
  WireIn cut(std::string_view(out.bytes()).substr(0, out.bytes().size() / 2));
  CHECK_THROWS_AS(detail::get_found(cut), std::runtime_error);
}

TEST_CASE("solver process: answers, and rethrows what its handler threw", "[solver-process]") {
  SolverProcess p(nullptr, [](WireIn& in, const Budget*) -> std::string {
    const std::uint64_t op = in.u();
    if (op == 0) return std::string(1 << 20, 'a');  // more than a socket's buffer
    if (op == 1) throw InputError(Diagnostic{"t.litmus", {3, 4}, "bad row"});
    if (op == 2) throw BudgetExceeded(BudgetKind::Memory, "memory: over");
    if (op == 3) throw SolverError("gave up");
    if (op == 4) throw std::invalid_argument("--outcome");
    return std::to_string(getpid());
  });
  const auto ask = [&](std::uint64_t op) {
    WireOut w;
    w.u(op);
    return p.call(w.bytes());
  };
  CHECK(ask(0) == std::string(1 << 20, 'a'));
  try {
    ask(1);
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(e.diagnostic().render() == "t.litmus:3:4: error: bad row");
  }
  try {
    ask(2);
    FAIL("no BudgetExceeded");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetKind::Memory);
    CHECK(std::string(e.what()) == "memory: over");
  }
  CHECK_THROWS_AS(ask(3), SolverError);
  CHECK_THROWS_AS(ask(4), std::invalid_argument);
  CHECK(ask(5) == std::to_string(p.pid()));  // served by the child, which is still there
  CHECK(p.pid() != getpid());
}

TEST_CASE("solver process: killed at the deadline, reaped, the budget's timeout error",
          "[solver-process][budget]") {
  Budget budget(BudgetLimits{1, 0});
  pid_t pid = 0;
  const auto t0 = Clock::now();
  {
    SolverProcess p(&budget, [](WireIn&, const Budget*) -> std::string {
      for (;;) pause();  // a solver call that never returns
    });
    pid = p.pid();
    try {
      p.call({});
      FAIL("no timeout");
    } catch (const BudgetExceeded& e) {
      CHECK(e.kind() == BudgetKind::Timeout);
    }
    CHECK(gone(pid));  // killed and reaped at once, not when `p` goes
  }
  CHECK(since(t0) < 1.5);
  CHECK(gone(pid));
}

TEST_CASE("solver process: killed past --max-memory, the budget's memory error",
          "[solver-process][budget]") {
  // A cap 150 MiB above what this process holds now: the child's own pages
  // count (HelperMemory), the ones it shares with this process do not twice.
  const std::size_t cap = resident_mb() + 150;
  Budget budget(BudgetLimits{30, cap});
  const auto t0 = Clock::now();
  SolverProcess p(&budget, [](WireIn&, const Budget*) -> std::string {
    std::vector<char*> blocks;
    for (;;) {  // 10 MiB every 20 ms, touched: resident
      blocks.push_back(static_cast<char*>(std::malloc(10 << 20)));
      std::memset(blocks.back(), 1, 10 << 20);
      usleep(20000);
    }
  });
  const pid_t pid = p.pid();
  try {
    p.call({});
    FAIL("no memory error");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetKind::Memory);
  }
  CHECK(since(t0) < 5);
  CHECK(gone(pid));
  CHECK(resident_mb() < cap);  // its memory is no longer counted
}

TEST_CASE("solver process: a crash is the test's internal error", "[solver-process]") {
  SolverProcess p(nullptr, [](WireIn&, const Budget*) -> std::string { std::abort(); });
  try {
    p.call({});
    FAIL("no error");
  } catch (const SolverError& e) {
    CHECK(std::string(e.what()).find("signal 6") != std::string::npos);
  }
}

TEST_CASE("solver process: a fork waits for another thread's in-process Z3 section",
          "[solver-process]") {
  std::atomic<bool> open{false};
  std::thread other([&] {
    const detail::InProcessZ3 section;
    open = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  });
  while (!open) std::this_thread::yield();
  const auto t0 = Clock::now();
  {
    SolverProcess p(nullptr, [](WireIn&, const Budget*) { return std::string("up"); });
    CHECK(since(t0) > 0.3);  // it forked once the section closed
    CHECK(p.call({}) == "up");
  }
  other.join();
  // Past its deadline a fork that still waits ends with the budget's error.
  Budget budget(BudgetLimits{1, 0});
  std::thread holder([&] {
    const detail::InProcessZ3 section;
    std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_THROWS_AS(SolverProcess(&budget, [](WireIn&, const Budget*) { return std::string(); }),
                  BudgetExceeded);
  holder.join();
}

TEST_CASE("solver process: which tests are small enough for this process", "[solver-process]") {
  const LitmusTest mp = parse_litmus_file(file("litmus/classic/MP.litmus"));
  const EngineOptions o;
  const Expansion ex = expand(mp, o.expand);
  CHECK(detail::small_for_process(ex, *model_of(o, mp)));
  // A model of 9,000 lets: each an n x n relation of terms, however small n.
  std::string lets = "\"big\"\nlet r0 = po | rf\n";
  for (int i = 1; i < 9000; ++i)
    lets += fmt::format("let r{} = r{} | (r{} ; rf)\n", i, i - 1, i - 1);
  const cat::Model big =
      cat::parse_cat(lets + "acyclic r8999 as Big\n", "big.cat", cat::ptx_primitives());
  CHECK_FALSE(detail::small_for_process(ex, big));
  // 8 reductions of one cell: 153 (read, write) and (write, write) pairs.
  std::string src = "PTX red8\n{\nglobal s32 x = 1;\n}\n P0@cta 0,gpu 0 ;\n";
  for (int i = 0; i < 8; ++i) src += " red.global.min.s32 [x], -2 ;\n";
  const LitmusTest red = parse_litmus(src + "forall (x == -2)\n", "red8.litmus");
  CHECK_FALSE(detail::small_for_process(expand(red, o.expand), *model_of(o, red)));
}

TEST_CASE("solver process: the engine, verdicts and the PTO twin answer as in this process",
          "[solver-process]") {
  for (const char* f :
       {"litmus/classic/MP.litmus", "litmus/classic/IRIW+fence.sc-cta.litmus",
        "litmus/atom/atom-acquire-mp.litmus", "litmus/pto/race-message-passing.litmus",
        "litmus/pto/vcadd-f32-order.litmus", "litmus/float/f16-rne-tie-to-even.litmus"}) {
    const LitmusTest t = parse_litmus_file(file(f));
    for (const bool verdict : {false, true}) {
      EngineOptions o;
      o.engine = EngineKind::Z3;
      o.verdict_only = verdict;
      const TestResult here = run_engine(t, o);
      o.solver_process = true;
      const TestResult there = run_engine(t, o);
      INFO(f << (verdict ? " --verdict" : ""));
      CHECK(listing(there) == listing(here));
      CHECK(there.outcomes.size() == here.outcomes.size());
    }
  }
}

// The children of this thread (a session's solver process).
std::string children_here() {
  std::ifstream f(fmt::format("/proc/self/task/{}/children", gettid()));
  std::string s;
  std::getline(f, s);
  return s;
}

TEST_CASE("solver process: a query session past its time here moves, replaying what it did",
          "[solver-process][query]") {
  const LitmusTest t = parse_litmus_file(file("litmus/classic/CoRR+weak.litmus"));
  const EngineOptions o;
  const Expansion ex = expand(t, o.expand);
  const QueryModel model(t, o);
  const std::vector<Observable> obs = observables_of(t, ex, true);
  const auto ask = [&](bool pause) {
    QuerySession session(nullptr);
    std::string out;
    {
      Query q(session, ex.skeletons[0], model, nullptr);
      q.require_normal_end();
      out += fmt::format("{} ", q.possible_under(model.enabled_checks()));
      out += fmt::format("{} ", fmt::join(q.witness(0).rf.texts(), ","));
    }
    if (pause) {  // past kInProcessSeconds: what follows runs in the session's process
      std::this_thread::sleep_for(std::chrono::duration<double>(detail::kInProcessSeconds + 0.1));
      CHECK(children_here().empty());
    }
    Query q(session, ex.skeletons[0], model, nullptr);
    q.require_normal_end();
    out += fmt::format("{} ", fmt::join(q.minimal_core(model.enabled_checks()), ","));
    REQUIRE(q.possible(Barriers::MustPass));
    out += fmt::format("{} {}", fmt::join(q.witness(0).co.texts(), ","), q.final_values().size());
    CHECK(children_here().empty() == !pause);
    return out;
  };
  CHECK(ask(true) == ask(false));
}

TEST_CASE("solver process: explain answers as in this process", "[solver-process][explain]") {
  const LitmusTest t = parse_litmus_file(file("litmus/classic/MP.litmus"));
  EngineOptions o;
  const std::string here = render_text(explain(t, o, ExplainRequest{}));
  o.solver_process = true;
  CHECK(render_text(explain(t, o, ExplainRequest{})) == here);
}

TEST_CASE(
    "solver process: a large test's solver is stopped at the deadline, its context "
    "never released in this process",
    "[solver-process][budget]") {
  // 200 reductions of one cell: Z3 took 15-80 s to release this test's
  // context after a deadline of a few seconds (issue 43).
  std::string src = "PTX red200\n{\nglobal s32 x = 1;\n}\n P0@cta 0,gpu 0 ;\n";
  for (int i = 0; i < 200; ++i) src += " red.global.min.s32 [x], -2 ;\n";
  const LitmusTest t = parse_litmus(src + "forall (x == -2)\n", "red200.litmus");
  EngineOptions o;
  o.engine = EngineKind::Z3;
  o.limits = BudgetLimits{2, 0};
  const auto t0 = Clock::now();
  const auto failure = capture_failure("red200.litmus", [&] {
    with_budget(o, [&](const EngineOptions& b) { return run_engine(t, b); });
  });
  REQUIRE(failure);
  CHECK(failure->kind == "timeout");
  CHECK(since(t0) < 3.5);
}

}  // namespace unit_solver_process
