// The two engines behind ExecutionSearch (execution_search.hpp).
#include "analysis/execution_search.hpp"
#include "analysis/execution_words.hpp"
#include "analysis/read_values.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/expr.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {
namespace {

// ---- Z3: one solver query per skeleton -------------------------------------

class Z3Search final : public ExecutionSearch {
 public:
  Z3Search(QuerySession& s, const Skeleton& sk, const QueryModel& m, const Budget* b)
      : q_(s, sk, m, b) {
    q_.encode_final_values();  // part of every check's model
  }
  std::optional<std::size_t> possible_with_any(
      const std::vector<std::vector<ExecutionFact>>& alternatives) override {
    if (alternatives.size() == 1)
      return q_.possible_with(alternatives[0]) ? std::optional<std::size_t>(0) : std::nullopt;
    return q_.possible_with_any(alternatives);
  }
  Witness witness() const override { return q_.witness(); }
  ChosenExecution execution() const override { return q_.execution(); }
  std::vector<std::pair<std::string, std::uint64_t>> final_values() const override {
    return q_.final_values();
  }
  const cat::StaticPrimitives& static_primitives() const override { return q_.static_primitives(); }

 private:
  Query q_;
};

class Z3Searches final : public ExecutionSearches {
 public:
  Z3Searches(const QueryModel& m, const Budget* b) : session_(b), model_(m), budget_(b) {}
  std::unique_ptr<ExecutionSearch> of(const Skeleton& sk) override {
    return std::make_unique<Z3Search>(session_, sk, model_, budget_);
  }
  VerdictBy proof() const override { return VerdictBy::SolverProof; }

 private:
  QuerySession session_;  // the watchdog may interrupt its checks
  const QueryModel& model_;
  const Budget* budget_;
};

// ---- the enumerator: its search, each consistent execution tested -----------

bool meets(const EnumCandidate& c, const ExecutionFact& f) {
  switch (f.kind) {
    case ExecutionFact::Kind::Executed: return c.executed[f.from];
    case ExecutionFact::Kind::Rf: return c.executed[f.to] && c.rf.has(f.from, f.to);
    case ExecutionFact::Kind::Co: return c.co.has(f.from, f.to);
    case ExecutionFact::Kind::Fr:  // rf⁻¹ ; co
      if (!c.executed[f.from]) return false;
      for (EventId w = 0; w < c.sk.size(); ++w)
        if (c.rf.has(w, f.from) && c.co.has(w, f.to)) return true;
      return false;
  }
  return false;
}

// Thrown from the enumerator's search at the first execution that meets an
// alternative: ends the search.
struct Met {
  std::size_t alternative;
};

// Every allowed execution of a test's skeletons, in the enumerator's order,
// kept by one search for the questions after a skeleton's first: atomicity
// asks several of each skeleton, and a search per question searched every
// path of the test each time (paths² x questions on looping tests). Past
// kMaxBytes of executions (or a quarter of --max-memory) it keeps none, and
// each question searches again.
class ExecutionCache {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;

  explicit ExecutionCache(const LitmusTest& test) : test_(test) {}

  // Whether one search has run (kept executions or found them too many).
  bool built() const { return built_; }

  // The executions of the enumerator's skeletons that are `sk`'s path
  // (same_path), in its order; null when they were too many to keep.
  const std::vector<const ChosenExecution*>* of(const Skeleton& sk, const EngineOptions& opts) {
    if (!built_) build(opts);
    if (over_) return nullptr;
    static const std::vector<const ChosenExecution*> kNone;
    std::size_t first = 0;
    while (first < groups_.size() && !same_path(groups_[first].first, sk)) ++first;
    if (first == groups_.size()) return &kNone;
    auto [it, fresh] = views_.try_emplace(first);
    if (fresh)
      for (const auto& [path, executions] : groups_)
        if (same_path(path, groups_[first].first))
          for (const ChosenExecution& x : executions) it->second.push_back(&x);
    return &it->second;
  }

 private:
  struct TooMany {};

  void build(const EngineOptions& opts) {
    built_ = true;
    EngineOptions o = search_options(opts);
    const Skeleton* current = nullptr;  // the enumerator's skeleton being searched
    std::size_t bytes = 0;
    std::size_t cap = kMaxBytes;  // and a quarter of --max-memory
    if (opts.budget && opts.budget->limits().memory_mb > 0)
      cap = std::min(cap, (opts.budget->limits().memory_mb << 20) / 4);
    o.on_execution = [&](const EnumCandidate& c) {
      if (&c.sk != current) {
        current = &c.sk;
        groups_.emplace_back(c.sk, std::vector<ChosenExecution>{});
      }
      bytes += 4 * BitRel::bytes_for(c.sk.size()) + c.sk.size() / 8 + sizeof(ChosenExecution);
      if (bytes > cap) throw TooMany{};
      groups_.back().second.push_back(
          ChosenExecution{c.executed, c.rf, c.co, c.sf, c.sync_barrier});
      return false;  // no outcomes: none is asked for
    };
    try {
      (void)run_enum(test_, o);
    } catch (const TooMany&) {
      over_ = true;
      groups_.clear();
    }
  }

  const LitmusTest& test_;  // without its filter
  bool built_ = false, over_ = false;
  std::vector<std::pair<Skeleton, std::vector<ChosenExecution>>> groups_;  // per skeleton searched
  // By the first group of a path asked about: that path's executions over every group.
  std::map<std::size_t, std::vector<const ChosenExecution*>> views_;
};

// The first of `alternatives` (each a conjunction of facts) that `c` meets.
std::optional<std::size_t> alternative_met(
    const EnumCandidate& c, const std::vector<std::vector<ExecutionFact>>& alternatives) {
  for (std::size_t i = 0; i < alternatives.size(); ++i)
    if (std::all_of(alternatives[i].begin(), alternatives[i].end(),
                    [&](const ExecutionFact& f) { return meets(c, f); }))
      return i;
  return std::nullopt;
}

// The first of `executions` that meets an alternative, and which one, as
// the search would stop at them.
std::optional<std::pair<const ChosenExecution*, std::size_t>> first_meeting(
    const Skeleton& sk, const std::vector<const ChosenExecution*>& executions,
    const std::vector<std::vector<ExecutionFact>>& alternatives) {
  for (const ChosenExecution* x : executions)
    if (const auto i = alternative_met(
            EnumCandidate{sk, nullptr, x->executed, x->rf, x->co, x->sf, x->sync_barrier},
            alternatives))
      return std::pair{x, *i};
  return std::nullopt;
}

class EnumSearch final : public ExecutionSearch {
 public:
  // `unfiltered`: the test without its filter (the model's executions).
  EnumSearch(const LitmusTest& unfiltered, const Skeleton& sk, const QueryModel& m,
             const EngineOptions& opts, ExecutionCache& cache)
      : test_(unfiltered),
        sk_(sk),
        opts_(opts),
        prims_(cat::static_primitives(sk, m.model(), m.variants(), opts.budget)),
        cache_(cache) {}

  // A skeleton's first question, while the test's executions are not kept
  // yet, searches and stops at the first execution that meets an
  // alternative; the others read the cache, which holds the same
  // executions in the same order (so the same answer and execution).
  std::optional<std::size_t> possible_with_any(
      const std::vector<std::vector<ExecutionFact>>& alternatives) override {
    if (asked_++ > 0 || cache_.built())
      if (const std::vector<const ChosenExecution*>* all = cache_.of(sk_, opts_)) {
        const auto hit = first_meeting(sk_, *all, alternatives);
        if (!hit) return std::nullopt;
        found_ = *hit->first;
        return hit->second;
      }
    EngineOptions o = search_options(opts_);
    const Skeleton* ours = nullptr;  // the enumerator's copy of sk_
    o.on_execution = [&](const EnumCandidate& c) {
      if (&c.sk != ours && !same_path(c.sk, sk_)) return false;
      ours = &c.sk;
      if (const auto i = alternative_met(c, alternatives)) {
        found_ = ChosenExecution{c.executed, c.rf, c.co, c.sf, c.sync_barrier};
        throw Met{*i};
      }
      return false;  // no outcomes: none is asked for
    };
    try {
      (void)run_enum(test_, o);
    } catch (const Met& m) {
      return m.alternative;
    }
    return std::nullopt;
  }

  Witness witness() const override {
    return witness_words(sk_, found_.executed, found_.rf, found_.co);
  }
  ChosenExecution execution() const override { return found_; }
  // Each cell ends with the value of a co-maximal executed write.
  std::vector<std::pair<std::string, std::uint64_t>> final_values() const override {
    ReadValues values(found_.rf, sk_);
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const auto& [cell, ty] : sk_.loc_types) {
      std::uint64_t v = 0;
      for (EventId w = 0; w < sk_.size(); ++w)
        if (sk_.ev(w).is_write() && sk_.ev(w).loc == cell && found_.executed[w] &&
            found_.co.row_empty(w)) {
          v = values.of_write(w);
          break;
        }
      out.emplace_back(cell, v);
    }
    return out;
  }
  const cat::StaticPrimitives& static_primitives() const override { return prims_; }

 private:
  const LitmusTest& test_;  // without its filter
  const Skeleton& sk_;
  const EngineOptions& opts_;
  cat::StaticPrimitives prims_;
  ExecutionCache& cache_;
  std::size_t asked_ = 0;
  ChosenExecution found_;
};

class EnumSearches final : public ExecutionSearches {
 public:
  EnumSearches(const LitmusTest& t, const QueryModel& m, const EngineOptions& o)
      : model_(m),
        opts_(o),
        unfiltered_(t),
        cache_(unfiltered_) {
    unfiltered_.filter.reset();  // the model's executions, not the test's filter
  }
  std::unique_ptr<ExecutionSearch> of(const Skeleton& sk) override {
    return std::make_unique<EnumSearch>(unfiltered_, sk, model_, opts_, cache_);
  }
  VerdictBy proof() const override { return VerdictBy::Exhausted; }

 private:
  const QueryModel& model_;
  const EngineOptions& opts_;
  LitmusTest unfiltered_;
  ExecutionCache cache_;  // reads unfiltered_
};

}  // namespace

std::unique_ptr<ExecutionSearches> make_execution_searches(const LitmusTest& test,
                                                           const QueryModel& model,
                                                           const EngineOptions& opts) {
  switch (opts.engine) {
    case EngineKind::Auto:
      if (!z3_available()) return std::make_unique<EnumSearches>(test, model, opts);
      [[fallthrough]];
    case EngineKind::Z3:
      if (!z3_available())
        throw InputError(Diagnostic{test.file, {1, 1}, no_z3_message("--engine z3")});
      return std::make_unique<Z3Searches>(model, opts.budget);
    case EngineKind::Enum: return std::make_unique<EnumSearches>(test, model, opts);
    default:
      throw InputError(Diagnostic{test.file,
                                  {1, 1},
                                  fmt::format("this analysis runs on the z3 or enum engine, not {}",
                                              to_string(opts.engine))});
  }
}

}  // namespace redscope
