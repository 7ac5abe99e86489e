#include "dialects/pto/pto_exec.hpp"
#include "redscope/dialects/pto/pto_semantics.hpp"

#include <algorithm>
#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "redscope/frontend/lexer.hpp"

namespace redscope::pto_exec {

namespace p = redscope::pto;

namespace {

std::string where(const SourceLoc& l) { return fmt::format("{}:{}", l.line, l.col); }

// "%r[3]" → ("%r", 3); "ub[5]" → ("ub", 5).
std::pair<std::string, std::size_t> split_index(const std::string& n) {
  const std::size_t br = n.find('[');
  if (br == std::string::npos) return {n, 0};
  // N is the dialect's checked index ("%r[3]"), so it is digits.
  const std::string_view digits = std::string_view(n).substr(br + 1);
  return {n.substr(0, br),
          static_cast<std::size_t>(
              detail::unsigned_integer(digits.substr(0, digits.find(']'))).value_or(0))};
}

// Whether every operation that writes `reg` in `core` is a vcmax/vcmin, so
// that its lane 1 holds an index.
bool holds_index(const p::Core& core, const std::string& reg) {
  bool any = false;
  for (const p::Op& op : core.ops) {
    if (op.dst != reg) continue;
    if (op.kind != p::OpKind::Reduce ||
        (op.reduce != p::Reduce::Max && op.reduce != p::Reduce::Min))
      return false;
    any = true;
  }
  return any && !core.init.count(reg);
}

DataType index_type(p::Elem e) {
  return p::bits_of(e) == 16 ? DataType::U16 : p::bits_of(e) == 64 ? DataType::U64 : DataType::U32;
}

void add_observable(Observed& o, const p::Program& prog, bool is_reg, std::size_t core,
                    const std::string& full) {
  const auto [name, index] = split_index(full);
  for (const Place& pl : o.places)
    if (pl.is_register == is_reg && pl.core == core && pl.name == name && pl.index == index) return;
  Observable ob;
  ob.is_register = is_reg;
  if (is_reg) {
    const p::Core& c = prog.cores[core];
    const p::Elem e = c.regs.at(name);
    ob.label = fmt::format("{}:{}", c.name, full);
    ob.reg = RegName{static_cast<ThreadId>(core), full};
    ob.type = index == 1 && holds_index(c, name) ? index_type(e) : p::data_type(e);
  } else {
    ob.label = full;
    ob.loc = full;
    ob.type = p::data_type(prog.buffer(name)->elem);
  }
  o.observables.push_back(std::move(ob));
  o.places.push_back(Place{is_reg, core, name, index});
}

}  // namespace

Observed observe(const LitmusTest& t, bool observe_all) {
  const p::Program& prog = *pto::program_of(t);
  Observed o;
  std::function<void(const CondTerm&)> term = [&](const CondTerm& c) {
    if (c.kind == CondTerm::Kind::Reg)
      add_observable(o, prog, true, static_cast<std::size_t>(c.thread), c.name);
    else if (c.kind == CondTerm::Kind::Loc)
      add_observable(o, prog, false, 0, c.name);
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      term(e.lhs);
      term(e.rhs);
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  for (const CondTerm& c : t.locations) term(c);
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  if (observe_all) {
    for (const p::Buffer& b : prog.buffers)
      for (std::size_t i = 0; i < b.size(); ++i)
        add_observable(o, prog, false, 0, fmt::format("{}[{}]", b.name, i));
    for (std::size_t c = 0; c < prog.cores.size(); ++c)
      for (const auto& [reg, e] : prog.cores[c].regs)
        for (unsigned i = 0; i < p::lanes_of(e); ++i)
          add_observable(o, prog, true, c, fmt::format("{}[{}]", reg, i));
  }
  return o;
}

TestResult start_result(const LitmusTest& t, const EngineOptions& opts, const Observed& o) {
  TestResult r;
  r.test = t.name;
  r.file = t.file;
  r.model = &p::kModel;
  r.target_sm = t.target_sm;
  r.quantifier = t.quantifier;
  r.condition_text = t.condition_text;
  r.skeletons = 1;
  r.model_file = opts.model_file;
  r.observables = o.observables;
  check_condition_literals(t, r.observables);
  return r;
}

std::vector<p::Order> orders(const EngineOptions& opts) {
  const auto o = opts.semantics_options.find(pto::kOrderOption);
  if (o != opts.semantics_options.end() && o->second == "tree") return {p::Order::Tree};
  if (o != opts.semantics_options.end() && o->second == "sequential") return {p::Order::Sequential};
  return {p::Order::Tree, p::Order::Sequential};
}

namespace {

// A group reduction whose result has not yet reached the core's later ops.
struct Pending {
  p::Lanes old;
  const p::Op* by = nullptr;
};

struct CoreState {
  std::size_t pc = 0;
  std::map<std::string, p::Lanes> regs;
  std::map<std::string, Pending> pending;
};

struct State {
  std::vector<CoreState> cores;
  std::map<std::string, p::Lanes> mem;
  std::map<std::string, std::vector<bool>> written;  // given by init or stored
  std::vector<std::string> choices;
  std::vector<std::string> interleaving;
  // The order of float sums, once a reduction's result depended on it: the
  // hardware sums every reduction of a run the same way.
  std::optional<p::Order> order;
};

class Explorer {
 public:
  Explorer(const LitmusTest& t, const Observed& o, const EngineOptions& opts)
      : t_(t),
        prog_(*pto::program_of(t)),
        obs_(o),
        opts_(opts),
        orders_(orders(opts)) {
    for (const p::Core& c : prog_.cores) multi_ += c.ops.empty() ? 0 : 1;
  }

  Exploration run() {
    State s;
    for (const p::Core& c : prog_.cores) {
      CoreState cs;
      for (const auto& [reg, e] : c.regs) {
        const auto it = c.init.find(reg);
        cs.regs[reg] = it != c.init.end() ? it->second : p::Lanes(p::lanes_of(e), 0);
      }
      s.cores.push_back(std::move(cs));
    }
    for (const p::Buffer& b : prog_.buffers) {
      s.mem[b.name] = b.init;
      s.written[b.name] = b.given;
    }
    dfs(std::move(s));
    return std::move(out_);
  }

 private:
  // Depth first over the states, on an explicit stack (a path is as long as
  // the program: up to 20,000 operations per core, too deep to recurse).
  // Children are pushed in reverse, so states are visited in the order of
  // the recursive search: the first witness of each outcome is the same.
  void dfs(State start) {
    std::vector<State> stack;
    stack.push_back(std::move(start));
    while (!stack.empty()) {
      State s = std::move(stack.back());
      stack.pop_back();
      if (opts_.budget) opts_.budget->check();
      if (++out_.paths > opts_.enum_limit)
        throw InputError(
            Diagnostic{t_.file,
                       {1, 1},
                       fmt::format("more than {} PTO execution paths: too many for the explorer "
                                   "(--engine enum); the z3 engine does not enumerate paths",
                                   opts_.enum_limit)});
      std::vector<State> next = successors(s);
      if (next.empty()) record(s);
      for (auto it = next.rbegin(); it != next.rend(); ++it) stack.push_back(std::move(*it));
    }
  }

  // The states one step after `s`, in the order they are explored.
  std::vector<State> successors(const State& s) {
    // Reductions and barriers touch only their core: run them first, in
    // core order, without trying other interleavings.
    for (std::size_t c = 0; c < s.cores.size(); ++c) {
      const auto& ops = prog_.cores[c].ops;
      if (s.cores[c].pc < ops.size() && (ops[s.cores[c].pc].kind == p::OpKind::Reduce ||
                                         ops[s.cores[c].pc].kind == p::OpKind::Barrier))
        return step(s, c);
    }
    std::vector<State> out;
    for (std::size_t c = 0; c < s.cores.size(); ++c) {
      if (s.cores[c].pc >= prog_.cores[c].ops.size()) continue;
      for (State& n : step(s, c)) out.push_back(std::move(n));
    }
    return out;
  }

  void record(const State& s) {
    std::vector<std::uint64_t> vals;
    for (const Place& pl : obs_.places)
      vals.push_back(pl.is_register ? s.cores[pl.core].regs.at(pl.name)[pl.index]
                                    : s.mem.at(pl.name)[pl.index]);
    if (out_.outcomes.count(vals)) return;
    Witness w;
    w.choices = s.choices;
    if (multi_ > 1 && !s.interleaving.empty())
      w.choices.push_back("interleaving: " + fmt::format("{}", fmt::join(s.interleaving, ", ")));
    out_.outcomes.emplace(std::move(vals), std::move(w));
  }

  // The values `core` reads from register `reg` for `op`: the new contents,
  // and the old ones too while a group reduction of `reg` is pending.
  std::vector<std::pair<State, p::Lanes>> read(const State& s, std::size_t core,
                                               const std::string& reg, const p::Op& op) {
    std::vector<std::pair<State, p::Lanes>> out;
    const CoreState& cs = s.cores[core];
    const auto it = cs.pending.find(reg);
    if (it == cs.pending.end()) {
      out.emplace_back(s, cs.regs.at(reg));
      return out;
    }
    const p::Op& by = *it->second.by;
    out_.notes.insert(fmt::format(
        "{} {}: reads {}, the result of pto.{} at {}, with no pto.barrier #pto.pipe between "
        "them: it may see {}'s old contents (both outcomes enumerated)",
        where(op.loc), op.text, reg, p::op_name(by.reduce), where(by.loc), reg));
    State old = s;
    old.choices.push_back(fmt::format("{} reads {} before pto.{} at {} completes (old contents)",
                                      where(op.loc), reg, p::op_name(by.reduce), where(by.loc)));
    out.emplace_back(std::move(old), it->second.old);
    State now = s;
    now.choices.push_back(fmt::format("{} reads {} after pto.{} at {} completed", where(op.loc),
                                      reg, p::op_name(by.reduce), where(by.loc)));
    now.cores[core].pending.erase(reg);
    out.emplace_back(std::move(now), cs.regs.at(reg));
    return out;
  }

  std::vector<State> step(const State& s, std::size_t c) {
    const p::Op& op = prog_.cores[c].ops[s.cores[c].pc];
    std::vector<State> out;
    switch (op.kind) {
      case p::OpKind::Barrier: {
        State n = s;
        n.cores[c].pending.clear();
        out.push_back(std::move(n));
        break;
      }
      case p::OpKind::Load: out.push_back(load(s, c, op)); break;
      case p::OpKind::Store:
        for (auto& [n, v] : read(s, c, op.src, op)) out.push_back(store(std::move(n), c, op, v));
        break;
      case p::OpKind::Reduce:
        for (auto& [n, v] : read(s, c, op.src, op)) reduce(std::move(n), c, op, v, out);
        break;
    }
    for (State& n : out) ++n.cores[c].pc;
    if (multi_ > 1 && (op.kind == p::OpKind::Load || op.kind == p::OpKind::Store))
      for (State& n : out)
        n.interleaving.push_back(fmt::format("{} {}", prog_.cores[c].name, where(op.loc)));
    return out;
  }

  State load(const State& s, std::size_t c, const p::Op& op) {
    State n = s;
    const p::Lanes& cells = s.mem.at(op.buffer);
    const std::vector<bool>& w = s.written.at(op.buffer);
    const unsigned lanes = p::lanes_of(op.elem);
    p::Lanes v(lanes);
    std::vector<std::size_t> unwritten;
    for (unsigned i = 0; i < lanes; ++i) {
      const std::size_t at = op.offset + (op.dist == p::Dist::Broadcast ? 0 : i);
      v[i] = cells[at];
      if (!w[at] && (unwritten.empty() || unwritten.back() != at)) unwritten.push_back(at);
    }
    if (!unwritten.empty())
      out_.notes.insert(fmt::format(
          "{} {}: reads {}[{}]{} that no pto.vsts wrote before it and the init block does not "
          "give: read as 0",
          where(op.loc), op.text, op.buffer, unwritten.front(),
          unwritten.size() > 1 ? fmt::format(" .. {}[{}]", op.buffer, unwritten.back()) : ""));
    write_register(n, c, op.dst, std::move(v));
    return n;
  }

  static void write_register(State& n, std::size_t c, const std::string& reg, p::Lanes v) {
    // A write completes a pending reduction of the same register (the pipe
    // writes its destination in order).
    n.cores[c].pending.erase(reg);
    n.cores[c].regs[reg] = std::move(v);
  }

  State store(State n, std::size_t /*c*/, const p::Op& op, const p::Lanes& v) {
    p::Lanes& cells = n.mem.at(op.buffer);
    std::vector<bool>& w = n.written.at(op.buffer);
    const unsigned lanes = op.dist == p::Dist::OnePoint ? 1 : p::lanes_of(op.elem);
    for (unsigned i = 0; i < lanes; ++i) {
      if (!p::lane_active(op.mask, op.elem, i)) continue;
      cells[op.offset + i] = v[i];
      w[op.offset + i] = true;
    }
    return n;
  }

  void reduce(State s, std::size_t c, const p::Op& op, const p::Lanes& in,
              std::vector<State>& out) {
    std::vector<std::pair<p::Order, p::Lanes>> results;
    p::ReduceNotes rn;
    for (p::Order o : orders_) {
      p::Lanes r = p::reduce(op.reduce, op.elem, in, op.mask, o, &rn);
      const bool same =
          std::any_of(results.begin(), results.end(), [&](const auto& x) { return x.second == r; });
      if (!same) results.emplace_back(o, std::move(r));
    }
    note_reduce(op, rn);
    if (results.size() > 1) note_orders(op, results[0].second, results[1].second);
    for (auto& [o, r] : results) {
      if (results.size() > 1 && s.order && *s.order != o) continue;
      State n = s;
      if (results.size() > 1) {
        n.order = o;
        n.choices.push_back(
            fmt::format("{} pto.{}: {} order", where(op.loc), p::op_name(op.reduce), to_string(o)));
      }
      const p::Lanes old = n.cores[c].regs.at(op.dst);
      write_register(n, c, op.dst, std::move(r));
      if (p::is_group(op.reduce)) n.cores[c].pending[op.dst] = Pending{old, &op};
      out.push_back(std::move(n));
    }
  }

  void note_orders(const p::Op& op, const p::Lanes& tree, const p::Lanes& seq) {
    const FloatFormat f = p::float_format(op.elem);
    for (std::size_t i = 0; i < tree.size(); ++i) {
      if (tree[i] == seq[i]) continue;
      const auto ulps = p::ulp_distance(f, tree[i], seq[i]);
      out_.notes.insert(fmt::format(
          "{} pto.{} ({}): lane {}: tree order gives {}, sequential order gives {} ({})",
          where(op.loc), p::op_name(op.reduce), p::to_string(op.elem), i, format_float(f, tree[i]),
          format_float(f, seq[i]), ulps ? fmt::format("{} ULP apart", *ulps) : "NaN involved"));
    }
  }

  void note_reduce(const p::Op& op, const p::ReduceNotes& rn) {
    const std::string at =
        fmt::format("{} pto.{} ({})", where(op.loc), p::op_name(op.reduce), p::to_string(op.elem));
    if (rn.empty_group)
      out_.notes.insert(at +
                        ": a VLane with no active lane gives 0 (the seed leaves it open; "
                        "docs/model.md)");
    if (rn.only_nan)
      out_.notes.insert(at +
                        ": every active lane is NaN: the pseudocode's start value (-inf for "
                        "max, +inf for min) stands, and the index is the first active lane's");
    if (rn.int_wrapped)
      out_.notes.insert(at +
                        ": the exact sum does not fit the element type and wraps; the seed "
                        "says narrow forms may widen the accumulation, which would differ");
  }

  const LitmusTest& t_;
  const p::Program& prog_;
  const Observed& obs_;
  const EngineOptions& opts_;
  std::vector<p::Order> orders_;
  std::size_t multi_ = 0;  // cores that run any operation
  Exploration out_;
};

}  // namespace

Exploration explore(const LitmusTest& t, const Observed& o, const EngineOptions& opts) {
  Exploration e = Explorer(t, o, opts).run();
  for (const std::string& n : static_notes(t, opts.budget)) e.notes.insert(n);
  return e;
}

TestResult run_explorer(const LitmusTest& t, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  const Observed o = observe(t, opts.observe_all);
  TestResult r = start_result(t, opts, o);
  Exploration e = explore(t, o, opts);
  r.notes.assign(e.notes.begin(), e.notes.end());
  settle_result(r, t, std::move(e.outcomes));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::set<std::string> static_notes(const LitmusTest& t, const Budget* budget) {
  const p::Program& prog = *pto::program_of(t);
  std::set<std::string> notes;
  // Cross-core accesses of the same elements, one of them a store: the
  // dialect has no cross-core synchronization, so each is a data race.
  auto span = [](const p::Op& op) {
    const std::size_t n =
        op.dist == p::Dist::Norm ? p::lanes_of(op.elem) : 1;  // Broadcast, OnePoint: one element
    return std::pair(op.offset, op.offset + n);
  };
  // Each core's vlds/vsts (the pairs compared grow with their product: the
  // budget is checked as they are).
  std::vector<std::vector<const p::Op*>> mem(prog.cores.size());
  for (std::size_t c = 0; c < prog.cores.size(); ++c)
    for (const p::Op& op : prog.cores[c].ops)
      if (op.kind == p::OpKind::Load || op.kind == p::OpKind::Store) mem[c].push_back(&op);
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < prog.cores.size(); ++a)
    for (std::size_t b = a + 1; b < prog.cores.size(); ++b)
      for (const p::Op* x : mem[a])
        for (const p::Op* y : mem[b]) {
          if (++pairs % 4096 == 0) check(budget);
          if (x->buffer != y->buffer) continue;
          if (x->kind != p::OpKind::Store && y->kind != p::OpKind::Store) continue;
          const auto [xb, xe] = span(*x);
          const auto [yb, ye] = span(*y);
          if (xe <= yb || ye <= xb) continue;
          notes.insert(fmt::format(
              "{} ({}) and {} ({}) access {} with no synchronization between {} and {}: a data "
              "race; outcomes take each instruction as one access, in every interleaving",
              where(x->loc), prog.cores[a].name, where(y->loc), prog.cores[b].name, x->buffer,
              prog.cores[a].name, prog.cores[b].name));
        }
  for (const p::Core& c : prog.cores)
    for (const p::Op& op : c.ops)
      if (op.kind == p::OpKind::Reduce && op.reduce == p::Reduce::PrefixAdd) {
        bool all = true;
        for (unsigned i = 0; i < p::lanes_of(op.elem); ++i)
          all &= p::lane_active(op.mask, op.elem, i);
        if (!all)
          notes.insert(
              fmt::format("{} pto.vcpadd ({}): inactive lanes add nothing and their "
                          "result lanes are 0 (the seed leaves it open; docs/model.md)",
                          where(op.loc), p::to_string(op.elem)));
      }
  return notes;
}

}  // namespace redscope::pto_exec
