// The operational executor (`--engine op`), first formulation: an abstract
// machine that runs each thread's path event by event over one shared
// memory, exploring every interleaving (state hashing prunes revisits).
//
// Scopes act through ownership, not through axioms: an atom/red performs its
// read and its write as two machine steps, and while it is between them it
// owns its cell *at its scope instance* (the CTA, cluster, GPU or system
// containing its thread). Another thread's RMW or strong store to the cell
// must wait only if the owner's scope instance contains that thread and the
// waiting operation's scope instance contains the owner — i.e. if they meet
// in the scope tree. So two .cta reds from two CTAs interleave their steps
// and can lose an update, two .gpu reds on one GPU cannot. On sm_6x targets a
// shared-memory RMW does not make plain stores wait. Weak stores never wait.
//
// Every machine run is an interleaving, so the machine reaches only
// sequentially consistent executions (plus these split RMWs): it is
// stronger than the PTX model, and `redscope xval` reports where.
#include <chrono>
#include <exception>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "redscope/engine.hpp"
#include "redscope/suite.hpp"

namespace redscope {
namespace {

using Values = std::vector<std::uint64_t>;

bool shared_space(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

class Machine {
 public:
  Machine(const Skeleton& sk, const LitmusTest& test, ModelKind model, const std::vector<Observable>& obs,
          const EngineOptions& opts)
      : sk_(sk), test_(test), model_(model), obs_(obs), opts_(opts), threads_(sk.thread_base.size()) {
    for (std::size_t t = 0; t < threads_; ++t) {
      const EventId lo = sk.thread_base[t];
      const EventId hi = t + 1 < threads_ ? sk.thread_base[t + 1] : sk.size();
      begin_.push_back(lo);
      end_.push_back(hi);
    }
    for (const auto& [cell, init] : sk.init_write) cell_index_.emplace(cell, cell_index_.size());
    State s;
    s.pc = begin_;
    s.arrived.assign(threads_, 0);
    s.owner.assign(threads_, kNone);
    s.mem.assign(cell_index_.size(), 0);
    for (const auto& [cell, init] : sk.init_write) s.mem[cell_index_.at(cell)] = *const_value(sk.ev(init).value);
    s.vals.assign(sk.size(), 0);
    start_ = std::move(s);
  }

  struct Report {
    bool completed = false;   // some run reached the end of every path
    bool deadlocked = false;  // some run got stuck at a barrier
  };

  Report run(std::map<Values, std::string>& found) {
    found_ = &found;
    explore(start_);
    return report_;
  }

 private:
  static constexpr EventId kNone = ~EventId{0};

  struct State {
    std::vector<EventId> pc;        // next event per thread
    std::vector<char> arrived;      // arrived at the barrier at pc, waiting to pass
    std::vector<EventId> owner;     // the RMW read whose write is pending, per thread
    Values mem;                     // one value per cell
    Values vals;                    // values returned by reads so far
    bool operator<(const State& o) const {
      return std::tie(pc, arrived, owner, mem, vals) < std::tie(o.pc, o.arrived, o.owner, o.mem, o.vals);
    }
  };

  const Event& ev(EventId e) const { return sk_.ev(e); }
  const Placement& place(const Event& e) const { return sk_.placement[static_cast<std::size_t>(e.thread)]; }
  std::uint64_t eval(const ExprPtr& e, const State& s) const {
    return evaluate(e, [&](ReadRef r) { return s.vals[sk_.vertex(r)]; });
  }

  // Do the operations meet in the scope tree? Each one's scope instance must
  // contain the other's thread; weak accesses belong to no scope instance.
  bool meet(const Event& a, const Event& b) const {
    if (a.thread == b.thread) return true;
    if (!a.is_strong() || !b.is_strong()) return false;
    return scope_includes(a.scope, place(a), place(b)) && scope_includes(b.scope, place(b), place(a));
  }

  // Must `e` (an RMW read or a store) wait for another thread's pending RMW?
  bool must_wait(const State& s, std::size_t t, const Event& e) const {
    for (std::size_t u = 0; u < threads_; ++u) {
      if (u == t || s.owner[u] == kNone) continue;
      const Event& own = ev(s.owner[u]);
      if (own.loc != e.loc || !meet(own, e)) continue;
      if (!e.in_rmw && model_ == ModelKind::PtxSm6x && shared_space(own.space)) continue;  // sm_6x rule
      return true;
    }
    return false;
  }

  bool same_barrier(const State& s, const Event& a, const Event& b) const {
    if (!(place(a) == place(b)) || a.barrier_id != b.barrier_id) return false;
    if (!a.barrier_logical || !b.barrier_logical) return !a.barrier_logical && !b.barrier_logical;
    return eval(a.barrier_logical, s) == eval(b.barrier_logical, s);
  }

  bool known(const State& s, const ExprPtr& e, std::size_t u) const {
    for (const ReadRef& r : reads_of(e))
      if (sk_.vertex(r) >= s.pc[u]) return false;
    return true;
  }

  // A waiting barrier passes once its quorum (or every member) has arrived.
  bool may_pass(const State& s, std::size_t t) const {
    const Event& b = ev(s.pc[t]);
    std::size_t arrived = 0, members = 0;
    for (std::size_t u = 0; u < threads_; ++u)
      for (EventId x = begin_[u]; x < end_[u]; ++x) {
        // A barrier whose name depends on reads its thread has not done yet
        // may turn out to be a member: count it, not arrived (wait).
        if (ev(x).is_barrier() && ev(x).barrier_logical && !known(s, ev(x).barrier_logical, u)) { ++members; continue; }
        if (!ev(x).is_barrier() || !same_barrier(s, ev(x), b)) continue;
        ++members;
        const bool here = s.pc[u] > x || (s.pc[u] == x && (s.arrived[u] || ev(x).barrier_arrive_only));
        arrived += here;
      }
    return b.quorum ? arrived >= static_cast<std::size_t>(*b.quorum) : arrived == members;
  }

  // One step of thread t, or nullopt when it cannot move now.
  std::optional<State> step(const State& s, std::size_t t) const {
    if (s.pc[t] == end_[t]) return std::nullopt;
    const EventId e = s.pc[t];
    const Event& x = ev(e);
    State n = s;
    if (x.guard && eval(x.guard, s) == 0) {  // not executed; a failed cas releases its cell
      if (x.is_write() && x.in_rmw) n.owner[t] = kNone;
      ++n.pc[t];
      return n;
    }
    if (x.is_read()) {
      if (x.in_rmw && must_wait(s, t, x)) return std::nullopt;
      n.vals[e] = s.mem[cell_index_.at(x.loc)];
      if (x.in_rmw) n.owner[t] = e;
    } else if (x.is_write()) {
      if (!x.in_rmw && x.is_strong() && must_wait(s, t, x)) return std::nullopt;
      if (!x.in_rmw && !x.is_strong() && must_wait_weak(s, t, x)) return std::nullopt;
      n.mem[cell_index_.at(x.loc)] = eval(x.value, s);
      if (x.in_rmw) n.owner[t] = kNone;
    } else if (x.is_barrier() && !x.barrier_arrive_only) {
      if (!s.arrived[t]) { n.arrived[t] = 1; return n; }
      if (!may_pass(s, t)) return std::nullopt;
      n.arrived[t] = 0;
    }
    ++n.pc[t];
    return n;
  }

  // Weak stores never wait: they are not morally strong with anything.
  bool must_wait_weak(const State&, std::size_t, const Event&) const { return false; }

  void explore(const State& s) {
    if (!seen_.insert(s).second) return;
    if (++steps_ > opts_.enum_limit)
      throw InputError(Diagnostic{test_.file, test_.condition_loc,
                                  fmt::format("more than {} machine states in one skeleton: too large for --engine op", opts_.enum_limit)});
    bool moved = false, finished = true;
    for (std::size_t t = 0; t < threads_; ++t) {
      if (s.pc[t] != end_[t]) finished = false;
      if (auto n = step(s, t)) {
        moved = true;
        trace_.push_back(fmt::format("P{} {}", t, describe(s, t, *n)));
        explore(*n);
        trace_.pop_back();
      }
    }
    if (finished) return record(s);
    if (!moved) report_.deadlocked = true;
  }

  std::string describe(const State& s, std::size_t t, const State& n) const {
    const Event& x = ev(s.pc[t]);
    if (x.is_read() && n.pc[t] != s.pc[t]) return fmt::format("{} reads {}={}", x.text, x.loc, n.vals[s.pc[t]]);
    if (x.is_write() && n.pc[t] != s.pc[t]) return fmt::format("{} writes {}={}", x.text, x.loc, n.mem[cell_index_.at(x.loc)]);
    if (x.is_barrier()) return fmt::format("{} {}", x.text, n.arrived[t] ? "arrives" : "passes");
    return x.text;
  }

  void record(const State& s) {
    for (const ExprPtr& a : sk_.assumptions)
      if (eval(a, s) == 0) return;  // this path's branch decisions do not hold
    report_.completed = true;
    if (sk_.cut) return;
    Values vals;
    for (const Observable& o : obs_) {
      if (o.is_register) {
        auto it = sk_.final_regs.find(o.reg);
        vals.push_back(it == sk_.final_regs.end() ? 0 : eval(make_resize(it->second, width_of(o.type), is_signed(o.type)), s));
      } else {
        vals.push_back(s.mem[cell_index_.at(o.loc)]);
      }
    }
    if (test_.filter && !eval_condition(*test_.filter, obs_, vals)) return;
    std::string trace;
    for (const std::string& l : trace_) trace += l + "\n";
    found_->emplace(vals, trace);
  }

  const Skeleton& sk_;
  const LitmusTest& test_;
  ModelKind model_;
  const std::vector<Observable>& obs_;
  const EngineOptions& opts_;
  std::size_t threads_;
  std::vector<EventId> begin_, end_;
  std::map<std::string, std::size_t> cell_index_;
  State start_;
  std::set<State> seen_;
  std::vector<std::string> trace_;
  std::map<Values, std::string>* found_ = nullptr;
  std::size_t steps_ = 0;
  Report report_;
};

}  // namespace

TestResult run_op(const LitmusTest& test, const EngineOptions& opts, std::map<std::vector<std::uint64_t>, std::string>* traces) {
  const auto t0 = std::chrono::steady_clock::now();
  const Expansion ex = expand(test, opts.expand);
  TestResult r = start_result(test, opts, ex);
  std::map<Values, std::string> found;
  // Skeletons are explored independently, on opts.workers threads; merging
  // in skeleton order keeps the first trace of each outcome, whatever N is.
  const std::size_t n = ex.skeletons.size();
  std::vector<std::map<Values, std::string>> per(n);
  std::vector<Machine::Report> reports(n);
  std::vector<std::exception_ptr> errors(n);
  parallel_for(n, opts.workers, [&](std::size_t i) {
    try {
      Machine m(ex.skeletons[i], test, r.model, r.observables, opts);
      reports[i] = m.run(per[i]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    const Skeleton& sk = ex.skeletons[i];
    if (sk.cut && reports[i].completed) ++r.incomplete.bound_cut;
    if (!sk.cut && reports[i].deadlocked && !reports[i].completed) ++r.incomplete.barrier_deadlock;
    found.insert(per[i].begin(), per[i].end());
  }
  std::map<Values, Witness> as_witness;
  for (const auto& [vals, trace] : found) as_witness.emplace(vals, Witness{});
  if (traces) *traces = found;
  settle_result(r, test, std::move(as_witness));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace redscope
