// Expansion of a LitmusTest into skeletons (see events.hpp).
#include "redscope/events/events.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "events/aliases.hpp"
#include "events/input_error.hpp"
#include "events/memory_layout.hpp"
#include "events/multimem.hpp"
#include "events/surfaces.hpp"

namespace redscope {
namespace {

struct PathEvent {
  Event ev;
  std::vector<std::size_t> data;        // thread-local indices of reads it data-depends on
  std::vector<std::size_t> ctrl;        // ... control-depends on
  std::optional<std::size_t> rmw_read;  // for an RMW write: its read
};

struct ThreadPath {
  std::vector<PathEvent> events;
  std::vector<ExprPtr> conds;
  std::map<std::string, ExprPtr> regs;
  std::map<std::string, DataType> reg_types;
  bool cut = false;
};

using detail::CellAccess;
using detail::MemoryLayout;

using detail::input_error;

class PathBuilder {
 public:
  // `inits`: the thread's initialised registers (the init block, split by
  // thread once: a scan of it per thread was quadratic).
  PathBuilder(const LitmusTest& t, const MemoryLayout& m, ThreadId tid, const ExpandOptions& o,
              const std::vector<std::string>& undefined_reasons,
              std::map<std::string, Literal> inits)
      : t_(t),
        mem_(m),
        tid_(tid),
        opts_(o),
        undefined_reasons_(undefined_reasons),
        inits_(std::move(inits)) {}

  std::vector<ThreadPath> run() {
    State s;
    s.pending = std::move(inits_);
    walk(std::move(s));
    return std::move(out_);
  }

 private:
  struct State {
    ThreadPath path;
    std::size_t pc = 0;
    std::size_t instr = 0;                   // executed instructions so far
    std::map<std::size_t, int> back_jumps;   // per jumping instruction
    std::set<std::size_t> ctrl;              // reads that later events control-depend on
    std::map<std::string, Literal> pending;  // initialised registers not yet read or written
    // Bulk async-groups: events of bulk reductions not yet committed, and the
    // committed groups not yet waited for (oldest first).
    std::vector<std::size_t> uncommitted;
    std::vector<std::vector<std::size_t>> groups;
  };

  const ThreadCode& code() const { return t_.threads[static_cast<std::size_t>(tid_)]; }

  void finish(State&& s) {
    if (out_.size() >= opts_.max_paths)
      input_error(t_, code().loc,
                  fmt::format("thread {} has more than {} paths at unroll bound {}; lower --unroll",
                              code().name, opts_.max_paths, opts_.unroll));
    // Registers only initialised end with their initial value (an integer, or
    // an .f64 when the literal is a float).
    const std::map<std::string, Literal> pending = std::move(s.pending);
    s.pending.clear();
    for (const auto& [r, lit] : pending) {
      const auto as_int = literal_bits(lit.text, DataType::S64);
      const DataType ty = as_int ? DataType::S32 : DataType::F64;
      set_reg(s, Operand{Operand::Kind::Reg, r, 0, 0, lit.loc, {}},
              make_const(initial_bits(lit, ty), width_of(ty)), ty);
    }
    out_.push_back(std::move(s.path));
  }

  std::uint64_t initial_bits(const Literal& lit, DataType type) const {
    if (type == DataType::S32 || type == DataType::U32 || type == DataType::B32)
      if (auto wide = literal_bits(lit.text, DataType::S64))
        return *wide;  // herd: wrap to the width
    const auto bits = literal_bits(lit.text, type);
    if (!bits)
      input_error(
          t_, lit.loc,
          fmt::format("initial value '{}' is not a value of type .{}, the type it is read at",
                      lit.text, to_string(type)));
    return *bits;
  }

  // A register's value at `type`: an initial literal takes its bits at the
  // type it is first read at; unset registers read 0, as in herd.
  ExprPtr value(State& s, const Operand& o, DataType type) {
    const unsigned w = width_of(type);
    if (o.kind == Operand::Kind::Imm) return make_const(static_cast<std::uint64_t>(o.value), w);
    if (auto p = s.pending.find(o.name); p != s.pending.end()) {
      const Literal lit = p->second;
      s.pending.erase(p);
      set_reg(s, o, make_const(initial_bits(lit, type), w), type);
    }
    auto it = s.path.regs.find(o.name);
    if (it == s.path.regs.end()) return make_const(0, w);
    const DataType rt = s.path.reg_types.at(o.name);
    return make_resize(it->second, w, is_signed(rt));
  }

  void set_reg(State& s, const Operand& dst, ExprPtr v, DataType type) {
    // Every expression the path builds derives from register values, so
    // bounding them bounds the recursion of every walker (expr.hpp).
    if (v->depth > kMaxExprDepth)
      input_error(t_, dst.loc,
                  fmt::format("the value of {} is computed by a chain of more than {} dependent "
                              "operations; redscope bounds expression depth",
                              dst.name, kMaxExprDepth));
    s.pending.erase(dst.name);
    s.path.regs[dst.name] = std::move(v);
    s.path.reg_types[dst.name] = type;
  }

  // Writes a register under the instruction's guard: unchanged when it does not execute.
  void set_reg_guarded(State& s, const Operand& dst, ExprPtr v, DataType type,
                       const ExprPtr& guard) {
    if (guard) v = make_ite(guard, v, value(s, dst, type));
    set_reg(s, dst, std::move(v), type);
  }

  // The predicate of `@p` / `@!p`, or null.
  ExprPtr guard_of(State& s, const Instruction& in) {
    if (!in.guard) return nullptr;
    const ExprPtr p = value(s, *in.guard, DataType::Pred);
    return in.guard_negated ? make_not(make_cmp(CmpOp::Ne, p, make_const(0, 1), false))
                            : make_cmp(CmpOp::Ne, p, make_const(0, 1), false);
  }

  PathEvent base_event(const State& s, const Instruction& in, EventKind k, const ExprPtr& guard) {
    PathEvent pe;
    pe.ev.kind = k;
    pe.ev.thread = tid_;
    pe.ev.po_index = s.path.events.size();
    pe.ev.instr = s.instr;
    pe.ev.sem = in.sem;
    pe.ev.scope = in.scope;
    pe.ev.source = in.source;
    pe.ev.space = in.space;
    pe.ev.proxy = in.proxy;
    pe.ev.type = in.type;
    pe.ev.src = in.loc;
    pe.ev.text = in.text;
    pe.ev.guard = guard;
    if (in.addr) pe.ev.loc = in.addr->name;
    pe.ctrl.assign(s.ctrl.begin(), s.ctrl.end());
    if (guard)
      for (std::size_t d : local_reads(guard)) pe.ctrl.push_back(d);
    return pe;
  }

  PathEvent cell_event(const State& s, const Instruction& in, EventKind k, const CellAccess& c,
                       const ExprPtr& guard) {
    PathEvent pe = base_event(s, in, k, guard);
    pe.ev.loc = c.cell;
    // An alias reaches the same cell by another virtual address: the cell's
    // name with the alias's base ("y[1]" for v[1] through y).
    pe.ev.vloc = !in.addr || in.addr->vname.empty()
                     ? c.cell
                     : in.addr->vname + c.cell.substr(in.addr->name.size());
    pe.ev.type = c.type;
    pe.ev.element = c.element * 8 + c.lane;
    if (in.space == Space::Generic && in.addr) pe.ev.space = mem_.space_of(in.addr->name);
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
  static Sem read_half(Sem s) {
    return (s == Sem::Acquire || s == Sem::AcqRel) ? Sem::Acquire
           : s == Sem::Weak                        ? Sem::Weak
                                                   : Sem::Relaxed;
  }
  static Sem write_half(Sem s) {
    return (s == Sem::Release || s == Sem::AcqRel) ? Sem::Release
           : s == Sem::Weak                        ? Sem::Weak
                                                   : Sem::Relaxed;
  }

  // The new value of one lane (seed "Semantics": *a = operation(*a, b)).
  // .add.f32 on global memory flushes subnormals; on shared memory, and for
  // f16/bf16 (.noftz) and f64, it keeps them.
  ExprPtr rmw_result(RmwOp op, ExprPtr old, ExprPtr v, DataType lane, Space space) {
    const bool sgn = is_signed(lane);
    if (auto f = float_format(lane)) {
      const bool ftz = lane == DataType::F32 && space == Space::Global;
      if (op == RmwOp::Min) return make_float(ExprOp::FMin, *f, false, old, v);
      if (op == RmwOp::Max) return make_float(ExprOp::FMax, *f, false, old, v);
      if (op == RmwOp::Add) return make_float(ExprOp::FAdd, *f, ftz, old, v);
      return v;  // exch / cas / mov move bits
    }
    switch (op) {
      case RmwOp::Add:
      case RmwOp::AddUnless: return make_binary(ExprOp::Add, old, v, sgn);
      case RmwOp::Sub: return make_binary(ExprOp::Sub, old, v, sgn);
      case RmwOp::Mul: return make_binary(ExprOp::Mul, old, v, sgn);
      case RmwOp::Div: return make_binary(ExprOp::Div, old, v, sgn);
      case RmwOp::And: return make_binary(ExprOp::And, old, v, sgn);
      case RmwOp::Or: return make_binary(ExprOp::Or, old, v, sgn);
      case RmwOp::Xor: return make_binary(ExprOp::Xor, old, v, sgn);
      case RmwOp::Inc: return make_binary(ExprOp::Inc, old, v, false);
      case RmwOp::Dec: return make_binary(ExprOp::Dec, old, v, false);
      case RmwOp::Min: return make_binary(ExprOp::Min, old, v, sgn);
      case RmwOp::Max: return make_binary(ExprOp::Max, old, v, sgn);
      case RmwOp::Exch:
      case RmwOp::Mov:
      case RmwOp::Cas: return v;
    }
    return v;
  }

  // Joins per-cell values into one element value (lane 0 in the low bits).
  static ExprPtr join(const std::vector<ExprPtr>& lanes) {
    ExprPtr v = lanes.front();
    for (std::size_t i = 1; i < lanes.size(); ++i) v = make_concat(lanes[i], v);
    return v;
  }

  std::vector<Operand> destinations(const Instruction& in) const {
    if (in.dst) return {*in.dst};
    return in.dsts;
  }

  // ld: one read per cell; each destination gets its element.
  void exec_load(State& s, const Instruction& in) {
    const ExprPtr guard = guard_of(s, in);
    std::vector<std::vector<ExprPtr>> elems(in.vec);
    for (const CellAccess& c : mem_.cells(in)) {
      PathEvent r = cell_event(s, in, EventKind::Read, c, guard);
      const std::size_t ri = s.path.events.size();
      r.ev.self = ReadRef{tid_, ri};
      push(s, std::move(r));
      elems[c.element].push_back(make_read(ReadRef{tid_, ri}, width_of(c.type)));
    }
    const std::vector<Operand> dst = destinations(in);
    for (unsigned e = 0; e < in.vec; ++e)
      set_reg_guarded(s, dst[e], join(elems[e]), in.type, guard);
  }

  // st: one write per cell of the stored elements.
  void exec_store(State& s, const Instruction& in) {
    const ExprPtr guard = guard_of(s, in);
    for (const CellAccess& c : mem_.cells(in)) {
      PathEvent wr = cell_event(s, in, EventKind::Write, c, guard);
      wr.ev.value =
          make_extract(value(s, in.srcs.at(c.element), in.type), c.bit_offset, width_of(c.type));
      wr.data = local_reads(wr.ev.value);
      push(s, std::move(wr));
    }
  }

  // atom/red: per cell, a read and a write joined by rmw (seed: atomicity
  // holds per scalar element only). A failed cas performs no write.
  void exec_rmw(State& s, const Instruction& in) {
    const ExprPtr guard = guard_of(s, in);
    std::vector<std::vector<ExprPtr>> olds(in.vec);
    for (const CellAccess& c : mem_.cells(in)) {
      const unsigned w = width_of(c.type);
      PathEvent r = cell_event(s, in, EventKind::Read, c, guard);
      r.ev.in_rmw = true;
      r.ev.sem = read_half(in.sem);
      const std::size_t ri = s.path.events.size();
      r.ev.self = ReadRef{tid_, ri};
      push(s, std::move(r));
      const ExprPtr old = make_read(ReadRef{tid_, ri}, w);
      olds[c.element].push_back(old);
      PathEvent wr = cell_event(s, in, EventKind::Write, c, guard);
      wr.ev.in_rmw = true;
      wr.ev.sem = write_half(in.sem);
      ExprPtr operand = make_extract(value(s, in.srcs.at(c.element), in.type), c.bit_offset, w);
      if (in.op == RmwOp::Cas) {
        const ExprPtr ok = make_cmp(CmpOp::Eq, old, operand, false);
        wr.ev.guard = guard ? make_ite(guard, ok, make_const(0, 1)) : ok;
        operand = make_extract(value(s, in.srcs.at(1), in.type), c.bit_offset, w);
      } else if (in.op == RmwOp::AddUnless) {
        const ExprPtr unless = make_extract(value(s, in.srcs.at(1), in.type), c.bit_offset, w);
        const ExprPtr ok = make_cmp(CmpOp::Ne, old, unless, false);
        wr.ev.guard = guard ? make_ite(guard, ok, make_const(0, 1)) : ok;
      }
      wr.ev.value = rmw_result(in.op, old, operand, c.type, wr.ev.space);
      wr.data = local_reads(wr.ev.value);
      wr.rmw_read = ri;
      if (wr.ev.guard)
        for (std::size_t d : local_reads(wr.ev.guard)) wr.ctrl.push_back(d);
      push(s, std::move(wr));
    }
    const std::vector<Operand> dst = destinations(in);
    for (unsigned e = 0; e < dst.size(); ++e)
      set_reg_guarded(s, dst[e], join(olds[e]), in.type, guard);
  }

  void exec_local(State& s, const Instruction& in) {
    ExprPtr a = value(s, in.srcs.at(0), in.type);
    ExprPtr v = a;
    if (in.op != RmwOp::Mov)
      v = rmw_result(in.op, a, value(s, in.srcs.at(1), in.type), in.type, Space::Generic);
    set_reg_guarded(s, *in.dst, v, in.type, guard_of(s, in));
  }

  // setp: integer comparisons in the type's signedness, float ones ordered.
  void exec_setp(State& s, const Instruction& in) {
    const ExprPtr a = value(s, in.srcs.at(0), in.type), b = value(s, in.srcs.at(1), in.type);
    const auto f = float_format(in.type);
    const ExprPtr c = f ? make_fcmp(in.cmp, *f, a, b) : make_cmp(in.cmp, a, b, is_signed(in.type));
    set_reg_guarded(s, *in.dst, c, DataType::Pred, guard_of(s, in));
  }

  void exec_barrier(State& s, const Instruction& in) {
    PathEvent b = base_event(s, in, EventKind::Barrier, nullptr);
    b.ev.barrier_arrive_only = in.barrier.arrive_only;
    b.ev.barrier_id = in.barrier.id.value;
    if (in.barrier.logical_id) {
      b.ev.barrier_logical = value(s, *in.barrier.logical_id, DataType::S32);
      b.data = local_reads(b.ev.barrier_logical);
    }
    b.ev.quorum = in.barrier.quorum;
    push(s, std::move(b));
  }

  // multimem.cp.reduce.async.bulk: per element one weak load of the source
  // and, per replica, one .relaxed.sys reduction of the replica's element
  // with the loaded value (the seed). Both in the async proxy: the PTX ISA
  // performs cp{.reduce}.async.bulk operations there, and only their
  // completion is followed by an implicit generic-async proxy fence (the
  // wait's, exec_wait; docs/model.md "Bulk reductions"). All in one
  // instruction, so elements and replicas are unordered with each other;
  // asynchronous, so later instructions follow them only after a wait
  // (exec_wait, po_before). Size 0 makes no events.
  void exec_bulk(State& s, const Instruction& in) {
    const BulkSpec& b = *in.bulk;
    const ExprPtr guard = guard_of(s, in);
    const unsigned w = width_of(in.type);
    const auto n = static_cast<std::size_t>(b.size) / (w / 8);
    auto access = [&](const std::string& name, std::int64_t offset, Space space) {
      Instruction one;
      one.kind = InstrKind::Load;
      one.type = in.type;
      one.space = space;
      one.addr = Operand{Operand::Kind::Loc, name, 0, offset, b.src.loc, {}};
      return mem_.cells(one).front();
    };
    for (std::size_t i = 0; i < n; ++i) {
      const auto off = static_cast<std::int64_t>(i * (w / 8));
      PathEvent r = cell_event(s, in, EventKind::Read,
                               access(b.src.name, b.src.offset + off, Space::SharedCta), guard);
      r.ev.sem = Sem::Weak;
      r.ev.scope = Scope::Sys;
      r.ev.proxy = Proxy::Async;
      r.ev.space = Space::SharedCta;
      r.ev.element = static_cast<unsigned>(i * (b.replicas.size() + 1));
      r.ev.async_until = SIZE_MAX;
      const std::size_t ri = s.path.events.size();
      r.ev.self = ReadRef{tid_, ri};
      push(s, std::move(r));
      s.uncommitted.push_back(ri);
      const ExprPtr src = make_read(ReadRef{tid_, ri}, w);
      for (std::size_t g = 0; g < b.replicas.size(); ++g) {
        const CellAccess c = access(b.replicas[g], b.dst.offset + off, Space::Global);
        const auto element = static_cast<unsigned>(i * (b.replicas.size() + 1) + g + 1);
        // Both halves: an async-proxy .global RMW element, not yet waited for.
        auto half = [&](EventKind k) {
          PathEvent h = cell_event(s, in, k, c, guard);
          h.ev.in_rmw = true;
          h.ev.proxy = Proxy::Async;
          h.ev.space = Space::Global;
          h.ev.element = element;
          h.ev.async_until = SIZE_MAX;
          return h;
        };
        PathEvent rd = half(EventKind::Read);
        const std::size_t oi = s.path.events.size();
        rd.ev.self = ReadRef{tid_, oi};
        push(s, std::move(rd));
        PathEvent wr = half(EventKind::Write);
        wr.ev.value =
            rmw_result(in.op, make_read(ReadRef{tid_, oi}, w), src, in.type, Space::Global);
        wr.data = local_reads(wr.ev.value);
        wr.rmw_read = oi;
        const std::size_t wi = s.path.events.size();
        push(s, std::move(wr));
        s.uncommitted.push_back(oi);
        s.uncommitted.push_back(wi);
      }
    }
  }

  // cp.async.bulk.wait_group{.read} N: every committed group but the N most
  // recent is complete (.read: its source reads only); the thread's later
  // instructions follow what completed.
  void exec_wait(State& s, const Instruction& in) {
    const auto keep = static_cast<std::size_t>(in.bulk->wait);
    if (s.groups.size() <= keep) return;
    const std::size_t done = s.groups.size() - keep;
    for (std::size_t g = 0; g < done; ++g)
      for (std::size_t e : s.groups[g]) {
        Event& ev = s.path.events[e].ev;
        if (in.bulk->read_only && ev.in_rmw) continue;
        if (ev.async_until == SIZE_MAX) ev.async_until = s.instr;
      }
    if (!in.bulk->read_only) s.groups.erase(s.groups.begin(), s.groups.begin() + done);
    // Completion crosses the proxy boundary: what the thread does next sees
    // the completed async operations as generic ones (docs/model.md
    // "Bulk reductions"), as after a fence.proxy.async.
    PathEvent f = base_event(s, in, EventKind::Fence, guard_of(s, in));
    f.ev.proxy_fence = ProxyFence::Async;
    push(s, std::move(f));
  }

  // A sured that reaches no sample: .zero drops it; .trap out of bounds and
  // a misaligned address end the execution, recorded in the thread's
  // status register (kStatusRegister: kStatusTrap, or kStatusUndefined + k
  // for the test's k-th reason). True when it ends the execution for sure.
  bool exec_sured_outside(State& s, const Instruction& in) {
    const SuredSpec& sp = *in.sured;
    if (sp.effect == SuredEffect::Drop) return false;
    std::uint64_t code = kStatusTrap;
    if (sp.effect == SuredEffect::Undefined) {
      const auto& reasons = undefined_reasons_;
      const auto it = std::find(reasons.begin(), reasons.end(), sp.reason);
      code = kStatusUndefined + static_cast<std::uint64_t>(it - reasons.begin());
    }
    const ExprPtr guard = guard_of(s, in);
    const Operand status{Operand::Kind::Reg, kStatusRegister, 0, 0, in.loc, {}};
    set_reg_guarded(s, status, make_const(code, 32), DataType::U32, guard);
    return guard == nullptr;
  }

  // Executes straight-line code from s.pc, forking at data-dependent branches.
  void walk(State s) {
    const auto& instrs = code().code;
    while (s.pc < instrs.size()) {
      if (s.instr % 1024 == 0) check(opts_.budget);
      const Instruction& in = instrs[s.pc];
      ++s.instr;
      switch (in.kind) {
        case InstrKind::Label: break;
        case InstrKind::Load: exec_load(s, in); break;
        case InstrKind::Store: exec_store(s, in); break;
        case InstrKind::Atom:
        case InstrKind::Red:
          if (in.sured && in.sured->effect != SuredEffect::Access) {
            if (exec_sured_outside(s, in)) s.pc = instrs.size() - 1;  // the execution ends
            break;
          }
          exec_rmw(s, in);
          break;
        case InstrKind::Fence: push(s, base_event(s, in, EventKind::Fence, guard_of(s, in))); break;
        case InstrKind::BulkReduce: exec_bulk(s, in); break;
        case InstrKind::BulkCommit:
          s.groups.push_back(std::move(s.uncommitted));
          s.uncommitted.clear();
          break;
        case InstrKind::BulkWait: exec_wait(s, in); break;
        case InstrKind::ProxyFence: {
          PathEvent pe = base_event(s, in, EventKind::Fence, guard_of(s, in));
          pe.ev.proxy_fence = in.fenced;
          pe.ev.proxy_fence_space = in.fence_space;
          push(s, std::move(pe));
          break;
        }
        case InstrKind::Barrier: exec_barrier(s, in); break;
        case InstrKind::Local: exec_local(s, in); break;
        case InstrKind::Setp: exec_setp(s, in); break;
        case InstrKind::Goto:
        case InstrKind::Branch: {
          const ExprPtr cond = in.kind == InstrKind::Goto
                                   ? (in.guard ? guard_of(s, in) : make_const(1, 1))
                                   : make_cmp(in.cmp, value(s, in.srcs.at(0), in.type),
                                              value(s, in.srcs.at(1), in.type), is_signed(in.type));
          const Step st = branch(s, in, cond);
          if (st == Step::Ended) return;
          if (st == Step::Jumped) continue;
          break;
        }
      }
      ++s.pc;
    }
    finish(std::move(s));
  }

  enum class Step { FallThrough, Jumped, Ended };

  // A branch on `cond`: constant conditions jump or fall through; others
  // fork, the taken copy walking on its own.
  Step branch(State& s, const Instruction& in, const ExprPtr& cond) {
    if (auto c = const_value(cond)) {
      if (!*c) return Step::FallThrough;
      return jump(s, in) ? Step::Jumped : Step::Ended;
    }
    for (std::size_t d : local_reads(cond)) s.ctrl.insert(d);
    State taken = s;
    taken.path.conds.push_back(cond);
    if (jump(taken, in)) walk(std::move(taken));
    s.path.conds.push_back(make_not(cond));
    return Step::FallThrough;
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
  const MemoryLayout& mem_;
  ThreadId tid_;
  const ExpandOptions& opts_;
  const std::vector<std::string>& undefined_reasons_;  // numbering the status codes
  std::map<std::string, Literal> inits_;
  std::vector<ThreadPath> out_;
};

void add_edge(EventGraph& g, EventId a, EventId b, EdgeKind k) {
  boost::add_edge(a, b, EdgeProps{k}, g);
}

// po within one thread: by instruction; inside one instruction only an RMW
// element's read precedes its write (see po_closure).
bool po_before(const Event& x, const Event& y) {
  if (x.thread == kInitThread || x.thread != y.thread || x.po_index >= y.po_index) return false;
  if (x.async_until && x.instr != y.instr) return y.instr >= *x.async_until;
  if (x.instr != y.instr) return true;
  return x.element == y.element && x.in_rmw && y.in_rmw;
}

void add_po_edges(Skeleton& s, EventId base, std::size_t n, const Budget* budget) {
  // Immediate po: each event to the events of the next instruction (or its RMW write).
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 256 == 0) check(budget);
    const Event& x = s.ev(base + i);
    std::optional<std::size_t> next_instr;
    for (std::size_t j = i + 1; j < n; ++j) {
      const Event& y = s.ev(base + j);
      if (y.instr == x.instr) {
        if (po_before(x, y)) add_edge(s.graph, base + i, base + j, EdgeKind::Po);
        continue;
      }
      if (next_instr && y.instr != *next_instr) break;
      next_instr = y.instr;
      if (x.in_rmw && x.is_read()) continue;  // its write carries the po edge onwards
      add_edge(s.graph, base + i, base + j, EdgeKind::Po);
    }
  }
}

// The threads' status registers as one: the first thread's non-zero status.
void fold_status(Skeleton& s) {
  ExprPtr folded;
  for (auto it = s.final_regs.rbegin(); it != s.final_regs.rend(); ++it) {
    if (it->first.name != kStatusRegister) continue;
    const ExprPtr& v = it->second;
    folded = folded ? make_ite(make_cmp(CmpOp::Ne, v, make_const(0, 32), false), v, folded) : v;
  }
  if (!folded) return;
  std::erase_if(s.final_regs, [](const auto& kv) { return kv.first.name == kStatusRegister; });
  std::erase_if(s.reg_types, [](const auto& kv) { return kv.first.name == kStatusRegister; });
  s.final_regs[RegName{kStatusThread, kStatusRegister}] = folded;
  s.reg_types[RegName{kStatusThread, kStatusRegister}] = DataType::U32;
}

Skeleton build(const LitmusTest& t, const MemoryLayout& mem,
               const std::vector<const ThreadPath*>& paths, const std::vector<std::size_t>& ids,
               const Budget* budget) {
  Skeleton s;
  s.path_ids = ids;
  for (const ThreadCode& tc : t.threads) s.placement.push_back(tc.place);
  for (const auto& [x, l] : mem.locations())
    for (std::size_t i = 0; i < l.count; ++i) {
      Event e;
      e.kind = EventKind::Write;
      e.is_init = true;
      e.loc = detail::cell_name(x, l, i);
      e.vloc = e.loc;
      e.type = l.cell;
      e.space = l.space;
      e.value = make_const(l.init[i], width_of(l.cell));
      e.text = fmt::format("init {}", e.loc);
      s.loc_types[e.loc] = l.cell;
      s.loc_spaces[e.loc] = l.space;
      s.init_write[e.loc] = boost::add_vertex(e, s.graph);
    }
  for (std::size_t ti = 0; ti < paths.size(); ++ti) {
    if (ti % 256 == 0) check(budget);
    const ThreadPath& p = *paths[ti];
    const EventId base = boost::num_vertices(s.graph);
    s.thread_base.push_back(base);
    for (const PathEvent& pe : p.events) boost::add_vertex(pe.ev, s.graph);
    add_po_edges(s, base, p.events.size(), budget);
    for (std::size_t i = 0; i < p.events.size(); ++i) {
      const PathEvent& pe = p.events[i];
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
  for (EventId e = 0; e < s.size(); ++e) {
    const Event& x = s.ev(e);
    if (x.is_memory() && !x.is_init && x.space == Space::SharedCta)
      s.shared_owner.emplace(x.loc, s.placement[static_cast<std::size_t>(x.thread)]);
  }
  fold_status(s);
  return s;
}

}  // namespace

std::vector<std::string> undefined_reasons(const LitmusTest& t) {
  std::vector<std::string> out;
  std::set<std::string> seen;  // a scan of `out` per sured was quadratic
  for (const ThreadCode& tc : t.threads)
    for (const Instruction& in : tc.code)
      if (in.sured && in.sured->effect == SuredEffect::Undefined &&
          seen.insert(in.sured->reason).second)
        out.push_back(in.sured->reason);
  return out;
}

Expansion expand(const LitmusTest& test, const ExpandOptions& opts) {
  // Each step is n log n in the test; the budget is checked between them and
  // per thread and skeleton below (issue 28).
  const Budget* budget = opts.budget;
  LitmusTest t = detail::resolve_aliases(test);
  check(budget);
  detail::resolve_surfaces(t);
  detail::resolve_multimem(t);
  check(budget);
  const MemoryLayout mem(t);
  check(budget);
  Expansion out;
  out.undefined_reasons = undefined_reasons(t);
  out.lane_views = mem.lane_views();  // the test's, not a path's: kept once
  std::vector<std::map<std::string, Literal>> inits(t.threads.size());
  for (const InitEntry& e : t.init)
    // A register declared without a value (`P2:r[8];`, found by the long
    // fuzz run) starts with none: reading it is the frontend's located error.
    if (e.thread && *e.thread >= 0 && static_cast<std::size_t>(*e.thread) < inits.size() &&
        !e.values.empty())
      inits[static_cast<std::size_t>(*e.thread)][e.name] = e.values.front();
  std::vector<std::vector<ThreadPath>> per_thread;
  std::size_t total = 1;
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    if (i % 256 == 0) check(budget);
    per_thread.push_back(PathBuilder(t, mem, static_cast<ThreadId>(i), opts, out.undefined_reasons,
                                     std::move(inits[i]))
                             .run());
    total *= per_thread.back().size();
    if (total > opts.max_paths)
      input_error(t, t.threads[i].loc,
                  fmt::format("more than {} path combinations at unroll bound {}; lower --unroll",
                              opts.max_paths, opts.unroll));
  }
  std::vector<std::size_t> idx(per_thread.size(), 0);
  for (;;) {
    std::vector<const ThreadPath*> paths;
    for (std::size_t i = 0; i < per_thread.size(); ++i) paths.push_back(&per_thread[i][idx[i]]);
    check(budget);
    out.skeletons.push_back(build(t, mem, paths, idx, budget));
    std::size_t k = 0;
    while (k < idx.size() && ++idx[k] == per_thread[k].size()) {
      idx[k] = 0;
      ++k;
    }
    if (k == idx.size()) break;
  }
  return out;
}

BoolMatrix po_closure(const Skeleton& s, const Budget* budget) {
  const std::size_t n = s.size();
  charge(budget, bool_matrix_bytes(n));
  BoolMatrix m(n, std::vector<bool>(n, false));
  for (EventId a = 0; a < n; ++a) {
    if (a % 64 == 0) check(budget);
    for (EventId b = 0; b < n; ++b) m[a][b] = po_before(s.ev(a), s.ev(b));
  }
  return m;
}

BoolMatrix edge_matrix(const Skeleton& s, EdgeKind kind, const Budget* budget) {
  const std::size_t n = s.size();
  charge(budget, bool_matrix_bytes(n));
  BoolMatrix m(n, std::vector<bool>(n, false));
  for (auto [it, end] = boost::edges(s.graph); it != end; ++it)
    if (s.graph[*it].kind == kind)
      m[boost::source(*it, s.graph)][boost::target(*it, s.graph)] = true;
  return m;
}

}  // namespace redscope
