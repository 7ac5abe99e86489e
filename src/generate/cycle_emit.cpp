// The litmus text and the name of a cycle's test (docs/cycles.md). Names
// follow diy7 (herdtools7 gen/normaliser.ml for the family, gen/namer.ml for
// the edges: "+po" omitted, one edge name for all threads made plural),
// then redscope's suffixes for the events' .sem/.scope, the placement and
// shared locations.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "redscope/frontend/frontend.hpp"
#include "redscope/generate/cycle_shape.hpp"

namespace redscope::generate::detail {

namespace {

// gen/normaliser.ml's family names for the keys of its points.
std::string family(const std::string& key, bool allsame) {
  static const std::map<std::string, std::string> kSame = {{"WW", "CoWW"},    {"RW", "CoRW1"},
                                                           {"W+RW", "CoRW2"}, {"W+WR", "CoWR"},
                                                           {"W+RR", "CoRR"},  {"WR", "CoWR0"}};
  static const std::map<std::string, std::string> kFamilies = {
      {"WW+RR", "MP"},         {"WR+WR", "SB"},         {"WR+WR+WR", "3.SB"},
      {"WR+WR+WR+WR", "4.SB"}, {"W+RW+RR", "WRC"},      {"W+RR+WR", "RWC"},
      {"RW+RW", "LB"},         {"RW+RW+RW", "3.LB"},    {"RW+RW+RW+RW", "4.LB"},
      {"WW+WR", "R"},          {"W+RW+WR", "WRW+WR"},   {"W+RR+WW", "WRR+2W"},
      {"WW+RW", "S"},          {"W+RW+RW", "WWC"},      {"WW+WW", "2+2W"},
      {"WW+WW+WW", "3.2W"},    {"WW+WW+WW+WW", "4.2W"}, {"W+RW+WW", "WRW+2W"},
      {"WW+RR+WR", "W+RWC"},   {"WW+RW+RR", "ISA2"},    {"W+RR+W+RR", "IRIW"},
      {"W+RR+W+RW", "IRRWIW"}, {"W+RW+W+RR", "IRRWIW"}, {"W+RW+W+RW", "IRWIW"},
      {"WW+RW+WR", "Z6.0"},    {"WW+WW+RW", "Z6.1"},    {"WW+RW+RW", "Z6.2"},
      {"WW+WW+RR", "Z6.3"},    {"WW+WR+WR", "Z6.4"},    {"WW+WW+WR", "Z6.5"}};
  if (allsame)
    if (auto it = kSame.find(key); it != kSame.end()) return it->second;
  if (auto it = kFamilies.find(key); it != kFamilies.end()) return it->second;
  return key;
}

// gen/namer.ml's edge_name.
std::string edge_name(const Edge& e) {
  const char* s = e.same_loc ? "s" : "";
  switch (e.kind) {
    case EdgeKind::Po: return e.same_loc ? "pos" : "po";
    case EdgeKind::Fence: return e.fence + s;
    case EdgeKind::Dep:
      return std::string(e.dep == DepKind::Data   ? "data"
                         : e.dep == DepKind::Ctrl ? "ctrl"
                                                  : "addr") +
             s;
    case EdgeKind::Rf: return "rfi";
    case EdgeKind::Fr: return "fri";
    case EdgeKind::Co: return "coi";
    case EdgeKind::Rmw: return "rmw";
  }
  return "";
}

bool ambiguous(const Edge& e) {
  return e.kind == EdgeKind::Po || e.kind == EdgeKind::Fence || e.kind == EdgeKind::Dep;
}

std::string event_code(const Event& ev) {
  static const std::map<std::string, std::string> kShort = {
      {"weak", "w"}, {"relaxed", "rlx"}, {"acquire", "acq"}, {"release", "rel"}};
  const std::string sem = kShort.at(ev.sem);
  return ev.scope.empty() ? sem : sem + "." + ev.scope;
}

std::string level_code(Level l) {
  static constexpr std::array<const char*, 4> kLevels = {"cta", "cluster", "gpu", "sys"};
  return kLevels[static_cast<int>(l)];
}

// diy's name: the family of the threads' shapes, then the threads' edges.
std::string diy_name(const Shape& s) {
  const std::size_t n = s.edges.size();
  const auto letter = [](Dir d) { return d == Dir::W ? "W" : "R"; };
  std::vector<std::string> keys, threads;
  const auto starts = proc_starts(s.edges);
  for (std::size_t p = 0; p < starts.size(); ++p) {
    const std::size_t first = starts[p];
    const std::size_t end = p + 1 < starts.size() ? starts[p + 1] : starts[0] + n;
    const std::size_t last = (end - 1) % n;
    keys.push_back(std::string(letter(s.events[first].dir)) +
                   (first == last ? "" : letter(s.events[last].dir)));
    std::vector<std::string> parts;
    for (std::size_t i = first; i + 1 < end; ++i) {
      const Edge& e = s.edges[i % n];
      const bool dir = i + 2 < end && ambiguous(e) && ambiguous(s.edges[(i + 1) % n]);
      parts.push_back(edge_name(e) + (dir ? letter(e.tgt) : ""));
    }
    if (!parts.empty()) threads.push_back(fmt::format("{}", fmt::join(parts, "-")));
  }
  const bool allsame =
      std::all_of(s.edges.begin(), s.edges.end(), [](const Edge& e) { return e.same_loc; });
  std::string name = family(fmt::format("{}", fmt::join(keys, "+")), allsame);
  const bool same = !threads.empty() && std::all_of(threads.begin(), threads.end(),
                                                    [&](auto& t) { return t == threads[0]; });
  if (same && (threads[0] == "po" || (threads.size() == 1 && threads[0] == "pos"))) return name;
  if (same) return name + "+" + threads[0] + (threads.size() == 1 ? "" : "s");
  for (const auto& t : threads) name += "+" + t;
  return name;
}

// The events' .sem/.scope when they are not all weak: one code when all
// are the same, else each thread's events joined by '-', threads by '_'.
std::string sem_suffix(const Shape& s) {
  std::vector<std::string> per_thread(s.threads);
  const std::string first = event_code(s.events[0]);
  bool uniform = true;
  for (const Event& ev : s.events) {
    const std::string code = event_code(ev);
    uniform &= code == first;
    auto& t = per_thread[ev.thread];
    t += (t.empty() ? "" : "-") + code;
  }
  if (!uniform) return "+" + fmt::format("{}", fmt::join(per_thread, "_"));
  return first == "w" ? "" : "+" + first;
}

// The placement when it is not `gpu` everywhere, then shared locations.
std::string place_suffix(const Shape& s, const CycleOptions& options) {
  std::vector<std::string> levels;
  bool default_levels = options.placement == Level::Gpu;
  for (std::size_t i = 0; i < s.edges.size(); ++i)
    if (s.edges[i].external) {
      levels.push_back(level_code(s.levels[i]));
      default_levels &= s.levels[i] == Level::Gpu;
    }
  std::string out;
  if (!default_levels) {
    const bool one =
        std::all_of(levels.begin(), levels.end(), [&](auto& l) { return l == levels[0]; });
    out += "@" + (one ? levels[0] : fmt::format("{}", fmt::join(levels, "-")));
  }
  std::vector<std::string> shared;
  for (int loc = 0; loc < s.locations; ++loc)
    if (s.spaces[loc] == Space::Shared) shared.push_back(location_name(loc));
  if (static_cast<int>(shared.size()) == s.locations) return out + "+shared";
  if (!shared.empty()) out += "+shared." + fmt::format("{}", fmt::join(shared, "."));
  return out;
}

std::string test_name(const Shape& s, const CycleOptions& options) {
  return diy_name(s) + sem_suffix(s) + place_suffix(s, options);
}

std::string access(const Event& ev) { return ev.scope.empty() ? ev.sem : ev.sem + "." + ev.scope; }

// Each thread's instructions, in order: the edge into an event first (a
// fence, a dependency's instructions), then the event's access.
std::vector<std::vector<std::string>> thread_code(const Shape& s) {
  const std::size_t n = s.edges.size();
  std::vector<std::vector<std::string>> code(s.threads);
  std::vector<int> reg(n, -1), regs(s.threads, 0), temps(s.threads, 0), labels(s.threads, 0),
      addrs(s.threads, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = s.events[i];
    auto& out = code[ev.thread];
    const Edge& in = s.edges[(i + n - 1) % n];
    std::string loc = location_name(ev.loc);  // or [tN], through an address dependency
    std::string value = fmt::format("{}", ev.value);
    if (i > 0 && !in.external) {
      const int src = reg[i - 1];
      if (in.kind == EdgeKind::Fence) out.push_back(in.fence);
      if (in.kind == EdgeKind::Dep && in.dep == DepKind::Ctrl) {
        const std::string label = fmt::format("LC{}{:02}", ev.thread, labels[ev.thread]++);
        out.push_back(fmt::format("beq r{}, 0, {}", src, label));
        out.push_back(label + ":");
      }
      if (in.kind == EdgeKind::Dep && in.dep == DepKind::Addr) {
        // diy's false address dependency: the read's value, less itself, added
        // to the location's address (docs/litmus-format.md "Addresses in registers").
        // Its registers are %a0, %a1, ...: the reader takes an address only
        // from a register so named (or rN).
        const int a = addrs[ev.thread];
        addrs[ev.thread] += 3;
        out.push_back(fmt::format("sub.s64 %a{}, r{}, r{}", a, src, src));
        out.push_back(fmt::format("mov.u64 %a{}, {}", a + 1, loc));
        out.push_back(fmt::format("add.u64 %a{}, %a{}, %a{}", a + 2, a + 1, a));
        loc = fmt::format("[%a{}]", a + 2);
      }
      if (in.kind == EdgeKind::Dep && in.dep == DepKind::Data) {
        // diy's false dependency: the value is the constant, computed from the read.
        value = fmt::format("t{}", temps[ev.thread]++);
        out.push_back(fmt::format("sub.s32 {}, r{}, r{}", value, src, src));
        out.push_back(fmt::format("add.s32 {}, {}, {}", value, value, ev.value));
      }
    }
    if (ev.rmw_write >= 0) {
      const Event& w = s.events[ev.rmw_write];
      reg[i] = regs[ev.thread]++;
      const std::string at = loc.starts_with("[") ? loc : "[" + loc + "]";
      out.push_back(fmt::format("atom.{}.{}.exch.b32 r{}, {}, {}", atom_sem(ev, w), ev.scope,
                                reg[i], at, w.value));
    } else if (ev.rmw_part) {
      continue;  // the write of an atom written above
    } else if (ev.dir == Dir::R) {
      reg[i] = regs[ev.thread]++;
      out.push_back(fmt::format("ld.{} r{}, {}", access(ev), reg[i], loc));
    } else {
      out.push_back(fmt::format("st.{} {}, {}", access(ev), loc, value));
    }
  }
  for (const ObserverThread& o : s.observers)
    for (int j = 0; j < o.loads; ++j)
      code[o.thread].push_back(
          fmt::format("ld.{} r{}, {}", access(o.load), j, location_name(o.load.loc)));
  return code;
}

std::string condition_text(const Shape& s, const std::vector<int>& regs) {
  std::vector<std::string> terms;
  for (const Observation& o : s.condition) {
    if (o.observer >= 0)
      terms.push_back(fmt::format("P{}:r{} == {}", s.observers[o.observer].thread, o.reg, o.value));
    else if (o.event >= 0)
      terms.push_back(
          fmt::format("P{}:r{} == {}", s.events[o.event].thread, regs[o.event], o.value));
    else
      terms.push_back(fmt::format("{} == {}", location_name(o.loc), o.value));
  }
  return fmt::format("exists ({})", fmt::join(terms, " /\\ "));
}

// The register each read gets (as thread_code numbers them).
std::vector<int> read_registers(const Shape& s) {
  std::vector<int> regs(s.events.size(), -1), next(s.threads, 0);
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    const Event& ev = s.events[i];
    if (ev.rmw_write >= 0 || (ev.dir == Dir::R && !ev.rmw_part)) regs[i] = next[ev.thread]++;
  }
  return regs;
}

std::string table(const Shape& s, const std::vector<std::vector<std::string>>& code) {
  std::vector<std::vector<std::string>> cols(s.threads);
  std::size_t rows = 0;
  for (int t = 0; t < s.threads; ++t) {
    const Placement& p = s.placements[t];
    cols[t].push_back(s.clusters
                          ? fmt::format("P{}@cta {},cluster {},gpu {}", t, p.cta, p.cluster, p.gpu)
                          : fmt::format("P{}@cta {},gpu {}", t, p.cta, p.gpu));
    for (const auto& line : code[t]) cols[t].push_back(line);
    rows = std::max(rows, cols[t].size());
  }
  std::string out;
  for (std::size_t r = 0; r < rows; ++r) {
    for (int t = 0; t < s.threads; ++t) {
      std::size_t width = 0;
      for (const auto& c : cols[t]) width = std::max(width, c.size());
      const std::string cell = r < cols[t].size() ? cols[t][r] : "";
      out += fmt::format(" {:<{}} {}", cell, width, t + 1 < s.threads ? "|" : ";");
    }
    out += "\n";
  }
  return out;
}

std::string comment(const std::string& given, const std::string& name) {
  return fmt::format(
      "\"{} ({}): generated by redscope gen cycle.\n"
      " The condition holds in the executions that have this cycle: a read an Rf\n"
      " edge enters sees that write's value, a read an Fr edge leaves sees the value\n"
      " before the Fr's write in coherence, Co edges show in final values.\"\n",
      given, name);
}

// The options the test depends on besides its cycle, when not the defaults:
// `redscope gen cycle OPTIONS "CYCLE"` makes the test again.
std::string options_line(const CycleOptions& o) {
  std::vector<std::string> words;
  if (o.sem != "weak") words.push_back("--sem " + o.sem);
  if (o.placement != Level::Gpu) words.push_back("--placement " + level_code(o.placement));
  if (o.space != Space::Global) words.push_back("--space shared");
  if (o.lang) words.push_back("--lang " + std::string(o.lang->name));
  if (o.obs != Observers::Avoid) words.push_back("--obs " + std::string(observers_name(o.obs)));
  return words.empty() ? "" : fmt::format("Options={}\n", fmt::join(words, " "));
}

}  // namespace

std::string atom_sem(const Event& r, const Event& w) {
  const bool acq = r.sem == "acquire", rel = w.sem == "release";
  return acq && rel ? "acq_rel" : acq ? "acquire" : rel ? "release" : "relaxed";
}

GeneratedTest emit_test(const Shape& s, const CycleOptions& options) {
  GeneratedTest out;
  out.name = test_name(s, options);
  std::vector<std::string> words, cycle;
  for (const Edge& e : s.edges) words.push_back(edge_text(e));
  // diy's Cycle= line: the least rotation in its order of edges.
  for (const Edge& e : least_rotation(s.edges)) cycle.push_back(edge_text(e));
  out.cycle = fmt::format("{}", fmt::join(cycle, " "));
  std::string init;
  for (int loc = 0; loc < s.locations; ++loc)
    init += fmt::format("{}{}=0;", s.spaces[loc] == Space::Shared ? "shared " : "",
                        location_name(loc)) +
            (loc + 1 < s.locations ? " " : "");
  const std::string head = fmt::format("{}Cycle={}\n{}Generator=redscope gen cycle\n",
                                       comment(fmt::format("{}", fmt::join(words, " ")), out.name),
                                       out.cycle, options_line(options));
  const std::string condition = condition_text(s, read_registers(s));
  // The reader's checks, before anyone sees the test (another language's
  // reader when it is not PTX).
  if (const CycleLanguage* lang = options.lang) {
    out.text =
        fmt::format("{} {}\n{}{}{}\n", lang->header, out.name, head, lang->program(s), condition);
    lang->check(out.text, out.name + ".litmus");
    return out;
  }
  out.text = fmt::format("PTX {}\n{}{{\n{}\n}}\n{}{}\n", out.name, head, init,
                         table(s, thread_code(s)), condition);
  parse_litmus(out.text, out.name + ".litmus");
  return out;
}

}  // namespace redscope::generate::detail
