// The operational machine's memory system (src/engine/machine/op_engine.cpp), organised by
// the scope tree.
//
// Every write becomes a *message* placed in its cell's coherence order. Which
// messages a thread may still read is bounded by its *view* (per cell, the
// newest message it has seen or written: its buffer's horizon). The scope tree
// (CTA ⊂ cluster ⊂ GPU ⊂ system) has storage *nodes*; a scoped release pushes
// the thread's view into the nodes of every level up to its scope, a scoped
// acquire pulls from the nodes of every level up to its own scope. So a
// release and an acquire meet exactly when both reach a common node, which is
// when each one's scope contains the other's thread (PTX §8.6 "morally
// strong"): `.cta` operations of two CTAs use different CTA nodes and never
// meet, `.gpu` ones meet at their GPU. Views pushed by a release travel with
// the messages the release covers (release patterns, PTX §8.8), and fence.sc
// and barriers keep theirs in nodes of their own.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "redscope/core/types.hpp"

namespace redscope::op {

using MsgId = EventId;  // a message is named by the write event that produced it
inline constexpr MsgId kNoMsg = ~MsgId{0};

// A state's key (op_engine.cpp State::key): 128 bits of two independent
// hashes of the state's flat encoding, fed a word at a time as the state is
// walked, so no buffer holds the encoding.
class KeySink {
 public:
  void push_back(std::uint64_t x) {
    a_ = (a_ ^ x) * 1099511628211ull;
    b_ ^= x + 0x9e3779b97f4a7c15ull + (b_ << 6) + (b_ >> 2);
    b_ *= 0xbf58476d1ce4e5b9ull;
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<std::uint64_t>(*first));
  }
  std::pair<std::uint64_t, std::uint64_t> key() const { return {a_, b_}; }

 private:
  std::uint64_t a_ = 1469598103934665603ull, b_ = 0x9e3779b97f4a7c15ull;
};

// Copy on write, for the pieces a successor state shares with the state it
// came from (op_engine.cpp Threads, Memory's messages): p's object for
// writing, copied first if another owner holds it. A state is changed by one
// worker only, before anything copies it; use_count reads relaxed, so when
// the last other owner (a state on another worker) has let go, the fence
// makes its reads happen before this change.
template <class T>
T& own_copy(std::shared_ptr<T>& p) {
  if (p.use_count() > 1)
    p = std::make_shared<T>(*p);
  else
    std::atomic_thread_fence(std::memory_order_acquire);
  return *p;
}

// A node of the scope tree: a CTA, a cluster, a GPU or the system.
struct Node {
  Scope level = Scope::Sys;
  int gpu = 0;
  int group = 0;  // the CTA id (level Cta) or the cluster id (level Cluster)
  auto operator<=>(const Node&) const = default;
};

// The nodes that an operation of scope `s` by a thread placed at `p` reaches:
// its CTA, then each enclosing level up to its `s` instance.
std::vector<Node> nodes_up_to(const Placement& p, Scope s);

// Per slot (a path to a cell, op_paths.hpp): the newest message known
// there (a coherence-order horizon, which bounds reads and writes), and the
// set of the cell's messages actually known there (what the thread wrote,
// observed, or took in by synchronization: a write's predecessors in the
// model's co, see op_engine.cpp finals). A horizon may pass messages that
// are not known: another thread's write placed earlier in the order.
struct View {
  std::vector<MsgId> at;
  std::vector<std::uint64_t> known;  // per slot, Memory::words() words of bits by MsgId
  // Per slot, the promises (bits by promise, op_engine.cpp) a read on this
  // path took before their writers performed them.
  std::vector<std::uint64_t> promise_reads;
  // Promised release writes (bits by promise) this view is synchronized
  // after: it took in what one of them carries (op_engine.cpp, promises).
  std::uint64_t after = 0;
  View() = default;
  View(std::initializer_list<MsgId> a) : at(a) {}
  MsgId& operator[](std::size_t s) { return at[s]; }
  const MsgId& operator[](std::size_t s) const { return at[s]; }
  std::size_t size() const { return at.size(); }
  void clear() {
    at.clear();
    known.clear();
    promise_reads.clear();
    after = 0;
  }
  bool operator==(const View&) const = default;
};

// Views held by scope-tree nodes, sorted by node.
using NodeViews = std::vector<std::pair<Node, View>>;

struct Message {
  Message() = default;
  Message(std::uint64_t v, NodeViews carried, MsgId source = kNoMsg)
      : value(v),
        released(std::move(carried)),
        rmw_source(source) {}
  std::uint64_t value = 0;
  NodeViews released;         // what releases covering this write pushed (travels with it)
  MsgId rmw_source = kNoMsg;  // an RMW's write: the message its read read
  // The messages of the cell its writer knew when it wrote (bits by MsgId;
  // empty: init, or promised and not yet performed).
  std::vector<std::uint64_t> known;
  std::uint64_t after = 0;  // its writer's View::after when it wrote
};

class Memory {
 public:
  // `slot_cell`: per slot of a View, the cell it is a horizon of.
  Memory(std::vector<std::size_t> slot_cell, std::size_t cells, std::size_t events);

  // The initial message of a cell (first in its coherence order).
  void init(std::size_t cell, MsgId m, std::uint64_t value);
  // Places message `m` so that it becomes order(cell)[index].
  void insert(std::size_t cell, std::size_t index, MsgId m, Message msg);

  const std::vector<MsgId>& order(std::size_t cell) const { return order_[cell]; }
  // Pairs (m, k) of a cell that the model's co must never order m before k:
  // a read took m while its thread knew k, placed after m by the machine
  // (op_engine.cpp, reads of unordered writes). Sorted, no duplicates.
  const std::vector<std::pair<MsgId, MsgId>>& apart(std::size_t cell) const { return apart_[cell]; }
  void keep_apart(std::size_t cell, MsgId m, MsgId k);
  const Message& msg(MsgId m) const;
  NodeViews& released(MsgId m) { return edit(m).released; }
  void set_known(MsgId m, std::vector<std::uint64_t> known) { edit(m).known = std::move(known); }
  void set_source(MsgId m, MsgId source) { edit(m).rmw_source = source; }
  void set_after(MsgId m, std::uint64_t after) { edit(m).after = after; }
  std::size_t position(std::size_t cell, MsgId m) const;
  std::uint64_t last_value(std::size_t cell) const { return msg(order_[cell].back()).value; }
  std::size_t cells() const { return order_.size(); }

  // A view with every slot at its cell's initial message.
  View initial_view() const;
  // Per slot, the later of the two messages in coherence order.
  void join(View& into, const View& from) const;
  // Slot `into` of v raised to (at least) slot `from`, knowing what it knows.
  void raise(View& v, std::size_t into, std::size_t from) const;
  // Slot `s` of v raised to (at least) message m, which it now knows.
  void learn(View& v, std::size_t s, MsgId m) const;
  // The messages known in any of `slots` (bits by MsgId).
  std::vector<std::uint64_t> known_in(const View& v, const std::vector<std::size_t>& slots) const;
  static bool has(const std::vector<std::uint64_t>& bits, MsgId m) {
    return m / 64 < bits.size() && (bits[m / 64] >> (m % 64) & 1);
  }
  std::size_t words() const { return words_; }
  std::size_t slot_cell(std::size_t slot) const { return (*slot_cell_)[slot]; }
  void join(NodeViews& into, const NodeViews& from) const;
  // Release: `v` joined into each of `nodes`. Acquire: the views of those of
  // `nodes` present in `from` joined into `v`.
  void push(NodeViews& into, const std::vector<Node>& nodes, const View& v) const;
  void pull(View& into, const NodeViews& from, const std::vector<Node>& nodes) const;

  // Flat encoding for state hashing. Cells marked in `dead` (none if null)
  // are left out, and so are their slots in every view (see encode below):
  // `dead_slots`, the same per slot, given with `dead`.
  void encode(KeySink& out, const std::vector<char>* dead = nullptr,
              const std::vector<char>* dead_slots = nullptr) const;

 private:
  // A message, for writing: its own copy if another memory shares it.
  Message& edit(MsgId m);

  // Per slot, its cell: the same for every state of a test, so shared.
  std::shared_ptr<const std::vector<std::size_t>> slot_cell_;
  std::size_t words_ = 0;                                    // 64-bit words of a slot's known set
  std::vector<std::vector<MsgId>> order_;                    // per cell, coherence order
  std::vector<std::vector<std::pair<MsgId, MsgId>>> apart_;  // per cell
  // Indexed by MsgId; null until placed. A message rarely changes once
  // placed, so a copied memory (each successor state holds one) shares its
  // messages and copies one only to change it (edit).
  std::vector<std::shared_ptr<Message>> msgs_;
};

// Flat encodings for state hashing; `dead_slots` (if given) marks slots
// left out (those of a cell no step will touch again: op_engine.cpp, key).
void encode(const View& v, KeySink& out, const std::vector<char>* dead_slots = nullptr);
void encode(const NodeViews& nv, KeySink& out, const std::vector<char>* dead_slots = nullptr);

}  // namespace redscope::op
