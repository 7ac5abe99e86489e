// One small model per construct of herd7's cat language, on every engine
// (issue 45): each model is beyond redscope's typed subset, so herd's
// interpreter runs it on the enumerator's candidates (enum; z3 and auto step
// aside to it, saying why), and it must give, on every test below, the
// outcomes of the same rule written in the subset and encoded by z3.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/report/report.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_herd_engines {

using namespace redscope;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Includes read from herd7's library (cross.cat, fences.cat, ...).
cat::IncludeReader from_libdir() {
  return [](const std::string& name, const std::string&) -> std::optional<cat::IncludedFile> {
    const std::string path =
        std::string(REDSCOPE_SHARED_DIR) + "/conformance/herd7/herd/libdir/" + name;
    std::ifstream in(path);
    if (!in) return std::nullopt;
    return cat::IncludedFile{slurp(path), path, name};
  };
}

std::shared_ptr<const cat::Model> model(const std::string& text) {
  return std::make_shared<const cat::Model>(cat::parse_model(text, "m.cat", from_libdir()));
}

std::vector<std::vector<std::uint64_t>> values(const TestResult& r) {
  std::vector<std::vector<std::uint64_t>> v;
  for (const Outcome& o : r.outcomes) v.push_back(o.values);
  return v;
}

TestResult run(const LitmusTest& t, std::shared_ptr<const cat::Model> m, EngineKind e) {
  EngineOptions o;
  o.engine = e;
  o.user_model = std::move(m);
  return run_engine(t, o);
}

// SC over a total co, in the subset (tests/herd/sc-subset.cat says why).
constexpr const char* kScSubset = R"("sc"
empty (loc & (W * W)) \ (co | co^-1 | id) as co-total
let fr = (rf^-1 ; co) \ id
acyclic po | rf | co | fr as sc
)";

const std::vector<std::string>& tests() {
  static const std::vector<std::string> names = {
      "MP", "SB", "LB", "2+2W+relaxed-gpu", "CoRR+weak", "IRIW+relaxed-gpu", "SB+fence.sc-gpu"};
  return names;
}

// Every test: the herd model on z3, enum and auto gives the subset's outcomes.
void same_as(const std::string& herd_text, const std::string& subset_text) {
  const auto herd = model(herd_text);
  REQUIRE_FALSE(herd->typed());
  const auto subset = model(subset_text);
  REQUIRE(subset->typed());
  for (const std::string& name : tests()) {
    const std::string path =
        std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/" + name + ".litmus";
    const LitmusTest t = parse_litmus(slurp(path), path);
    const auto want = values(run(t, subset, EngineKind::Z3));
    for (EngineKind e : {EngineKind::Z3, EngineKind::Enum, EngineKind::Auto}) {
      INFO(name << " on " << to_string(e));
      const TestResult r = run(t, herd, e);
      CHECK(values(r) == want);
      CHECK(r.engine == "enum");
    }
  }
}

}  // namespace

TEST_CASE("herd: functions, curried functions and tuples", "[herd][engines]") {
  same_as(R"("f"
let union3(a, b, c) = a | b | c
let add = fun a -> fun b -> a | b
let (p, q) = (po, rf)
acyclic add p q | union3(co, fr, 0)
)",
          kScSubset);
}

TEST_CASE("herd: procedures and call ... as", "[herd][engines]") {
  same_as(R"("p"
procedure acyc(r) =
  acyclic r as inner
end
call acyc(po | rf | co | fr) as sc
)",
          kScSubset);
}

TEST_CASE("herd: try ... with over a set PTX lacks", "[herd][engines]") {
  same_as(R"("t"
let extra = try fencerel(DMB.ISH) with 0
acyclic po | rf | co | fr | extra
)",
          kScSubset);
}

TEST_CASE("herd: enum, tags and match", "[herd][engines]") {
  same_as(R"("m"
enum Mode = 'sc || 'tso
let pick(m) = match m with
  || 'sc -> po
  || 'tso -> po \ (W * R)
  end
acyclic pick('sc) | rf | co | fr
)",
          kScSubset);
}

TEST_CASE("herd: recursive functions and match on sets", "[herd][engines]") {
  same_as(R"("r"
let rec unions S = match S with
  || {} -> 0
  || r ++ rest -> r | unions rest
  end
acyclic unions({po, rf, co, fr})
)",
          kScSubset);
}

TEST_CASE("herd: with ... from, over linearisations and herd7's cross.cat", "[herd][engines]") {
  // SC as herd7 writes it for events: some total order of the accesses
  // extends po, rf, co and fr.
  same_as(R"("w"
with so from linearisations(M, po | rf | co | fr)
)",
          kScSubset);
  // co chosen by herd7's own cross.cat, then SC over it.
  same_as(R"("c"
include "cross.cat"
with co from generate_cos(co0)
let fr = (rf^-1 ; co) \ id
acyclic po | rf | co | fr
)",
          kScSubset);
}

TEST_CASE("herd: forall and if variant", "[herd][engines]") {
  same_as(R"("a"
forall r in {rf, co | fr} do
  acyclic po | r
end
if "no-such-variant" acyclic po | co | rf else acyclic po | rf | co | fr end
)",
          R"("a"
empty (loc & (W * W)) \ (co | co^-1 | id)
let fr = (rf^-1 ; co) \ id
acyclic po | rf
acyclic po | co | fr
acyclic po | rf | co | fr
)");
}

TEST_CASE("herd: the prelude's names (fencerel, rfe, co0) and flags", "[herd][engines]") {
  same_as(R"("s"
let ppo = fencerel(F) | po
show ppo
flag ~empty rfe as communicates
empty (co0 \ co)
acyclic ppo | rfe | rfi | co | fr
)",
          kScSubset);
  const std::string path = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/MP.litmus";
  const TestResult r =
      run(parse_litmus(slurp(path), path),
          model("\"f\"\nflag ~empty rfe as communicates\nempty 0 \\ 0\n"), EngineKind::Enum);
  CHECK(r.flags == std::vector<std::string>{"communicates"});
  CHECK_THAT(render_text(r), Catch::Contains("\nFlag communicates\nCondition"));
}

TEST_CASE("herd: a model beyond the subset is refused where only the subset is read",
          "[herd][engines]") {
  const auto m = model("\"w\"\nwith so from linearisations(M, po)\n");
  CHECK_THROWS_WITH(cat::require_typed(*m, "explain"),
                    Catch::Contains("'with ... from' at m.cat:2:1"));
}

}  // namespace unit_herd_engines
