// Expansion of a LitmusTest into skeletons (see events.hpp).
#include "redscope/events.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace redscope {
namespace {

struct PathEvent {
  Event ev;
  std::vector<std::size_t> data;  // thread-local indices of reads it data-depends on
  std::vector<std::size_t> ctrl;  // ... control-depends on
  std::optional<std::size_t> rmw_read;  // for an RMW write: its read
};

struct ThreadPath {
  std::vector<PathEvent> events;
  std::vector<ExprPtr> conds;
  std::map<std::string, ExprPtr> regs;
  std::map<std::string, DataType> reg_types;
  bool cut = false;
};

[[noreturn]] void input_error(const LitmusTest& t, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{t.file, at, std::move(msg)});
}

// Location types and state spaces must agree across the test: PTX's model
// covers accesses that overlap completely (§8.2), and `.shared::cta` memory
// is private to one CTA.
std::map<std::string, DataType> check_locations(const LitmusTest& t) {
  struct Seen { DataType type; Space space; SourceLoc at; std::optional<int> cta; };
  std::map<std::string, Seen> seen;
  for (const ThreadCode& tc : t.threads) {
    for (const Instruction& in : tc.code) {
      if (!in.addr) continue;
      const std::string& x = in.addr->name;
      auto it = seen.find(x);
      const std::optional<int> cta = in.space == Space::SharedCta ? std::optional<int>(tc.place.cta) : std::nullopt;
      if (it == seen.end()) { seen.emplace(x, Seen{in.type, in.space, in.loc, cta}); continue; }
      Seen& s = it->second;
      if (width_of(s.type) != width_of(in.type))
        input_error(t, in.loc, fmt::format("mixed-size access to '{}': .{} here, .{} at line {} (the model covers only accesses that overlap completely)",
                                           x, to_string(in.type), to_string(s.type), s.at.line));
      const bool s_shared = s.space == Space::SharedCta || s.space == Space::SharedCluster;
      const bool i_shared = in.space == Space::SharedCta || in.space == Space::SharedCluster;
      if ((s.space == Space::Global && i_shared) || (s_shared && in.space == Space::Global))
        input_error(t, in.loc, fmt::format("'{}' is accessed as .{} here but as .{} at line {}", x, to_string(in.space), to_string(s.space), s.at.line));
      if (cta && s.cta && *cta != *s.cta)
        input_error(t, in.loc, fmt::format("'{}' is .shared::cta memory of CTA {} (line {}) but is accessed from CTA {}: shared memory is private to a CTA", x, *s.cta, s.at.line, *cta));
      if (cta && !s.cta) s.cta = cta;
    }
  }
  std::map<std::string, DataType> types;
  for (const auto& [x, s] : seen) types[x] = s.type;
  for (const InitEntry& e : t.init)
    if (!e.thread && !types.count(e.name)) types[e.name] = DataType::S32;
  return types;
}

std::int64_t init_value(const LitmusTest& t, std::optional<ThreadId> th, const std::string& name) {
  for (const InitEntry& e : t.init)
    if (e.thread == th && e.name == name) return e.value;
  return 0;
}

class PathBuilder {
 public:
  PathBuilder(const LitmusTest& t, ThreadId tid, const ExpandOptions& o) : t_(t), tid_(tid), opts_(o) {}

  std::vector<ThreadPath> run() {
    State s;
    for (const InitEntry& e : t_.init)
      if (e.thread == tid_) {
        s.path.regs[e.name] = make_const(static_cast<std::uint64_t>(e.value), 32);
        s.path.reg_types[e.name] = DataType::S32;
      }
    walk(std::move(s));
    return std::move(out_);
  }

 private:
  struct State {
    ThreadPath path;
    std::size_t pc = 0;
    std::map<std::size_t, int> back_jumps;  // per jumping instruction
    std::set<std::size_t> ctrl;             // reads that later events control-depend on
  };

  const ThreadCode& code() const { return t_.threads[static_cast<std::size_t>(tid_)]; }

  void finish(State&& s) {
    if (out_.size() >= opts_.max_paths)
      input_error(t_, code().loc, fmt::format("thread {} has more than {} paths at unroll bound {}; lower --unroll", code().name, opts_.max_paths, opts_.unroll));
    out_.push_back(std::move(s.path));
  }

  ExprPtr value(State& s, const Operand& o, DataType type) {
    const unsigned w = width_of(type);
    if (o.kind == Operand::Kind::Imm) return make_const(static_cast<std::uint64_t>(o.value), w);
    auto it = s.path.regs.find(o.name);
    if (it == s.path.regs.end()) return make_const(0, w);  // unset registers read 0, as in herd
    const DataType rt = s.path.reg_types.at(o.name);
    return make_resize(it->second, w, is_signed(rt));
  }

  void set_reg(State& s, const Operand& dst, ExprPtr v, DataType type) {
    s.path.regs[dst.name] = std::move(v);
    s.path.reg_types[dst.name] = type;
  }

  PathEvent base_event(const State& s, const Instruction& in, EventKind k) {
    PathEvent pe;
    pe.ev.kind = k;
    pe.ev.thread = tid_;
    pe.ev.po_index = s.path.events.size();
    pe.ev.sem = in.sem;
    pe.ev.scope = in.scope;
    pe.ev.space = in.space;
    pe.ev.type = in.type;
    pe.ev.src = in.loc;
    pe.ev.text = in.text;
    if (in.addr) pe.ev.loc = in.addr->name;
    pe.ctrl.assign(s.ctrl.begin(), s.ctrl.end());
    return pe;
  }

  std::size_t push(State& s, PathEvent pe) {
    const std::size_t i = s.path.events.size();
    pe.ev.po_index = i;
    s.path.events.push_back(std::move(pe));
    return i;
  }

  std::vector<std::size_t> local_reads(const ExprPtr& e) const {
    std::vector<std::size_t> r;
    for (const ReadRef& ref : reads_of(e)) r.push_back(ref.index);
    return r;
  }

  // The read half carries the acquire part of .sem, the write half the
  // release part (DESIGN §2; PTX §8.3 "RMW operations").
  static Sem read_half(Sem s) { return (s == Sem::Acquire || s == Sem::AcqRel) ? Sem::Acquire : s == Sem::Weak ? Sem::Weak : Sem::Relaxed; }
  static Sem write_half(Sem s) { return (s == Sem::Release || s == Sem::AcqRel) ? Sem::Release : s == Sem::Weak ? Sem::Weak : Sem::Relaxed; }

  ExprPtr rmw_result(RmwOp op, ExprPtr old, ExprPtr v, DataType type) {
    const bool sgn = is_signed(type);
    switch (op) {
      case RmwOp::Add: return make_binary(ExprOp::Add, old, v, sgn);
      case RmwOp::Sub: return make_binary(ExprOp::Sub, old, v, sgn);
      case RmwOp::Mul: return make_binary(ExprOp::Mul, old, v, sgn);
      case RmwOp::Div: return make_binary(ExprOp::Div, old, v, sgn);
      case RmwOp::And: return make_binary(ExprOp::And, old, v, sgn);
      case RmwOp::Or: return make_binary(ExprOp::Or, old, v, sgn);
      case RmwOp::Xor: return make_binary(ExprOp::Xor, old, v, sgn);
      case RmwOp::Exch: case RmwOp::Mov: case RmwOp::Cas: return v;
    }
    return v;
  }

  void exec_rmw(State& s, const Instruction& in) {
    const unsigned w = width_of(in.type);
    PathEvent r = base_event(s, in, EventKind::Read);
    r.ev.in_rmw = true;
    r.ev.sem = read_half(in.sem);
    const std::size_t ri = s.path.events.size();
    r.ev.self = ReadRef{tid_, ri};
    push(s, std::move(r));
    const ExprPtr old = make_read(ReadRef{tid_, ri}, w);
    PathEvent wr = base_event(s, in, EventKind::Write);
    wr.ev.in_rmw = true;
    wr.ev.sem = write_half(in.sem);
    ExprPtr operand = value(s, in.srcs.at(0), in.type);
    if (in.op == RmwOp::Cas) {
      // A failed compare-and-swap performs no write (it is a read only).
      wr.ev.guard = make_cmp(CmpOp::Eq, old, operand, false);
      operand = value(s, in.srcs.at(1), in.type);
    }
    wr.ev.value = rmw_result(in.op, old, operand, in.type);
    wr.data = local_reads(wr.ev.value);
    wr.rmw_read = ri;
    if (wr.ev.guard) for (std::size_t d : local_reads(wr.ev.guard)) wr.ctrl.push_back(d);
    push(s, std::move(wr));
    if (in.dst) set_reg(s, *in.dst, old, in.type);
  }

  void exec_local(State& s, const Instruction& in) {
    ExprPtr a = value(s, in.srcs.at(0), in.type);
    ExprPtr v = a;
    if (in.op != RmwOp::Mov) v = rmw_result(in.op, a, value(s, in.srcs.at(1), in.type), in.type);
    set_reg(s, *in.dst, v, in.type);
  }

  // Executes straight-line code from s.pc, forking at data-dependent branches.
  void walk(State s) {
    const auto& instrs = code().code;
    while (s.pc < instrs.size()) {
      const Instruction& in = instrs[s.pc];
      switch (in.kind) {
        case InstrKind::Label: break;
        case InstrKind::Load: {
          PathEvent r = base_event(s, in, EventKind::Read);
          const std::size_t ri = s.path.events.size();
          r.ev.self = ReadRef{tid_, ri};
          push(s, std::move(r));
          set_reg(s, *in.dst, make_read(ReadRef{tid_, ri}, width_of(in.type)), in.type);
          break;
        }
        case InstrKind::Store: {
          PathEvent wr = base_event(s, in, EventKind::Write);
          wr.ev.value = value(s, in.srcs.at(0), in.type);
          wr.data = local_reads(wr.ev.value);
          push(s, std::move(wr));
          break;
        }
        case InstrKind::Atom: case InstrKind::Red: exec_rmw(s, in); break;
        case InstrKind::Fence: push(s, base_event(s, in, EventKind::Fence)); break;
        case InstrKind::Barrier: {
          PathEvent b = base_event(s, in, EventKind::Barrier);
          b.ev.barrier_arrive_only = in.barrier.arrive_only;
          b.ev.barrier_id = in.barrier.id.value;
          if (in.barrier.logical_id) {
            b.ev.barrier_logical = value(s, *in.barrier.logical_id, DataType::S32);
            b.data = local_reads(b.ev.barrier_logical);
          }
          b.ev.quorum = in.barrier.quorum;
          push(s, std::move(b));
          break;
        }
        case InstrKind::Local: exec_local(s, in); break;
        case InstrKind::Goto:
          if (!jump(s, in)) return;
          continue;
        case InstrKind::Branch: {
          const ExprPtr cond = make_cmp(in.cmp, value(s, in.srcs.at(0), in.type), value(s, in.srcs.at(1), in.type), is_signed(in.type));
          if (auto c = const_value(cond)) {
            if (*c) { if (!jump(s, in)) return; continue; }
            break;
          }
          for (std::size_t d : local_reads(cond)) s.ctrl.insert(d);
          State taken = s;
          taken.path.conds.push_back(cond);
          if (jump(taken, in)) walk(std::move(taken));
          s.path.conds.push_back(make_not(cond));
          break;
        }
      }
      ++s.pc;
    }
    finish(std::move(s));
  }

  // Moves pc to the label; false when the unroll bound cuts the path here.
  bool jump(State& s, const Instruction& in) {
    const std::size_t target = code().labels.at(in.label);
    if (target <= s.pc && ++s.back_jumps[s.pc] > opts_.unroll) {
      s.path.cut = true;
      finish(std::move(s));
      return false;
    }
    s.pc = target;
    return true;
  }

  const LitmusTest& t_;
  ThreadId tid_;
  const ExpandOptions& opts_;
  std::vector<ThreadPath> out_;
};

void add_edge(EventGraph& g, EventId a, EventId b, EdgeKind k) { boost::add_edge(a, b, EdgeProps{k}, g); }

Skeleton build(const LitmusTest& t, const std::map<std::string, DataType>& loc_types,
               const std::vector<const ThreadPath*>& paths, const std::vector<std::size_t>& ids) {
  Skeleton s;
  s.loc_types = loc_types;
  s.path_ids = ids;
  for (const ThreadCode& tc : t.threads) s.placement.push_back(tc.place);
  for (const auto& [x, ty] : loc_types) {
    Event e;
    e.kind = EventKind::Write;
    e.is_init = true;
    e.loc = x;
    e.type = ty;
    e.value = make_const(static_cast<std::uint64_t>(init_value(t, std::nullopt, x)), width_of(ty));
    e.text = fmt::format("init {}", x);
    s.init_write[x] = boost::add_vertex(e, s.graph);
  }
  for (std::size_t ti = 0; ti < paths.size(); ++ti) {
    const ThreadPath& p = *paths[ti];
    const EventId base = boost::num_vertices(s.graph);
    s.thread_base.push_back(base);
    for (const PathEvent& pe : p.events) boost::add_vertex(pe.ev, s.graph);
    for (std::size_t i = 0; i < p.events.size(); ++i) {
      const PathEvent& pe = p.events[i];
      if (i > 0) add_edge(s.graph, base + i - 1, base + i, EdgeKind::Po);
      if (pe.rmw_read) add_edge(s.graph, base + *pe.rmw_read, base + i, EdgeKind::Rmw);
      for (std::size_t d : pe.data) add_edge(s.graph, base + d, base + i, EdgeKind::Data);
      for (std::size_t d : pe.ctrl) add_edge(s.graph, base + d, base + i, EdgeKind::Ctrl);
    }
    s.assumptions.insert(s.assumptions.end(), p.conds.begin(), p.conds.end());
    for (const auto& [r, v] : p.regs) {
      s.final_regs[RegName{static_cast<ThreadId>(ti), r}] = v;
      s.reg_types[RegName{static_cast<ThreadId>(ti), r}] = p.reg_types.at(r);
    }
    s.cut = s.cut || p.cut;
  }
  return s;
}

}  // namespace

Expansion expand(const LitmusTest& t, const ExpandOptions& opts) {
  const std::map<std::string, DataType> loc_types = check_locations(t);
  std::vector<std::vector<ThreadPath>> per_thread;
  std::size_t total = 1;
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    per_thread.push_back(PathBuilder(t, static_cast<ThreadId>(i), opts).run());
    total *= per_thread.back().size();
    if (total > opts.max_paths)
      input_error(t, t.threads[i].loc, fmt::format("more than {} path combinations at unroll bound {}; lower --unroll", opts.max_paths, opts.unroll));
  }
  Expansion out;
  std::vector<std::size_t> idx(per_thread.size(), 0);
  for (;;) {
    std::vector<const ThreadPath*> paths;
    for (std::size_t i = 0; i < per_thread.size(); ++i) paths.push_back(&per_thread[i][idx[i]]);
    out.skeletons.push_back(build(t, loc_types, paths, idx));
    std::size_t k = 0;
    while (k < idx.size() && ++idx[k] == per_thread[k].size()) { idx[k] = 0; ++k; }
    if (k == idx.size()) break;
  }
  return out;
}

BoolMatrix po_closure(const Skeleton& s) {
  const std::size_t n = s.size();
  BoolMatrix m(n, std::vector<bool>(n, false));
  for (EventId a = 0; a < n; ++a)
    for (EventId b = 0; b < n; ++b) {
      const Event& x = s.ev(a);
      const Event& y = s.ev(b);
      m[a][b] = x.thread != kInitThread && x.thread == y.thread && x.po_index < y.po_index;
    }
  return m;
}

BoolMatrix edge_matrix(const Skeleton& s, EdgeKind kind) {
  const std::size_t n = s.size();
  BoolMatrix m(n, std::vector<bool>(n, false));
  for (auto [it, end] = boost::edges(s.graph); it != end; ++it)
    if (s.graph[*it].kind == kind) m[boost::source(*it, s.graph)][boost::target(*it, s.graph)] = true;
  return m;
}

}  // namespace redscope
