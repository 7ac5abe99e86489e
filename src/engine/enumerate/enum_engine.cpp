// The reference enumerator (`--engine enum`): every candidate execution of a
// skeleton, built explicitly — an rf source for each read, a coherence
// partial order per cell, an orientation of the Fence-SC pairs and the
// barrier arrivals each waiting barrier saw — and checked against the PTX
// axioms by the cat model (models/ptx.cat, evaluated over bit matrices by
// src/model/cat_eval.cpp). It shares nothing with the Z3 encoding but the
// skeleton and the expression evaluator, so that the two engines can check
// each other.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/enumerate/estimate.hpp"
#include "engine/enumerate/fence_sc.hpp"
#include "engine/enumerate/herd_check.hpp"
#include "engine/enumerate/hooks.hpp"
#include "engine/enumerate/leaf_pool.hpp"
#include "engine/enumerate/split_plan.hpp"
#include "engine/enumerate/symmetry.hpp"
#include "engine/enumerate/value_cycles.hpp"
#include "redscope/core/bitrel.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/model/cat_eval.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

namespace {

using enumerate::Found;
using enumerate::LeafPool;
using enumerate::Values;

// The skeleton-wide facts a leaf's outcomes are made from.
struct LeafContext {
  const Skeleton& sk;
  const LitmusTest& test;
  const std::vector<Observable>& obs;
  const std::vector<EventId>& reads;
  const std::vector<std::string>& labels;  // per event
  const enumerate::ThreadClasses& classes;
  std::size_t max_outcomes;
  bool verdict_only = false;  // the first deciding outcome ends the search (Decided)
  // A listing run's outcomes go here (packed, witnesses as event pairs)
  // instead of into the map; with a pool, into each job's batch for it.
  OutcomeStore* store = nullptr;
};

// Thrown from the search by a verdict-only run at the first outcome that
// decides the condition (results.hpp: decides).
struct Decided {
  Values values;
  Witness witness;
};

// One consistent candidate as its outcomes need it: each observable's
// possible final values, and rf, the executed events and co for witnesses.
struct LeafView {
  const std::vector<std::vector<std::uint64_t>>& choices;
  const std::vector<EventId>& rf;
  const std::vector<bool>& exec;
  const BitRel& co;
};

// Makes leaves' outcomes into `found`: each combination of final values
// under each permutation of interchangeable threads, with its witness (the
// first one of a value is kept), or into a listing's store or batch.
class OutcomeMaker {
 public:
  OutcomeMaker(const LeafContext& c, Found& found, OutcomeBatch* batch = nullptr)
      : c_(c),
        n_(c.sk.size()),
        found_(found),
        batch_(batch) {}

  // Returns whether some outcome passed the filter.
  bool leaf(const LeafView& l) {
    leaf_ = &l;
    any_ = false;
    Values vals(l.choices.size(), 0);
    product(0, vals);
    return any_;
  }

 private:
  void product(std::size_t i, Values& vals) {
    if (i == leaf_->choices.size()) {
      if (!c_.classes.any()) {
        add(vals, nullptr);
        return;
      }
      enumerate::for_each_permutation(
          c_.classes, c_.obs, vals,
          [&](const Values& v, const std::vector<ThreadId>& from) { add(v, &from); });
      return;
    }
    for (std::uint64_t v : leaf_->choices[i]) {
      vals[i] = v;
      product(i + 1, vals);
    }
  }

  void add(const Values& vals, const std::vector<ThreadId>* from) {
    if (c_.test.filter && !eval_condition(*c_.test.filter, c_.obs, vals)) return;
    any_ = true;
    if (c_.verdict_only) {  // the first deciding outcome ends the search
      if (decides(c_.obs, c_.test, vals)) throw Decided{vals, witness(from)};
      return;
    }
    if (batch_) {  // the store drops repeats and checks the limit when it absorbs
      batch_->add(vals, [&](std::vector<EdgeCode>& rf, std::vector<EdgeCode>& co) {
        each_edge(
            from, [&](EventId a, EventId b) { rf.push_back(code(a, b)); },
            [&](EventId a, EventId b) { co.push_back(code(a, b)); });
      });
      return;
    }
    if (c_.store) {
      const bool fresh =
          c_.store->add(vals, [&](std::vector<EdgeCode>& rf, std::vector<EdgeCode>& co) {
            each_edge(
                from, [&](EventId a, EventId b) { rf.push_back(code(a, b)); },
                [&](EventId a, EventId b) { co.push_back(code(a, b)); });
          });
      if (fresh && c_.store->size_at_least() > c_.max_outcomes) too_many();
      return;
    }
    const auto [it, fresh] = found_.try_emplace(vals);
    if (!fresh) return;
    it->second = witness(from);
    if (found_.size() > c_.max_outcomes) too_many();
  }

  static EdgeCode code(EventId a, EventId b) {
    return EdgeCode{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
  }

  [[noreturn]] void too_many() const {
    throw InputError(Diagnostic{c_.test.file, c_.test.condition_loc,
                                fmt::format("more than {} outcomes", c_.max_outcomes)});
  }

  // The execution found, or (symmetry) its image where thread u does what
  // thread from[u] did: events map position for position.
  Witness witness(const std::vector<ThreadId>* from) const {
    Witness wit;
    wit.rf.reserve(c_.reads.size());  // one allocation, not log2(reads) of them
    each_edge(
        from, [&](EventId a, EventId b) { wit.rf.push_back(edge(a, b)); },
        [&](EventId a, EventId b) { wit.co.push_back(edge(a, b)); });
    return wit;
  }

  // The witness's rf edges (in the order of reads) and co edges (by source,
  // then target), each handed to its callback as a pair of events.
  template <class Rf, class Co>
  void each_edge(const std::vector<ThreadId>* from, Rf rf, Co co) const {
    const Skeleton& sk = c_.sk;
    std::vector<EventId> orig(n_), image(n_);
    for (EventId e = 0; e < n_; ++e) orig[e] = image[e] = e;
    if (from)
      for (std::size_t u = 0; u < from->size(); ++u) {
        const std::size_t v = static_cast<std::size_t>((*from)[u]);
        if (v == u) continue;
        const EventId bu = sk.thread_base[u], bv = sk.thread_base[v];
        const EventId end = u + 1 < sk.thread_base.size() ? sk.thread_base[u + 1] : n_;
        for (EventId i = 0; bu + i < end; ++i) {
          orig[bu + i] = bv + i;
          image[bv + i] = bu + i;
        }
      }
    for (EventId r : c_.reads)
      if (leaf_->exec[orig[r]]) rf(image[leaf_->rf[orig[r]]], r);
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = 0; b < n_; ++b)
        if (leaf_->co.has(orig[a], orig[b]) && !sk.ev(a).is_init) co(a, b);
  }

  // "A -> B", made once per pair and shared by every witness naming it.
  EdgeTexts::Item edge(EventId a, EventId b) const {
    EdgeTexts::Item& s = edges_[static_cast<std::size_t>(a) * n_ + b];
    if (!s) s = std::make_shared<const std::string>(c_.labels[a] + " -> " + c_.labels[b]);
    return s;
  }

  const LeafContext& c_;
  std::size_t n_;
  Found& found_;
  OutcomeBatch* batch_;
  const LeafView* leaf_ = nullptr;
  bool any_ = false;
  mutable std::unordered_map<std::size_t, EdgeTexts::Item> edges_;  // by a * n_ + b
};

// A leaf as a job keeps its own copies (the search moves on). With
// `fence_sc`, its Fence-SC orders are still to be searched (by the job):
// its outcomes count only if one of them makes the model hold.
struct LeafCopy {
  std::vector<std::vector<std::uint64_t>> choices;
  std::vector<EventId> rf;
  std::vector<bool> exec;
  BitRel co;
  bool fence_sc = false;
  LeafView view() const { return LeafView{choices, rf, exec, co}; }
};

// A job takes the leaves gathered once they are a 1/kJobShare share of the
// leaves made so far (one at first): about kJobShare jobs per e-fold growth
// of the leaves, enough to share the work and few enough that the merge's
// heap stays shallow (IRIW with 10 readers: 3,136 leaves of 334 outcomes
// each, 195 jobs).
constexpr std::size_t kJobShare = 32;

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
  SkeletonEnumerator(const Skeleton& sk, const LitmusTest& test, ModelRef model,
                     const std::vector<Observable>& obs, const EngineOptions& opts,
                     std::size_t& candidates, const cat::Model& cat_model,
                     const CandidateCheck* check, LeafPool* pool)
      : sk_(sk),
        test_(test),
        model_(model),
        obs_(obs),
        opts_(opts),
        cat_model_(cat_model),
        prims_(cat::static_primitives(sk, cat_model, model->variant_list(), opts.budget)),
        st_(statics(prims_)),
        n_(sk.size()),
        candidates_(&candidates),
        check_(check),
        eval_(
            cat_model, sk.size(), model->variant_list(),
            [&opts](std::string_view name) { return opts.enables(name); }, opts.budget),
        cuts_(cat::shortcuts(cat_model, [&opts](std::string_view a) { return opts.enables(a); })),
        pool_(pool) {
    slot_ = {eval_.slot("rf"), eval_.slot("co"), eval_.slot("sf"), eval_.slot("sync_barrier")};
    for (EventId e = 0; e < n_; ++e) {
      if (sk.ev(e).is_read()) reads_.push_back(e);
      if (sk.ev(e).is_barrier()) barriers_.push_back(e);
    }
    rf_.assign(n_, 0);
  }

  // The search's leaves may still be running on the pool's workers (the
  // search failed): they read this enumerator.
  ~SkeletonEnumerator() {
    if (pool_) pool_->abandon();
  }
  SkeletonEnumerator(const SkeletonEnumerator&) = delete;
  SkeletonEnumerator& operator=(const SkeletonEnumerator&) = delete;

  // Outcomes of this skeleton into `found`, or with a pool into its maps;
  // returns whether some candidate was consistent once barriers need not
  // complete (for the incomplete counts).
  bool run(Found& found) {
    found_ = &found;
    for (EventId e = 0; e < n_; ++e) labels_.push_back(label(e));
    if (store_) store_->begin_skeleton(store_skeleton_, labels_);
    bool guarded = false;
    for (EventId e = 0; e < n_; ++e) guarded = guarded || sk_.ev(e).guard != nullptr;
    ctx_.emplace(LeafContext{sk_, test_, obs_, reads_, labels_, classes_, opts_.max_outcomes,
                             opts_.verdict_only, store_});
    maker_.emplace(*ctx_, found);
    if (check_ || guarded)
      choose_rf(0);  // the executed events depend on values: complete candidates only
    else
      search();
    if (pool_) {
      flush();
      if (store_) absorb(true);
      pool_->drain();
      any_outcome_ = any_outcome_ || pool_any_.load();
      consistent_without_barriers_ = consistent_without_barriers_ || pool_consistent_.load();
    }
    return consistent_without_barriers_;
  }

  bool any_outcome() const { return any_outcome_; }
  // A listing run: outcomes into `store` (with a pool, through the jobs'
  // batches in job order), as skeleton `index`.
  void list_into(OutcomeStore* store, std::uint32_t index) {
    store_ = store;
    store_skeleton_ = index;
  }

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

  // Values follow rf. A cycle through rf and the value dependencies (data)
  // is a cycle of rf ∪ dep: under a model whose checks forbid one
  // (cat::Shortcuts::no_thin_air) the candidate is dropped here; under any
  // other model its values are the cycle's solutions (value_cycles.hpp), as
  // the Z3 engine's equations over free values allow them.
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

  // Calls `next` once per assignment of values the rf choice allows, with
  // val_ and exec_ set (and no assumption broken). Before solving a cycle,
  // `may_hold()` says whether some candidate with this rf may be consistent
  // whatever the values (the pruning search's exact check on rf): a model
  // whose other checks forbid the rf (LB's po ∪ rf cycle) costs no search.
  template <class MayHold, class Next>
  void each_values(MayHold may_hold, Next next) {
    val_.assign(n_, 0);
    std::vector<int> state(n_, 0);
    try {
      for (EventId r : reads_) read_value(r, state);
    } catch (const Cycle&) {
      if (cuts_.no_thin_air || opts_.acyclic_values_only || !may_hold()) return;
      enumerate::cycle_values(
          sk_, reads_, rf_, opts_.budget, [&] { tick(); },
          [&](const std::vector<std::uint64_t>& v) {
            val_ = v;
            if (executed_ok()) next();
          });
      return;
    }
    if (executed_ok()) next();
  }

  // With val_ set: the executed events, the assumptions and the sources of
  // unexecuted reads.
  bool executed_ok() {
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
    if ((*candidates_ & 1023) == 0) enumerate::checkpoint(opts_, *candidates_);
    ++*candidates_;
    if (pool_ && pool_->failed()) pool_->drain();  // rethrows a leaf's error
    if (opts_.give_way_after && (*candidates_ & 255) == 0) {
      // Choices weighted by what one costs on a skeleton this size.
      const double work = static_cast<double>(*candidates_) * enumerate::size_factor(n_);
      const auto few = [&](std::size_t found) {
        return static_cast<double>(found * opts_.give_way_ratio) < work;
      };
      // outcomes() waits for the pool: asked last. A split search's
      // outcomes come from the product of its leaves.
      if (work > static_cast<double>(opts_.give_way_after) &&
          (phase_ != Phase::Whole ? few(split_outcomes())
                                  : few(outcomes_at_least()) && few(outcomes())))
        throw EnumGaveWay{*candidates_, outcomes()};
    }
    if (*candidates_ > opts_.enum_limit) {
      const std::size_t found = outcomes();  // first: "more than N outcomes" may come before
      if (opts_.give_way_after) throw EnumGaveWay{*candidates_, found};
      throw InputError(Diagnostic{
          test_.file, test_.condition_loc,
          fmt::format(
              "gave up after {} candidate executions (the --engine enum limit); use the z3 engine",
              opts_.enum_limit)});
    }
  }

  void with_rf() {
    tick();
    // The executed events follow the values here: nothing to check first.
    each_values([] { return true; }, [&] { with_values(); });
  }

  void with_values() {
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
    each_cell_order(cell_list_[c].second, [&] { choose_co(c + 1); });
  }

  // Calls `visit` with co_ holding, on the cell's writes `ws`, each strict partial
  // order the rules above allow (pinned pairs fixed, the rest an odometer over
  // their options, kept when transitive); leaves the cell's co_ empty.
  template <class Visit>
  void each_cell_order(const std::vector<EventId>& ws, Visit visit) {
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
      if (transitive_on(ws)) visit();
      std::size_t k = pairs.size();
      for (; k > 0; --k) {
        const std::size_t p = k - 1;
        at[p] = (at[p] + 1) % options[p].size();
        orient(pairs[p], options[p][at[p]]);
        if (at[p] != 0) break;  // no carry
      }
      if (k == 0) break;  // every combination seen
    }
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
    recorded_ = false;
    choose_sf_pair(0);
  }

  void choose_sf_pair(std::size_t k) {
    if (recorded_) return;  // the outcome is rf's and co's: one Fence-SC order is enough
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

  // ---- the pruning search (a skeleton without guards) ------------------------
  // Every event executes, so the choices are known up front and made in the
  // order that lets the model cut early: each cell's coherence order (a
  // morally strong cell write by write, as a sequence), then each read's
  // source in program order, then each Fence-SC pair's orientation. After
  // each choice the model is evaluated on the partial candidate with the
  // undecided relations as intervals (cat::Evaluator::upper): the smallest
  // value they may end with where they occur positively, the largest where
  // negatively. A check that fails there fails in every completion, so the
  // branch is cut at its first violation. Interchangeable threads
  // (symmetry.hpp) are explored in one order and their outcomes permuted.
  void search() {
    prepare_search();
    if (!check_at(0)) return;
    // Kept as a member: the product's jobs read it after search() returns.
    plan_ = enumerate::split_plan(sk_, obs_, cat_model_, model_->variant_list(), opts_, prims_);
    if (plan_) {
      split_search();
      return;
    }
    choose_cell(0);
  }

  // The search's starting state: every choice open.
  void prepare_search() {
    exec_.assign(n_, true);
    if (exec_ != fed_exec_) {
      fed_exec_ = exec_;
      cat::load_statics(eval_, prims_, exec_);
    }
    classes_ = enumerate::classes_for(sk_, obs_, opts_);
    BitRel rf_hi(n_);
    for (EventId r : reads_)
      for (EventId w = 0; w < n_; ++w)
        if (sk_.ev(w).is_write() && sk_.ev(w).loc == sk_.ev(r).loc) rf_hi.set(w, r);
    rf_all_ = rf_hi;
    saved_rf_.assign(reads_.size(), BitRel(n_));
    rf_rel_ = BitRel(n_);
    cells_.clear();
    for (EventId w = 0; w < n_; ++w)
      if (sk_.ev(w).is_write() && !sk_.ev(w).is_init) cells_[sk_.ev(w).loc].push_back(w);
    cell_list_.assign(cells_.begin(), cells_.end());
    co_ = BitRel(n_);
    co_hi_ = BitRel(n_);
    for (const auto& [loc, ws] : cell_list_) {
      for (EventId x : ws) co_.set(sk_.init_write.at(loc), x);
      for (EventId a : ws)
        for (EventId b : ws)
          if (a != b) co_hi_.set(a, b);
    }
    co_hi_ |= co_;
    sc_pairs_.clear();
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = a + 1; b < n_; ++b)
        if (sk_.ev(a).is_sc_fence() && sk_.ev(b).is_sc_fence() && st_.ms.has(a, b))
          sc_pairs_.emplace_back(a, b);
    sf_ = BitRel(n_);
    sf_hi_ = BitRel(n_);
    for (const auto& [a, b] : sc_pairs_) {
      sf_hi_.set(a, b);
      sf_hi_.set(b, a);
    }
    sc_hi_ = sf_hi_;
    barrier_hi_ = BitRel(n_);
    for (EventId a : barriers_)
      for (EventId b : barriers_) barrier_hi_.set(a, b);
    prepare_symmetry();
    set_rf();
    set_partial_sf();
    set_co();
  }

  // Re-evaluates what reads a primitive set since the last evaluation
  // (returning from a deeper choice restores a lower one): `level` is only
  // what the caller changed, kept for reading.
  bool check_at(int /*level*/) {
    eval_.update_touched();
    pending_ = kClean;
    return eval_.consistent();
  }

  void set_co() {
    eval_.rel(slot_.co) = co_;
    eval_.upper(slot_.co) = co_hi_;
    changed(2);
  }

  void set_rf() {
    eval_.rel(slot_.rf) = rf_rel_;
    eval_.upper(slot_.rf) = rf_all_;
    changed(1);
  }

  void changed(int level) { pending_ = std::min(pending_, level); }

  void set_partial_sf() {
    changed(2);
    eval_.rel(slot_.sf) = sf_;
    eval_.upper(slot_.sf) = sf_hi_;
    eval_.rel(slot_.sync_barrier) = BitRel(n_);
    eval_.upper(slot_.sync_barrier) = barrier_hi_;
  }

  // A cell whose writes are pairwise morally strong is a sequence (Coherence
  // orders every pair): its writes are placed one after another. Any other
  // cell takes the odometer of choose_co, checked once complete.
  void choose_cell(std::size_t c) {
    if (c == cell_list_.size()) {
      eval_.exact(slot_.co);
      eval_.rel(slot_.co) = co_;
      changed(2);
      if (check_at(2)) choose_read(0);
      set_co();
      return;
    }
    const std::vector<EventId>& ws = cell_list_[c].second;
    if (pinned(ws.front())) {
      pin_cell(c);
      return;
    }
    bool sequence = must_order_ms_;
    for (EventId a : ws)
      for (EventId b : ws) sequence = sequence && (a == b || st_.ms.has(a, b));
    if (sequence) {
      place(c, 0);
      return;
    }
    cell_odometer(c);
  }

  // The writes of cell c placed so far (`count` of them, marked in
  // placed_), in coherence order: each precedes the later ones and every
  // write not yet placed (lo); the unplaced may still go either way among
  // themselves (hi). A placement that was the only option is not checked on
  // its own: the next real choice, or the end of the cell, checks it (a
  // thread's own chain of 1,000 stores is one check, not 1,000).
  void place(std::size_t c, std::size_t count) {
    const std::vector<EventId>& ws = cell_list_[c].second;
    if (count == ws.size()) {
      choose_cell(c + 1);
      return;
    }
    std::vector<EventId> options;
    for (EventId w : ws)
      if (!placed_[w] && may_place(w)) options.push_back(w);
    for (EventId w : options) {
      tick();
      placed_[w] = 1;
      for (EventId x : ws)
        if (!placed_[x]) {
          co_.set(w, x);
          co_hi_.set(x, w, false);
        }
      if (options.size() == 1) {
        place(c, count + 1);
      } else {
        set_co();
        if (check_at(2)) place(c, count + 1);
      }
      placed_[w] = 0;
      for (EventId x : ws)
        if (!placed_[x] && x != w) {
          co_.set(w, x, false);
          co_hi_.set(x, w);
        }
    }
    set_co();
  }

  // A thread's own earlier write to the cell comes first (pin_po_loc), and a
  // class's first writes go in thread order (the symmetry's signature).
  bool may_place(EventId w) const {
    const auto pin = pin_pred_.find(w);
    if (pin != pin_pred_.end() && !placed_[pin->second]) return false;
    const auto it = first_write_pred_.find(w);
    return it == first_write_pred_.end() || placed_[it->second];
  }

  void cell_odometer(std::size_t c) {
    const std::vector<EventId>& ws = cell_list_[c].second;
    const BitRel hi = co_hi_;
    each_cell_order(ws, [&] {
      for (EventId a : ws)
        for (EventId b : ws) co_hi_.set(a, b, co_.has(a, b));
      set_co();
      if (check_at(2)) choose_cell(c + 1);
      co_hi_ = hi;
    });
    set_co();
  }

  // Each read's source, in program order; a class without a coherence key
  // keeps its threads in the order of their reads' sources.
  void choose_read(std::size_t k) {
    if (k == reads_.size()) {
      read_leaf();
      return;
    }
    const EventId r = reads_[k];
    BitRel& saved = saved_rf_[k];  // one buffer per depth (search()): no allocation per choice
    saved = rf_all_;
    const bool pin = pinned(r);  // held at the base's source
    std::size_t sources = 0;
    for (EventId w = 0; w < n_; ++w) sources += saved.has(w, r) && (!pin || w == base_rf_[r]);
    for (EventId w = 0; w < n_; ++w) {
      if (!saved.has(w, r) || (pin && w != base_rf_[r])) continue;
      tick();
      rf_[r] = w;
      rf_rel_.set(w, r);
      for (EventId x = 0; x < n_; ++x) rf_all_.set(x, r, x == w);
      if (rf_sorted(k)) {
        set_rf();
        // The last read goes straight to the leaf, whose check is exact in
        // rf; a read with one possible source was no choice.
        if (k + 1 == reads_.size() || sources == 1 || check_at(1)) choose_read(k + 1);
      }
      rf_rel_.set(w, r, false);
    }
    rf_all_ = saved;
    set_rf();
  }

  // Every source chosen: values (each_values), then the Fence-SC pairs.
  void read_leaf() {
    each_values([&] { return rf_may_hold(); }, [&] { leaf_values(); });
  }

  // Every event executes here, so no value changes a relation: the model
  // with rf exact and the Fence-SC pairs open fails for every value or none.
  bool rf_may_hold() {
    eval_.exact(slot_.rf);
    eval_.rel(slot_.rf) = rf_rel_;
    changed(1);
    const bool ok = check_at(1);
    set_rf();
    return ok;
  }

  void leaf_values() {
    eval_.exact(slot_.rf);
    eval_.rel(slot_.rf) = rf_rel_;
    changed(1);
    recorded_ = false;
    if (sc_pairs_.empty()) {  // straight to the exact check
      eval_.exact(slot_.sf);
      eval_.exact(slot_.sync_barrier);
      choose_barriers();
      set_partial_sf();
    } else if (defers_fence_sc()) {
      emit(final_choices(), true);
    } else {
      std::size_t orders = 0;
      enumerate::FenceScOrders(eval_, slot_.sf, slot_.sync_barrier, barrier_hi_, sf_, sf_hi_)
          .run(
              sc_pairs_, [&] { count_order(orders); },
              [&] {
                changed(2);
                choose_barriers();
                return recorded_;
              });
    }
    set_rf();
  }

  // A leaf's Fence-SC orders are not candidates of the search's count (the
  // limit, auto's give-way): those count the rf and co choices, made in the
  // same order at any -j, while with workers a leaf's orders are searched by
  // a job. Each leaf may try up to the limit of orders.
  void count_order(std::size_t& orders) const {
    if ((++orders & 1023) == 0) check(opts_.budget);
    if (orders > opts_.enum_limit)
      throw InputError(Diagnostic{
          test_.file, test_.condition_loc,
          fmt::format("gave up after {} Fence-SC orders of one candidate (the --engine enum "
                      "limit); use the z3 engine",
                      opts_.enum_limit)});
  }

  // With workers, a whole search's leaf goes to a job with its Fence-SC
  // orders open (their search is most of such a test's time: IRIW with
  // fence.sc), when nothing else needs this thread's state: no barrier
  // choices, no caller's check or execution hook.
  bool defers_fence_sc() const {
    return pool_ && phase_ == Phase::Whole && barriers_.empty() && !check_ && !opts_.on_execution;
  }

  // A job's Fence-SC search for a deferred leaf, on an evaluator of the
  // job's (taken from the spares, or made): whether some order makes the
  // model hold.
  bool fence_sc_holds(const LeafCopy& l) {
    std::unique_ptr<cat::Evaluator> ev = take_evaluator();
    BitRel rf(n_);
    for (EventId r : reads_)
      if (l.exec[r]) rf.set(l.rf[r], r);
    ev->exact(slot_.rf);
    ev->rel(slot_.rf) = rf;
    ev->exact(slot_.co);
    ev->rel(slot_.co) = l.co;
    BitRel sf(n_), sf_hi = sc_hi_;
    bool holds = false;
    std::size_t orders = 0;
    enumerate::FenceScOrders(*ev, slot_.sf, slot_.sync_barrier, barrier_hi_, sf, sf_hi)
        .run(
            sc_pairs_, [&] { count_order(orders); },
            [&] {
              ev->update_touched();
              if (!ev->consistent()) return false;
              pool_consistent_ = true;
              const BitRel none(n_);
              holds = enumerate::kept(opts_, {sk_, model_, l.exec, rf, l.co, sf, none});
              return holds;
            });
    give_back(std::move(ev));
    return holds;
  }

  std::unique_ptr<cat::Evaluator> take_evaluator() {
    {
      const std::lock_guard<std::mutex> lock(spares_mu_);
      if (!spare_evals_.empty()) {
        std::unique_ptr<cat::Evaluator> ev = std::move(spare_evals_.back());
        spare_evals_.pop_back();
        return ev;
      }
    }
    auto ev = std::make_unique<cat::Evaluator>(
        cat_model_, n_, model_->variant_list(),
        [this](std::string_view name) { return opts_.enables(name); }, opts_.budget);
    cat::load_statics(*ev, prims_, std::vector<bool>(n_, true));
    return ev;
  }

  void give_back(std::unique_ptr<cat::Evaluator> ev) {
    const std::lock_guard<std::mutex> lock(spares_mu_);
    spare_evals_.push_back(std::move(ev));
  }

  // ---- splitting by location (split_plan.hpp) ------------------------------
  // The checks split over the locations: a candidate is consistent when
  // each location's choices are, whatever the others'. So: one consistent
  // candidate first (the base); then each observed location searched with
  // every other one held at the base's choices, keeping one leaf per
  // distinct value of its observables; then every combination of those
  // leaves, each a consistent candidate made of the locations' choices.
  // An unobserved location keeps the base's choices alone.
  enum class Phase : std::uint8_t { Whole, Base, Part };
  struct BaseFound {};
  struct PartLeaf {
    std::vector<std::vector<std::uint64_t>> choices;
    std::vector<EventId> rf;
    BitRel co;
  };

  void split_search() {
    const enumerate::SplitPlan& plan = *plan_;
    phase_ = Phase::Base;
    bool found = false;
    try {
      choose_cell(0);
    } catch (const BaseFound&) {
      found = true;
    }
    phase_ = Phase::Whole;
    if (!found) return;  // no candidate is consistent
    part_leaves_.assign(static_cast<std::size_t>(plan.parts), {});
    for (int p = 0; p < plan.parts; ++p) {
      const bool observed =
          std::find(plan.part_of_obs.begin(), plan.part_of_obs.end(), p) != plan.part_of_obs.end();
      if (!observed) {
        part_leaves_[p].push_back(PartLeaf{base_choices_, base_rf_, base_co_});
        continue;
      }
      phase_ = Phase::Part;
      part_ = p;
      seen_.clear();
      prepare_search();
      if (check_at(0)) choose_cell(0);
      phase_ = Phase::Whole;
    }
    product();
  }

  // In a location's search, an event of another location keeps the base's choice.
  bool pinned(EventId e) const { return phase_ == Phase::Part && plan_->part_of_event[e] != part_; }

  void pin_cell(std::size_t c) {
    const std::vector<EventId>& ws = cell_list_[c].second;
    for (EventId a : ws)
      for (EventId b : ws)
        if (a != b) {
          co_.set(a, b, base_co_.has(a, b));
          co_hi_.set(a, b, base_co_.has(a, b));
        }
    set_co();
    if (check_at(2)) choose_cell(c + 1);
    for (EventId a : ws)
      for (EventId b : ws)
        if (a != b) {
          co_.set(a, b, false);
          co_hi_.set(a, b);
        }
    set_co();
  }

  // One leaf per distinct value of the searched location's observables.
  void keep_part_leaf(std::vector<std::vector<std::uint64_t>> choices) {
    std::vector<std::vector<std::uint64_t>> key;
    for (std::size_t i = 0; i < obs_.size(); ++i)
      if (plan_->part_of_obs[i] == part_) key.push_back(choices[i]);
    if (!seen_.insert(std::move(key)).second) return;
    charge(opts_.budget, n_ * n_ / 8 + n_ * sizeof(EventId));
    part_leaves_[static_cast<std::size_t>(part_)].push_back(PartLeaf{std::move(choices), rf_, co_});
  }

  // Every combination of the locations' leaves, numbered as an odometer
  // (the last location turning fastest): its rf and co are each location's
  // own. With workers, ranges of combinations are jobs in that order.
  void product() {
    const std::size_t parts = part_leaves_.size();
    own_.assign(parts, BitRel(n_));  // the pairs within each location
    for (EventId a = 0; a < n_; ++a)
      for (EventId b = 0; b < n_; ++b) {
        const int p = plan_->part_of_event[a];
        if (p >= 0 && p == plan_->part_of_event[b]) own_[static_cast<std::size_t>(p)].set(a, b);
      }
    std::uint64_t total = 1;  // saturating: the outcome limit stops far sooner
    for (const auto& l : part_leaves_)
      total = total > UINT64_MAX / l.size() ? UINT64_MAX : total * l.size();
    if (!pool_) {
      any_outcome_ = make_combinations(0, total, *maker_, true) || any_outcome_;
      return;
    }
    const std::uint64_t chunk = std::max<std::uint64_t>(4096, total / 64);
    for (std::uint64_t from = 0; from < total; from += std::min(chunk, total - from)) {
      if (pool_->failed()) pool_->drain();  // rethrows a job's error (the limit)
      const std::uint64_t to = from + std::min(chunk, total - from);
      push_job([this, from, to](OutcomeMaker& maker) {
        return make_combinations(from, to, maker, false);
      });
    }
  }

  // Combinations [from, to) into `maker`; whether some outcome passed the
  // filter. On the search's thread the budget check reports progress too.
  bool make_combinations(std::uint64_t from, std::uint64_t to, OutcomeMaker& maker,
                         bool search_thread) const {
    const std::size_t parts = part_leaves_.size();
    std::vector<std::size_t> at(parts, 0);
    for (std::uint64_t i = from, k = parts; k > 0; --k) {  // from's digits
      at[k - 1] = static_cast<std::size_t>(i % part_leaves_[k - 1].size());
      i /= part_leaves_[k - 1].size();
    }
    std::vector<EventId> rf(n_, 0);
    const std::vector<bool> exec(n_, true);
    BitRel co(n_);
    bool any = false;
    for (std::uint64_t i = from; i < to; ++i) {
      if ((i & 1023) == 0) {
        if (search_thread)
          enumerate::checkpoint(opts_, *candidates_);
        else
          check(opts_.budget);
      }
      auto leaf = [&](int p) -> const PartLeaf& {
        return part_leaves_[static_cast<std::size_t>(p)][at[static_cast<std::size_t>(p)]];
      };
      std::vector<std::vector<std::uint64_t>> choices(obs_.size());
      for (std::size_t o = 0; o < obs_.size(); ++o) {
        const int p = plan_->part_of_obs[o];
        choices[o] = p < 0 ? base_choices_[o] : leaf(p).choices[o];
      }
      for (EventId r : reads_) rf[r] = leaf(plan_->part_of_event[r]).rf[r];
      co.clear();
      for (std::size_t p = 0; p < parts; ++p) co |= leaf(static_cast<int>(p)).co & own_[p];
      any = maker.leaf(LeafView{choices, rf, exec, co}) || any;
      for (std::size_t k = parts; k > 0; --k)
        if (++at[k - 1] < part_leaves_[k - 1].size())
          break;
        else
          at[k - 1] = 0;
    }
    return any;
  }

  // The outcomes a split search has made sure of so far: the product of
  // the leaves kept per location (for the auto engine's give-way).
  std::size_t split_outcomes() const {
    std::size_t n = 1;
    for (const auto& l : part_leaves_) n *= std::max<std::size_t>(l.size(), 1);
    return n;
  }

  // ---- symmetry -----------------------------------------------------------------
  // For each class: a coherence key (its threads' first writes, in one
  // sequence cell, placed in thread order) or, without one, the sources of
  // its threads' reads in thread order (rf_sorted).
  void prepare_symmetry() {
    cell_of_write_.clear();
    first_write_pred_.clear();
    read_pred_.clear();
    placed_.assign(n_, 0);
    pin_pred_.clear();
    if (pin_po_loc_)
      for (const auto& [loc, ws] : cell_list_)
        for (EventId w : ws)
          for (EventId x : ws)  // the latest own earlier write to the cell
            if (x != w && st_.ms.has(x, w) && st_.poloc.has(x, w) &&
                (!pin_pred_.count(w) || st_.poloc.has(pin_pred_[w], x)))
              pin_pred_[w] = x;
    for (std::size_t c = 0; c < cell_list_.size(); ++c)
      for (EventId w : cell_list_[c].second) cell_of_write_[w] = c;
    auto first_write = [&](ThreadId t) -> std::optional<EventId> {
      for (EventId e = 0; e < n_; ++e)
        if (sk_.ev(e).thread == t && sk_.ev(e).is_write()) return e;
      return std::nullopt;
    };
    for (const auto& g : classes_.groups) {
      const auto w0 = first_write(g[0]);
      bool key = w0.has_value() && must_order_ms_;
      if (key) {
        const auto& ws = cell_list_[cell_of_write_.at(*w0)].second;
        for (EventId a : ws)
          for (EventId b : ws) key = key && (a == b || st_.ms.has(a, b));
      }
      for (std::size_t j = 1; j < g.size(); ++j) {
        if (key)
          first_write_pred_[*first_write(g[j])] = *first_write(g[j - 1]);
        else
          read_pred_[g[j]] = g[j - 1];
      }
    }
    last_read_of_.assign(reads_.size(), -1);
    for (std::size_t k = 0; k < reads_.size(); ++k)
      if (k + 1 == reads_.size() || sk_.ev(reads_[k + 1]).thread != sk_.ev(reads_[k]).thread)
        last_read_of_[k] = sk_.ev(reads_[k]).thread;
  }

  // Where a read reads from, as the permutations carry it along: the initial
  // write, or (the writer's class, its own thread or not, its position).
  std::tuple<int, int, int, std::size_t> source_sig(EventId r) const {
    const Event& w = sk_.ev(rf_[r]);
    if (w.is_init) return {0, 0, 0, 0};
    return {1, classes_.class_of[static_cast<std::size_t>(w.thread)],
            w.thread == sk_.ev(r).thread ? 1 : 0, w.po_index};
  }

  // After the last read of a thread whose class orders by reads: its sources
  // are not before its predecessor's (lexicographically, read by read).
  bool rf_sorted(std::size_t k) const {
    const ThreadId t = last_read_of_[k];
    if (t < 0) return true;
    const auto it = read_pred_.find(t);
    if (it == read_pred_.end()) return true;
    const EventId bt = sk_.thread_base[static_cast<std::size_t>(t)];
    const EventId bp = sk_.thread_base[static_cast<std::size_t>(it->second)];
    for (EventId r : reads_) {
      if (sk_.ev(r).thread != t) continue;
      const auto mine = source_sig(r), theirs = source_sig(bp + (r - bt));
      if (mine != theirs) return theirs < mine;
    }
    return true;
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
    if (recorded_) return;  // one barrier choice that allows the outcome is enough
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
    if (recorded_) return;
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
    if (consistent(sbar) && enumerate::kept(opts_, {sk_, model_, exec_, rf_rel_, co_, sf_, sbar}))
      record();
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
    eval_.rel(slot_.rf) = rf_rel_;
    dirty_ = std::min(dirty_, 1);
  }

  bool consistent(const BitRel& sbar) {
    if (check_) return (*check_)(EnumCandidate{sk_, model_, exec_, rf_rel_, co_, sf_, sbar});
    eval_.rel(slot_.co) = co_;
    eval_.rel(slot_.sf) = sf_;
    eval_.rel(slot_.sync_barrier) = sbar;
    eval_.update_touched();
    dirty_ = 2;
    pending_ = kClean;
    return eval_.consistent();
  }

  // ---- outcomes --------------------------------------------------------------------
  std::string label(EventId e) const {
    const Event& ev = sk_.ev(e);
    if (ev.is_init) return fmt::format("init {}", ev.loc);
    return fmt::format("P{}#{} {}{}", ev.thread, ev.po_index, ev.text,
                       ev.in_rmw ? (ev.is_read() ? " (read)" : " (write)") : "");
  }

  // The distinct outcomes found so far, as the one-thread search counts
  // them when it decides (the limits): with a pool, once every leaf made so
  // far is done, and "more than N outcomes" thrown here if they are more.
  std::size_t outcomes() {
    if (store_ && pool_) {
      flush();
      absorb(true);
    }
    if (store_) return store_->size_at_most();
    if (!pool_) return found_->size();
    flush();
    const std::size_t n = pool_->count();
    if (n > opts_.max_outcomes)
      throw InputError(Diagnostic{test_.file, test_.condition_loc,
                                  fmt::format("more than {} outcomes", opts_.max_outcomes)});
    return n;
  }

  // At most outcomes(), without waiting for the pool.
  std::size_t outcomes_at_least() const {
    if (store_) return pool_ ? pool_->listed_at_least() : store_->size_at_least();
    return pool_ ? pool_->lower_bound() : found_->size();
  }

  // A listing run with a pool: the finished jobs' batches into the store,
  // in job order (with `all`, every one made so far), and "more than N
  // outcomes" as the maker would throw it.
  void absorb(bool all) {
    pool_->absorb(all);
    if (pool_->listed_at_least() > opts_.max_outcomes)
      throw InputError(Diagnostic{test_.file, test_.condition_loc,
                                  fmt::format("more than {} outcomes", opts_.max_outcomes)});
  }

  // Hands the leaves gathered so far to the pool as one job.
  void flush() {
    if (batch_.empty()) return;
    push_job([this, leaves = std::move(batch_)](OutcomeMaker& maker) {
      bool any = false;
      for (const LeafCopy& l : leaves) {
        check(opts_.budget);
        if (l.fence_sc && !fence_sc_holds(l)) continue;
        any = maker.leaf(l.view()) || any;
      }
      return any;
    });
    batch_.clear();
  }

  // A job for the pool: `make` hands leaves to the job's maker and says
  // whether some outcome passed the filter. Its outcomes go to a map of its
  // own, or for a listing run into a batch of its own (the batches finished
  // so far go into the store meanwhile). Past a few queued jobs per worker
  // the search helps.
  template <class Make>
  void push_job(Make make) {
    if (store_) {
      std::unique_ptr<OutcomeBatch> packed = pool_->spare_batch();
      if (packed)
        packed->reuse(store_skeleton_);
      else
        packed = std::make_unique<OutcomeBatch>(*store_, store_skeleton_);
      pool_->push(
          [this, make = std::move(make)](OutcomeBatch& out) mutable {
            Found unused;
            OutcomeMaker maker(*ctx_, unused, &out);
            if (make(maker)) pool_any_ = true;
          },
          std::move(packed), *store_);
      absorb(false);
    } else {
      pool_->push([this, make = std::move(make)](Found& found) mutable {
        OutcomeMaker maker(*ctx_, found);
        if (make(maker)) pool_any_ = true;
      });
    }
    pool_->help_if_behind(4 * std::size_t{opts_.workers});
  }

  // Each observed cell ends with the value of one co-maximal executed write.
  // The witness (strings) is built only for an outcome not seen before.
  void record() {
    recorded_ = true;
    std::vector<std::vector<std::uint64_t>> choices = final_choices();
    if (phase_ == Phase::Base) {
      base_rf_ = rf_;
      base_co_ = co_;
      base_choices_ = std::move(choices);
      throw BaseFound{};
    }
    if (phase_ == Phase::Part) {
      keep_part_leaf(std::move(choices));
      return;
    }
    emit(std::move(choices));
  }

  // Each observable's possible final values in this candidate.
  std::vector<std::vector<std::uint64_t>> final_choices() {
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
        if (co_.row_empty(w)) choices[i].push_back(o.view(eval(sk_.ev(w).value)));
      }
    }
    return choices;
  }

  // A leaf's outcomes: made here, or gathered for the pool (`fence_sc`: its
  // Fence-SC orders still to be searched, by the job).
  void emit(std::vector<std::vector<std::uint64_t>> choices, bool fence_sc = false) {
    if (!pool_) {
      any_outcome_ = maker_->leaf(LeafView{choices, rf_, exec_, co_}) || any_outcome_;
      return;
    }
    charge(opts_.budget, n_ * n_ / 8 + n_ * sizeof(EventId));  // the copies of co and rf
    batch_.push_back(LeafCopy{std::move(choices), rf_, exec_, co_, fence_sc});
    if (++leaves_ / kJobShare <= batch_.size()) flush();
  }

  const Skeleton& sk_;
  const LitmusTest& test_;
  ModelRef model_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  const cat::Model& cat_model_;
  cat::StaticPrimitives prims_;
  Statics st_;
  std::size_t n_;
  std::vector<EventId> reads_, barriers_, waiting_;
  std::vector<EventId> rf_;
  std::vector<std::uint64_t> val_;
  std::vector<bool> exec_;
  BitRel rf_rel_, co_, sf_;
  // The pruning search: the largest values rf, co and sf may still take.
  BitRel rf_all_, co_hi_, sf_hi_;
  // Every morally strong fence.sc pair both ways, and every barrier pair:
  // the largest sf and sync_barrier.
  BitRel sc_hi_, barrier_hi_;
  std::vector<BitRel> saved_rf_;  // choose_read(k)'s copy of rf_all_, per k
  enumerate::ThreadClasses classes_;
  std::map<EventId, std::size_t> cell_of_write_;  // a write -> its cell in cell_list_
  std::vector<char> placed_;                      // per write: placed in its sequence cell
  std::map<EventId, EventId> pin_pred_;  // a write -> its thread's previous write to the cell
  std::map<EventId, EventId> first_write_pred_;  // a class's first write -> the previous thread's
  std::map<ThreadId, ThreadId> read_pred_;       // a thread -> its class predecessor (by reads)
  std::vector<ThreadId> last_read_of_;           // per read: its thread if its last read, else -1
  std::vector<std::string> labels_;
  std::map<std::string, std::vector<EventId>> cells_;
  std::vector<std::pair<std::string, std::vector<EventId>>> cell_list_;
  std::vector<std::pair<EventId, EventId>> sc_pairs_;
  std::vector<std::vector<EventId>> saw_;
  Found* found_ = nullptr;
  std::size_t* candidates_;
  bool consistent_without_barriers_ = false;
  // This rf/co candidate has recorded its outcome: its other Fence-SC orders
  // and barrier choices can only give the same values again.
  bool recorded_ = false;
  bool any_outcome_ = false;
  const CandidateCheck* check_;
  cat::Evaluator eval_;
  struct {
    std::size_t rf, co, sf, sync_barrier;
  } slot_{};                    // the primitives the search sets, by slot
  std::vector<bool> fed_exec_;  // the executed events the level-0 primitives hold
  int dirty_ = 0;               // the lowest level whose primitives changed
  // The pruning search: the lowest level changed since the last evaluation.
  static constexpr int kClean = 3;
  int pending_ = 0;
  // What the model lets the search assume (cat::Shortcuts).
  cat::Shortcuts cuts_;
  // A thread's own writes to one cell are only tried in program order.
  bool pin_po_loc_ = cuts_.own_writes_in_po;
  // Whether morally strong writes to one cell are only tried ordered (Coherence holds).
  bool must_order_ms_ = cuts_.ms_writes_ordered;
  // Outcomes: made here (maker_), or by the pool's workers from the leaves
  // gathered in batch_ (pool_any_: some passed the filter).
  std::optional<LeafContext> ctx_;
  std::optional<OutcomeMaker> maker_;
  LeafPool* pool_;
  OutcomeStore* store_ = nullptr;
  std::uint32_t store_skeleton_ = 0;
  std::vector<LeafCopy> batch_;
  // Deferred leaves' jobs: some candidate consistent (for the incomplete
  // counts); evaluators between jobs.
  std::atomic<bool> pool_consistent_{false};
  std::mutex spares_mu_;
  std::vector<std::unique_ptr<cat::Evaluator>> spare_evals_;
  std::size_t leaves_ = 0;  // handed to the pool, or gathered in batch_
  // Splitting by location: the phase, the plan, the part searched, the
  // base candidate and each part's leaves (seen_: the current part's values).
  Phase phase_ = Phase::Whole;
  std::optional<enumerate::SplitPlan> plan_;
  int part_ = -1;
  std::vector<EventId> base_rf_;
  BitRel base_co_;
  std::vector<std::vector<std::uint64_t>> base_choices_;
  std::vector<std::vector<PartLeaf>> part_leaves_;
  std::vector<BitRel> own_;  // per part: the pairs within its location
  std::set<std::vector<std::vector<std::uint64_t>>> seen_;
  std::atomic<bool> pool_any_{false};
};

}  // namespace

namespace {

std::size_t max_events(const Expansion& ex) {
  std::size_t n = 0;
  for (const Skeleton& sk : ex.skeletons) n = std::max(n, sk.size());
  return n;
}

// The listing's options, its runs sorted on the test's workers.
ListingOptions listing_options(const EngineOptions& opts) {
  ListingOptions l = *opts.listing;
  l.threads = std::max(1u, opts.workers);
  return l;
}

TestResult enumerate_test(const LitmusTest& test, const EngineOptions& opts,
                          const cat::Model& model, const CandidateCheck* check) {
  const auto t0 = std::chrono::steady_clock::now();
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  Found found;
  std::size_t candidates = 0;  // over every skeleton of the test
  // With workers, leaves' outcomes are made on them (leaf_pool.hpp); an
  // outcome with a status (values cleared, then merged) is settled as one. A
  // verdict-only run stops at its first deciding outcome, on the search's
  // thread: it makes no pool.
  // A listing run keeps its outcomes packed in a store (outcome_store.hpp),
  // on this thread (with workers, they pack them and this thread adds their
  // batches in job order); one whose executions may end early merges their
  // values after the search (settle_result) and lists them as before.
  std::shared_ptr<OutcomeStore> store;
  if (opts.listing && !opts.verdict_only && !has_status_observable(r.observables) &&
      OutcomeStore::fits(r.observables.size(), max_events(ex)))
    store = std::make_shared<OutcomeStore>(r.observables, test.condition, listing_options(opts));
  std::optional<LeafPool> pool;
  if (opts.workers > 1 && !opts.verdict_only && !has_status_observable(r.observables))
    pool.emplace(opts.workers - 1, opts.budget);
  try {
    for (const Skeleton& sk : ex.skeletons) {
      if (sk.cut) {
        EngineOptions full = opts;  // a cut path's count needs any execution, deciding or not
        full.verdict_only = false;
        SkeletonEnumerator any(sk, test, r.model, r.observables, full, candidates, model, check,
                               nullptr);
        Found ignored;
        if (any.run(ignored)) ++r.incomplete.bound_cut;
        continue;
      }
      LeafPool* p = pool ? &*pool : nullptr;
      SkeletonEnumerator e(sk, test, r.model, r.observables, opts, candidates, model, check, p);
      if (store) e.list_into(store.get(), static_cast<std::uint32_t>(&sk - ex.skeletons.data()));
      const bool consistent = e.run(found);
      if (!e.any_outcome() && consistent) ++r.incomplete.barrier_deadlock;
    }
  } catch (Decided& d) {
    settle_verdict(r, test, std::pair{std::move(d.values), std::move(d.witness)},
                   VerdictBy::Witness);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  if (opts.verdict_only) {
    settle_verdict(r, test, std::nullopt, VerdictBy::Exhausted);
  } else if (store) {
    settle_listing(r, test, std::move(store));
    if (r.listing->size() > opts.max_outcomes)  // spilled runs counted once merged
      throw InputError(Diagnostic{test.file, test.condition_loc,
                                  fmt::format("more than {} outcomes", opts.max_outcomes)});
  } else if (pool) {
    std::vector<Found> parts = pool->take();
    r.outcomes = enumerate::merge_parts(parts, test, r.observables, opts.workers);
    if (r.outcomes.size() > opts.max_outcomes)
      throw InputError(Diagnostic{test.file, test.condition_loc,
                                  fmt::format("more than {} outcomes", opts.max_outcomes)});
    settle_outcomes(r, test);
  } else {
    settle_result(r, test, std::move(found));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The typed model the enumerator runs beside a CandidateCheck: no checks,
// so no shortcut narrows the candidates (cat::shortcuts) and every complete
// candidate reaches the check.
const cat::Model& checks_free() {
  static const cat::Model m =
      cat::parse_cat("\"no checks\"\n", "checks-free.cat", cat::ptx_primitives());
  return m;
}

// A model in herd7's full language: herd's interpreter decides each complete
// candidate (herd_check.hpp); the flags raised are the result's.
TestResult enumerate_herd(const LitmusTest& test, const EngineOptions& opts, const cat::Model& m) {
  // Values as herd7 makes them concrete: a candidate whose values close a
  // cycle of rf and data dependencies has no solution and is rejected
  // (herdtools7 herd/mem.ml when_unsolved: "This occurs with cyclic rfmaps").
  EngineOptions o = opts;
  o.acyclic_values_only = true;
  const enumerate::HerdCheck check(m, o, o.model_for(test));
  const CandidateCheck fn = [&check](const EnumCandidate& c) { return check(c); };
  TestResult r = enumerate_test(test, o, checks_free(), &fn);
  for (std::string& note : check.notes()) r.notes.push_back(std::move(note));
  r.flags = check.flags();
  return r;
}

}  // namespace

// The model is parsed once per test (or once per process, the built-in one).
TestResult run_enum(const LitmusTest& test, const EngineOptions& opts) {
  const std::shared_ptr<const cat::Model> m = model_of(opts, test);
  if (!m->typed()) return enumerate_herd(test, opts, *m);
  return enumerate_test(test, opts, *m, nullptr);
}

TestResult run_enum_with(const LitmusTest& test, const EngineOptions& opts,
                         const CandidateCheck& consistent) {
  return enumerate_test(test, opts, cat::builtin_ptx(), &consistent);
}

}  // namespace redscope
