// The reference enumerator (`--engine enum`): every candidate execution of a
// skeleton, built explicitly — an rf source for each read, a coherence
// partial order per cell, an orientation of the Fence-SC pairs and the
// barrier arrivals each waiting barrier saw — and checked against the PTX
// axioms by the cat model (models/ptx.cat, evaluated over bit matrices by
// src/model/cat_eval.cpp). It shares nothing with the Z3 encoding but the
// skeleton and the expression evaluator, so that the two engines can check
// each other.
#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "engine/pto_exec.hpp"
#include "redscope/core/bitrel.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/model/cat_eval.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

namespace {

using Values = std::vector<std::uint64_t>;

// The static relations the enumerator's own choices consult.
struct Statics {
  BitRel po, poloc, ms;
};

Statics statics(const cat::StaticPrimitives& p) {
  return Statics{p.rel("po"), p.rel("po-loc"), p.rel("ms")};
}

using cat::Bits;

class SkeletonEnumerator {
 public:
  // Consistency is decided by `model` (evaluated here) or, when `check` is
  // given, by that function.
  SkeletonEnumerator(const Skeleton& sk, const LitmusTest& test, ModelKind model,
                     const std::vector<Observable>& obs, const EngineOptions& opts,
                     std::size_t& candidates, const cat::Model& cat_model,
                     const CandidateCheck* check)
      : sk_(sk),
        test_(test),
        model_(model),
        obs_(obs),
        opts_(opts),
        prims_(cat::static_primitives(sk)),
        st_(statics(prims_)),
        n_(sk.size()),
        candidates_(&candidates),
        check_(check),
        eval_(cat_model, sk.size(), model_variants(model),
              [&opts](std::string_view name) { return opts.enables(name); }),
        cuts_(cat::shortcuts(cat_model, [&opts](std::string_view a) { return opts.enables(a); })) {
    for (EventId e = 0; e < n_; ++e) {
      if (sk.ev(e).is_read()) reads_.push_back(e);
      if (sk.ev(e).is_barrier()) barriers_.push_back(e);
    }
    rf_.assign(n_, 0);
  }

  // Outcomes of this skeleton into `found`; returns whether some candidate
  // was consistent once barriers need not complete (for the incomplete counts).
  bool run(std::map<Values, Witness>& found) {
    found_ = &found;
    choose_rf(0);
    return consistent_without_barriers_;
  }

  bool any_outcome() const { return any_outcome_; }

 private:
  // ---- rf and values ---------------------------------------------------------
  void choose_rf(std::size_t k) {
    if (k == reads_.size()) {
      with_rf();
      return;
    }
    const EventId r = reads_[k];
    for (EventId w = 0; w < n_; ++w)
      if (sk_.ev(w).is_write() && sk_.ev(w).loc == sk_.ev(r).loc) {
        rf_[r] = w;
        choose_rf(k + 1);
      }
  }

  // Values follow rf; a cycle through rf and value dependencies has no
  // value (thin air) and the candidate is dropped.
  struct Cycle {};
  std::uint64_t read_value(EventId r, std::vector<int>& state) {
    if (state[r] == 2) return val_[r];
    if (state[r] == 1) throw Cycle{};
    state[r] = 1;
    const EventId w = rf_[r];
    val_[r] =
        evaluate(sk_.ev(w).value, [&](ReadRef ref) { return read_value(sk_.vertex(ref), state); });
    state[r] = 2;
    return val_[r];
  }

  std::uint64_t eval(const ExprPtr& e) {
    return evaluate(e, [&](ReadRef ref) { return val_[sk_.vertex(ref)]; });
  }

  bool compute_values() {
    val_.assign(n_, 0);
    std::vector<int> state(n_, 0);
    try {
      for (EventId r : reads_) read_value(r, state);
    } catch (const Cycle&) {
      return false;
    }
    exec_.assign(n_, true);
    for (EventId e = 0; e < n_; ++e)
      if (sk_.ev(e).guard) exec_[e] = eval(sk_.ev(e).guard) != 0;
    for (const ExprPtr& a : sk_.assumptions)
      if (eval(a) == 0) return false;
    // An executed read reads an executed write; an unexecuted read has no
    // rf (its canonical choice here is the initial write).
    for (EventId r : reads_) {
      if (exec_[r] && !exec_[rf_[r]]) return false;
      if (!exec_[r] && rf_[r] != sk_.init_write.at(sk_.ev(r).loc)) return false;
    }
    return true;
  }

  // Every complete choice of one dimension — an rf assignment, a coherence
  // order of one cell, a Fence-SC orientation, a barrier's arrival set —
  // counts as one candidate against `enum_limit`, over the whole test. The
  // work of the search is bounded by the count (each choice leads to at most
  // one consistency check), so the limit holds whatever dimension explodes.
  void tick() {
    if (opts_.budget && (*candidates_ & 1023) == 0)
      opts_.budget->check();  // --timeout / --max-memory
    if (++*candidates_ > opts_.enum_limit)
      throw InputError(Diagnostic{
          test_.file, test_.condition_loc,
          fmt::format(
              "gave up after {} candidate executions (the --engine enum limit); use the z3 engine",
              opts_.enum_limit)});
  }

  void with_rf() {
    tick();
    if (!compute_values()) return;
    rf_rel_ = BitRel(n_);
    for (EventId r : reads_)
      if (exec_[r]) rf_rel_.set(rf_[r], r);
    if (!check_) feed_rf();
    cells_.clear();
    for (EventId w = 0; w < n_; ++w)
      if (sk_.ev(w).is_write() && !sk_.ev(w).is_init && exec_[w])
        cells_[sk_.ev(w).loc].push_back(w);
    cell_list_.assign(cells_.begin(), cells_.end());
    co_ = BitRel(n_);
    for (EventId w = 0; w < n_; ++w)  // the initial write precedes every executed write
      if (sk_.ev(w).is_init)
        for (EventId x : cells_[sk_.ev(w).loc]) co_.set(w, x);
    choose_co(0);
  }

  // ---- coherence: a strict partial order per cell ------------------------------
  // Each pair of the cell's writes: unordered, a before b, or b before a;
  // morally strong writes must be ordered (Coherence; with Coherence left out
  // they may stay unordered too, and the model decides). Kept only when
  // transitive. A thread's own two writes (a before b in program order) take
  // only a before b while Coherence and SC-per-Location both hold: they are
  // morally strong, so ordered, and po-loc ∪ co acyclic rules out b before a.
  // The z3 engine pins the same pairs (PtxEncoding::pin_po_loc_co).
  //
  // The choices are an odometer (the last pair turns fastest), not one
  // recursion level per pair: a cell of 1,000 writes has 499,500 pairs.
  enum class Order : std::uint8_t { None, Forward, Backward };

  void choose_co(std::size_t c) {
    if (c == cell_list_.size()) {
      choose_sf();
      return;
    }
    const std::vector<EventId>& ws = cell_list_[c].second;
    std::vector<std::pair<EventId, EventId>> pairs;
    std::vector<std::vector<Order>> options;
    for (std::size_t i = 0; i < ws.size(); ++i)
      for (std::size_t j = i + 1; j < ws.size(); ++j) {
        const EventId a = ws[i], b = ws[j];
        if (pin_po_loc_ && st_.ms.has(a, b) && (st_.poloc.has(a, b) || st_.poloc.has(b, a))) {
          co_.set(st_.poloc.has(a, b) ? a : b, st_.poloc.has(a, b) ? b : a);  // fixed for good
          continue;
        }
        pairs.emplace_back(a, b);
        options.push_back(st_.ms.has(a, b) && must_order_ms_
                              ? std::vector<Order>{Order::Forward, Order::Backward}
                              : std::vector<Order>{Order::None, Order::Forward, Order::Backward});
      }
    std::vector<std::size_t> at(pairs.size(), 0);
    for (std::size_t k = 0; k < pairs.size(); ++k) orient(pairs[k], options[k][0]);
    for (;;) {
      tick();
      if (transitive_on(ws)) choose_co(c + 1);
      std::size_t k = pairs.size();
      for (; k > 0; --k) {
        const std::size_t p = k - 1;
        at[p] = (at[p] + 1) % options[p].size();
        orient(pairs[p], options[p][at[p]]);
        if (at[p] != 0) break;  // no carry
      }
      if (k == 0) break;  // every combination seen
    }
    for (const auto& [a, b] : pairs) orient({a, b}, Order::None);
    for (EventId a : ws)
      for (EventId b : ws) co_.set(a, b, false);
  }

  void orient(std::pair<EventId, EventId> p, Order o) {
    co_.set(p.first, p.second, o == Order::Forward);
    co_.set(p.second, p.first, o == Order::Backward);
  }

  // co restricted to the cell is transitive: whatever follows a b that
  // follows a also follows a (row inclusion, a word at a time).
  bool transitive_on(const std::vector<EventId>& ws) const {
    for (EventId a : ws)
      for (EventId b : ws)
        if (co_.has(a, b) && !co_.row_within(b, a)) return false;
    return true;
  }

  // ---- Fence-SC: an acyclic orientation of the morally strong fence.sc pairs ----
  void choose_sf() {
    sc_pairs_.clear();
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = a + 1; b < n_; ++b)
        if (sk_.ev(a).is_sc_fence() && sk_.ev(b).is_sc_fence() && st_.ms.has(a, b) && exec_[a] &&
            exec_[b])
          sc_pairs_.emplace_back(a, b);
    sf_ = BitRel(n_);
    choose_sf_pair(0);
  }

  void choose_sf_pair(std::size_t k) {
    if (k == sc_pairs_.size()) {
      tick();
      if (sf_.acyclic()) choose_barriers();
      return;
    }
    const auto [a, b] = sc_pairs_[k];
    sf_.set(a, b);
    choose_sf_pair(k + 1);
    sf_.set(a, b, false);
    sf_.set(b, a);
    choose_sf_pair(k + 1);
    sf_.set(b, a, false);
  }

  // ---- barriers -------------------------------------------------------------
  bool same_barrier(EventId a, EventId b) {
    const Event& x = sk_.ev(a);
    const Event& y = sk_.ev(b);
    if (!(sk_.placement[static_cast<std::size_t>(x.thread)] ==
          sk_.placement[static_cast<std::size_t>(y.thread)]))
      return false;
    if (x.barrier_id != y.barrier_id) return false;
    if (!x.barrier_logical || !y.barrier_logical) return !x.barrier_logical && !y.barrier_logical;
    return eval(x.barrier_logical) == eval(y.barrier_logical);
  }

  // Which members each waiting barrier saw arrive before it passed: all of
  // them without a quorum, at least q (itself included) with one.
  void choose_barriers() {
    // Progress dropped: no barrier synchronizes (the weakest choice).
    if (consistent(BitRel(n_)))
      consistent_without_barriers_ = true;
    else
      return;  // adding barrier synchronization only forbids more
    waiting_.clear();
    for (EventId b : barriers_)
      if (exec_[b] && !sk_.ev(b).barrier_arrive_only) waiting_.push_back(b);
    saw_.assign(n_, {});
    choose_saw(0);
  }

  void choose_saw(std::size_t k) {
    if (k == waiting_.size()) {
      with_barriers();
      return;
    }
    const EventId b = waiting_[k];
    std::vector<EventId> members;
    for (EventId a : barriers_)
      if (a != b && exec_[a] && same_barrier(a, b)) members.push_back(a);
    saw_[b].clear();
    // Without a quorum the barrier saw every member; with one, any subset of
    // at least q - 1 others. Built member by member (no bit mask, so any
    // number of members is fine; the candidate limit bounds the subsets).
    const std::optional<std::int64_t> q = sk_.ev(b).quorum;
    const std::size_t need =
        q ? static_cast<std::size_t>(std::max<std::int64_t>(*q - 1, 0)) : members.size();
    choose_saw_member(k, members, 0, need);
  }

  void choose_saw_member(std::size_t k, const std::vector<EventId>& members, std::size_t i,
                         std::size_t need) {
    const EventId b = waiting_[k];
    if (saw_[b].size() + (members.size() - i) < need) return;  // too few left to reach the quorum
    if (i == members.size()) {
      tick();
      choose_saw(k + 1);
      return;
    }
    choose_saw_member(k, members, i + 1, need);  // members[i] not seen
    saw_[b].push_back(members[i]);
    choose_saw_member(k, members, i + 1, need);
    saw_[b].pop_back();
  }

  // Arrival/pass times exist iff the difference constraints have no cycle
  // through a strict edge. Nodes: arrive(b) = 2i, pass(b) = 2i+1.
  bool times_exist() {
    const std::size_t m = 2 * barriers_.size();
    BitRel le(m), lt(m);
    auto id = [&](EventId b) {
      return static_cast<std::size_t>(std::find(barriers_.begin(), barriers_.end(), b) -
                                      barriers_.begin());
    };
    for (EventId b : barriers_) {
      const std::size_t i = id(b);
      if (sk_.ev(b).barrier_arrive_only) {
        le.set(2 * i, 2 * i + 1);
        le.set(2 * i + 1, 2 * i);
      } else
        le.set(2 * i, 2 * i + 1);
      for (EventId a : barriers_)
        if (st_.po.has(b, a)) lt.set(2 * i + 1, 2 * id(a));  // pass(b) < arrive(a)
    }
    for (EventId b : waiting_)
      for (EventId a : barriers_) {
        if (a == b || !exec_[a] || !same_barrier(a, b)) continue;
        const bool saw = std::find(saw_[b].begin(), saw_[b].end(), a) != saw_[b].end();
        if (saw)
          le.set(2 * id(a), 2 * id(b) + 1);  // arrive(a) <= pass(b)
        else
          lt.set(2 * id(b) + 1, 2 * id(a));  // pass(b) < arrive(a)
      }
    const BitRel reach = (le | lt).plus();
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = 0; y < m; ++y)
        if (lt.has(x, y) && reach.has(y, x)) return false;
    return lt.irreflexive();
  }

  void with_barriers() {
    if (!times_exist()) return;
    BitRel sbar(n_);
    for (EventId b : waiting_)
      for (EventId a : saw_[b]) sbar.set(a, b);
    if (consistent(sbar)) record();
  }

  // ---- the model -----------------------------------------------------------------

  // The level-0 primitives restricted to the executed events, when those
  // changed; then rf. The model's statements re-run from the lowest level fed.
  void feed_rf() {
    if (exec_ != fed_exec_) {
      fed_exec_ = exec_;
      cat::load_statics(eval_, prims_, exec_);
      dirty_ = 0;
    }
    eval_.rel("rf") = rf_rel_;
    dirty_ = std::min(dirty_, 1);
  }

  bool consistent(const BitRel& sbar) {
    if (check_) return (*check_)(EnumCandidate{sk_, model_, exec_, rf_rel_, co_, sf_, sbar});
    eval_.rel("co") = co_;
    eval_.rel("sf") = sf_;
    eval_.rel("sync_barrier") = sbar;
    eval_.update(dirty_);
    dirty_ = 2;
    return eval_.consistent();
  }

  // ---- outcomes --------------------------------------------------------------------
  std::string label(EventId e) const {
    const Event& ev = sk_.ev(e);
    if (ev.is_init) return fmt::format("init {}", ev.loc);
    return fmt::format("P{}#{} {}{}", ev.thread, ev.po_index, ev.text,
                       ev.in_rmw ? (ev.is_read() ? " (read)" : " (write)") : "");
  }

  // Each observed cell ends with the value of one co-maximal executed write.
  void record() {
    Values base(obs_.size(), 0);
    std::vector<std::vector<std::uint64_t>> choices(obs_.size());
    for (std::size_t i = 0; i < obs_.size(); ++i) {
      const Observable& o = obs_[i];
      if (o.is_register) {
        auto it = sk_.final_regs.find(o.reg);
        choices[i].push_back(
            it == sk_.final_regs.end()
                ? 0
                : eval(make_resize(it->second, width_of(o.type), is_signed(o.type))));
        continue;
      }
      for (EventId w = 0; w < n_; ++w) {
        if (!sk_.ev(w).is_write() || sk_.ev(w).loc != o.loc || !exec_[w]) continue;
        bool maximal = true;
        for (EventId x = 0; x < n_; ++x) maximal = maximal && !co_.has(w, x);
        if (maximal) choices[i].push_back(eval(sk_.ev(w).value));
      }
    }
    Witness wit;
    for (EventId r : reads_)
      if (exec_[r]) wit.rf.push_back(fmt::format("{} -> {}", label(rf_[r]), label(r)));
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = 0; b < n_; ++b)
        if (co_.has(a, b) && !sk_.ev(a).is_init)
          wit.co.push_back(fmt::format("{} -> {}", label(a), label(b)));
    product(choices, 0, base, wit);
  }

  void product(const std::vector<std::vector<std::uint64_t>>& choices, std::size_t i, Values& vals,
               const Witness& wit) {
    if (i == choices.size()) {
      if (test_.filter && !eval_condition(*test_.filter, obs_, vals)) return;
      any_outcome_ = true;
      found_->emplace(vals, wit);
      if (found_->size() > opts_.max_outcomes)
        throw InputError(Diagnostic{test_.file, test_.condition_loc,
                                    fmt::format("more than {} outcomes", opts_.max_outcomes)});
      return;
    }
    for (std::uint64_t v : choices[i]) {
      vals[i] = v;
      product(choices, i + 1, vals, wit);
    }
  }

  const Skeleton& sk_;
  const LitmusTest& test_;
  ModelKind model_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  cat::StaticPrimitives prims_;
  Statics st_;
  std::size_t n_;
  std::vector<EventId> reads_, barriers_, waiting_;
  std::vector<EventId> rf_;
  std::vector<std::uint64_t> val_;
  std::vector<bool> exec_;
  BitRel rf_rel_, co_, sf_;
  std::map<std::string, std::vector<EventId>> cells_;
  std::vector<std::pair<std::string, std::vector<EventId>>> cell_list_;
  std::vector<std::pair<EventId, EventId>> sc_pairs_;
  std::vector<std::vector<EventId>> saw_;
  std::map<Values, Witness>* found_ = nullptr;
  std::size_t* candidates_;
  bool consistent_without_barriers_ = false;
  bool any_outcome_ = false;
  const CandidateCheck* check_;
  cat::Evaluator eval_;
  std::vector<bool> fed_exec_;  // the executed events the level-0 primitives hold
  int dirty_ = 0;               // the lowest level whose primitives changed
  // What the model lets the search assume (cat::Shortcuts).
  cat::Shortcuts cuts_;
  // A thread's own writes to one cell are only tried in program order.
  bool pin_po_loc_ = cuts_.own_writes_in_po;
  // Whether morally strong writes to one cell are only tried ordered (Coherence holds).
  bool must_order_ms_ = cuts_.ms_writes_ordered;
};

}  // namespace

namespace {

TestResult enumerate(const LitmusTest& test, const EngineOptions& opts, const cat::Model& model,
                     const CandidateCheck* check) {
  const auto t0 = std::chrono::steady_clock::now();
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  std::map<Values, Witness> found;
  std::size_t candidates = 0;  // over every skeleton of the test
  for (const Skeleton& sk : ex.skeletons) {
    SkeletonEnumerator e(sk, test, r.model, r.observables, opts, candidates, model, check);
    if (sk.cut) {
      std::map<Values, Witness> ignored;
      if (e.run(ignored)) ++r.incomplete.bound_cut;
      continue;
    }
    const bool consistent = e.run(found);
    if (!e.any_outcome() && consistent) ++r.incomplete.barrier_deadlock;
  }
  settle_result(r, test, std::move(found));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

// The model is parsed once per test (or once per process, the built-in one).
TestResult run_enum(const LitmusTest& test, const EngineOptions& opts) {
  if (test.pto_program) return pto_exec::run_explorer(test, opts);  // a PTO vector program
  return enumerate(test, opts, *model_of(opts, test), nullptr);
}

TestResult run_enum_with(const LitmusTest& test, const EngineOptions& opts,
                         const CandidateCheck& consistent) {
  return enumerate(test, opts, cat::builtin_ptx(), &consistent);
}

}  // namespace redscope
