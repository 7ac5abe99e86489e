// A cycle's test in CUDA C++, `gen cycle --lang cuda` (docs/cycles.md "Other
// languages"): the same threads, locations, values and condition as the PTX
// test, each access written as the libcu++ operation nvcc 13 compiles to that PTX access
// (docs/cuda.md, the mapping tables): a weak access is a plain one, a strong access an atomic_ref
// at the annotation's memory_order and thread_scope, a fence atomic_thread_fence. Names and values
// follow diy7's -arch C (registers r0, r1, ... per thread, written values 1, 2, ... per location).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/generate/cycle_shape.hpp"

namespace redscope::cuda {

namespace {

using generate::Dir;
using generate::Edge;
using generate::EdgeKind;
using generate::Space;
using generate::detail::atom_sem;
using generate::detail::Event;
using generate::detail::location_name;
using generate::detail::ObserverThread;
using generate::detail::Placement;
using generate::detail::Shape;

// PTX scope -> libcu++ thread_scope (cluster has none: unsupported).
std::string thread_scope(const std::string& scope) {
  if (scope == "cta") return "cuda::thread_scope_block";
  if (scope == "sys") return "cuda::thread_scope_system";
  return "cuda::thread_scope_device";
}

std::string order(const std::string& sem) { return "cuda::std::memory_order_" + sem; }

// The location as a body names it: a global location through its pointer,
// a __shared__ one by itself (docs/cuda.md "Threads").
std::string lvalue(const Shape& s, int loc) {
  return s.spaces[loc] == Space::Shared ? location_name(loc) : "*" + location_name(loc);
}

std::string atomic(const Shape& s, const Event& ev) {
  return fmt::format("cuda::atomic_ref<int, {}>({})", thread_scope(ev.scope), lvalue(s, ev.loc));
}

// A fence edge's PTX instruction, fence.SEM.SCOPE, as atomic_thread_fence.
std::string fence(const Edge& e) {
  const std::string rest = e.fence.substr(6);  // "sc.gpu", "acq_rel.cta"
  const std::size_t dot = rest.find('.');
  const std::string sem = rest.substr(0, dot), scope = rest.substr(dot + 1);
  return fmt::format("cuda::atomic_thread_fence({}, {});", order(sem == "sc" ? "seq_cst" : sem),
                     thread_scope(scope));
}

std::string access(const Shape& s, const Event& ev, int reg) {
  const std::string loc = lvalue(s, ev.loc);
  if (ev.rmw_write >= 0) {
    const Event& w = s.events[ev.rmw_write];
    return fmt::format("int r{} = {}.exchange({}, {});", reg, atomic(s, ev), w.value,
                       order(atom_sem(ev, w)));
  }
  if (ev.dir == Dir::R)
    return ev.sem == "weak"
               ? fmt::format("int r{} = {};", reg, loc)
               : fmt::format("int r{} = {}.load({});", reg, atomic(s, ev), order(ev.sem));
  return ev.sem == "weak"
             ? fmt::format("{} = {};", loc, ev.value)
             : fmt::format("{}.store({}, {});", atomic(s, ev), ev.value, order(ev.sem));
}

// What a CUDA test cannot say: a dependency (nvcc folds diy's false ones,
// r - r and a branch to the next line, away) and a cluster scope (libcu++'s
// thread_scope has block, device and system).
std::optional<std::pair<std::size_t, std::string>> unsupported(const Shape& s) {
  for (std::size_t i = 0; i < s.edges.size(); ++i) {
    const Edge& e = s.edges[i];
    if (e.kind == EdgeKind::Dep)
      return std::pair{i, std::string("a dependency, which nvcc would fold away (diy's are "
                                      "false ones): write the test in PTX")};
    if ((e.kind == EdgeKind::Fence && e.fence.ends_with(".cluster")) ||
        s.events[i].scope == "cluster")
      return std::pair{i, std::string("a cluster scope (libcu++'s thread_scope has block, "
                                      "device and system): use cta, gpu or sys")};
  }
  return std::nullopt;
}

std::string program(const Shape& s) {
  std::string out = "{";
  for (int loc = 0; loc < s.locations; ++loc)
    out += fmt::format(" {}int {} = 0;", s.spaces[loc] == Space::Shared ? "__shared__ " : "",
                       location_name(loc));
  out += " }\n";
  const std::size_t n = s.edges.size();
  std::vector<std::vector<std::string>> code(s.threads);
  std::vector<int> regs(s.threads, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = s.events[i];
    const Edge& in = s.edges[(i + n - 1) % n];
    if (i > 0 && !in.external && in.kind == EdgeKind::Fence) code[ev.thread].push_back(fence(in));
    if (ev.rmw_part && ev.rmw_write < 0) continue;  // the write of an exchange written above
    const bool reads = ev.rmw_write >= 0 || ev.dir == Dir::R;
    code[ev.thread].push_back(access(s, ev, reads ? regs[ev.thread]++ : -1));
  }
  for (const ObserverThread& o : s.observers)  // loads as the cycle's reads are written
    for (int j = 0; j < o.loads; ++j) code[o.thread].push_back(access(s, o.load, j));
  for (int t = 0; t < s.threads; ++t) {
    const Placement& p = s.placements[t];
    out += s.clusters ? fmt::format("P{}@cta {},cluster {},gpu {} {{\n", t, p.cta, p.cluster, p.gpu)
                      : fmt::format("P{}@cta {},gpu {} {{\n", t, p.cta, p.gpu);
    for (const std::string& line : code[t]) out += "  " + line + "\n";
    out += "}\n";
  }
  return out;
}

void check(std::string_view text, const std::string& file) { read_cuda_source(text, file); }

}  // namespace

const generate::CycleLanguage& cycle_language() {
  static const generate::CycleLanguage kCuda{.name = "cuda",
                                             .header = "CUDA",
                                             .unsupported = unsupported,
                                             .program = program,
                                             .check = check};
  return kCuda;
}

}  // namespace redscope::cuda
