// `redscope atomicity`: lost-update queries, under the test's model, through
// an ExecutionSearch (analysis/execution_search.hpp): the Z3 engine's query
// interface or the enumerator, whichever the options pick.
//
// A lost update is an allowed execution in which either two RMWs read the
// same write (one increment disappears), or a plain store lands between an
// RMW's read and its write (fr ; co — the store disappears). In PTX both are
// what the Atomicity axiom forbids for morally strong pairs (PTX §8.9.3).
// Everything the report says about a pair is the model's: whether it is
// morally strong is the model's `ms`, whether it loses an update is the
// model's checks, and why a morally strong pair may is read off the model's
// atomicity check (in models/ptx.cat, the sm6x variant of Atomicity).
#include "redscope/analysis/atomicity.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"

#include <chrono>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analysis/execution_search.hpp"
#include "analysis/model_view.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/report.hpp"

namespace redscope {
namespace {

struct Site {
  EventId read = 0, write = 0;  // RMW halves; a plain store has read == write
  bool is_rmw = true;
};

// Identity of a pair across skeletons: cell and the two instructions.
using PairKey = std::tuple<std::string, ThreadId, int, int, ThreadId, int, int>;

AccessSite site_of(const Event& e) {
  return AccessSite{e.thread, e.text, e.src, e.scope, e.sem, e.in_rmw, e.is_strong()};
}

// ---- the model's reasons, read off its definitions -------------------------

// The model's check against lost updates: the one named Atomicity, else the
// first forbidding check whose definition reads the primitive `rmw`.
bool reads_rmw(const ModelView& v, const cat::Expr& e, int depth) {
  if (depth > cat::kMaxNesting) return false;
  if (e.op == cat::Op::Ref) {
    const cat::Slot& s = v.model().slots[e.slot];
    if (s.primitive) return s.name == "rmw";
    const cat::Expr* def = v.definition(e.slot);
    return def && reads_rmw(v, *def, depth + 1);
  }
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const auto& a) { return reads_rmw(v, *a, depth + 1); });
}

const cat::Check* atomicity_check(const ModelView& v, const QueryModel& model) {
  const cat::Check* first = nullptr;
  for (const cat::Stmt& st : v.model().stmts) {
    if (!st.check || st.check->flag || !model.enabled(st.check->name)) continue;
    if (st.check->name == "Atomicity") return &*st.check;
    if (!first && reads_rmw(v, *st.check->expr, 0)) first = &*st.check;
  }
  return first;
}

// An `if "v" then a else b` that takes (u, w) out of a check's relation: the
// branch the model's variants select lacks the pair, the other has it.
// Found through let-bound names (`name`: the innermost one), the operands
// of an intersection that lack the pair and every operand of a union.
struct Exemption {
  const cat::Expr* node;
  std::string name;
};

std::optional<Exemption> exemption(const ModelView& v, const cat::Expr& e, EventId u, EventId w,
                                   const std::string& name, int depth) {
  using cat::Op;
  if (depth > cat::kMaxNesting) return std::nullopt;
  switch (e.op) {
    case Op::Ref: {
      const cat::Expr* def = v.definition(e.slot);
      if (!def) return std::nullopt;
      return exemption(v, *def, u, w, v.model().slots[e.slot].name, depth + 1);
    }
    case Op::Inter:
    case Op::Union:
      for (const auto& a : e.args)
        if (e.op == Op::Union || !v.holds(*a, u, w))
          if (auto x = exemption(v, *a, u, w, name, depth + 1)) return x;
      return std::nullopt;
    case Op::IfVariant: {
      const bool on = v.variant_on(e.variant);
      const cat::Expr& taken = *e.args[on ? 0 : 1];
      if (!v.holds(taken, u, w) && v.holds(*e.args[on ? 1 : 0], u, w)) return Exemption{&e, name};
      return exemption(v, taken, u, w, name, depth + 1);
    }
    default: return std::nullopt;
  }
}

// The events of a path from u to w through the operands of a sequence
// (u, w alone for another relation).
std::vector<EventId> seq_path(const ModelView& v, const cat::Expr& e, EventId u, EventId w,
                              std::size_t n) {
  if (e.op != cat::Op::Seq) return {u, w};
  const std::size_t k = e.args.size();
  std::vector<std::vector<EventId>> from(k, std::vector<EventId>(n, 0));
  std::vector<char> at(n, 0);
  at[u] = 1;
  for (std::size_t i = 0; i < k; ++i) {
    std::vector<char> next(n, 0);
    for (EventId x = 0; x < n; ++x)
      for (EventId y = 0; y < n && at[x]; ++y)
        if (!next[y] && v.holds(*e.args[i], x, y)) next[y] = 1, from[i][y] = x;
    at = std::move(next);
  }
  if (!at[w]) return {u, w};
  std::vector<EventId> path(k + 1, w);
  for (std::size_t i = k; i-- > 0;) path[i] = from[i][path[i + 1]];
  return path;
}

// Where a relation (a sequence, typically) fails along `path`: the first
// membership test [S] or step that does not hold, in words; "" when it
// holds all the way or the path does not fit its shape.
std::string fails_along(const ModelView& v, const cat::Expr& e, const std::vector<EventId>& path) {
  std::vector<const cat::Expr*> steps;
  if (e.op == cat::Op::Seq)
    for (const auto& a : e.args) steps.push_back(a.get());
  else
    steps.push_back(&e);
  std::size_t i = 0;
  for (const cat::Expr* s : steps) {
    if (s->op == cat::Op::Identity) {
      if (!v.member(*s->args[0], path[i])) return v.not_member_words(*s->args[0], path[i]);
      continue;
    }
    if (i + 1 >= path.size()) return "";
    if (!v.holds(*s, path[i], path[i + 1])) return v.why(*s, path[i], path[i + 1]);
    ++i;
  }
  return "";
}

// "variant "sm6x" of the model: Atomicity's between is (msfr ; [RMW] ;
// msco) | (msfr ; msco ; [_ \ SHARED]), which leaves this pair out: P1's
// st... is not in RMW; P0's red... (its write) is in SHARED".
std::string exemption_words(const ModelView& v, const Exemption& x, const std::string& check,
                            EventId u, EventId w, std::size_t n) {
  const bool on = v.variant_on(x.node->variant);
  const cat::Expr& taken = *x.node->args[on ? 0 : 1];
  const std::vector<EventId> path = seq_path(v, *x.node->args[on ? 1 : 0], u, w, n);
  std::string notes;
  if (taken.op == cat::Op::Union) {
    for (const auto& a : taken.args)
      if (const std::string f = fails_along(v, *a, path); !f.empty())
        notes += (notes.empty() ? "" : "; ") + f;
  } else {
    notes = fails_along(v, taken, path);
  }
  return fmt::format("{} \"{}\" of the model: {}'s {} is {}{}{}",
                     on ? "variant" : "without variant", x.node->variant, check, x.name,
                     cat::to_text(v.model(), taken),
                     notes.empty() ? "" : ", which leaves this pair out: ", notes);
}

// Why the model lets a pair lose an update. Not morally strong (the model's
// `ms`): its words. Morally strong: the model's atomicity check left the
// witness's RMW out, and where a variant of the model decides that, in
// the model's own terms (ptx-sm6x: an RMW on .shared is not atomic against a
// plain store; models/ptx.cat, Atomicity). Otherwise none.
std::string lost_reason(const Skeleton& sk, const QueryModel& model, const ExecutionSearch& q,
                        const Site& a, const Site& b, const AtomicityPair& p) {
  if (!p.scope_known) return "";
  if (!p.mutually_in_scope) return "not morally strong: " + p.scope_reason;
  const ChosenExecution exec = q.execution();
  const ModelView v(sk, model, q.static_primitives(), &exec, nullptr);
  const cat::Check* check = atomicity_check(v, model);
  if (!check) return "";
  std::vector<std::pair<EventId, EventId>> rmws{{a.read, a.write}};
  if (b.is_rmw) rmws.emplace_back(b.read, b.write);
  for (const auto& [r, w] : rmws)
    if (auto x = exemption(v, *check->expr, r, w, check->name, 0))
      return exemption_words(v, *x, check->name, r, w, sk.size());
  return "";
}

// Whether a pair is morally strong, by the model's own relation (a primitive
// or the model's definition), and why in words; the relation is `ms`
// (models/ptx.cat, herd's ports) or `morally-strong` (Dat3M's PTX models).
// None: unknown, never a silent "no".
void morally_strong(const ModelView& v, EventId a, EventId b, AtomicityPair& p) {
  std::optional<std::size_t> ms = v.slot("ms");
  if (!ms) ms = v.slot("morally-strong");
  p.scope_known = ms.has_value();
  if (!ms) {
    p.scope_reason = "the model names no morally strong relation (ms or morally-strong)";
    return;
  }
  p.mutually_in_scope = v.holds(*ms, a, b);
  p.scope_reason = v.pair_words(*ms, a, b);
}

std::vector<std::pair<std::string, std::string>> finals(const ExecutionSearch& q,
                                                        const Skeleton& sk) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [cell, v] : q.final_values())
    out.emplace_back(cell, format_value(v, sk.loc_types.at(cell)));
  return out;
}

// The lost-update condition for a pair, in words when some execution the
// model allows meets it (`q` then holds that execution).
// The ways a pair can lose an update: the facts of each, and its words.
using LostWays = std::vector<std::pair<std::vector<ExecutionFact>, std::string>>;
LostWays lost_ways(const Skeleton& sk, const Site& a, const Site& b) {
  using F = ExecutionFact;
  LostWays ways;
  if (b.is_rmw) {
    for (EventId w = 0; w < sk.size(); ++w)
      if (sk.ev(w).is_write() && sk.ev(w).loc == sk.ev(a.read).loc)
        ways.emplace_back(std::vector<F>{F::rf(w, a.read), F::rf(w, b.read), F::executed(a.write),
                                         F::executed(b.write)},
                          fmt::format("both RMWs read {}", witness_label(sk, w)));
  } else {
    ways.emplace_back(
        std::vector<F>{F::fr(a.read, b.write), F::co(b.write, a.write), F::executed(a.write)},
        "the store lands between the RMW's read and its write");
  }
  return ways;
}

std::optional<std::string> lost_update(ExecutionSearch& q, const Skeleton& sk, const Site& a,
                                       const Site& b) {
  for (const auto& [facts, words] : lost_ways(sk, a, b))
    if (q.possible_with(facts)) return words;
  return std::nullopt;
}

// RMW sites and plain stores of one skeleton, by cell.
std::map<std::string, std::vector<Site>> sites(const Skeleton& sk) {
  std::map<std::string, std::vector<Site>> out;
  for (auto [it, end] = boost::edges(sk.graph); it != end; ++it)
    if (sk.graph[*it].kind == EdgeKind::Rmw) {
      const EventId r = boost::source(*it, sk.graph), w = boost::target(*it, sk.graph);
      out[sk.ev(r).loc].push_back(Site{r, w, true});
    }
  for (EventId e = 0; e < sk.size(); ++e)
    if (sk.ev(e).is_write() && !sk.ev(e).in_rmw && !sk.ev(e).is_init)
      out[sk.ev(e).loc].push_back(Site{e, e, false});
  return out;
}

PairKey key_of(const Skeleton& sk, const Site& a, const Site& b) {
  const Event& x = sk.ev(a.read);
  const Event& y = sk.ev(b.read);
  return {x.loc, x.thread, x.src.line, x.src.col, y.thread, y.src.line, y.src.col};
}

// Each pair of a skeleton to check: an RMW with each later RMW and with
// each plain store to its cell, when the cell has an RMW and another writer.
template <class F>
void for_each_pair(const Skeleton& sk, F&& f) {
  for (const auto& [cell, list] : sites(sk)) {
    const auto rmws =
        std::count_if(list.begin(), list.end(), [](const Site& s) { return s.is_rmw; });
    if (rmws < 1 || list.size() < 2) continue;
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = 0; j < list.size(); ++j) {
        const Site& a = list[i];
        const Site& b = list[j];
        if (!a.is_rmw || i == j || (b.is_rmw && j < i)) continue;
        f(cell, a, b);
      }
  }
}

// What the report says of a pair that loses an update in `q`'s last execution.
void describe_lost(AtomicityPair& p, const ExecutionSearch& q, const Skeleton& sk,
                   const QueryModel& model, const Site& a, const Site& b, std::string how) {
  p.lost_update = true;
  p.how = std::move(how);
  p.lost_update_reason = lost_reason(sk, model, q, a, b, p);
  p.witness = q.witness();
  p.final_values = finals(q, sk);
}

void check_skeleton(ExecutionSearches& searches, const Skeleton& sk, const QueryModel& model,
                    const Budget* budget, std::map<PairKey, AtomicityPair>& pairs) {
  const std::unique_ptr<ExecutionSearch> search = searches.of(sk);
  ExecutionSearch& q = *search;
  std::optional<ModelView> statics;  // the model's static relations (ms), once needed
  for_each_pair(sk, [&](const std::string& cell, const Site& a, const Site& b) {
    auto [it, fresh] = pairs.try_emplace(key_of(sk, a, b));
    AtomicityPair& p = it->second;
    if (fresh) {
      p.cell = cell;
      p.a = site_of(sk.ev(a.read));
      p.b = site_of(sk.ev(b.read));
      // The model's own relation decides, and says why.
      if (!statics) statics.emplace(sk, model, q.static_primitives(), nullptr, budget);
      morally_strong(*statics, a.read, b.read, p);
    }
    if (p.lost_update) return;
    if (auto how = lost_update(q, sk, a, b)) describe_lost(p, q, sk, model, a, b, *how);
  });
}

// Verdict only: one query for any way of any pair of the skeleton to lose
// an update; the pair of the execution found, if there is one.
std::optional<AtomicityPair> decide_skeleton(ExecutionSearches& searches, const Skeleton& sk,
                                             const QueryModel& model, const Budget* budget) {
  struct Way {
    std::string cell;
    Site a, b;
    std::string words;
  };
  std::vector<Way> ways;
  std::vector<std::vector<ExecutionFact>> facts;
  for_each_pair(sk, [&](const std::string& cell, const Site& a, const Site& b) {
    for (auto& [f, words] : lost_ways(sk, a, b)) {
      ways.push_back(Way{cell, a, b, std::move(words)});
      facts.push_back(std::move(f));
    }
  });
  if (ways.empty()) return std::nullopt;
  const std::unique_ptr<ExecutionSearch> search = searches.of(sk);
  ExecutionSearch& q = *search;
  const std::optional<std::size_t> k = q.possible_with_any(facts);
  if (!k) return std::nullopt;
  const Way& w = ways[*k];
  AtomicityPair p;
  p.cell = w.cell;
  p.a = site_of(sk.ev(w.a.read));
  p.b = site_of(sk.ev(w.b.read));
  morally_strong(ModelView(sk, model, q.static_primitives(), nullptr, budget), w.a.read, w.b.read,
                 p);
  describe_lost(p, q, sk, model, w.a, w.b, w.words);
  return p;
}

}  // namespace

AtomicityResult check_atomicity(const LitmusTest& test, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  AtomicityResult r;
  r.test = test.name;
  r.file = test.file;
  r.model = opts.model_for(test);
  r.model_file = opts.model_file;
  r.target_sm = test.target_sm;
  r.metadata = test.metadata;
  const Expansion ex = expand(test, opts.expand);
  std::map<PairKey, AtomicityPair> pairs;
  const QueryModel model(test, opts);
  const std::unique_ptr<ExecutionSearches> searches = make_execution_searches(test, model, opts);
  if (opts.verdict_only) {  // the first lost update found, or a proof of none
    r.verdict_only = true;
    r.verdict_by = searches->proof();
    for (const Skeleton& sk : ex.skeletons) {
      if (opts.budget) opts.budget->check();
      if (sk.cut) continue;
      if (auto p = decide_skeleton(*searches, sk, model, opts.budget)) {
        r.pairs.push_back(std::move(*p));
        r.verdict_by = VerdictBy::Witness;
        break;
      }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  for (const Skeleton& sk : ex.skeletons) {
    if (opts.budget) opts.budget->check();
    if (!sk.cut) check_skeleton(*searches, sk, model, opts.budget, pairs);
  }
  for (auto& [k, p] : pairs) r.pairs.push_back(std::move(p));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

AtomicityResult check_atomicity_file(const std::string& path, const EngineOptions& opts) {
  AtomicityResult r;
  r.file = path;
  const auto failure = capture_failure(path, [&] {
    const LitmusTest t = parse_litmus_file(path, opts.max_file_bytes);
    r.test = t.name;
    r.metadata = t.metadata;  // kept when the check fails (a matrix cell's place)
    r = with_budget(opts, [&](const EngineOptions& o) { return check_atomicity(t, o); });
  });
  if (failure) {
    r.error = failure->message;
    r.error_kind = failure->kind;
  }
  return r;
}

namespace {

std::string describe(const AccessSite& s) {
  if (!s.is_rmw)
    return fmt::format("P{} {} (plain store, .{})", s.thread, s.text,
                       s.strong ? to_string(s.sem) : "weak");
  return fmt::format("P{} {} (.{} .{})", s.thread, s.text, to_string(s.sem), to_string(s.scope));
}

}  // namespace

std::string render_atomicity_text(const AtomicityResult& r) {
  if (r.error) return render_failure_text(r.file, *r.error, r.error_kind);
  std::string o = fmt::format("Atomicity {} ({}, sm_{})\n", r.test,
                              model_name(r.model, r.model_file), r.target_sm);
  if (r.pairs.empty() && !r.verdict_only)
    o += "  no location is written by an RMW and another instruction\n";
  std::size_t lost = 0;
  for (const AtomicityPair& p : r.pairs) {
    o += fmt::format("  {}: {}\n     with {}\n", p.cell, describe(p.a), describe(p.b));
    o += fmt::format("     mutually in scope: {} ({})",
                     !p.scope_known        ? "unknown"
                     : p.mutually_in_scope ? "yes"
                                           : "no",
                     p.scope_reason);
    if (p.lost_update && p.mutually_in_scope && !p.lost_update_reason.empty())
      o += fmt::format(", but lost: {}", p.lost_update_reason);
    o += "\n";
    if (!p.lost_update) {
      o += "     lost update: impossible\n";
      continue;
    }
    ++lost;
    o += fmt::format("     lost update: POSSIBLE: {}\n", p.how);
    for (const std::string& e : p.witness.rf) o += fmt::format("       rf {}\n", e);
    for (const std::string& e : p.witness.co) o += fmt::format("       co {}\n", e);
    std::string fin;
    for (const auto& [cell, v] : p.final_values)
      fin += fmt::format("{}{}={}", fin.empty() ? "" : "; ", cell, v);
    o += fmt::format("       final {}\n", fin);
  }
  if (r.verdict_only)  // the witness pair only, or none (docs/cli.md "Verdict-only runs")
    o += r.pairs.empty()
             ? fmt::format("Verdict lost update: no, proof: {}\n", proof_words(r.verdict_by))
             : std::string("Verdict lost update: yes, witness\n");
  else
    o += fmt::format("Pairs {} lost-update {}\n", r.pairs.size(), lost);
  o += fmt::format("Time {} {:.2f}\n\n", r.test, r.seconds);
  return o;
}

namespace {

Json site_json(const AccessSite& s) {
  return Json::object()
      .set("thread", fmt::format("P{}", s.thread))
      .set("instruction", s.text)
      .set("line", static_cast<std::size_t>(s.src.line))
      .set("rmw", s.is_rmw)
      .set("sem", s.strong ? to_string(s.sem) : "weak")
      .set("scope", to_string(s.scope));
}

Json pair_json(const AtomicityPair& p) {
  Json o = Json::object();
  o.set("location", p.cell).set("a", site_json(p.a)).set("b", site_json(p.b));
  o.set("mutually_in_scope", p.scope_known ? Json(p.mutually_in_scope) : Json())
      .set("scope_reason", p.scope_reason);
  o.set("lost_update", p.lost_update);
  if (!p.lost_update) return o;
  Json fin = Json::object();
  for (const auto& [cell, v] : p.final_values) fin.set(cell, v);
  o.set("how", p.how);
  o.set("lost_update_reason", p.lost_update_reason.empty() ? Json() : Json(p.lost_update_reason));
  return o.set("witness", Json::object()
                              .set("rf", Json::strings(p.witness.rf.texts()))
                              .set("co", Json::strings(p.witness.co.texts()))
                              .set("final", std::move(fin)));
}

}  // namespace

std::string render_atomicity_json_item(const AtomicityResult& r) {
  Json t = json_test_head(r.test, r.file, !r.test.empty(), r.model, r.target_sm);
  if (!r.model_file.empty()) t.set("model", r.model_file);
  set_json_metadata(t, r.metadata);
  set_json_error(t, r.error, r.error_kind);
  if (r.verdict_only && !r.error)
    t.set("verdict_only", true)
        .set("lost_update", !r.pairs.empty())
        .set("verdict_by", verdict_by_word(r.verdict_by))
        .set("proof", r.pairs.empty() ? Json(proof_words(r.verdict_by)) : Json());
  Json pairs = Json::array();
  for (const AtomicityPair& p : r.pairs) pairs.push(pair_json(p));
  return "  " + t.set("pairs", std::move(pairs)).dump(Json::Layout::Nested, 1);
}

std::string render_atomicity_json(const std::vector<AtomicityResult>& results) {
  std::string o = "[";
  for (std::size_t i = 0; i < results.size(); ++i)
    o += (i ? ",\n" : "\n") + render_atomicity_json_item(results[i]);
  return o + (results.empty() ? "]\n" : "\n]\n");
}

}  // namespace redscope
