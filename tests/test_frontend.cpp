// Parser: the accepted syntax (Dat3M shorthand and real PTX) and diagnostics.
#include <catch2/catch.hpp>

#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/text_cursor.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_frontend {

using namespace redscope;

namespace {

LitmusTest parse(const std::string& body, const std::string& cond = "exists (P0:r0 == 0)") {
  return parse_litmus("PTX t\n{ x=0; y=0; }\n" + body + cond + "\n", "t.litmus");
}

// The diagnostic for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_litmus(text, "t.litmus");
  } catch (const InputError& e) {
    return e.diagnostic().render();
  }
  return "";
}

}  // namespace

TEST_CASE("Dat3M shorthand: placement, init, qualifiers", "[frontend]") {
  const LitmusTest t = parse_litmus(R"(PTX MP
"comment with // and (* inside"
{
x=0; y=0;
P1:r0=0;
}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;
 st.weak x, 1        | ld.acquire.gpu r0, y  ;
 st.release.gpu y, 1 | ld.weak r1, x         ;
exists (P1:r0 == 1 /\ P1:r1 != 1)
)",
                                    "mp.litmus");
  REQUIRE(t.name == "MP");
  REQUIRE(t.threads.size() == 2);
  CHECK(t.threads[1].place.cta == 1);
  CHECK(t.threads[0].place.cluster != t.threads[1].place.cluster);  // each CTA its own cluster
  REQUIRE(t.threads[0].code.size() == 2);
  const Instruction& st = t.threads[0].code[1];
  CHECK(st.kind == InstrKind::Store);
  CHECK(st.sem == Sem::Release);
  CHECK(st.scope == Scope::Gpu);
  CHECK(st.type == DataType::S32);  // untyped Dat3M = .s32
  CHECK(t.threads[1].code[1].sem == Sem::Weak);
  CHECK(t.quantifier == Quantifier::Exists);
  CHECK(t.condition.kind == CondExpr::Kind::And);
  CHECK(t.target_sm == 90);
}

TEST_CASE("real PTX syntax: any qualifier order, brackets, types, spaces", "[frontend]") {
  const LitmusTest t = parse(
      " P0@cta 0,cluster 3,gpu 1 ;\n"
      " red.relaxed.gpu.global.add.u32 [x], 1 ;\n"
      " red.global.add.u32 [x],1 ;\n"
      " atom.add.acq_rel.sys.u64 r0, [y], 2 ;\n"
      " ld.shared::cta.relaxed.cta.b32 r1, [x] ;\n");
  const auto& c = t.threads[0].code;
  CHECK(t.threads[0].place.cluster == 3);
  CHECK(t.threads[0].place.gpu == 1);
  CHECK(c[0].kind == InstrKind::Red);
  CHECK(c[0].sem == Sem::Relaxed);
  CHECK(c[0].space == Space::Global);
  CHECK(c[0].type == DataType::U32);
  CHECK(c[1].sem == Sem::Relaxed);  // default .sem of red
  CHECK(c[1].scope == Scope::Gpu);  // default .scope of red
  CHECK(c[2].sem == Sem::AcqRel);
  CHECK(c[2].type == DataType::U64);
  CHECK(c[3].space == Space::SharedCta);
}

TEST_CASE("metadata, Target, locations, filter, forall and ~exists", "[frontend]") {
  const LitmusTest t = parse_litmus(R"(PTX meta
Target=sm_60
Author = someone
{ x=0; }
 P0 ;
 ld.weak r0, x ;
locations [x; P0:r0;]
filter (x == 0)
~exists (0:r0 = 1 \/ ~(x == 0))
)",
                                    "m.litmus");
  CHECK(t.target_sm == 60);
  CHECK(t.metadata.at("Author") == "someone");
  CHECK(t.locations.size() == 2);
  CHECK(t.filter.has_value());
  CHECK(t.quantifier == Quantifier::NotExists);
  CHECK(t.threads[0].place.cta == 0);  // no placement: CTA = thread index
}

TEST_CASE("labels, branches and local operations", "[frontend]") {
  const LitmusTest t = parse(
      " P0@cta 0,gpu 0 ;\n LC00: ;\n ld.weak r0, x ;\n add r0, r0, 1 ;\n bne r0, 2, LC00 ;\n goto "
      "LC01 ;\n LC01: ;\n ld r2, 5 ;\n");
  const auto& tc = t.threads[0];
  CHECK(tc.labels.at("LC00") == 0);
  CHECK(tc.code[2].kind == InstrKind::Local);
  CHECK(tc.code[3].kind == InstrKind::Branch);
  CHECK(tc.code[3].cmp == CmpOp::Ne);
  CHECK(tc.code[6].kind == InstrKind::Local);  // `ld r2, 5` is a move
}

TEST_CASE("diagnostics carry file:line:col and name the rule", "[frontend]") {
  const std::string head = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n";
  CHECK(error_of(head + " frob r0, x ;\nexists (P0:r0 == 0)") ==
        "t.litmus:4:2: error: unknown instruction 'frob'");
  CHECK_THAT(error_of(head + " st.weak x ;\nexists (x == 0)"),
             Catch::Contains("t.litmus:4:12: error: 'st.weak' takes operands"));
  CHECK(error_of(head + " ld.weak r0, x ;\nexists (P0:r9 == 0)") ==
        "t.litmus:5:9: error: register P0:r9 is neither initialised nor written by P0");
  CHECK_THAT(error_of("PTX t\n{ x=0;\n"), Catch::Contains("unterminated init block"));
  CHECK_THAT(error_of(head + " st.acquire.gpu x, 1 ;\nexists (x == 0)"),
             Catch::Contains("st does not take .acquire"));
  CHECK_THAT(error_of(head + " red.acquire.gpu.add x, 1 ;\nexists (x == 0)"),
             Catch::Contains("contradicts its own table"));
  CHECK_THAT(error_of(head + " red.gpu.add r0, x, 1 ;\nexists (x == 0)"),
             Catch::Contains("red has no destination operand"));
  CHECK_THAT(error_of(head + " ld.relaxed r0, x ;\nexists (x == 0)"),
             Catch::Contains("needs a scope"));
  CHECK(error_of(head + " fence.proxy.tensormap ;\nexists (x == 0)") ==
        "t.litmus:4:14: error: proxy fence kind '.tensormap' is not supported (alias, surface, "
        "texture, constant, async)");
  CHECK_THAT(error_of(head + " tld.relaxed.gpu r0, x ;\nexists (x == 0)"),
             Catch::Contains("read-only texture path: weak loads only"));
  CHECK_THAT(error_of(head + " goto LC09 ;\nexists (x == 0)"),
             Catch::Contains("label 'LC09' is not defined"));
  CHECK_THAT(error_of(head + " ld.weak r0, x | ld.weak r1, x ;\nexists (x == 0)"),
             Catch::Contains("only 1 thread(s) declared"));
  CHECK_THAT(error_of(head + " ld.weak r0, x ;\nexists (P0:r0 == 0) junk"),
             Catch::Contains("after the final condition"));
  CHECK_THAT(error_of("PTX t\nTarget=gpu9\n{ x=0; }\n"),
             Catch::Contains("t.litmus:2:8: error: Target must look like sm_90"));
  CHECK_THAT(error_of("X86 t\n{ }\n"), Catch::Contains("unsupported architecture"));
  CHECK_THAT(error_of(head + " bar.sync 0, 64 ;\nexists (x == 0)"),
             Catch::Contains("not supported yet"));
}

TEST_CASE("a quoted header comment may contain braces", "[frontend]") {
  const LitmusTest t = parse_litmus(
      "PTX q\n\"values {1, 2} + {0.5}\"\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists "
      "(P0:r0 == 0)\n",
      "q.litmus");
  CHECK(t.name == "q");
  CHECK(t.threads.size() == 1);
}

// Conditions come from the input: their depth must not be the input's choice
// (every walk over a condition recurses). Long /\ and \/ chains are flat.
TEST_CASE("conditions: depth is bounded, long chains are flat", "[frontend]") {
  const std::string head = "PTX c\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists ";
  const std::string deep = std::string(100000, '(') + "P0:r0 == 0" + std::string(100000, ')');
  CHECK_THAT(error_of(head + deep + "\n"),
             Catch::Contains("5:264: error: condition nested deeper than 256 levels"));
  CHECK_THAT(error_of(head + std::string(100000, '~') + "P0:r0 == 0\n"),
             Catch::Contains("condition nested deeper than 256"));
  std::string chain = "P0:r0 == 0";
  for (int i = 0; i < 100000; ++i) chain += " /\\ P0:r0 == 0";
  const LitmusTest t = parse_litmus(head + "(" + chain + ")\n", "c.litmus");
  CHECK(t.condition.kind == CondExpr::Kind::And);
  CHECK(t.condition.kids.size() == 100001);
  const std::string ok = std::string(200, '(') + "P0:r0 == 0" + std::string(200, ')');
  CHECK(parse_litmus(head + ok + "\n", "c.litmus").condition.kind == CondExpr::Kind::Cmp);
}

// Real PTX cache operators are performance hints: accepted in the weak forms
// PTX writes them in, with no effect on outcomes (PTX §9.7.9.8, §9.7.9.9).
TEST_CASE("cache operators and ld.global.nc are accepted hints", "[frontend]") {
  const std::string head = "PTX c\n{ global u32 x = 1; }\n P0@cta 0,gpu 0 ;\n";
  for (const char* ins : {"ld.global.ca.u32 r0, [x]", "ld.cg.u32 r0, [x]",
                          "ld.global.cs.u32 r0, [x]", "ld.lu.u32 r0, [x]", "ld.cv.u32 r0, [x]",
                          "ld.global.nc.u32 r0, [x]", "ld.weak.global.ca.nc.u32 r0, [x]"}) {
    INFO(ins);
    const LitmusTest t = parse_litmus(head + " " + ins + " ;\nexists (P0:r0 == 1)\n", "c.litmus");
    CHECK(t.threads[0].code[0].kind == InstrKind::Load);
    CHECK(t.threads[0].code[0].sem == Sem::Weak);
  }
  for (const char* ins :
       {"st.global.wb.u32 [x], 1", "st.cg.u32 [x], 1", "st.cs.u32 [x], 1", "st.wt.u32 [x], 1"}) {
    INFO(ins);
    CHECK(parse_litmus(head + " " + ins + " ;\nexists (x == 1)\n", "c.litmus")
              .threads[0]
              .code[0]
              .kind == InstrKind::Store);
  }
  CHECK_THAT(
      error_of(head + " st.ca.u32 [x], 1 ;\nexists (x == 1)\n"),
      Catch::Contains("4:5: error: st takes the cache operators .wb, .cg, .cs, .wt, not .ca"));
  CHECK_THAT(error_of(head + " ld.relaxed.gpu.cg.u32 r0, [x] ;\nexists (P0:r0 == 1)\n"),
             Catch::Contains("go with weak lds only"));
  CHECK_THAT(error_of(head + " ld.nc.u32 r0, [x] ;\nexists (P0:r0 == 1)\n"),
             Catch::Contains("write ld.global.nc"));
}

// Each instruction takes exactly the qualifier classes of its PTX syntax
// (PTX §9.7.9.8 ld, §9.7.9.9 st, §9.7.13.4 fence, §9.7.13.5 atom, §9.7.13.6
// red, §9.7.7.1 setp); a class it does not take is an error at the qualifier.
TEST_CASE("qualifier classes: each instruction takes only its own", "[frontend]") {
  const std::string head = "PTX q\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 ;\n";
  auto err = [&](const std::string& ins) {
    return error_of(head + " " + ins + " ;\nexists (x == 0)\n");
  };
  CHECK(err("ld.relaxed.gpu.exch.u32 r0, [x]") ==
        "t.litmus:4:17: error: 'ld' does not take an operation qualifier ('.exch')");
  CHECK(err("st.weak.min.u32 [x], 1") ==
        "t.litmus:4:10: error: 'st' does not take an operation qualifier ('.min')");
  CHECK(err("fence.sc.xor.gpu") ==
        "t.litmus:4:11: error: 'fence' does not take an operation qualifier ('.xor')");
  CHECK(err("fence.sc.cg.gpu") ==
        "t.litmus:4:11: error: 'fence' does not take a cache-operator qualifier ('.cg')");
  CHECK(err("atom.cg.gpu.add.u32 r0, [x], 1") ==
        "t.litmus:4:7: error: 'atom' does not take a cache-operator qualifier ('.cg')");
  CHECK(err("red.gpu.global.wb.add.u32 [x], 1") ==
        "t.litmus:4:17: error: 'red' does not take a cache-operator qualifier ('.wb')");
  CHECK(err("red.gpu.global.nc.add.u32 [x], 1") ==
        "t.litmus:4:17: error: 'red' does not take a '.nc' qualifier ('.nc')");
  CHECK(err("st.global.nc.u32 [x], 1") ==
        "t.litmus:4:12: error: 'st' does not take a '.nc' qualifier ('.nc')");
  CHECK(err("fence.sc.gpu.u32") ==
        "t.litmus:4:15: error: 'fence' does not take a type qualifier ('.u32')");
  CHECK(err("setp.eq.add.s32 p, 1, 1") ==
        "t.litmus:4:10: error: 'setp' does not take an operation qualifier ('.add')");
  CHECK(err("add.gpu.s32 r0, 1, 1") ==
        "t.litmus:4:6: error: 'add' does not take a scope qualifier ('.gpu')");
  CHECK(err("ld.global.noftz.u32 r0, [x]") ==
        "t.litmus:4:12: error: 'ld' does not take a '.noftz' qualifier ('.noftz')");
  // Every class each instruction does take is still accepted.
  for (const char* ok :
       {"ld.relaxed.gpu.global.L2::cache_hint.v2.u32 {r0, r1}, [x], r2",
        "ld.weak.global.cg.nc.u32 r0, [x]", "st.release.gpu.global.v2.u32 [x], {1, 2}",
        "atom.acq_rel.gpu.global.add.noftz.f16 r0, [h], r3",
        "red.relaxed.sys.global.max.u32 [x], 1", "fence.acq_rel.cluster", "setp.lo.u32 p, 1, 2"}) {
    INFO(ok);
    const std::string init = "{ global u32 x = 0; global f16 h = 0.0; P0:r2 = 0; P0:r3 = 1.0; }";
    const std::string text = "PTX q\n" + init + "\n P0@cta 0,gpu 0 ;\n " + ok + " ;\n";
    CHECK(error_of(text + "exists (x == 0)\n") == "");
  }
}

// Immediates and type tables as ptxas 13.0 reads them (issue 29; each case
// was assembled with ptxas: "Arguments mismatch", "Unknown symbol 'inf'",
// "Operation .add requires .u32 or .s32 or .u64 ...", a syntax error).
TEST_CASE("immediates as PTX spells them; red/atom types as ptxas takes them", "[frontend]") {
  const std::string head =
      "PTX q\n{ global u32 x = 0; P0:%h = 0x3c00; P0:%hh = 0x3c003c00; P0:%f = 1.5; }\n"
      " P0@cta 0,gpu 0 ;\n";
  auto err = [&](const std::string& ins) {
    return error_of(head + " " + ins + " ;\nexists (x == 0)\n");
  };
  // Half-precision values come from registers.
  for (const char* bad :
       {"red.global.add.noftz.f16 [x], 1.0", "red.global.add.noftz.bf16 [x], 0x3f80",
        "red.global.add.noftz.f16x2 [x], 0x3c003c00", "atom.global.add.noftz.bf16x2 r0, [x], 0",
        "red.global.v2.f16.min.noftz [x], {%h, 1.0}", "setp.eq.f16 p, %h, 1.0"}) {
    INFO(bad);
    CHECK_THAT(err(bad), Catch::Contains("half-precision operands come from registers"));
  }
  for (const char* ok :
       {"red.global.add.noftz.f16 [x], %h", "red.global.add.noftz.f16x2 [x], %hh",
        "red.global.v2.f16.min.noftz [x], {%h, %h}", "red.global.add.f32 [x], %f"}) {
    INFO(ok);
    CHECK(err(ok) == "");
  }
  // A .f32/.f64 immediate is a float literal: a point, an exponent, or 0f/0d bits.
  for (const char* ok : {"red.global.add.f32 [x], 1.0", "red.global.add.f32 [x], -1e8",
                         "red.global.add.f32 [x], 0f80000001", "red.global.add.f32 [x], 0F3F800000",
                         "red.global.add.f64 [x], 0d0000000000000001", "st.global.f32 [x], -0.0",
                         "mov.f32 %g, 1.5"}) {
    INFO(ok);
    CHECK(err(ok) == "");
  }
  CHECK(err("red.global.add.f32 [x], 0x80000001") ==
        "t.litmus:4:26: error: '0x80000001' is an integer, not a .f32 immediate (PTX ISA §4.5.2: "
        "float bits are written 0fXXXXXXXX; ptxas: \"Arguments mismatch\"): write 0f80000001");
  CHECK_THAT(err("red.global.add.f64 [x], 0x1"), Catch::Contains("write 0d0000000000000001"));
  CHECK_THAT(
      err("red.global.add.f32 [x], 1"),
      Catch::Contains("'1' is an integer, not a .f32 immediate") && Catch::Contains("write 1.0"));
  CHECK_THAT(err("setp.lt.f32 p, %f, 2"), Catch::Contains("'2' is an integer"));
  CHECK_THAT(err("st.global.f32 [x], 7"), Catch::Contains("'7' is an integer"));
  CHECK(err("red.global.add.f32 [x], -inf") ==
        "t.litmus:4:26: error: '-inf' is not a PTX literal (PTX ISA §4.5.2 has no inf or nan; "
        "ptxas: \"Unknown symbol\"): write its bits, 0fFF800000");
  CHECK_THAT(err("red.global.add.f32 [x], nan"), Catch::Contains("write its bits, 0f7FFFFFFF"));
  CHECK_THAT(err("red.global.add.f32 [x], -0f3F800000"), Catch::Contains("takes no sign"));
  CHECK_THAT(err("red.global.add.f32 [x], 0f3F8000"),
             Catch::Contains("a 0f literal has exactly 8 hexadecimal digits"));
  // Integer types keep their literals, hexadecimal and negative ones included.
  for (const char* ok : {"red.global.add.u32 [x], 0xffffffff", "red.global.add.u32 [x], -1",
                         "red.global.and.b32 [x], 0x0f", "atom.global.cas.b32 r0, [x], 0, 1"}) {
    INFO(ok);
    CHECK(err(ok) == "");
  }
  // .add has no .s64; .inc/.dec take .u32 only.
  CHECK_THAT(err("red.global.add.s64 [x], 1"),
             Catch::StartsWith("t.litmus:4:17: error: red.add does not take .s64"));
  CHECK_THAT(err("atom.global.add.s64 r0, [x], 1"), Catch::Contains("atom.add does not take .s64"));
  CHECK(err("red.global.add.u64 [x], 1") == "");
  CHECK(err("red.global.min.s64 [x], 1") == "");
  CHECK_THAT(err("red.global.inc.u64 [x], 1"), Catch::Contains(".inc takes only .u32"));
  CHECK_THAT(err("atom.global.dec.u64 r0, [x], 1"), Catch::Contains(".dec takes only .u32"));
  CHECK(err("atom.global.inc.u32 r0, [x], 1") == "");
  CHECK_THAT(err("atom.global.cas.b16 r0, [x], 0, 1"), Catch::Contains("not supported yet"));
  // ld, st and mov move halves as bits: .b16, .b32.
  CHECK(err("ld.global.f16 r0, [x]") ==
        "t.litmus:4:12: error: ld takes no .f16: PTX moves half-precision values as .b16 (its type "
        "list has no .f16, .bf16 or packed pair; ptxas: \"Unexpected instruction types\"); a "
        "location declared f16 still prints as one");
  CHECK_THAT(err("st.global.bf16x2 [x], %hh"), Catch::Contains("st takes no .bf16x2"));
  CHECK_THAT(err("ld.relaxed.gpu.global.v2.f16x2 {r0, r1}, [x]"), Catch::Contains("as .b32"));
  CHECK_THAT(err("mov.bf16 r0, %h"), Catch::Contains("mov takes no .bf16"));
  for (const char* ok : {"ld.global.b16 r0, [x]", "st.global.b32 [x], %hh", "mov.b16 r0, %h",
                         "ld.global.f32 r0, [x]", "setp.eq.bf16 p, %h, %h"}) {
    INFO(ok);
    CHECK(err(ok) == "");
  }
}

// File discovery asks the dialect registry which files are tests.
TEST_CASE(
    "dialect registry: *.litmus is PTX, SASS, CUDA, C or PTO litmus, *.test is NVIDIA's "
    "format",
    "[frontend]") {
  REQUIRE(dialects().size() == 6);
  CHECK(dialects()[0].name == "ptx-litmus");
  CHECK(dialects()[1].name == "nvidia-test");
  CHECK(dialects()[2].name == "sass-litmus");
  CHECK(dialects()[3].name == "cuda-litmus");
  CHECK(dialects()[4].name == "c-litmus");
  CHECK(dialects()[5].name == "pto-litmus");
  CHECK(dialect_for("dir/C01.litmus", "C C01\n")->name == "c-litmus");
  CHECK(dialect_for("dir/sum.litmus", "// c\nPTO sum\n")->name == "pto-litmus");
  CHECK(dialect_for("dir/MP.litmus", "CUDA MP\n")->name == "cuda-litmus");
  CHECK(accepted_files() == ".litmus or .test");
  REQUIRE(dialect_for("dir/MP.litmus", "SASS MP\n") != nullptr);
  CHECK(dialect_for("dir/MP.litmus", "SASS MP\n")->name == "sass-litmus");
  CHECK(dialect_for("dir/MP.litmus", "")->name == "ptx-litmus");
  REQUIRE(dialect_for("dir/MP.test", "") != nullptr);
  CHECK(dialect_for("dir/MP.test", "")->name == "nvidia-test");
  const Dialect* d = dialect_for("dir/MP.litmus", "PTX MP\n");
  REQUIRE(d != nullptr);
  CHECK(d->name == "ptx-litmus");
  CHECK(dialect_for("dir/expected.csv", "MP.litmus,1\n") == nullptr);
  CHECK(dialect_for("dir/README", "") == nullptr);
  const std::string text = "PTX t\n{ x=0; }\n P0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
  const std::vector<LitmusTest> tests = d->parse(text, "t.litmus");
  REQUIRE(tests.size() == 1);
  CHECK(tests[0].name == "t");
}

// Issue 32, item 1: the registry decides who reads a file (a dialect that
// names its first word before one that takes any file of its extension),
// which semantics a test has, and its default model; the model table names
// the built-in models.
TEST_CASE("registry: claims by rule, semantics and default model by row; the model table",
          "[frontend][registry]") {
  // ptx-litmus is listed first but takes any .litmus file: it comes last.
  CHECK(dialects()[0].first_word.empty());
  CHECK(dialect_for("a.litmus", "(* c *) SASS t\n")->name == "sass-litmus");
  CHECK(dialect_for("a.litmus", "sass t\n")->name == "sass-litmus");
  CHECK(dialect_for("a.litmus", "SASSY t\n")->name == "ptx-litmus");
  CHECK(dialect_for("a.litmus", "PTO")->name == "ptx-litmus");  // no blank after the word
  // Each row's semantics: event graphs with model axioms, or PTO's exact pair.
  const std::string sass =
      "SASS s\n{ x = 0; P0:R2 = x; P0:R3 = 1; }\n P0@cta 0,gpu 0 ;\n ST.E [R2], R3 ;\n"
      "exists (x == 1)\n";
  const LitmusTest s = dialect_for("s.litmus", sass)->parse(sass, "s.litmus").front();
  REQUIRE(s.default_model != nullptr);
  CHECK(s.default_model->name == "sass-sm30");
  CHECK(model_for_test(s)->name == "sass-sm30");
  CHECK(semantics_of(s).has_model_axioms());
  CHECK(semantics_of(s).formulations().via == "lowering to PTX events");
  LitmusTest p = s;
  p.arch = "PTX";
  p.default_model = nullptr;
  CHECK(semantics_of(p).formulations().via.empty());
  p.arch = "PTO";
  CHECK(semantics_of(p).formulations().exact);
  CHECK_FALSE(semantics_of(p).has_model_axioms());
  // The PTO row's option and command.
  const SemanticsOption* order = semantics_option("--pto-order");
  REQUIRE(order != nullptr);
  CHECK(order->values_text() == "tree, sequential or both");
  CHECK(semantics_option("--unroll") == nullptr);
  CHECK(dialect_with_command("pto") != nullptr);
  CHECK(dialect_with_command("sass") != nullptr);
  CHECK(dialect_with_command("run") == nullptr);
  // The model table: names, variants and the targets each is the default of.
  CHECK(model_for_target(90)->name == "ptx");
  CHECK(model_for_target(70)->name == "ptx");
  CHECK(model_for_target(60)->name == "ptx-sm6x");
  REQUIRE(builtin_model_named("sass-sm30") != nullptr);
  CHECK(builtin_model_named("sass-sm30")->has_variant("sm6x"));
  CHECK_FALSE(builtin_model_named("ptx")->has_variant("sm6x"));
  CHECK(builtin_model_named("pto") == nullptr);  // PTO's model is its dialect's own
}

namespace {
// The error a .test text gives, rendered, or "" when it parses.
std::string nv_error(const std::string& text) {
  try {
    (void)dialects()[1].parse(text, "t.test");
  } catch (const InputError& e) {
    return e.diagnostic().render();
  }
  return "";
}

const std::string kNvTemplate = R"(.global x;
.surfref s virtually aliases x;
d0.b0.t0 {
  $0, 1;
  $1
  ld r0, [$2];
}
$3(r0 == 1) as r0;
$$
st [x]   |                      | x | permit
sust [s] | fence.proxy.surface; | x | assert
)";
}  // namespace

// NVIDIA's .test format (docs/litmus-format.md "NVIDIA .test files").
TEST_CASE(".test templates: one test per row, holes filled from the row's columns", "[frontend]") {
  const std::vector<LitmusTest> ts = dialects()[1].parse(kNvTemplate, "dir/t.test");
  REQUIRE(ts.size() == 2);
  CHECK(ts[0].name == "t#1");
  CHECK(ts[1].name == "t#2");
  CHECK(ts[0].quantifier == Quantifier::Permit);
  CHECK(ts[1].quantifier == Quantifier::Assert);
  CHECK(ts[1].threads[0].code.size() == 3);
  CHECK(ts[1].threads[0].code[0].proxy == Proxy::Surface);
  CHECK(ts[1].threads[0].code[1].kind == InstrKind::ProxyFence);
  CHECK(ts[1].threads[0].name == "d0.b0.t0");
  REQUIRE(ts[1].aliases.size() == 1);
  CHECK(ts[1].aliases[0].proxy == Proxy::Surface);
  CHECK(ts[0].condition_text == "r0 == 1");
  // One row alone, as FILE.test#N is checked: the same test, the others unparsed.
  REQUIRE(dialects()[1].parse_nth != nullptr);
  const std::optional<LitmusTest> second = dialects()[1].parse_nth(kNvTemplate, "dir/t.test", 2);
  REQUIRE(second);
  CHECK(second->name == "t#2");
  CHECK(second->quantifier == Quantifier::Assert);
  CHECK_FALSE(dialects()[1].parse_nth(kNvTemplate, "dir/t.test", 3));
  CHECK_FALSE(dialects()[1].parse_nth(kNvTemplate, "dir/t.test", 0));
}

TEST_CASE(".test bad input is a located error", "[frontend]") {
  // A row with the wrong number of columns: at the row.
  CHECK(nv_error(kNvTemplate + "st [x] | | x\n") ==
        "t.test:12:1: error: this row has 3 columns, the first row 4: every row fills the same "
        "holes");
  // A hole with no column: at the hole.
  std::string t = kNvTemplate;
  t.replace(t.find("$2"), 2, "$7");
  CHECK(nv_error(t) ==
        "t.test:6:11: error: hole $7 has no column: the table's rows have 4 (holes $0 to $3)");
  // An error inside a filled hole points at the row's cell.
  std::string bad = kNvTemplate;
  bad.replace(bad.find("sust [s]"), 8, "sust [q]");
  CHECK(nv_error(bad) == "t.test:11:7: error: 'q' is not declared (.global q;)");
  // An alias of an undeclared address, a claim on an unknown register.
  CHECK(nv_error(".global x;\n.texref t virtually aliases y;\nd0.b0.t0 { ld r0, [x]; }\n"
                 "permit(r0 == 0) as a;\n") ==
        "t.test:2:29: error: 't' aliases 'y', which is not declared before it");
  CHECK(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\npermit(r9 == 0) as a;\n") ==
        "t.test:3:8: error: the claim names register r9, which no thread writes");
  CHECK(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\nd0.b1.t0 { ld r0, [x]; }\n"
                 "permit(r0 == 0) as a;\n") ==
        "t.test:3:15: error: register r0 is already written by d0.b0.t0: registers name one "
        "thread's values");
  CHECK(nv_error(".global x;\nd0.b0.t0 { tld.relaxed.gpu r0, [x]; }\npermit(r0 == 0) as a;\n") ==
        "t.test:2:16: error: 'tld' reads through the read-only texture path: weak loads only");
  CHECK(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\n") ==
        "t.test:3:1: error: a .test file makes at least one claim: permit(...), assert(...) or "
        "check(...)");
  // Nesting is bounded as in litmus conditions; long chains are one node.
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\npermit(" + std::string(300, '(') +
                      "r0 == 0" + std::string(300, ')') + ") as a;\n"),
             Catch::Contains("nested deeper than 256 levels"));
  std::string chain = "r0 == 0";
  for (int i = 0; i < 5000; ++i) chain += " && r0 == 0";
  CHECK(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\npermit(" + chain + ") as a;\n").empty());
  CHECK(nv_error(".global x;\nd0.b0.t0 { ld r0, [x]; }\npermit(r0 == 0) as a;\n$$\n") ==
        "t.test:4:1: error: the '$$' table has no row");
}

TEST_CASE("Dat3M alias declarations: located errors", "[frontend]") {
  CHECK(error_of("PTX t\n{ x=0; y @ generic aliases z; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, y ;\n"
                 "exists (P0:r0 == 0)") ==
        "t.litmus:2:28: error: 'y' aliases 'z', which is not declared before it");
  CHECK_THAT(error_of("PTX t\n{ x=0; y @ cache aliases x; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, y ;\n"
                      "exists (P0:r0 == 0)"),
             Catch::Contains("unknown proxy 'cache'"));
}

// The lexer toolkit (redscope/frontend/text_cursor.hpp) every reader uses.
TEST_CASE("text cursor: positions, comments, strings, numbers, punctuation", "[frontend]") {
  const std::string file = "t.txt";
  TextCursor c("ab\n  (* x (* y *) *)\"s\"0x1fz 2.5e-3 ->", file, SourceLoc{3, 7});
  CHECK(c.take_while(is_alpha) == "ab");
  CHECK((c.loc().line == 3 && c.loc().col == 9));
  c.take_while(is_space);
  CHECK((c.loc().line == 4 && c.loc().col == 3));
  c.skip_block_comment("(*", "*)", true, "unterminated comment");
  CHECK(c.quoted(false) == "s");
  CHECK(c.number(false) == "0x1f");
  CHECK(c.peek() == 'z');
  c.advance(2);
  CHECK(c.number(false) == "2.5e-3");
  c.advance();
  static constexpr std::pair<std::string_view, int> kPunct[] = {{"->", 1}, {"-", 2}};
  const auto p = c.punctuation(kPunct);
  REQUIRE(p);
  CHECK(p->second == 1);
  CHECK(c.done());
  CHECK(TextCursor("0f3F800000", file).number(true) == "0f3F800000");
  CHECK(TextCursor("0f3F800000", file).number(false) == "0");
  CHECK(TextCursor("1e+x", file).number(false) == "1");

  TextCursor open("\n (* (* *)", file);
  open.advance(2);
  try {
    open.skip_block_comment("(*", "*)", true, "unterminated comment");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("t.txt:2:2: error: unterminated comment"));
  }
  TextCursor str("x \"ab\ncd\"", file);
  str.advance(2);
  CHECK_THROWS_WITH(TextCursor(str).quoted(false),
                    Catch::Matchers::Contains("t.txt:1:3: error: unterminated string"));
  CHECK(str.quoted(true) == "ab\ncd");

  CHECK(first_word_is("// c\n(* d *) SASS x", "SASS"));
  CHECK_FALSE(first_word_is("SASSY x", "SASS"));
  CHECK_FALSE(first_word_is("SASS", "SASS"));
  CHECK_FALSE(first_word_is("(* open SASS x", "SASS"));
}

// Issue 44 item 3: addresses held in registers in hand-written PTX, resolved
// to one location and offset (docs/litmus-format.md "Addresses in registers").
TEST_CASE("addresses in registers: mov of a location, add, DpAddr, computed coordinates",
          "[frontend]") {
  auto parse = [](const std::string& cells) {
    return parse_litmus(
        "PTX t\n{ x = 0; v[4] = {0, 0, 0, 0}; surface u32 s[8] = {0,0,0,0,0,0,0,0}; }\n"
        " P0@cta 0,gpu 0 ;\n" +
            cells + "exists (x == 0)\n",
        "t.litmus");
  };
  auto error = [&](const std::string& cells) {
    try {
      parse(cells);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // x's address, moved by 8 bytes: v+8 is v[2].
  LitmusTest t = parse(" mov.u64 r0, v ;\n add.u64 r1, r0, 4 ;\n st.u32 [r1+4], 1 ;\n");
  const Instruction& st = t.threads[0].code.back();
  REQUIRE(st.addr);
  CHECK(st.addr->kind == Operand::Kind::Loc);
  CHECK(st.addr->name == "v");
  CHECK(st.addr->offset == 8);
  // An address dependency: r2 = r0 - r0 is 0 whatever the load read.
  t = parse(
      " ld.u32 r0, [x] ;\n sub.s64 r2, r0, r0 ;\n mov.u64 r3, x ;\n add.u64 r4, r3, r2 ;\n"
      " ld.u32 r5, [r4] ;\n");
  CHECK(t.threads[0].code.back().addr->name == "x");
  // A computed surface coordinate: 2 + 2.
  t = parse(" mov.u32 r1, 2 ;\n add.u32 r2, r1, 2 ;\n sured.p.add.1d.b32.trap [s, {r2}], 5 ;\n");
  REQUIRE(t.threads[0].code.back().sured);
  CHECK(t.threads[0].code.back().sured->coords.at(0).kind == Operand::Kind::Imm);
  CHECK(t.threads[0].code.back().sured->coords.at(0).value == 4);
  // Located refusals: a loaded address, two writes, a label between, no brackets.
  CHECK_THAT(error(" ld.u64 r0, [x] ;\n st.u32 [r0], 1 ;\n"),
             Catch::Matchers::Contains("t.litmus:5:9: error: the address in 'r0' does not "
                                       "resolve to one location and offset on every path: 'r0' "
                                       "is loaded from memory"));
  CHECK_THAT(error(" mov.u64 r0, x ;\n mov.u64 r0, v ;\n st.u32 [r0], 1 ;\n"),
             Catch::Matchers::Contains("'r0' is written 2 times"));
  CHECK_THAT(error(" mov.u64 r0, x ;\n L: ;\n st.u32 [r0], 1 ;\n"),
             Catch::Matchers::Contains("label 'L' lies between"));
  CHECK_THAT(error(" mov.u64 r0, x ;\n st.u32 r0, 1 ;\n"),
             Catch::Matchers::Contains("an address in a register is written in brackets: [r0]"));
  CHECK_THAT(error(" mov.u64 r0, nowhere ;\n"),
             Catch::Matchers::Contains("'nowhere' is not a location of the init block"));
}

}  // namespace unit_frontend
