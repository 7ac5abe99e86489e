// The kernel convention (docs/cuda.md "What nvcc is given"): each test a
// namespace of its own, each thread an `extern "C" __global__` kernel whose
// parameters are the global locations, then the output array.
#include <fmt/format.h>

#include "redscope/dialects/cuda/cuda.hpp"

namespace redscope::cuda {

std::string entry_name(std::size_t k, std::string_view thread) {
  return fmt::format("redscope_t{}_{}", k, thread);
}

// The Itanium C++ ABI's nested name (§5.1.5): N <namespace> <name> E, each
// a <source-name>, its length then its characters.
std::string shared_symbol(std::size_t k, std::string_view name) {
  const std::string ns = fmt::format("redscope_t{}", k);
  return fmt::format("_ZN{}{}{}{}E", ns.size(), ns, name.size(), name);
}

namespace {

// The thread's kernel: the body at its own line and column (`#line`, and
// the first line padded to the body's column, so nvcc's messages and `.loc`
// lines give the test's line:col), then the stores of the observed locals.
void emit_kernel(std::string& out, const CudaSource& src, std::size_t k, const CudaThread& th,
                 std::string_view line_file) {
  std::string params;
  for (const CudaLocation& l : src.locations)
    if (!l.shared) params += fmt::format("{} *{}, ", c_name(l.type), l.name);
  out += fmt::format("extern \"C\" __global__ void {}({}int *__out) {{\n", entry_name(k, th.name),
                     params);
  out += fmt::format("#line {} \"{}\"\n", th.body_at.line, line_file);
  out += std::string(static_cast<std::size_t>(std::max(th.body_at.col - 1, 0)), ' ');
  out += th.body;
  out += "\n";
  // Slot j of __out holds observed local j as its own type (8 bytes a slot).
  for (std::size_t j = 0; j < th.observed.size(); ++j)
    out += fmt::format("{{ auto __v = +{}; *(decltype(__v) *)((char *)__out + {}) = __v; }}\n",
                       th.observed[j].name, 8 * j);
  out += "}\n";
}

}  // namespace

std::string kernel_source(const CudaSource& src, std::size_t k, std::string_view line_file) {
  std::string out = fmt::format("namespace redscope_t{} {{\n", k);
  for (const CudaLocation& l : src.locations)
    if (l.shared) out += fmt::format("__shared__ {} {};\n", c_name(l.type), l.name);
  for (const CudaThread& th : src.threads) emit_kernel(out, src, k, th, line_file);
  out += fmt::format("}}  // namespace redscope_t{}\n", k);
  return out;
}

}  // namespace redscope::cuda
