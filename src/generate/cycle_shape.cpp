// From a cycle of edges to the execution it describes (docs/cycles.md): the
// rules are diy7's (herdtools7 gen/edge.ml, gen/normaliser.ml) — directions
// chain, threads split at external edges, locations at different-location
// edges, values 1, 2, ... per location in coherence order — plus the GPU
// annotations: each event's .sem/.scope, each location's state space, the
// threads' placement composed around the cycle.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/generate/cycle_shape.hpp"

namespace redscope::generate::detail {

namespace {

class Errors {
 public:
  explicit Errors(const std::string& source) : source_(source) {}
  [[noreturn]] void at(const Edge& e, const std::string& msg) const {
    throw InputError(Diagnostic{source_,
                                {1, static_cast<int>(e.column)},
                                fmt::format("edge {} '{}': {}", e.position, edge_text(e), msg)});
  }
  [[noreturn]] void whole(const std::string& msg) const {
    throw InputError(Diagnostic{source_, {1, 1}, msg});
  }

 private:
  const std::string& source_;
};

const char* dir_word(Dir d) { return d == Dir::R ? "a read" : "a write"; }

// Irr ('*') directions take the neighbour's (diy's resolve_edges); then
// every edge must start where the previous one ends.
std::vector<Edge> resolve_dirs(std::vector<Edge> es, const Errors& err) {
  const std::size_t n = es.size();
  for (std::size_t i = 0; i < n; ++i) {
    Edge& a = es[i];
    Edge& b = es[(i + 1) % n];
    if (a.tgt == Dir::Any && b.src != Dir::Any) a.tgt = b.src;
    if (b.src == Dir::Any && a.tgt != Dir::Any) b.src = a.tgt;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Edge& a = es[i];
    const Edge& b = es[(i + 1) % n];
    if (a.tgt == Dir::Any || b.src == Dir::Any)
      err.at(a.tgt == Dir::Any ? a : b,
             "cannot infer the direction of its event from the neighbouring edges; give it "
             "(e.g. Fence.sc.gpudWR)");
    if (a.tgt != b.src) {
      const std::string what =
          fmt::format("starts at {} but edge {} '{}' ends at {}", dir_word(b.src), a.position,
                      edge_text(a), dir_word(a.tgt));
      err.at(b, what);
    }
  }
  return es;
}

bool internal_com(const Edge& e) {
  return !e.external &&
         (e.kind == EdgeKind::Rf || e.kind == EdgeKind::Fr || e.kind == EdgeKind::Co);
}

// diy's points (gen/normaliser.ml): a thread's first and last event
// directions, ranked W, WW, RR, RW, WR, R.
int points_rank(Dir first, Dir last, bool one) {
  if (one) return first == Dir::W ? 0 : 10;
  if (first == Dir::W) return last == Dir::W ? 1 : 8;
  return last == Dir::R ? 2 : 6;
}

std::vector<int> points_of(const std::vector<Edge>& es, std::size_t start) {
  const std::size_t n = es.size();
  const bool any_ext = std::any_of(es.begin(), es.end(), [](const Edge& e) { return e.external; });
  std::vector<int> points;
  std::size_t first = start;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    const bool ends = any_ext ? es[i].external : internal_com(es[i]);
    if (ends || k + 1 == n) {
      points.push_back(points_rank(es[first].src, es[i].src, first == i));
      first = (i + 1) % n;
    }
  }
  return points;
}

// The rotation diy would print: the smallest sequence of points, then of
// edge words, among the rotations that start a thread.
std::vector<Edge> normalise(const std::vector<Edge>& es) {
  const std::size_t n = es.size();
  std::optional<std::pair<std::vector<int>, std::vector<std::string>>> best;
  std::size_t best_start = 0;
  for (std::size_t start : proc_starts(es)) {
    std::vector<std::string> words;
    for (std::size_t k = 0; k < n; ++k) words.push_back(edge_text(es[(start + k) % n]));
    auto key = std::make_pair(points_of(es, start), std::move(words));
    if (!best || key < *best) best = std::move(key), best_start = start;
  }
  std::vector<Edge> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(es[(best_start + k) % n]);
  return out;
}

void assign_locations(Shape& s, const Errors& err) {
  const std::size_t n = s.edges.size();
  std::vector<std::size_t> diffs;
  for (std::size_t i = 0; i < n; ++i)
    if (!s.edges[i].same_loc) diffs.push_back(i);
  if (diffs.size() == 1)
    err.at(s.edges[diffs[0]],
           "the only edge between different locations: the cycle would "
           "come back to the location it left (use Pos.. or a second Pod..)");
  std::vector<int> raw(n, 0);
  if (!diffs.empty()) {
    int loc = 0;
    for (std::size_t k = 1; k <= n; ++k) {
      const std::size_t ev = (diffs[0] + k) % n;
      raw[ev] = loc;
      if (!s.edges[ev].same_loc) ++loc;
    }
  }
  std::map<int, int> rename;  // x, y, z in order of first access
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] = rename.emplace(raw[i], static_cast<int>(rename.size()));
    s.events[i].loc = it->second;
  }
  s.locations = static_cast<int>(rename.size());
}

void merge_annot(EventAnnot& into, const EventAnnot& from, const Edge& by, const Edge& other,
                 const Errors& err) {
  const auto clash = [&](const char* what) {
    err.at(by, fmt::format("its event's {} differs from what edge {} '{}' says of it", what,
                           other.position, edge_text(other)));
  };
  if (from.sem && into.sem && *from.sem != *into.sem) clash(".sem");
  if (from.scope && into.scope && *from.scope != *into.scope) clash(".scope");
  if (from.space && into.space && *from.space != *into.space) clash("state space");
  if (from.sem) into.sem = from.sem;
  if (from.scope) into.scope = from.scope;
  if (from.space) into.space = from.space;
}

void assign_annotations(Shape& s, const CycleOptions& options, const Errors& err) {
  const std::size_t n = s.edges.size();
  const EventAnnot def = parse_default_sem(options.sem, "--sem");
  s.spaces.assign(s.locations, options.space);
  std::vector<std::optional<Space>> given(s.locations);
  for (std::size_t i = 0; i < n; ++i) {
    const Edge& in = s.edges[(i + n - 1) % n];
    const Edge& out = s.edges[i];
    if (out.kind == EdgeKind::Rmw) {
      s.events[i].rmw_write = static_cast<int>((i + 1) % n);
      s.events[i].rmw_part = s.events[(i + 1) % n].rmw_part = true;
    }
    EventAnnot a;
    if (in.tgt_annot) merge_annot(a, *in.tgt_annot, in, out, err);
    if (out.src_annot) merge_annot(a, *out.src_annot, out, in, err);
    Event& ev = s.events[i];
    const Edge& blame = out.src_annot ? out : in;
    if (!a.sem && a.scope && def.sem == "weak") a.sem = "relaxed";
    ev.sem = a.sem.value_or(*def.sem);
    if (ev.rmw_part && !a.sem && ev.sem == "weak") ev.sem = "relaxed";
    ev.scope = ev.sem == "weak" ? "" : a.scope.value_or(def.scope.value_or("gpu"));
    if (ev.sem == "weak" && a.scope) err.at(blame, "a weak access takes no scope");
    if (ev.rmw_part && ev.sem == "weak") err.at(blame, "an Rmw's accesses are an atom: not weak");
    if (ev.dir == Dir::R && ev.sem == "release") err.at(blame, "a read cannot be a release");
    if (ev.dir == Dir::W && ev.sem == "acquire") err.at(blame, "a write cannot be an acquire");
    if (ev.sem == "acq_rel") err.at(blame, "acq_rel is an Rmw's: write Rmw[acq_rel.SCOPE]");
    if (a.space) {
      if (given[ev.loc] && *given[ev.loc] != *a.space)
        err.at(blame, fmt::format("{} is in one state space: another edge says otherwise",
                                  location_name(ev.loc)));
      given[ev.loc] = a.space;
      s.spaces[ev.loc] = *a.space;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (s.edges[i].kind == EdgeKind::Rmw && s.events[i].scope != s.events[(i + 1) % n].scope)
      err.at(s.edges[i], "the read and the write of one atom have one scope");
}

// The level of two threads is the smallest, over the two ways round the
// cycle, of the largest level on the way (the minimax path: an ultrametric).
Level pair_level(const std::vector<Level>& ext, std::size_t a, std::size_t b) {
  const std::size_t t = ext.size();
  Level one = Level::Cta, two = Level::Cta;
  for (std::size_t k = a; k != b; k = (k + 1) % t) one = std::max(one, ext[k]);
  for (std::size_t k = b; k != a; k = (k + 1) % t) two = std::max(two, ext[k]);
  return std::min(one, two);
}

void place_threads(Shape& s, const CycleOptions& options, const Errors& err) {
  const std::size_t n = s.edges.size();
  s.levels.assign(n, options.placement);
  std::vector<std::size_t> ext;
  for (std::size_t i = 0; i < n; ++i)
    if (s.edges[i].external) {
      ext.push_back(i);
      s.levels[i] = s.edges[i].level.value_or(options.placement);
    }
  s.placements.assign(s.threads, {});
  if (ext.size() < 2) return;
  // Round a cycle the largest level must be crossed twice (out and back).
  const auto top = [&] {
    Level m = Level::Cta;
    for (std::size_t i : ext) m = std::max(m, s.levels[i]);
    return m;
  };
  const auto crossings = [&](Level m) {
    return std::count_if(ext.begin(), ext.end(), [&](std::size_t i) { return s.levels[i] == m; });
  };
  if (crossings(top()) < 2) {
    // The default alone cannot close the cycle: the edges without '@' cross
    // as far as the widest annotated one.
    Level widest = Level::Cta;
    for (std::size_t i : ext)
      if (s.edges[i].level) widest = std::max(widest, *s.edges[i].level);
    for (std::size_t i : ext)
      if (!s.edges[i].level) s.levels[i] = widest;
    const Level m = top();
    if (crossings(m) < 2) {
      const std::size_t lone =
          *std::find_if(ext.begin(), ext.end(), [&](std::size_t i) { return s.levels[i] == m; });
      err.at(s.edges[lone],
             "its placement is wider than every other external edge's, so the "
             "cycle cannot come back to the first thread (another edge must "
             "cross as far)");
    }
  }
  std::vector<Level> by_thread;
  for (std::size_t i : ext) by_thread.push_back(s.levels[i]);
  // Numbers: GPUs in order; clusters and CTAs numbered within their GPU.
  const auto number = [&](std::size_t t, Level within, int Placement::*field, bool per_gpu) {
    for (std::size_t u = 0; u < t; ++u)
      if (pair_level(by_thread, u, t) <= within) return s.placements[u].*field;
    int next = 0;
    for (std::size_t u = 0; u < t; ++u)
      if (!per_gpu || s.placements[u].gpu == s.placements[t].gpu)
        next = std::max(next, s.placements[u].*field + 1);
    return next;
  };
  for (std::size_t t = 0; t < static_cast<std::size_t>(s.threads); ++t) {
    s.placements[t].gpu = number(t, Level::Gpu, &Placement::gpu, false);
    s.placements[t].cluster = number(t, Level::Cluster, &Placement::cluster, true);
    s.placements[t].cta = number(t, Level::Cta, &Placement::cta, true);
  }
  for (std::size_t i : ext) s.clusters |= s.levels[i] == Level::Cluster;
}

void check_shared(const Shape& s, const Errors& err) {
  const std::size_t n = s.edges.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Event& a = s.events[i];
    const Event& b = s.events[(i + 1) % n];
    if (s.edges[i].external && a.loc == b.loc && s.spaces[a.loc] == Space::Shared &&
        s.levels[i] != Level::Cta)
      err.at(s.edges[i], fmt::format("{} is in shared memory, which only the threads of one "
                                     "CTA share; give this edge @cta",
                                     location_name(a.loc)));
  }
}

// Coherence per location: Co edges, and an Fr from a read that an Rf feeds,
// order two writes; otherwise the order of the location's run of edges. An
// Rmw is not a communication: its atomicity is what the model checks.
void order_writes(Shape& s, const Errors& err) {
  const std::size_t n = s.edges.size();
  for (std::size_t i = 0; i < n; ++i)
    if (s.edges[i].kind == EdgeKind::Rf) s.events[(i + 1) % n].rf_src = static_cast<int>(i);
  std::vector<std::vector<int>> after(n);
  std::vector<int> indegree(n, 0);
  std::vector<const Edge*> why(n, nullptr);
  const auto before = [&](int a, int b, const Edge& e) {
    after[a].push_back(b);
    ++indegree[b];
    why[b] = &e;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Edge& e = s.edges[i];
    const int src = static_cast<int>(i), tgt = static_cast<int>((i + 1) % n);
    if (e.kind == EdgeKind::Co) before(src, tgt, e);
    if (e.kind == EdgeKind::Fr && s.events[src].rf_src >= 0) before(s.events[src].rf_src, tgt, e);
  }
  // A location's run starts after the edge that enters it from another location.
  std::vector<std::size_t> run_start(s.locations, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (!s.edges[i].same_loc) run_start[s.events[(i + 1) % n].loc] = (i + 1) % n;
  const auto rank = [&](int ev) {
    return (static_cast<std::size_t>(ev) + n - run_start[s.events[ev].loc]) % n;
  };
  using Item = std::pair<std::size_t, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  std::size_t writes = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (s.events[i].dir == Dir::W) {
      ++writes;
      if (indegree[i] == 0) ready.push({rank(static_cast<int>(i)), static_cast<int>(i)});
    }
  std::vector<int> count(s.locations, 0);
  std::size_t placed = 0;
  while (!ready.empty()) {
    const int w = ready.top().second;
    ready.pop();
    s.events[w].value = ++count[s.events[w].loc];
    ++placed;
    for (int b : after[w])
      if (--indegree[b] == 0) ready.push({rank(b), b});
  }
  if (placed != writes) {
    for (std::size_t i = 0; i < n; ++i)
      if (s.events[i].dir == Dir::W && indegree[i] > 0 && why[i])
        err.at(*why[i], fmt::format("the communication edges order the writes to {} in a "
                                    "cycle: no execution shows this cycle",
                                    location_name(s.events[i].loc)));
  }
}

// An observer thread for `loc` (diy's straight observer), placed in a CTA of
// its own on GPU 0, or beside a writer when the location is in shared memory.
void add_observer(Shape& s, int loc, int writes, const EventAnnot& def) {
  Placement p;
  if (s.spaces[loc] == Space::Shared) {
    const auto writer = std::find_if(s.events.begin(), s.events.end(), [&](const Event& e) {
      return e.loc == loc && e.dir == Dir::W;
    });
    p = s.placements[writer->thread];
  } else {
    for (const Placement& q : s.placements)
      if (q.gpu == 0)
        p.cta = std::max(p.cta, q.cta + 1), p.cluster = std::max(p.cluster, q.cluster);
  }
  const int o = static_cast<int>(s.observers.size());
  Event load;
  load.thread = s.threads;
  load.loc = loc;
  load.sem = def.sem.value_or("weak");
  load.scope = load.sem == "weak" ? "" : def.scope.value_or("gpu");
  s.observers.push_back({s.threads, writes, load});
  s.placements.push_back(p);
  ++s.threads;
  for (int j = 0; j < writes; ++j) s.condition.push_back({-1, loc, j + 1, o, j});
}

void observe(Shape& s, const CycleOptions& options, const Errors& err) {
  const std::size_t n = s.edges.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = s.events[i];
    if (ev.dir != Dir::R) continue;
    const Edge& out = s.edges[i];
    if (ev.rf_src >= 0)
      s.condition.push_back({static_cast<int>(i), ev.loc, s.events[ev.rf_src].value});
    else if (out.kind == EdgeKind::Fr)
      s.condition.push_back({static_cast<int>(i), ev.loc, s.events[(i + 1) % n].value - 1});
  }
  const EventAnnot def = parse_default_sem(options.sem, "--sem");
  for (int loc = 0; loc < s.locations; ++loc) {
    int writes = 0, last = 0;
    for (const Event& ev : s.events)
      if (ev.loc == loc && ev.dir == Dir::W) ++writes, last = std::max(last, ev.value);
    if (writes >= 2) s.condition.push_back({-1, loc, last});
    if (writes >= 3 && options.obs == Observers::Avoid)
      err.whole(fmt::format(
          "{} has {} writes, whose coherence order its final value cannot show: diy7's "
          "default (-obs avoid) makes no test; --obs accept adds an observer thread, --obs "
          "local checks the final value only",
          location_name(loc), writes));
    const int from = options.obs == Observers::Force ? 2 : 3;
    if (writes >= from && (options.obs == Observers::Accept || options.obs == Observers::Force))
      add_observer(s, loc, writes, def);
  }
  if (s.condition.empty())
    err.whole("the cycle has no communication edge a condition could observe (Rf, Fr, Co)");
}

}  // namespace

std::string location_name(int loc) {
  static constexpr std::array<const char*, 10> kNames = {"x", "y", "z", "a", "b",
                                                         "c", "d", "e", "f", "g"};
  return loc < static_cast<int>(kNames.size()) ? kNames[loc] : fmt::format("x{}", loc);
}

std::vector<std::size_t> proc_starts(const std::vector<Edge>& edges) {
  const std::size_t n = edges.size();
  std::vector<std::size_t> starts;
  const bool any_ext =
      std::any_of(edges.begin(), edges.end(), [](const Edge& e) { return e.external; });
  for (std::size_t i = 0; i < n; ++i)
    if (any_ext ? edges[i].external : internal_com(edges[i])) starts.push_back((i + 1) % n);
  if (starts.empty()) starts.push_back(0);
  std::sort(starts.begin(), starts.end());
  return starts;
}

Shape build_shape(const std::vector<Edge>& cycle, const CycleOptions& options,
                  const std::string& source) {
  const Errors err(source);
  if (cycle.size() < 2)
    err.whole("a cycle has at least two edges (e.g. \"PosWR Fri\", \"PodWW Rfe PodRR Fre\")");
  Shape s;
  s.edges = normalise(resolve_dirs(cycle, err));
  const std::size_t n = s.edges.size();
  const auto ext =
      std::count_if(s.edges.begin(), s.edges.end(), [](const Edge& e) { return e.external; });
  if (std::none_of(s.edges.begin(), s.edges.end(), [](const Edge& e) {
        return e.kind == EdgeKind::Rf || e.kind == EdgeKind::Fr || e.kind == EdgeKind::Co;
      }))
    err.whole(
        "the cycle has no communication edge (Rf, Fr, Co): program order alone "
        "cannot go round");
  if (ext == 1)
    err.at(*std::find_if(s.edges.begin(), s.edges.end(), [](const Edge& e) { return e.external; }),
           "the only external edge: it would lead back into the thread it leaves");
  s.events.resize(n);
  int thread = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s.events[i].dir = s.edges[i].src;
    s.events[i].thread = thread;
    if (s.edges[i].external && i + 1 < n) ++thread;
  }
  s.threads = thread + 1;
  assign_locations(s, err);
  assign_annotations(s, options, err);
  place_threads(s, options, err);
  check_shared(s, err);
  order_writes(s, err);
  observe(s, options, err);
  if (options.lang)
    if (const auto no = options.lang->unsupported(s))
      err.at(s.edges[no->first],
             fmt::format("has no {} form: {}", options.lang->header, no->second));
  return s;
}

}  // namespace redscope::generate::detail
