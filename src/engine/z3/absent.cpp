// engine/z3 in a build without Z3 (REDSCOPE_WITH_Z3=OFF, the WebAssembly
// build): every entry point says that this build has no Z3 engine, so the
// stages above link unchanged and a feature that needs the solver fails with
// a clear error instead of being compiled out one caller at a time.
#include <stdexcept>

#include "redscope/core/diagnostic.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/z3.hpp"

namespace redscope {

bool z3_available() { return false; }

TestResult run_z3(const LitmusTest& test, const EngineOptions&) {
  throw InputError(Diagnostic{test.file, {1, 1}, no_z3_message("--engine z3")});
}

namespace {
[[noreturn]] void no_solver() { throw std::invalid_argument(no_z3_message("this analysis")); }
}  // namespace

// A session is the first thing every query needs: it refuses, so no Query
// is ever made and its members below are never reached.
struct QuerySession::Impl {};
QuerySession::QuerySession(const Budget*) { no_solver(); }
QuerySession::~QuerySession() = default;

struct Query::Impl {};
Query::Query(QuerySession&, const Skeleton&, const QueryModel&, const Budget*) { no_solver(); }
Query::~Query() = default;
void Query::require_values(const std::vector<Observable>&, const std::vector<std::uint64_t>&) {
  no_solver();
}
void Query::require_condition(const CondExpr&, const std::vector<Observable>&) { no_solver(); }
void Query::require_normal_end() { no_solver(); }
void Query::encode_final_values() { no_solver(); }
bool Query::possible_under(const std::vector<std::string>&) { no_solver(); }
bool Query::possible(Barriers) { no_solver(); }
bool Query::possible_with(const std::vector<ExecutionFact>&) { no_solver(); }
std::optional<std::size_t> Query::possible_with_any(
    const std::vector<std::vector<ExecutionFact>>&) {
  no_solver();
}
std::vector<std::string> Query::minimal_core(std::vector<std::string>) { no_solver(); }
Witness Query::witness(std::size_t) const { no_solver(); }
ChosenExecution Query::execution() const { no_solver(); }
std::vector<std::pair<std::string, std::uint64_t>> Query::final_values() const { no_solver(); }
const cat::StaticPrimitives& Query::static_primitives() const { no_solver(); }

}  // namespace redscope
