// The values of a PTX model's primitives (docs/model.md "Primitives") that do
// not depend on the candidate execution: event sets by kind, semantics,
// scope and state space; po, po-loc, loc, int/ext, rmw, dependencies and
// the placement of threads (same CTA, cluster, GPU); and the model's own
// morally strong pairs, evaluated from its text. Computed once per skeleton and shared by every
// engine that evaluates a model (the enumerator on bits, Z3 symbolically,
// explain on the execution it reads off a Z3 model).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/events/events.hpp"
#include "redscope/model/cat_eval.hpp"

namespace redscope::cat {

struct StaticPrimitives {
  std::vector<std::pair<std::string_view, Bits>> sets;
  std::vector<std::pair<std::string_view, BitRel>> rels;
  // Morally strong as the model defines it (model_ms below): not a
  // primitive, so never loaded into an evaluator; empty until derived.
  BitRel ms;
  // The relation named `name` (po, po-loc, ..., and "ms": the field above);
  // throws for another name.
  const BitRel& rel(std::string_view name) const;
};

// Morally strong in words, for explanations only (issue 32: no engine
// decides by these; the relation is models/ptx.cat's `ms`, model_ms above).
// PTX ISA §8.6 "Morally strong operations": two different
// events of one thread, or both strong with each one's scope containing the
// other's thread; both through one proxy; memory events must overlap
// completely (sizes are checked at expansion, so: the same virtual address,
// aliases behaving as different proxies). An initial write and a proxy
// fence are never strong.
bool morally_strong(const Skeleton& sk, EventId a, EventId b);

// Which clause of the definition above decides a pair, in the order it is
// checked: the one place `ms` is defined, so its words (ms_words) are
// always the relation's own reason.
enum class MsClause : std::uint8_t {
  SameEvent,   // not ms: an event with itself
  Init,        // not ms: an initial write is not strong
  ProxyFence,  // not ms: a proxy fence is no strong operation
  Proxy,       // not ms: different proxies
  Address,     // not ms: different virtual addresses of one location
  SameThread,  // ms: one thread
  Weak,        // not ms: one of them is weak
  Scope,       // not ms: a scope does not contain the other thread
  Mutual,      // ms: both strong, each scope contains the other thread
};
MsClause ms_clause(const Skeleton& sk, EventId a, EventId b);
// Why a pair is (or is not) morally strong, in words naming the threads,
// scopes, placements, proxies and addresses involved ("P0 (.gpu) and P1
// (.gpu) are in different CTAs of one GPU, so each one's scope contains the
// other's thread").
std::string ms_words(const Skeleton& sk, EventId a, EventId b);

// Charges its relations to `budget` (may be null) before making them, and
// checks it in every n x n loop (issue 28). `ms` is left empty.
StaticPrimitives static_primitives(const Skeleton& sk, const Budget* budget = nullptr);

// Morally strong as model `m` defines it: the value of its last binding of
// `ms` that reads static primitives only (level 0), evaluated once over
// every event of the skeleton `p` was made for (`n` events, `variants` on).
// A model that binds none gets models/ptx.cat's (docs/model.md "Morally
// strong"). Engines that need ms before choosing (the Fence-SC pairs, the
// Shortcuts) read it from here, never from morally_strong().
BitRel model_ms(const Model& m, const std::vector<std::string>& variants, const StaticPrimitives& p,
                std::size_t n, const Budget* budget = nullptr);
// Whether `slot` of `m` is a binding of `ms` defined as models/ptx.cat
// defines it (the same tree, let-bound names opened, over the same
// primitives): its pairs are then the ones ms_words puts into words.
bool defines_ptx_ms(const Model& m, std::size_t slot);
// static_primitives with `ms` from model_ms.
StaticPrimitives static_primitives(const Skeleton& sk, const Model& m,
                                   const std::vector<std::string>& variants,
                                   const Budget* budget = nullptr);

// The engine's choices for one candidate execution: which events executed,
// rf, co, the Fence-SC order and the barrier relation.
struct CandidateRels {
  const std::vector<bool>& executed;
  const BitRel& rf;
  const BitRel& co;
  const BitRel& sf;
  const BitRel& sync_barrier;
};

// Fills `ev`'s primitives: the static ones restricted to the executed
// events (a candidate execution consists of those only), then the choices.
// Does not update(): the caller picks the level.
void load_statics(Evaluator& ev, const StaticPrimitives& p, const std::vector<bool>& executed);
void load_candidate(Evaluator& ev, const StaticPrimitives& p, const CandidateRels& c);

}  // namespace redscope::cat
