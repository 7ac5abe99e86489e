#include "redscope/value_sets.hpp"

#include <algorithm>
#include <set>

namespace redscope {
namespace {

// A set under construction: the values, or unknown once it passed the cap.
struct Set {
  std::set<std::uint64_t> values;
  bool unknown = false;
  bool operator==(const Set&) const = default;
};

class Analysis {
 public:
  Analysis(const Skeleton& sk, const ValueSetLimits& lim) : sk_(sk), lim_(lim), cur_(sk.size()) {}

  ValueSets run() {
    // Jacobi rounds: round k holds every value of a chain of at most k steps.
    for (std::size_t round = 0; round <= sk_.size(); ++round) {
      std::vector<Set> next(sk_.size());
      for (EventId e = 0; e < sk_.size(); ++e) {
        if (sk_.ev(e).is_read()) next[e] = read_step(e);
        else if (sk_.ev(e).is_write()) next[e] = write_step(e);
      }
      if (next == cur_) break;
      cur_ = std::move(next);
    }
    ValueSets out(sk_.size());
    for (EventId e = 0; e < sk_.size(); ++e)
      if (sk_.ev(e).is_memory() && !cur_[e].unknown) out[e] = std::vector<std::uint64_t>(cur_[e].values.begin(), cur_[e].values.end());
    return out;
  }

 private:
  void insert(Set& s, std::uint64_t v) const {
    if (s.unknown) return;
    s.values.insert(v);
    if (s.values.size() > lim_.max_values) { s.values.clear(); s.unknown = true; }
  }

  // A read returns the value of some write to its cell.
  Set read_step(EventId r) const {
    Set s;
    for (EventId w = 0; w < sk_.size() && !s.unknown; ++w) {
      if (!sk_.ev(w).is_write() || sk_.ev(w).loc != sk_.ev(r).loc) continue;
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
        const auto i = static_cast<std::size_t>(std::find(reads.begin(), reads.end(), ref) - reads.begin());
        return domains[i][pick[i]];
      });
      insert(out, v);
      if (out.unknown) return out;
      std::size_t k = 0;
      while (k < pick.size() && ++pick[k] == domains[k].size()) pick[k++] = 0;
      if (k == pick.size()) return out;
    }
  }

  const Skeleton& sk_;
  ValueSetLimits lim_;
  std::vector<Set> cur_;
};

}  // namespace

ValueSets value_sets(const Skeleton& sk, const ValueSetLimits& limits) { return Analysis(sk, limits).run(); }

}  // namespace redscope
