// herd7's view of a PTX candidate (herd_check.hpp). Which name holds what
// is docs/model.md's table "herd7's names for PTX events"; each comment
// below names the herd7 binding (herdtools7 herd/machModelChecker.ml,
// "Initial env") it stands for.
#include "engine/enumerate/herd_check.hpp"

#include "redscope/model/herd_subset.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace redscope::enumerate {

namespace {

using cat::herd::EventBits;
using cat::herd::Execution;

// The executed events in order: old index -> new (npos when not executed).
struct Renumbering {
  std::vector<std::size_t> to;
  std::vector<EventId> from;
};

Renumbering renumber(const std::vector<bool>& executed) {
  Renumbering r;
  r.to.assign(executed.size(), SIZE_MAX);
  for (std::size_t e = 0; e < executed.size(); ++e)
    if (executed[e]) {
      r.to[e] = r.from.size();
      r.from.push_back(e);
    }
  return r;
}

EventBits set_of(const Renumbering& r, const std::function<bool(EventId)>& in) {
  EventBits b((r.from.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < r.from.size(); ++i)
    if (in(r.from[i])) b[i / 64] |= 1ULL << (i % 64);
  return b;
}

BitRel rel_of(const Renumbering& r, const BitRel& full) {
  BitRel out(r.from.size());
  for (std::size_t i = 0; i < r.from.size(); ++i)
    full.for_each(r.from[i], [&](std::size_t j) {
      if (r.to[j] != SIZE_MAX) out.set(i, r.to[j]);
    });
  return out;
}

bool in_bits(const cat::Bits& b, EventId e) {
  return e / 64 < b.size() && (b[e / 64] >> (e % 64)) & 1;
}

// The writes each location ends with: co-maximal among the executed writes.
std::vector<bool> final_writes(const EnumCandidate& c) {
  std::vector<bool> fw(c.sk.size(), false);
  for (EventId w = 0; w < c.sk.size(); ++w)
    if (c.executed[w] && c.sk.ev(w).is_write()) fw[w] = c.co.row_empty(w);
  return fw;
}

void add_sets(Execution& x, const Renumbering& r, const EnumCandidate& c,
              const cat::StaticPrimitives& p) {
  for (const auto& named_set : p.sets) {  // no structured binding: clang 14 cannot capture it
    const cat::Bits& bits = named_set.second;
    x.sets.emplace_back(std::string(named_set.first),
                        set_of(r, [&bits](EventId e) { return in_bits(bits, e); }));
  }
  const std::vector<bool> fw = final_writes(c);
  const Skeleton& sk = c.sk;
  x.sets.emplace_back("FW", set_of(r, [&](EventId e) { return fw[e]; }));
  // Exp: explicit accesses (every PTX access); EXEC: not speculated.
  x.sets.emplace_back("Exp", set_of(r, [&](EventId e) { return sk.ev(e).is_memory(); }));
  x.sets.emplace_back("EXEC", set_of(r, [](EventId) { return true; }));
}

BitRel rel_where(const Renumbering& r, const std::function<bool(EventId, EventId)>& in) {
  BitRel out(r.from.size());
  for (std::size_t i = 0; i < r.from.size(); ++i)
    for (std::size_t j = 0; j < r.from.size(); ++j)
      if (in(r.from[i], r.from[j])) out.set(i, j);
  return out;
}

void add_rels(Execution& x, const Renumbering& r, const EnumCandidate& c,
              const cat::StaticPrimitives& p) {
  for (const auto& [name, rel] : p.rels) x.rels.emplace_back(std::string(name), rel_of(r, rel));
  BitRel rf = rel_of(r, c.rf), co = rel_of(r, c.co);
  x.rels.emplace_back("rf", rf);
  x.rels.emplace_back("co", co);
  x.rels.emplace_back("sf", rel_of(r, c.sf));
  x.rels.emplace_back("sync_barrier", rel_of(r, c.sync_barrier));
  // A primitive's other names (Dat3M's sync_fence for sf) read the same value.
  for (const cat::Primitive& q : cat::ptx_primitives())
    if (!q.same_as.empty())
      for (std::size_t k = 0, n = x.rels.size(); k < n; ++k)
        if (x.rels[k].first == q.same_as)
          x.rels.emplace_back(std::string(q.name), x.rels[k].second);
  // fr = (rf^-1 ; co) \ id (herd/modelUtils.ml make_fr).
  BitRel fr = rf.inverse().compose(co);
  for (std::size_t i = 0; i < fr.size(); ++i) fr.set(i, i, false);
  x.rels.emplace_back("fr", fr);
  const Skeleton& sk = c.sk;
  // same-instance: events of one instruction of one thread (E.same_instance).
  auto same_instance = [&](EventId a, EventId b) {
    const Event &x1 = sk.ev(a), &x2 = sk.ev(b);
    if (x1.is_init || x2.is_init) return a == b;
    return x1.thread == x2.thread && x1.instr == x2.instr;
  };
  x.rels.emplace_back("same-instance", rel_where(r, same_instance));
  x.rels.emplace_back("same-instr", rel_where(r, same_instance));
  // sm, si: one access (no mixed sizes in PTX tests): id on memory events.
  BitRel sm = rel_where(r, [&](EventId a, EventId b) { return a == b && sk.ev(a).is_memory(); });
  x.rels.emplace_back("sm", sm);
  x.rels.emplace_back("si", sm);
  // iico_data: within an instruction, its read's value flows to its write.
  x.rels.emplace_back("iico_data", rel_of(r, p.rel("rmw")));
  x.rels.emplace_back("partial_po", rel_of(r, p.rel("po")));
}

// The rest of herd7's names (herd::execution_bindings): sets of events PTX
// does not have (herd7's C annotations, LL/SC, branch, register and
// speculation events) and relations among them, bound empty as herd7 binds
// an annotation no event of the test carries.
void add_empty(Execution& x) {
  for (const auto& binding : cat::herd::execution_bindings()) {
    const std::string& name = binding.first;
    const cat::Type type = binding.second;
    auto named = [&name](const auto& b) { return b.first == name; };
    if (type == cat::Type::Set && std::none_of(x.sets.begin(), x.sets.end(), named))
      x.sets.emplace_back(name, EventBits((x.n + 63) / 64, 0));
    if (type == cat::Type::Rel && std::none_of(x.rels.begin(), x.rels.end(), named))
      x.rels.emplace_back(name, BitRel(x.n));
  }
}

}  // namespace

Execution herd_execution(const EnumCandidate& c, const cat::StaticPrimitives& p) {
  const Renumbering r = renumber(c.executed);
  Execution x;
  x.n = r.from.size();
  add_sets(x, r, c, p);
  add_rels(x, r, c, p);
  add_empty(x);
  return x;
}

bool co_total(const EnumCandidate& c) {
  const Skeleton& sk = c.sk;
  for (EventId a = 0; a < sk.size(); ++a) {
    if (!c.executed[a] || !sk.ev(a).is_write()) continue;
    for (EventId b = a + 1; b < sk.size(); ++b)
      if (c.executed[b] && sk.ev(b).is_write() && sk.ev(b).loc == sk.ev(a).loc && !c.co.has(a, b) &&
          !c.co.has(b, a))
        return false;
  }
  return true;
}

HerdCheck::HerdCheck(const cat::Model& m, const EngineOptions& opts, ModelRef model)
    : opts_(opts),
      interp_(cat::herd_prelude(), m.herd, model->variant_list(),
              [&opts](std::string_view name) { return opts.enables(name); }) {}

bool HerdCheck::operator()(const EnumCandidate& c) const {
  if (!co_total(c)) return false;
  std::shared_ptr<const cat::StaticPrimitives> p;
  {
    std::lock_guard lock(mutex_);
    if (sk_ != &c.sk) {
      prims_ =
          std::make_shared<const cat::StaticPrimitives>(cat::static_primitives(c.sk, opts_.budget));
      sk_ = &c.sk;
    }
    p = prims_;
  }
  const cat::herd::Verdict v = interp_.run(herd_execution(c, *p), opts_.budget);
  if (v.allowed) {
    std::lock_guard lock(mutex_);
    flags_.insert(v.flags.begin(), v.flags.end());
    undefined_ = undefined_ || v.undefined;
  }
  return v.allowed;
}

std::vector<std::string> HerdCheck::flags() const {
  std::lock_guard lock(mutex_);
  return {flags_.begin(), flags_.end()};
}

std::vector<std::string> HerdCheck::notes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  if (undefined_)
    out.emplace_back("an allowed execution fails an undefined_unless check (herd7: Undef)");
  return out;
}

}  // namespace redscope::enumerate
