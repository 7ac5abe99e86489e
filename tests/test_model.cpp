// models/ptx.cat and the cat subset: the model-driven enumerator against the
// frozen hand-written oracle on every suite test, and the parser's errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "oracle_ptx.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat_eval.hpp"
#include "suite_files.hpp"

using namespace redscope;
namespace fs = std::filesystem;

namespace {

// The message of the InputError `f` throws ("" when none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

cat::Model parse(const std::string& text) {
  return cat::parse_cat(text, "m.cat", cat::ptx_primitives());
}

}  // namespace

TEST_CASE("models/ptx.cat and the frozen oracle allow the same outcomes on every suite test",
          "[model][oracle]") {
  const std::vector<std::string> files = testing::suite_files();
  REQUIRE(files.size() > 68);
  std::size_t compared = 0;
  for (const std::string& f : files) {
    INFO(f);
    const LitmusTest t = parse_litmus_file(f);
    if (first_proxy_use(t)) continue;  // the frozen oracle predates proxies
    if (t.pto_program) continue;       // PTO programs have no cat model
    EngineOptions o;
    o.engine = EngineKind::Enum;
    o.observe_all = true;
    const TestResult m = run_enum(t, o);
    const TestResult h = run_enum_with(t, o, oracle::PtxOracle{});
    CHECK(testing::render_outcomes(m) == testing::render_outcomes(h));
    CHECK(m.incomplete.bound_cut == h.incomplete.bound_cut);
    CHECK(m.incomplete.barrier_deadlock == h.incomplete.barrier_deadlock);
    ++compared;
  }
  WARN(compared << " tests compared");
}

TEST_CASE("models/ptx.cat names every axiom as to_string(Axiom) does", "[model]") {
  std::vector<std::string> names;
  for (const cat::Stmt& s : cat::builtin_ptx().stmts)
    if (s.check) names.push_back(s.check->name);
  for (Axiom a : kAllAxioms) {
    INFO(to_string(a));
    CHECK(std::count(names.begin(), names.end(), std::string(to_string(a))) == 1);
  }
  CHECK(cat::builtin_ptx().title == "PTX memory consistency model, as redscope checks it");
}

TEST_CASE("cat: the subset parses and evaluates", "[model]") {
  const cat::Model m = parse(R"("t"
(* a (* nested *) comment *) // and a line comment (* not opened
let r = po ; po^-1 | [W] ; loc ; [R \ IW] & ext
let rec t = po | t ; t
and u = t ; rf?
let s = domain(rf) | range(co) | ~W
let c = W * R & po+ & po*
let v = if "sm6x" then po else rf
acyclic t as T
irreflexive u
empty 0
flag ~empty v as V
)");
  CHECK(m.title == "t");
  // po over three events 0 -> 1 -> 2; the fixpoint t is po's closure.
  cat::Evaluator ev(m, 3, {}, [](std::string_view) { return true; });
  ev.rel("po").set(0, 1);
  ev.rel("po").set(1, 2);
  ev.update(0);
  CHECK(ev.consistent());
  CHECK(ev.failing().empty());
  ev.rel("po").set(2, 0);  // a cycle: t is cyclic, u reflexive
  ev.update(0);
  CHECK_FALSE(ev.consistent());
  CHECK(ev.failing() == std::vector<std::string>{"T", ""});
  cat::Evaluator off(m, 3, {}, [](std::string_view n) { return n != "T"; });
  off.rel("po").set(0, 0);
  off.update(0);
  CHECK(off.failing() == std::vector<std::string>{"T", ""});
  CHECK_FALSE(off.consistent());  // the unnamed irreflexive check still forbids
}

TEST_CASE("cat: errors name file, line and column", "[model]") {
  CHECK(error_of([] { parse("\"t\"\nlet x = po ;\n"); }) ==
        "m.cat:3:1: error: expected an expression, found the end of the file");
  CHECK(error_of([] { parse("\"t\"\nacyclic nope\n"); }) ==
        "m.cat:2:9: error: unknown name 'nope'");
  CHECK(error_of([] { parse("\"t\"\nacyclic W\n"); }) ==
        "m.cat:2:9: error: 'acyclic' needs a relation, not a set");
  CHECK(error_of([] { parse("\"t\"\nlet x = W | po\n"); }) ==
        "m.cat:2:11: error: operands of different types: a set and a relation");
  CHECK(error_of([] { parse("\"t\"\n(* open\n"); }) == "m.cat:2:1: error: unterminated comment");
  CHECK(error_of([] { parse("\"t\"\ninclude \"x.cat\"\n"); }) ==
        "m.cat:2:9: error: cannot read included file \"x.cat\"");
}

TEST_CASE("cat: nesting depth is limited", "[model]") {
  const std::string deep =
      "\"t\"\nacyclic " + std::string(100000, '(') + "po" + std::string(100000, ')');
  CHECK_THAT(error_of([&] { parse(deep); }), Catch::Contains("expression nested deeper than 200"));
  std::string chain = "\"t\"\nacyclic po";
  for (int i = 0; i < 1000; ++i) chain += " | po";
  CHECK(error_of([&] { parse(chain); }).empty());  // long but flat
}

TEST_CASE("cat: include reads through the reader, and nests at most 200 deep", "[model]") {
  const cat::Model m =
      cat::parse_cat("\"t\"\ninclude \"a.cat\"\nacyclic a", "m.cat", cat::ptx_primitives(),
                     [](const std::string& n) -> std::optional<std::string> {
                       if (n == "a.cat") return std::string("\"a\" let a = po");
                       return std::nullopt;
                     });
  CHECK(m.stmts.size() == 2);
  const std::string msg = error_of([] {
    cat::parse_cat(
        "\"t\" include \"self.cat\"", "m.cat", cat::ptx_primitives(),
        [](const std::string&) { return std::optional<std::string>("include \"self.cat\""); });
  });
  CHECK_THAT(msg, Catch::Contains("includes nested deeper than 200"));
}

TEST_CASE("enum: EngineOptions::model_file replaces the built-in model", "[model]") {
  const fs::path dir = fs::temp_directory_path() / fmt::format("redscope-cat-{}", ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "inc.cat") << "\"inc\"\nlet nothing = po & 0\n";
  std::ofstream(dir / "none.cat") << "none\ninclude \"inc.cat\"\nempty nothing as Nothing\n";
  const LitmusTest t =
      parse_litmus_file(std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/MP.litmus");
  EngineOptions o;
  o.engine = EngineKind::Enum;
  o.observe_all = true;
  CHECK(run_enum(t, o).outcomes.size() == 3);  // PTX forbids r0=1, r1=0 without fences
  o.model_file = (dir / "none.cat").string();
  CHECK(run_enum(t, o).outcomes.size() == 4);  // no axioms: everything goes
  o.model_file = (dir / "missing.cat").string();
  CHECK_THAT(error_of([&] { (void)run_enum(t, o); }),
             Catch::Contains("cannot read the model file"));
  fs::remove_all(dir);
}

namespace {

// Every operator of the subset, in checks that are no memory model: only
// that the two evaluators (z3: symbolic, enum: bits) read them alike.
constexpr const char* kOperators = R"("operators"
let fr = rf^-1 ; co
acyclic rf | dep as No-Thin-Air
acyclic ((rf | co | fr) & ms) | po-loc as SPL
let ext_rf = rf & ext
irreflexive ([R \ ACQ] ; po ; [W] ; ext_rf ; [R] ; po ; [W] ; ext_rf) as NoLB
empty ((co^-1 \ id) & po-loc) ; [W & STRONG] as PoCo
empty ((IW * (R & SC)) & rf) as ScNotFromInit
let late = domain(ext_rf) & range(po) & ~(REL | ACQ_REL)
empty late \ (RMW | WEAK) as LateStrong
let far = if "sm6x" then fr+ else (fr ; co*)
acyclic (far ; ~(po | po^-1 | id) ; po?) & loc as Far
flag ~empty rf & int as Internal
~empty W as SomeWrite
)";

}  // namespace

TEST_CASE("z3 and enum read a user model alike, operator by operator", "[model]") {
  const auto model = std::make_shared<const cat::Model>(
      cat::parse_cat(kOperators, "ops.cat", cat::ptx_primitives()));
  std::size_t compared = 0;
  for (const char* dir : {"classic", "red", "sm6x", "atom"})
    for (const std::string& f :
         collect_litmus_files({std::string(REDSCOPE_SOURCE_DIR) + "/litmus/" + dir})) {
      const LitmusTest t = parse_litmus_file(f);
      EngineOptions o;
      o.observe_all = true;
      o.user_model = model;
      o.enum_limit = 200'000;
      o.engine = EngineKind::Enum;
      const TestResult e = run_enum(t, o);
      if (e.error) continue;  // too large for the enumerator
      const TestResult z = run_z3(t, o);
      INFO(f);
      REQUIRE_FALSE(z.error);
      CHECK(testing::render_outcomes(z) == testing::render_outcomes(e));
      ++compared;
    }
  CHECK(compared > 50);
}

TEST_CASE("z3 refuses `let rec` with a located error; enum evaluates it", "[model]") {
  const auto model = std::make_shared<const cat::Model>(
      cat::parse_cat("\"rec\"\nlet rec hb = po | (hb ; rf)\nacyclic hb as Hb\n", "rec.cat",
                     cat::ptx_primitives()));
  const LitmusTest t =
      parse_litmus_file(std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/MP.litmus");
  EngineOptions o;
  o.user_model = model;
  CHECK_THAT(error_of([&] { (void)run_z3(t, o); }), Catch::Contains("rec.cat:2:"));
  CHECK_THAT(error_of([&] { (void)run_z3(t, o); }), Catch::Contains("let rec"));
  CHECK_FALSE(run_enum(t, o).error);
}
