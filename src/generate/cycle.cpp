// One cycle's test, and the enumeration of every cycle over a vocabulary
// (docs/cycles.md "Enumerating"): a cycle is a sequence of threads, each one
// event or two joined by one internal edge, each left by an external edge.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "generate/cycle_shape.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope::generate {

GeneratedTest generate_cycle(const std::vector<Edge>& cycle, const CycleOptions& options,
                             const std::string& source) {
  return detail::emit_test(detail::build_shape(cycle, options, source), options);
}

std::string_view test_program(const GeneratedTest& t) {
  const std::string_view text = t.text;
  const std::size_t at = text.find("\n{");
  return at == std::string_view::npos ? text : text.substr(at);
}

const std::vector<std::string>& default_vocabulary() {
  static const std::vector<std::string> kWords = {
      "Rfe", "Fre", "Coe", "PodWW", "PodWR", "PodRW", "PodRR", "PosWW", "PosWR", "PosRW", "PosRR"};
  return kWords;
}

namespace {

// A vocabulary word with '*' directions stands for each direction (diy's
// expand_edges).
std::vector<Edge> expand(const Edge& e) {
  std::vector<Edge> out;
  for (Dir s : {Dir::W, Dir::R})
    for (Dir t : {Dir::W, Dir::R}) {
      if ((e.src != Dir::Any && e.src != s) || (e.tgt != Dir::Any && e.tgt != t)) continue;
      Edge x = e;
      x.src = s;
      x.tgt = t;
      out.push_back(x);
    }
  return out;
}

// One thread of an enumerated cycle: an optional internal edge, then the
// external edge that leaves it; `relaxed` counts its edges from --relax.
struct Unit {
  std::optional<Edge> internal;
  Edge external;
  int relaxed = 0;
  std::size_t size() const { return internal ? 2 : 1; }
  Dir first() const { return internal ? internal->src : external.src; }
};

struct Word {
  Edge edge;
  bool relax = false;
};

void add_words(const std::vector<std::string>& words, const char* source, bool relax,
               std::vector<Word>& internal, std::vector<Word>& external) {
  for (std::size_t k = 0; k < words.size(); ++k)
    for (const Edge& e : expand(parse_edge(words[k], source, 1, k + 1)))
      (e.external ? external : internal).push_back({e, relax});
}

std::vector<Unit> units_of(const EnumerateOptions& options) {
  std::vector<Word> internal, external;
  add_words(options.vocabulary, "--edges", false, internal, external);
  add_words(options.relax, "--relax", true, internal, external);
  std::vector<Unit> units;
  for (const Word& x : external) {
    units.push_back({std::nullopt, x.edge, x.relax ? 1 : 0});
    for (const Word& i : internal)
      if (i.edge.tgt == x.edge.src) units.push_back({i.edge, x.edge, int{x.relax} + int{i.relax}});
  }
  return units;
}

// Two FNV-1a hashes of a test's text (two offset bases): the enumeration
// remembers the tests it wrote by 128 bits each, not by their text.
std::pair<std::uint64_t, std::uint64_t> fingerprint(std::string_view text) {
  std::uint64_t a = 14695981039346656037ull, b = 0x9e3779b97f4a7c15ull;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 1099511628211ull;
    b ^= b >> 29;
  }
  return {a, b};
}

bool minimal_rotation(const std::vector<std::size_t>& seq) {
  const std::size_t k = seq.size();
  for (std::size_t r = 1; r < k; ++r)
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t a = seq[j], b = seq[(r + j) % k];
      if (b < a) return false;
      if (b > a) break;
    }
  return true;
}

using Emit = std::function<void(const GeneratedTest&)>;

class Enumerator {
 public:
  Enumerator(const EnumerateOptions& options, const Emit& emit)
      : options_(options),
        emit_(emit),
        units_(units_of(options)) {}

  EnumerateCount run() {
    parse_default_sem(options_.cycle.sem, "--sem");  // an error here, not a skip per cycle
    for (std::size_t k = 2; k <= options_.max_edges; ++k) extend(k, 0);
    return count_;
  }

  // The cycles run() tries, without making their tests.
  std::size_t candidates() {
    counting_ = true;
    for (std::size_t k = 2; k <= options_.max_edges; ++k) extend(k, 0);
    return tried_;
  }

 private:
  // Threads are added while the edges fit; each sequence of exactly
  // `threads` threads is tried once per rotation class.
  void extend(std::size_t threads, std::size_t edges) {
    if (seq_.size() == threads) {
      if (options_.budget) options_.budget->check();
      if (units_[seq_.back()].external.tgt != units_[seq_[0]].first() || !relaxed() ||
          !minimal_rotation(seq_))
        return;
      if (!counting_) try_cycle();
      if (options_.tried && !counting_) options_.tried(tried_);
      ++tried_;
      return;
    }
    for (std::size_t u = 0; u < units_.size(); ++u) {
      const Unit& unit = units_[u];
      const std::size_t left = threads - seq_.size() - 1;  // threads after this one
      if (edges + unit.size() + left > options_.max_edges) continue;
      if (!seq_.empty() && units_[seq_.back()].external.tgt != unit.first()) continue;
      if (!seq_.empty() && u < seq_[0]) continue;  // the first thread has the smallest unit
      seq_.push_back(u);
      extend(threads, edges + unit.size());
      seq_.pop_back();
    }
  }

  // diy's -relax: with relaxations given, each cycle uses one at least.
  bool relaxed() const {
    if (options_.relax.empty()) return true;
    return std::any_of(seq_.begin(), seq_.end(),
                       [&](std::size_t u) { return units_[u].relaxed > 0; });
  }

  void try_cycle() {
    std::vector<Edge> cycle;
    for (std::size_t u : seq_) {
      if (units_[u].internal) cycle.push_back(*units_[u].internal);
      cycle.push_back(units_[u].external);
    }
    for (std::size_t i = 0; i < cycle.size(); ++i) cycle[i].position = i + 1;
    GeneratedTest test;
    try {
      test = generate_cycle(cycle, options_.cycle, "--size");
    } catch (const InputError&) {
      return;  // not a cycle an execution can show (a location closed on itself, ...)
    }
    if (!bodies_.insert(fingerprint(test_program(test))).second) {
      ++count_.duplicates;
      return;
    }
    if (const int seen = names_[test.name]++; seen > 0) {
      const std::string renamed = fmt::format("{}-v{}", test.name, seen + 1);
      test.text.replace(0, test.text.find('\n'), "PTX " + renamed);
      test.name = renamed;
    }
    ++count_.tests;
    emit_(test);
  }

  const EnumerateOptions& options_;
  const Emit& emit_;
  std::vector<Unit> units_;
  std::vector<std::size_t> seq_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> bodies_;  // 16 bytes per test
  std::map<std::string, int> names_;
  EnumerateCount count_;
  std::size_t tried_ = 0;
  bool counting_ = false;
};

}  // namespace

EnumerateCount for_each_cycle(const EnumerateOptions& options,
                              const std::function<void(const GeneratedTest&)>& emit) {
  return Enumerator(options, emit).run();
}

std::size_t count_candidates(const EnumerateOptions& options) {
  const Emit none = [](const GeneratedTest&) {};
  return Enumerator(options, none).candidates();
}

}  // namespace redscope::generate
