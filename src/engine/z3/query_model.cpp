// The parts of the query API (query.hpp) that need no solver: the model a
// test's queries check, and how witnesses name an event. Built with and
// without Z3 (CMakeLists.txt, REDSCOPE_WITH_Z3).
#include <algorithm>

#include <fmt/format.h>

#include "redscope/engine/z3/query.hpp"
#include "redscope/model/cat.hpp"

namespace redscope {

QueryModel::QueryModel(const LitmusTest& test, const EngineOptions& opts)
    : model_(model_of(opts, test)),
      kind_(opts.model_for(test)),
      variants_(kind_->variant_list()),
      opts_(opts) {
  cat::require_typed(*model_, "explain, atomicity and the query API");
}

std::vector<std::string> QueryModel::enabled_checks() const {
  std::vector<std::string> all;
  for (const cat::Stmt& st : model_->stmts)
    if (st.check && !st.check->flag && !st.check->name.empty() && enabled(st.check->name) &&
        std::find(all.begin(), all.end(), st.check->name) == all.end())
      all.push_back(st.check->name);
  return all;
}

std::string witness_label(const Skeleton& sk, EventId e) {
  const Event& ev = sk.ev(e);
  if (ev.is_init) return fmt::format("init {}", ev.loc);
  std::string half;
  if (ev.in_rmw) half = ev.is_read() ? " (read)" : " (write)";
  return fmt::format("P{}#{} {}{}", ev.thread, ev.po_index, ev.text, half);
}

}  // namespace redscope
