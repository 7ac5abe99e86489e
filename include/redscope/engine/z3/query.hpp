// The narrow door through which analyses (explain, atomicity, xval) ask the
// Z3 engine about one test: the candidate executions of one skeleton under
// the test's cat model, with facts asserted (an outcome, the condition, the
// filter, a normal end), checked under the model's checks named as the
// model names them, and read back as a witness, the chosen execution, or a
// minimal set of named checks that forbids them (an unsat core). The
// encoding itself (src/engine/z3/z3_encoding.hpp) stays private to
// src/engine/z3; nothing here needs a solver header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope {

namespace cat {
struct StaticPrimitives;
}

// The model a test's queries check: its cat text, the variants its `if "v"`
// tests see, and which named checks forbid (EngineOptions::enables). Keeps
// a reference to `opts`, which must outlive it.
class QueryModel {
 public:
  QueryModel(const LitmusTest& test, const EngineOptions& opts);

  const cat::Model& model() const { return *model_; }
  ModelRef kind() const { return kind_; }
  const std::vector<std::string>& variants() const { return variants_; }
  bool enabled(std::string_view check) const { return opts_.enables(check); }
  const EngineOptions& options() const { return opts_; }
  // The model's named checks that forbid (not flags, not disabled), once
  // each, in file order.
  std::vector<std::string> enabled_checks() const;

 private:
  std::shared_ptr<const cat::Model> model_;
  ModelRef kind_;
  std::vector<std::string> variants_;
  const EngineOptions& opts_;
};

// One solver context for a test's small queries, in this process and then,
// past kInProcessSeconds, in a solver process (solver_process.hpp); the
// budget stops their checks at its deadline or memory cap.
class QuerySession {
 public:
  explicit QuerySession(const Budget* budget);
  ~QuerySession();
  QuerySession(const QuerySession&) = delete;
  QuerySession& operator=(const QuerySession&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend class Query;
};

// A fact about the candidate execution, in the engine's own relations
// (not the model's): w -rf-> r, a -co-> b, r -fr-> w (rf⁻¹ ; co), or e
// executed (`to` unused).
struct ExecutionFact {
  enum class Kind : std::uint8_t { Rf, Co, Fr, Executed };
  Kind kind;
  EventId from = 0, to = 0;
  static ExecutionFact rf(EventId w, EventId r) { return {Kind::Rf, w, r}; }
  static ExecutionFact co(EventId a, EventId b) { return {Kind::Co, a, b}; }
  static ExecutionFact fr(EventId r, EventId w) { return {Kind::Fr, r, w}; }
  static ExecutionFact executed(EventId e) { return {Kind::Executed, e, e}; }
};

// The candidate execution a satisfiable check chose, for evaluating the
// model on it concretely (cat::load_candidate).
struct ChosenExecution {
  std::vector<bool> executed;
  BitRel rf, co, sf, sync_barrier;
};

// How witnesses name an event: "init x", "P1#0 atom.add r0, [x], 1 (read)".
std::string witness_label(const Skeleton& sk, EventId e);

// Whether barriers must pass in an execution (a path that needs one never
// to complete hangs: no outcome).
enum class Barriers : std::uint8_t { MustPass, MayHang };

// One skeleton's executions under the model. Facts asserted with require_*
// hold for every later check; every check runs with the model's unnamed
// checks assumed. Z3's failures come out as SolverError (core/failure.hpp).
class Query {
 public:
  // `session`, `sk` and `model` must outlive it, and `sk` and `model` the
  // session too: a session that moves to a solver process replays what its
  // queries did, the closed ones included (engine/z3/solver_process.hpp).
  Query(QuerySession& session, const Skeleton& sk, const QueryModel& model, const Budget* budget);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  // ---- what every execution checked must do --------------------------------
  // The observables take these values.
  void require_values(const std::vector<Observable>& obs, const std::vector<std::uint64_t>& values);
  // The observables satisfy `cond` (a condition or filter).
  void require_condition(const CondExpr& cond, const std::vector<Observable>& obs);
  // Values are an outcome of an execution that ends normally, not one that
  // trapped or went undefined (events.hpp, kStatusRegister).
  void require_normal_end();
  // Makes every location's final value part of the encoding now, before the
  // first check, so that final_values() reads them from any later one.
  void encode_final_values();

  // ---- checks (each one's execution, when satisfiable, is kept) ------------
  // Some execution passes the named checks in `checks` (and the unnamed
  // ones), with barriers passing.
  bool possible_under(const std::vector<std::string>& checks);
  // Some execution passes every enabled check.
  bool possible(Barriers barriers);
  // Some execution with all of `facts` passes every enabled check, with
  // barriers passing; the facts are dropped afterwards.
  bool possible_with(const std::vector<ExecutionFact>& facts);
  // One check for any of `alternatives` (each a conjunction of facts, as
  // possible_with's): the index of one that the execution found meets, or
  // none when no allowed execution meets any (a verdict-only proof).
  std::optional<std::size_t> possible_with_any(
      const std::vector<std::vector<ExecutionFact>>& alternatives);
  // A minimal subset of `unsat` (named checks that together forbid every
  // execution) that still forbids: dropping any one of them allows one
  // (deletion-based, in order).
  std::vector<std::string> minimal_core(std::vector<std::string> unsat);

  // ---- the execution of the last satisfiable check -------------------------
  // Its rf, co, fr, the model's `sync` (when it binds one) and values;
  // `skeleton`: its path's index in the expansion.
  Witness witness(std::size_t skeleton = 0) const;
  ChosenExecution execution() const;
  // Each location's final value (after encode_final_values()).
  std::vector<std::pair<std::string, std::uint64_t>> final_values() const;

  // The model's primitives that do not depend on the execution.
  const cat::StaticPrimitives& static_primitives() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redscope
