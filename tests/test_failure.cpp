// One test's failure stays with that test (failure.hpp): every kind of
// exception becomes a located message and a kind, never an abort of the run.
#include <catch2/catch.hpp>

#include <z3++.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/z3_guard.hpp"
#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_failure {

using namespace redscope;

TEST_CASE("capture_failure: each exception becomes that test's failure", "[failure]") {
  CHECK_FALSE(capture_failure("t.litmus", [] {}));
  const auto input = capture_failure("t.litmus", [] {
    throw InputError(Diagnostic{"t.litmus", {3, 4}, "bad"});
  });
  REQUIRE(input);
  CHECK(input->message == "t.litmus:3:4: error: bad");
  CHECK(input->kind == "input");
  const auto budget = capture_failure(
      "t.litmus", [] { throw BudgetExceeded(BudgetKind::Timeout, "timeout: over"); });
  REQUIRE(budget);
  CHECK(budget->message == "t.litmus: error: timeout: over");
  CHECK(budget->kind == "timeout");
  // A solver's exception leaves the Z3 stage as SolverError (z3_guard.hpp).
  const auto solver = capture_failure("t.litmus", [] {
    detail::translate_z3_errors([]() -> int { throw z3::exception("boom"); });
  });
  REQUIRE(solver);
  CHECK(solver->message == "t.litmus: error: internal solver error: boom");
  CHECK(solver->kind == "internal");
  const auto other = capture_failure("t.litmus", [] { throw std::out_of_range("map::at"); });
  REQUIRE(other);
  CHECK(other->message == "t.litmus: error: internal error: map::at");
  CHECK(other->kind == "internal");
  CHECK(render_failure_text("t.litmus", "m", "timeout") == "Test t.litmus Error (timeout)\nm\n\n");
  CHECK(render_failure_text("t.litmus", "m", "input") == "Test t.litmus Error\nm\n\n");
}

TEST_CASE("xval and atomicity report a missing file as that file's error", "[failure]") {
  EngineOptions o;
  const XvalResult x = xval_file("no/such/file.litmus", o);
  REQUIRE(x.error);
  CHECK(x.error_kind == "input");
  const AtomicityResult a = check_atomicity_file("no/such/file.litmus", o);
  REQUIRE(a.error);
  CHECK(a.error_kind == "input");
}

TEST_CASE("the operational machine refuses to leave out axioms it does not have", "[failure]") {
  const LitmusTest t = parse_litmus(R"(PTX two-atoms
{ x=0; }
 P0@cta 0,gpu 0                    | P1@cta 1,gpu 0                    ;
 atom.relaxed.gpu.add.u32 r0, x, 1 | atom.relaxed.gpu.add.u32 r0, x, 1 ;
exists (x == 1))",
                                    "atoms.litmus");
  EngineOptions o;
  o.engine = EngineKind::Op;
  o.disabled_checks = {"Atomicity"};
  CHECK_THROWS_AS(run_engine(t, o), InputError);
}

TEST_CASE("diagnostics are short whatever the input echoes", "[failure]") {
  // A line of 100,000 short words (a SASS listing line of words, found by
  // redscope_fuzz): the text is cut, not only its long words (issue 28).
  std::string line;
  for (int i = 0; i < 100000; ++i) line += "0x50eec0000081fdc84 ";
  const std::string p = printable(line);
  CHECK(p.size() <= 320);
  CHECK(p.rfind("\xe2\x80\xa6") == p.size() - 3);
  CHECK(Diagnostic{"f", {1, 1}, "found '" + line + "'"}.render().size() < 400);
  CHECK(printable("short message") == "short message");
}

TEST_CASE("a register declared without a value expands (found by the long fuzz run)", "[failure]") {
  // `P2:rsrc[8];` gave expand an empty value list (vector::at on it): now
  // the register simply has no initial value (issue 28).
  const LitmusTest t = parse_litmus(
      "PTX t\n{ x=0; P0:rsrc[8]; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n",
      "t.litmus");
  CHECK_NOTHROW(expand(t, ExpandOptions{}));
}

}  // namespace unit_failure
