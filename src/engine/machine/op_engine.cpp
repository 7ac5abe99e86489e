// The operational executor (`--engine op`): an abstract GPU memory machine
// that runs each thread's path event by event and explores every schedule
// and every memory choice (state hashing prunes revisits). It evaluates no
// axiom; its memory system is the scope tree of src/engine/machine/op_memory.hpp:
//
// - a write becomes a message placed anywhere after the writer's view in its
//   cell's coherence order (a store buffer drains in any order relative to
//   other threads' stores); a read takes any message not older than the
//   reader's view (a stale copy at some level), and raises the view to it;
// - an atom/red reads a message and places its write after it, in one
//   step; later writes may not land between the two if they meet the RMW in
//   the scope tree (PTX §8.6 morally strong; on sm_6x a plain store to shared
//   memory is exempt — the `red` seed). Two `.cta` RMWs of two CTAs do not
//   meet, so one can slip between the other's read and write: a lost update;
// - releases push the thread's view into the scope-tree nodes up to their
//   scope, and those views travel with the messages the release covers;
//   acquires pull the views stored at the nodes up to their own scope; so a
//   release synchronizes with an acquire only where both reach a common node
//   (PTX §8.8 release/acquire patterns; observation through RMW chains);
// - fence.sc exchanges views with the nodes up to its scope (Fence-SC order
//   is the order in which the machine runs them), barriers with a node per
//   barrier name and CTA.
//
// - a vector or packed instruction performs each element (an RMW element's
//   read and write together) as its own step, in any order and interleaved
//   with other threads, each from the view the instruction began with (the
//   elements are not po-ordered, so one element's release does not carry
//   another's write);
// - a thread may *promise* a later store that depends on no read (load
//   buffering): the message is placed in memory at once, other threads may
//   read it, and the store later performs it if it still could be placed
//   there (see promise/fulfil);
// - final values: the model's co need only contain the pairs its axioms
//   require, so a final value is that of any write maximal in that partial
//   order, not only the last of the machine's order (see finals);
// - reads and Atomicity follow the coherence the machine builds (finals),
//   not its linear order: a read may take a message its thread's newest
//   one is unordered with, and an RMW's stretch holds only writes between
//   its source and its write in that coherence (see step_read, co_consistent).
//
// `redscope xval` reports where it is stronger than the model.
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>
#include <boost/iterator/indirect_iterator.hpp>

#include "engine/machine/op_memory.hpp"
#include "engine/machine/op_paths.hpp"
#include "redscope/core/parallel.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/machine/machine.hpp"
#include "redscope/events/value_sets.hpp"

namespace redscope {
namespace {

using Values = std::vector<std::uint64_t>;
using op::Memory;
using op::Message;
using op::MsgId;
using op::NodeViews;
using op::View;

bool shared_space(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

struct ThreadState {
  EventId pc = 0;
  bool arrived = false;             // at the barrier at pc, waiting to pass
  View view;                        // per slot (a path to a cell), the newest message known
  NodeViews by_fence;               // release fences so far: [F]; po; [strong W]
  std::vector<NodeViews> by_write;  // per address, release writes so far: [W∩REL]; po-loc;
                                    // [strong W]
  NodeViews seen;                   // views carried by observed messages (for an acquire fence)
  std::vector<NodeViews> seen_at;   // the same per address (for a later acquire read of it)
  // A vector/packed instruction performs its elements one step each, in any
  // order: `done` marks the units (a read, a write, or an RMW element's pair)
  // of the instruction at pc already performed, `base` is the view the
  // instruction began with (each element works from it: the events of one
  // instruction are not po-ordered). Both empty between instructions.
  std::uint64_t done = 0;
  View base;
  std::vector<MsgId> promised;  // own later writes already placed in memory, not yet performed
  // Bulk operations (multimem.cp.reduce.async.bulk) run as asynchronous
  // agents: the units issued and not yet performed, the view each issuing
  // instruction began with, and per wait (the `instr` that completes them)
  // the join of the views of the units performed so far.
  std::vector<EventId> async;
  std::vector<std::pair<EventId, View>> async_base;
  std::vector<std::pair<std::size_t, View>> async_done;
};

// The threads of a state. A move changes one thread, so a successor shares
// the others with the state it came from and copies a thread only to change
// it (edit, op::own_copy).
class Threads {
 public:
  const ThreadState& operator[](std::size_t t) const { return *th_[t]; }
  ThreadState& edit(std::size_t t) { return op::own_copy(th_[t]); }
  void push_back(ThreadState t) { th_.push_back(std::make_shared<ThreadState>(std::move(t))); }
  std::size_t size() const { return th_.size(); }
  const ThreadState& front() const { return *th_.front(); }
  auto begin() const { return Iter(th_.begin()); }
  auto end() const { return Iter(th_.end()); }

 private:
  using Iter = boost::indirect_iterator<std::vector<std::shared_ptr<ThreadState>>::const_iterator,
                                        const ThreadState>;
  std::vector<std::shared_ptr<ThreadState>> th_;
};

struct BarrierKey {
  int gpu = 0, cta = 0;
  std::int64_t id = 0;
  bool named = false;
  std::uint64_t logical = 0;
  auto operator<=>(const BarrierKey&) const = default;
};

struct State {
  Threads th;
  Memory mem;
  NodeViews sc;                                   // fence.sc storage per scope-tree node
  std::vector<std::pair<BarrierKey, View>> bars;  // arrivals per barrier
  Values vals;                                    // values returned by reads so far
  // No-Thin-Air bookkeeping for promises (empty when nothing can be
  // promised): per event, the promises (by candidate index) it depends on
  // through rf ∪ dep; per candidate, what it depended on when performed.
  std::vector<std::uint64_t> taint;
  std::vector<std::uint64_t> ptaint;
  std::uint64_t performed = 0;  // candidates promised and since performed
  // Open promises whose carried views a read took in (observed by a strong
  // read, or taken as an observed RMW source): fulfil must match them.
  std::uint64_t observed = 0;

  using Key = std::pair<std::uint64_t, std::uint64_t>;
  // `dead` (if given) marks cells no step will touch again, left out of
  // the key but for `summary` (their final values: Machine::key).
  Key key(const std::vector<char>* dead = nullptr,
          const std::vector<std::uint64_t>& summary = {}) const;
};

// 128 bits of two independent hashes of the state's flat encoding
// (op::KeySink). A collision could only hide a state (fewer outcomes
// reached), never add one.
State::Key State::key(const std::vector<char>* dead,
                      const std::vector<std::uint64_t>& summary) const {
  op::KeySink w;
  std::vector<char> dead_slots;
  if (dead)
    for (std::size_t k = 0; k < th.front().view.size(); ++k)
      dead_slots.push_back((*dead)[mem.slot_cell(k)]);
  const std::vector<char>* skip = dead ? &dead_slots : nullptr;
  w.insert(summary.begin(), summary.end());
  for (const ThreadState& t : th) {
    w.push_back(t.pc);
    w.push_back(t.arrived);
    w.push_back(t.done);
    op::encode(t.base, w, skip);
    w.push_back(t.promised.size());
    w.insert(t.promised.begin(), t.promised.end());
    w.push_back(t.async.size());
    w.insert(t.async.begin(), t.async.end());
    for (const auto& [k, v] : t.async_base) w.push_back(k), op::encode(v, w, skip);
    for (const auto& [k, v] : t.async_done) w.push_back(k), op::encode(v, w, skip);
    op::encode(t.view, w, skip);
    op::encode(t.by_fence, w, skip);
    for (const auto& x : t.by_write) op::encode(x, w, skip);
    op::encode(t.seen, w, skip);
    for (const auto& x : t.seen_at) op::encode(x, w, skip);
  }
  mem.encode(w, dead, skip);
  op::encode(sc, w, skip);
  for (const auto& [k, v] : bars) {
    for (std::uint64_t x : {static_cast<std::uint64_t>(k.gpu), static_cast<std::uint64_t>(k.cta),
                            static_cast<std::uint64_t>(k.id), std::uint64_t{k.named}, k.logical})
      w.push_back(x);
    op::encode(v, w, skip);
  }
  w.insert(vals.begin(), vals.end());
  w.insert(taint.begin(), taint.end());
  w.insert(ptaint.begin(), ptaint.end());
  w.push_back(performed);
  w.push_back(observed);
  return w.key();
}

struct KeyHash {
  std::size_t operator()(const State::Key& k) const { return k.first ^ (k.second * 31); }
};

struct Move {
  State next;
  std::string what;
};

// The moves of a path: each thread and what it did, written out as a
// trace line ("P1 ...") only when the path reaches a new outcome.
using Path = std::vector<std::pair<std::size_t, std::string>>;

// A state to explore and the path that reached it.
struct Item {
  State state;
  Path trace;
};

struct Report {
  bool completed = false;   // some run reached the end of every path
  bool deadlocked = false;  // some run got stuck at a barrier
  void add(const Report& o) {
    completed |= o.completed;
    deadlocked |= o.deadlocked;
  }
};

class Machine {
 public:
  Machine(const Skeleton& sk, const LitmusTest& test, ModelRef model,
          const std::vector<Observable>& obs, const EngineOptions& opts)
      : sk_(sk),
        test_(test),
        model_(model),
        obs_(obs),
        opts_(opts),
        paths_(sk),
        threads_(sk.thread_base.size()) {
    for (std::size_t t = 0; t < threads_; ++t) {
      begin_.push_back(sk.thread_base[t]);
      end_.push_back(t + 1 < threads_ ? sk.thread_base[t + 1] : sk.size());
    }
    summarise();
    for (EventId e = 0; e < sk.size() && guesses_.empty(); ++e)
      if (sk.ev(e).async_until || sk.ev(e).in_rmw ||
          (sk.assumptions.empty() && sk.ev(e).is_write() && sk.ev(e).value &&
           !reads_of(sk.ev(e).value).empty())) {  // own_guess's writes
        ValueSetLimits limits;
        limits.budget = opts.budget;
        guesses_ = value_sets(sk, limits);
      }
    index_instructions();
  }

  State start() const {
    State s{{},
            Memory(paths_.slot_cell(), paths_.cells(), sk_.size()),
            {},
            {},
            Values(sk_.size(), 0),
            {},
            {}};
    for (const auto& [cell, init] : sk_.init_write)
      s.mem.init(paths_.cell(cell), init, *const_value(sk_.ev(init).value));
    for (std::size_t t = 0; t < threads_; ++t) {
      ThreadState ts;
      ts.pc = begin_[t];
      ts.view = s.mem.initial_view();
      ts.by_write.resize(paths_.addresses());
      ts.seen_at.resize(paths_.addresses());
      s.th.push_back(std::move(ts));
    }
    if (candidates_) {
      s.taint.assign(sk_.size(), 0);
      s.ptaint.assign(candidates_, 0);
    }
    return s;
  }

  // Every move of every thread from `s`.
  // The moves to explore from `s`: those of one thread whose next step is
  // independent of everything the other threads have left to do, when there
  // is one (a persistent set; see `independent`), otherwise every thread's.
  std::vector<std::pair<std::size_t, Move>> moves(const State& s) const {
    std::vector<std::pair<std::size_t, Move>> out;
    if (const auto c = async_cell(s)) {
      for (std::size_t t = 0; t < threads_; ++t)
        for (EventId u : s.th[t].async) {
          if (cell(ev(u)) != *c) continue;
          std::vector<Move> m;
          step_unit(s, t, u, m);
          for (Move& x : m) out.emplace_back(t, std::move(x));
        }
      if (!out.empty()) return out;
    }
    std::vector<std::vector<Move>> promises(threads_);
    for (std::size_t t = 0; t < threads_; ++t) promise(s, t, promises[t]);
    // (Issuing a bulk operation may be taken alone even when its thread
    // could promise: it changes nothing a promise depends on.)
    for (std::size_t t = 0; t < threads_; ++t) {
      if ((!promises[t].empty() && !issues(s, t)) || !independent(s, t)) continue;
      std::vector<Move> m;
      step(s, t, m);
      if (m.empty()) continue;
      for (Move& x : m) out.emplace_back(t, std::move(x));
      return out;
    }
    for (std::size_t t = 0; t < threads_; ++t) {
      std::vector<Move> m;
      step(s, t, m);
      for (Move& x : m) out.emplace_back(t, std::move(x));
      for (Move& x : promises[t]) out.emplace_back(t, std::move(x));
    }
    return out;
  }

  bool issues(const State& s, std::size_t t) const {
    return s.th[t].pc != end_[t] && ev(s.th[t].pc).async_until;
  }

  // Some thread has promised a write it can no longer perform (a dropped
  // run, not a deadlock).
  bool promises_open(const State& s) const {
    for (const ThreadState& T : s.th)
      if (!T.promised.empty()) return true;
    return false;
  }

  bool finished(const State& s) const {
    for (std::size_t t = 0; t < threads_; ++t)
      if (s.th[t].pc != end_[t] || !s.th[t].async.empty() || !s.th[t].promised.empty())
        return false;
    return true;
  }

  // The outcome of a finished state, or nullopt when its path's branch
  // decisions do not hold, the path was cut, or the filter rejects it.
  // The outcomes of a finished state: none when its path's branch
  // decisions do not hold or the path was cut; otherwise one per choice of a
  // final write for each observed location among its co-maximal writes
  // (see finals), those the filter accepts.
  std::vector<Values> outcomes(const State& s, Report& rep) const {
    for (const ExprPtr& a : sk_.assumptions)
      if (eval(a, s) == 0) return {};
    rep.completed = true;
    if (sk_.cut) return {};
    std::vector<Values> out{Values{}};
    for (const Observable& o : obs_) {
      if (o.is_register) {
        auto it = sk_.final_regs.find(o.reg);
        const std::uint64_t v =
            it == sk_.final_regs.end()
                ? 0
                : eval(make_resize(it->second, width_of(o.type), is_signed(o.type)), s);
        for (Values& x : out) x.push_back(v);
        continue;
      }
      std::vector<Values> next;
      for (const Values& x : out)
        for (std::uint64_t v : finals(s, paths_.cell(o.loc))) {
          next.push_back(x);
          next.back().push_back(o.view(v));
        }
      out = std::move(next);
    }
    if (test_.filter)
      out.erase(
          std::remove_if(out.begin(), out.end(),
                         [&](const Values& v) { return !eval_condition(*test_.filter, obs_, v); }),
          out.end());
    return out;
  }

  // Partial coherence. The machine's order of a cell is total, but the
  // model's co only has to contain the pairs the axioms require: the initial
  // write first, morally strong pairs (ordered as the machine ordered them),
  // and writes causality-before a write (Coherence). Each write records the
  // messages of its cell its writer *knew* on the write's path when it
  // wrote (View::known: what it wrote, observed or took in by
  // synchronization, through the same steps that carry views); every write
  // causality-before it is among them, and all of them are before it in the
  // machine's order (known messages are at or below the horizon the write
  // was placed after). A message the order merely passed (placed earlier by
  // a thread nobody synchronized with) is not known. The closure of these pairs is a
  // co inside the machine's order, so every axiom that holds for the
  // machine's order holds for it (they only forbid cycles through co and
  // fr = rf⁻¹;co), and Coherence holds by construction. The final value of
  // the cell can be that of any write maximal in it: one with no pair out.
  std::vector<std::uint64_t> finals(const State& s, std::size_t c) const {
    const auto& o = s.mem.order(c);
    std::vector<char> has_out(o.size(), 0);
    has_out[0] = o.size() > 1;  // the initial write first
    for (std::size_t j = 1; j < o.size(); ++j) {
      const auto& known = s.mem.msg(o[j]).known;
      for (std::size_t i = 1; i < o.size(); ++i)
        if (i != j && op::Memory::has(known, o[i])) has_out[i] = 1;
      for (std::size_t i = 1; i < j; ++i)
        if (!has_out[i] && morally_strong(ev(o[i]), ev(o[j]))) has_out[i] = 1;
    }
    std::vector<std::uint64_t> vals;
    for (std::size_t i = 0; i < o.size(); ++i)
      if (!has_out[i]) vals.push_back(s.mem.msg(o[i]).value);
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    return vals;
  }

  // The closure of those pairs on cell c, by position: bit j of reach[i]
  // when order(c)[i] is co-before order(c)[j] in the model's co as the
  // machine builds it (finals). Empty when the cell has more than 64
  // messages: reads then keep to the machine's order.
  std::vector<std::uint64_t> co_reach(const State& s, std::size_t c) const {
    const auto& o = s.mem.order(c);
    const std::size_t n = o.size();
    if (n > 64) return {};
    std::vector<std::uint64_t> reach(n, 0);
    bool forward = true;  // every pair goes up the order (known messages precede)
    for (std::size_t j = 1; j < n; ++j) {
      reach[0] |= std::uint64_t{1} << j;  // the initial write first
      const auto& known = s.mem.msg(o[j]).known;
      for (std::size_t i = 1; i < n; ++i)
        if (i != j &&
            (op::Memory::has(known, o[i]) || (i < j && morally_strong(ev(o[i]), ev(o[j]))))) {
          reach[i] |= std::uint64_t{1} << j;
          forward &= i < j;
        }
    }
    if (forward) {  // one pass from the top closes it
      for (std::size_t i = n; i-- > 0;)
        for (std::uint64_t b = reach[i]; b; b &= b - 1)
          reach[i] |= reach[static_cast<std::size_t>(__builtin_ctzll(b))];
      return reach;
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if ((reach[i] >> j & 1) && (reach[j] & ~reach[i])) reach[i] |= reach[j], grew = true;
    }
    return reach;
  }
  // Checked whenever a write is placed or a promise performed (the pairs
  // only grow): every pair a read required to stay unordered still is
  // (reads of unordered writes, step_read), and no RMW's stretch, from its
  // source to its write in this coherence, holds a write that passed its
  // nodes (Atomicity, held).
  bool co_consistent(const State& s, std::size_t c) const {
    const auto& o = s.mem.order(c);
    bool rmw = false;
    for (MsgId m : o) rmw |= s.mem.msg(m).rmw_source != op::kNoMsg;
    if (!rmw && s.mem.apart(c).empty()) return true;
    const auto reach = co_reach(s, c);
    if (reach.empty())
      throw InputError(Diagnostic{test_.file, ev(o.back()).src,
                                  "more than 64 writes to one location in one execution: too "
                                  "large for --engine op"});
    for (const auto& [m, k] : s.mem.apart(c))
      if (reach[s.mem.position(c, m)] >> s.mem.position(c, k) & 1) return false;
    for (std::size_t w = 0; w < o.size(); ++w) {
      const MsgId src = s.mem.msg(o[w]).rmw_source;
      if (src == op::kNoMsg) continue;
      const std::size_t from = s.mem.position(c, src);
      for (std::size_t x = 1; x < o.size(); ++x)
        if (x != w && (reach[from] >> x & 1) && (reach[x] >> w & 1) && held(ev(o[x]), ev(o[w])))
          return false;
    }
    return true;
  }

  // The key a state is remembered by. A cell no step will touch again (no
  // thread has an access to it left, no bulk unit is pending on it) matters
  // from then on only by its final values: nothing reads its messages or
  // compares a view of it again. Its order and its slots in every view are
  // then left out of the key and its final values put in, so that states
  // which differ only in how such a cell got there (the orders in which
  // three GPUs' reductions reached one replica) are explored once. Only
  // when no promise that may carry views is open or can still be made:
  // performing one compares the whole views it carries (fulfil); the rest
  // of fulfil looks at its own cell only.
  State::Key key(const State& s) const {
    for (std::size_t t = 0; t < threads_; ++t)
      if (promises_ahead(s, t)) return s.key();
    std::vector<char> dead(paths_.cells(), 1);
    for (std::size_t t = 0; t < threads_; ++t) {
      const Rest& r = rest(s, t);
      for (std::size_t c = 0; c < dead.size(); ++c)
        if (r.reads[c] || r.writes[c]) dead[c] = 0;
      for (EventId u : s.th[t].async) dead[cell(ev(u))] = 0;
    }
    std::vector<std::uint64_t> summary;
    for (std::size_t c = 0; c < dead.size(); ++c) {
      if (!dead[c]) continue;
      const auto f = finals(s, c);
      summary.push_back(c);
      summary.push_back(f.size());
      summary.insert(summary.end(), f.begin(), f.end());
    }
    return summary.empty() ? s.key() : s.key(&dead, summary);
  }
  // Thread t has a promise that may carry views open or still to make.
  bool promises_ahead(const State& s, std::size_t t) const {
    const ThreadState& T = s.th[t];
    for (EventId w : promisable_[t]) {
      const EventId first = ev(w).in_rmw ? w - 1 : w;
      if (may_carry_[w] && (first >= T.pc || pending_unit(T, first))) return true;
    }
    return false;
  }
  // Can write w carry views (carries)? Only a strong write whose thread has
  // a release fence, or a release write to its address (itself included).
  // Computed once per promisable write (may_carry_): key() asks per state.
  bool may_carry(EventId w) const {
    const Event& x = ev(w);
    if (!x.is_strong()) return false;
    const auto t = static_cast<std::size_t>(x.thread);
    for (EventId e = begin_[t]; e < end_[t]; ++e)
      if (release_fence(ev(e)) || release_write_to(ev(e), x)) return true;
    return false;
  }
  // The releases that begin a release pattern (PTX §8.9 "Release and
  // Acquire Patterns"): a release fence, [F] ; po ; [strong W]; a release
  // write to x's address, [W & REL] ; po-loc ; [strong W].
  static bool release_fence(const Event& f) {
    return f.is_fence() && !f.proxy_fence && f.is_release();
  }
  bool release_write_to(const Event& f, const Event& x) const {
    return f.is_write() && f.is_release() && paths_.address(f) == paths_.address(x);
  }

  const LitmusTest& test() const { return test_; }
  std::size_t limit() const { return opts_.enum_limit; }
  const Budget* budget() const { return opts_.budget; }
  // Every 256 states an explorer reaches: the budget, and the caller's
  // progress report (states of this skeleton so far, over every explorer).
  void checkpoint() const {
    if (opts_.budget) opts_.budget->check();  // --timeout / --max-memory
    const std::size_t done = explored_->fetch_add(256, std::memory_order_relaxed) + 256;
    if (opts_.progress) (*opts_.progress)(ProgressReport{done, 0, "explore"});
  }

 private:
  const Event& ev(EventId e) const { return sk_.ev(e); }
  const Placement& place(std::size_t t) const { return sk_.placement[t]; }
  const Placement& place(const Event& e) const { return place(static_cast<std::size_t>(e.thread)); }
  std::size_t cell(const Event& e) const { return paths_.cell(e); }
  std::vector<op::Node> nodes(const Event& e) const { return op::nodes_up_to(place(e), e.scope); }
  std::uint64_t eval(const ExprPtr& e, const State& s) const {
    return evaluate(e, [&](ReadRef r) { return s.vals[sk_.vertex(r)]; });
  }

  // The slot an access keeps what it writes or observes in, and the newest
  // message its path bounds it by in view v (it reads that or a later one,
  // and writes after it): op_paths.hpp.
  op::Slot own(const Event& x) const { return paths_.own(x, place(x)); }
  MsgId bound(const State& s, const View& v, const Event& x) const {
    const std::size_t c = cell(x);
    MsgId b = s.mem.order(c).front();
    for (op::Slot k : paths_.bounds(x, place(x)))
      if (s.mem.position(c, v[k]) > s.mem.position(c, b)) b = v[k];
    return b;
  }
  std::size_t bound_pos(const State& s, const View& v, const Event& x) const {
    return s.mem.position(cell(x), bound(s, v, x));
  }

  // Two accesses take the same path to memory: one proxy, one virtual address.
  bool same_path(const Event& a, const Event& b) const {
    return a.proxy == b.proxy && paths_.address(a) == paths_.address(b);
  }
  // Two strong operations meet when their ways up the scope tree, each from
  // its thread's CTA to its own scope instance, share a storage node.
  bool meet(const Event& a, const Event& b) const {
    if (!a.is_strong() || !b.is_strong()) return false;
    const auto na = nodes(a), nb = nodes(b);
    for (const op::Node& n : na)
      if (std::find(nb.begin(), nb.end(), n) != nb.end()) return true;
    return false;
  }
  // Accesses of one thread on one path, or strong ones on one path that
  // meet at a node: a read observes such a write (it is delivered along the
  // path the reader uses, through a node the reader passes), and such
  // writes are ordered where the model's co needs them (finals).
  bool morally_strong(const Event& a, const Event& b) const {
    if (a.is_init || b.is_init || !same_path(a, b)) return false;
    return a.thread == b.thread || meet(a, b);
  }

  // Atomicity as a memory-system mechanism: an RMW is performed in one step
  // at the nodes of its way up to its scope instance, on its path, holding
  // the stretch of the cell's coherence from the message it read to its own
  // write. A write that passes one of those nodes on that path (or comes
  // from the RMW's own thread) cannot come inside a held stretch; one that
  // does not pass them (another CTA's `.cta` write, another proxy, another
  // virtual address, a weak store) can: a lost update. On sm_6x a
  // shared-memory RMW is a read then a write at the CTA's shared-memory
  // unit, which only other RMWs wait for: a plain store passes (the `red`
  // seed). The stretch is one of the coherence the machine builds
  // (co_reach), not of its linear order: a write the order merely places
  // between the two, unordered with the source, is not inside (co_consistent).
  bool held(const Event& w, const Event& rmw) const {
    if (!morally_strong(w, rmw)) return false;
    return w.in_rmw || !(model_->has_variant("sm6x") && shared_space(rmw.space));
  }
  // Reading message m: coherence (the view v), observation of the views the
  // message carries, and an acquire read's pull. `v` is the thread's view,
  // or for an element of a vector instruction (or a unit of a bulk
  // operation) that unit's own copy of the view it began with.
  void read(State& n, std::size_t t, EventId e, MsgId m, View& v) const {
    const Event& x = ev(e);
    ThreadState& T = n.th.edit(t);
    const std::size_t a = paths_.address(x);
    const op::Slot k = own(x);
    n.vals[e] = n.mem.msg(m).value;
    // Only observation raises the view and collects what the message
    // carries; any other read takes a copy that orders nothing.
    if (morally_strong(ev(m), x)) {
      n.mem.learn(v, k, m);
      if (x.is_strong()) {
        if (unfulfilled(n, m)) n.observed |= bit(m);
        n.mem.join(T.seen, n.mem.msg(m).released);
        n.mem.join(T.seen_at[a], n.mem.msg(m).released);
      }
    }
    // Reading a promise (a write not performed yet: another thread's, or
    // its own through another path) always records it on the read's path
    // (View::promise_reads), so that every event causally after this read
    // knows that this promise was read: its writer cannot perform it once
    // that knowledge reaches the write's path (Causality: rf ; cause
    // irreflexive; a proxy fence carries it from one path to another, as
    // causality order needs one). It bounds no access and stops no other
    // write: a read that does not observe the promise orders nothing else.
    if (unfulfilled(n, m)) v.promise_reads[k] |= bit(m);
    if (candidates_) n.taint[e] = n.taint[m] | (unfulfilled(n, m) ? bit(m) : 0);
    if (x.is_acquire()) n.mem.pull(v, T.seen_at[a], nodes(x));
  }

  // What a strong write e carries when thread t performs it with view v:
  // release fences so far, release writes to its address so far, and its
  // own release (the view with e itself). `by_fence`, `by_write`: what the
  // fences and the release writes to its address pushed, if not the thread's.
  NodeViews carries(const State& n, std::size_t t, EventId e, const View& v,
                    const NodeViews* by_fence = nullptr,
                    const NodeViews* by_write = nullptr) const {
    const Event& x = ev(e);
    const ThreadState& T = n.th[t];
    NodeViews r;
    if (!x.is_strong()) return r;
    r = by_fence ? *by_fence : T.by_fence;
    n.mem.join(r, by_write ? *by_write : T.by_write[paths_.address(x)]);
    if (x.is_release()) {
      View with = v;
      n.mem.learn(with, own(x), e);
      with.after |= bit(e);  // whoever takes this in is synchronized after e
      n.mem.push(r, nodes(x), with);
    }
    return r;
  }

  // Placing write e at order(c)[index]; `carried` is what an RMW's read
  // observed (release sequences continue through RMWs).
  void write(State& n, std::size_t t, EventId e, std::size_t index, Message msg,
             const NodeViews* carried, View& v) const {
    const Event& x = ev(e);
    ThreadState& T = n.th.edit(t);
    const std::size_t c = cell(x), a = paths_.address(x);
    msg.value = eval(x.value, n);
    if (x.is_strong()) {
      msg.released = T.by_fence;
      n.mem.join(msg.released, T.by_write[a]);
      if (carried) n.mem.join(msg.released, *carried);
    }
    msg.known = n.mem.known_in(v, paths_.bounds(x, place(x)));
    msg.after = v.after;
    if (candidates_) n.taint[e] = taint_of(n, e);
    n.mem.insert(c, index, e, std::move(msg));
    n.mem.learn(v, own(x), e);
    if (x.is_release()) {
      n.mem.push(T.by_write[a], nodes(x), v);
      n.mem.push(n.mem.released(e), nodes(x), v);
    }
  }
  // The units of the instruction at thread t's pc not yet performed (a
  // scalar instruction has one).
  std::vector<EventId> pending(const State& s, std::size_t t) const {
    const ThreadState& T = s.th[t];
    std::vector<EventId> out;
    for (EventId e : units_[T.pc])
      if (!(T.done >> (e - T.pc) & 1)) out.push_back(e);
    return out;
  }

  // The view unit e starts from: the thread's view; for an element of a
  // vector instruction the view the instruction began with; for a unit of a
  // bulk operation, the view its instruction was issued with.
  const View& from_view(const State& s, std::size_t t, EventId e) const {
    const ThreadState& T = s.th[t];
    if (ev(e).async_until) return async_base(T, e);
    return T.done ? T.base : T.view;
  }
  const View& async_base(const ThreadState& T, EventId e) const {
    for (const auto& [g, v] : T.async_base)
      if (g == instr_start_[e]) return v;
    throw std::logic_error("op: a bulk unit without its issuing view");
  }
  View& begin_unit(State& n, std::size_t t, EventId e, View& local) const {
    ThreadState& T = n.th.edit(t);
    if (ev(e).async_until) {
      local = async_base(T, e);
      return local;
    }
    if (!multi_[T.pc]) return T.view;
    if (T.done == 0) T.base = T.view;
    local = T.base;
    return local;
  }
  void end_unit(State& n, std::size_t t, EventId e, const View& local) const {
    ThreadState& T = n.th.edit(t);
    if (const auto until = ev(e).async_until) return end_async_unit(n, t, e, *until, local);
    if (!multi_[T.pc]) {
      T.pc = e + (ev(e).in_rmw ? 2 : 1);
      return;
    }
    n.mem.join(T.view, local);
    T.done |= std::uint64_t{1} << (e - T.pc);
    if (T.done == all_units_[T.pc]) {
      T.pc = instr_end_[T.pc];
      T.done = 0;
      T.base.clear();
    }
  }

  // Bulk operations (PTX ISA "Asynchronous Operations": not part of the
  // issuing thread's program order). Issuing one hands its units (each
  // element's source read, each replica's RMW) to asynchronous agents that
  // perform them at any later moment, each from the view the instruction was
  // issued with; an RMW unit waits for its element's source read (its data).
  // The thread goes on, but an instruction that a cp.async.bulk.wait_group
  // orders after a unit (Event::async_until) waits until the unit is done
  // and then takes in what the completed units saw and wrote.
  void end_async_unit(State& n, std::size_t t, EventId e, std::size_t until,
                      const View& local) const {
    ThreadState& T = n.th.edit(t);
    T.async.erase(std::find(T.async.begin(), T.async.end(), e));
    if (until != SIZE_MAX) {
      auto it = std::find_if(T.async_done.begin(), T.async_done.end(),
                             [&](const auto& kv) { return kv.first == until; });
      if (it == T.async_done.end())
        T.async_done.insert(
            std::upper_bound(T.async_done.begin(), T.async_done.end(), until,
                             [](std::size_t k, const auto& kv) { return k < kv.first; }),
            {until, local});
      else
        n.mem.join(it->second, local);
    }
    const EventId g = instr_start_[e];
    if (std::none_of(T.async.begin(), T.async.end(),
                     [&](EventId u) { return instr_start_[u] == g; }))
      T.async_base.erase(std::find_if(T.async_base.begin(), T.async_base.end(),
                                      [&](const auto& kv) { return kv.first == g; }));
  }
  bool async_ready(const ThreadState& T, EventId u) const {
    auto open = [&](EventId d) {
      return d != u && std::find(T.async.begin(), T.async.end(), d) != T.async.end();
    };
    for (EventId d : deps_[u])
      if (open(d)) return false;
    if (ev(u).in_rmw)
      for (EventId d : deps_[u + 1])
        if (open(d)) return false;
    return true;
  }
  // Does the event at pc have to wait for a unit not yet performed?
  bool waits_for_async(const ThreadState& T, std::size_t instr) const {
    for (EventId u : T.async)
      if (*ev(u).async_until <= instr) return true;
    return false;
  }

  // A unit's moves: a read (an RMW element's read stands for its pair) or a write.
  void step_unit(const State& s, std::size_t t, EventId u, std::vector<Move>& out) const {
    if (ev(u).is_read())
      step_read(s, t, u, out);
    else
      step_write(s, t, u, out);
  }

  void step(const State& s, std::size_t t, std::vector<Move>& out) const {
    const ThreadState& T = s.th[t];
    for (EventId u : T.async)
      if (async_ready(T, u)) step_unit(s, t, u, out);
    if (T.pc == end_[t]) return;
    const EventId e = T.pc;
    const Event& x = ev(e);
    if (!T.done && x.guard && eval(x.guard, s) == 0 &&
        !(x.in_rmw && x.is_write())) {  // not executed
      // A promised write its thread does not get to is never performed:
      // the run is dropped (the message it placed was never written).
      const EventId last = multi_[e] ? instr_end_[e] - 1 : e + (x.in_rmw ? 1 : 0);
      for (EventId w : T.promised)
        if (w >= e && w <= last) return;
      State n = s;
      n.th.edit(t).pc = multi_[e] ? instr_end_[e] : e + (x.in_rmw ? 2 : 1);
      out.push_back({std::move(n), fmt::format("{} (not executed)", x.text)});
      return;
    }
    if (waits_for_async(T, x.instr)) return;
    if (!T.async_done.empty() && T.async_done.front().first <= x.instr) {
      State n = s;
      ThreadState& N = n.th.edit(t);
      while (!N.async_done.empty() && N.async_done.front().first <= x.instr) {
        n.mem.join(N.view, N.async_done.front().second);
        N.async_done.erase(N.async_done.begin());
      }
      out.push_back({std::move(n), "takes in its completed bulk operations"});
      return;
    }
    if (x.async_until) {  // a bulk operation: issued, performed later
      State n = s;
      ThreadState& N = n.th.edit(t);
      N.async_base.emplace_back(e, N.view);
      for (EventId u : units_[e])
        N.async.insert(std::upper_bound(N.async.begin(), N.async.end(), u), u);
      N.pc = instr_end_[e];
      out.push_back({std::move(n), fmt::format("{} (issued)", x.text)});
      return;
    }
    if (x.is_memory()) {
      for (EventId u : pending(s, t)) step_unit(s, t, u, out);
      return;
    }
    State n = s;
    if (x.is_fence()) {
      fence(n, t, x);
      ++n.th.edit(t).pc;
      out.push_back({std::move(n), x.text});
    } else if (x.is_barrier()) {
      step_barrier(s, t, out);
    }
  }

  void fence(State& n, std::size_t t, const Event& x) const {
    ThreadState& T = n.th.edit(t);
    if (x.proxy_fence) {
      // fence.proxy.K (and a wait's completion): reconcile the paths.
      paths_.reconcile(*x.proxy_fence, x.proxy_fence_space, place(x),
                       [&](op::Slot into, op::Slot from) { n.mem.raise(T.view, into, from); });
      return;
    }
    const auto N = nodes(x);
    if (x.is_acquire()) n.mem.pull(T.view, T.seen, N);
    if (x.is_sc_fence()) {
      n.mem.push(n.sc, N, T.view);
      n.mem.pull(T.view, n.sc, N);
    }
    if (x.is_release()) n.mem.push(T.by_fence, N, T.view);
  }

  std::string from(const State& s, MsgId m) const {
    const Event& w = ev(m);
    return w.is_init ? "init"
                     : fmt::format("P{}{}", w.thread, unfulfilled(s, m) ? " (promised)" : "");
  }

  // The bits of thread t's open promises whose bit (View::after) stops its
  // read r: r comes before the last release of the promise's pattern
  // (sync_bound), so it is causally before whoever took in what the promise
  // carries.
  std::uint64_t open_bits(const State& s, std::size_t t, EventId r) const {
    std::uint64_t b = 0;
    for (MsgId p : s.th[t].promised)
      if (r < sync_bound_[p]) b |= bit(p);
    return b;
  }
  // Where promise p's bit stops: at p, if it is a release; otherwise at the
  // last release fence or release write to its address before it, the last
  // release whose push p may carry (promised_carries). A read after that
  // release is not causally before whoever acquires p: synchronization
  // starts at the pattern's release (PTX §8.9 "Base causality order", sync
  // from [F] in [F] ; po ; [W], from [W & REL] in [W & REL] ; po-loc ; [W]).
  // Computed once per promisable write (sync_bound_): reads ask per step.
  EventId sync_bound(EventId p) const {
    const Event& x = ev(p);
    if (x.is_release()) return p;
    for (EventId e = p; e-- > begin_[static_cast<std::size_t>(x.thread)];)
      if (release_fence(ev(e)) || release_write_to(ev(e), x)) return e;
    return p;
  }

  // Is m a write its thread has promised and not yet performed?
  bool unfulfilled(const State& s, MsgId m) const {
    const Event& w = ev(m);
    if (w.is_init) return false;
    const auto& p = s.th[static_cast<std::size_t>(w.thread)].promised;
    return std::find(p.begin(), p.end(), m) != p.end();
  }

  // Reads of unordered writes (per-location partial coherence). The
  // machine's order of a cell is one linearisation of the model's co, which
  // orders only the pairs the axioms require (finals). A read may take a
  // message m placed before the newest one its thread knows on its path, so
  // long as m is co-before none of the messages the thread knows there
  // (Causality: no fr ; cause cycle, since every write causality-before the
  // read is known; SC-per-Location: a known morally strong write is ordered
  // with m). The read then requires m and each such known k to stay
  // unordered in co (Memory::keep_apart), and a later write that would order
  // them is not placed there (apart_kept). So a thread synchronized with two
  // racing weak writers may read their values in either order
  // (Co-Total-3-threads-scope-same, Cause-base-weak). A slot raised past
  // what it knows (its own promise read through another path) bounds as before.
  struct Older {
    std::size_t from = 0, bound = 0;   // reads from `from` on; below `bound` if allowed
    std::vector<std::uint64_t> reach;  // co_reach of the cell
    std::vector<std::size_t> known;    // positions of the messages known, above `from`
    bool allows(const State& s, std::size_t c, std::size_t i, std::vector<MsgId>& apart) const {
      for (std::size_t j : known) {
        if (j <= i) continue;
        if (reach[i] >> j & 1) return false;
        apart.push_back(s.mem.order(c)[j]);
      }
      return true;
    }
  };
  Older older_reads(const State& s, const View& v, const Event& x) const {
    const std::size_t c = cell(x);
    Older r;
    r.from = r.bound = bound_pos(s, v, x);
    if (v.known.empty()) return r;
    const auto slots = paths_.bounds(x, place(x));
    const auto known = s.mem.known_in(v, slots);
    std::size_t floor = 0;  // horizons not known (raised by hand)
    for (op::Slot k : slots)
      if (!op::Memory::has(known, v[k])) floor = std::max(floor, s.mem.position(c, v[k]));
    if (floor >= r.bound) return r;  // nothing below the bound to read
    r.reach = co_reach(s, c);
    if (r.reach.empty()) return r;
    const auto& o = s.mem.order(c);
    for (std::size_t j = 0; j < o.size(); ++j)
      if (op::Memory::has(known, o[j])) r.known.push_back(j);
    r.from = floor;
    return r;
  }

  // `only`: the message to read (a promise made in the same move), or none.
  void step_read(const State& s, std::size_t t, EventId e, std::vector<Move>& out,
                 MsgId only = op::kNoMsg) const {
    const Event& x = ev(e);
    const std::size_t c = cell(x);
    const auto& o = s.mem.order(c);
    const auto& mine = s.th[t].promised;
    // An RMW whose write is promised reads the source it promised from.
    const bool promised_rmw = x.in_rmw && std::find(mine.begin(), mine.end(), e + 1) != mine.end();
    const Older older = older_reads(s, from_view(s, t, e), x);
    const std::uint64_t stops = open_bits(s, t, e);
    for (std::size_t i = older.from; i < o.size(); ++i) {
      if (only != op::kNoMsg && o[i] != only) continue;
      std::vector<MsgId> apart;
      if (i < older.bound && !older.allows(s, c, i, apart)) continue;
      // (a promised atom.exch takes any source: fulfil records it)
      if (promised_rmw && s.mem.msg(e + 1).rmw_source != op::kNoMsg &&
          o[i] != s.mem.msg(e + 1).rmw_source)
        continue;
      // A thread never reads its own promise on the path it was written by
      // (that read would be po-before the write it reads); through another
      // proxy or virtual address it may (nothing orders the two paths).
      if (!mine.empty() && std::find(mine.begin(), mine.end(), o[i]) != mine.end() &&
          same_path(ev(o[i]), x))
        continue;
      // A promised release synchronizes whoever acquires it with the events
      // po-before it, some not performed yet: those may not read what comes
      // after such an acquire (Causality: they are causally before it;
      // LB+RMW-b). What the acquirer does next carries the promise's bit
      // (View::after); a read here, before that promise's release
      // (sync_bound), of a message carrying its bit is not taken.
      if (s.mem.msg(o[i]).after & stops) continue;
      State n = s;
      for (MsgId k : apart) n.mem.keep_apart(c, o[i], k);
      View local;
      View& v = begin_unit(n, t, e, local);
      read(n, t, e, o[i], v);
      std::string what =
          fmt::format("{} reads {}={} from {}", x.text, x.loc, n.vals[e], from(s, o[i]));
      const bool ms_source = morally_strong(ev(o[i]), x);
      const bool observed = x.is_strong() && ms_source;
      const NodeViews carried = observed ? s.mem.msg(o[i]).released : NodeViews{};
      if (promised_rmw) {
        if (!fulfil(n, t, e + 1, v, &carried, o[i])) continue;
        what += fmt::format(", writes {}={} (performs its promise)", x.loc, n.mem.msg(e + 1).value);
      } else if (x.in_rmw) {
        const Event& w = ev(e + 1);
        if (!w.guard || eval(w.guard, n) != 0) {
          // Its write is bounded by what the thread knew before the read,
          // and by the source only if the read is morally strong with it
          // (observation); otherwise it may precede its source.
          const std::size_t lo =
              ms_source ? bound_pos(n, v, w) : bound_pos(s, from_view(s, t, e), w);
          rmw_write(n, t, e, i, lo, carried, &v == &local, local, what, out);
          continue;
        }
        what += ", compare fails";
      }
      end_unit(n, t, e, local);
      out.push_back({std::move(n), std::move(what)});
    }
  }

  // The write of an RMW whose read (event e) has just taken order(c)[i]:
  // placed anywhere after what the thread knows of its path (the read, if
  // it observed its source, included), and outside every stretch another
  // RMW holds; if after its source, with no write that passed its own nodes
  // in between (held). Placed before its source, it holds nothing: the two
  // RMWs of `LB` through `atom.exch` at scopes that do not meet each read
  // the other's write.
  void rmw_write(const State& n, std::size_t t, EventId e, std::size_t i, std::size_t lo,
                 const NodeViews& carried, bool is_local, const View& local,
                 const std::string& what, std::vector<Move>& out) const {
    const Event& w = ev(e + 1);
    const std::size_t c = cell(w);
    const MsgId src = n.mem.order(c)[i];
    const std::size_t n_msgs = n.mem.order(c).size();
    for (std::size_t j = lo + 1; j <= n_msgs; ++j) {
      State m = n;
      View mine = local;
      View& v = is_local ? mine : m.th.edit(t).view;
      write(m, t, e + 1, j, Message(0, {}, src), &carried, v);
      if (!co_consistent(m, c)) continue;
      end_unit(m, t, e, mine);
      std::string text = what + fmt::format(", writes {}={}", w.loc, m.mem.msg(e + 1).value);
      if (j < n_msgs) text += fmt::format(" (coherence-before {} of {})", n_msgs - j, w.loc);
      out.push_back({std::move(m), std::move(text)});
    }
  }

  void step_write(const State& s, std::size_t t, EventId e, std::vector<Move>& out) const {
    const Event& x = ev(e);
    const std::size_t c = cell(x);
    const auto& mine = s.th[t].promised;
    if (std::find(mine.begin(), mine.end(), e) != mine.end()) return fulfil_store(s, t, e, out);
    const std::size_t n_msgs = s.mem.order(c).size();
    for (std::size_t i = bound_pos(s, from_view(s, t, e), x) + 1; i <= n_msgs; ++i) {
      State n = s;
      View local;
      View& v = begin_unit(n, t, e, local);
      write(n, t, e, i, Message{}, nullptr, v);
      if (!co_consistent(n, c)) continue;
      end_unit(n, t, e, local);
      std::string what = fmt::format("{} writes {}={}", x.text, x.loc, n.mem.msg(e).value);
      if (i < n_msgs) what += fmt::format(" (coherence-before {} of {})", n_msgs - i, x.loc);
      out.push_back({std::move(n), std::move(what)});
    }
  }

  // Promises (load buffering). A thread may place one of its later writes in
  // memory before it gets there, so that other threads can read it:
  // - a scalar store whose value reads nothing (it may be control-dependent
  //   on reads: it is performed only if the thread gets there);
  // - the write of a scalar atom/red that is not a release, whose value and
  //   compare read only its own read: it is placed right after a chosen
  //   source message, with the value the RMW computes from it, and its read
  //   must take that source when the thread gets there.
  // What the message carries is computed now; performing the promise checks
  // that it could be placed there now and would carry the same (fulfil).
  // No-Thin-Air is checked when a promise is performed: every event records
  // the promises it depends on through rf ∪ dep (reading an unperformed
  // promise adds it), and a promise whose write would depend on itself is
  // dropped (LB+datas, LB+ctrls stay unreached). A promise is made only
  // when another thread is about to access its cell (about_to_access), and a
  // thread has at most kMaxPromises open.
  static constexpr std::size_t kMaxPromises = 3;
  // A promise guesses what a read reads only from a static value set of at
  // most this many values (small_set: promise_guessed, own_guess).
  static constexpr std::size_t kMaxGuesses = 16;

  std::uint64_t bit(MsgId m) const { return cand_[m] < 0 ? 0 : std::uint64_t{1} << cand_[m]; }
  std::uint64_t taint_of(const State& n, EventId e) const {
    std::uint64_t r = 0;
    for (EventId d : deps_[e]) r |= n.taint[d];
    return r;
  }
  // The promises a set of promises depends on, through those performed.
  std::uint64_t closure(const State& s, std::uint64_t m) const {
    for (std::uint64_t prev = ~m; prev != m;) {
      prev = m;
      for (std::size_t p = 0; p < candidates_; ++p)
        if ((m >> p & 1) && (s.performed >> p & 1)) m |= s.ptaint[p];
    }
    return m;
  }

  void promise(const State& s, std::size_t t, std::vector<Move>& out) const {
    const ThreadState& T = s.th[t];
    if (T.promised.size() >= kMaxPromises) return;
    for (EventId w : promisable_[t]) {
      const Event& x = ev(w);
      if (!may_promise(s, t, w)) continue;
      const auto unknown = unknown_reads(s, t, w);
      if (!unknown) continue;
      const std::size_t lo = bound_pos(s, promise_view(T, w), x);
      if (!x.in_rmw) {
        for (std::uint64_t v : promised_values(s, w, *unknown)) {
          promise_read(s, t, w, lo, v, out);
          promise_chain(s, t, w, lo, v, out);
        }
        continue;
      }
      if (!about_to_access(s, t, w, true)) continue;
      if (free_rmw(w)) {
        // Only where the read that prompts it can take it (a position below
        // every such reader's view would do as well when a later read prompts it).
        // An RMW whose value does not depend on its read (atom.exch) is
        // promised the same way; its read takes its source when performed.
        const NodeViews carried = promised_carries(s, t, w);
        for (std::uint64_t v : promised_values(s, w, *unknown))
          for (std::size_t i = std::max(lo, reader_floor(s, t, w)) + 1;
               i <= s.mem.order(cell(x)).size(); ++i)
            if (auto p = place_promise(s, t, w, i, carried, v))
              emit_promise(s, t, w, std::move(p->first), std::move(p->second), out);
        continue;
      }
      if (ahead(s, t, w) && !ready_unit(s.th[t], w))
        for (const Values& g : guesses(*unknown)) promise_rmw(s, t, w, lo, *unknown, g, out);
      promise_guessed(s, t, w, lo, *unknown, out);
    }
  }
  // An RMW promised before the write it will read exists: its source is a
  // write of another thread that comes after that thread's read of the
  // promise (two RMWs and a read in a cycle through writes that are not
  // morally strong with them: diff-s2027-288). The value of its read is
  // guessed (a guess only chooses which promise to try; fulfil checks the
  // value written) among the values such a later write can write
  // (events/value_sets.hpp, a superset); the promise is made together with
  // that read taking it, as a store's is (promise_read). Each distinct
  // value written is promised once per read. A bulk unit is guessed the
  // same way, its element's source read too when not yet performed
  // (`unknown`): load buffering through a bulk reduction whose unit reads
  // an RMW of the reading thread (diff-s20261202-5082).
  // Bounds, for cost alone (docs/model.md "Promises"): no release or
  // acquire RMW is guessed (own_guessable), nor a read with more than
  // kMaxGuesses values in its set.
  void promise_guessed(const State& s, std::size_t t, EventId w, std::size_t lo,
                       const std::vector<EventId>& unknown, std::vector<Move>& out) const {
    const Event& x = ev(w);
    if (!own_guessable(w)) return;
    const NodeViews carried = promised_carries(s, t, w);
    for (const auto& [u, r] : prompting_reads(s, t, w)) {
      const auto late = later_values(u, r, cell(x));
      if (late && late->empty()) continue;
      const std::size_t floor = std::max(lo, bound_pos(s, from_view(s, u, r), ev(r)));
      for (const auto& [with, v] : guessed_writes(s, w, unknown, late))
        for (std::size_t i = floor + 1; i <= s.mem.order(cell(x)).size(); ++i)
          if (auto p = place_promise(with, t, w, i, carried, eval(x.value, with))) {
            p->first.vals = s.vals;
            take_promise(p->first, u, r, w, p->second + fmt::format(" (guesses {}={})", x.loc, v),
                         out);
          }
    }
  }
  // For each distinct value RMW write w may write with its read guessed
  // among `late` (any of its value set when nullopt) and the reads
  // `unknown` among theirs: a state holding those guesses, and the guess
  // of w's read. A failing compare writes nothing and is left out.
  std::vector<std::pair<State, std::uint64_t>> guessed_writes(
      const State& s, EventId w, const std::vector<EventId>& unknown,
      const std::optional<std::vector<std::uint64_t>>& late) const {
    const Event& x = ev(w);
    std::vector<std::pair<State, std::uint64_t>> out;
    std::vector<std::uint64_t> done;
    const std::vector<Values> sources = guesses(unknown);
    for (std::uint64_t v : *guesses_[w - 1]) {
      if (late && !std::binary_search(late->begin(), late->end(), v)) continue;
      for (const Values& g : sources) {
        State with = s;
        with.vals[w - 1] = v;
        for (std::size_t k = 0; k < unknown.size(); ++k) with.vals[unknown[k]] = g[k];
        if (x.guard && eval(x.guard, with) == 0) continue;
        const std::uint64_t value = eval(x.value, with);
        if (std::find(done.begin(), done.end(), value) != done.end()) continue;
        done.push_back(value);
        out.emplace_back(std::move(with), v);
      }
    }
    return out;
  }
  // The values thread u's writes to cell c after its read r may write
  // (sorted; empty when none can; nullopt when one's set is unknown). The
  // write of r's own RMW counts when its value does not read r (atom.exch:
  // a bulk unit reads the exch's write and the exch reads the unit's,
  // diff-s20261202-18979); otherwise the two would form an rf ∪ dep cycle.
  std::optional<std::vector<std::uint64_t>> later_values(std::size_t u, EventId r,
                                                         std::size_t c) const {
    std::vector<std::uint64_t> out;
    for (EventId e = r + 1; e < end_[u]; ++e) {
      if (!ev(e).is_write() || cell(ev(e)) != c || (ev(e).in_rmw && e - 1 == r && !free_rmw(e)))
        continue;
      if (e >= guesses_.size() || !guesses_[e]) return std::nullopt;
      out.insert(out.end(), guesses_[e]->begin(), guesses_[e]->end());
    }
    if (!out.empty() && !relayed_values(u, c, out)) return std::nullopt;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  // A later write of thread u may reach the guessing RMW through other
  // threads' RMWs of cell c, each reading the one before (a chain through
  // writes not morally strong with the reader: diff-s20261202-3123): their
  // values join `out` (static value sets, a superset). False when one's set
  // is unknown.
  bool relayed_values(std::size_t u, std::size_t c, std::vector<std::uint64_t>& out) const {
    for (std::size_t t = 0; t < end_.size(); ++t) {
      if (t == u) continue;
      for (EventId e = begin_[t]; e < end_[t]; ++e) {
        if (!ev(e).is_write() || !ev(e).in_rmw || cell(ev(e)) != c) continue;
        if (e >= guesses_.size() || !guesses_[e]) return false;
        out.insert(out.end(), guesses_[e]->begin(), guesses_[e]->end());
      }
    }
    return true;
  }
  // Is write w's instruction after thread t's pc (not at it)?
  bool ahead(const State& s, std::size_t t, EventId w) const {
    const EventId first = ev(w).in_rmw ? w - 1 : w;
    return first > s.th[t].pc || (ev(w).async_until && first < s.th[t].pc);
  }

  // Write w of thread t can be promised now: its instruction is ahead of
  // the thread (an atom.exch at pc too: its write goes out before its
  // read), or it is a unit of a bulk operation issued and waiting for its
  // source read. A unit ready to be performed is promised only with a
  // guessed source (promise_guessed): it works from the view it was issued
  // with, which no later step changes, so performing it now places the
  // same message a promise from a source present now would; but the write
  // it is to read may not exist yet.
  bool may_promise(const State& s, std::size_t t, EventId w) const {
    const ThreadState& T = s.th[t];
    if (std::find(T.promised.begin(), T.promised.end(), w) != T.promised.end()) return false;
    const EventId first = ev(w).in_rmw ? w - 1 : w;
    if (ev(w).async_until && first < T.pc)
      return pending_unit(T, first) && (!async_ready(T, first) || own_guessable(w));
    if (T.pc == end_[t] || first < T.pc) return false;
    if (done_at_pc(T, first)) return false;
    return first > T.pc || (ev(w).in_rmw && (free_rmw(w) || own_guessable(w)));
  }
  // May RMW write w be promised with a guess of what it reads
  // (promise_guessed): not a release, its read's value set small.
  bool own_guessable(EventId w) const {
    return !ev(w).is_release() && !ev(w - 1).is_acquire() && small_set(w - 1);
  }
  // Does read v have a static value set of at most kMaxGuesses values?
  bool small_set(EventId v) const {
    return v < guesses_.size() && guesses_[v] && guesses_[v]->size() <= kMaxGuesses;
  }
  // The view write w is placed from: the thread's, or a bulk unit's issuing view.
  const View& promise_view(const ThreadState& T, EventId w) const {
    const EventId first = ev(w).in_rmw ? w - 1 : w;
    return ev(w).async_until && first < T.pc ? async_base(T, first) : T.view;
  }
  // Every assignment of guessed values to the reads `unknown` (one, empty,
  // when there are none): the values each can read (events/value_sets.hpp;
  // a superset, each guess checked when the promise is performed).
  std::vector<Values> guesses(const std::vector<EventId>& unknown) const {
    std::vector<Values> out{Values{}};
    for (EventId r : unknown) {
      std::vector<Values> next;
      for (const Values& g : out)
        for (std::uint64_t v : *guesses_[r]) {
          next.push_back(g);
          next.back().push_back(v);
        }
      out = std::move(next);
    }
    return out;
  }

  // An RMW's promise: its source chosen among the messages its read could
  // take now: performed ones, its own thread's promise of a write before it
  // (two RMWs of one thread in a chain), or another thread's store promised
  // in the same move (`only`: promise_chain); its value computed from it and from the values
  // guessed for the reads `unknown` (a bulk unit's source read not yet performed: fulfil compares
  // the value then).
  // (`only`: the source to take, a store promised in the same move, whose
  // text `before` is.)
  void promise_rmw(const State& s, std::size_t t, EventId w, std::size_t lo,
                   const std::vector<EventId>& unknown, const Values& guess, std::vector<Move>& out,
                   MsgId only = op::kNoMsg, const std::string& before = {}) const {
    const bool chained = only != op::kNoMsg;
    const Event& x = ev(w);
    const Event& r = ev(w - 1);
    const std::size_t c = cell(x);
    const auto& o = s.mem.order(c);
    for (std::size_t i = lo; i < o.size(); ++i) {
      const MsgId m = o[i];
      if (only != op::kNoMsg ? m != only : unfulfilled(s, m) && !own_earlier(w, m)) continue;
      State n = s;
      n.vals[w - 1] = s.mem.msg(m).value;
      for (std::size_t k = 0; k < unknown.size(); ++k) n.vals[unknown[k]] = guess[k];
      const bool writes = !x.guard || eval(x.guard, n) != 0;  // a failing compare writes nothing
      Message msg(eval(x.value, n), promised_carries(s, t, w), m);
      n.vals[w - 1] = 0;
      for (EventId u : unknown) n.vals[u] = 0;
      if (!writes) continue;
      msg.after = promise_view(s.th[t], w).after;
      if (r.is_strong() && morally_strong(ev(m), r)) {  // observed
        n.mem.join(msg.released, s.mem.msg(m).released);
        if (unfulfilled(s, m)) n.observed |= bit(m);
      }
      n.mem.insert(c, i + 1, w, std::move(msg));
      if (!co_consistent(n, c)) continue;
      add_promise(n, t, w);
      std::string what = fmt::format("{}promises {} (reads {}={} from {}", before, x.text, x.loc,
                                     s.mem.msg(m).value, from(s, m));
      for (std::size_t k = 0; k < unknown.size(); ++k)
        what += fmt::format(", guesses {}={}", ev(unknown[k]).loc, guess[k]);
      what += fmt::format(", writes {}={})", x.loc, n.mem.msg(w).value);
      emit_promise(s, t, w, std::move(n), std::move(what), out, chained);
    }
  }

  // An RMW's promise (state n) made because the next step of some thread
  // accesses its cell. When only reads, or RMWs morally strong with it,
  // prompt it, it is made together with one of them taking it (as a
  // store's is: promise_read); when another thread's store or an RMW that
  // does not meet it prompts it (which may be placed after it without
  // reading it), as it is. (An RMW morally strong with it lands after it
  // only by reading it or a write that did: its stretch may hold no such
  // write, co_consistent.) `taken`: only together with an access taking it.
  void emit_promise(const State& s, std::size_t t, EventId w, State n, std::string what,
                    std::vector<Move>& out, bool taken = false) const {
    const std::size_t c = cell(ev(w));
    for (const auto& [u, e] : next_accesses(s))
      if (!taken && u != t && cell(ev(e)) == c &&
          (ev(e).is_write() || (ev(e).in_rmw && !morally_strong(ev(e + 1), ev(w))))) {
        out.push_back({std::move(n), std::move(what)});
        return;
      }
    for (const auto& [u, r] : prompting_reads(s, t, w)) take_promise(n, u, r, w, what, out);
  }
  // Thread u's read r takes promise w, just made in state n (`what` says how).
  void take_promise(const State& n, std::size_t u, EventId r, EventId w, const std::string& what,
                    std::vector<Move>& out) const {
    std::vector<Move> reads;
    step_read(n, u, r, reads, w);
    for (Move& m : reads)
      out.push_back({std::move(m.next), fmt::format("{}; P{} {}", what, u, m.what)});
  }

  // A store is promised together with a read that takes it: the next read of
  // another thread (or its own, through another path) that it prompts, the
  // promise placed anywhere that read can take it. A promise no read takes
  // at once is one made too early: the same promise can be made when the
  // read that takes it comes next (about_to_access), so this loses no run
  // and leaves out the runs in which a promise waits unread (in spin loops
  // they were most of the states).
  void promise_read(const State& s, std::size_t t, EventId w, std::size_t lo, std::uint64_t value,
                    std::vector<Move>& out) const {
    const Event& x = ev(w);
    const std::size_t c = cell(x);
    const NodeViews carried = promised_carries(s, t, w);
    for (const auto& [u, r] : prompting_reads(s, t, w)) {
      const std::size_t floor = bound_pos(s, from_view(s, u, r), ev(r));
      for (std::size_t i = std::max(lo, floor) + 1; i <= s.mem.order(c).size(); ++i)
        if (auto p = place_promise(s, t, w, i, carried, value))
          take_promise(p->first, u, r, w, p->second, out);
    }
  }

  // A store is also promised together with another thread's RMW promise
  // that takes it as its source (an RMW chain: the RMW's source and the RMW
  // both come before the events they depend on, and the store may be read
  // first by that RMW alone), and with a next access taking the RMW's
  // promise. Made no earlier than that first access, as a store's promise
  // (promise_read): the threads of the store and of the RMW, which alone
  // bound where the two may be placed, must not have seen anything of the
  // cell after them by then anyway (fulfil).
  void promise_chain(const State& s, std::size_t t, EventId w, std::size_t lo, std::uint64_t value,
                     std::vector<Move>& out) const {
    const std::size_t c = cell(ev(w));
    std::optional<NodeViews> carried;
    for (std::size_t u = 0; u < threads_; ++u) {
      if (u == t || s.th[u].promised.size() >= kMaxPromises) continue;
      for (EventId r : promisable_[u]) {
        if (cell(ev(r)) != c || !ev(r).in_rmw || free_rmw(r) || !may_promise(s, u, r) ||
            !ahead(s, u, r))
          continue;
        const auto unknown = unknown_reads(s, u, r);
        if (!unknown || !about_to_access(s, u, r, true)) continue;
        if (!carried) carried = promised_carries(s, t, w);
        const std::size_t floor = bound_pos(s, promise_view(s.th[u], r), ev(r));
        for (std::size_t i = std::max(lo + 1, floor); i <= s.mem.order(c).size(); ++i) {
          auto p = place_promise(s, t, w, i, *carried, value);
          if (!p) continue;
          for (const Values& g : guesses(*unknown))
            promise_rmw(p->first, u, r, floor, *unknown, g, out, w, p->second + "; ");
        }
      }
    }
  }

  // The values write w (a store, or an RMW whose value does not read its
  // read) may be promised with: its value now, or, when it reads reads of its
  // thread not performed yet (`unknown`), each distinct value it computes
  // from a guess of theirs (their static value sets; fulfil compares the
  // value it then computes, so a wrong guess is a run dropped). This is the
  // Promising semantics' freedom to promise any value its thread can go on
  // to write (Kang et al., POPL 2017, §3), enumerated over a finite superset
  // and checked when the write is performed instead of by certification:
  // load buffering through a data dependency on a later read
  // (litmus/classic/LB+data-from-later-read; diff-s20261202-16387).
  std::vector<std::uint64_t> promised_values(const State& s, EventId w,
                                             const std::vector<EventId>& unknown) const {
    std::vector<std::uint64_t> out;
    for (const Values& g : guesses(unknown)) {
      const std::uint64_t v = evaluate(ev(w).value, [&](ReadRef r) {
        const EventId e = sk_.vertex(r);
        const auto k = std::find(unknown.begin(), unknown.end(), e);
        return k == unknown.end() ? s.vals[e] : g[static_cast<std::size_t>(k - unknown.begin())];
      });
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
  }

  // Is m a write of w's thread before w's instruction (its read may take m)?
  bool own_earlier(EventId w, MsgId m) const {
    return ev(m).thread == ev(w).thread && m < instr_start_[w];
  }

  // Thread t's promise of write w (a store, or an RMW whose value does not
  // read its read) placed at order(c)[i], carrying `carried`, writing
  // `value`, and how the trace says it; none when it would order a pair a
  // read kept apart.
  std::optional<std::pair<State, std::string>> place_promise(const State& s, std::size_t t,
                                                             EventId w, std::size_t i,
                                                             const NodeViews& carried,
                                                             std::uint64_t value) const {
    const Event& x = ev(w);
    const std::size_t c = cell(x);
    State n = s;
    Message msg(value, carried);
    msg.after = s.th[t].view.after;
    n.mem.insert(c, i, w, std::move(msg));
    if (!co_consistent(n, c)) return std::nullopt;
    add_promise(n, t, w);
    std::string what = fmt::format("promises {} (writes {}={})", x.text, x.loc, n.mem.msg(w).value);
    const std::size_t after = n.mem.order(c).size() - i - 1;
    if (after) what += fmt::format(" (coherence-before {} of {})", after, x.loc);
    return std::pair{std::move(n), std::move(what)};
  }

  // What a promised write carries: what it would carry now or, when
  // releases of its pattern lie between the thread's pc and the write
  // (release fences, and release writes to its address: PTX §8.9 "Release
  // and Acquire Patterns", [F] ; po ; [strong W] and [W & REL] ; po-loc ;
  // [strong W]), what it will carry if the thread's view does not change
  // until they run (each pushes that view). A promise carries what it
  // names, and fulfil checks it (a release run since with another view
  // fails the check, but for what the write itself knows): so the store
  // after a release fence can be promised
  // (litmus/classic/LB+fence-then-store-exch), and the write after a
  // release RMW whose source is not written yet
  // (litmus/classic/LB+release-pattern-rmw), as the Promising semantics lets
  // a promise name its message's view (Kang et al. POPL 2017, §3: a
  // promise is a message with a view, checked when fulfilled).
  NodeViews promised_carries(const State& s, std::size_t t, EventId w) const {
    const ThreadState& T = s.th[t];
    NodeViews now = carries(s, t, w, T.view);
    // The events before those fences are causally before whoever acquires
    // what they push, and some are not performed yet: the pushed view is
    // marked with the promise's bit (View::after), as a promised release's
    // own view is (carries), so that they never read what such an acquirer
    // does next (Causality: an exch that acquires the store must not be read
    // by a load before the fence).
    NodeViews by_fence = T.by_fence;
    NodeViews by_write = T.by_write[paths_.address(ev(w))];
    View with = T.view;
    with.after |= bit(w);
    bool releases = false;
    for (EventId e = T.pc; e < w; ++e) {
      const Event& f = ev(e);
      if (done_at_pc(T, e)) continue;
      if (release_fence(f))
        s.mem.push(by_fence, nodes(f), with);
      else if (release_write_to(f, ev(w)))
        s.mem.push(by_write, nodes(f), with);
      else
        continue;
      releases = true;
    }
    if (!releases) return now;
    // One of the two: when they agree at every node another thread could
    // pull from, performing the promise accepts both or neither; when they
    // do not, the releases' pushes change such a node, and a view pushed
    // later only adds to what the current one would, so `now` cannot be
    // what the store carries when performed (fulfil).
    NodeViews ahead = carries(s, t, w, T.view, &by_fence, &by_write);
    return same_for_others(ahead, now, t) ? now : ahead;
  }

  // Promises are made lazily: only when another thread's next step reads the
  // cell, or for an RMW's write also when it writes the cell (the promised
  // write sits right after its source, and another write lands between them
  // only if it comes after the promise; a store's promise can be placed
  // before or after any write, whenever it is made). Promising
  // earlier gains nothing: a promise that could be made earlier and still be
  // performed can be made at any later time, with the same placements
  // (views only grow, and performing it already requires what it carries to
  // be unchanged).
  // (Its own thread's next read prompts it too when it takes another path.)
  bool about_to_access(const State& s, std::size_t t, EventId w, bool writes_too) const {
    const std::size_t c = cell(ev(w));
    for (const auto& [u, e] : next_accesses(s))
      if (prompts(u == t, e, w, c, writes_too)) return true;
    return false;
  }
  // The accesses threads perform next, each with its thread: the units of
  // the instruction at a thread's pc (a memory access, not a bulk issue) and
  // its bulk units ready to be performed.
  std::vector<std::pair<std::size_t, EventId>> next_accesses(const State& s) const {
    std::vector<std::pair<std::size_t, EventId>> out;
    for (std::size_t u = 0; u < threads_; ++u) {
      const ThreadState& U = s.th[u];
      if (U.pc != end_[u] && ev(U.pc).is_memory() && !ev(U.pc).async_until)
        for (EventId e : pending(s, u)) out.emplace_back(u, e);
      for (EventId e : U.async)
        if (async_ready(U, e)) out.emplace_back(u, e);
    }
    return out;
  }
  bool prompts(bool own, EventId e, EventId w, std::size_t c, bool writes_too) const {
    if (cell(ev(e)) != c) return false;
    if (own) return ev(e).is_read() && !same_path(ev(e), ev(w));
    return writes_too || ev(e).is_read();
  }

  // The next reads (with their threads) that prompt thread t's promise of w.
  std::vector<std::pair<std::size_t, EventId>> prompting_reads(const State& s, std::size_t t,
                                                               EventId w) const {
    const std::size_t c = cell(ev(w));
    auto next = next_accesses(s);
    std::erase_if(next, [&](const auto& ue) {
      return !ev(ue.second).is_read() || !prompts(ue.first == t, ue.second, w, c, false);
    });
    return next;
  }

  // The lowest bound among the reads about to take w's cell that prompt its promise.
  std::size_t reader_floor(const State& s, std::size_t t, EventId w) const {
    std::size_t lo = ~std::size_t{0};
    for (const auto& [u, e] : prompting_reads(s, t, w))
      lo = std::min(lo, bound_pos(s, from_view(s, u, e), ev(e)));
    return lo == ~std::size_t{0} ? 0 : lo;
  }

  void add_promise(State& n, std::size_t t, EventId w) const {
    auto& p = n.th.edit(t).promised;
    p.insert(std::upper_bound(p.begin(), p.end(), w), w);
  }

  // Performing a promised write (the message is already in memory; an RMW's
  // read has just taken its source into `v`). Allowed only if it could have
  // been placed there now: the thread has seen nothing of its cell at or
  // after it (Coherence, and Causality for readers whose reads reached this
  // thread through any synchronization, which raised the view) and does not
  // know of a read of it (Causality: View::promise_reads, see read), it carries
  // exactly what a write performed now would carry (no release since the
  // promise added to it), its value and guard agree, and it does not depend
  // on itself through rf ∪ dep (No-Thin-Air). Otherwise the run is dropped.
  bool fulfil(State& n, std::size_t t, EventId e, View& v, const NodeViews* carried,
              MsgId source = op::kNoMsg) const {
    const Event& x = ev(e);
    const std::size_t c = cell(x);
    ThreadState& T = n.th.edit(t);
    const Message& msg = n.mem.msg(e);
    if (bound_pos(n, v, x) >= n.mem.position(c, e) || (promise_reads(v, x) & bit(e))) return false;
    if (x.guard && eval(x.guard, n) == 0) return false;
    if (eval(x.value, n) != msg.value) return false;
    NodeViews expect = carries(n, t, e, v);
    if (carried) n.mem.join(expect, *carried);
    auto known = n.mem.known_in(v, paths_.bounds(x, place(x)));
    const auto same = [&](const View& a, const View& b) { return same_but_own(n, e, known, a, b); };
    if (!same_for_others(without(expect, bit(e)), without(msg.released, bit(e)), t, same)) {
      // Views no read has taken in name nothing yet: the promise might as
      // well have named these (a promise chooses its message's view, Kang
      // et al. POPL 2017 §3), so it takes them now. Once a read took them
      // in, what it learned must be what the write carries.
      if (n.observed & bit(e)) return false;
      n.mem.released(e) = std::move(expect);
    }
    n.observed &= ~bit(e);
    const std::uint64_t dep = taint_of(n, e);
    if (closure(n, dep) & bit(e)) return false;
    n.taint[e] = dep;
    n.ptaint[static_cast<std::size_t>(cand_[e])] = dep;
    n.performed |= bit(e);
    T.promised.erase(std::find(T.promised.begin(), T.promised.end(), e));
    n.mem.set_known(e, std::move(known));
    n.mem.set_after(e, v.after);
    if (x.in_rmw && msg.rmw_source == op::kNoMsg) n.mem.set_source(e, source);
    if (!co_consistent(n, c)) return false;
    n.mem.learn(v, own(x), e);
    if (x.is_release()) n.mem.push(T.by_write[paths_.address(x)], nodes(x), v);
    return true;
  }

  // The promises known to have been read on the paths that bound access x.
  std::uint64_t promise_reads(const View& v, const Event& x) const {
    std::uint64_t r = 0;
    for (op::Slot k : paths_.bounds(x, place(x))) r |= v.promise_reads[k];
    return r;
  }

  // `nv` with `bits` cleared from every view's marks: a promise's own mark,
  // which only the promised views carry (promised_carries), and the record
  // of reads of it (its own thread's, through another path), which matters
  // only until it is performed.
  static NodeViews without(NodeViews nv, std::uint64_t bits) {
    for (auto& [node, v] : nv) {
      v.after &= ~bits;
      for (std::uint64_t& p : v.promise_reads) p &= ~bits;
    }
    return nv;
  }

  // Do two views a promised write e carries (performed now, `known` what
  // it knows of its cell) agree for whoever takes them in? Whoever does
  // observes e, or an RMW that read e, on e's own path (read: observation
  // is of a morally strong write, on its path), and so knows e there, and
  // everything e knows (co_reach is closed). On that slot the two may then
  // differ in messages e itself is after: the horizon at or before e, the
  // known messages among e's. Everywhere else they must be equal. So a
  // promise made before a release of its pattern (promised_carries) holds
  // when that release adds to the view only the RMW's own write, or what
  // its thread wrote to the cell in between (the Promising semantics'
  // fulfilment: the message's view need only bound what the thread knows
  // of the cell when it writes; Kang et al. POPL 2017 §3).
  bool same_but_own(const State& n, EventId e, const std::vector<std::uint64_t>& known,
                    const View& a, const View& b) const {
    const op::Slot k = own(ev(e));
    if (a.after != b.after || a.promise_reads != b.promise_reads || a.size() != b.size() ||
        a.size() <= k)
      return a == b;
    const std::size_t c = cell(ev(e)), words = n.mem.words();
    const auto within = [&](const View& v) {
      if (n.mem.position(c, v[k]) > n.mem.position(c, e)) return false;
      for (std::size_t i = 0; i < words && !v.known.empty(); ++i) {
        const std::uint64_t self = e / 64 == i ? std::uint64_t{1} << (e % 64) : 0;
        const std::uint64_t mine = i < known.size() ? known[i] : 0;
        if (v.known[k * words + i] & ~(mine | self)) return false;
      }
      return true;
    };
    if (a.known.size() != b.known.size() || !within(a) || !within(b)) return false;
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (j == k) continue;
      if (a[j] != b[j]) return false;
      for (std::size_t i = 0; i < words && !a.known.empty(); ++i)
        if (a.known[j * words + i] != b.known[j * words + i]) return false;
    }
    return true;
  }

  // Do two carried NodeViews agree at every node another thread could pull
  // from (`same`: when two views agree)? A node only thread t is placed
  // under (its CTA node, say, when it is alone in its CTA) is pulled by t
  // alone, and t already knows every view it pushed there (its own
  // fence.cta after the promise, MICRO24-Fig4b).
  template <class Same = std::equal_to<View>>
  bool same_for_others(const NodeViews& a, const NodeViews& b, std::size_t t,
                       Same same = {}) const {
    auto at = [](const NodeViews& x, const op::Node& n) -> const View* {
      for (const auto& [k, v] : x)
        if (k == n) return &v;
      return nullptr;
    };
    auto agree = [&](const NodeViews& x, const NodeViews& y) {
      for (const auto& [n, v] : x) {
        const View* w = at(y, n);
        if (w && same(*w, v)) continue;
        if (!alone_under(n, t)) return false;
      }
      return true;
    };
    return agree(a, b) && agree(b, a);
  }
  bool alone_under(const op::Node& n, std::size_t t) const {
    for (std::size_t u = 0; u < threads_; ++u) {
      if (u == t) continue;
      const auto mine = op::nodes_up_to(place(u), Scope::Sys);
      if (std::find(mine.begin(), mine.end(), n) != mine.end()) return false;
    }
    return true;
  }

  void fulfil_store(const State& s, std::size_t t, EventId e, std::vector<Move>& out) const {
    const Event& x = ev(e);
    State n = s;
    View local;
    View& v = begin_unit(n, t, e, local);
    if (!fulfil(n, t, e, v, nullptr)) return;
    end_unit(n, t, e, local);
    out.push_back({std::move(n), fmt::format("{} writes {}={} (performs its promise)", x.text,
                                             x.loc, s.mem.msg(e).value)});
  }

  BarrierKey barrier_key(const State& s, const Event& b) const {
    const Placement& p = place(b);
    return BarrierKey{p.gpu, p.cta, b.barrier_id, b.barrier_logical != nullptr,
                      b.barrier_logical ? eval(b.barrier_logical, s) : 0};
  }

  // Arrival pushes the thread's view to the barrier's node; passing pulls
  // every arrival so far (sync_barrier: A arrived before B passed).
  void step_barrier(const State& s, std::size_t t, std::vector<Move>& out) const {
    const Event& b = ev(s.th[t].pc);
    State n = s;
    ThreadState& T = n.th.edit(t);
    const BarrierKey key = barrier_key(s, b);
    auto slot =
        std::find_if(n.bars.begin(), n.bars.end(), [&](const auto& kv) { return kv.first == key; });
    if (b.barrier_arrive_only || !T.arrived) {
      if (slot == n.bars.end())
        n.bars.insert(
            std::upper_bound(n.bars.begin(), n.bars.end(), key,
                             [](const BarrierKey& k, const auto& kv) { return k < kv.first; }),
            {key, T.view});
      else
        n.mem.join(slot->second, T.view);
      if (b.barrier_arrive_only)
        ++T.pc;
      else
        T.arrived = true;
      out.push_back({std::move(n), fmt::format("{} arrives", b.text)});
      return;
    }
    if (!may_pass(s, t)) return;
    n.mem.join(T.view, slot->second);
    T.arrived = false;
    ++T.pc;
    out.push_back({std::move(n), fmt::format("{} passes", b.text)});
  }

  // What a thread has left to do from event p on (p in [begin, end]).
  struct Rest {
    std::vector<char> reads, writes;  // per cell
    bool sc_fence = false, barrier = false;
  };

  void summarise() {
    for (std::size_t t = 0; t < threads_; ++t) {
      std::vector<Rest> r(end_[t] - begin_[t] + 1, Rest{std::vector<char>(paths_.cells()),
                                                        std::vector<char>(paths_.cells())});
      for (EventId e = end_[t]; e-- > begin_[t];) {
        Rest& x = r[e - begin_[t]];
        x = r[e - begin_[t] + 1];
        const Event& v = ev(e);
        if (v.is_read()) x.reads[cell(v)] = 1;
        if (v.is_write()) x.writes[cell(v)] = 1;
        x.sc_fence |= v.is_sc_fence();
        x.barrier |= v.is_barrier();
      }
      rest_.push_back(std::move(r));
    }
  }
  const Rest& rest(const State& s, std::size_t u) const { return rest_[u][s.th[u].pc - begin_[u]]; }

  // Thread t's next step commutes with every step the other threads have
  // left (so exploring t alone here loses no final state: the state space
  // is acyclic, and this is the static persistent-set condition): a read
  // conflicts only with writes of its cell, a write or RMW with any access
  // of its cell, fence.sc with fence.sc (shared node storage); fence.acq_rel
  // only touches its own thread's views. Barrier steps read other threads'
  // progress and are never taken alone; while another thread has a barrier
  // ahead, neither is a thread that has one itself.
  // A vector instruction's pending elements are all enabled: each must
  // commute. (Other threads' promises are writes they have left to do.)
  bool independent(const State& s, std::size_t t) const {
    if (s.th[t].pc == end_[t]) return false;
    const Event& head = ev(s.th[t].pc);
    // Issuing a bulk operation touches nothing shared: it records the
    // thread's view and hands over the units (performing them is another
    // step). Any step of another thread commutes with it.
    if (head.async_until) return true;
    for (const ThreadState& T : s.th)
      if (!T.async.empty()) return false;
    if (head.is_barrier()) return false;
    const Rest& mine = rest(s, t);
    const std::vector<EventId> units =
        head.is_memory() ? pending(s, t) : std::vector<EventId>{s.th[t].pc};
    for (std::size_t u = 0; u < threads_; ++u) {
      if (u == t) continue;
      const Rest& r = rest(s, u);
      if (r.barrier && mine.barrier) return false;
      if (head.is_sc_fence() && r.sc_fence) return false;
      for (EventId e : units) {
        const Event& x = ev(e);
        if (!x.is_memory()) continue;
        const std::size_t c = cell(x);
        if (r.writes[c] || ((x.is_write() || x.in_rmw) && r.reads[c])) return false;
      }
    }
    return true;
  }

  // The bulk units pending on one cell form a persistent set when every one
  // of them is ready and nothing else left to do can touch the cell before
  // one of them is performed: no thread's remaining events write it, or
  // access it if one of the units writes, except events that wait for one
  // of these units (a cp.async.bulk.wait_group before them), and no thread
  // can still promise a write to it. Steps outside the set then touch other
  // cells only (a unit reads and writes its own cell, from a view of its
  // own), and none can enable another unit on this cell, so exploring only
  // this cell's units here keeps every final state (the state space is
  // acyclic). Units on different cells (another replica, another element)
  // commute: without this the three-GPU reductions of litmus/multimem
  // interleave dozens of RMWs and pass any time budget.
  std::optional<std::size_t> async_cell(const State& s) const {
    std::vector<char> seen(paths_.cells(), 0);
    for (const ThreadState& T : s.th)
      for (EventId u : T.async) {
        const std::size_t c = cell(ev(u));
        if (seen[c]) continue;
        seen[c] = 1;
        if (async_alone(s, c)) return c;
      }
    return std::nullopt;
  }
  bool async_alone(const State& s, std::size_t c) const {
    bool writes = false;
    for (const ThreadState& T : s.th)
      for (EventId u : T.async) {
        if (cell(ev(u)) != c) continue;
        if (!async_ready(T, u)) return false;
        writes |= ev(u).in_rmw || ev(u).is_write();
      }
    for (std::size_t v = 0; v < threads_; ++v) {
      const ThreadState& T = s.th[v];
      for (EventId w : promisable_[v])
        if (cell(ev(w)) == c && (ev(w).in_rmw ? w - 1 : w) >= T.pc) return false;
      for (EventId e = T.pc; e < end_[v]; ++e) {
        const Event& x = ev(e);
        if (!x.is_memory() || cell(x) != c || !(x.is_write() || (writes && x.is_read()))) continue;
        if (!waits_for_unit_on(T, x.instr, c)) return false;
        break;  // this event and every later one wait for a unit of the set
      }
    }
    return true;
  }
  // Does instruction `instr` of thread T wait for one of T's pending units on cell c?
  bool waits_for_unit_on(const ThreadState& T, std::size_t instr, std::size_t c) const {
    for (EventId u : T.async)
      if (cell(ev(u)) == c && *ev(u).async_until <= instr) return true;
    return false;
  }

  // Instructions: where each ends, its units (a read, a write, or an RMW
  // element's read standing for its pair), and whether it has several.
  void index_instructions() {
    instr_end_.assign(sk_.size() + 1, 0);
    instr_start_.assign(sk_.size() + 1, 0);
    units_.assign(sk_.size() + 1, {});
    multi_.assign(sk_.size() + 1, 0);
    all_units_.assign(sk_.size() + 1, 0);
    promisable_.resize(threads_);
    cand_.assign(sk_.size(), -1);
    deps_.assign(sk_.size(), {});
    for (EventId e = 0; e < sk_.size(); ++e)
      for (auto [it, end] = boost::in_edges(e, sk_.graph); it != end; ++it) {
        const EdgeKind k = sk_.graph[*it].kind;
        if (k == EdgeKind::Data || k == EdgeKind::Ctrl || k == EdgeKind::Addr)
          deps_[e].push_back(boost::source(*it, sk_.graph));
      }
    for (std::size_t t = 0; t < threads_; ++t) {
      for (EventId g = begin_[t]; g < end_[t];) {
        EventId h = g;
        while (h < end_[t] && ev(h).instr == ev(g).instr) ++h;
        if (h - g > 64)
          throw InputError(
              Diagnostic{test_.file, ev(g).src,
                         "an instruction with more than 64 events: too large for --engine op"});
        instr_end_[g] = h;
        for (EventId e = g; e < h; ++e) {
          instr_start_[e] = g;
          if (ev(e).in_rmw && ev(e).is_write()) continue;
          units_[g].push_back(e);
          all_units_[g] |= std::uint64_t{1} << (e - g);
        }
        multi_[g] = units_[g].size() > 1;
        for (EventId w = g; w < h; ++w)
          if (candidates_ < 64 && promisable(g, w)) {
            promisable_[t].push_back(w);
            cand_[w] = static_cast<int>(candidates_++);
          }
        g = h;
      }
    }
    may_carry_.assign(sk_.size(), 0);
    sync_bound_.assign(sk_.size(), 0);
    for (const auto& writes : promisable_)
      for (EventId w : writes) {
        may_carry_[w] = may_carry(w);
        sync_bound_[w] = sync_bound(w);
      }
  }

  // An RMW whose value and compare do not read its own read (atom.exch):
  // its promise need not choose a source.
  bool free_rmw(EventId w) const {
    const Event& x = ev(w);
    if (!x.in_rmw || x.guard) return false;
    for (const ReadRef& r : reads_of(x.value))
      if (sk_.vertex(r) == w - 1) return false;
    return true;
  }

  // Write w of the instruction starting at g can be promised: see
  // promise(). A store, or an RMW (a scalar one, one element of a vector
  // instruction, or one replica's unit of a bulk reduction) whose value (and
  // a CAS's compare) reads its own read and reads of its thread before the
  // instruction; those must have been performed when it is promised
  // (unknown_reads). A bulk unit's value also reads its element's source read,
  // which the promise may guess (guessable).
  bool promisable(EventId g, EventId w) const {
    const Event& x = ev(w);
    if (!x.is_write() || x.is_init || !x.value) return false;
    if (!x.in_rmw) return !ev(g).async_until && earlier(x.value, g, w);
    if (ev(w - 1).guard) return false;
    return earlier(x.value, g, w - 1) && (!x.guard || earlier(x.guard, g, w - 1));
  }
  // Every read e reads is `own`, a read of instruction g's thread before g,
  // or a source read of bulk instruction g whose values are known.
  bool earlier(const ExprPtr& e, EventId g, EventId own) const {
    for (const ReadRef& r : reads_of(e)) {
      const EventId v = sk_.vertex(r);
      if (v == own || guessable(v, g)) continue;
      if (v >= g || ev(v).thread != ev(g).thread) return false;
    }
    return true;
  }
  // May a promise of write w guess what read v, of its own thread before
  // w's instruction and not performed yet, reads (unknown_reads)? Bounds,
  // for cost alone (docs/model.md "Promises"): v's static value set is
  // small (small_set), and the paths take no branch (no assumptions, as in
  // a spin loop): in spin locks every store of a critical section
  // (`*x = *x + 1`) would be promised with each guess while the lock is
  // contended, which took the block-scope lock from 27 s past 60 s and the
  // suites' xval from 53 s to 167 s.
  bool own_guess(EventId v, EventId w) const {
    return sk_.assumptions.empty() && ev(v).thread == ev(w).thread &&
           instr_start_[v] < instr_start_[w] && small_set(v);
  }
  bool guessable(EventId v, EventId g) const {
    return ev(g).async_until && instr_start_[v] == g && v < guesses_.size() && guesses_[v];
  }
  // The reads write w's value (and compare) depend on, other than its own
  // RMW read, that thread t has not performed: none (its value is known
  // now), or reads whose values the promise guesses: a bulk unit's source
  // read, or a read of the thread before w's instruction (own_guess);
  // nullopt when another is not performed yet.
  std::optional<std::vector<EventId>> unknown_reads(const State& s, std::size_t t,
                                                    EventId w) const {
    const Event& x = ev(w);
    const ThreadState& T = s.th[t];
    std::vector<EventId> out;
    bool ok = true;
    auto scan = [&](const ExprPtr& e) {
      for (const ReadRef& r : reads_of(e)) {
        const EventId v = sk_.vertex(r);
        if (x.in_rmw && v == w - 1) continue;
        const bool done = instr_start_[v] < T.pc && !pending_unit(T, v);
        if (done) continue;
        if (!guessable(v, instr_start_[w]) && !own_guess(v, w)) ok = false;
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
      }
    };
    scan(x.value);
    if (x.in_rmw && x.guard) scan(x.guard);
    if (!ok) return std::nullopt;
    return out;
  }
  // Is RMW write w a bulk unit issued and ready to be performed?
  bool ready_unit(const ThreadState& T, EventId w) const {
    return ev(w).async_until && pending_unit(T, w - 1) && async_ready(T, w - 1);
  }
  // Is e a bulk unit of thread T issued and not yet performed?
  // Is unit e of the instruction at thread T's pc performed already?
  bool done_at_pc(const ThreadState& T, EventId e) const {
    return instr_start_[e] == T.pc && (T.done >> (e - T.pc) & 1);
  }
  static bool pending_unit(const ThreadState& T, EventId e) {
    return std::find(T.async.begin(), T.async.end(), e) != T.async.end();
  }

  bool same_barrier(const State& s, const Event& a, const Event& b) const {
    if (!(place(a) == place(b)) || a.barrier_id != b.barrier_id) return false;
    if (!a.barrier_logical || !b.barrier_logical) return !a.barrier_logical && !b.barrier_logical;
    return eval(a.barrier_logical, s) == eval(b.barrier_logical, s);
  }

  bool known(const State& s, const ExprPtr& e, std::size_t u) const {
    for (const ReadRef& r : reads_of(e))
      if (sk_.vertex(r) >= s.th[u].pc) return false;
    return true;
  }

  // A waiting barrier passes once its quorum (or every member) has arrived.
  bool may_pass(const State& s, std::size_t t) const {
    const Event& b = ev(s.th[t].pc);
    std::size_t arrived = 0, members = 0;
    for (std::size_t u = 0; u < threads_; ++u)
      for (EventId x = begin_[u]; x < end_[u]; ++x) {
        // A barrier whose name depends on reads its thread has not done yet
        // may turn out to be a member: count it, not arrived (wait).
        if (ev(x).is_barrier() && ev(x).barrier_logical && !known(s, ev(x).barrier_logical, u)) {
          ++members;
          continue;
        }
        if (!ev(x).is_barrier() || !same_barrier(s, ev(x), b)) continue;
        ++members;
        // An arrival counts once made: an arrive-only barrier at the thread's
        // pc has not yet pushed the thread's view (counting it early let a
        // waiter pass before the writes the arrival releases).
        const EventId pc = s.th[u].pc;
        arrived += pc > x || (pc == x && s.th[u].arrived);
      }
    return b.quorum ? arrived >= static_cast<std::size_t>(*b.quorum) : arrived == members;
  }

  const Skeleton& sk_;
  const LitmusTest& test_;
  ModelRef model_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  // States explored, in steps of 256 (checkpoint), over the explorers'
  // threads (shared: a Machine is moved into place).
  std::shared_ptr<std::atomic<std::size_t>> explored_ =
      std::make_shared<std::atomic<std::size_t>>(0);
  op::Paths paths_;
  std::size_t threads_;
  std::vector<EventId> begin_, end_;
  std::vector<EventId> instr_start_;              // per event: its instruction's first event
  std::vector<std::vector<Rest>> rest_;           // per thread, per position
  std::vector<EventId> instr_end_;                // per instruction's first event
  std::vector<std::vector<EventId>> units_;       // the same
  std::vector<char> multi_;                       // the same
  std::vector<std::uint64_t> all_units_;          // the same
  std::vector<std::vector<EventId>> promisable_;  // per thread, the writes it may promise
  std::vector<int> cand_;                         // per event: its index among those, or -1
  std::vector<char> may_carry_;                   // per event: may_carry, for promisable writes
  std::vector<EventId> sync_bound_;               // per event: sync_bound, for promisable writes
  std::size_t candidates_ = 0;
  std::vector<std::vector<EventId>> deps_;  // per event: its data, ctrl and addr sources
  ValueSets guesses_;  // per event: the values a bulk unit's promise may guess it reads
};

// Depth-first search from one item, with its own visited set.
class Explorer {
 public:
  Explorer(const Machine& m, std::map<Values, std::string>& found) : m_(m), found_(found) {}

  Report run(const Item& item) {
    trace_ = item.trace;
    explore(item.state);
    return report_;
  }

 private:
  void explore(const State& s) {
    if (!seen_.insert(m_.key(s)).second) return;
    if ((states_ & 255) == 0) m_.checkpoint();
    if (++states_ > m_.limit())
      throw InputError(Diagnostic{
          m_.test().file, m_.test().condition_loc,
          fmt::format("more than {} machine states in one skeleton: too large for --engine op",
                      m_.limit())});
    auto next = m_.moves(s);
    for (auto& [t, mv] : next) {
      trace_.emplace_back(t, std::move(mv.what));
      explore(mv.next);
      trace_.pop_back();
    }
    if (m_.finished(s)) return record(s);
    if (next.empty() && !m_.promises_open(s)) report_.deadlocked = true;
  }

  void record(const State& s) {
    for (Values& vals : m_.outcomes(s, report_)) {
      if (found_.count(vals)) continue;
      std::string trace;
      for (const auto& [t, what] : trace_) trace += fmt::format("P{} {}\n", t, what);
      found_.emplace(std::move(vals), std::move(trace));
    }
  }

  const Machine& m_;
  std::map<Values, std::string>& found_;
  std::unordered_set<State::Key, KeyHash> seen_;
  Path trace_;
  std::size_t states_ = 0;
  Report report_;
};

// Splits a skeleton's search: breadth-first from the start until there are
// kSplit states (or none can move). The split does not depend on the number
// of workers, so neither do the merged results.
constexpr std::size_t kSplit = 16;

std::vector<Item> frontier(const Machine& m) {
  std::vector<Item> items{Item{m.start(), {}}};
  for (int depth = 0; depth < 64 && items.size() < kSplit; ++depth) {
    std::vector<Item> next;
    std::unordered_set<State::Key, KeyHash> seen;
    bool grew = false;
    for (Item& it : items) {
      auto mv = m.moves(it.state);
      if (mv.empty() || m.finished(it.state)) {  // explored as it is
        if (seen.insert(m.key(it.state)).second) next.push_back(std::move(it));
        continue;
      }
      grew = true;
      for (auto& [t, x] : mv) {
        if (!seen.insert(m.key(x.next)).second) continue;
        Item n{std::move(x.next), it.trace};
        n.trace.emplace_back(t, std::move(x.what));
        next.push_back(std::move(n));
      }
    }
    items = std::move(next);
    if (!grew) break;
  }
  return items;
}

}  // namespace

TestResult run_op(const LitmusTest& test, const EngineOptions& opts,
                  std::map<std::vector<std::uint64_t>, std::string>* traces) {
  const auto t0 = std::chrono::steady_clock::now();
  // The machine is written independently of the axioms: it has none to
  // leave out, and answering as if it had would be a silent wrong answer.
  if (!opts.disabled_checks.empty())
    throw InputError(Diagnostic{test.file,
                                {0, 0},
                                "the operational machine (--engine op) has no axioms to leave out; "
                                "use the z3 or enum engine"});
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  // Each skeleton's search is split into items (frontier); the items of all
  // skeletons run on opts.workers threads and are merged in order, keeping
  // the first trace of each outcome, so results are the same for every N.
  std::vector<Machine> machines;
  machines.reserve(ex.skeletons.size());
  for (const Skeleton& sk : ex.skeletons)
    machines.emplace_back(sk, test, r.model, r.observables, opts);
  struct Work {
    std::size_t skeleton;
    Item item;
  };
  std::vector<Work> work;
  for (std::size_t i = 0; i < machines.size(); ++i)
    for (Item& it : frontier(machines[i])) work.push_back({i, std::move(it)});
  std::vector<std::map<Values, std::string>> per(work.size());
  std::vector<Report> reports(work.size());
  std::vector<std::exception_ptr> errors(work.size());
  parallel_for(work.size(), opts.workers, [&](std::size_t i) {
    try {
      reports[i] = Explorer(machines[work[i].skeleton], per[i]).run(work[i].item);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  std::vector<Report> by_skeleton(machines.size());
  std::map<Values, std::string> found;
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    by_skeleton[work[i].skeleton].add(reports[i]);
    for (auto& [vals, trace] : per[i]) {
      std::vector<std::uint64_t> key = vals;
      clear_ended(r.observables, key);
      found.emplace(std::move(key), std::move(trace));
    }
  }
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const Skeleton& sk = ex.skeletons[i];
    if (sk.cut && by_skeleton[i].completed) ++r.incomplete.bound_cut;
    if (!sk.cut && by_skeleton[i].deadlocked && !by_skeleton[i].completed)
      ++r.incomplete.barrier_deadlock;
  }
  std::map<Values, Witness> as_witness;
  for (const auto& [vals, trace] : found) as_witness.emplace(vals, Witness{});
  if (traces) *traces = std::move(found);
  settle_result(r, test, std::move(as_witness));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace redscope
