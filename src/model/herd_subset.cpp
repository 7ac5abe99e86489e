// Which reading a model file gets (cat.hpp parse_model): the typed subset,
// which every engine encodes, or herd7's full language, which herd's
// interpreter runs per candidate. And the names herd7 binds before a model
// runs, as redscope binds them for PTX executions.
#include "redscope/model/herd_subset.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace redscope::cat::herd {

namespace {

using Found = std::optional<Beyond>;

Found at(const Where& w, std::string what) { return Beyond{std::move(what), w}; }

Found beyond_exp(const Exp& e);

Found first_of(const std::vector<ExpPtr>& es) {
  for (const ExpPtr& a : es)
    if (a)
      if (Found f = beyond_exp(*a)) return f;
  return std::nullopt;
}

// The subset's expressions (docs/model.md "The cat subset"): names, 0, _,
// the set and relation operators, [S], domain(r), range(r), and
// `if "v" then e1 else e2`.
Found beyond_exp(const Exp& e) {
  switch (e.kind) {
    case ExpKind::Empty:
    case ExpKind::Universe:
    case ExpKind::Var: return std::nullopt;
    case ExpKind::Op1:
    case ExpKind::Op:
      if (e.kind == ExpKind::Op && (e.op2 == Op2::Add || e.op2 == Op2::Tuple))
        return at(e.at, e.op2 == Op2::Add ? "'++'" : "a tuple");
      return first_of(e.args);
    case ExpKind::App:
      if (e.args.size() == 2 && e.args[0]->kind == ExpKind::Var &&
          (e.args[0]->name == "domain" || e.args[0]->name == "range"))
        return beyond_exp(*e.args[1]);
      return at(e.at, "a function application");
    case ExpKind::If:
      if (e.cond.kind == Cond::Kind::Variant && e.cond.variant.kind == VariantCond::Kind::Variant)
        return first_of(e.args);
      return at(e.at, "an 'if' on a condition other than one variant");
    case ExpKind::Tag: return at(e.at, "a tag");
    case ExpKind::Bind:
    case ExpKind::BindRec: return at(e.at, "'let ... in'");
    case ExpKind::Fun: return at(e.at, "a function");
    case ExpKind::ExplicitSet: return at(e.at, "an explicit set { ... }");
    case ExpKind::Match:
    case ExpKind::MatchSet: return at(e.at, "'match'");
    case ExpKind::Try: return at(e.at, "'try ... with'");
  }
  return std::nullopt;
}

Found beyond_binding(const Binding& b) {
  if (b.pat.tuple || b.pat.names.size() != 1 || !b.pat.names[0])
    return at(b.at, "a binding of a pattern");
  return beyond_exp(*b.exp);
}

Found beyond_ins(const Ins& i) {
  switch (i.kind) {
    case InsKind::Let:
    case InsKind::Rec:
      if (i.kind == InsKind::Rec && i.test) return at(i.at, "'let rec ... when'");
      for (const Binding& b : i.bindings)
        if (Found f = beyond_binding(b)) return f;
      return std::nullopt;
    case InsKind::Test:
      if (i.test->type == TestType::Assert || i.test->type == TestType::UndefinedUnless)
        return at(i.at, i.test->type == TestType::Assert ? "'assert'" : "'undefined_unless'");
      return beyond_exp(*i.test->exp);
    case InsKind::Include: return std::nullopt;
    case InsKind::InsMatch: return at(i.at, "'match'");
    case InsKind::UnShow:
    case InsKind::Show:
    case InsKind::ShowAs: return at(i.at, "'show'");
    case InsKind::Procedure: return at(i.at, "a procedure");
    case InsKind::Call: return at(i.at, "'call'");
    case InsKind::Enum: return at(i.at, "'enum'");
    case InsKind::Forall: return at(i.at, "'forall'");
    case InsKind::Debug: return at(i.at, "'debug'");
    case InsKind::WithFrom: return at(i.at, "'with ... from'");
    case InsKind::Events: return at(i.at, "a bell declaration");
    case InsKind::IfVariant: return at(i.at, "an 'if' instruction");
  }
  return std::nullopt;
}

}  // namespace

std::optional<Beyond> beyond_subset(const Program& p) {
  for (const Ins& i : p.body) {
    if (Found f = beyond_ins(i)) return f;
    if (i.kind == InsKind::Include && i.included)
      if (Found f = beyond_subset(*i.included)) return f;
  }
  return std::nullopt;
}

std::string Beyond::text() const {
  const std::string file = where.file ? *where.file : std::string("?");
  return fmt::format("{} at {}:{}:{}", what, file, where.loc.line, where.loc.col);
}

const std::vector<std::pair<std::string, Type>>& execution_bindings() {
  // docs/model.md "herd7's names for PTX events": herd7's own (herdtools7
  // herd/machModelChecker.ml, "Initial env"; herd/CAction.ml arch_sets),
  // then redscope's primitives (model/cat.hpp ptx_primitives), which a
  // model in herd's language reads as a model in the subset does.
  static const std::vector<std::pair<std::string, Type>> names = [] {
    std::vector<std::pair<std::string, Type>> v;
    for (const char* s :
         {"FW",   "Exp",  "EXEC",  "NExp", "SPEC", "SPURIOUS", "BCC",  "PRED",       "Rreg",
          "Wreg", "ADDR", "DATA",  "LK",   "LKR",  "LKW",      "LS",   "LF",         "UL",
          "RL",   "RU",   "annot", "EX",   "PTE",  "PTEV",     "TLBI", "instr-fetch"})
      v.emplace_back(s, Type::Set);
    for (const char* r :
         {"fr", "same-instance", "same-instr", "sm", "si", "iico_data", "partial_po", "iico_ctrl",
          "iico_order", "rf-reg", "success", "control", "tst"})
      v.emplace_back(r, Type::Rel);
    for (const Primitive& p : ptx_primitives()) v.emplace_back(std::string(p.name), p.type);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end(),
                        [](const auto& a, const auto& b) { return a.first == b.first; }),
            v.end());
    return v;
  }();
  return names;
}

bool execution_binds(std::string_view name) {
  const auto& v = execution_bindings();
  const auto it = std::lower_bound(v.begin(), v.end(), name,
                                   [](const auto& b, std::string_view n) { return b.first < n; });
  return it != v.end() && it->first == name;
}

}  // namespace redscope::cat::herd
