// Litmus tests from cycles of relaxations, as herdtools' diy7 writes them
// (docs/cycles.md): a cycle such as "PodWW Rfe PodRR Fre" names the edges of
// a forbidden-looking execution; the generated test has one thread per run
// of internal edges, one location per run of same-location edges, and the
// condition that holds exactly in the executions that show the cycle.
//
// GPU additions (docs/cycles.md "Annotations"): each edge may say what its
// two events are (`PodWW[weak,release.gpu]`), where the threads of an
// external edge run (`Rfe@cta`), and fence edges name a PTX fence
// (`Fence.sc.gpu`, directions inferred from the neighbouring edges).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace redscope {
class Budget;
}

namespace redscope::generate {

enum class Dir { R, W, Any };
// The smallest unit holding both threads of an external edge: the same CTA,
// another CTA of the same cluster, another cluster of the same GPU, another GPU.
enum class Level { Cta, Cluster, Gpu, Sys };
enum class Space { Global, Shared };
enum class EdgeKind { Po, Fence, Dep, Rf, Fr, Co, Rmw };
enum class DepKind { Addr, Data, Ctrl };

// What an edge says of one of its events; every part may be left out.
struct EventAnnot {
  std::optional<std::string> sem;    // weak | relaxed | acquire | release | acq_rel
  std::optional<std::string> scope;  // cta | cluster | gpu | sys
  std::optional<Space> space;
  bool operator==(const EventAnnot&) const = default;
};

struct Edge {
  EdgeKind kind = EdgeKind::Po;
  bool same_loc = false;
  bool external = false;
  Dir src = Dir::Any, tgt = Dir::Any;
  std::string fence;  // kind Fence: the PTX instruction, e.g. "fence.sc.gpu"
  DepKind dep = DepKind::Data;
  std::optional<EventAnnot> src_annot, tgt_annot;
  std::optional<Level> level;  // external edges: `@LEVEL`
  std::size_t column = 1;      // 1-based column of the edge in its argument
  std::size_t position = 1;    // 1-based index of the edge in its cycle
  bool operator==(const Edge& o) const {
    return kind == o.kind && same_loc == o.same_loc && external == o.external && src == o.src &&
           tgt == o.tgt && fence == o.fence && dep == o.dep && src_annot == o.src_annot &&
           tgt_annot == o.tgt_annot && level == o.level;
  }
};

// The edge's word in diy's vocabulary with resolved directions and the
// annotations as written: "PodWW", "Fence.sc.gpudWR", "Rfe[release.gpu,]@cta".
std::string edge_text(const Edge& e);

// Parses one edge (no spaces). `source` names the argument in errors ("cycle 2").
// Throws InputError at source:1:column naming the edge and its position.
Edge parse_edge(std::string_view word, const std::string& source, std::size_t column,
                std::size_t position);

// The longest cycle parse_cycle reads (a test of 128 threads at most).
constexpr std::size_t kMaxCycleEdges = 256;

// Parses a cycle: edges separated by spaces (InputError as parse_edge, and
// for more than kMaxCycleEdges edges).
std::vector<Edge> parse_cycle(std::string_view text, const std::string& source);

namespace detail {
struct Shape;  // redscope/generate/cycle_shape.hpp
}

// A language besides PTX a cycle's test can be written in (docs/cycles.md
// "Other languages"): a dialect's, which the registry lists
// (registry::cycle_language), so that this stage names no dialect.
struct CycleLanguage {
  std::string_view name;    // `--lang NAME`, and in the Options= line
  std::string_view header;  // the test's first word ("CUDA")
  // An edge the language has no form for: its index in the shape's edges,
  // and why; none when it can write the whole cycle.
  std::optional<std::pair<std::size_t, std::string>> (*unsupported)(const detail::Shape& shape);
  // The test from its init block to its last thread.
  std::string (*program)(const detail::Shape& shape);
  // The dialect's reader on the whole text: InputError (file:line:col).
  void (*check)(std::string_view text, const std::string& file);
};

// diy7's -obs (herdtools7 gen/top_gen.ml check_writes): what a location of
// three or more writes gets, whose coherence order its final value cannot
// show. Avoid: no test (an InputError; --size skips the cycle). Accept: an
// observer thread loading it once per write, the condition asking the
// writes in coherence order. Force: an observer from two writes on. Local:
// the final value alone.
enum class Observers { Avoid, Accept, Force, Local };
std::optional<Observers> parse_observers(std::string_view name);  // "avoid", ...
std::string_view observers_name(Observers o);

struct CycleOptions {
  std::string sem = "weak";             // accesses no annotation names: weak | relaxed.S | ...
  Level placement = Level::Gpu;         // external edges without `@`
  Space space = Space::Global;          // locations no annotation names
  const CycleLanguage* lang = nullptr;  // null: PTX
  Observers obs = Observers::Avoid;
};

// The annotation a `--sem` value stands for (InputError at `source`:1:1).
EventAnnot parse_default_sem(std::string_view text, const std::string& source);

struct GeneratedTest {
  std::string name;   // diy's name (MP, SB+fence.sc.gpus, ...) and GPU suffixes
  std::string cycle;  // the Cycle= line: the least rotation in diy_compare's order
  std::string text;   // the litmus test, parsed by the PTX reader before it is returned
};

// The test's program: its text from the init block on, without the name and
// metadata lines. Two cycles that make one program are one test (the
// enumeration and a list of cycles both skip the later one).
std::string_view test_program(const GeneratedTest& t);

// The test of one cycle. Throws InputError (source:1:column) for a cycle
// that is not one: directions that do not chain, one external edge, a
// location reached from two sides, contradictory annotations or placements.
GeneratedTest generate_cycle(const std::vector<Edge>& cycle, const CycleOptions& options,
                             const std::string& source);

// diy's default-like vocabulary of `--size`: Rfe Fre Coe, Pod** and Pos**.
const std::vector<std::string>& default_vocabulary();

// diy7's order of edges (herdtools7 gen/edge.ml `compare`: the events'
// annotations, none first, then the edge: Rfi Rfe Fri Fre Coi Coe, Pos..
// then Pod.. with W before R, fences by name, dependencies Addr Data Ctrl,
// Rmw last); the `@LEVEL` placement last. -1, 0 or 1.
int diy_compare(const Edge& a, const Edge& b);

// The rotation diy7 prints on a test's Cycle= line: the least in
// diy_compare's order (herdtools7 7.58 gen/dumpAll.ml `find_min_shift`).
std::vector<Edge> least_rotation(const std::vector<Edge>& cycle);

// diy7's -mode: which adjacent internal and external edges a cycle of
// `--size` may hold (herdtools7 gen/alt.ml, `choice_*`).
enum class Mode { Default, Sc, Critical, Mixed, Uni, Free, Thin, Total, Ppo, Transitive };
std::optional<Mode> parse_mode(std::string_view name);  // "default", "sc", ...
std::string_view mode_names();                          // "default, sc, ... or transitive"

// The program-order edges -mode sc takes as safe: (same location, src, tgt).
using PoSafe = std::vector<std::tuple<bool, Dir, Dir>>;

struct PairRules {
  Mode mode = Mode::Default;
  PoSafe po_safe;                // Mode::Sc only
  std::vector<Edge> vocabulary;  // Mode::Transitive only: the --edges and --relax words
  bool keep_com_pairs = false;   // keep Coe Coe, Fre Coe, Rfe Fre (diy7 rejects them)
};

// May edge b follow edge a in a cycle (gen/alt.ml `can_precede`)? Directions
// chain; Co;Co, Fr;Co and Rf;Fr need one internal and one external edge
// (each such pair is a shorter cycle plus a bystander); then the mode's rule.
bool can_precede(const Edge& a, const Edge& b, const PairRules& rules);

struct EnumerateOptions {
  std::size_t max_edges = 4;
  std::vector<std::string> vocabulary = default_vocabulary();
  // diy's -relax: more words; each cycle uses one of them (once or more)
  // and no other (diy's default -mix false). With `mix` (diy's -mix true)
  // and max_relax above 1, a cycle uses min_relax to max_relax of them
  // (diy's -minrelax, -maxrelax); max_relax 0 makes no cycle.
  std::vector<std::string> relax;
  bool mix = false;
  std::size_t min_relax = 1, max_relax = 100;
  PairRules rules;         // diy's -mode, and whether to keep com pairs
  std::size_t nprocs = 4;  // diy's -nprocs: threads at most
  std::size_t ins = 4;     // diy's -ins: edges per thread at most (ins - 1 internal)
  bool oneloc = false;     // diy's -oneloc: keep cycles of one location
  // Called after each candidate cycle is tried, with its index (0, 1, ...).
  std::function<void(std::size_t)> tried;
  CycleOptions cycle;
  // Checked once per candidate cycle (BudgetExceeded stops the walk), in
  // for_each_cycle and count_candidates alike; null: no budget.
  const Budget* budget = nullptr;
};

struct EnumerateCount {
  std::size_t tests = 0;       // emitted
  std::size_t duplicates = 0;  // cycles whose test equals an earlier one
};

// Every cycle of 2 to max_edges edges over the vocabulary that diy7 would
// make (gen/alt.ml): each edge allowed after the one before (can_precede,
// round the cycle too), at most nprocs threads of at most ins edges, the
// mode's filters, each once up to rotation, by size then in diy's order of
// edges; emits each test as it is made. InputError for a bad
// vocabulary word (source "--edges" or "--relax", its index as its position) or
// a bad default --sem; cycles no execution can show are skipped.
EnumerateCount for_each_cycle(const EnumerateOptions& options,
                              const std::function<void(const GeneratedTest&)>& emit);

// How many candidate cycles for_each_cycle tries (a progress line's total):
// the same walk, without making the tests.
std::size_t count_candidates(const EnumerateOptions& options);

}  // namespace redscope::generate
