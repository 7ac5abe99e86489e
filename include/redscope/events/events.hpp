// Event graphs: a litmus test expanded into straight-line executions
// ("skeletons"), one per combination of per-thread control-flow paths.
// Each skeleton is a Boost.Graph whose vertices are events and whose edges
// are the static relations po (immediate), rmw, and addr/data/ctrl deps.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/expr.hpp"
#include "redscope/core/litmus.hpp"

namespace redscope {

enum class EventKind : std::uint8_t { Read, Write, Fence, Barrier };

struct Event {
  EventKind kind = EventKind::Read;
  ThreadId thread = kInitThread;          // kInitThread for initial writes
  std::size_t po_index = 0;               // position in the thread's path
  std::size_t instr = 0;                  // which executed instruction of the path produced it
  unsigned element = 0;                   // vector element and lane within the instruction
  std::string loc;                        // memory events: the memory cell ("x", "v[1]")
  std::string vloc;                       // ... and the virtual address it was reached by
                                          // ("y" for an alias y of x; loc when none)
  Proxy proxy = Proxy::Generic;           // memory events: the proxy of the access
  std::optional<ProxyFence> proxy_fence;  // fence.proxy.K (kind Fence, never strong)
  // fence.proxy.async.SPACE: the state space it orders operations on
  // (Global, SharedCta or SharedCluster); none: every state space.
  std::optional<Space> proxy_fence_space;
  // Events of an asynchronous bulk operation are in program order after the
  // thread's earlier events, but before a later one only once a
  // cp.async.bulk.wait_group has waited for them: before the wait (numbered
  // async_until, as `instr`) and what follows it, or nothing (SIZE_MAX).
  std::optional<std::size_t> async_until;
  Sem sem = Sem::Weak;  // for RMW halves: the half's own semantics
  Scope scope = Scope::Sys;
  std::optional<SourceOrder> source;  // a source-level event: Instruction::source
  Space space = Space::Generic;
  DataType type = DataType::S32;
  bool in_rmw = false;  // read or write half of an atom/red
  bool is_init = false;
  ExprPtr value;  // Write: value written
  ExprPtr guard;  // executes only when true (null: always)
  ReadRef self;   // Read: the leaf naming this read's value
  // Barrier (Dat3M convention, see BarrierSpec).
  bool barrier_arrive_only = false;
  std::int64_t barrier_id = 0;
  ExprPtr barrier_logical;  // null when absent
  std::optional<std::int64_t> quorum;
  SourceLoc src;
  std::string text;

  bool is_read() const { return kind == EventKind::Read; }
  bool is_write() const { return kind == EventKind::Write; }
  bool is_memory() const { return is_read() || is_write(); }
  bool is_fence() const { return kind == EventKind::Fence; }
  bool is_barrier() const { return kind == EventKind::Barrier; }
  // PTX §8.3: strong = memory op with .relaxed/.acquire/.release/.acq_rel/.sc
  // (or .volatile), or a fence.
  bool is_strong() const {
    return (is_fence() && !proxy_fence) || (is_memory() && !is_init && sem != Sem::Weak);
  }
  bool is_release() const { return sem == Sem::Release || sem == Sem::AcqRel || sem == Sem::Sc; }
  bool is_acquire() const { return sem == Sem::Acquire || sem == Sem::AcqRel || sem == Sem::Sc; }
  bool is_sc_fence() const { return is_fence() && sem == Sem::Sc; }
};

enum class EdgeKind : std::uint8_t { Po, Rmw, Addr, Data, Ctrl };

struct EdgeProps {
  EdgeKind kind = EdgeKind::Po;
};

using EventGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Event, EdgeProps>;

// A register as the condition names it.
struct RegName {
  ThreadId thread = 0;
  std::string name;
  // Ordered by thread, then name. Written out, not `<=> = default`: the
  // libc++ of the WebAssembly build (emscripten 3.1.6) has no <=> for
  // std::string.
  bool operator==(const RegName&) const = default;
  friend bool operator<(const RegName& a, const RegName& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.name < b.name;
  }
};

// A lane of a declaration's layout inside a wider cell: `h[1]` of a
// location declared `f16x2 h` that the test accesses as whole 32-bit words
// (docs/litmus-format.md "Conditions"). Its value is bits [shift, shift +
// width) of the cell's final value, read at `type`.
struct LaneView {
  std::string cell;
  unsigned shift = 0;
  unsigned width = 0;
  DataType type = DataType::U32;
};

struct Skeleton {
  EventGraph graph;
  std::vector<Placement> placement;       // per thread
  std::vector<EventId> thread_base;       // ReadRef{t, i} ↔ vertex thread_base[t] + i
  std::vector<ExprPtr> assumptions;       // branch decisions along the paths
  std::map<RegName, ExprPtr> final_regs;  // register values at the end
  std::map<RegName, DataType> reg_types;
  std::map<std::string, DataType> loc_types;  // every memory cell and its element type
  std::map<std::string, Space> loc_spaces;    // Global, SharedCta or SharedCluster
  // Each shared cell reached through the .shared::cta window: the CTA whose
  // window it is (the cell's owner; the layout rejects a second one). A cell
  // reached only through .shared::cluster addresses names no owner.
  std::map<std::string, Placement> shared_owner;
  std::map<std::string, EventId> init_write;  // location → its initial write
  bool cut = false;                           // some path stopped at the unroll bound
  std::vector<std::size_t> path_ids;          // which path of each thread

  std::size_t size() const { return boost::num_vertices(graph); }
  const Event& ev(EventId e) const { return graph[e]; }
  EventId vertex(ReadRef r) const {
    return thread_base[static_cast<std::size_t>(r.thread)] + r.index;
  }
};

// An execution that ends early (a sured out of bounds with .trap, or at a
// misaligned address) says so in a status register of its thread, which the
// skeleton folds into one (RegName{kStatusThread, kStatusRegister}): 0 for a
// normal end, kStatusTrap, or kStatusUndefined + k for the k-th of
// undefined_reasons(test). Results report such an outcome as `trap` or
// `undefined` instead of its values.
inline constexpr const char* kStatusRegister = "#status";
inline constexpr ThreadId kStatusThread = kInitThread;
inline constexpr std::uint64_t kStatusTrap = 1;
inline constexpr std::uint64_t kStatusUndefined = 2;

struct ExpandOptions {
  int unroll = 2;                 // times a backward jump may be taken per path
  std::size_t max_paths = 20000;  // per thread and in total; beyond: InputError
  // The running test's budget (null: unlimited), checked by the loops that
  // grow with the test and charged before its cells and relations are made;
  // with_budget (core/budget.hpp) sets it.
  const Budget* budget = nullptr;
};

struct Expansion {
  std::vector<Skeleton> skeletons;             // complete paths and cut ones (Skeleton::cut)
  std::vector<std::string> undefined_reasons;  // see kStatusUndefined
  std::map<std::string, LaneView> lane_views;  // condition names of lanes inside cells
};

// Unrolls loops to `unroll`, splits every branch on its condition, and builds
// one skeleton per combination of per-thread paths. Throws InputError for
// programs the model cannot express (e.g. mixed-size accesses).
Expansion expand(const LitmusTest& test, const ExpandOptions& opts);

// Why executions of `test` may be undefined (misaligned sured addresses), in
// the order their status codes number them. Empty before expansion has
// resolved the test's surfaces; the Expansion keeps its own copy.
std::vector<std::string> undefined_reasons(const LitmusTest& test);

// Static relation helpers on a skeleton (vertex-indexed boolean matrices,
// BoolMatrix in core/bitrel.hpp).
// Transitive po. Events of one instruction are unordered (PTX §8.2.2: the
// elements of a vector or packed access are performed in no particular
// order), except an RMW element's read, which precedes its own write.
// Both charge their n x n matrix to `budget` (may be null) before making it.
BoolMatrix po_closure(const Skeleton& s, const Budget* budget = nullptr);
BoolMatrix edge_matrix(const Skeleton& s, EdgeKind kind,
                       const Budget* budget = nullptr);  // direct edges of one kind

}  // namespace redscope
