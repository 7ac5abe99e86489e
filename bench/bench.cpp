// redscope_bench: families of generated litmus tests of growing size, each
// checked by the z3 engine and the reference enumerator; prints wall time,
// outcome count and the enum/z3 ratio per size, and times the conformance
// folder. Writes the same rows as CSV. Not a test: numbers, not verdicts
// (but a z3/enum disagreement is reported loudly and makes the exit status 1).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redscope/core/allocator.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/report.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

// `locations [...]`: registers `regs` of threads from..from+n-1, then `locs`.
std::string locations(int n, int from, const std::vector<std::string>& regs,
                      const std::vector<std::string>& locs) {
  std::string s = "locations [";
  for (int t = from; t < from + n; ++t)
    for (const std::string& r : regs) s += fmt::format("P{}:{}; ", t, r);
  for (const std::string& l : locs) s += l + "; ";
  return s + "]\n";
}

// IRIW with n readers (alternately x then y, y then x), each reader's two
// loads separated by fence.sc.gpu when `fence`.
std::string iriw(int n, bool fence, bool alternate = true) {
  std::vector<std::vector<std::string>> c(n + 2);
  c[0] = {"st.relaxed.gpu x, 1"};
  c[1] = {"st.relaxed.gpu y, 1"};
  for (int r = 0; r < n; ++r) {
    const bool flip = alternate && r % 2;
    const char* a = flip ? "y" : "x";
    const char* b = flip ? "x" : "y";
    c[r + 2] = {fmt::format("ld.relaxed.gpu r0, {}", a)};
    if (fence) c[r + 2].push_back("fence.sc.gpu");
    c[r + 2].push_back(fmt::format("ld.relaxed.gpu r1, {}", b));
  }
  return fmt::format(
      "PTX iriw{}-{}\n{{ x=0; y=0; }}\n{}{}{}exists (P2:r0 == 1 /\\ P2:r1 == 0 /\\ P3:r0 == 1 "
      "/\\ P3:r1 == 0)\n",
      std::string(fence ? "-sc" : "") + (alternate ? "" : "-xy"), n, places(n + 2), rows(c),
      locations(n, 2, {"r0", "r1"}, {"x", "y"}));
}

// A message-passing chain over n threads (issue 34): P0 writes data then
// flag f1; each Pi (0 < i < n-1) reads f_i with acquire, then writes
// f_{i+1} with release; the last reads f_{n-1}, then data. The condition:
// every flag seen, data stale. Forbidden when every thread is in one scope
// (`scope` gpu, threads in distinct CTAs), allowed with .cta (no two threads
// mutually in scope).
std::string mp_chain(int n, const char* scope) {
  std::vector<std::vector<std::string>> c(n);
  c[0] = {"st.relaxed.gpu data, 1", fmt::format("st.release.{} f1, 1", scope)};
  for (int i = 1; i + 1 < n; ++i)
    c[i] = {fmt::format("ld.acquire.{} r0, f{}", scope, i),
            fmt::format("st.release.{} f{}, 1", scope, i + 1)};
  c[n - 1] = {fmt::format("ld.acquire.{} r0, f{}", scope, n - 1), "ld.relaxed.gpu r1, data"};
  std::string init = " data=0;", cond;
  for (int i = 1; i < n; ++i) {
    init += fmt::format(" f{}=0;", i);
    cond += fmt::format("P{}:r0 == 1 /\\ ", i);
  }
  return fmt::format("PTX mpchain-{}-{}\n{{{} }}\n{}{}exists ({}P{}:r1 == 0)\n", scope, n, init,
                     places(n), rows(c), cond, n - 1);
}

// Families timed as verdict-only runs (--verdict): one whose condition has a
// witness, one whose condition is proved impossible, per test shape.
struct VerdictFamily {
  std::string name;
  std::vector<int> sizes;
  std::function<std::string(int)> make;
};

std::vector<VerdictFamily> verdict_families() {
  return {
      {"v: IRIW-N verdict (witness)",
       {4, 6, 8, 10, 12, 14, 16},
       [](int n) { return iriw(n, false); }},
      {"v: IRIW+fence.sc-N verdict (proof)",
       {4, 6, 8, 10, 12, 14, 16},
       [](int n) { return iriw(n, true); }},
      {"m: MP chain-N verdict (.cta: witness)",
       {4, 6, 8, 10, 12},
       [](int n) { return mp_chain(n, "cta"); }},
      {"m: MP chain-N verdict (.gpu: proof)",
       {4, 6, 8, 10, 12},
       [](int n) { return mp_chain(n, "gpu"); }},
  };
}

// Families k and w: N threads, each storing its own value (t + 1) to x and
// to y, then loading x and y.
std::vector<std::vector<std::string>> store_store_load_load(int n) {
  std::vector<std::vector<std::string>> c(n);
  for (int t = 0; t < n; ++t)
    c[t] = {fmt::format("st.relaxed.gpu x, {}", t + 1), fmt::format("st.relaxed.gpu y, {}", t + 1),
            "ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, y"};
  return c;
}

std::vector<Family> families() {
  return {
      // Every register and location observed, listed in a `locations` line
      // so that herd7 (bench/compare-herd.sh) observes the same.
      {"a: N atom.add.gpu, old kept", 2, 9,
       [](int n) {
         std::vector<std::vector<std::string>> c(n);
         for (int t = 0; t < n; ++t) c[t] = {"atom.relaxed.gpu.global.add.u32 r0, [x], 1"};
         return fmt::format("PTX atoms-{}\n{{ global u32 x = 0; }}\n{}{}{}exists (x == {})\n", n,
                            places(n), rows(c), locations(n, 0, {"r0"}, {"x"}), n);
       },
       false},
      {"b: IRIW, N readers", 2, 10, [](int n) { return iriw(n, false); }, false},
      // Readers alternate: x then y, y then x (herd7's "IRIWAF").
      {"j: IRIW + fence.sc.gpu, N readers", 2, 9, [](int n) { return iriw(n, true); }, false},
      // Every reader x then y: no two readers disagree on the order by
      // reading in opposite orders, so the fences order less.
      {"n: IRIW + fence.sc.gpu, N readers, x then y", 2, 9,
       [](int n) { return iriw(n, true, false); }, false},
      // herd7's "N threads each st x; st y; ld x; ld y, condition on one
      // register": only P0:r1 observed.
      {"k: N threads, 2 st + 2 ld, P0:r1 only", 2, 8,
       [](int n) {
         return fmt::format("PTX stld-{}\n{{ x=0; y=0; }}\n{}{}exists (P0:r1 == 0)\n", n, places(n),
                            rows(store_store_load_load(n)));
       },
       false},
      // The "two writers and readers of distinct values": N threads
      // each store their own value (t + 1) to x and to y, then load x and y;
      // every register and both locations observed. Without fences or
      // release/acquire nothing orders x against y, so each location is its
      // own factor: N threads' stores in any of N! coherence orders, each
      // thread reading back its own store or one coherence-later, and the
      // last store the final value. Counting those per location gives 4 at
      // N = 2, 24 at 3 and 200 at 4, so the test has 16, 576 (the issue's
      // "3 each, 576 outcomes") and 40,000 (its "4 writers and readers")
      // outcomes. The same program as family k, observed whole.
      {"w: N writers+readers of x, y, distinct", 2, 5,
       [](int n) {
         return fmt::format("PTX dv-{}\n{{ x=0; y=0; }}\n{}{}{}exists (P0:r1 == 0)\n", n, places(n),
                            rows(store_store_load_load(n)),
                            locations(n, 0, {"r0", "r1"}, {"x", "y"}));
       },
       false},
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
  std::string engine;  // the engine auto chose
  bool holds = false;  // the condition's verdict
  std::string by;      // a verdict-only run's: "witness" or "proof"
  std::optional<std::string> failure;
  std::vector<std::string> values;  // the outcome set, rendered (for the agreement check)
};

Timed time_engine(const LitmusTest& t, EngineKind e, std::size_t enum_limit, bool observe_all,
                  bool verdict_only = false) {
  EngineOptions o;
  o.engine = e;
  o.verdict_only = verdict_only;
  o.enum_limit = enum_limit;
  o.observe_all = observe_all;
  o.max_outcomes = std::size_t{1} << 24;
  const auto t0 = std::chrono::steady_clock::now();
  Timed r;
  try {
    const TestResult res = run_engine(t, o);
    r.outcomes = res.outcomes.size();
    r.engine = res.engine;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.holds = res.holds;
    if (res.verdict_only) r.by = verdict_by_word(res.verdict_by);
    for (const Outcome& out : res.outcomes) {
      std::string v;
      for (std::uint64_t x : out.values) v += std::to_string(x) + ",";
      r.values.push_back(std::move(v));
    }
  } catch (const InputError& x) {
    r.failure = "over budget";
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return r;
}

// An engine is skipped on a family once its last size took longer than
// kBudget seconds, or would have by the growth factor of its last step.
constexpr double kBudget = 60.0;

struct Column {
  EngineKind kind;
  bool on = true;
  double prev = 0;
  bool verdict_only = false;
  std::optional<Timed> run(const LitmusTest& t, std::size_t limit, bool observe_all) {
    if (!on) return std::nullopt;
    Timed r = time_engine(t, kind, limit, observe_all, verdict_only);
    const double growth = r.seconds / std::max(prev, 1e-3);
    if (r.failure || r.seconds > kBudget || r.seconds * growth > kBudget) on = false;
    prev = r.seconds;
    return r;
  }
};

std::string cell(const std::optional<Timed>& t) {
  if (!t) return "-";
  return t->failure ? "budget" : fmt::format("{:.3f}", t->seconds);
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

// The verdict families: the verdict-only run under auto, z3 and enum, and
// the full listing (auto) it replaces, skipped past a minute as above.
// Returns whether the verdict-only engines disagreed with each other or
// with the full run's verdict.
bool time_verdict_families(const std::string& only, bool quick, std::ofstream& csv,
                           const std::string& emit_dir) {
  bool disagree = false;
  csv << "verdict_family,n,holds,by,auto_seconds,z3_seconds,enum_seconds,full_seconds\n";
  fmt::print("\nverdict only (--verdict): seconds per engine; 'full' lists every outcome\n");
  fmt::print("{:<40} {:>3} {:>6} {:>8} {:>9} {:>9} {:>9} {:>9}\n", "family", "N", "holds", "by",
             "auto s", "z3 s", "enum s", "full s");
  for (const VerdictFamily& f : verdict_families()) {
    if (!only.empty() && only.find(f.name[0]) == std::string::npos) continue;
    Column cols[4] = {{EngineKind::Auto}, {EngineKind::Z3}, {EngineKind::Enum}, {EngineKind::Auto}};
    for (int k = 0; k < 3; ++k) cols[k].verdict_only = true;
    std::vector<int> sizes = f.sizes;
    if (quick && sizes.size() > 2) sizes.resize(2);
    for (int n : sizes) {
      const std::string text = f.make(n);
      const LitmusTest t = parse_litmus(text, fmt::format("bench-{}.litmus", n));
      if (!emit_dir.empty()) std::ofstream(fmt::format("{}/{}.litmus", emit_dir, t.name)) << text;
      std::optional<Timed> r[4];
      for (int k = 0; k < 4; ++k) r[k] = cols[k].run(t, 1'000'000'000, false);
      // Every engine that finished, the full listing too: one verdict.
      const Timed* ref = nullptr;
      bool differ = false;
      for (const auto& x : r)
        if (x && !x->failure) {
          if (ref && ref->holds != x->holds) differ = true;
          if (!ref) ref = &*x;
        }
      disagree = disagree || differ;
      const std::string holds = ref ? (ref->holds ? "yes" : "no") : "-";
      const std::string by = r[0] && !r[0]->failure ? r[0]->by : "-";
      fmt::print("{:<40} {:>3} {:>6} {:>8} {:>9} {:>9} {:>9} {:>9}{}\n", f.name, n, holds, by,
                 cell(r[0]), cell(r[1]), cell(r[2]), cell(r[3]),
                 differ ? "  ** engines disagree **" : "");
      csv << fmt::format("\"{}\",{},{},{},{},{},{},{}\n", f.name, n, holds, by, cell(r[0]),
                         cell(r[1]), cell(r[2]), cell(r[3]));
      std::cout.flush();
    }
  }
  return disagree;
}

// CPU seconds of the whole process (every thread), or of this thread.
double cpu_seconds(clockid_t clock = CLOCK_PROCESS_CPUTIME_ID) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Family s, "-j 2 speed-up": one test on one and on two threads of its own
// (EngineOptions::workers, what `-j 2` gives a run of one test), auto
// engine, `repeats` runs each, alternating; wall and CPU seconds, min and
// median, and the CPU of the calling thread (the search, its share of the
// jobs, the merge: on a loaded machine, where a process's threads share
// one slice, what its wall time would follow on idle cores). The outcome
// lists and witnesses must be the same. "listed" rows run `run`'s listing
// (an OutcomeStore, text printed to /dev/null; the jobs pack batches the
// calling thread absorbs): their printed bytes must be the same.
bool speedup(std::ofstream& csv, bool quick) {
  const int repeats = quick ? 1 : 5;
  fmt::print("\n{:<30} {:>3} {:>9} {:>3} {:>15} {:>15} {:>8} {:>8} {:>8}\n", "s: -j 2 speed-up",
             "N", "outcomes", "-j", "wall min/med", "cpu min/med", "wall/j1", "thr cpu", "/j1 cpu");
  bool same = true;
  struct Shape {
    int n;
    bool fence;  // IRIW+fence.sc: search-bound (each leaf's Fence-SC orders)
  };
  const std::vector<Shape> shapes = quick ? std::vector<Shape>{{8, false}, {6, true}}
                                          : std::vector<Shape>{{8, false}, {10, false}, {8, true}};
  for (bool listed : {false, true})
    for (const auto [n, fence] : shapes) {
      const LitmusTest t = parse_litmus(iriw(n, fence), fmt::format("bench-{}.litmus", n));
      std::vector<double> wall[2], cpu[2], own[2];
      std::vector<std::string> values[2];
      std::size_t outcomes = 0;
      for (int k = 0; k < repeats; ++k)
        for (unsigned j : {1u, 2u}) {
          EngineOptions o;
          o.max_outcomes = std::size_t{1} << 24;
          o.workers = j;
          if (listed) o.listing = ListingOptions{false, std::size_t{256} << 20, ""};
          const double c0 = cpu_seconds(), o0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
          const auto t0 = std::chrono::steady_clock::now();
          TestResult res = run_engine(t, o);
          res.seconds = 0;            // printed in the text's last line
          std::size_t text_hash = 0;  // of the printed text's pieces
          if (listed) {
            std::FILE* null = std::fopen("/dev/null", "w");
            write_text(res, [&](std::string_view p) {
              text_hash = text_hash * 31 + std::hash<std::string_view>{}(p);
              std::fwrite(p.data(), 1, p.size(), null);
            });
            std::fclose(null);
          }
          wall[j - 1].push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
          cpu[j - 1].push_back(cpu_seconds() - c0);
          own[j - 1].push_back(cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - o0);
          outcomes = res.outcome_count();
          if (k == 0 && listed) values[j - 1].push_back(std::to_string(text_hash));
          if (k == 0)
            for (const Outcome& out : res.outcomes) {
              std::string v;
              for (std::uint64_t x : out.values) v += std::to_string(x) + ",";
              for (const std::string& e : out.witness.rf) v += e + ";";
              values[j - 1].push_back(std::move(v));
            }
        }
      same = same && values[0] == values[1];
      for (unsigned j : {1u, 2u}) {
        const auto& w = wall[j - 1];
        const auto& c = cpu[j - 1];
        fmt::print(
            "{:<30} {:>3} {:>9} {:>3} {:>7.3f}/{:<7.3f} {:>7.3f}/{:<7.3f} {:>8.2f} {:>8.3f} "
            "{:>8.2f}{}\n",
            fmt::format("IRIW{}, N readers{}", fence ? "+fence.sc" : "", listed ? ", listed" : ""),
            n, outcomes, j, *std::min_element(w.begin(), w.end()), median(w),
            *std::min_element(c.begin(), c.end()), median(c), median(w) / median(wall[0]),
            median(own[j - 1]), median(own[j - 1]) / median(cpu[0]),
            same ? "" : "  ** -j 1 and -j 2 differ **");
        const std::string how = std::string(fence ? " fence.sc" : "") + (listed ? " listed" : "");
        csv << fmt::format("\"s: -j {}{} wall median\",{},{},auto,{:.4f},,,,\n", j, how, n,
                           outcomes, median(w));
        csv << fmt::format("\"s: -j {}{} cpu median\",{},{},auto,{:.4f},,,,\n", j, how, n, outcomes,
                           median(c));
      }
      std::cout.flush();
    }
  return same;
}

// One listing in a child process, so that its peak resident size is its
// own: IRIW with n readers, every outcome printed as `run` prints it (text,
// to /dev/null), `held` as before issue 34 item 2 (the outcome list, then
// render_text), else from an OutcomeStore (`run`'s listing). Returns wall s,
// CPU s, peak KiB and the outcomes (read back through a pipe).
struct Listed {
  double wall = 0, cpu = 0;
  long peak_kib = 0;
  std::size_t outcomes = 0, spilled = 0;
  bool ok = false;
};

Listed list_in_child(int n, bool held) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const LitmusTest t = parse_litmus(iriw(n, false), fmt::format("iriw-{}.litmus", n));
    EngineOptions o;
    o.max_outcomes = std::size_t{1} << 30;
    if (!held) o.listing = ListingOptions{false, std::size_t{256} << 20, ""};
    const TestResult r = run_engine(t, o);
    std::FILE* null = std::fopen("/dev/null", "w");
    write_text(r, [&](std::string_view s) { std::fwrite(s.data(), 1, s.size(), null); });
    std::fclose(null);
    const std::size_t got[2] = {r.outcome_count(), r.listing ? r.listing->runs_spilled() : 0};
    const bool wrote = write(fds[1], got, sizeof got) == static_cast<ssize_t>(sizeof got);
    _exit(wrote ? 0 : 1);
  }
  close(fds[1]);
  Listed l;
  std::size_t got[2] = {0, 0};
  const bool read_all = read(fds[0], got, sizeof got) == static_cast<ssize_t>(sizeof got);
  close(fds[0]);
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return l;
  l.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  l.cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
          static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  l.peak_kib = ru.ru_maxrss;
  l.outcomes = got[0];
  l.spilled = got[1];
  l.ok = read_all && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return l;
}

// Family l, "IRIW-12 listing" (issue 34 item 2): IRIW with N readers, every
// outcome listed and printed, in a child process each: wall and CPU
// seconds, peak resident size and CPU per outcome; "held" is the outcome
// list of before, at sizes where it fits.
void listing_family(std::ofstream& csv, bool quick) {
  fmt::print("\n{:<26} {:>3} {:>10} {:>6} {:>8} {:>8} {:>9} {:>8} {:>7}\n", "l: IRIW-12 listing",
             "N", "outcomes", "how", "wall s", "cpu s", "peak MiB", "us/outc", "spilled");
  for (int n : quick ? std::vector<int>{8, 10} : std::vector<int>{8, 10, 11, 12})
    for (bool held : {true, false}) {
      if (held && n > 10) continue;  // 4 M outcomes held: 5 GB and more
      const Listed l = list_in_child(n, held);
      if (!l.ok) {
        fmt::print("{:<26} {:>3} failed\n", "IRIW, N readers", n);
        continue;
      }
      const double us = l.outcomes ? 1e6 * l.cpu / static_cast<double>(l.outcomes) : 0;
      fmt::print("{:<26} {:>3} {:>10} {:>6} {:>8.2f} {:>8.2f} {:>9.0f} {:>8.2f} {:>7}\n",
                 "IRIW, N readers", n, l.outcomes, held ? "held" : "listed", l.wall, l.cpu,
                 static_cast<double>(l.peak_kib) / 1024, us, l.spilled);
      csv << fmt::format("\"l: {} wall\",{},{},enum,{:.4f},{:.3f},,,\n", held ? "held" : "listed",
                         n, l.outcomes, l.wall, us);
      csv << fmt::format("\"l: {} peak MiB\",{},{},enum,{:.1f},,,,\n", held ? "held" : "listed", n,
                         l.outcomes, static_cast<double>(l.peak_kib) / 1024);
      std::cout.flush();
    }
}

}  // namespace

int main(int argc, char** argv) {
  redscope::tune_allocator();  // before any thread starts
  std::string csv_path = "bench.csv";
  bool quick = false;
  std::string emit_dir;
  bool emit_only = false;  // write the tests, time nothing
  std::string only;  // family letters, e.g. "ghi"; empty: every family and the conformance run
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc)
      csv_path = argv[++i];
    else if (a == "--quick")
      quick = true;
    else if (a == "--emit" && i + 1 < argc)
      emit_dir = argv[++i];
    else if (a == "--emit-only" && i + 1 < argc) {
      emit_dir = argv[++i];
      emit_only = true;
    } else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else {
      fmt::print(
          "usage: redscope_bench [--quick] [--only LETTERS] [--csv FILE] [--emit DIR]\n"
          "  Times the default engine (auto: its choice is shown), the z3 engine and the\n"
          "  enumerator on generated families: (a) N atom.add.gpu keeping the old value,\n"
          "  (b) IRIW with N readers, (j) the same with fence.sc.gpu between each\n"
          "  reader's loads (these three observing every register and location),\n"
          "  (k) N threads with two stores and two loads observing P0:r1 only, (c) the\n"
          "  same observing x, y and P0's registers, (w) the same observing every\n"
          "  register and location (writers and readers of distinct values), (d) N red\n"
          "  of mixed .cta/.gpu scope, (e) N red.add.f32 and (f) N atom.add.f32 of\n"
          "  distinct constants, and\n"
          "  growth curves to N = 1000 of (g) one thread's N stores to x, (h) the same\n"
          "  with a reader thread and (i) one thread's stores to N locations; (s) IRIW\n"
          "  with 8 and 10 readers on one and two threads of their own (-j 2 on one\n"
          "  test: wall and CPU, min/median of 5, and the -j 2/-j 1 wall ratio); then\n"
          "  verdict-only runs (--verdict) of (v) IRIW with N readers (a witness) and\n"
          "  IRIW+fence.sc (a proof), (m) a message-passing chain over N threads with\n"
          "  .cta (a witness) and .gpu (a proof) release/acquire, each against the full\n"
          "  listing it replaces (\"full s\", auto); (l) \"IRIW-12 listing\": IRIW with\n"
          "  8 to 12 readers, every outcome listed and printed as `run` does, in a\n"
          "  child process (wall, CPU, peak memory, CPU per outcome; \"held\": the\n"
          "  outcome list of before, up to 10 readers); then the\n"
          "  conformance folder with z3 and auto at -j 1 and -j 2. The engines must list\n"
          "  the same outcomes (else \"engines disagree\" and exit status 1); us/outc is\n"
          "  auto's time per outcome.\n"
          "  --quick: the two smallest sizes of each family, no conformance run.\n"
          "  --only LETTERS: just these families (e.g. --only abjk), no conformance run.\n"
          "  --csv FILE: where the rows go (default bench.csv).\n"
          "  --emit DIR: also write each generated test to DIR/NAME.litmus (rerun one\n"
          "  with `redscope run`, adding --observe-all for families d to i;\n"
          "  bench/compare-herd.sh runs them under herd7 too).\n"
          "  --emit-only DIR: write the tests (of --only's families), time nothing.\n"
          "  An engine is skipped (\"-\") at sizes it would spend over a minute on,\n"
          "  judged from the growth of its previous size.\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  std::error_code ec;
  if (!emit_dir.empty()) std::filesystem::create_directories(emit_dir, ec);
  if (ec) {
    fmt::print(stderr, "redscope_bench: cannot create {}: {}\n", emit_dir, ec.message());
    return 2;
  }
  std::ofstream csv;
  if (!emit_only) {
    csv.open(csv_path);
    if (!csv) {
      fmt::print(stderr, "redscope_bench: cannot write {}\n", csv_path);
      return 2;
    }
  }
  int emitted = 0;
  if (!emit_only) fmt::print("machine: {}\n", machine());
  csv << "family,n,outcomes,auto_engine,auto_seconds,auto_us_per_outcome,z3_seconds,"
         "enum_seconds,z3_over_auto\n";
  const auto selected = [&](const std::string& name) {
    return only.empty() || only.find(name[0]) != std::string::npos;
  };
  const auto all = families();
  if (!emit_only &&
      std::any_of(all.begin(), all.end(), [&](const Family& f) { return selected(f.name); }))
    fmt::print("{:<38} {:>3} {:>9} {:>12} {:>9} {:>9} {:>9} {:>8}\n", "family", "N", "outcomes",
               "auto s", "us/outc", "z3 s", "enum s", "z3/auto");
  bool disagree = false;
  // The limit counts every choice (rf, co per cell, ...); the time budget
  // decides, so it is set far above what a minute allows.
  constexpr std::size_t kEnumLimit = 1'000'000'000;
  for (const Family& f : all) {
    if (!selected(f.name)) continue;
    Column cols[3] = {{EngineKind::Auto}, {EngineKind::Z3}, {EngineKind::Enum}};
    for (int n : f.ns(quick)) {
      const std::string text = f.make(n);
      const LitmusTest t = parse_litmus(text, fmt::format("bench-{}.litmus", n));
      if (!emit_dir.empty()) {
        const std::string path = fmt::format("{}/{}.litmus", emit_dir, t.name);
        if (!(std::ofstream(path) << text)) {
          fmt::print(stderr, "redscope_bench: cannot write {}\n", path);
          return 2;
        }
        ++emitted;
      }
      if (emit_only) continue;
      std::optional<Timed> r[3];
      for (int k = 0; k < 3; ++k) r[k] = cols[k].run(t, kEnumLimit, f.observe_all);
      // Every engine that finished must list the same outcomes.
      const Timed* ref = nullptr;
      bool differ = false;
      for (const auto& x : r)
        if (x && !x->failure) {
          if (ref && ref->values != x->values) differ = true;
          if (!ref) ref = &*x;
        }
      disagree = disagree || differ;
      const std::size_t outcomes = ref ? ref->outcomes : 0;
      const bool have_auto = r[0] && !r[0]->failure;
      const std::string auto_s =
          have_auto ? fmt::format("{:.3f} {:<4}", r[0]->seconds, r[0]->engine) : cell(r[0]);
      const std::string per =
          have_auto && outcomes ? fmt::format("{:.1f}", 1e6 * r[0]->seconds / outcomes) : "-";
      const std::string ratio = have_auto && r[1] && !r[1]->failure
                                    ? fmt::format("{:.3g}", r[1]->seconds / r[0]->seconds)
                                    : "-";
      fmt::print("{:<38} {:>3} {:>9} {:>12} {:>9} {:>9} {:>9} {:>8}{}\n", f.name, n,
                 ref ? std::to_string(outcomes) : "-", auto_s, per, cell(r[1]), cell(r[2]), ratio,
                 differ ? "  ** engines disagree **" : "");
      csv << fmt::format("\"{}\",{},{},{},{},{},{},{},{}\n", f.name, n, outcomes,
                         have_auto ? r[0]->engine : "", have_auto ? cell(r[0]) : "",
                         per == "-" ? "" : per, r[1] && !r[1]->failure ? cell(r[1]) : "",
                         r[2] && !r[2]->failure ? cell(r[2]) : "", ratio == "-" ? "" : ratio);
      std::cout.flush();
    }
  }
  if (!emit_only && (only.empty() || only.find_first_of("vm") != std::string::npos))
    disagree = time_verdict_families(only, quick, csv, emit_dir) || disagree;
  if (!emit_only && (only.empty() || only.find('l') != std::string::npos))
    listing_family(csv, quick);
  if (!emit_only && (only.empty() || only.find('s') != std::string::npos))
    disagree = !speedup(csv, quick) || disagree;
  if (!quick && only.empty() && !emit_only) {
    const std::string dir = std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx";
    try {
      const auto files = collect_litmus_files({dir});
      for (EngineKind e : {EngineKind::Z3, EngineKind::Auto})
        for (unsigned jobs : {1u, 2u}) {
          const auto t0 = std::chrono::steady_clock::now();
          EngineOptions o;
          o.engine = e;
          (void)run_suite(files, o, jobs);
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          fmt::print("conformance ({} files), {}, -j {}: {:.2f} s\n", files.size(), to_string(e),
                     jobs, s);
          csv << fmt::format("\"conformance {} -j {}\",{},,,{:.4f},,,,\n", to_string(e), jobs,
                             files.size(), s);
        }
    } catch (const InputError& e) {
      fmt::print("conformance: not timed ({})\n", e.diagnostic().render());
    }
  }
  if (!emit_only) fmt::print("rows written to {}\n", csv_path);
  if (!emit_dir.empty()) fmt::print("{} tests written to {}\n", emitted, emit_dir);
  return disagree ? 1 : 0;
}
