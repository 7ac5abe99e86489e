// CUDA C++ litmus tests (docs/cuda.md): the test as written, the kernel
// convention nvcc is given, and the reading of nvcc's PTX back into threads.
//
//   CUDA MP+rel-acq.dev
//   { int x = 0; int y = 0; __shared__ int s; }
//   P0@cta 0,gpu 0 { *x = 1; cuda::atomic_ref<int, ...>(*y).store(1, ...); }
//   P1@cta 1,gpu 0 { int r0 = ...load(...); int r1 = *x; }
//   exists (P1:r0 == 1 /\ P1:r1 == 0)
//
// The stages: read_cuda_source (text -> CudaSource, no compiler), then
// kernel_source (CudaSource -> the CUDA C++ nvcc compiles, one kernel per
// thread), then lower_compiled_entry (nvcc's PTX of one kernel -> the
// thread's PTX instructions). Compiling sits above this stage
// (dialects/cuda): this stage never runs a process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/generate/cycle.hpp"

namespace redscope::cuda {

// nvcc 13 compiles for sm_75 and later (`nvcc --list-gpu-arch`).
inline constexpr int kMinCudaTarget = 75;

// The C types a location or an observed local may have (issue 44's list).
enum class CType : std::uint8_t { Int, Unsigned, LongLong, ULongLong, Float, Double };
std::string_view c_name(CType t);                           // "int", "unsigned long long"
DataType data_type(CType t);                                // s32, u32, s64, u64, f32, f64
std::optional<CType> c_type_named(std::string_view words);  // "unsigned int" -> Unsigned

// A variable of the init block: `int x = 0;` (global) or `__shared__ int s;`.
struct CudaLocation {
  std::string name;
  CType type = CType::Int;
  bool shared = false;
  Literal value;  // "0" when none is written
  SourceLoc loc;
};

// A local named in the final condition (`P1:r0`): the thread stores it to
// its output array at the end, slot j at byte 8*j (j in order of first
// appearance in the condition), as its own C type.
struct ObservedLocal {
  std::string name;
  CType type = CType::Int;
  SourceLoc declared;  // its declaration in the body
};

// One thread: its header and its body, as written.
struct CudaThread {
  std::string name;  // "P0"
  Placement place;
  SourceLoc loc;      // the header
  SourceLoc body_at;  // the first character after `{`
  std::string body;   // the text between the braces
  std::vector<ObservedLocal> observed;
};

struct CudaSource {
  // Header, metadata, target, init entries (one per location, typed and
  // placed), threads (name and placement, no code yet) and the condition.
  LitmusTest skeleton;
  std::vector<CudaLocation> locations;  // declaration order
  std::vector<CudaThread> threads;
};

// Reads a CUDA litmus test; InputError (file:line:col) on bad input,
// including bodies that could leave their kernel (docs/cuda.md "Limits").
CudaSource read_cuda_source(std::string_view text, const std::string& file);

// `gen cycle --lang cuda`: a cycle's test written in CUDA C++, each access
// the libcu++ operation nvcc compiles to the PTX test's (cycle_writer.cpp).
const generate::CycleLanguage& cycle_language();

// ---- The kernel convention (docs/cuda.md "What nvcc is given") ----
//
// Test k of a translation unit is `namespace redscope_tK { ... }` holding
// its `__shared__` variables (by their own names) and one kernel per thread:
//   extern "C" __global__ void redscope_tK_P0(int *x, int *y, int *__out)
// the global locations as pointers of their C type in declaration order,
// then __out, to which the thread stores its observed locals at its end.

// The kernel of thread `thread` of test `k` ("redscope_t3_P1").
std::string entry_name(std::size_t k, std::string_view thread);
// The PTX symbol nvcc gives shared variable `name` of test k
// ("_ZN11redscope_t31sE": the namespace-qualified, mangled name).
std::string shared_symbol(std::size_t k, std::string_view name);

// The CUDA C++ of test k: its namespace, with `#line` directives that
// make nvcc's messages and `.loc` lines name `line_file` (the test's own
// file as nvcc should print it) and the test's lines.
std::string kernel_source(const CudaSource& src, std::size_t k, std::string_view line_file);

// ---- Reading nvcc's PTX (docs/cuda.md "How nvcc's PTX is read") ----

// What the convention says about one kernel.
struct EntryPlan {
  std::string entry;                // the .entry name
  std::vector<std::string> params;  // location of param i (globals, declaration order)
  std::vector<std::pair<std::string, std::string>> shared;  // PTX symbol -> location
  std::vector<ObservedLocal> observed;                      // slot j of __out (the last param)
  std::string line_file;  // the `.file` whose `.loc` lines are the test's
};

// The thread's code, read from the `.entry` of `module` (nvcc's PTX for the
// whole translation unit). Each instruction's loc is the test's line:col of
// the statement it came from (`.loc`), its text nvcc's PTX. Every address
// resolves statically to a location and offset; observed locals become
// registers of their own names (`P1:r0` reads register r0). InputError at
// the C line (and naming the PTX line) for what cannot be read.
ThreadCode lower_compiled_entry(std::string_view module, const EntryPlan& plan,
                                const ThreadCode& header, const LitmusTest& test);

}  // namespace redscope::cuda
