// Edges of diy7's vocabulary with redscope's GPU annotations (docs/cycles.md).
// The words follow herdtools7's gen/edge.ml: Po{s,d}XY, Rf{i,e}, Fr{i,e},
// Co{i,e} (Ws{i,e} its older spelling), Dp{Addr,Data,Ctrl}{s,d}Y, Rmw, and a
// fence's name followed by {s,d}XY (X, Y in R, W, * for "either").
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/generate/cycle.hpp"

namespace redscope::generate {

namespace {

[[noreturn]] void fail(const std::string& source, std::size_t column, const std::string& msg) {
  throw InputError(Diagnostic{source, {1, static_cast<int>(column)}, msg});
}

struct EdgeContext {
  std::string_view word;
  const std::string& source;
  std::size_t column;
  std::size_t position;
  [[noreturn]] void error(const std::string& msg, std::size_t offset = 0) const {
    // position 0: a --sem value, not an edge of a cycle.
    fail(source, column + offset,
         position == 0 ? fmt::format("'{}': {}", printable(word), msg)
                       : fmt::format("edge {} '{}': {}", position, printable(word), msg));
  }
};

std::optional<Dir> dir_of(char c) {
  switch (c) {
    case 'R': return Dir::R;
    case 'W': return Dir::W;
    case '*': return Dir::Any;
    default: return std::nullopt;
  }
}

constexpr std::array<std::string_view, 4> kScopes = {"cta", "cluster", "gpu", "sys"};

// "{s,d}XY" after a Po or fence word; empty `rest` is "d**" for fences.
void read_sd_dirs(std::string_view rest, Edge& e, const EdgeContext& cx, bool optional) {
  if (rest.empty() && optional) {
    e.same_loc = false;
    return;
  }
  if (rest.size() != 3 || (rest[0] != 's' && rest[0] != 'd') || !dir_of(rest[1]) ||
      !dir_of(rest[2]))
    cx.error(
        "expected s (same location) or d (different locations) and two directions "
        "among R, W, * (e.g. PodWR, Fence.sc.gpudWR)");
  e.same_loc = rest[0] == 's';
  e.src = *dir_of(rest[1]);
  e.tgt = *dir_of(rest[2]);
}

bool read_communication(std::string_view w, Edge& e, const EdgeContext& cx) {
  static constexpr std::array<std::pair<std::string_view, EdgeKind>, 4> kComs = {
      {{"Rf", EdgeKind::Rf}, {"Fr", EdgeKind::Fr}, {"Co", EdgeKind::Co}, {"Ws", EdgeKind::Co}}};
  for (const auto& [prefix, kind] : kComs) {
    if (!w.starts_with(prefix)) continue;
    const std::string_view ie = w.substr(2);
    if (ie != "i" && ie != "e")
      cx.error(fmt::format("expected {}i (same thread) or {}e (another thread)", prefix, prefix));
    e.kind = kind;
    e.external = ie == "e";
    e.same_loc = true;
    e.src = kind == EdgeKind::Fr ? Dir::R : Dir::W;
    e.tgt = kind == EdgeKind::Rf ? Dir::R : Dir::W;
    return true;
  }
  return false;
}

bool read_dependency(std::string_view w, Edge& e, const EdgeContext& cx) {
  if (!w.starts_with("Dp")) return false;
  static constexpr std::array<std::pair<std::string_view, DepKind>, 3> kDeps = {
      {{"Addr", DepKind::Addr}, {"Data", DepKind::Data}, {"Ctrl", DepKind::Ctrl}}};
  for (const auto& [name, kind] : kDeps) {
    const std::string_view rest = w.substr(2);
    if (!rest.starts_with(name)) continue;
    const std::string_view sd = rest.substr(name.size());
    if (sd.size() != 2 || (sd[0] != 's' && sd[0] != 'd') || (sd[1] != 'R' && sd[1] != 'W'))
      cx.error(fmt::format("expected Dp{}dR, Dp{}dW, Dp{}sR or Dp{}sW", name, name, name, name));
    e.kind = EdgeKind::Dep;
    e.dep = kind;
    e.same_loc = sd[0] == 's';
    e.src = Dir::R;
    e.tgt = sd[1] == 'R' ? Dir::R : Dir::W;
    if (kind == DepKind::Data && e.tgt == Dir::R)
      cx.error(
          "a data dependency ends at a write (DpDatadW): a read's value depends on no "
          "register");
    return true;
  }
  cx.error("unknown dependency: expected DpAddr, DpData or DpCtrl");
}

bool read_fence(std::string_view w, Edge& e, const EdgeContext& cx) {
  // diy's "the strong fence" words: Fenced**/Fences**, here fence.sc.sys.
  if (w.starts_with("Fenced") || w.starts_with("Fences")) {
    e.kind = EdgeKind::Fence;
    e.fence = "fence.sc.sys";
    read_sd_dirs(w.substr(5), e, cx, false);
    return true;
  }
  if (!w.starts_with("Fence.") && !w.starts_with("fence.")) return false;
  std::string_view rest = w.substr(6);
  std::string sem;
  for (std::string_view s : {"sc.", "acq_rel."})
    if (rest.starts_with(s)) sem = std::string(s.substr(0, s.size() - 1));
  if (sem.empty()) cx.error("a fence is Fence.sc.SCOPE or Fence.acq_rel.SCOPE");
  rest = rest.substr(sem.size() + 1);
  std::string_view scope;
  for (std::string_view s : kScopes)
    if (rest.starts_with(s)) scope = s;
  if (scope.empty()) cx.error("a fence's scope is cta, cluster, gpu or sys");
  e.kind = EdgeKind::Fence;
  e.fence = fmt::format("fence.{}.{}", sem, scope);
  read_sd_dirs(rest.substr(scope.size()), e, cx, true);
  return true;
}

void read_word(std::string_view w, Edge& e, const EdgeContext& cx) {
  if (w.starts_with("Po")) {
    e.kind = EdgeKind::Po;
    read_sd_dirs(w.substr(2), e, cx, false);
    return;
  }
  if (w == "Rmw") {
    e.kind = EdgeKind::Rmw;
    e.same_loc = true;
    e.src = Dir::R;
    e.tgt = Dir::W;
    return;
  }
  if (read_communication(w, e, cx) || read_dependency(w, e, cx) || read_fence(w, e, cx)) return;
  cx.error(
      "unknown edge: expected one of Po{s,d}XY, Rfi, Rfe, Fri, Fre, Coi, Coe (Wsi, Wse), "
      "Dp{Addr,Data,Ctrl}{s,d}Y, Rmw, Fence.{sc,acq_rel}.SCOPE[{s,d}XY], Fenced XY "
      "(docs/cycles.md)");
}

// One side of `[SRC,TGT]`: dot-separated words in any order.
EventAnnot read_annot(std::string_view text, const EdgeContext& cx, std::size_t offset) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kSems = {
      {{"weak", "weak"},
       {"w", "weak"},
       {"relaxed", "relaxed"},
       {"rlx", "relaxed"},
       {"acquire", "acquire"},
       {"acq", "acquire"},
       {"release", "release"},
       {"rel", "release"},
       {"acq_rel", "acq_rel"}}};
  EventAnnot a;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t dot = std::min(text.find('.', start), text.size());
    const std::string_view word = text.substr(start, dot - start);
    std::optional<std::string> sem, scope;
    std::optional<Space> space;
    for (const auto& [spelling, meaning] : kSems)
      if (word == spelling) sem = std::string(meaning);
    for (std::string_view sc : kScopes)
      if (word == sc) scope = std::string(sc);
    if (word == "global") space = Space::Global;
    if (word == "shared") space = Space::Shared;
    if (!sem && !scope && !space)
      cx.error(fmt::format("unknown annotation '{}': expected a .sem (weak, relaxed, acquire, "
                           "release, acq_rel), a .scope (cta, cluster, gpu, sys) or a state "
                           "space (global, shared), joined by dots",
                           printable(word)),
               offset + start);
    if ((sem && a.sem) || (scope && a.scope) || (space && a.space))
      cx.error(fmt::format("'{}' gives a second .sem, .scope or state space", printable(word)),
               offset + start);
    if (sem) a.sem = sem;
    if (scope) a.scope = scope;
    if (space) a.space = space;
    start = dot + 1;
  }
  if (a.sem == "weak" && a.scope)
    cx.error("a weak access takes no scope (PTX: only strong accesses have one)", offset);
  return a;
}

void read_annotations(std::string_view body, Edge& e, const EdgeContext& cx, std::size_t offset) {
  const std::size_t comma = body.find(',');
  if (comma == std::string_view::npos) {
    if (body.empty()) cx.error("empty annotation: write [SRC,TGT], [,TGT], [SRC,] or [BOTH]");
    EventAnnot both = read_annot(body, cx, offset);
    if (e.kind == EdgeKind::Rmw && both.sem == "acq_rel") {
      EventAnnot r = both, w = both;
      r.sem = "acquire";
      w.sem = "release";
      e.src_annot = r;
      e.tgt_annot = w;
    } else {
      e.src_annot = e.tgt_annot = both;
    }
    return;
  }
  const std::string_view src = body.substr(0, comma), tgt = body.substr(comma + 1);
  if (tgt.find(',') != std::string_view::npos)
    cx.error("an edge has two events: write [SRC,TGT]", offset + comma + 1 + tgt.find(','));
  if (!src.empty()) e.src_annot = read_annot(src, cx, offset);
  if (!tgt.empty()) e.tgt_annot = read_annot(tgt, cx, offset + comma + 1);
}

std::optional<Level> level_of(std::string_view w) {
  if (w == "cta") return Level::Cta;
  if (w == "cluster") return Level::Cluster;
  if (w == "gpu") return Level::Gpu;
  if (w == "sys") return Level::Sys;
  return std::nullopt;
}

}  // namespace

Edge parse_edge(std::string_view word, const std::string& source, std::size_t column,
                std::size_t position) {
  const EdgeContext cx{word, source, column, position};
  Edge e;
  e.column = column;
  e.position = position;
  std::string_view rest = word;
  std::optional<std::string_view> level;
  if (const std::size_t at = rest.find('@'); at != std::string_view::npos) {
    level = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  std::optional<std::string_view> annots;
  std::size_t annots_at = 0;
  if (const std::size_t open = rest.find('['); open != std::string_view::npos) {
    if (rest.back() != ']') cx.error("an annotation [SRC,TGT] must end with ']'", rest.size());
    annots = rest.substr(open + 1, rest.size() - open - 2);
    annots_at = open + 1;
    rest = rest.substr(0, open);
  }
  read_word(rest, e, cx);
  if (annots) read_annotations(*annots, e, cx, annots_at);
  if (level) {
    if (!e.external)
      cx.error("only an external edge (Rfe, Fre, Coe) says where its threads are ('@')",
               word.size() - level->size() - 1);
    e.level = level_of(*level);
    if (!e.level)
      cx.error(fmt::format("unknown placement '@{}': expected @cta (same CTA), @cluster (another "
                           "CTA of the cluster), @gpu (another cluster of the GPU) or @sys "
                           "(another GPU)",
                           printable(*level)),
               word.size() - level->size());
  }
  return e;
}

std::vector<Edge> parse_cycle(std::string_view text, const std::string& source) {
  std::vector<Edge> edges;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == ',') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' &&
           text[j] != ',' && text[j] != '[')
      ++j;
    if (j < text.size() && text[j] == '[') {  // an annotation may hold a comma
      const std::size_t close = text.find(']', j);
      j = close == std::string_view::npos ? text.size() : close + 1;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != ',') ++j;
    }
    edges.push_back(parse_edge(text.substr(i, j - i), source, i + 1, edges.size() + 1));
    i = j;
  }
  if (edges.empty()) fail(source, 1, "empty cycle: give edges such as \"PodWW Rfe PodRR Fre\"");
  if (edges.size() > kMaxCycleEdges)
    fail(source, edges[kMaxCycleEdges].column,
         fmt::format("a cycle has at most {} edges (this one has {})", kMaxCycleEdges,
                     edges.size()));
  return edges;
}

EventAnnot parse_default_sem(std::string_view text, const std::string& source) {
  const EdgeContext cx{text, source, 1, 0};
  try {
    EventAnnot a = read_annot(text, cx, 0);
    if (!a.sem) a.sem = "relaxed";
    if (a.sem != "weak" && !a.scope) a.scope = "gpu";
    if (a.sem != "weak" && a.sem != "relaxed")
      fail(source, 1, "--sem is weak or relaxed.SCOPE (acquire and release are per event)");
    return a;
  } catch (const InputError& e) {
    throw InputError(Diagnostic{source, {1, 1}, e.diagnostic().message});
  }
}

std::string edge_text(const Edge& e) {
  static constexpr std::array<char, 3> kDirs = {'R', 'W', '*'};
  const auto sd_dirs = [&] {
    return fmt::format("{}{}{}", e.same_loc ? 's' : 'd', kDirs[static_cast<int>(e.src)],
                       kDirs[static_cast<int>(e.tgt)]);
  };
  std::string w;
  switch (e.kind) {
    case EdgeKind::Po: w = "Po" + sd_dirs(); break;
    case EdgeKind::Fence: w = "Fence" + e.fence.substr(5) + sd_dirs(); break;
    case EdgeKind::Dep:
      w = fmt::format("Dp{}{}{}",
                      e.dep == DepKind::Addr   ? "Addr"
                      : e.dep == DepKind::Data ? "Data"
                                               : "Ctrl",
                      e.same_loc ? 's' : 'd', kDirs[static_cast<int>(e.tgt)]);
      break;
    case EdgeKind::Rf: w = e.external ? "Rfe" : "Rfi"; break;
    case EdgeKind::Fr: w = e.external ? "Fre" : "Fri"; break;
    case EdgeKind::Co: w = e.external ? "Coe" : "Coi"; break;
    case EdgeKind::Rmw: w = "Rmw"; break;
  }
  const auto annot = [](const std::optional<EventAnnot>& a) {
    if (!a) return std::string();
    std::string s = a->sem.value_or("");
    if (a->scope) s += (s.empty() ? "" : ".") + *a->scope;
    if (a->space)
      s += std::string(s.empty() ? "" : ".") + (*a->space == Space::Shared ? "shared" : "global");
    return s;
  };
  if (e.src_annot || e.tgt_annot)
    w += fmt::format("[{},{}]", annot(e.src_annot), annot(e.tgt_annot));
  if (e.level) w += "@" + std::string(kScopes[static_cast<int>(*e.level)]);
  return w;
}

}  // namespace redscope::generate
