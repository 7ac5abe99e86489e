#include "redscope/report/dot.hpp"
#include "redscope/core/output.hpp"
#include "redscope/frontend/frontend.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/subgraph.hpp>

extern char** environ;

namespace redscope {
namespace {

using Attrs = std::map<std::string, std::string>;
using DotGraph = boost::subgraph<boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::property<boost::vertex_attribute_t, Attrs>,
    boost::property<boost::edge_index_t, int, boost::property<boost::edge_attribute_t, Attrs>>,
    boost::property<
        boost::graph_name_t, std::string,
        boost::property<boost::graph_graph_attribute_t, Attrs,
                        boost::property<boost::graph_vertex_attribute_t, Attrs,
                                        boost::property<boost::graph_edge_attribute_t, Attrs>>>>>>;

struct Style {
  const char* color;
  const char* extra;  // "dashed", "bold" or ""
};

Style style_of(const std::string& kind) {
  static const std::map<std::string, Style> styles{
      {"po", {"black", ""}},     {"rmw", {"gray40", "bold"}},   {"rf", {"#d62728", ""}},
      {"co", {"#1f77b4", ""}},   {"fr", {"#ff7f0e", "dashed"}}, {"sync", {"#2ca02c", "bold"}},
      {"obs", {"#8c564b", ""}},  {"sc", {"#17becf", ""}},       {"bar", {"#7f7f7f", "dashed"}},
      {"po-loc", {"black", ""}}, {"dep", {"#e377c2", "dashed"}}};
  auto it = styles.find(kind);
  return it == styles.end() ? Style{"black", ""} : it->second;
}

// Only covering edges of a transitive relation (co; fr per read).
std::vector<ExecEdge> covering(const std::vector<ExecEdge>& all, const std::string& kind,
                               const std::set<std::pair<EventId, EventId>>& co) {
  std::vector<ExecEdge> out;
  for (const ExecEdge& e : all) {
    if (e.kind != kind) continue;
    bool implied = false;
    for (const ExecEdge& f : all)
      if (f.kind == kind && f.from == e.from && f.to != e.to && co.count({f.to, e.to}))
        implied = true;
    if (!implied) out.push_back(e);
  }
  return out;
}

std::string node_label(const Skeleton& sk, const Witness& w, EventId e) {
  const Event& x = sk.ev(e);
  std::string value;
  // An access through an alias or a non-generic proxy names the path too:
  // "reads x=1 (as y, surface)".
  std::string via;
  if (x.is_memory() && !x.is_init && (x.vloc != x.loc || x.proxy != Proxy::Generic))
    via = fmt::format(" (as {}{}{})", x.vloc, x.proxy != Proxy::Generic ? ", " : "",
                      x.proxy != Proxy::Generic ? to_string(x.proxy) : "");
  for (const auto& [id, v] : w.values)
    if (id == e)
      value = fmt::format("\n{} {}={}{}", x.is_read() ? "reads" : "writes", x.loc, v, via);
  if (x.is_init) return fmt::format("init {}{}", x.loc, value);
  std::string half = x.in_rmw ? (x.is_read() ? " (R)" : " (W)") : "";
  return fmt::format("{}{}{}", x.text, half, value);
}

// How the engines name an event in a witness's rf and co texts ("init x",
// "P1#0 atom.add r0, [x], 1 (read)"): query.hpp's witness_label, and the
// enumerator's own copy of it.
std::string text_label(const Skeleton& sk, EventId e) {
  const Event& ev = sk.ev(e);
  if (ev.is_init) return fmt::format("init {}", ev.loc);
  return fmt::format("P{}#{} {}{}", ev.thread, ev.po_index, ev.text,
                     ev.in_rmw ? (ev.is_read() ? " (read)" : " (write)") : "");
}

// A witness given as rf and co texts only (the enumerator's) with its edges
// recovered: each "A -> B" matched against the skeleton's events, the
// initial write of a cell co-before the cell's other writes, and fr = rf^-1
// ; co. A text that names no event of `sk` is left out.
Witness with_edges(const Skeleton& sk, Witness w) {
  std::map<std::string, EventId> id;
  for (EventId e = 0; e < sk.size(); ++e) id.emplace(text_label(sk, e), e);
  auto pairs = [&](const EdgeTexts& texts, const char* kind) {
    for (const std::string& t : texts) {
      const auto arrow = t.find(" -> ");
      if (arrow == std::string::npos) continue;
      const auto a = id.find(t.substr(0, arrow)), b = id.find(t.substr(arrow + 4));
      if (a != id.end() && b != id.end()) w.edges.push_back({a->second, b->second, kind});
    }
  };
  pairs(w.rf, "rf");
  pairs(w.co, "co");
  std::set<std::pair<EventId, EventId>> co;
  for (const ExecEdge& e : w.edges)
    if (e.kind == "co") co.insert({e.from, e.to});
  for (EventId i = 0; i < sk.size(); ++i)
    for (EventId x = 0; x < sk.size(); ++x)
      if (sk.ev(i).is_init && sk.ev(x).is_write() && !sk.ev(x).is_init &&
          sk.ev(x).loc == sk.ev(i).loc && co.insert({i, x}).second)
        w.edges.push_back({i, x, "co"});
  const std::vector<ExecEdge> rf_co = w.edges;
  for (const ExecEdge& r : rf_co)
    if (r.kind == "rf")
      for (const auto& [a, b] : co)
        if (a == r.from) w.edges.push_back({r.to, b, "fr"});
  return w;
}

}  // namespace

std::string witness_dot(const Skeleton& sk, const Witness& given, const std::string& title,
                        const std::vector<ExecEdge>& highlight) {
  const bool texts_only =
      std::none_of(given.edges.begin(), given.edges.end(),
                   [](const ExecEdge& e) { return e.kind == "rf" || e.kind == "co"; }) &&
      (!given.rf.empty() || !given.co.empty());
  const Witness w = texts_only ? with_edges(sk, given) : given;
  std::vector<EventId> events = w.executed;
  if (events.empty())
    for (EventId e = 0; e < sk.size(); ++e) events.push_back(e);
  DotGraph g(events.size());
  std::map<EventId, std::size_t> index;
  for (std::size_t i = 0; i < events.size(); ++i) index[events[i]] = i;
  boost::get_property(g, boost::graph_name) = "G";
  boost::get_property(g, boost::graph_graph_attribute) = {
      {"label", title}, {"labelloc", "t"}, {"fontname", "Helvetica"}, {"rankdir", "TB"}};
  boost::get_property(g, boost::graph_vertex_attribute) = {
      {"shape", "box"}, {"style", "rounded"}, {"fontname", "Helvetica"}, {"fontsize", "11"}};
  boost::get_property(g, boost::graph_edge_attribute) = {{"fontname", "Helvetica"},
                                                         {"fontsize", "10"}};
  // Clusters: initial writes; per CTA; per thread inside its CTA.
  std::map<std::pair<int, int>, DotGraph*> ctas;
  std::map<ThreadId, DotGraph*> threads;
  DotGraph* init = nullptr;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& x = sk.ev(events[i]);
    DotGraph* home = nullptr;
    if (x.is_init) {
      if (!init) {
        init = &g.create_subgraph();
        boost::get_property(*init, boost::graph_name) = "cluster_init";
        boost::get_property(*init, boost::graph_graph_attribute) = {{"label", "initial values"},
                                                                    {"style", "dotted"}};
      }
      home = init;
    } else {
      const Placement& p = sk.placement[static_cast<std::size_t>(x.thread)];
      DotGraph*& cta = ctas[{p.gpu, p.cta}];
      if (!cta) {
        cta = &g.create_subgraph();
        boost::get_property(*cta, boost::graph_name) =
            fmt::format("cluster_gpu{}_cta{}", p.gpu, p.cta);
        boost::get_property(*cta, boost::graph_graph_attribute) = {
            {"label", fmt::format("GPU {} / CTA {}", p.gpu, p.cta)}, {"style", "dashed"}};
      }
      DotGraph*& th = threads[x.thread];
      if (!th) {
        th = &cta->create_subgraph();
        boost::get_property(*th, boost::graph_name) = fmt::format("cluster_P{}", x.thread);
        boost::get_property(*th, boost::graph_graph_attribute) = {
            {"label", fmt::format("P{}", x.thread)}, {"style", "solid"}};
      }
      home = th;
    }
    boost::add_vertex(boost::vertex(i, g), *home);
    boost::get(boost::vertex_attribute, g)[boost::vertex(i, g)]["label"] =
        node_label(sk, w, events[i]);
  }
  // Edges: po (immediate, per thread), rmw, then the witness's relations.
  std::vector<ExecEdge> edges;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const Event& a = sk.ev(events[i]);
    const Event& b = sk.ev(events[i + 1]);
    if (!a.is_init && !b.is_init && a.thread == b.thread)
      edges.push_back(
          {events[i], events[i + 1], a.in_rmw && b.in_rmw && a.is_read() ? "rmw" : "po"});
  }
  std::set<std::pair<EventId, EventId>> co;
  for (const ExecEdge& e : w.edges)
    if (e.kind == "co") co.insert({e.from, e.to});
  for (const ExecEdge& e : w.edges)
    if (e.kind == "rf" || e.kind == "sync") edges.push_back(e);
  for (const char* k : {"co", "fr"})
    for (const ExecEdge& e : covering(w.edges, k, co)) edges.push_back(e);
  for (const ExecEdge& h : highlight)
    if (std::find(edges.begin(), edges.end(), h) == edges.end()) edges.push_back(h);
  int next = 0;
  for (const ExecEdge& e : edges) {
    if (!index.count(e.from) || !index.count(e.to)) continue;
    auto [d, ok] =
        boost::add_edge(boost::vertex(index[e.from], g), boost::vertex(index[e.to], g), g);
    boost::put(boost::edge_index, g, d, next++);
    const Style st = style_of(e.kind);
    Attrs& a = boost::get(boost::edge_attribute, g)[d];
    const bool hot = std::find(highlight.begin(), highlight.end(), e) != highlight.end();
    // A relation across threads is labelled near its head: mid-edge labels
    // of two crossing edges (MP's two rf) fall on one another. Two kinds
    // that can share a head sit at different distances and sides (rf and
    // sync end at one read, co and fr at one write).
    const bool across = e.kind != "po" && e.kind != "rmw";
    a[across ? "headlabel" : "label"] = e.kind == "po" ? "" : e.kind;
    if (across) {
      const bool second = e.kind == "sync" || e.kind == "fr";
      a["labeldistance"] = second ? "5" : "2.2";
      a["labelangle"] = second ? "25" : "-35";
    }
    a["color"] = hot ? "#9400d3" : st.color;
    a["fontcolor"] = a["color"];
    if (*st.extra) a["style"] = st.extra;
    if (hot) a["penwidth"] = "3";
    if (across) a["constraint"] = "false";
  }
  std::ostringstream out;
  boost::write_graphviz(out, g);
  return out.str();
}

bool have_dot_program() {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && ::access((dir + "/dot").c_str(), X_OK) == 0) return true;
  return false;
}

std::string file_stem(const std::string& name) {
  std::string s;
  for (char c : name)
    s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '+' ||
          c == '.')
             ? c
             : '_';
  return s.empty() ? "test" : s;
}

namespace {

// The folders of an address's file, absolute and normal where possible.
std::vector<std::string> folders_of(const std::string& address) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(address_file(address), ec);
  if (ec) p = address_file(address);
  std::vector<std::string> out;
  for (const auto& part : p.lexically_normal().parent_path()) out.push_back(part.string());
  return out;
}

}  // namespace

constexpr std::size_t kMaxStem = 160;

std::vector<std::string> unique_stems(const std::vector<std::string>& addresses) {
  std::vector<std::vector<std::string>> dirs;
  for (const std::string& a : addresses) dirs.push_back(folders_of(a));
  std::size_t common = dirs.empty() ? 0 : dirs.front().size();
  for (const auto& d : dirs) {
    std::size_t k = 0;
    while (k < common && k < d.size() && d[k] == dirs.front()[k]) ++k;
    common = k;
  }
  std::vector<std::string> bases;
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    std::string b;
    for (std::size_t k = common; k < dirs[i].size(); ++k) b += file_stem(dirs[i][k]) + "__";
    b += file_stem(address_stem(addresses[i]));
    // A file name holds at most NAME_MAX (255) bytes: keep room for the
    // "-K" suffixes and "-12-Causality.svg" endings the callers add.
    if (b.size() > kMaxStem) b.resize(kMaxStem);
    bases.push_back(b);
  }
  const std::set<std::string> all(bases.begin(), bases.end());
  std::set<std::string> used;
  std::vector<std::string> out;
  for (const std::string& b : bases) {
    std::string s = b;
    for (int k = 2; used.count(s); ++k) {
      s = fmt::format("{}-{}", b, k);
      if (all.count(s)) s = b;  // another address's own stem: try the next suffix
    }
    used.insert(s);
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> write_picture(const std::string& dir, const std::string& stem,
                                       const std::string& dot_text) {
  std::filesystem::create_directories(dir);
  const std::string dot_path = (std::filesystem::path(dir) / (stem + ".dot")).string();
  write_file_replacing(dot_path, dot_text);  // a link at the name is replaced
  std::vector<std::string> out{dot_path};
  if (!have_dot_program()) return out;
  const std::string svg = (std::filesystem::path(dir) / (stem + ".svg")).string();
  std::error_code gone;
  std::filesystem::remove(svg, gone);  // dot writes through a link: none is left there
  std::string a0 = "dot", a1 = "-Tsvg", a2 = dot_path, a3 = "-o", a4 = svg;
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
  // Graphviz's warnings go to STEM.dot.log beside the picture (kept only when
  // not empty), never onto the user's terminal.
  const std::string log = dot_path + ".log";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "dot", &fa, nullptr, argv, environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) out.push_back(svg);
  }
  posix_spawn_file_actions_destroy(&fa);
  std::error_code ec;
  if (std::filesystem::file_size(log, ec) == 0 && !ec) std::filesystem::remove(log, ec);
  return out;
}

}  // namespace redscope
