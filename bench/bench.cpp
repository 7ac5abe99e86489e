// redscope_bench: families of generated litmus tests of growing size, each
// checked by the z3 engine and the reference enumerator; prints wall time,
// outcome count and the enum/z3 ratio per size, and times the conformance
// folder. Writes the same rows as CSV. Not a test: numbers, not verdicts
// (but a z3/enum disagreement is reported loudly and makes the exit status 1).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"

using namespace redscope;

namespace {

struct Family {
  std::string name;
  int from, to;
  std::function<std::string(int)> make;  // N -> litmus text
  bool observe_all = true;               // every register and location, or the test's own
  std::vector<int> sizes = {};           // instead of from..to: sizes for a growth curve

  std::vector<int> ns(bool quick) const {
    std::vector<int> v = sizes;
    if (v.empty())
      for (int n = from; n <= to; ++n) v.push_back(n);
    if (quick && v.size() > 2) v.resize(2);
    return v;
  }
};

// One thread storing 1..N to x; `reader`: a second thread loads x once.
std::string store_chain(int n, bool reader) {
  std::string s =
      fmt::format("PTX {}-{}\n{{ global u32 x = 0; }}\n P0@cta 0,gpu 0{} ;\n",
                  reader ? "chain-read" : "chain", n, reader ? " | P1@cta 1,gpu 0" : "");
  for (int i = 0; i < n; ++i) {
    s += fmt::format(" st.relaxed.gpu.global.u32 [x], {}", i + 1);
    if (reader) s += i == 0 ? " | ld.relaxed.gpu.global.u32 r0, [x]" : " |";
    s += " ;\n";
  }
  return s + "exists (x == 1)\n";
}

std::string places(int n) {
  std::string s = " ";
  for (int t = 0; t < n; ++t) s += fmt::format("{}P{}@cta {},gpu 0", t ? " | " : "", t, t);
  return s + " ;\n";
}

// Rows: per row, one instruction per thread ("" for none).
std::string rows(const std::vector<std::vector<std::string>>& code) {
  std::size_t depth = 0;
  for (const auto& c : code) depth = std::max(depth, c.size());
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) {
    for (std::size_t t = 0; t < code.size(); ++t)
      s += (t ? " | " : " ") + (i < code[t].size() ? code[t][i] : std::string());
    s += " ;\n";
  }
  return s;
}

std::vector<Family> families() {
  return {
      {"a: N atom.add.gpu, old kept", 2, 7,  // N=8: 40320 outcomes, past the default --max-outcomes
       [](int n) {
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t) c[t] = {"atom.relaxed.gpu.global.add.u32 r0, [x], 1"};
         return fmt::format("PTX atoms-{}\n{{ global u32 x = 0; }}\n{}{}exists (x == {})\n", n,
                            places(n), rows(c), n);
       }},
      {"b: IRIW, N readers", 2, 6,
       [](int n) {
         std::vector<std::vector<std::string>> c(n + 2);
         c[0] = {"st.relaxed.gpu x, 1"};
         c[1] = {"st.relaxed.gpu y, 1"};
         for (int r = 0; r < n; ++r)
           c[r + 2] =
               r % 2 ? std::vector<std::string>{"ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"}
                     : std::vector<std::string>{"ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, y"};
         return fmt::format(
             "PTX iriw-{}\n{{ x=0; y=0; }}\n{}{}exists (P2:r0 == 1 /\\ P2:r1 == 0 /\\ P3:r0 == 1 "
             "/\\ P3:r1 == 0)\n",
             n, places(n + 2), rows(c));
       }},
      {"c: N threads, 2 st + 2 ld, x y P0", 2,
       6,  // observing every register: over 10000 outcomes at N=4
       [](int n) {
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t)
           c[t] = {fmt::format("st.relaxed.gpu x, {}", t + 1),
                   fmt::format("st.relaxed.gpu y, {}", t + 1), "ld.relaxed.gpu r0, y",
                   "ld.relaxed.gpu r1, x"};
         return fmt::format(
             "PTX sb-{}\n{{ x=0; y=0; }}\n{}{}locations [x; y; P0:r0; P0:r1;]\nexists (x == 1 /\\ "
             "y == 1)\n",
             n, places(n), rows(c));
       },
       false},
      {"d: N red, mixed .cta/.gpu", 2, 8,
       [](int n) {
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t)
           c[t] = {fmt::format("red.relaxed.{}.global.add.u32 [x], 1", t % 2 ? "gpu" : "cta")};
         return fmt::format("PTX reds-{}\n{{ global u32 x = 0; }}\n{}{}exists (x == {})\n", n,
                            places(n), rows(c), n);
       }},
      {"e: N red.add.f32, distinct", 2, 7,
       [](int n) {
         // Orders round differently (1e8 + 1 - 1e8 against 1 + 1e8 - 1e8).
         static const char* k[] = {"1.0", "1e8", "-1e8", "0.1", "3.5", "-2.75", "1e-3"};
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t)
           c[t] = {fmt::format("red.relaxed.gpu.global.add.f32 [x], {}", k[t])};
         return fmt::format("PTX redf-{}\n{{ global f32 x = 0.5; }}\n{}{}exists (x == 0.5)\n", n,
                            places(n), rows(c));
       }},
      {"f: N atom.add.f32, old kept", 2, 6,
       [](int n) {
         static const char* k[] = {"1.0", "1e8", "-1e8", "0.1", "3.5", "-2.75", "1e-3"};
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t)
           c[t] = {fmt::format("atom.relaxed.gpu.global.add.f32 r0, [x], {}", k[t])};
         return fmt::format("PTX atomf-{}\n{{ global f32 x = 0.5; }}\n{}{}exists (x == 0.5)\n", n,
                            places(n), rows(c));
       }},
      // Growth curves (issue 12): straight-line code should cost about what
      // its size does. One thread's stores have one coherence order.
      {"g: one thread, N stores to x",
       0,
       0,
       [](int n) { return store_chain(n, false); },
       true,
       {10, 30, 100, 300, 1000}},
      // (Observing the condition's x only: every register would make N + 1
      // outcomes, each its own solver check.)
      {"h: N stores to x, one reader",
       0,
       0,
       [](int n) { return store_chain(n, true); },
       false,
       {10, 30, 100, 300, 1000}},
      {"i: one thread, N locations",
       0,
       0,
       [](int n) {
         std::string decl, code;
         for (int i = 0; i < n; ++i) {
           decl += fmt::format(" global u32 x{} = 0;", i);
           code += fmt::format(" st.relaxed.gpu.global.u32 [x{}], 1 ;\n", i);
         }
         return fmt::format("PTX locs-{}\n{{{} }}\n P0@cta 0,gpu 0 ;\n{}exists (x0 == 1)\n", n,
                            decl, code);
       },
       true,
       {10, 30, 100, 300, 1000}},
  };
}

struct Timed {
  double seconds = 0;
  std::size_t outcomes = 0;
  std::optional<std::string> failure;
};

Timed time_engine(const LitmusTest& t, EngineKind e, std::size_t enum_limit, bool observe_all) {
  EngineOptions o;
  o.engine = e;
  o.enum_limit = enum_limit;
  o.observe_all = observe_all;
  const auto t0 = std::chrono::steady_clock::now();
  Timed r;
  try {
    r.outcomes = run_engine(t, o).outcomes.size();
  } catch (const InputError& x) {
    r.failure = "over budget";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string machine() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return fmt::format("{} ({} hardware threads)", model, std::thread::hardware_concurrency());
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv_path = "bench.csv";
  bool quick = false;
  std::string emit_dir;
  std::string only;  // family letters, e.g. "ghi"; empty: every family and the conformance run
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc)
      csv_path = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--emit" && i + 1 < argc)
      emit_dir = argv[++i];
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else {
      fmt::print(
          "usage: redscope_bench [--quick] [--only LETTERS] [--csv FILE] [--emit DIR]\n"
          "  Times the z3 engine and the reference enumerator on generated families\n"
          "  (a) N atom.add.gpu keeping the old value, (b) IRIW with N readers,\n"
          "  (c) N threads with two stores and two loads (observing x, y and P0's\n"
          "  registers), (d) N red of mixed .cta/.gpu scope, (e) N red.add.f32 and\n"
          "  (f) N atom.add.f32 of distinct constants, and growth curves to N = 1000 of\n"
          "  (g) one thread's N stores to x, (h) the same with a reader thread and\n"
          "  (i) one thread's stores to N locations; then the conformance folder with\n"
          "  the z3 engine at -j 1 and -j 2.\n"
          "  --quick: the two smallest sizes of each family, no conformance run.\n"
          "  --only LETTERS: just these families (e.g. --only ghi), no conformance run.\n"
          "  --csv FILE: where the rows go (default bench.csv).\n"
          "  --emit DIR: also write each generated test to DIR/NAME.litmus (to rerun\n"
          "  one with `redscope run`, adding --observe-all for families a, b and d).\n"
          "  The enumerator is skipped (\"-\") at sizes it would spend over a minute on,\n"
          "  judged from the growth of the previous size.\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  fmt::print("machine: {}\n", machine());
  std::ofstream csv(csv_path);
  csv << "family,n,z3_seconds,z3_outcomes,enum_seconds,enum_outcomes,ratio_enum_over_z3\n";
  fmt::print("{:<34} {:>3} {:>10} {:>9} {:>10} {:>9} {:>9}\n", "family", "N", "z3 s", "outcomes",
             "enum s", "outcomes", "enum/z3");
  bool disagree = false;
  // The enumerator is exponential: a size is skipped once the last one took
  // longer than kEnumBudget, or would by the growth factor of the last step.
  constexpr double kEnumBudget = 60.0;
  // The limit counts every choice (rf, co per cell, ...); the time budget
  // decides, so it is set far above what a minute allows.
  constexpr std::size_t kEnumLimit = 1'000'000'000;
  for (const Family& f : families()) {
    if (!only.empty() && only.find(f.name[0]) == std::string::npos) continue;
    bool enum_on = true;
    double enum_prev = 0;
    for (int n : f.ns(quick)) {
      const std::string text = f.make(n);
      const LitmusTest t = parse_litmus(text, fmt::format("bench-{}.litmus", n));
      if (!emit_dir.empty()) std::ofstream(fmt::format("{}/{}.litmus", emit_dir, t.name)) << text;
      const Timed z = time_engine(t, EngineKind::Z3, kEnumLimit, f.observe_all);
      std::optional<Timed> e;
      if (enum_on) e = time_engine(t, EngineKind::Enum, kEnumLimit, f.observe_all);
      if (e) {
        const double growth = e->seconds / std::max(enum_prev, 1e-3);
        if (e->failure || e->seconds > kEnumBudget || e->seconds * growth > kEnumBudget)
          enum_on = false;
        enum_prev = e->seconds;
      }
      const bool have_e = e && !e->failure;
      if (have_e && e->outcomes != z.outcomes) disagree = true;
      const std::string es = !e ? "-" : e->failure ? "budget" : fmt::format("{:.3f}", e->seconds);
      const std::string eo = have_e ? std::to_string(e->outcomes) : "-";
      const std::string ratio = have_e ? fmt::format("{:.3g}", e->seconds / z.seconds) : "-";
      fmt::print("{:<34} {:>3} {:>10.3f} {:>9} {:>10} {:>9} {:>9}{}\n", f.name, n, z.seconds,
                 z.outcomes, es, eo, ratio,
                 have_e && e->outcomes != z.outcomes ? "  ** z3 and enum disagree **" : "");
      csv << fmt::format("\"{}\",{},{:.4f},{},{},{},{}\n", f.name, n, z.seconds, z.outcomes,
                         have_e ? fmt::format("{:.4f}", e->seconds) : "", eo == "-" ? "" : eo,
                         ratio == "-" ? "" : ratio);
      std::cout.flush();
    }
  }
  if (!quick && only.empty()) {
    const std::string dir = std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx";
    try {
      const auto files = collect_litmus_files({dir});
      for (unsigned jobs : {1u, 2u}) {
        const auto t0 = std::chrono::steady_clock::now();
        (void)run_suite(files, EngineOptions{}, jobs);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print("conformance ({} files), z3, -j {}: {:.2f} s\n", files.size(), jobs, s);
        csv << fmt::format("\"conformance -j {}\",{},{:.4f},,,,\n", jobs, files.size(), s);
      }
    } catch (const InputError& e) {
      fmt::print("conformance: not timed ({})\n", e.diagnostic().render());
    }
  }
  fmt::print("rows written to {}\n", csv_path);
  return disagree ? 1 : 0;
}
