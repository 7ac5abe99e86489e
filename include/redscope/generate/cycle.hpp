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

struct CycleOptions {
  std::string sem = "weak";      // accesses no annotation names: weak | relaxed.S | ...
  Level placement = Level::Gpu;  // external edges without `@`
  Space space = Space::Global;   // locations no annotation names
};

// The annotation a `--sem` value stands for (InputError at `source`:1:1).
EventAnnot parse_default_sem(std::string_view text, const std::string& source);

struct GeneratedTest {
  std::string name;   // diy's name (MP, SB+fence.sc.gpus, ...) and GPU suffixes
  std::string cycle;  // the Cycle= line: the normalised cycle from P0's last edge
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

struct EnumerateOptions {
  std::size_t max_edges = 4;
  std::vector<std::string> vocabulary = default_vocabulary();
  // diy's -relax: more words, and each cycle uses at least one of them.
  std::vector<std::string> relax;
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

// Every cycle of at most max_edges edges over the vocabulary with at least
// two threads, each thread one event or two joined by one internal edge,
// directions chaining, each up to rotation once (diy's normal form), in a
// deterministic order; emits each test as it is made. InputError for a bad
// vocabulary word (source "--edges" or "--relax", its index as its position) or
// a bad default --sem; cycles no execution can show are skipped.
EnumerateCount for_each_cycle(const EnumerateOptions& options,
                              const std::function<void(const GeneratedTest&)>& emit);

// How many candidate cycles for_each_cycle tries (a progress line's total):
// the same walk, without making the tests.
std::size_t count_candidates(const EnumerateOptions& options);

}  // namespace redscope::generate
