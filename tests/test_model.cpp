// models/ptx.cat and the cat subset: the model-driven enumerator against the
// frozen hand-written oracle on every suite test, and the parser's errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <unistd.h>

#include "oracle_ptx.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat_eval.hpp"
#include "redscope/model/primitives.hpp"
#include "redscope/registry/registry.hpp"
#include "suite_files.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_model {

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
    if (t.program) continue;           // PTO programs have no cat model
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

// The checks are named by the model: explain, xval and the tests that leave
// one out use these names, the six axioms of PTX ISA §8.9 as the text spells
// them.
TEST_CASE("models/ptx.cat names the six axioms of PTX ISA 8.9, once each", "[model]") {
  std::vector<std::string> names;
  for (const cat::Stmt& s : cat::builtin_ptx().stmts)
    if (s.check) names.push_back(s.check->name);
  for (const char* a :
       {"Coherence", "Fence-SC", "Atomicity", "No-Thin-Air", "SC-per-Location", "Causality"}) {
    INFO(a);
    CHECK(std::count(names.begin(), names.end(), std::string(a)) == 1);
  }
  CHECK(names.size() == 6);
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

namespace {

// An IncludeReader over files held in memory (the name is the key).
cat::IncludeReader in_memory(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& name,
                                    const std::string&) -> std::optional<cat::IncludedFile> {
    const auto it = files.find(name);
    if (it == files.end()) return std::nullopt;
    return cat::IncludedFile{it->second, name, name};
  };
}

}  // namespace

TEST_CASE("cat: include reads through the reader, and nests at most 200 deep", "[model]") {
  const cat::Model m =
      cat::parse_cat("\"t\"\ninclude \"a.cat\"\nacyclic a", "m.cat", cat::ptx_primitives(),
                     in_memory({{"a.cat", "\"a\" let a = po"}}));
  CHECK(m.stmts.size() == 2);
  std::map<std::string, std::string> deep;  // f0 includes f1 includes ... f300
  for (int i = 0; i < 300; ++i) deep[fmt::format("f{}", i)] = fmt::format("include \"f{}\"", i + 1);
  const std::string msg = error_of([&] {
    cat::parse_cat("\"t\" include \"f0\"", "m.cat", cat::ptx_primitives(), in_memory(deep));
  });
  CHECK_THAT(msg, Catch::Contains("includes nested deeper than 200"));
  CHECK_THAT(msg, Catch::StartsWith("f199:1:1: error:"));
}

// herd7 reads a file again at each `include` (with -v: "including X another
// time"), so 40 files each including the next twice expand 2^39 times;
// redscope includes a file once (its bindings are in scope already), and a
// cycle is an error.
TEST_CASE("cat: a file included twice is read once, and an include cycle is an error", "[model]") {
  std::map<std::string, std::string> chain;
  for (int i = 1; i < 40; ++i)
    chain[fmt::format("f{}.cat", i)] =
        fmt::format("\"f\"\ninclude \"f{0}.cat\"\ninclude \"f{0}.cat\"\n", i + 1);
  chain["f40.cat"] = "\"last\"\nlet x = po\nacyclic x\n";
  const cat::Model m = cat::parse_cat("\"t\"\ninclude \"f1.cat\"\nempty x & ~x\n", "m.cat",
                                      cat::ptx_primitives(), in_memory(chain));
  CHECK(m.stmts.size() == 3);  // let x, acyclic x (once), empty
  CHECK(error_of([] {
          cat::parse_cat("\"t\"\ninclude \"a.cat\"\n", "m.cat", cat::ptx_primitives(),
                         in_memory({{"a.cat", "\"a\"\ninclude \"b.cat\""},
                                    {"b.cat", "\"b\"\nlet b = po\n  include \"a.cat\""}}));
        }) == "b.cat:3:11: error: include cycle: a.cat includes b.cat, which includes a.cat");
  CHECK(error_of([] {
          cat::parse_cat("\"t\"\ninclude \"m.cat\"\n", "m.cat", cat::ptx_primitives(),
                         in_memory({{"m.cat", "\"t\"\ninclude \"m.cat\""}}));
        }) == "m.cat:2:9: error: include cycle: m.cat includes m.cat");
}

TEST_CASE("cat: model files are regular files, and includes are found next to their includer",
          "[model]") {
  const fs::path dir = fs::temp_directory_path() / fmt::format("redscope-cat-files-{}", ::getpid());
  fs::create_directories(dir / "sub" / "folder.cat");
  std::ofstream(dir / "sub" / "a.cat") << "\"a\"\ninclude \"b.cat\"\n";
  std::ofstream(dir / "sub" / "b.cat") << "\"b\"\nlet b = po\n";
  std::ofstream(dir / "main.cat") << "\"m\"\ninclude \"sub/a.cat\"\ninclude \"./sub/b.cat\"\n"
                                     "acyclic b\n";
  std::ofstream(dir / "dir.cat") << "\"m\"\ninclude \"sub/folder.cat\"\nacyclic po\n";
  CHECK(cat::load_cat((dir / "main.cat").string()).stmts.size() == 2);  // b.cat read once
  // A folder is no model (it read as an empty one: every outcome allowed).
  CHECK(error_of([&] { cat::load_cat((dir / "sub").string()); }) ==
        (dir / "sub").string() + ": error: is a folder, not a cat model");
  CHECK(error_of([&] { cat::load_cat((dir / "dir.cat").string()); }) ==
        (dir / "dir.cat").string() +
            ":2:9: error: cannot read included file \"sub/folder.cat\": is a folder, not a cat "
            "model");
  // An endless device is refused before it is read.
  CHECK_THAT(error_of([] { cat::load_cat("/dev/zero"); }), Catch::Contains("not a regular file"));
  // The model and its includes together within the size limit.
  CHECK_THAT(error_of([&] { cat::load_cat((dir / "main.cat").string(), 60); }),
             Catch::Contains("hold more than 60 bytes (--max-file-size)"));
  fs::remove_all(dir);
}

// Every operator chain of 200,000 operands is one n-ary node, evaluated by
// both evaluators; postfix and prefix chains count against the 200-level
// bound (they overflowed the stack: the bound counted parentheses only).
TEST_CASE("cat: operator chains are flat, nesting past 200 is a located error", "[model]") {
  constexpr int kLong = 200'000;
  for (const char* op : {" | ", " ; ", " & ", " \\ "}) {
    std::string text = "\"t\"\nlet r = po";
    for (int i = 0; i < kLong; ++i) text += op + std::string(i % 2 ? "po" : "rf");
    text += "\nacyclic r\n";
    INFO(op);
    const cat::Model m = parse(text);
    const cat::Expr& e = *m.stmts[0].let->exprs[0];
    CHECK(e.height == 2);
    CHECK(e.args.size() == kLong + 1);
    cat::Evaluator ev(m, 3, {}, [](std::string_view) { return true; });
    ev.rel("po").set(0, 1);
    ev.rel("rf").set(0, 1);
    ev.update(0);
    CHECK(ev.consistent());
    CHECK_FALSE(cat::to_text(m, e).empty());
  }
  for (const char* op : {"^-1", "+", "*", "?"}) {
    std::string text = "\"t\"\nacyclic po";
    for (int i = 0; i < kLong; ++i) text += op;
    INFO(op);
    // The 200th operator makes the 201st level.
    const int col = 11 + 199 * static_cast<int>(std::string_view(op).size());
    CHECK(error_of([&] { parse(text); }) ==
          fmt::format("m.cat:2:{}: error: expression nested deeper than 200", col));
  }
  CHECK_THAT(error_of([&] { parse("\"t\"\nacyclic " + std::string(kLong, '~') + "po"); }),
             Catch::Contains("m.cat:2:210: error: expression nested deeper than 200"));
  // 60 parentheses, 4 operator levels in each: 240 levels.
  std::string alt = "po";
  for (int i = 0; i < 60; ++i) alt = "(" + alt + " & rf \\ rf ; rf | rf)";
  CHECK_THAT(error_of([&] { parse("\"t\"\nacyclic " + alt); }),
             Catch::Contains("expression nested deeper than 200"));
  // Within the bound: evaluated alike by z3 and enum (a user model).
  std::string ok = "\"t\"\nacyclic po";
  for (int i = 0; i < 190; ++i) ok += "^-1";
  for (int i = 0; i < kLong; ++i) ok += " | po";
  const auto model = std::make_shared<const cat::Model>(parse(ok));
  const LitmusTest t =
      parse_litmus_file(std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/MP.litmus");
  EngineOptions o;
  o.observe_all = true;
  o.user_model = model;
  const TestResult z = run_z3(t, o), en = run_enum(t, o);
  REQUIRE_FALSE(z.error);
  REQUIRE_FALSE(en.error);
  CHECK(z.outcomes.size() == 4);
  CHECK(testing::render_outcomes(z) == testing::render_outcomes(en));
}

// A `let rec` is the least fixed point, computed by iterating from empty;
// with a name of the group under `~` or right of `\` the iteration need not
// end (`let rec r = ~r` alternated forever under enum and auto).
TEST_CASE("cat: a non-monotone let rec is a located error", "[model]") {
  CHECK(error_of([] { parse("\"t\"\nlet rec r = ~r\n"); }) ==
        "m.cat:2:14: error: 'r' is defined by this 'let rec' and occurs here in a non-monotone "
        "position (under '~' or on the right of '\\'): its least fixed point may not exist");
  CHECK_THAT(error_of([] { parse("\"t\"\nlet rec r = po \\ (rf | r ; r)\n"); }),
             Catch::StartsWith("m.cat:2:24: error: 'r' is defined by this 'let rec'"));
  CHECK_THAT(error_of([] { parse("\"t\"\nlet rec a = po | b\nand b = rf \\ a\n"); }),
             Catch::StartsWith("m.cat:3:14: error: 'a' is defined by this 'let rec'"));
  CHECK_THAT(error_of([] { parse("\"t\"\nlet rec r = po \\ (po \\ ~r)\n"); }),
             Catch::StartsWith("m.cat:2:25: error: 'r'"));
  // Monotone: twice negated, the left of `\`, names bound earlier.
  CHECK(error_of([] { parse("\"t\"\nlet rec r = po | ~~r ; r \\ rf\n"); }).empty());
  CHECK(error_of([] { parse("\"t\"\nlet rec r = po \\ (rf \\ r)\nlet s = ~r\n"); }).empty());
  // The fixed point checks the budget every round.
  const cat::Model m = parse("\"t\"\nlet rec r = po | r ; r\nacyclic r\n");
  Budget b(BudgetLimits{60, 0});
  cat::Evaluator ev(
      m, 3, {}, [](std::string_view) { return true; }, &b);
  ev.rel("po").set(0, 1);
  b.stop(BudgetKind::Timeout);
  CHECK_THROWS_AS(ev.update(0), BudgetExceeded);
}

// One n x n relation per `let`: 2,000 lets over 1,500 events are 560 MB,
// charged to the budget before they are allocated; past 10,000 names a
// model is refused where it is written.
TEST_CASE("cat: the evaluator's relations are charged to the budget", "[model]") {
  std::string text = "\"t\"\nlet a0 = po\n";
  for (int i = 1; i < 2000; ++i) text += fmt::format("let a{} = a{}\n", i, i - 1);
  const cat::Model m = parse(text);
  Budget b(BudgetLimits{0, resident_mb() + 100});
  try {
    cat::Evaluator ev(
        m, 1500, {}, [](std::string_view) { return true; }, &b);
    FAIL("560 MB allocated under a 100 MB budget");
  } catch (const BudgetExceeded& e) {
    CHECK(e.kind() == BudgetKind::Memory);
  }
  std::string many = "\"t\"\n";
  for (int i = 0; i <= 10'000; ++i) many += fmt::format("let a{} = po\n", i);
  CHECK(error_of([&] { parse(many); }) ==
        "m.cat:10002:5: error: more than 10000 names bound by 'let' in one model");
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
             Catch::Contains("cannot read cat model: No such file or directory"));
  fs::remove_all(dir);
}

namespace {

// Every operator of the subset, in checks that are no memory model: only
// that the two evaluators (z3: symbolic, enum: bits) read them alike.
constexpr const char* kOperators = R"("operators"
let fr = rf^-1 ; co
let ms = (int | (ext & loc)) \ id
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

// A `let rec` group: the enumerator iterates it to its fixed point on bits,
// Z3 unrolls it (SymbolicModel::recursive); both read it alike.
TEST_CASE("z3 and enum evaluate `let rec` alike", "[model]") {
  const auto model = std::make_shared<const cat::Model>(
      cat::parse_cat("\"rec\"\nlet rec obs = (rf & ext) | (obs ; rmw ; obs)\n"
                     "and hb = po | obs | (hb ; hb)\nacyclic hb | (co & ext) as Hb\n"
                     "irreflexive (rf^-1 ; co) ; hb as Fr\n"
                     "acyclic po-loc | rf | co | (rf^-1 ; co) as Sc-per-loc\n",
                     "rec.cat", cat::ptx_primitives()));
  std::size_t compared = 0;
  for (const char* dir : {"classic", "atom"})
    for (const std::string& f :
         collect_litmus_files({std::string(REDSCOPE_SOURCE_DIR) + "/litmus/" + dir})) {
      const LitmusTest t = parse_litmus_file(f);
      EngineOptions o;
      o.user_model = model;
      o.enum_limit = 200'000;
      const TestResult e = run_enum(t, o);
      if (e.error) continue;  // too large for the enumerator
      const TestResult z = run_z3(t, o);
      INFO(f);
      REQUIRE_FALSE(z.error);
      CHECK(testing::render_outcomes(z) == testing::render_outcomes(e));
      ++compared;
    }
  CHECK(compared > 40);
}

// The litmus lexer holds a file's tokens at about 48 bytes each (70 while
// the list grows): 6 MB of `;` took 410 MB under --max-memory 100. Past 2^20
// tokens (75 MB) a file is refused where it is (src/frontend/lexer.cpp).
TEST_CASE("frontend: a litmus file of more than 2^20 tokens is a located error", "[frontend]") {
  std::ifstream in(std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/MP.litmus");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("exists");
  REQUIRE(at != std::string::npos);
  text.insert(at, std::string(1'200'000, ';') + "\n");
  CHECK_THAT(error_of([&] { (void)parse_litmus(text, "big.litmus"); }),
             Catch::Matches("big\\.litmus:1[0-9]:[0-9]+: error: more than 1048576 tokens in one "
                            "file: is it a litmus test\\?"));
}

// models/ptx.cat defines morally strong in cat (issue 32); the engines read
// it through cat::model_ms. On every skeleton of every suite test it is the
// PTX rule that explanations put into words (cat::morally_strong).
TEST_CASE("ms as models/ptx.cat defines it is the PTX rule on every suite test", "[model]") {
  std::size_t pairs = 0;
  for (const std::string& f : testing::suite_files()) {
    const LitmusTest t = parse_litmus_file(f);
    if (t.program) continue;  // a program with its own semantics: no events
    const Expansion ex = expand(t, ExpandOptions{});
    for (const Skeleton& sk : ex.skeletons) {
      const cat::StaticPrimitives p = cat::static_primitives(sk, cat::builtin_ptx(), {"sm6x"});
      INFO(f);
      for (EventId a = 0; a < sk.size(); ++a)
        for (EventId b = 0; b < sk.size(); ++b) {
          REQUIRE(p.ms.has(a, b) == cat::morally_strong(sk, a, b));
          ++pairs;
        }
    }
  }
  CHECK(pairs > 10'000);
}

// The engines take a model's own static `ms` (the Fence-SC pairs, the
// shortcuts); a model that binds none gets models/ptx.cat's, and one that
// binds it from the execution (rf) is not static: ptx.cat's again.
TEST_CASE("cat::model_ms reads the model's last static binding of ms", "[model]") {
  const LitmusTest t = parse_litmus_file(std::string(REDSCOPE_SOURCE_DIR) +
                                         "/litmus/classic/SB+fence.sc-cta-2cta.litmus");
  const Expansion ex = expand(t, ExpandOptions{});
  const Skeleton& sk = ex.skeletons.at(0);
  const cat::StaticPrimitives p = cat::static_primitives(sk);
  const std::size_t n = sk.size();
  const BitRel ptx = cat::model_ms(cat::builtin_ptx(), {}, p, n);
  const cat::Model none = parse("\"t\"\nacyclic po | rf\n");
  CHECK(cat::model_ms(none, {}, p, n) == ptx);
  const cat::Model own = parse("\"t\"\nlet ms = po\nlet ms = ext\nacyclic ms\n");
  CHECK(cat::model_ms(own, {}, p, n) == p.rel("ext"));
  const cat::Model dynamic = parse("\"t\"\nlet ms = ext\nlet ms = rf\nacyclic ms\n");
  CHECK(cat::model_ms(dynamic, {}, p, n) == ptx);
}

namespace {

cat::Shortcuts shortcuts_of(const cat::Model& m, std::string_view off = "") {
  return cat::shortcuts(m, [off](std::string_view n) { return n != off; });
}

}  // namespace

// Shortcuts follow the checks' definitions, not a flag of the built-in
// models: a user's copy of models/ptx.cat (its axioms renamed) gets them, a
// model without those checks (Dat3M's, or ptx.cat less Coherence) does not.
TEST_CASE("cat::shortcuts recognise Coherence and SC-per-Location by their shape", "[model]") {
  const cat::Shortcuts built = shortcuts_of(cat::builtin_ptx());
  CHECK(built.ms_writes_ordered);
  CHECK(built.own_writes_in_po);
  CHECK(built.no_thin_air);
  CHECK_FALSE(shortcuts_of(cat::builtin_ptx(), "Coherence").ms_writes_ordered);
  CHECK_FALSE(shortcuts_of(cat::builtin_ptx(), "Coherence").own_writes_in_po);
  CHECK(shortcuts_of(cat::builtin_ptx(), "SC-per-Location").ms_writes_ordered);
  CHECK_FALSE(shortcuts_of(cat::builtin_ptx(), "SC-per-Location").own_writes_in_po);

  std::ifstream in(std::string(REDSCOPE_SOURCE_DIR) + "/models/ptx.cat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const std::size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  const cat::Model copy = parse(replaced(" as Coherence\n", " as Mine\n"));
  CHECK(shortcuts_of(copy).own_writes_in_po);
  CHECK(shortcuts_of(copy, "Coherence").own_writes_in_po);  // the check is named Mine now
  CHECK_FALSE(shortcuts_of(copy, "Mine").ms_writes_ordered);
  const cat::Model no_coherence = parse(replaced("empty coherence_bad as Coherence\n", ""));
  CHECK_FALSE(shortcuts_of(no_coherence).ms_writes_ordered);
  CHECK_FALSE(shortcuts_of(no_coherence).own_writes_in_po);
  // Coherence over another relation than the engines' ms: no shortcut.
  const cat::Model other_ms =
      parse(replaced("([WRITES] ; ms ; [WRITES])", "([WRITES] ; ext ; [WRITES])"));
  CHECK_FALSE(shortcuts_of(other_ms).ms_writes_ordered);
  // SC-per-Location without co: Coherence's shortcut only.
  const cat::Model no_co = parse(replaced("((rf | co | fr) & ms)", "((rf | fr) & ms)"));
  CHECK(shortcuts_of(no_co).ms_writes_ordered);
  CHECK_FALSE(shortcuts_of(no_co).own_writes_in_po);

  const std::string dat3m = std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx/cat/";
  for (const char* f : {"ptx-v6.0.cat", "ptx-v7.5.cat"}) {
    if (!fs::exists(dat3m + f)) continue;
    INFO(f);
    const cat::Shortcuts d = shortcuts_of(cat::load_cat(dat3m + f));
    CHECK_FALSE(d.ms_writes_ordered);
    CHECK_FALSE(d.own_writes_in_po);
    CHECK(d.no_thin_air);
  }
}

// Explanations speak of ptx.cat's ms in the PTX rule's words
// (cat::ms_words); a model's own ms, defined otherwise, is not that binding.
TEST_CASE("cat::defines_ptx_ms recognises models/ptx.cat's definition of ms", "[model]") {
  auto last_ms = [](const cat::Model& m) {
    std::size_t at = m.slots.size();
    for (std::size_t i = 0; i < m.slots.size(); ++i)
      if (m.slots[i].name == "ms" && !m.slots[i].primitive) at = i;
    return at;
  };
  CHECK(cat::defines_ptx_ms(cat::builtin_ptx(), last_ms(cat::builtin_ptx())));
  const std::string_view text = cat::builtin_ptx_model();
  const cat::Model copy = parse(std::string(text));
  CHECK(cat::defines_ptx_ms(copy, last_ms(copy)));
  const cat::Model other = parse(std::string(text) + "\nlet ms = ms \\ ext\n");
  CHECK_FALSE(cat::defines_ptx_ms(other, last_ms(other)));
  const cat::Model mine = parse("\"t\"\nlet ms = (int | ext) \\ id\n");
  CHECK_FALSE(cat::defines_ptx_ms(mine, last_ms(mine)));
}

}  // namespace unit_model
