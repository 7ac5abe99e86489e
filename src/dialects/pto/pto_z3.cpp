#include "dialects/pto/pto_z3.hpp"

#include <chrono>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "dialects/pto/pto_exec.hpp"
#include "dialects/pto/pto_z3_values.hpp"
#include "redscope/engine/z3/solver_process.hpp"
#include "redscope/engine/z3/z3_guard.hpp"

namespace redscope {

namespace {

namespace p = pto;

std::string where(const SourceLoc& l) { return fmt::format("{}:{}", l.line, l.col); }

// A group reduction whose result may not yet have reached its consumers:
// consumers 1..k read `old`, later ones the new contents.
struct ZPending {
  ZLanes old;
  z3::expr k;
  int reads = 0;
  const p::Op* by = nullptr;
};

// One store's contribution to one element: its time and value term.
struct ZWrite {
  z3::expr time, value;
  std::size_t core;
  const pto::Op* op;
  std::size_t term;  // index into the store's value terms
};

// At most this many conditions are split into cases (2^k reductions on
// numerals) before a reduction falls back to terms over its inputs.
constexpr std::size_t kMaxSplit = 8;

struct Choice {
  enum class K : std::uint8_t { Order, Read, Time } kind;
  z3::expr var;
  const p::Op* op;
  int read = 0;               // Read: the consumer's number
  const p::Op* by = nullptr;  // Read: the pending reduction
  std::string core;
  std::size_t core_index = 0;  // Time: the core, which breaks ties
};

// When a vlds/vsts runs: its time and core (the order is (time, core)).
struct When {
  z3::expr t;
  std::size_t core;
};

class PtoZ3 {
 public:
  PtoZ3(const LitmusTest& t, const EngineOptions& opts, const pto_exec::Observed& obs)
      : t_(t),
        prog_(*pto::program_of(t)),
        opts_(opts),
        obs_(obs),
        s_(c_),
        orders_(pto_exec::orders(opts)) {}

  std::map<std::vector<std::uint64_t>, Witness> run() {
    const detail::InterruptOnStop guard(opts_.budget, c_);
    std::size_t cores_with_memory = 0;
    for (const p::Core& core : prog_.cores)
      cores_with_memory += std::any_of(core.ops.begin(), core.ops.end(), is_memory) ? 1 : 0;
    symbolic_times_ = cores_with_memory > 1;
    assign_times();
    for (std::size_t c = 0; c < prog_.cores.size(); ++c) run_core(c);
    for (auto& [name, e] : deferred_) s_.add(name == e);
    return enumerate();
  }

 private:
  static bool is_memory(const p::Op& op) {
    return op.kind == p::OpKind::Load || op.kind == p::OpKind::Store;
  }

  // Each vlds/vsts gets a time: numerals in program order for one core; for
  // several, integer variables rising in each core's program order. Two
  // cores' accesses may share a time: the order is (time, core), ties going
  // to the lower core (before()). A `distinct` over every time, or times
  // t * cores + c, made Z3 preprocess for minutes without heeding its
  // interrupt (2 cores of 4,000 vlds: past 100 s under --timeout 5).
  void assign_times() {
    std::vector<z3::expr> all;
    for (std::size_t c = 0; c < prog_.cores.size(); ++c) {
      std::optional<z3::expr> prev;
      for (std::size_t i = 0; i < prog_.cores[c].ops.size(); ++i) {
        const p::Op& op = prog_.cores[c].ops[i];
        if (!is_memory(op)) continue;
        check(opts_.budget);
        z3::expr t = symbolic_times_ ? c_.int_const(fmt::format("t_{}_{}", c, i).c_str())
                                     : c_.int_val(static_cast<int>(all.size()));
        if (symbolic_times_) {
          if (prev) s_.add(*prev < t);
          choices_.push_back(Choice{Choice::K::Time, t, &op, 0, nullptr, prog_.cores[c].name, c});
        }
        prev = t;
        times_.emplace(&op, When{t, c});
        all.push_back(t);
      }
    }
    // Stores of other cores are read through fresh terms, tied to their
    // values once their core has run (a load may precede them in the
    // order this engine visits cores).
    for (std::size_t c = 0; c < prog_.cores.size(); ++c)
      for (const p::Op& op : prog_.cores[c].ops) {
        if (op.kind != p::OpKind::Store) continue;
        check(opts_.budget);
        const unsigned n = op.dist == p::Dist::OnePoint ? 1 : p::lanes_of(op.elem);
        std::size_t k = 0;
        for (unsigned i = 0; i < n; ++i) {
          if (!p::lane_active(op.mask, op.elem, i)) continue;
          const std::string cell = fmt::format("{}[{}]", op.buffer, op.offset + i);
          const z3::expr v =
              c_.bv_const(fmt::format("sv_{}_{}_{}", c, &op - prog_.cores[c].ops.data(), i).c_str(),
                          p::bits_of(op.elem));
          writes_[cell].push_back(ZWrite{times_.at(&op).t, v, c, &op, k});
          store_terms_[&op].push_back(v);
          ++k;
        }
      }
  }

  // The value element `cell` holds for a reader at time `t` (none: the end):
  // the latest write before t, else the initial value. Own-core writes
  // that come later in program order can never be latest before t.
  z3::expr read_cell(const std::string& buffer, std::size_t index, const std::optional<When>& t) {
    const p::Buffer& b = *prog_.buffer(buffer);
    z3::expr v = c_.bv_val(b.init[index], p::bits_of(b.elem));
    const auto it = writes_.find(fmt::format("{}[{}]", buffer, index));
    if (it == writes_.end()) return v;
    const auto& ws = it->second;
    for (std::size_t i = 0; i < ws.size(); ++i) {
      check(opts_.budget);  // ws.size()^2 terms per read: 20,000 stores of a cell make 4e8
      const When wi{ws[i].time, ws[i].core};
      z3::expr cond = t ? before(wi, *t) : c_.bool_val(true);
      for (std::size_t j = 0; j < ws.size(); ++j) {
        if (j == i) continue;
        const When wj{ws[j].time, ws[j].core};
        z3::expr between = before(wi, wj);
        if (t) between = between && before(wj, *t);
        cond = cond && !between;
      }
      // A store of a core already run reads as its value term itself.
      const auto known = stored_.find(ws[i].op);
      v = z3::ite(cond, known != stored_.end() ? known->second[ws[i].term] : ws[i].value, v);
    }
    return v.simplify();
  }

  // Whether access a comes before access b in the order (time, core).
  z3::expr before(const When& a, const When& b) const {
    return symbolic_times_ && a.core < b.core ? a.t <= b.t : a.t < b.t;
  }

  struct CoreSym {
    std::map<std::string, ZLanes> regs;
    std::map<std::string, ZPending> pending;
  };

  void complete(CoreSym& cs, const std::string& reg) {
    const auto it = cs.pending.find(reg);
    if (it == cs.pending.end()) return;
    s_.add(it->second.k <= it->second.reads);
    cs.pending.erase(it);
  }

  ZLanes read_reg(CoreSym& cs, const std::string& reg, const p::Op& op) {
    const auto it = cs.pending.find(reg);
    if (it == cs.pending.end()) return cs.regs.at(reg);
    ZPending& pd = it->second;
    const int j = ++pd.reads;
    choices_.push_back(Choice{Choice::K::Read, pd.k, &op, j, pd.by, ""});
    const z3::expr sees_old = c_.int_val(j) <= pd.k;
    ZLanes out;
    const ZLanes& now = cs.regs.at(reg);
    for (std::size_t i = 0; i < now.size(); ++i)
      out.push_back(z3::ite(sees_old, pd.old[i], now[i]).simplify());
    return out;
  }

  void write_reg(CoreSym& cs, const std::string& reg, ZLanes v) {
    complete(cs, reg);
    cs.regs[reg] = std::move(v);
  }

  void run_core(std::size_t c) {
    const p::Core& core = prog_.cores[c];
    CoreSym cs;
    for (const auto& [reg, e] : core.regs) {
      const auto it = core.init.find(reg);
      cs.regs[reg] =
          z3_lanes(c_, e, it != core.init.end() ? it->second : p::Lanes(p::lanes_of(e), 0));
    }
    for (const p::Op& op : core.ops) {
      if (opts_.budget) opts_.budget->check();
      switch (op.kind) {
        case p::OpKind::Barrier:
          while (!cs.pending.empty()) complete(cs, cs.pending.begin()->first);
          break;
        case p::OpKind::Load: {
          ZLanes v;
          for (unsigned i = 0; i < p::lanes_of(op.elem); ++i)
            v.push_back(read_cell(op.buffer, op.offset + (op.dist == p::Dist::Broadcast ? 0 : i),
                                  times_.at(&op)));
          write_reg(cs, op.dst, std::move(v));
          break;
        }
        case p::OpKind::Store: {
          const ZLanes v = read_reg(cs, op.src, op);
          const unsigned n = op.dist == p::Dist::OnePoint ? 1 : p::lanes_of(op.elem);
          std::size_t k = 0;
          for (unsigned i = 0; i < n; ++i)
            if (p::lane_active(op.mask, op.elem, i)) {
              deferred_.emplace_back(store_terms_.at(&op)[k++], v[i]);
              stored_[&op].push_back(v[i]);
            }
          break;
        }
        case p::OpKind::Reduce: reduce(cs, op); break;
      }
    }
    while (!cs.pending.empty()) complete(cs, cs.pending.begin()->first);
    for (const auto& [reg, lanes] : cs.regs) final_regs_[{c, reg}] = lanes;
  }

  // The conditions of the if-then-else terms in `lanes` (which store a load
  // read, whether a consumer saw a pending result).
  std::vector<z3::expr> conditions(const ZLanes& lanes) const {
    std::vector<z3::expr> atoms;
    std::set<unsigned> seen, seen_atoms;
    std::vector<z3::expr> todo(lanes.begin(), lanes.end());
    while (!todo.empty()) {
      const z3::expr e = todo.back();
      todo.pop_back();
      if (!seen.insert(e.id()).second || !e.is_app()) continue;
      if (e.decl().decl_kind() == Z3_OP_ITE) {
        if (seen_atoms.insert(e.arg(0).id()).second) atoms.push_back(e.arg(0));
        todo.push_back(e.arg(1));
        todo.push_back(e.arg(2));
      }
    }
    return atoms;
  }

  // The reduction of `in`, split into cases: when the lanes are numerals
  // under each assignment of their (few) conditions, each case is computed
  // on numerals and the cases joined by if-then-else; Z3 then never
  // bit-blasts a chain of float additions. Otherwise the terms as they are.
  ZLanes reduce_terms(const p::Op& op, const ZLanes& in, p::Order order) {
    const std::vector<z3::expr> atoms = conditions(in);
    if (atoms.empty() || atoms.size() > kMaxSplit)
      return z3_reduce(c_, op.reduce, op.elem, in, op.mask, order);
    z3::expr_vector from(c_);
    for (const z3::expr& a : atoms) from.push_back(a);
    std::vector<ZLanes> cases;
    for (std::size_t bits = 0; bits < (std::size_t{1} << atoms.size()); ++bits) {
      z3::expr_vector to(c_);
      for (std::size_t i = 0; i < atoms.size(); ++i) to.push_back(c_.bool_val((bits >> i) & 1));
      ZLanes lanes;
      for (const z3::expr& l : in) {
        z3::expr v = l;
        lanes.push_back(v.substitute(from, to).simplify());
        if (!lanes.back().is_numeral())
          return z3_reduce(c_, op.reduce, op.elem, in, op.mask, order);
      }
      cases.push_back(z3_reduce(c_, op.reduce, op.elem, lanes, op.mask, order));
    }
    // Join: bit i of the case number is atom i.
    ZLanes out = cases[0];
    for (std::size_t lane = 0; lane < out.size(); ++lane) {
      std::vector<z3::expr> level;
      for (const ZLanes& c : cases) level.push_back(c[lane]);
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        std::vector<z3::expr> up;
        for (std::size_t j = 0; j < level.size(); j += 2)
          up.push_back(z3::eq(level[j], level[j + 1]) ? level[j]
                                                      : z3::ite(atoms[i], level[j + 1], level[j]));
        level = std::move(up);
      }
      out[lane] = level[0];
    }
    return out;
  }

  void reduce(CoreSym& cs, const p::Op& op) {
    const ZLanes in = read_reg(cs, op.src, op);
    ZLanes out = reduce_terms(op, in, orders_.front());
    if (orders_.size() > 1 && p::order_matters(op.reduce, op.elem)) {
      const ZLanes seq = reduce_terms(op, in, orders_.back());
      bool differs = false;
      for (std::size_t i = 0; i < out.size(); ++i) differs |= !z3::eq(out[i], seq[i]);
      if (differs) {
        // One order for the whole run (the hardware sums every reduction the
        // same way): one Boolean shared by every reduction it changes.
        if (!tree_) tree_ = c_.bool_const("tree");
        const z3::expr tree = *tree_;
        choices_.push_back(Choice{Choice::K::Order, tree, &op, 0, nullptr, ""});
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = z3::ite(tree, out[i], seq[i]);
      }
    }
    const ZLanes old = cs.regs.at(op.dst);
    write_reg(cs, op.dst, std::move(out));
    if (p::is_group(op.reduce)) {
      const z3::expr k = c_.int_const(fmt::format("k_{}", choices_.size() + counter_++).c_str());
      s_.add(k >= 0);
      cs.pending.emplace(op.dst, ZPending{old, k, 0, &op});
    }
  }

  std::vector<z3::expr> observable_terms() {
    std::vector<z3::expr> out;
    for (const pto_exec::Place& pl : obs_.places)
      out.push_back(pl.is_register ? final_regs_.at({pl.core, pl.name})[pl.index]
                                   : read_cell(pl.name, pl.index, std::nullopt));
    return out;
  }

  std::map<std::vector<std::uint64_t>, Witness> enumerate() {
    const std::vector<z3::expr> terms = observable_terms();
    std::map<std::vector<std::uint64_t>, Witness> found;
    for (;;) {
      if (opts_.budget) opts_.budget->check();
      const z3::check_result res = s_.check();
      if (res == z3::unsat) break;
      if (res != z3::sat) {
        if (opts_.budget) opts_.budget->check();
        throw std::runtime_error("z3 returned unknown on a PTO program");
      }
      const z3::model m = s_.get_model();
      std::vector<std::uint64_t> vals;
      z3::expr block = c_.bool_val(false);
      for (const z3::expr& t : terms) {
        const z3::expr v = m.eval(t, true);
        vals.push_back(v.get_numeral_uint64());
        block = block || t != v;
      }
      found.emplace(vals, witness(m));
      if (found.size() > opts_.max_outcomes)
        throw InputError(
            Diagnostic{t_.file, {1, 1}, fmt::format("more than {} outcomes", opts_.max_outcomes)});
      if (terms.empty()) break;
      s_.add(block);
    }
    return found;
  }

  Witness witness(const z3::model& m) const {
    Witness w;
    std::vector<std::tuple<std::int64_t, std::size_t, std::string>> order;  // (time, core, op)
    for (const Choice& ch : choices_) {
      const z3::expr v = m.eval(ch.var, true);
      switch (ch.kind) {
        case Choice::K::Order:
          w.choices.push_back(fmt::format("{} pto.{}: {} order", where(ch.op->loc),
                                          p::op_name(ch.op->reduce),
                                          v.is_true() ? "tree" : "sequential"));
          break;
        case Choice::K::Read: {
          const bool old = ch.read <= v.get_numeral_int64();
          w.choices.push_back(fmt::format("{} reads {} {} pto.{} at {} {}", where(ch.op->loc),
                                          ch.by->dst, old ? "before" : "after",
                                          p::op_name(ch.by->reduce), where(ch.by->loc),
                                          old ? "completes (old contents)" : "completed"));
          break;
        }
        case Choice::K::Time:
          order.emplace_back(v.get_numeral_int64(), ch.core_index,
                             fmt::format("{} {}", ch.core, where(ch.op->loc)));
          break;
      }
    }
    if (!order.empty()) {
      std::sort(order.begin(), order.end());
      std::vector<std::string> names;
      for (auto& [t, c, n] : order) names.push_back(n);
      w.choices.push_back("interleaving: " + fmt::format("{}", fmt::join(names, ", ")));
    }
    return w;
  }

  const LitmusTest& t_;
  const p::Program& prog_;
  const EngineOptions& opts_;
  const pto_exec::Observed& obs_;
  z3::context c_;
  z3::solver s_;
  std::vector<p::Order> orders_;
  std::optional<z3::expr> tree_;  // true: tree order, false: sequential (when both are run)
  bool symbolic_times_ = false;
  std::map<const p::Op*, When> times_;
  std::map<std::string, std::vector<ZWrite>> writes_;
  std::map<const p::Op*, std::vector<z3::expr>> store_terms_;
  std::vector<std::pair<z3::expr, z3::expr>> deferred_;
  std::map<const p::Op*, ZLanes> stored_;  // value terms of the stores run so far
  std::map<std::pair<std::size_t, std::string>, ZLanes> final_regs_;
  std::vector<Choice> choices_;
  std::size_t counter_ = 0;
};

// Whether the twin may run in redscope's process (engine/z3/solver_process.hpp):
// at most 32 operations, 8 of them loads or stores (whose times are solver
// variables once two cores have them). litmus/pto's programs have at most 6
// and 4; 8 cores of one store and one load each run past a 5 s budget.
bool small_for_process(const p::Program& prog) {
  std::size_t ops = 0, memory = 0;
  for (const p::Core& core : prog.cores) {
    ops += core.ops.size();
    for (const p::Op& op : core.ops)
      memory += op.kind == p::OpKind::Load || op.kind == p::OpKind::Store ? 1 : 0;
  }
  return ops <= 32 && memory <= 8;
}

}  // namespace

TestResult run_pto_z3(const LitmusTest& test, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  const pto_exec::Observed obs = pto_exec::observe(test, opts.observe_all);
  TestResult r = pto_exec::start_result(test, opts, obs);
  // A small program in this process for a while (engine/z3/solver_process.hpp),
  // else in a solver process, whose context is never released: the process
  // ends with _exit.
  const auto here = [&](const Budget* b) {
    EngineOptions o = opts;
    o.budget = b;
    o.expand.budget = b;
    return detail::translate_z3_errors([&] { return PtoZ3(test, o, obs).run(); });
  };
  const auto elsewhere = [&] {
    const std::string answer = detail::run_isolated(opts.budget, [&](const Budget* b) {
      EngineOptions o = opts;
      o.budget = b;
      o.expand.budget = b;
      return detail::translate_z3_errors([&] {
        auto* solver = new PtoZ3(test, o, obs);  // NOLINT: released with the process
        detail::WireOut w;
        detail::put(w, solver->run());
        return std::move(w.bytes());
      });
    });
    detail::WireIn in(answer);
    return detail::get_found(in);
  };
  detail::FoundOutcomes found = !opts.solver_process && small_for_process(*pto::program_of(test))
                                    ? detail::here_first(opts.budget, here, elsewhere)
                                    : elsewhere();
  // The notes are the explorer's (a report, not part of the cross-check);
  // a program with more paths than the explorer takes still gets its
  // outcomes here, with the static notes and a word on the rest.
  try {
    const pto_exec::Exploration e = pto_exec::explore(test, obs, opts);
    r.notes.assign(e.notes.begin(), e.notes.end());
  } catch (const InputError& too_many) {
    const std::set<std::string> n = pto_exec::static_notes(test, opts.budget);
    r.notes.assign(n.begin(), n.end());
    r.notes.push_back(std::string("notes that depend on values are left out: ") +
                      too_many.diagnostic().message);
  }
  settle_result(r, test, std::move(found));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace redscope
