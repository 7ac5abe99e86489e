#include "redscope/events/value_sets.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace redscope {
namespace {

// The next combination of one choice per domain (an odometer, pick[0]
// fastest); false once every combination has been visited.
template <class Domain>
bool advance(std::vector<std::size_t>& pick, const std::vector<Domain>& domains) {
  std::size_t k = 0;
  while (k < pick.size() && ++pick[k] == domains[k].size()) pick[k++] = 0;
  return k < pick.size();
}

// A set under construction: the values, or unknown once it passed the cap.
struct Set {
  std::set<std::uint64_t> values;
  bool unknown = false;
  bool operator==(const Set&) const = default;
};

// Per cell, its writes in event order: a read's step visits these only (a
// scan of every event per read per round was quadratic: issue 28).
using WritesByCell = std::map<std::string, std::vector<EventId>>;

WritesByCell writes_by_cell(const Skeleton& sk) {
  WritesByCell m;
  for (EventId e = 0; e < sk.size(); ++e)
    if (sk.ev(e).is_write()) m[sk.ev(e).loc].push_back(e);
  return m;
}

const std::vector<EventId>& writes_of(const WritesByCell& m, const std::string& loc) {
  static const std::vector<EventId> kNone;
  const auto it = m.find(loc);
  return it == m.end() ? kNone : it->second;
}

class Analysis {
 public:
  Analysis(const Skeleton& sk, const ValueSetLimits& lim, const WritesByCell& writes)
      : sk_(sk),
        lim_(lim),
        writes_(writes),
        cur_(sk.size()) {}

  ValueSets run() {
    // Jacobi rounds: round k holds every value of a chain of at most k steps.
    for (std::size_t round = 0; round <= sk_.size(); ++round) {
      std::vector<Set> next(sk_.size());
      for (EventId e = 0; e < sk_.size(); ++e) {
        check(lim_.budget);
        if (sk_.ev(e).is_read())
          next[e] = read_step(e);
        else if (sk_.ev(e).is_write())
          next[e] = write_step(e);
      }
      if (next == cur_) break;
      cur_ = std::move(next);
    }
    ValueSets out(sk_.size());
    for (EventId e = 0; e < sk_.size(); ++e)
      if (sk_.ev(e).is_memory() && !cur_[e].unknown)
        out[e] = std::vector<std::uint64_t>(cur_[e].values.begin(), cur_[e].values.end());
    return out;
  }

 private:
  void insert(Set& s, std::uint64_t v) const {
    if (s.unknown) return;
    s.values.insert(v);
    if (s.values.size() > lim_.max_values) {
      s.values.clear();
      s.unknown = true;
    }
  }

  // A read returns the value of some write to its cell.
  Set read_step(EventId r) const {
    Set s;
    for (EventId w : writes_of(writes_, sk_.ev(r).loc)) {
      if (s.unknown) break;
      if (cur_[w].unknown) return Set{{}, true};
      for (std::uint64_t v : cur_[w].values) insert(s, v);
    }
    return s;
  }

  // A write evaluates its value expression on every combination of the
  // values its reads may return.
  Set write_step(EventId w) const {
    const ExprPtr& value = sk_.ev(w).value;
    const std::vector<ReadRef> reads = reads_of(value);
    std::vector<std::vector<std::uint64_t>> domains;
    std::size_t combinations = 1;
    for (const ReadRef& r : reads) {
      const Set& s = cur_[sk_.vertex(r)];
      if (s.unknown) return Set{{}, true};
      if (s.values.empty()) return Set{};
      combinations *= s.values.size();
      if (combinations > lim_.max_combinations) return Set{{}, true};
      domains.emplace_back(s.values.begin(), s.values.end());
    }
    Set out;
    std::vector<std::size_t> pick(reads.size(), 0);
    for (;;) {
      const auto v = evaluate(value, [&](ReadRef ref) {
        const auto i =
            static_cast<std::size_t>(std::find(reads.begin(), reads.end(), ref) - reads.begin());
        return domains[i][pick[i]];
      });
      insert(out, v);
      if (out.unknown) return out;
      if (!advance(pick, domains)) return out;
    }
  }

  const Skeleton& sk_;
  ValueSetLimits lim_;
  const WritesByCell& writes_;
  std::vector<Set> cur_;
};

// The same rounds with each value paired with its provenance: the events of
// the rf/data chains it came through. No-Thin-Air makes those chains acyclic,
// so a read never takes a value whose provenance contains the read itself,
// and a write never combines operands whose provenance contains the write.
// This is what keeps N reductions of distinct constants to their subset sums
// (a chain uses each reduction once) instead of every sum with repetitions.
// An event whose pairs pass max_states is unknown here (the plain rounds may
// still know it).
class ProvenanceAnalysis {
 public:
  ProvenanceAnalysis(const Skeleton& sk, const ValueSetLimits& lim, const WritesByCell& writes)
      : sk_(sk),
        lim_(lim),
        writes_(writes),
        words_((sk.size() + 63) / 64),
        cur_(sk.size()) {}

  ValueSets run() {
    for (std::size_t round = 0; round <= sk_.size(); ++round) {
      std::vector<States> next(sk_.size());
      for (EventId e = 0; e < sk_.size(); ++e) {
        check(lim_.budget);
        if (sk_.ev(e).is_read())
          next[e] = read_step(e);
        else if (sk_.ev(e).is_write())
          next[e] = write_step(e);
      }
      // Pairs examined over the whole analysis: past the budget it knows
      // nothing, and the plain rounds answer for every event.
      if (work_ > lim_.max_work) return ValueSets(sk_.size());
      if (next == cur_) break;
      cur_ = std::move(next);
    }
    ValueSets out(sk_.size());
    for (EventId e = 0; e < sk_.size(); ++e) {
      if (!sk_.ev(e).is_memory() || cur_[e].unknown) continue;
      std::set<std::uint64_t> vals;
      for (const auto& [v, p] : cur_[e].pairs) vals.insert(v);
      if (vals.size() <= lim_.max_values)
        out[e] = std::vector<std::uint64_t>(vals.begin(), vals.end());
    }
    return out;
  }

 private:
  using Bits = std::vector<std::uint64_t>;
  static constexpr std::size_t kPairOverhead = 64;  // a set node and a vector, about
  struct States {
    std::set<std::pair<std::uint64_t, Bits>> pairs;
    bool unknown = false;
    bool operator==(const States&) const = default;
  };

  static bool has(const Bits& b, EventId e) { return (b[e / 64] >> (e % 64) & 1U) != 0; }
  static void put(Bits& b, EventId e) { b[e / 64] |= std::uint64_t{1} << (e % 64); }

  void insert(States& s, std::uint64_t v, Bits p) {
    ++work_;
    if (s.unknown) return;
    charge(lim_.budget, words_ * sizeof(std::uint64_t) + kPairOverhead);
    s.pairs.emplace(v, std::move(p));
    if (s.pairs.size() > lim_.max_states) {
      s.pairs.clear();
      s.unknown = true;
    }
  }

  States read_step(EventId r) {
    States s;
    for (EventId w : writes_of(writes_, sk_.ev(r).loc)) {
      if (s.unknown) break;
      if (cur_[w].unknown) return States{{}, true};
      for (const auto& [v, p] : cur_[w].pairs) {
        if (has(p, r)) continue;
        Bits q = p;
        put(q, w);
        insert(s, v, std::move(q));
      }
    }
    return s;
  }

  States write_step(EventId w) {
    const ExprPtr& value = sk_.ev(w).value;
    const std::vector<ReadRef> reads = reads_of(value);
    std::vector<EventId> ids;
    std::vector<std::vector<const std::pair<std::uint64_t, Bits>*>> domains;
    std::size_t combinations = 1;
    for (const ReadRef& r : reads) {
      const EventId id = sk_.vertex(r);
      const States& s = cur_[id];
      if (s.unknown) return States{{}, true};
      std::vector<const std::pair<std::uint64_t, Bits>*> d;
      for (const auto& pv : s.pairs)
        if (!has(pv.second, w)) d.push_back(&pv);
      if (d.empty()) return States{};
      combinations *= d.size();
      if (combinations > lim_.max_combinations) return States{{}, true};
      ids.push_back(id);
      domains.push_back(std::move(d));
    }
    States out;
    std::vector<std::size_t> pick(reads.size(), 0);
    for (;;) {
      Bits p(words_, 0);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        const Bits& q = domains[i][pick[i]]->second;
        for (std::size_t k = 0; k < words_; ++k) p[k] |= q[k];
        put(p, ids[i]);
      }
      const auto v = evaluate(value, [&](ReadRef ref) {
        const auto i =
            static_cast<std::size_t>(std::find(reads.begin(), reads.end(), ref) - reads.begin());
        return domains[i][pick[i]]->first;
      });
      insert(out, v, std::move(p));
      if (out.unknown) return out;
      if (!advance(pick, domains)) return out;
    }
  }

  const Skeleton& sk_;
  ValueSetLimits lim_;
  const WritesByCell& writes_;
  std::size_t words_;
  std::vector<States> cur_;
  std::size_t work_ = 0;
};

}  // namespace

// Per event, the provenance analysis's set where it is known (it is never
// larger), else the plain rounds' set.
ValueSets value_sets(const Skeleton& sk, const ValueSetLimits& limits) {
  const WritesByCell writes = writes_by_cell(sk);
  ValueSets precise = ProvenanceAnalysis(sk, limits, writes).run();
  const ValueSets plain = Analysis(sk, limits, writes).run();
  for (EventId e = 0; e < sk.size(); ++e)
    if (!precise[e]) precise[e] = plain[e];
  return precise;
}

}  // namespace redscope
