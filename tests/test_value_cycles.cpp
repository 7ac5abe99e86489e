// Values along an rf ∪ data cycle (issue 43, item 8). The Z3 engine's
// values are free bit-vectors tied by rf's equations, so a model without a
// No-Thin-Air check allows every solution of a cycle's equations, values out
// of thin air included; the enumerator dropped every such cycle, even when
// the stored value was a constant (diy's false dependency `sub t0, r0, r0;
// add t0, t0, 1`), so LB+datas had 3 states under enum and 4 under z3. The
// engines must agree under every model: the built-in one, Dat3M's two (both
// with No-Thin-Air), each of those with the check left out, and a model with
// no check at all.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "engine/enumerate/value_cycles.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/generate/cycle.hpp"
#include "redscope/model/cat.hpp"
#include "suite_files.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_value_cycles {

using namespace redscope;

namespace {

std::string cycle_test(const std::string& cycle) {
  return generate::generate_cycle(generate::parse_cycle(cycle, "cycle"), generate::CycleOptions{},
                                  "cycle")
      .text;
}

// Two threads in a load-buffering cycle: each loads one location and stores
// to the other `store` (PTX lines, `r0` the loaded value, `t0` free).
std::string lb(const std::string& name, const std::string& p0, const std::string& p1) {
  std::string s =
      fmt::format("PTX {}\n{{ x = 0; y = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n", name);
  s += " ld.weak r0, x | ld.weak r0, y ;\n";
  std::vector<std::string> a, b;
  for (std::size_t i = 0, j = 0; i <= p0.size(); i = j + 1) {
    j = std::min(p0.find(';', i), p0.size());
    a.push_back(p0.substr(i, j - i));
  }
  for (std::size_t i = 0, j = 0; i <= p1.size(); i = j + 1) {
    j = std::min(p1.find(';', i), p1.size());
    b.push_back(p1.substr(i, j - i));
  }
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    s += fmt::format(" {} | {} ;\n", i < a.size() ? a[i] : "", i < b.size() ? b[i] : "");
  return s + "exists (P0:r0 == 1 /\\ P1:r0 == 1)\n";
}

struct Case {
  std::string name, text;
};

std::vector<Case> cases() {
  return {
      {"LB+datas (diy's false dependencies)", cycle_test("DpDatadW Rfe DpDatadW Rfe")},
      {"3.LB+datas", cycle_test("DpDatadW Rfe DpDatadW Rfe DpDatadW Rfe")},
      {"LB+ctrls", cycle_test("DpCtrldW Rfe DpCtrldW Rfe")},
      {"LB+real-datas (every value a solution)", lb("LB-id", "st.weak y, r0", "st.weak x, r0")},
      {"LB, one false dependency and one real",
       lb("LB-mixed", "sub.s32 t0, r0, r0;add.s32 t0, t0, 2;st.weak y, t0", "st.weak x, r0")},
      {"LB, r = 3r (2r = 0 mod 2^32: 0 and 2^31)",
       lb("LB-mul3", "mul.u32 t0, r0, 3;st.weak y, t0", "st.weak x, r0")},
      {"LB, r = r + 2 (no solution)",
       lb("LB-inc", "add.s32 t0, r0, 1;st.weak y, t0", "add.s32 t0, r0, 1;st.weak x, t0")},
      {"LB, a guard and a data dependency",
       lb("LB-guard", "setp.eq.s32 p, r0, 5;@p st.weak y, 5", "st.weak x, r0")},
      {"LB, a false dependency in 16 bits",
       "PTX LB-b16\n{ global u16 x = 0; global u16 y = 0; }\n"
       " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
       " ld.weak.b16 r0, [x] | ld.weak.b16 r0, [y] ;\n"
       " sub.u16 t0, r0, r0 | st.weak.b16 [x], r0 ;\n"
       " add.u16 t0, t0, 7 | ;\n"
       " st.weak.b16 [y], t0 | ;\n"
       "exists (P1:r0 == 7)\n"},
      {"LB, r = r / 2 (division: not solved bit by bit)",
       lb("LB-div", "div.u32 t0, r0, 2;st.weak y, t0", "st.weak x, r0")},
  };
}

struct Model {
  std::string name;
  std::shared_ptr<const cat::Model> model;
  std::vector<std::string> disabled;
};

std::vector<Model> models() {
  std::vector<Model> m;
  const std::shared_ptr<const cat::Model> builtin;  // the default: models/ptx.cat
  m.push_back({"ptx.cat", builtin, {}});
  m.push_back({"ptx.cat without No-Thin-Air", builtin, {"No-Thin-Air"}});
  m.push_back({"no check at all",
               std::make_shared<const cat::Model>(
                   cat::parse_cat("\"empty\"\n", "empty.cat", cat::ptx_primitives())),
               {}});
  for (const std::string v : {"6.0", "7.5"}) {
    const std::string file =
        std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx/cat/ptx-v" + v + ".cat";
    if (!std::filesystem::exists(file)) continue;
    const auto d = std::make_shared<const cat::Model>(cat::load_cat(file));
    m.push_back({"Dat3M ptx-v" + v, d, {}});
    m.push_back({"Dat3M ptx-v" + v + " without axiom-NoThinAir", d, {"axiom-NoThinAir"}});
  }
  return m;
}

// The outcomes, or the error that ended the run.
std::string answer(const TestResult& r) {
  return r.error ? "error: " + *r.error : testing::render_outcomes(r);
}

std::string run(const LitmusTest& t, EngineOptions o, EngineKind k) {
  o.engine = k;
  try {
    return answer(run_engine(t, o));
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// Some outcome (one line of answer()) has every one of `parts` ("P0:r0=1").
bool some_outcome(const std::string& text, std::initializer_list<std::string> parts) {
  for (std::size_t i = 0, j = 0; i < text.size(); i = j + 1) {
    j = std::min(text.find('\n', i), text.size());
    const std::string line = text.substr(i, j - i) + " ";
    if (std::all_of(parts.begin(), parts.end(),
                    [&](const std::string& p) { return line.find(p + " ") != std::string::npos; }))
      return true;
  }
  return false;
}

bool has_no_thin_air(const Model& m) { return m.disabled.empty() && m.name != "no check at all"; }

}  // namespace

TEST_CASE("z3, enum and auto agree along rf ∪ data cycles under every model",
          "[engines][thin-air]") {
  const std::vector<Model> ms = models();
  REQUIRE(ms.size() >= 3);
  for (const Case& c : cases()) {
    const LitmusTest t = parse_litmus(c.text, "cycle.litmus");
    for (const Model& m : ms) {
      INFO(c.name << " under " << m.name);
      EngineOptions o;
      o.observe_all = true;
      o.user_model = m.model;
      o.disabled_checks = m.disabled;
      o.max_outcomes = 64;    // a cycle whose every value is a solution: more
      o.enum_limit = 200000;  // a division's 2^32 values: past it
      const std::string z = run(t, o, EngineKind::Z3);
      const std::string e = run(t, o, EngineKind::Enum);
      const std::string a = run(t, o, EngineKind::Auto);
      const bool real = c.name.starts_with("LB+real");
      const bool div = c.name.starts_with("LB, r = r / 2");
      if (real && !has_no_thin_air(m)) {
        // Out-of-thin-air values, unbounded: both give up.
        CHECK(z.find("error: more than 64 outcomes") != std::string::npos);
        CHECK(e.find("error: more than 64 outcomes") != std::string::npos);
        CHECK(a.find("error: more than 64 outcomes") != std::string::npos);
      } else if (div && !has_no_thin_air(m)) {
        // The enumerator tries 2^32 values and stops at its limit, saying
        // so; auto then asks the solver.
        CHECK(e.find("gave up after 200000 candidate executions") != std::string::npos);
        CHECK(z == a);
        CHECK(some_outcome(z, {"P0:r0=0", "P1:r0=0"}));
      } else {
        CHECK(z.find("error") == std::string::npos);
        CHECK(z == e);
        CHECK(z == a);
      }
    }
  }
}

// The values the fix lets through, stated: under a model without
// No-Thin-Air, LB+datas has the cycle's outcome (each store writes the
// constant 1 whatever it read), and r = 3r has its out-of-thin-air 2^31.
TEST_CASE("rf ∪ data cycles: the outcomes a model without No-Thin-Air allows",
          "[engines][thin-air]") {
  EngineOptions o;
  o.observe_all = true;
  o.disabled_checks = {"No-Thin-Air"};
  o.engine = EngineKind::Enum;
  const LitmusTest datas = parse_litmus(cycle_test("DpDatadW Rfe DpDatadW Rfe"), "lb.litmus");
  const std::string d = answer(run_engine(datas, o));
  CHECK(some_outcome(d, {"P0:r0=1", "P1:r0=1"}));
  o.disabled_checks.clear();
  CHECK_FALSE(some_outcome(answer(run_engine(datas, o)), {"P0:r0=1", "P1:r0=1"}));

  o.disabled_checks = {"No-Thin-Air"};
  const LitmusTest mul =
      parse_litmus(lb("LB-mul3", "mul.u32 t0, r0, 3;st.weak y, t0", "st.weak x, r0"), "m.litmus");
  const TestResult m = run_engine(mul, o);
  CHECK(m.outcomes.size() == 2);
  CHECK(some_outcome(answer(m), {"P0:r0=-2147483648", "P1:r0=-2147483648"}));
  // Bit by bit: a few hundred choices, not 2^32.
  o.enum_limit = 1000;
  CHECK(run_engine(mul, o).outcomes.size() == 2);

  // Verdict only: the cycle's outcome decides the condition.
  o.verdict_only = true;
  const TestResult v = run_engine(datas, o);
  REQUIRE(v.verdict_only);
  CHECK(v.holds);
}

// Known bits are sound: on random expressions over reads of which some bits
// are fixed, every concrete evaluation with values that agree with the fixed
// bits agrees with the known bits computed.
TEST_CASE("known bits agree with every evaluation they cover", "[engines][thin-air]") {
  std::mt19937_64 rng(43);
  const auto below = [&](std::uint64_t n) { return rng() % n; };
  const ExprOp binary[] = {ExprOp::Add, ExprOp::Sub, ExprOp::Mul, ExprOp::Div,
                           ExprOp::And, ExprOp::Or,  ExprOp::Xor, ExprOp::Min,
                           ExprOp::Max, ExprOp::Inc, ExprOp::Dec};
  const std::vector<unsigned> widths = {8, 16, 32, 64};
  for (int round = 0; round < 2000; ++round) {
    const unsigned w = widths[below(widths.size())];
    // Reads 0..2, each with a random mask of known bits and their values.
    enumerate::KnownBits fixed[3];
    for (auto& f : fixed) {
      f.known = rng() & rng() & (w == 64 ? ~0ULL : (1ULL << w) - 1);
      f.bits = rng() & f.known;
    }
    std::vector<ExprPtr> pool;
    for (std::size_t i = 0; i < 3; ++i) pool.push_back(make_read(ReadRef{0, i}, w));
    pool.push_back(make_const(rng(), w));
    for (int step = 0; step < 6; ++step) {
      const ExprPtr a = pool[below(pool.size())], b = pool[below(pool.size())];
      switch (below(6)) {
        case 0: pool.push_back(make_binary(ExprOp::Sub, a, a)); break;
        case 1: pool.push_back(make_ite(make_cmp(CmpOp::Eq, a, b, true), a, b)); break;
        case 2: pool.push_back(make_resize(make_extract(a, 1, w / 2), w, below(2) == 0)); break;
        case 3:
          pool.push_back(make_resize(
              make_concat(make_extract(a, 0, w / 2), make_extract(b, w / 2, w / 2)), w, false));
          break;
        default: pool.push_back(make_binary(binary[below(std::size(binary))], a, b, below(2) == 0));
      }
    }
    const ExprPtr e = pool.back();
    const enumerate::KnownBits k =
        enumerate::known_bits(e, [&](ReadRef r) { return fixed[r.index]; });
    for (int sample = 0; sample < 16; ++sample) {
      std::uint64_t v[3];
      for (std::size_t i = 0; i < 3; ++i) v[i] = (rng() & ~fixed[i].known) | fixed[i].bits;
      const std::uint64_t x = evaluate(e, [&](ReadRef r) { return v[r.index]; });
      INFO("round " << round << " sample " << sample);
      REQUIRE(((x ^ k.bits) & k.known) == 0);
    }
  }
}

}  // namespace unit_value_cycles
