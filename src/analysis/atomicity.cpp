// `redscope atomicity`: lost-update queries over the PTX encoding.
//
// A lost update is an allowed execution in which either two RMWs read the
// same write (one increment disappears), or a plain store lands between an
// RMW's read and its write (fr ; co — the store disappears). Both are what
// the Atomicity axiom forbids for morally strong pairs (PTX §8.9.3); for
// pairs that are not mutually in scope, or under the sm_6x rule for shared
// memory, the model allows them and the query finds a witness.
#include "redscope/analysis/atomicity.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"

#include <chrono>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <z3++.h>

#include "engine/z3/z3_encoding.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/report.hpp"

namespace redscope {
namespace {

using detail::Encoding;

struct Site {
  EventId read = 0, write = 0;  // RMW halves; a plain store has read == write
  bool is_rmw = true;
};

// Identity of a pair across skeletons: cell and the two instructions.
using PairKey = std::tuple<std::string, ThreadId, int, int, ThreadId, int, int>;

AccessSite site_of(const Event& e) {
  return AccessSite{e.thread, e.text, e.src, e.scope, e.sem, e.in_rmw, e.is_strong()};
}

// Why the model lets a pair lose an update although both are mutually in
// scope: on ptx-sm6x an RMW on shared memory is not atomic against a plain
// store (docs/model.md §Targets and the sm_6x variant). For pairs that are
// not mutually in scope, Atomicity does not apply and scope_reason says why.
constexpr std::string_view kSm6xRule =
    "sm_6x rule — red/atom on .shared is not atomic with respect to plain stores (red seed: 'For "
    "sm_6x and earlier "
    "architectures, red operations on .shared state space do not guarantee atomicity with respect "
    "to normal store "
    "instructions to the same address')";

std::string lost_reason(const Skeleton& sk, ModelRef model, const Site& a, const Site& b,
                        const AtomicityPair& p) {
  const Space sp = sk.ev(a.write).space;
  const bool shared = sp == Space::SharedCta || sp == Space::SharedCluster;
  if (model->has_variant("sm6x") && shared && !b.is_rmw && p.mutually_in_scope)
    return std::string(kSm6xRule);
  if (!p.mutually_in_scope) return "not morally strong: " + p.scope_reason;
  return "";
}

std::vector<std::pair<std::string, std::string>> finals(Encoding& enc, const Skeleton& sk,
                                                        const z3::model& m) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [cell, ty] : sk.loc_types) {
    const z3::expr v = m.eval(enc.final_value_of(cell), true);
    out.emplace_back(cell, format_value(v.get_numeral_uint64(), ty));
  }
  return out;
}

class SkeletonQueries {
 public:
  SkeletonQueries(z3::context& c, const Skeleton& sk, const detail::ModelChoice& model,
                  const Budget* budget)
      : c_(c),
        kind_(detail::solver_kind_for(sk)),
        s_(detail::make_solver(c, kind_)),
        sk_(sk),
        enc_(c, s_, sk, model, kind_, budget) {
    enc_.encode();
    for (const auto& [cell, ty] : sk.loc_types)
      (void)enc_.final_value_of(cell);  // part of every query's model
  }

  // Lost-update condition for a pair, in words when it holds.
  std::optional<std::string> query(const Site& a, const Site& b, z3::model* out) {
    std::vector<std::pair<z3::expr, std::string>> ways;
    if (b.is_rmw) {
      for (EventId w = 0; w < sk_.size(); ++w)
        if (sk_.ev(w).is_write() && sk_.ev(w).loc == sk_.ev(a.read).loc)
          ways.emplace_back(enc_.rf(w, a.read) && enc_.rf(w, b.read) && enc_.executed(a.write) &&
                                enc_.executed(b.write),
                            fmt::format("both RMWs read {}", detail::event_label(sk_, w)));
    } else {
      ways.emplace_back(
          enc_.fr(a.read, b.write) && enc_.co(b.write, a.write) && enc_.executed(a.write),
          "the store lands between the RMW's read and its write");
    }
    const z3::expr_vector lits = enc_.all_literals(true);
    for (const auto& [cond, words] : ways) {
      s_.push();
      s_.add(cond);
      const bool sat = detail::is_sat(s_, lits);
      if (sat) *out = s_.get_model();
      s_.pop();
      if (sat) return words;
    }
    return std::nullopt;
  }

  Encoding& encoding() { return enc_; }

 private:
  z3::context& c_;
  detail::SolverKind kind_;
  z3::solver s_;
  const Skeleton& sk_;
  Encoding enc_;
};

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

void check_skeleton(z3::context& c, const Skeleton& sk, const detail::ModelChoice& model,
                    const Budget* budget, std::map<PairKey, AtomicityPair>& pairs) {
  SkeletonQueries q(c, sk, model, budget);
  for (const auto& [cell, list] : sites(sk)) {
    // Cells with an RMW and another writer: two RMWs, or an RMW and a store.
    const auto rmws =
        std::count_if(list.begin(), list.end(), [](const Site& s) { return s.is_rmw; });
    if (rmws < 1 || list.size() < 2) continue;
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = 0; j < list.size(); ++j) {
        const Site& a = list[i];
        const Site& b = list[j];
        if (!a.is_rmw || i == j || (b.is_rmw && j < i)) continue;
        const PairKey k = key_of(sk, a, b);
        auto [it, fresh] = pairs.try_emplace(k);
        AtomicityPair& p = it->second;
        if (fresh) {
          p.cell = cell;
          p.a = site_of(sk.ev(a.read));
          p.b = site_of(sk.ev(b.read));
          p.mutually_in_scope = q.encoding().static_prims().rel("ms").has(a.read, b.read);
          // The model's own relation decides, and says why (cat::ms_words).
          p.scope_reason = cat::ms_words(sk, a.read, b.read);
        }
        if (p.lost_update) continue;
        z3::model m(c);
        if (auto how = q.query(a, b, &m)) {
          p.lost_update = true;
          p.how = *how;
          p.lost_update_reason = lost_reason(sk, model.kind, a, b, p);
          p.witness = q.encoding().witness(m);
          p.final_values = finals(q.encoding(), sk, m);
        }
      }
  }
}

}  // namespace

AtomicityResult check_atomicity(const LitmusTest& test, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  AtomicityResult r;
  r.test = test.name;
  r.file = test.file;
  r.model = opts.model.value_or(model_for_test(test));
  r.model_file = opts.model_file;
  r.target_sm = test.target_sm;
  const Expansion ex = expand(test, opts.expand);
  z3::context c;
  const Budget::Z3Guard guard(opts.budget, c);  // the watchdog may interrupt its checks
  std::map<PairKey, AtomicityPair> pairs;
  const std::shared_ptr<const cat::Model> model = model_of(opts, test);
  const detail::ModelChoice choice = detail::choice_for(test, opts, *model);
  for (const Skeleton& sk : ex.skeletons) {
    if (opts.budget) opts.budget->check();
    if (!sk.cut) check_skeleton(c, sk, choice, opts.budget, pairs);
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
  if (r.pairs.empty()) o += "  no location is written by an RMW and another instruction\n";
  std::size_t lost = 0;
  for (const AtomicityPair& p : r.pairs) {
    o += fmt::format("  {}: {}\n     with {}\n", p.cell, describe(p.a), describe(p.b));
    o += fmt::format("     mutually in scope: {} ({})", p.mutually_in_scope ? "yes" : "no",
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
  o += fmt::format("Pairs {} lost-update {}\nTime {} {:.2f}\n\n", r.pairs.size(), lost, r.test,
                   r.seconds);
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
  o.set("mutually_in_scope", p.mutually_in_scope).set("scope_reason", p.scope_reason);
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

std::string render_atomicity_json(const std::vector<AtomicityResult>& results) {
  Json all = Json::array();
  for (const AtomicityResult& r : results) {
    Json t = json_test_head(r.test, r.file, !r.test.empty(), r.model, r.target_sm);
    if (!r.model_file.empty()) t.set("model", r.model_file);
    set_json_error(t, r.error, r.error_kind);
    Json pairs = Json::array();
    for (const AtomicityPair& p : r.pairs) pairs.push(pair_json(p));
    all.push(t.set("pairs", std::move(pairs)));
  }
  return all.dump(Json::Layout::Nested) + "\n";
}

}  // namespace redscope
