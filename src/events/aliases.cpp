// Alias resolution (see aliases.hpp).
#include "events/aliases.hpp"
#include "events/input_error.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

class Aliases {
 public:
  explicit Aliases(const LitmusTest& t) {
    std::set<std::string> declared;
    for (const InitEntry& e : t.init)
      if (!e.thread) declared.insert(e.name);
    for (const AliasDecl& a : t.aliases) {
      if (declared.count(a.name) || by_name_.count(a.name))
        input_error(
            t, a.loc,
            fmt::format("'{}' is declared twice: as an alias of '{}' and {}", a.name, a.target,
                        declared.count(a.name) ? "in the init block" : "as another alias"));
      if (!declared.count(a.target) && !by_name_.count(a.target))
        input_error(
            t, a.loc,
            fmt::format("'{}' aliases '{}', which is not declared before it", a.name, a.target));
      by_name_[a.name] = &a;
      // A target is declared before its alias, so its own root and address
      // are known: one lookup each, where walking the chain per access was
      // quadratic in a chain's length (issue 28).
      const auto t_it = resolved_.find(a.target);
      const std::string root = t_it == resolved_.end() ? a.target : t_it->second.first;
      const std::string vaddr = a.proxy == Proxy::Generic ? a.name
                                : t_it == resolved_.end() ? a.target
                                                          : t_it->second.second;
      resolved_.emplace(a.name, std::pair{root, vaddr});
    }
  }

  bool empty() const { return by_name_.empty(); }

  // The location owning the memory `name` reaches.
  std::string root(const std::string& name) const {
    const auto it = resolved_.find(name);
    return it == resolved_.end() ? name : it->second.first;
  }

  // The virtual address `name` denotes: its own for a generic alias, its
  // target's for a proxy alias (the same address through another path).
  std::string virtual_address(const std::string& name) const {
    const auto it = resolved_.find(name);
    return it == resolved_.end() ? name : it->second.second;
  }

  // A cell named in a condition ("y" or "y[1]") with its base resolved.
  std::string cell(const std::string& c) const {
    const std::size_t br = c.find('[');
    const std::string base = c.substr(0, br);
    return root(base) + (br == std::string::npos ? "" : c.substr(br));
  }

  void resolve(CondExpr& e) const {
    for (CondTerm* term : {&e.lhs, &e.rhs})
      if (term->kind == CondTerm::Kind::Loc) term->name = cell(term->name);
    for (CondExpr& k : e.kids) resolve(k);
  }

 private:
  std::map<std::string, const AliasDecl*> by_name_;
  std::map<std::string, std::pair<std::string, std::string>> resolved_;  // root, address
};

}  // namespace

LitmusTest resolve_aliases(const LitmusTest& test) {
  const Aliases aliases(test);
  if (aliases.empty()) return test;
  LitmusTest t = test;
  for (ThreadCode& tc : t.threads)
    for (Instruction& in : tc.code)
      if (in.addr && in.addr->kind == Operand::Kind::Loc) {
        const std::string written = in.addr->name;
        in.addr->name = aliases.root(written);
        const std::string v = aliases.virtual_address(written);
        if (v != in.addr->name) in.addr->vname = v;
      }
  for (CondTerm& l : t.locations)
    if (l.kind == CondTerm::Kind::Loc) l.name = aliases.cell(l.name);
  if (t.filter) aliases.resolve(*t.filter);
  aliases.resolve(t.condition);
  return t;
}

}  // namespace redscope::detail
