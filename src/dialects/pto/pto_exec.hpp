// What both PTO engines share (private to the engines): the observables of a
// PTO test, the result's header, and the explicit explorer that runs a
// pto::Program through every choice the semantics leaves open. The explorer
// is the enum engine for PTO; the z3 engine (engine/z3/pto_z3.cpp) computes
// the outcomes on its own and takes only the explorer's notes.
//
// Choices (docs/model.md "PTO vector reductions"):
//   order       a float vcadd/vcgadd sums in tree or sequential order
//               (the option kOrderOption: one of them, or both)
//   completion  a group reduction's result reaches the core's later vector
//               ops only after it completes; until a pto.barrier #pto.pipe
//               each consumer may still read the register's old contents,
//               and once one has seen the new value every later one does
//   interleaving  cores run their vlds/vsts in any interleaving; each
//               instruction reads or writes all its lanes at once
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/dialects/pto/pto.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope::pto_exec {

// Where an observable's value lives: a lane of a core's register or an
// element of a buffer.
struct Place {
  bool is_register = false;
  std::size_t core = 0;
  std::string name;  // register "%r" or buffer "ub"
  std::size_t index = 0;
};

struct Observed {
  std::vector<Observable> observables;
  std::vector<Place> places;  // parallel
};

// The condition's, filter's and `locations` terms (every buffer element and
// every lane of every register with observe_all). A lane that holds a
// vcmax/vcmin index (lane 1 of a register only those define) is reported as
// an unsigned integer of the element width.
Observed observe(const LitmusTest& t, bool observe_all);

// A result with the header fields set, for a PTO test.
TestResult start_result(const LitmusTest& t, const EngineOptions& opts, const Observed& o);

struct Exploration {
  std::map<std::vector<std::uint64_t>, Witness> outcomes;
  std::set<std::string> notes;
  std::size_t paths = 0;
};

// Every outcome of the program over all choices; throws InputError beyond
// opts.enum_limit paths.
Exploration explore(const LitmusTest& t, const Observed& o, const EngineOptions& opts);

// The orders a run explores.
std::vector<pto::Order> orders(const EngineOptions& opts);

// The enum engine for PTO: explore() as a result.
TestResult run_explorer(const LitmusTest& t, const EngineOptions& opts);

// The notes that do not depend on a run: cross-core races and the seed's
// open points each operation meets.
std::set<std::string> static_notes(const LitmusTest& t, const Budget* budget = nullptr);

}  // namespace redscope::pto_exec
