// Event-graph pictures: one execution of a skeleton as a Graphviz graph,
// written with Boost.Graph's Graphviz writer (boost::subgraph clusters: one
// per CTA, one per thread inside it, one for the initial writes).
#pragma once

#include <string>
#include <vector>

#include "redscope/results/results.hpp"

namespace redscope {

// po (immediate), rmw, rf, co and fr (their covering edges) and sync of the
// witness; `highlight` edges (e.g. the cycle that breaks an axiom) drawn
// bold in violet, added when the witness lacks them. A witness with rf and
// co texts only (the enumerator's) has its edges recovered from them.
std::string witness_dot(const Skeleton& sk, const Witness& w, const std::string& title,
                        const std::vector<ExecEdge>& highlight = {});

// Writes DIR/STEM.dot and, when the `dot` program is on PATH, DIR/STEM.svg.
// Returns the paths written; throws std::runtime_error when DIR cannot be
// written.
std::vector<std::string> write_picture(const std::string& dir, const std::string& stem,
                                       const std::string& dot_text);

// True when Graphviz's `dot` is on PATH.
bool have_dot_program();

// A file-name-safe version of a test name.
std::string file_stem(const std::string& name);

// One file-name-safe stem per test address (FILE or FILE#N), unique among
// them: the address's path below the inputs' common folder, its folders
// joined with "__" ("a__MP", "b__MP"), with "-2", "-3", ... only where two
// paths still map to one stem. Pages and pictures of one run never
// overwrite each other, whatever the tests are named.
std::vector<std::string> unique_stems(const std::vector<std::string>& addresses);

}  // namespace redscope
