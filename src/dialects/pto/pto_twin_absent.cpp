// The PTO Z3 twin in a build without Z3 (REDSCOPE_WITH_Z3=OFF; CMakeLists.txt
// builds a dialect folder's *_absent.cpp in place of its *_z3*.cpp): the
// twin is the z3 engine and xval's allowing side of PTO programs, so asking
// for either says that this build has no solver; the explorer (the enum
// engine and auto's choice) is unaffected.
#include "dialects/pto/pto_z3.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/engine/z3/z3.hpp"

namespace redscope {

TestResult run_pto_z3(const LitmusTest& test, const EngineOptions&) {
  throw InputError(Diagnostic{test.file, {1, 1}, no_z3_message("the PTO Z3 twin")});
}

}  // namespace redscope
