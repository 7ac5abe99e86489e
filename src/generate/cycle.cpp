// One cycle's test, and the enumeration of every cycle over a vocabulary
// (docs/cycles.md "Enumerating"), as diy7 enumerates (herdtools7 gen/alt.ml).
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

#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/generate/cycle_shape.hpp"

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

// A word of the vocabulary with its directions resolved; `relax` is the
// index of the --relax word it comes from (diy's relaxation), -1 for --edges.
struct Word {
  Edge edge;
  int relax = -1;
};

void add_words(const std::vector<std::string>& words, const char* source, bool relax,
               std::vector<Word>& out) {
  for (std::size_t k = 0; k < words.size(); ++k)
    for (const Edge& e : expand(parse_edge(words[k], source, 1, k + 1)))
      out.push_back({e, relax ? static_cast<int>(k) : -1});
}

// The vocabulary in diy's order of edges, each edge once (a --relax word's
// first), so that index order is diy_compare's and the least rotation of a
// sequence of indices is diy's normal form.
std::vector<Word> words_of(const EnumerateOptions& options) {
  std::vector<Word> words;
  add_words(options.relax, "--relax", true, words);
  add_words(options.vocabulary, "--edges", false, words);
  std::stable_sort(words.begin(), words.end(),
                   [](const Word& a, const Word& b) { return diy_compare(a.edge, b.edge) < 0; });
  words.erase(
      std::unique(words.begin(), words.end(),
                  [](const Word& a, const Word& b) { return diy_compare(a.edge, b.edge) == 0; }),
      words.end());
  return words;
}

// -mode sc's safe program order: the Po words of --edges (gen/alt.ml extract_po).
PoSafe po_safe_of(const EnumerateOptions& options) {
  PoSafe out;
  std::vector<Word> safe;
  add_words(options.vocabulary, "--edges", false, safe);
  for (const Word& w : safe)
    if (w.edge.kind == EdgeKind::Po) out.emplace_back(w.edge.same_loc, w.edge.src, w.edge.tgt);
  return out;
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

using Emit = std::function<void(const GeneratedTest&)>;

// The walk of diy7's gen/alt.ml: sequences of 2 to max_edges edges, each edge
// allowed after the one before (can_precede, and round the cycle), at most
// `nprocs` threads of at most `ins` edges, each sequence once up to rotation.
class Enumerator {
 public:
  Enumerator(const EnumerateOptions& options, const Emit& emit)
      : options_(options),
        emit_(emit),
        words_(words_of(options)) {
    rules_ = options.rules;
    if (rules_.mode == Mode::Sc) rules_.po_safe = po_safe_of(options);
    if (rules_.mode == Mode::Transitive)
      for (const Word& w : words_) rules_.vocabulary.push_back(w.edge);
  }

  EnumerateCount run() {
    parse_default_sem(options_.cycle.sem, "--sem");  // an error here, not a skip per cycle
    for (std::size_t k = 2; k <= options_.max_edges; ++k) extend(k, 0, 0);
    return count_;
  }

  // The cycles run() tries, without making their tests.
  std::size_t candidates() {
    counting_ = true;
    for (std::size_t k = 2; k <= options_.max_edges; ++k) extend(k, 0, 0);
    return tried_;
  }

 private:
  bool follows(std::size_t a, std::size_t b) const {
    return can_precede(words_[a].edge, words_[b].edge, rules_);
  }

  // `procs`: external edges so far; `run`: internal edges since the last one.
  void extend(std::size_t size, std::size_t procs, std::size_t run) {
    if (seq_.size() == size) {
      if (options_.budget) options_.budget->check();
      if (!closes()) return;
      if (!counting_) try_cycle();
      if (options_.tried && !counting_) options_.tried(tried_);
      ++tried_;
      return;
    }
    for (std::size_t w = seq_.empty() ? 0 : seq_[0]; w < words_.size(); ++w) {
      if (!seq_.empty() && !follows(seq_.back(), w)) continue;
      const bool ext = words_[w].edge.external;
      if (ext && procs + 1 > options_.nprocs) continue;
      if (!ext && run + 1 > options_.ins - 1) continue;
      seq_.push_back(w);
      extend(size, procs + (ext ? 1 : 0), ext ? 0 : run + 1);
      seq_.pop_back();
    }
  }

  // Round the cycle: the last edge before the first, threads no longer than
  // -ins across the cut, the least rotation (diy's normal form), the
  // relaxation, and the mode's filters (gen/alt.ml last_check_call).
  bool closes() const {
    if (!follows(seq_.back(), seq_[0]) || !least() || !relaxed()) return false;
    std::size_t ext = 0, changes = 0, run = 0, longest = 0;
    for (std::size_t k = 0; k < 2 * seq_.size(); ++k) {
      const Edge& e = words_[seq_[k % seq_.size()]].edge;
      run = e.external ? 0 : run + 1;
      longest = std::max(longest, std::min(run, seq_.size()));
      if (k < seq_.size()) ext += e.external ? 1 : 0, changes += e.same_loc ? 0 : 1;
    }
    if (longest > options_.ins - 1) return false;
    // Default, sc and ppo drop a cycle of one thread, one external edge or
    // one location; the others a cycle of one location unless -oneloc (or uni).
    const Mode m = rules_.mode;
    if (m == Mode::Default || m == Mode::Sc || m == Mode::Ppo) return ext >= 2 && changes >= 2;
    return changes >= 2 || options_.oneloc || m == Mode::Uni;
  }

  bool least() const {
    const std::size_t k = seq_.size();
    for (std::size_t r = 1; r < k; ++r)
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t a = seq_[j], b = seq_[(r + j) % k];
        if (b < a) return false;
        if (b > a) break;
      }
    return true;
  }

  // diy's -relax (gen/alt.ml zyva): with -mix false (or -maxrelax 1), one
  // relaxation, once or more, and no other (choose_relax); with -mix true,
  // -minrelax to -maxrelax different ones (all_relax); -maxrelax 0, none.
  bool relaxed() const {
    if (options_.relax.empty()) return true;
    std::set<int> used;
    for (std::size_t w : seq_)
      if (words_[w].relax >= 0) used.insert(words_[w].relax);
    if (!options_.mix || options_.max_relax == 1) return used.size() == 1;
    return used.size() >= std::max<std::size_t>(options_.min_relax, 1) &&
           used.size() <= options_.max_relax;
  }

  void try_cycle() {
    std::vector<Edge> cycle;
    for (std::size_t w : seq_) cycle.push_back(words_[w].edge);
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
  std::vector<Word> words_;
  PairRules rules_;
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
