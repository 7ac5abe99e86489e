// nvcc's PTX of one kernel -> the thread's PTX instructions (docs/cuda.md
// "How nvcc's PTX is read"). IN PROGRESS: replaced by the reader.
#include "redscope/core/diagnostic.hpp"
#include "redscope/frontend/cuda.hpp"

namespace redscope::cuda {

ThreadCode lower_compiled_entry(std::string_view, const EntryPlan& plan, const ThreadCode& header,
                                const LitmusTest& test) {
  throw InputError(Diagnostic{test.file, header.loc,
                              "reading nvcc's PTX of " + plan.entry + " is not built yet"});
}

}  // namespace redscope::cuda
