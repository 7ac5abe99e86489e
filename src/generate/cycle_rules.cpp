// diy7's rules for enumerating cycles (docs/cycles.md "Enumerating"):
// the order of edges its Cycle= line is the least rotation in (herdtools7
// 7.58 gen/dumpAll.ml find_min_shift over gen/edge.ml compare), and which
// edge may follow which (gen/alt.ml can_precede and its choice_* per -mode).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "redscope/generate/cycle.hpp"

namespace redscope::generate {

namespace {

// OCaml's compare on gen/edge.ml's `tedge`: constructors in declaration
// order (Communication, Po, Fenced, Dp, ..., Rmw), then their arguments:
// com Rf < Fr < Co, ie Int < Ext, sd Same < Diff, dir W < R, dp Addr < Data
// < Ctrl (the architectures' `dp` types list them so).
int dir_rank(Dir d) { return d == Dir::W ? 0 : d == Dir::R ? 1 : -1; }  // Irr before Dir
int com_rank(EdgeKind k) { return k == EdgeKind::Rf ? 0 : k == EdgeKind::Fr ? 1 : 2; }
int dep_rank(DepKind d) { return d == DepKind::Addr ? 0 : d == DepKind::Data ? 1 : 2; }

// An annotation's key: none first (diy's `atom option`, None < Some), then
// its words (redscope's GPU annotations have no diy counterpart: by text).
std::tuple<bool, std::string, std::string, int> annot_key(const std::optional<EventAnnot>& a) {
  if (!a) return {false, "", "", -1};
  return {true, a->sem.value_or(""), a->scope.value_or(""),
          a->space ? static_cast<int>(*a->space) : -1};
}

std::tuple<int, int, int, std::string, int, int, int> tedge_key(const Edge& e) {
  const int sd = e.same_loc ? 0 : 1;
  switch (e.kind) {
    case EdgeKind::Rf:
    case EdgeKind::Fr:
    case EdgeKind::Co: return {0, com_rank(e.kind), e.external ? 1 : 0, "", 0, 0, 0};
    case EdgeKind::Po: return {1, sd, dir_rank(e.src), "", dir_rank(e.tgt), 0, 0};
    case EdgeKind::Fence: return {2, 0, 0, e.fence, sd, dir_rank(e.src), dir_rank(e.tgt)};
    case EdgeKind::Dep: return {3, dep_rank(e.dep), sd, "", dir_rank(e.tgt), 0, 0};
    case EdgeKind::Rmw: return {8, 0, 0, "", 0, 0, 0};  // after Leave, Back, Insert, Node
  }
  return {9, 0, 0, "", 0, 0, 0};
}

bool com(const Edge& e, EdgeKind k) { return e.kind == k; }
// Only Rfe, Fre and Coe are external (gen/edge.ml get_ie: Po, Dp, Fenced, Rmw: Int).
bool ext(const Edge& e) { return e.external; }
bool internal(const Edge& e) { return !e.external; }
bool po(const Edge& e, bool same) { return e.kind == EdgeKind::Po && e.same_loc == same; }
bool dp(const Edge& e) { return e.kind == EdgeKind::Dep; }
bool rmw(const Edge& e) { return e.kind == EdgeKind::Rmw; }
bool com_i(const Edge& e, EdgeKind k) { return e.kind == k && !e.external; }
bool po_dirs(const Edge& e, Dir s, Dir t) { return po(e, true) && e.src == s && e.tgt == t; }
// Coi | PosWW | Rfi | PosWR | Fri | PosRW (| Insert): choice_default's same-location internals.
bool same_internal(const Edge& e) {
  return com_i(e, EdgeKind::Co) || po_dirs(e, Dir::W, Dir::W) || com_i(e, EdgeKind::Rf) ||
         po_dirs(e, Dir::W, Dir::R) || com_i(e, EdgeKind::Fr) || po_dirs(e, Dir::R, Dir::W);
}
bool rfi_or_wr(const Edge& e) { return com_i(e, EdgeKind::Rf) || po_dirs(e, Dir::W, Dir::R); }

// gen/alt.ml choice_default: internal after internal only in these pairs.
bool choice_default(const Edge& a, const Edge& b) {
  if ((same_internal(a) && (dp(b) || po(b, false))) ||
      ((dp(a) || po(a, false)) && same_internal(b)))
    return true;
  if ((dp(a) && !a.same_loc && po(b, false)) || (po(a, false) && dp(b) && !b.same_loc)) return true;
  if ((rfi_or_wr(a) && po(b, true)) || (po(a, true) && rfi_or_wr(b))) return true;
  if (rmw(a) || rmw(b)) return true;
  return ext(a) || ext(b);
}

// gen/alt.ml choice_sc: a pair of internal edges is kept when the
// program-order edge it composes to is not safe (po_safe: the --edges Po words).
bool choice_sc(const Edge& a, const Edge& b, const PoSafe& safe) {
  const auto ps = [&](bool same, Dir s, Dir t) {
    return std::find(safe.begin(), safe.end(), std::make_tuple(same, s, t)) != safe.end();
  };
  const bool seq_same = a.same_loc && b.same_loc;  // Code.seq_sd
  if ((rfi_or_wr(a) && dp(b)) || (dp(a) && rfi_or_wr(b))) return true;
  if (dp(a) && (com_i(b, EdgeKind::Co) || po_dirs(b, Dir::W, Dir::W) || com_i(b, EdgeKind::Fr) ||
                po_dirs(b, Dir::R, Dir::W)))
    return !ps(a.same_loc, a.src, b.tgt);
  if (a.kind == EdgeKind::Po && dp(b))
    return !ps(a.same_loc, a.src, a.tgt) && !ps(seq_same, a.src, b.tgt);
  if (dp(a) && b.kind == EdgeKind::Po)
    return !ps(b.same_loc, b.src, b.tgt) && !ps(seq_same, a.src, b.tgt);
  if (a.kind == EdgeKind::Po && b.kind == EdgeKind::Po) return !ps(seq_same, a.src, b.tgt);
  if (com_i(a, EdgeKind::Rf) && b.kind == EdgeKind::Po)
    return ps(b.same_loc, b.src, b.tgt) && !ps(b.same_loc, a.src, b.tgt);
  if (a.kind == EdgeKind::Po && com_i(b, EdgeKind::Rf))
    return ps(a.same_loc, a.src, a.tgt) && !ps(a.same_loc, a.src, b.tgt);
  if (rmw(a) || rmw(b)) return true;
  return ext(a) || ext(b);
}

bool co_fr_then_rf(const Edge& a, const Edge& b) {
  return (com(a, EdgeKind::Co) || com(a, EdgeKind::Fr)) && com(b, EdgeKind::Rf);
}

// An edge of one of diy's compositions: no annotations (gen/edge.ml plain_edge).
Edge plain(EdgeKind k, bool same, Dir src, Dir tgt) {
  Edge e;
  e.kind = k;
  e.same_loc = same;
  e.src = src;
  e.tgt = tgt;
  return e;
}

// The single edges two internal edges compose to (gen/edge.ml
// compact_sequence: com, po, snd_fence, fst_fence, fst_dp, sequence_dp, with
// cDep's dependencies, as -arch C has them): the program order they make,
// the fence either holds over it, a control dependency carried on, an
// address dependency followed by another dependency, and Coi;Coi -> Coi,
// Fri;Coi -> Fri, Rfi;Fri -> Coi. The location: Same only if both keep it
// (Code.seq_sd).
std::vector<Edge> compositions(const Edge& a, const Edge& b) {
  const bool same = a.same_loc && b.same_loc;
  std::vector<Edge> out;
  if ((com(a, EdgeKind::Co) || com(a, EdgeKind::Fr)) && com(b, EdgeKind::Co)) out.push_back(a);
  if (com(a, EdgeKind::Rf) && com(b, EdgeKind::Fr))
    out.push_back(plain(EdgeKind::Co, true, Dir::W, Dir::W));
  out.push_back(plain(EdgeKind::Po, same, a.src, b.tgt));
  for (const Edge* f : {&b, &a})
    if (f->kind == EdgeKind::Fence) {
      out.push_back(plain(EdgeKind::Fence, same, a.src, b.tgt));
      out.back().fence = f->fence;
    }
  const auto dep = [&](DepKind d) {
    out.push_back(plain(EdgeKind::Dep, same, a.src, b.tgt));
    out.back().dep = d;
  };
  if (dp(a) && a.dep == DepKind::Ctrl) dep(DepKind::Ctrl);
  if (dp(a) && dp(b) && a.dep == DepKind::Addr) dep(b.dep);
  return out;
}

// gen/alt.ml choice_transitive: a pair of internal edges is kept when none of
// the edges it composes to is a word of the vocabulary (that shorter cycle is
// made already).
bool choice_transitive(const Edge& a, const Edge& b, const std::vector<Edge>& vocabulary) {
  if (ext(a) || ext(b)) return true;
  for (const Edge& c : compositions(a, b))
    for (const Edge& w : vocabulary)
      if (diy_compare(c, w) == 0) return false;
  return true;
}

bool choice(const Edge& a, const Edge& b, const PairRules& r) {
  switch (r.mode) {
    case Mode::Default: return choice_default(a, b);
    case Mode::Sc: return choice_sc(a, b, r.po_safe);
    case Mode::Critical:  // alternance of internal and external, but Co/Fr then Rf
      return co_fr_then_rf(a, b) || rmw(a) || rmw(b) || internal(a) != internal(b);
    case Mode::Mixed:
      if (co_fr_then_rf(a, b) || rmw(a) || rmw(b)) return true;
      if (internal(a) && internal(b)) return a.same_loc || b.same_loc;
      return internal(a) != internal(b);
    case Mode::Uni:  // Co;Co, Fr;Co and Rf;Fr alternate (below); Po;Po never
      return !(a.kind == EdgeKind::Po && b.kind == EdgeKind::Po);
    case Mode::Free:
    case Mode::Thin:
    case Mode::Total: return true;
    case Mode::Ppo:  // no edge twice in a row; after a control dependency to a read, an
                     // external edge (choice_ppo; cDep's is_ctrlr: Ctrl, as -arch C)
      if (diy_compare(a, b) == 0) return false;
      return !(dp(a) && a.dep == DepKind::Ctrl && a.tgt == Dir::R) || ext(b);
    case Mode::Transitive: return choice_transitive(a, b, r.vocabulary);
  }
  return true;
}

}  // namespace

int diy_compare(const Edge& a, const Edge& b) {
  const auto key = [](const Edge& e) {
    return std::make_tuple(annot_key(e.src_annot), annot_key(e.tgt_annot), tedge_key(e),
                           e.level ? static_cast<int>(*e.level) : -1);
  };
  const auto ka = key(a), kb = key(b);
  return ka < kb ? -1 : kb < ka ? 1 : 0;
}

std::vector<Edge> least_rotation(const std::vector<Edge>& es) {
  const std::size_t n = es.size();
  std::size_t best = 0;
  const auto less = [&](std::size_t i, std::size_t j) {
    for (std::size_t k = 0; k < n; ++k)
      if (const int c = diy_compare(es[(i + k) % n], es[(j + k) % n]); c != 0) return c < 0;
    return false;
  };
  for (std::size_t i = 1; i < n; ++i)
    if (less(i, best)) best = i;
  std::vector<Edge> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(es[(best + k) % n]);
  return out;
}

bool can_precede(const Edge& a, const Edge& b, const PairRules& r) {
  if (a.tgt != b.src) return false;
  // Two communications that only order a location's writes again (Co;Co -> Co,
  // Fr;Co -> Fr, Rf;Fr -> Co): kept only when one is internal and one external.
  const bool pair = (com(a, EdgeKind::Co) && com(b, EdgeKind::Co)) ||
                    (com(a, EdgeKind::Fr) && com(b, EdgeKind::Co)) ||
                    (com(a, EdgeKind::Rf) && com(b, EdgeKind::Fr));
  if (pair) return r.keep_com_pairs || a.external != b.external;
  return choice(a, b, r);  // fences are cumulative (diy's default -cumul all)
}

namespace {
constexpr std::array<std::pair<std::string_view, Observers>, 4> kObservers = {{
    {"avoid", Observers::Avoid},
    {"accept", Observers::Accept},
    {"force", Observers::Force},
    {"local", Observers::Local},
}};
}  // namespace

std::optional<Observers> parse_observers(std::string_view s) {
  for (const auto& [name, o] : kObservers)
    if (name == s) return o;
  return std::nullopt;
}

std::string_view observers_name(Observers o) {
  for (const auto& [name, x] : kObservers)
    if (x == o) return name;
  return "avoid";
}

std::optional<Mode> parse_mode(std::string_view s) {
  // gen/config.ml parse_mode's names ("def" and "trans" too).
  static constexpr std::array<std::pair<std::string_view, Mode>, 12> kModes = {{
      {"default", Mode::Default},
      {"def", Mode::Default},
      {"sc", Mode::Sc},
      {"critical", Mode::Critical},
      {"mixed", Mode::Mixed},
      {"uni", Mode::Uni},
      {"free", Mode::Free},
      {"thin", Mode::Thin},
      {"total", Mode::Total},
      {"ppo", Mode::Ppo},
      {"transitive", Mode::Transitive},
      {"trans", Mode::Transitive},
  }};
  for (const auto& [name, m] : kModes)
    if (name == s) return m;
  return std::nullopt;
}

std::string_view mode_names() {
  return "default, sc, critical, mixed, uni, free, thin, total, ppo or transitive";
}

}  // namespace redscope::generate
