// Reading nvcc's PTX back into threads (redscope::cuda::lower_compiled_entry,
// docs/cuda.md "How nvcc's PTX is read"). The fixtures tests/cuda_ptx/*.cu
// are written by hand to the kernel convention of cuda.hpp and compiled
// here with the real nvcc (-ptx -rdc=true -arch=sm_90 -lineinfo); without
// one ($CUDA_HOME/bin/nvcc) the tests are skipped with a message.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/frontend/container.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_cuda_ptx {

using namespace redscope;
using cuda::CType;
using cuda::EntryPlan;
using cuda::ObservedLocal;
namespace fs = std::filesystem;

namespace {

std::optional<std::string> nvcc_path() {
  const char* home = std::getenv("CUDA_HOME");
  const fs::path nvcc = fs::path(home && *home ? home : "/usr/local/cuda") / "bin" / "nvcc";
  if (!fs::exists(nvcc)) return std::nullopt;
  return nvcc.string();
}

// nvcc's PTX of the CUDA file `src` (compiled into a fresh temporary
// folder), or nothing when there is no nvcc. `source`: written there first.
std::optional<std::string> compile(const std::string& name, fs::path src,
                                   const std::string& source = {}) {
  const auto nvcc = nvcc_path();
  if (!nvcc) return std::nullopt;
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("redscope-cuda-ptx-{}-{}", getpid(), name);
  fs::create_directories(dir);
  if (!source.empty()) {
    src = dir / (name + ".cu");
    std::ofstream(src) << source;
  }
  const fs::path out = dir / (name + ".ptx");
  const std::string cmd =
      fmt::format("'{}' -ptx -rdc=true -arch=sm_90 -lineinfo '{}' -o '{}' > '{}' 2>&1", *nvcc,
                  src.string(), out.string(), (dir / "log").string());
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove_all(dir);
  REQUIRE(rc == 0);
  return text.str();
}

// nvcc's PTX of tests/cuda_ptx/NAME.cu.
std::optional<std::string> compiled(const std::string& name) {
  return compile(name, fs::path(REDSCOPE_SOURCE_DIR) / "tests" / "cuda_ptx" / (name + ".cu"));
}

#define REQUIRE_PTX(var, ptx_text)                                                              \
  const std::optional<std::string> var = ptx_text;                                              \
  if (!var) {                                                                                   \
    WARN("nvcc not found ($CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc): CUDA tests skipped"); \
    return;                                                                                     \
  }

InitEntry location(const std::string& name, bool shared) {
  InitEntry e;
  e.name = name;
  e.type = DataType::S32;
  e.space = shared ? Space::SharedCta : Space::Global;
  e.values = {Literal{"0", {}}};
  return e;
}

ThreadCode header(const std::string& name, int cta, int line) {
  ThreadCode h;
  h.name = name;
  h.place = Placement{cta, -1 - cta, 0};  // `cta N,gpu 0`: a cluster of its own
  h.loc = SourceLoc{line, 1};
  return h;
}

// A test with global x and y, and shared s and t, no threads yet.
LitmusTest skeleton(const std::string& file) {
  LitmusTest t;
  t.file = file;
  t.arch = "PTX";
  t.name = file;
  t.init = {location("x", false), location("y", false), location("s", true), location("t", true)};
  return t;
}

EntryPlan plan_for(const std::string& entry, std::vector<std::string> observed,
                   const std::string& line_file, std::size_t k = 2) {
  EntryPlan p;
  p.entry = entry;
  p.params = {"x", "y"};
  p.shared = {{fmt::format("_ZN11redscope_t{}1sE", k), "s"},
              {fmt::format("_ZN11redscope_t{}1tE", k), "t"}};
  for (const std::string& o : observed) p.observed.push_back(ObservedLocal{o, CType::Int, {}});
  p.line_file = line_file;
  return p;
}

// One line per instruction: what the model sees of it.
std::string describe(const Instruction& in) {
  const std::string guard =
      in.guard ? fmt::format("@{}{} ", in.guard_negated ? "!" : "", in.guard->name) : "";
  const auto addr = [&] {
    return in.addr->offset ? fmt::format("{}+{}", in.addr->name, in.addr->offset) : in.addr->name;
  };
  const auto access = [&](std::string_view k) {
    const std::string order =
        in.sem == Sem::Weak ? "weak" : fmt::format("{}.{}", to_string(in.sem), to_string(in.scope));
    return fmt::format("{}{} {} {} [{}]", guard, k, order, to_string(in.space), addr());
  };
  const auto operand = [](const Operand& o) {
    return o.kind == Operand::Kind::Imm ? std::to_string(o.value) : o.name;
  };
  switch (in.kind) {
    case InstrKind::Load: return access("ld");
    case InstrKind::Store: return access("st");
    case InstrKind::Atom: return access(fmt::format("atom.{}", to_string(in.op)));
    case InstrKind::Red: return access(fmt::format("red.{}", to_string(in.op)));
    case InstrKind::Fence:
      return fmt::format("fence {}.{}", to_string(in.sem), to_string(in.scope));
    case InstrKind::Barrier: return fmt::format("bar.cta.sync {}", in.barrier.id.value);
    case InstrKind::Setp: return "setp";
    case InstrKind::Goto: return fmt::format("{}bra {}", guard, in.label);
    case InstrKind::Label: return fmt::format("{}:", in.label);
    case InstrKind::Local:
      if (in.op == RmwOp::Mov)
        return fmt::format("{}mov.{} {} <- {}", guard, to_string(in.type), in.dst->name,
                           operand(in.srcs.at(0)));
      return fmt::format("{}{} {}", guard, to_string(in.op), in.dst->name);
    default: return "other";
  }
}

std::vector<std::string> describe(const ThreadCode& tc) {
  std::vector<std::string> out;
  for (const Instruction& in : tc.code) out.push_back(describe(in));
  return out;
}

// The outcomes of the observed registers, "P1:r0=1 P1:r1=0" each.
std::set<std::string> outcomes(LitmusTest t, const std::string& condition) {
  std::string tail = condition;
  t = redscope::detail::parse_condition_tail(tail, t.file, std::move(t), {});
  EngineOptions o;
  o.engine = EngineKind::Enum;
  const TestResult r = run_enum(t, o);
  std::set<std::string> out;
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    std::string s;
    for (std::size_t k = 0; k < r.observables.size(); ++k)
      s += (s.empty() ? "" : " ") + r.observables[k].label + "=" + r.render_value(i, k);
    out.insert(s);
  }
  return out;
}

const std::string kEnd = "$L__redscope_end";

std::string line_col(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

}  // namespace

TEST_CASE("cuda-ptx: MP with release/acquire reads as st.release / ld.acquire", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("mp"));
  LitmusTest t = skeleton("MP.litmus");
  const ThreadCode p0 = cuda::lower_compiled_entry(
      *ptx, plan_for("redscope_t0_P0", {}, "MP.litmus", 0), header("P0", 0, 2), t);
  // *x = 1 is a weak global store after cvta.to.global; libcu++'s release
  // store at device scope is its inline `st.release.gpu.b32` through the
  // generic pointer (cuda_ptx_generated.h); ret jumps to the end.
  CHECK(describe(p0) == std::vector<std::string>{"mov.u32 %r1 <- 1", "st weak global [x]",
                                                 "st release.gpu generic [y]", "bra " + kEnd,
                                                 kEnd + ":"});
  CHECK(line_col(p0.code[1].loc) == "4:3");  // `*x = 1;` at MP.litmus:4:3 (#line)
  CHECK(line_col(p0.code[2].loc) == "5:3");
  CHECK(p0.code[2].text == "st.release.gpu.b32 [%rd1],%r1");  // nvcc's own text
  CHECK(p0.name == "P0");
  const ThreadCode p1 = cuda::lower_compiled_entry(
      *ptx, plan_for("redscope_t0_P1", {"r0", "r1"}, "MP.litmus", 0), header("P1", 1, 3), t);
  // The acquire load, the plain load of x, then the observed locals stored
  // through __out at bytes 0 and 8: movs to registers of their own names.
  CHECK(describe(p1) == std::vector<std::string>{"ld acquire.gpu generic [y]", "ld weak global [x]",
                                                 "mov.s32 r0 <- %r1", "mov.s32 r1 <- %r2",
                                                 "bra " + kEnd, kEnd + ":"});
  CHECK(line_col(p1.code[2].loc) == "10:3");

  // The outcomes, from the PTX model: P0's release store and P1's acquire
  // load are morally strong (both .gpu, the threads on one GPU), so if r0
  // reads 1 the release synchronizes with the acquire and the weak store to
  // x precedes the load of x in causality order: r1 = 0 is forbidden. Every
  // other pair is allowed (P1 before P0, or between its two stores).
  t.threads = {p0, p1};
  CHECK(outcomes(t, "exists (P1:r0 == 1 /\\ P1:r1 == 0)") ==
        std::set<std::string>{"P1:r0=0 P1:r1=0", "P1:r0=0 P1:r1=1", "P1:r0=1 P1:r1=1"});

  // Spinning on the acquire load: a backward branch, unrolled by the
  // expansion. An execution leaves the loop only once the acquire reads 1,
  // which then synchronizes with the release as above: r1 = 1 is the only
  // outcome; the executions that spin past the unroll bound are cut, not
  // outcomes.
  const ThreadCode p2 = cuda::lower_compiled_entry(
      *ptx, plan_for("redscope_t0_P2", {"r1"}, "MP.litmus", 0), header("P1", 1, 3), t);
  CHECK(describe(p2) == std::vector<std::string>{"$L__BB2_1:", "ld acquire.gpu generic [y]", "setp",
                                                 "@%p1 bra $L__BB2_1", "ld weak global [x]",
                                                 "mov.s32 r1 <- %r2", "bra " + kEnd, kEnd + ":"});
  t.threads = {p0, p2};
  CHECK(outcomes(t, "exists (P1:r1 == 0)") == std::set<std::string>{"P1:r1=1"});
}

TEST_CASE("cuda-ptx: SB with seq_cst is fenced, SB relaxed is not", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("sb"));
  LitmusTest t = skeleton("SB.litmus");
  auto lower = [&](const std::string& k, const std::string& name, int cta) {
    return cuda::lower_compiled_entry(*ptx, plan_for("redscope_t1_" + k, {name}, "SB.litmus", 1),
                                      header(k.substr(1) == "0" ? "P0" : "P1", cta, 2), t);
  };
  // libcu++'s seq_cst store is fence.sc + st.relaxed, its seq_cst load
  // fence.sc + ld.acquire (cuda_ptx_derived.h: __atomic_store_cuda /
  // __atomic_load_cuda with __ATOMIC_SEQ_CST).
  const ThreadCode p0 = lower("P0", "r0", 0);
  CHECK(describe(p0) == std::vector<std::string>{"fence sc.gpu", "mov.u32 %r1 <- 1",
                                                 "st relaxed.gpu generic [x]", "fence sc.gpu",
                                                 "ld acquire.gpu generic [y]", "mov.s32 r0 <- %r2",
                                                 "bra " + kEnd, kEnd + ":"});
  const ThreadCode p1 = lower("P1", "r1", 1);
  // SB: each thread stores one location and loads the other. With a
  // fence.sc between the store and the load in both threads (morally strong:
  // .gpu, one GPU), the fences are ordered one way in the SC order and the
  // later fence's thread must see the other's store: r0 = r1 = 0 is
  // forbidden; the other three outcomes are interleavings.
  t.threads = {p0, p1};
  CHECK(outcomes(t, "exists (P0:r0 == 0 /\\ P1:r1 == 0)") ==
        std::set<std::string>{"P0:r0=0 P1:r1=1", "P0:r0=1 P1:r1=0", "P0:r0=1 P1:r1=1"});
  // Relaxed: no fence, nothing orders each store before the other thread's
  // load (the PTX model has no store-to-load order): all four outcomes.
  const ThreadCode q0 = lower("Q0", "r0", 0), q1 = lower("Q1", "r1", 1);
  CHECK(describe(q0) == std::vector<std::string>{"mov.u32 %r1 <- 1", "st relaxed.gpu generic [x]",
                                                 "ld relaxed.gpu generic [y]", "mov.s32 r0 <- %r2",
                                                 "bra " + kEnd, kEnd + ":"});
  t.threads = {q0, q1};
  CHECK(outcomes(t, "exists (P0:r0 == 0 /\\ P1:r1 == 0)") ==
        std::set<std::string>{"P0:r0=0 P1:r1=0", "P0:r0=0 P1:r1=1", "P0:r0=1 P1:r1=0",
                              "P0:r0=1 P1:r1=1"});
}

TEST_CASE("cuda-ptx: shared memory, CAS loops, fences, volatile, if and ?:", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("idioms"));
  const LitmusTest t = skeleton("idioms.litmus");
  auto lower = [&](const std::string& k, std::vector<std::string> observed) {
    return cuda::lower_compiled_entry(
        *ptx, plan_for("redscope_t2_" + k, std::move(observed), "idioms.litmus"), header(k, 0, 1),
        t);
  };
  // `t = 3` stores straight to the symbol; the block-scope fetch_add goes
  // through `mov.u32 %r, s; cvt.u64.u32; cvta.shared.u64` (a nested block
  // with its own %tmp) to libcu++'s `atom.add.relaxed.cta.s32` on the
  // generic address; __syncthreads is bar.sync 0 = bar.cta.sync 0.
  const ThreadCode p0 = lower("P0", {"r0", "r1"});
  CHECK(describe(p0) ==
        std::vector<std::string>{"mov.u32 %r3 <- 3", "st weak shared::cta [t]", "mov.u32 %r2 <- 1",
                                 "atom.add relaxed.cta generic [s]", "bar.cta.sync 0",
                                 "ld weak shared::cta [s]", "mov.s32 r0 <- %r1",
                                 "mov.s32 r1 <- %r5", "bra " + kEnd, kEnd + ":"});
  CHECK(line_col(p0.code[3].loc) == "6:3");
  // atomicCAS(y, 0, 1) in a spin loop: atom.global.cas (relaxed, .gpu by
  // default) and a backward branch the expansion unrolls.
  const ThreadCode p1 = lower("P1", {"r0"});
  CHECK(describe(p1) == std::vector<std::string>{
                            "$L__BB1_1:", "mov.u32 %r1 <- 1", "mov.u32 %r2 <- 0",
                            "atom.cas relaxed.gpu global [y]", "setp", "@%p1 bra $L__BB1_1",
                            "ld weak global [x]", "mov.s32 r0 <- %r4", "bra " + kEnd, kEnd + ":"});
  CHECK(p1.labels.at("$L__BB1_1") == 0);
  CHECK(p1.labels.at(kEnd) == p1.code.size() - 1);
  // volatile is .relaxed.sys (PTX ISA §8.3); __threadfence() is membar.gl,
  // fence.sc.gpu.
  const ThreadCode p2 = lower("P2", {"r0"});
  CHECK(describe(p2) == std::vector<std::string>{"mov.u32 %r1 <- 1", "st relaxed.sys global [x]",
                                                 "fence sc.gpu", "ld relaxed.sys global [y]",
                                                 "mov.s32 r0 <- %r2", "bra " + kEnd, kEnd + ":"});
  // if (r0 == 2) *y = 5 is a forward branch over the store; r0 == 1 ? 7 : 3
  // is selp, read as two guarded movs.
  const ThreadCode p3 = lower("P3", {"r0", "r1"});
  CHECK(describe(p3) == std::vector<std::string>{"ld weak global [x]", "setp", "@%p1 bra $L__BB3_2",
                                                 "mov.u32 %r2 <- 5", "st weak global [y]",
                                                 "$L__BB3_2:", "mov.s32 r0 <- %r1", "setp",
                                                 "@%p2 mov.b32 %r3 <- 7", "@!%p2 mov.b32 %r3 <- 3",
                                                 "mov.s32 r1 <- %r3", "bra " + kEnd, kEnd + ":"});
  // x[1] is [x+4]; atomicAdd_block(&s, 2) is atom.shared.cta.add on the
  // shared-window address from `mov.u32 %r2, s`; atomicExch is atom.exch.
  const ThreadCode p5 = lower("P5", {"r0", "r1"});
  CHECK(describe(p5) == std::vector<std::string>{"mov.u32 %r1 <- 2", "st weak global [x+4]",
                                                 "atom.add relaxed.cta shared::cta [s]",
                                                 "atom.exch relaxed.gpu global [y]",
                                                 "mov.s32 r0 <- %r3", "mov.s32 r1 <- %r4",
                                                 "bra " + kEnd, kEnd + ":"});
}

TEST_CASE("cuda-ptx: located errors", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("idioms"));
  const LitmusTest t = skeleton("idioms.litmus");
  auto error_of = [&](std::string_view module, const EntryPlan& plan) -> Diagnostic {
    try {
      cuda::lower_compiled_entry(module, plan, header("P0", 0, 1), t);
    } catch (const InputError& e) {
      return e.diagnostic();
    }
    FAIL("no error");
    return {};
  };
  // x[threadIdx.x] = 1: the address is x + 4 * %tid.x, known only at run time.
  const Diagnostic d = error_of(*ptx, plan_for("redscope_t2_P4", {}, "idioms.litmus"));
  CHECK(d.file == "idioms.litmus");
  CHECK(line_col(d.loc) == "30:3");
  CHECK_THAT(d.message, Catch::Matchers::StartsWith("the address of 'st.global.u32 [%rd4], %r2' "
                                                    "(PTX line "));
  CHECK_THAT(d.message, Catch::Matchers::Contains(
                            "is computed at run time: redscope needs addresses that resolve to a "
                            "location and offset (%tid.x is no register the kernel writes"));
  // No such kernel: at the thread's header.
  const Diagnostic none = error_of(*ptx, plan_for("redscope_t2_P9", {}, "idioms.litmus"));
  CHECK(line_col(none.loc) == "1:1");
  CHECK_THAT(none.message, Catch::Matchers::Contains("no kernel 'redscope_t2_P9'"));
  // P3 stores two observed locals; a plan with one leaves byte 8 no slot.
  const Diagnostic slot = error_of(*ptx, plan_for("redscope_t2_P3", {"r0"}, "idioms.litmus"));
  CHECK(line_col(slot.loc) == "28:3");
  CHECK_THAT(slot.message, Catch::Matchers::Contains(
                               "stores 4 byte(s) at byte 8 of __out, which is not the slot of an "
                               "observed local"));
  // An instruction redscope does not read, named with its PTX line.
  std::string shfl = *ptx;
  const std::size_t at = shfl.find("membar.gl;");
  REQUIRE(at != std::string::npos);
  shfl.replace(at, 10, "trap;");
  const Diagnostic trap = error_of(shfl, plan_for("redscope_t2_P2", {"r0"}, "idioms.litmus"));
  CHECK(line_col(trap.loc) == "19:3");
  CHECK_THAT(trap.message, Catch::Matchers::StartsWith("redscope cannot read 'trap' (PTX line "));
  // A register read but never written.
  std::string unset = *ptx;
  const std::size_t st = unset.find("[%rd6], %r1;", unset.find(".entry redscope_t2_P2"));
  REQUIRE(st != std::string::npos);
  unset.replace(st + 8, 3, "%r9");
  const Diagnostic reg = error_of(unset, plan_for("redscope_t2_P2", {"r0"}, "idioms.litmus"));
  CHECK(line_col(reg.loc) == "18:3");
  CHECK_THAT(reg.message, Catch::Matchers::Contains("reads %r9: %r9 is no register the kernel "
                                                    "writes"));
}

TEST_CASE("cuda-ptx: truncated and garbled modules are located errors", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("idioms"));
  const LitmusTest t = skeleton("idioms.litmus");
  const EntryPlan plan = plan_for("redscope_t2_P3", {"r0", "r1"}, "idioms.litmus");
  const std::size_t body = ptx->find(".entry redscope_t2_P3");
  REQUIRE(body != std::string::npos);
  // Cut inside the kernel's body: the module ends before its `}`.
  const std::string cut = ptx->substr(0, body + 400);
  CHECK_THROWS_AS(cuda::lower_compiled_entry(cut, plan, header("P3", 0, 1), t), InputError);
  // Every cut and many byte changes: an answer or an InputError, never a
  // crash or another exception.
  std::size_t errors = 0, runs = 0;
  auto attempt = [&](const std::string& text) {
    ++runs;
    try {
      cuda::lower_compiled_entry(text, plan, header("P3", 0, 1), t);
    } catch (const InputError& e) {
      ++errors;
      CHECK(e.diagnostic().loc.line > 0);
    }
  };
  const std::size_t end = ptx->find("\n}", body) + 2;
  for (std::size_t n = body; n < end; n += 7) attempt(ptx->substr(0, n));
  std::uint32_t seed = 44;
  const std::string noise = "{}[]();:,.%$@!+-0123456789 \n\"/*";
  for (int i = 0; i < 400; ++i) {
    std::string g = *ptx;
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1664525u + 1013904223u;
      const std::size_t pos = body + (seed >> 8) % (end - body);
      g[pos] = noise[(seed >> 3) % noise.size()];
    }
    attempt(g);
  }
  CHECK(errors > 0);
  WARN(runs << " garbled modules, " << errors << " located errors");
}

TEST_CASE("cuda-ptx: 64-bit and float locals, cvt between widths", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("types"));
  LitmusTest t;
  t.file = "types.litmus";
  t.arch = "PTX";
  t.name = "types";
  InitEntry x = location("x", false), y = location("y", false);
  x.type = DataType::S64;
  x.values = {Literal{"4294967295", {}}};
  y.type = DataType::F64;
  y.values = {Literal{"1.5", {}}};
  t.init = {x, y};
  EntryPlan plan = plan_for("redscope_t3_P0", {}, "types.litmus", 3);
  plan.shared.clear();
  const std::pair<const char*, CType> locals[] = {
      {"r0", CType::LongLong}, {"r1", CType::Double}, {"r2", CType::Int}, {"r3", CType::LongLong}};
  for (const auto& [name, type] : locals) plan.observed.push_back(ObservedLocal{name, type, {}});
  const ThreadCode p0 = cuda::lower_compiled_entry(*ptx, plan, header("P0", 0, 1), t);
  // (int)r0 is the low half of %rd1 stored as 32 bits; (long long)r2 is
  // cvt.s64.s32, read as a mov at .s32 then at .s64 (sign extension).
  CHECK(describe(p0) == std::vector<std::string>{
                            "mov.u64 %rd3 <- 3", "atom.add relaxed.gpu generic [x]",
                            "mov.s32 %cvt.0 <- %rd1", "mov.s64 %rd8 <- %cvt.0",
                            "mov.u64 %rd9 <- 4612811918334230528", "ld weak global [y]",
                            "st weak global [y]", "mov.s64 r0 <- %rd1", "mov.f64 r1 <- %fd1",
                            "mov.s32 r2 <- %rd1", "mov.s64 r3 <- %rd8", "bra " + kEnd, kEnd + ":"});
  // One thread: fetch_add returns x's initial 2^32 - 1; its low 32 bits are
  // the int -1, which sign-extends back to the long long -1; the load of y
  // precedes the store of 2.5 in program order and reads 1.5.
  t.threads = {p0};
  CHECK(outcomes(t, "exists (P0:r0 == 0 /\\ P0:r1 == 0.0 /\\ P0:r2 == 0 /\\ P0:r3 == 0)") ==
        std::set<std::string>{"P0:r0=4294967295 P0:r1=1.5 P0:r2=-1 P0:r3=-1"});
}

TEST_CASE("cuda-ptx: integer arithmetic on loaded values", "[cuda-ptx]") {
  REQUIRE_PTX(ptx, compiled("idioms"));
  LitmusTest t = skeleton("idioms.litmus");
  t.init[0].values = {Literal{"-7", {}}};  // x
  t.init[1].values = {Literal{"10", {}}};  // y
  std::vector<std::string> locals;
  std::string condition;
  for (int j = 0; j < 8; ++j) {
    locals.push_back(fmt::format("r{}", j));
    condition += fmt::format("{}P0:r{} == 0", j ? " /\\ " : "", j);
  }
  const ThreadCode p6 = cuda::lower_compiled_entry(
      *ptx, plan_for("redscope_t2_P6", locals, "idioms.litmus"), header("P0", 0, 1), t);
  t.threads = {p6};
  // a = x = -7, u = y = 10: a * 4 (shl.b32 by 2) = -28; -a (neg) = 7; ~a
  // (not, -a - 1) = 6; min(a, 3) = -7; max(a, 3) = 3; abs(a) = 7; u >> 1
  // (shr.u32) = 5; a * 3 + y (mad.lo) = -11.
  CHECK(outcomes(t, "exists (" + condition + ")") ==
        std::set<std::string>{
            "P0:r0=-28 P0:r1=7 P0:r2=6 P0:r3=-7 P0:r4=3 P0:r5=7 P0:r6=5 P0:r7=-11"});
}

// Every operation of cuda::atomic_ref at every memory_order and
// thread_scope, on a global int, a __shared__ int and a global unsigned
// long long, and the legacy intrinsics: nvcc's PTX for each is read, and
// has exactly one memory access, on the location the C++ names (libcu++
// adds fences around seq_cst operations, which access nothing; a fence
// alone has no access).
TEST_CASE("cuda-ptx: every memory_order and thread_scope of libcu++ reads", "[cuda-ptx]") {
  const std::string orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst", "consume"};
  const std::string scopes[] = {"thread", "block", "device", "system"};
  const std::string ops[] = {"load",      "store",     "exchange",  "compare_exchange_strong",
                             "fetch_add", "fetch_sub", "fetch_and", "fetch_or",
                             "fetch_xor", "fetch_min", "fetch_max", "atomic_thread_fence"};
  struct Kernel {
    std::string entry, loc, op;
    CType type;
  };
  std::vector<Kernel> kernels;
  std::string src = "#include <cuda/atomic>\nnamespace redscope_t5 {\n__shared__ int s;\n";
  auto kernel = [&](const std::string& loc, CType type, const std::string& op,
                    const std::string& body) {
    const std::string entry = fmt::format("redscope_t5_K{}", kernels.size());
    kernels.push_back(Kernel{entry, loc, op, type});
    src += fmt::format(
        "extern \"C\" __global__ void {}(int *x, unsigned long long *z, int *__out) {{\n"
        "#line 1 \"sweep.litmus\"\n  {}\n"
        "  {{ auto __v = +r0; *(decltype(__v) *)((char *)__out + 0) = __v; }}\n}}\n",
        entry, body);
  };
  for (const std::string& op : ops)
    for (const std::string& o : orders)
      for (const std::string& sc : scopes) {
        const bool load_only = o == "acquire" || o == "consume", store_only = o == "release";
        if ((op == "load" && (store_only || o == "acq_rel")) ||
            (op == "store" && (load_only || o == "acq_rel")))
          continue;
        for (const auto& [loc, type] : {std::pair<std::string, CType>{"x", CType::Int},
                                        {"s", CType::Int},
                                        {"z", CType::ULongLong}}) {
          const std::string t = type == CType::Int ? "int" : "unsigned long long";
          const std::string ref = fmt::format("cuda::atomic_ref<{}, cuda::thread_scope_{}>({}{})",
                                              t, sc, loc == "s" ? "" : "*", loc);
          const std::string mo = "cuda::std::memory_order_" + o;
          std::string body;
          if (op == "load")
            body = fmt::format("{} r0 = {}.load({});", t, ref, mo);
          else if (op == "store")
            body = fmt::format("{}.store(1, {}); {} r0 = 0;", ref, mo, t);
          else if (op == "compare_exchange_strong")
            body = fmt::format("{} e = 0; bool ok = {}.{}(e, 1, {}); {} r0 = e + ok;", t, ref, op,
                               mo, t);
          else if (op == "atomic_thread_fence")
            body = fmt::format("cuda::atomic_thread_fence({}, cuda::thread_scope_{}); {} r0 = 0;",
                               mo, sc, t);
          else
            body = fmt::format("{} r0 = {}.{}(3, {});", t, ref, op, mo);
          kernel(loc, type, op, body);
        }
      }
  for (const std::string f : {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
                              "atomicAnd", "atomicOr", "atomicXor", "atomicCAS"})
    for (const std::string suffix : {"", "_block", "_system"})
      kernel("x", CType::Int, f,
             fmt::format("int r0 = {}{}(x, 3{});", f, suffix, f == "atomicCAS" ? ", 4" : ""));
  src += "}\n";
  REQUIRE_PTX(ptx, compile("sweep", {}, src));
  LitmusTest t = skeleton("sweep.litmus");
  t.init.push_back(location("z", false));
  for (const Kernel& k : kernels) {
    INFO(k.entry << ": " << k.op << " on " << k.loc);
    EntryPlan plan = plan_for(k.entry, {}, "sweep.litmus", 5);
    plan.params = {"x", "z"};
    plan.observed = {ObservedLocal{"r0", k.type, {}}};
    const ThreadCode tc = cuda::lower_compiled_entry(*ptx, plan, header("P0", 0, 1), t);
    std::size_t accesses = 0;
    for (const Instruction& in : tc.code)
      if (in.addr) {
        ++accesses;
        CHECK(in.addr->name == k.loc);
      }
    CHECK(accesses == (k.op == "atomic_thread_fence" ? 0u : 1u));
  }
}

}  // namespace unit_cuda_ptx
