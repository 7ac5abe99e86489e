// Whether a model in herd7's language keeps to redscope's typed subset
// (docs/model.md "The cat subset"), and the names herd7 binds for a PTX
// execution before a model runs (docs/model.md "herd7's names for PTX
// events").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/model/cat.hpp"
#include "redscope/model/herd/ast.hpp"

namespace redscope::cat::herd {

// The first construct of `p` (includes followed) outside the subset.
struct Beyond {
  std::string what;  // "'with ... from'", "a function application", ...
  Where where;
  std::string text() const;  // "'with ... from' at cos.cat:7:1"
};
std::optional<Beyond> beyond_subset(const Program& p);

// Every name the engine binds in a PTX execution for herd's interpreter,
// with what it holds (a set of events or a relation), sorted by name:
// herd7's sets and relations and redscope's primitives.
const std::vector<std::pair<std::string, Type>>& execution_bindings();
// Whether `name` is one of them.
bool execution_binds(std::string_view name);

}  // namespace redscope::cat::herd
