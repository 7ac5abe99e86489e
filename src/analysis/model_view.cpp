#include "analysis/model_view.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "redscope/analysis/explain.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

namespace {

cat::Expr ref_to(const cat::Model& m, std::size_t slot) {
  cat::Expr e;
  e.op = cat::Op::Ref;
  e.type = m.slots[slot].type;
  e.slot = slot;
  return e;
}

}  // namespace

ModelView::ModelView(const Skeleton& sk, const QueryModel& model,
                     const cat::StaticPrimitives& prims, const ChosenExecution* exec,
                     const Budget* budget)
    : sk_(sk),
      m_(model.model()),
      variants_(model.variants()),
      ev_(
          m_, sk.size(), variants_, [](std::string_view) { return true; }, budget) {
  if (exec) {
    cat::load_candidate(
        ev_, prims,
        cat::CandidateRels{exec->executed, exec->rf, exec->co, exec->sf, exec->sync_barrier});
  } else {
    const std::vector<bool> all(sk.size(), true);
    const BitRel none(sk.size(), budget);
    cat::load_candidate(ev_, prims, cat::CandidateRels{all, none, none, none, none});
  }
  ev_.update(0);
  for (const cat::Stmt& st : m_.stmts)
    if (st.let && !st.let->rec) bound_[st.let->slots[0]] = st.let->exprs[0].get();
}

std::optional<std::size_t> ModelView::slot(std::string_view name) const {
  for (std::size_t i = m_.slots.size(); i-- > 0;)
    if (m_.slots[i].name == name) return i;
  return std::nullopt;
}

bool ModelView::holds(std::size_t slot, EventId u, EventId v) const {
  return holds(ref_to(m_, slot), u, v);
}

bool ModelView::holds(const cat::Expr& e, EventId u, EventId v) const {
  return ev_.eval(e).rel.has(u, v);
}

bool ModelView::member(const cat::Expr& set, EventId e) const {
  const cat::Bits b = ev_.eval(set).set;
  return (b[e / 64] >> (e % 64)) & 1U;
}

const cat::Expr* ModelView::definition(std::size_t slot) const {
  const auto it = bound_.find(slot);
  return it == bound_.end() ? nullptr : it->second;
}

bool ModelView::variant_on(const std::string& v) const {
  return std::find(variants_.begin(), variants_.end(), v) != variants_.end();
}

std::string ModelView::ev(EventId e) const { return describe_event(sk_, e); }

std::string ModelView::pair_words(std::size_t slot, EventId u, EventId v) const {
  return ref_words(slot, u, v, 0);
}

std::string ModelView::not_member_words(const cat::Expr& set, EventId e) const {
  if (set.op == cat::Op::Diff) {
    if (!member(*set.args[0], e)) return not_member_words(*set.args[0], e);
    for (std::size_t i = 1; i < set.args.size(); ++i)
      if (member(*set.args[i], e))
        return fmt::format("{} is in {}", ev(e), cat::to_text(m_, *set.args[i]));
  }
  return fmt::format("{} is not in {}", ev(e), cat::to_text(m_, set));
}

namespace {

// Words for a pair of a primitive, by name: what the engine's relation
// (docs/model.md "Primitives") says of these two events, whether or not it
// holds. `ms` speaks in the words of its definition (cat::ms_words). A
// primitive without words here is named ("are in NAME").
struct PrimitiveWords {
  std::string_view name;
  std::string (*words)(const Skeleton& sk, EventId u, EventId v, bool in);
};

std::string both(const Skeleton& sk, EventId u, EventId v) {
  return fmt::format("{} and {}", describe_event(sk, u), describe_event(sk, v));
}

constexpr PrimitiveWords kPrimitiveWords[] = {
    {"ms", [](const Skeleton& sk, EventId u, EventId v, bool) { return cat::ms_words(sk, u, v); }},
    {"po",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return fmt::format("{} {} {} in program order", describe_event(sk, u),
                          in ? "precedes" : "does not precede", describe_event(sk, v));
     }},
    {"int",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return fmt::format("{} are {}in one thread", both(sk, u, v), in ? "" : "not ");
     }},
    {"ext",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return fmt::format("{} are {}in different threads", both(sk, u, v), in ? "" : "not ");
     }},
    {"scta",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return fmt::format("{} are {}in one CTA", both(sk, u, v), in ? "" : "not ");
     }},
    {"loc",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return in ? fmt::format("{} access one location ({})", both(sk, u, v), sk.ev(u).loc)
                 : fmt::format("{} do not access one location", both(sk, u, v));
     }},
    {"vloc",
     [](const Skeleton& sk, EventId u, EventId v, bool in) {
       return in ? fmt::format("{} use one virtual address ({})", both(sk, u, v), sk.ev(u).vloc)
                 : fmt::format("{} do not use one virtual address", both(sk, u, v));
     }},
};

}  // namespace

// A primitive speaks for itself (kPrimitiveWords); a let-bound name is
// opened.
std::string ModelView::ref_words(std::size_t slot, EventId u, EventId v, int depth) const {
  const cat::Slot& s = m_.slots[slot];
  const bool in = holds(slot, u, v);
  // models/ptx.cat's ms (a binding) keeps the PTX rule's words.
  if (s.primitive || cat::defines_ptx_ms(m_, slot))
    for (const PrimitiveWords& p : kPrimitiveWords)
      if (p.name == s.name) return p.words(sk_, u, v, in);
  if (const cat::Expr* def = definition(slot); def && depth < cat::kMaxNesting)
    return reason(*def, u, v, depth + 1);
  return fmt::format("{} and {} are {}in {}", ev(u), ev(v), in ? "" : "not ", s.name);
}

// Why (u, v) is (or is not) in e: the branch of a union that holds (or
// each that does not), every operand of an intersection (or the first that
// fails), a difference's first operand and the others it avoids (or the
// one it meets), a product's two memberships.
std::string ModelView::reason(const cat::Expr& e, EventId u, EventId v, int depth) const {
  using cat::Op;
  const bool in = holds(e, u, v);
  const auto join = [](const std::vector<std::string>& parts) {
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (!parts[i].empty() && std::find(parts.begin(), parts.begin() + i, parts[i]) ==
                                   parts.begin() + static_cast<std::ptrdiff_t>(i))
        s += (s.empty() ? "" : "; ") + parts[i];
    return s;
  };
  std::vector<std::string> parts;
  switch (e.op) {
    case Op::Ref: return ref_words(e.slot, u, v, depth);
    case Op::Union:
      for (const auto& a : e.args) {
        if (in && holds(*a, u, v)) return reason(*a, u, v, depth + 1);
        if (!in) parts.push_back(reason(*a, u, v, depth + 1));
      }
      return join(parts);
    case Op::Inter:
      for (const auto& a : e.args) {
        if (!in && !holds(*a, u, v)) return reason(*a, u, v, depth + 1);
        if (in) parts.push_back(reason(*a, u, v, depth + 1));
      }
      return join(parts);
    case Op::Diff:
      if (!holds(*e.args[0], u, v)) return reason(*e.args[0], u, v, depth + 1);
      parts.push_back(reason(*e.args[0], u, v, depth + 1));
      for (std::size_t i = 1; i < e.args.size(); ++i)
        if (in || holds(*e.args[i], u, v)) parts.push_back(reason(*e.args[i], u, v, depth + 1));
      return join(parts);
    case Op::Inverse: return reason(*e.args[0], v, u, depth + 1);
    case Op::IfVariant: return reason(*e.args[variant_on(e.variant) ? 0 : 1], u, v, depth + 1);
    case Op::Cartesian:
      if (!member(*e.args[0], u)) return not_member_words(*e.args[0], u);
      if (!member(*e.args[1], v)) return not_member_words(*e.args[1], v);
      return fmt::format("{} is in {} and {} in {}", ev(u), cat::to_text(m_, *e.args[0]), ev(v),
                         cat::to_text(m_, *e.args[1]));
    default:
      return fmt::format("{} and {} are {}in {}", ev(u), ev(v), in ? "" : "not ",
                         cat::to_text(m_, e));
  }
}

}  // namespace redscope
