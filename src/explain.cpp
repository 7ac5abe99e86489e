// `redscope explain`: the axioms that forbid an outcome (a minimal unsat
// core over the axiom literals, per path) and, for each, the edges of the
// execution that would need it broken; or a witness for an allowed outcome.
#include "redscope/explain.hpp"
#include "redscope/json.hpp"

#include <deque>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "ptx_encoding.hpp"
#include "redscope/report.hpp"
#include "z3_condition.hpp"

namespace redscope {

using detail::PtxEncoding;

std::string describe_event(const Skeleton& sk, EventId e) {
  const Event& x = sk.ev(e);
  if (x.is_init) return fmt::format("the initial value of {}", x.loc);
  std::string half;
  if (x.in_rmw) half = x.is_read() ? " (its read)" : " (its write)";
  return fmt::format("P{}'s {}{}", x.thread, x.text, half);
}

namespace {

std::string scope_name(Scope s) {
  switch (s) {
    case Scope::Cta: return ".cta";
    case Scope::Cluster: return ".cluster";
    case Scope::Gpu: return ".gpu";
    case Scope::Sys: return ".sys";
  }
  return "";
}

// Where two threads sit relative to each other.
std::string placement_words(const Placement& a, const Placement& b) {
  if (a.gpu != b.gpu) return "on different GPUs";
  if (a.cta == b.cta) return "in the same CTA";
  if (a.cluster == b.cluster) return "in different CTAs of one cluster";
  return "in different CTAs of one GPU";
}

// Why two events are (or are not) morally strong (PTX §8.6), in words.
std::string strength_words(const Skeleton& sk, EventId a, EventId b) {
  const Event& x = sk.ev(a);
  const Event& y = sk.ev(b);
  if (x.thread == y.thread) return "they are in the same thread";
  if (x.is_init || y.is_init) return "the initial write is not strong";
  if (!x.is_strong() || !y.is_strong())
    return fmt::format("{} is weak",
                       !x.is_strong() ? describe_event(sk, a) : describe_event(sk, b));
  const Placement& px = sk.placement[static_cast<std::size_t>(x.thread)];
  const Placement& py = sk.placement[static_cast<std::size_t>(y.thread)];
  const bool both = scope_includes(x.scope, px, py) && scope_includes(y.scope, py, px);
  return fmt::format("P{} ({}) and P{} ({}) are {}, so {}", x.thread, scope_name(x.scope), y.thread,
                     scope_name(y.scope), placement_words(px, py),
                     both ? "each scope contains the other thread"
                          : "one scope does not contain the other thread");
}

struct Target {
  std::vector<Observable> obs;
  std::vector<std::uint64_t> values;  // with an outcome
  std::string text;
};

Target parse_target(const LitmusTest& test, const Expansion& ex, const ExplainRequest& req) {
  Target t;
  if (!req.outcome) {
    t.obs = observables_of(test, ex, false);
    t.text = fmt::format("the condition {}", test.condition_text);
    return t;
  }
  const std::vector<Observable> all = observables_of(test, ex, true);
  std::stringstream ss(*req.outcome);
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
      return s;
    };
    item = trim(item);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(fmt::format("--outcome: '{}' is not LABEL=VALUE", item));
    const std::string label = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    auto it =
        std::find_if(all.begin(), all.end(), [&](const Observable& o) { return o.label == label; });
    if (it == all.end())
      throw std::invalid_argument(
          fmt::format("--outcome: the test has no register or location '{}'", label));
    const auto bits = literal_bits(value, it->type);
    if (!bits)
      throw std::invalid_argument(
          fmt::format("--outcome: '{}' is not a value of {}'s type", value, label));
    t.obs.push_back(*it);
    t.values.push_back(*bits);
    t.text += (t.text.empty() ? "" : "; ") + label + "=" + value;
  }
  if (t.obs.empty()) throw std::invalid_argument("--outcome names no register or location");
  return t;
}

// One path's solver with the target asserted.
struct PathCheck {
  detail::SolverKind kind;
  z3::solver s;
  PtxEncoding enc;
  PathCheck(z3::context& c, const Skeleton& sk, ModelKind model, const LitmusTest& test,
            const Target& t, const Budget* budget)
      : kind(detail::solver_kind_for(sk)),
        s(detail::make_solver(c, kind)),
        enc(c, s, sk, model, kind, budget) {
    enc.encode();
    std::vector<z3::expr> terms;
    for (const Observable& o : t.obs) terms.push_back(enc.observable(o));
    if (t.values.empty()) {
      s.add(condition_to_z3(c, test.condition, t.obs, terms));
    } else {
      for (std::size_t i = 0; i < terms.size(); ++i)
        s.add(terms[i] ==
              c.bv_val(static_cast<std::uint64_t>(t.values[i]), width_of(t.obs[i].type)));
    }
    if (test.filter) s.add(condition_to_z3(c, *test.filter, t.obs, terms));
  }
  bool sat_with(const std::vector<Axiom>& axioms) {
    z3::expr_vector v(s.ctx());
    for (Axiom a : axioms) v.push_back(enc.literal(a));
    v.push_back(enc.barrier_literal());
    return detail::is_sat(s, v);
  }
};

std::vector<Axiom> without(std::vector<Axiom> v, Axiom a) {
  v.erase(std::remove(v.begin(), v.end(), a), v.end());
  return v;
}

// Deletion-based minimization of an unsat set of axioms.
std::vector<Axiom> minimize(PathCheck& p, std::vector<Axiom> core) {
  for (std::size_t i = 0; i < core.size();) {
    const std::vector<Axiom> smaller = without(core, core[i]);
    if (!p.sat_with(smaller))
      core = smaller;
    else
      ++i;
  }
  return core;
}

// --- the edges that break each axiom, read off a model -------------------

class Breaker {
 public:
  Breaker(const Skeleton& sk, PtxEncoding& enc, const z3::model& m) : sk_(sk), enc_(enc), m_(m) {}

  Breach breach(Axiom a) {
    Breach b;
    b.axiom = a;
    switch (a) {
      case Axiom::Atomicity: atomicity(b); break;
      case Axiom::Causality: causality(b); break;
      case Axiom::Coherence: coherence(b); break;
      case Axiom::FenceSc: fence_sc(b); break;
      case Axiom::ScPerLocation: sc_per_location(b); break;
      case Axiom::NoThinAir: thin_air(b); break;
    }
    if (b.why.empty()) b.why = fmt::format("{}: the execution below breaks it", to_string(a));
    return b;
  }

 private:
  bool on(const Rel& r, EventId a, EventId b) const { return PtxEncoding::holds(m_, r, a, b); }
  bool exec(EventId e) const { return m_.eval(enc_.executed(e), true).is_true(); }
  std::string ev(EventId e) const { return describe_event(sk_, e); }
  std::string val(EventId e) const {
    return fmt::format("{}={}", sk_.ev(e).loc, m_.eval(enc_.value(e), true).get_numeral_uint64());
  }
  std::size_t n() const { return sk_.size(); }

  EventId source(EventId r) const {
    for (EventId w = 0; w < n(); ++w)
      if (on(enc_.rf_rel(), w, r)) return w;
    return r;
  }

  void atomicity(Breach& b) {
    const auto& rmw = enc_.rmw_matrix();
    const auto& ms = enc_.ms_matrix();
    for (EventId r = 0; r < n(); ++r)
      for (EventId w = 0; w < n(); ++w) {
        if (!rmw[r][w]) continue;
        for (EventId x = 0; x < n(); ++x) {
          if (x == w || !ms[r][x] || !ms[x][w] || !on(enc_.fr_rel(), r, x) ||
              !on(enc_.co_rel(), x, w) || !enc_.atomic_against_write(w, x))
            continue;
          const EventId src = source(r);
          b.why = fmt::format(
              "Atomicity: {} reads {} from {}, and {} writes {} between that read and P{}'s own "
              "write (fr, then co); "
              "the two are morally strong because {}",
              ev(r), val(r), ev(src), ev(x), val(x), sk_.ev(r).thread, strength_words(sk_, r, x));
          b.edges = {{src, r, "rf"}, {r, x, "fr"}, {x, w, "co"}, {r, w, "rmw"}};
          return;
        }
      }
  }

  // A path from a to b in the causality ingredients (po, sync, Fence-SC,
  // barriers, observation), breadth-first: the chain that orders them.
  std::vector<ExecEdge> cause_path(EventId a, EventId b) const {
    std::vector<std::optional<ExecEdge>> via(n());
    std::deque<EventId> q{a};
    std::vector<char> seen(n());
    seen[a] = 1;
    while (!q.empty()) {
      const EventId u = q.front();
      q.pop_front();
      if (u == b) break;
      for (EventId v = 0; v < n(); ++v) {
        if (seen[v] || !exec(v)) continue;
        const char* kind = on(enc_.sync_rel(), u, v)      ? "sync"
                           : on(enc_.sc_rel(), u, v)      ? "sc"
                           : on(enc_.barrier_rel(), u, v) ? "bar"
                           : on(enc_.obs_rel(), u, v)     ? "obs"
                           : enc_.po_matrix()[u][v]       ? "po"
                                                          : nullptr;
        if (!kind) continue;
        seen[v] = 1;
        via[v] = ExecEdge{u, v, kind};
        q.push_back(v);
      }
    }
    std::vector<ExecEdge> path;
    for (EventId v = b; v != a && via[v]; v = via[v]->from) path.insert(path.begin(), *via[v]);
    return path;
  }

  std::string chain_words(const std::vector<ExecEdge>& path) const {
    std::vector<std::string> parts;
    for (const ExecEdge& e : path) {
      if (e.kind == "sync")
        parts.push_back(
            fmt::format("{} synchronizes with {} (release pattern observed by an acquire pattern; "
                        "morally strong: {})",
                        ev(e.from), ev(e.to), strength_words(sk_, e.from, e.to)));
      else if (e.kind == "sc")
        parts.push_back(fmt::format("{} precedes {} in Fence-SC order", ev(e.from), ev(e.to)));
      else if (e.kind == "bar")
        parts.push_back(fmt::format("{} arrives before {} passes", ev(e.from), ev(e.to)));
      else if (e.kind == "obs")
        parts.push_back(fmt::format("{} is observed by {}", ev(e.from), ev(e.to)));
    }
    if (parts.empty()) return "";
    std::string s = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) s += "; " + parts[i];
    return s;
  }

  void causality(Breach& b) {
    const Rel& cause = enc_.cause_rel();
    for (EventId a = 0; a < n(); ++a)
      for (EventId c = 0; c < n(); ++c) {
        const bool rf = on(enc_.rf_rel(), a, c), fr = on(enc_.fr_rel(), a, c);
        if (!(rf || fr) || !on(cause, c, a)) continue;
        std::vector<ExecEdge> path = cause_path(c, a);
        const std::string chain = chain_words(path);
        if (fr) {
          const EventId src = source(a);
          b.why = fmt::format(
              "Causality: {} reads {} from {}, which is coherence-before {} (fr), yet {} precedes "
              "{} in causality order{}",
              ev(a), val(a), ev(src), ev(c), ev(c), ev(a), chain.empty() ? "" : ": " + chain);
          path.insert(path.begin(), ExecEdge{a, c, "fr"});
          path.insert(path.begin(), ExecEdge{src, a, "rf"});
        } else {
          b.why =
              fmt::format("Causality: {} reads {} from {}, which it precedes in causality order{}",
                          ev(c), val(c), ev(a), chain.empty() ? "" : ": " + chain);
          path.insert(path.begin(), ExecEdge{a, c, "rf"});
        }
        b.edges = std::move(path);
        return;
      }
  }

  void coherence(Breach& b) {
    for (EventId a = 0; a < n(); ++a)
      for (EventId c = 0; c < n(); ++c) {
        const Event& x = sk_.ev(a);
        const Event& y = sk_.ev(c);
        if (a == c || !x.is_write() || !y.is_write() || x.loc != y.loc || x.is_init || y.is_init ||
            !exec(a) || !exec(c))
          continue;
        if (on(enc_.cause_rel(), a, c) && !on(enc_.co_rel(), a, c)) {
          b.why = fmt::format(
              "Coherence: {} precedes {} in causality order{}, but is not coherence-before it",
              ev(a), ev(c), [&] {
                auto w = chain_words(cause_path(a, c));
                return w.empty() ? std::string() : " (" + w + ")";
              }());
          b.edges = cause_path(a, c);
          return;
        }
        if (enc_.ms_matrix()[a][c] && a < c && !on(enc_.co_rel(), a, c) &&
            !on(enc_.co_rel(), c, a)) {
          b.why = fmt::format(
              "Coherence: {} and {} are morally strong ({}) but left unordered by coherence", ev(a),
              ev(c), strength_words(sk_, a, c));
          return;
        }
      }
  }

  void fence_sc(Breach& b) {
    for (EventId a = 0; a < n(); ++a)
      for (EventId c = 0; c < n(); ++c)
        if (sk_.ev(a).is_sc_fence() && sk_.ev(c).is_sc_fence() && enc_.ms_matrix()[a][c] &&
            on(enc_.cause_rel(), a, c) && on(enc_.sc_rel(), c, a)) {
          b.why = fmt::format(
              "Fence-SC: {} precedes {} in causality order but follows it in Fence-SC order", ev(a),
              ev(c));
          b.edges = cause_path(a, c);
          b.edges.push_back(ExecEdge{c, a, "sc"});
          return;
        }
  }

  // A cycle in the union of the given edge kinds, as edges.
  std::vector<ExecEdge> find_cycle(const std::function<const char*(EventId, EventId)>& edge) const {
    std::vector<int> state(n(), 0);
    std::vector<ExecEdge> stack;
    std::vector<ExecEdge> found;
    std::function<bool(EventId)> dfs = [&](EventId u) {
      state[u] = 1;
      for (EventId v = 0; v < n(); ++v) {
        const char* k = edge(u, v);
        if (!k) continue;
        stack.push_back(ExecEdge{u, v, k});
        if (state[v] == 1) {
          auto it = std::find_if(stack.begin(), stack.end(),
                                 [&](const ExecEdge& e) { return e.from == v; });
          found.assign(it, stack.end());
          return true;
        }
        if (state[v] == 0 && dfs(v)) return true;
        stack.pop_back();
      }
      state[u] = 2;
      return false;
    };
    for (EventId s = 0; s < n() && found.empty(); ++s)
      if (state[s] == 0) dfs(s);
    return found;
  }

  std::string cycle_words(const std::vector<ExecEdge>& cyc) const {
    std::string s;
    for (const ExecEdge& e : cyc)
      s += fmt::format("{}{} -{}-> {}", s.empty() ? "" : ", ", ev(e.from), e.kind, ev(e.to));
    return s;
  }

  void sc_per_location(Breach& b) {
    const auto& ms = enc_.ms_matrix();
    b.edges = find_cycle([&](EventId u, EventId v) -> const char* {
      if (ms[u][v] && on(enc_.rf_rel(), u, v)) return "rf";
      if (ms[u][v] && on(enc_.co_rel(), u, v)) return "co";
      if (ms[u][v] && on(enc_.fr_rel(), u, v)) return "fr";
      if (enc_.poloc_matrix()[u][v] && exec(u) && exec(v)) return "po-loc";
      return nullptr;
    });
    if (!b.edges.empty())
      b.why =
          "SC-per-Location: a cycle of program order and morally strong rf/co/fr on one "
          "location: " +
          cycle_words(b.edges);
  }

  void thin_air(Breach& b) {
    b.edges = find_cycle([&](EventId u, EventId v) -> const char* {
      if (on(enc_.rf_rel(), u, v)) return "rf";
      if (enc_.dep_matrix()[u][v] && exec(u) && exec(v)) return "dep";
      return nullptr;
    });
    if (!b.edges.empty())
      b.why =
          "No-Thin-Air: values would justify themselves through a cycle of rf and dependencies: " +
          cycle_words(b.edges);
  }

  const Skeleton& sk_;
  PtxEncoding& enc_;
  const z3::model& m_;
};

// Sync edges of an allowed witness, in words.
std::vector<std::string> sync_notes(const Skeleton& sk, const Witness& w) {
  std::vector<std::string> out;
  for (const ExecEdge& e : w.edges)
    if (e.kind == "sync")
      out.push_back(fmt::format("{} synchronizes with {} ({})", describe_event(sk, e.from),
                                describe_event(sk, e.to), strength_words(sk, e.from, e.to)));
  return out;
}

}  // namespace

Explanation explain(const LitmusTest& test, const EngineOptions& opts, const ExplainRequest& req) {
  auto ex = std::make_shared<const Expansion>(expand(test, opts.expand));
  Explanation out;
  out.test = test.name;
  out.file = test.file;
  out.model = opts.model.value_or(model_for_target(test.target_sm));
  out.expansion = ex;
  const Target target = parse_target(test, *ex, req);
  out.outcome = target.text;
  out.target_sm = test.target_sm;
  const std::vector<Axiom> all(kAllAxioms.begin(), kAllAxioms.end());
  z3::context c;
  const Budget::Z3Guard guard(opts.budget, c);  // the watchdog may interrupt its checks
  struct Forbidden {
    std::size_t skeleton;
    std::vector<Axiom> core;
  };
  std::vector<Forbidden> cores;
  for (std::size_t i = 0; i < ex->skeletons.size(); ++i) {
    const Skeleton& sk = ex->skeletons[i];
    if (sk.cut) continue;
    ++out.paths;
    PathCheck p(c, sk, out.model, test, target, opts.budget);
    if (p.sat_with(all)) {
      out.allowed = true;
      out.witness = p.enc.witness(p.s.get_model(), i);
      out.notes = sync_notes(sk, out.witness);
      return out;
    }
    z3::expr_vector lits = p.enc.all_literals(false, {});
    if (detail::is_sat(p.s, lits)) {
      out.barrier_needed = true;
      continue;
    }
    if (!p.sat_with({})) {
      ++out.paths_without_values;
      continue;
    }
    cores.push_back({i, minimize(p, all)});
  }
  for (const Forbidden& f : cores)
    for (Axiom a : f.core)
      if (std::find(out.axioms.begin(), out.axioms.end(), a) == out.axioms.end())
        out.axioms.push_back(a);
  std::sort(out.axioms.begin(), out.axioms.end());
  // For each axiom, the first path whose minimal core has it: the execution
  // that gives the outcome once that axiom is dropped.
  for (Axiom a : out.axioms) {
    const auto f = std::find_if(cores.begin(), cores.end(), [&](const Forbidden& x) {
      return std::count(x.core.begin(), x.core.end(), a);
    });
    const Skeleton& sk = ex->skeletons[f->skeleton];
    PathCheck p(c, sk, out.model, test, target, opts.budget);
    if (!p.sat_with(without(all, a)) && !p.sat_with(without(f->core, a))) continue;
    const z3::model m = p.s.get_model();
    Breach b = Breaker(sk, p.enc, m).breach(a);
    b.execution = p.enc.witness(m, f->skeleton);
    out.breaches.push_back(std::move(b));
  }
  return out;
}

namespace {

std::string edge_text(const Skeleton& sk, const ExecEdge& e) {
  return fmt::format("{} -{}-> {}", describe_event(sk, e.from), e.kind, describe_event(sk, e.to));
}

}  // namespace

std::string render_text(const Explanation& e) {
  std::string s = fmt::format("Explain {} ({}): {} is {}\n", e.test, to_string(e.model), e.outcome,
                              e.allowed ? "Allowed" : "Forbidden");
  if (e.allowed) {
    s += "A witness execution:\n";
    for (const std::string& r : e.witness.rf) s += "  rf " + r + "\n";
    for (const std::string& r : e.witness.co) s += "  co " + r + "\n";
    for (const std::string& n : e.notes) s += "  " + n + "\n";
    return s;
  }
  if (e.axioms.empty()) {
    s += fmt::format(
        "No path of the test produces these values, whatever the axioms ({} of {} paths "
        "checked){}.\n",
        e.paths_without_values, e.paths,
        e.barrier_needed ? "; some would only by hanging at a barrier" : "");
    return s;
  }
  std::string names;
  for (Axiom a : e.axioms) names += (names.empty() ? "" : ", ") + std::string(to_string(a));
  s += fmt::format(
      "Forbidden by: {} (a minimal set: dropping any one of them on its path allows the outcome)\n",
      names);
  for (const Breach& b : e.breaches) {
    s += "\n" + b.why + "\n";
    const Skeleton& sk = e.expansion->skeletons[b.execution.skeleton];
    for (const ExecEdge& x : b.edges) s += "    " + edge_text(sk, x) + "\n";
    s += fmt::format("  The execution that would give the outcome without {}:\n",
                     to_string(b.axiom));
    for (const std::string& r : b.execution.rf) s += "    rf " + r + "\n";
    for (const std::string& r : b.execution.co) s += "    co " + r + "\n";
  }
  if (e.paths_without_values)
    s += fmt::format("({} other paths cannot produce these values at all.)\n",
                     e.paths_without_values);
  return s;
}

namespace {

Json edges_json(const Skeleton& sk, const std::vector<ExecEdge>& v) {
  Json a = Json::array();
  for (const ExecEdge& x : v)
    a.push(Json::object()
               .set("kind", x.kind)
               .set("from", describe_event(sk, x.from))
               .set("to", describe_event(sk, x.to)));
  return a;
}

Json witness_json(const Witness& w) {
  return Json::object().set("rf", Json::strings(w.rf)).set("co", Json::strings(w.co));
}

}  // namespace

std::string render_json(const Explanation& e) {
  // Field names as in run's JSON: target is the Target sm; outcome is what is explained.
  Json o = Json::object();
  o.set("test", e.test).set("file", e.file).set("model", to_string(e.model));
  o.set("target", fmt::format("sm_{}", e.target_sm)).set("outcome", e.outcome);
  o.set("verdict", e.allowed ? "allowed" : "forbidden");
  if (e.allowed) {
    o.set("witness", witness_json(e.witness)).set("synchronization", Json::strings(e.notes));
    return o.dump(Json::Layout::Line) + "\n";
  }
  Json axioms = Json::array(), breaches = Json::array();
  for (Axiom a : e.axioms) axioms.push(to_string(a));
  for (const Breach& b : e.breaches) {
    const Skeleton& sk = e.expansion->skeletons[b.execution.skeleton];
    breaches.push(Json::object()
                      .set("axiom", to_string(b.axiom))
                      .set("why", b.why)
                      .set("edges", edges_json(sk, b.edges))
                      .set("execution", witness_json(b.execution)));
  }
  o.set("axioms", std::move(axioms)).set("breaches", std::move(breaches));
  o.set("paths", e.paths).set("paths_without_values", e.paths_without_values);
  return o.dump(Json::Layout::Line) + "\n";
}

}  // namespace redscope
