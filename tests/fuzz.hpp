// The parts of the fuzz harness (docs/testing.md "The fuzz harness"):
// targets (one per input surface), their corpora, the mutations and the
// checks. tests/fuzz_main.cpp drives them in forked children;
// tests/test_fuzz.cpp runs the fast checks as unit tests.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redscope::fuzz {

// An input surface. The litmus targets (Ptx, NvTest, Sass, Pto) go through
// the dialect that claims the mutant (so a mutated first word may move a
// SASS test to the PTX parser, as in the CLI); SassAsm and SassWords are
// the listings of `redscope sass encode` / `decode`; Cat is a user model;
// Merge the JSON (or JSON Lines) of `redscope run` read by `redscope merge`;
// Cycle a `gen cycle` argument; Spec a `gen matrix` spec (TOML); Report the
// result files `report --matrix` reads, drawn as every format; Api a request
// to the playground's JSON API (redscope-call, the WebAssembly module).
enum class Target : std::uint8_t {
  Ptx,
  NvTest,
  Sass,
  SassAsm,
  SassWords,
  Pto,
  Cat,
  Merge,
  Cycle,
  Spec,
  Report,
  Api,
  Cuda  // CUDA C++ tests: their reader alone (nvcc is not fuzzed)
};
inline constexpr std::array kTargets{
    Target::Ptx,    Target::NvTest, Target::Sass,  Target::SassAsm, Target::SassWords,
    Target::Pto,    Target::Cat,    Target::Merge, Target::Cycle,   Target::Spec,
    Target::Report, Target::Api,    Target::Cuda};
inline constexpr std::size_t kTargetCount = kTargets.size();

std::string_view name(Target t);       // "ptx", "nvtest", "sass", "sass-asm", ...
std::string_view extension(Target t);  // ".litmus", ".test", ".litmus", ".sass", ...
// Whether check_full goes deeper than check_fast (the litmus targets and Cat).
bool has_full_check(Target t);
std::optional<Target> target_named(std::string_view name);
// The target whose check reads a file (by extension, and for .litmus by the
// dialect that claims its first bytes): how --replay picks the check.
Target target_of_file(const std::string& path, std::string_view text);

struct Corpus {
  std::vector<std::string> files, texts;
  std::vector<std::string> tokens;  // words of every file
  std::vector<std::string> cells;   // cells of table rows ("ld.weak r0, x")
};
using Corpora = std::array<Corpus, kTargetCount>;

// Every target's corpus: the files below `dirs` sorted by target, then the
// derived ones: SASS listings (text and words) from the SASS litmus tests'
// columns, and merge JSON from `redscope run --format json` on a few tests
// (computed in a forked child and written to `work_dir`/merge-corpus, or
// in this process and kept in memory when `work_dir` is empty).
Corpora load_corpora(const std::vector<std::string>& dirs, const std::string& work_dir);

struct Input {
  Target target = Target::Ptx;
  std::string text;
  std::string how;  // the corpus file and the mutations
};

// Input `index` of a run over `targets` (round-robin): a function of
// (seed, index) alone, so a batch can be replayed input by input. The first
// rounds (up to 16 per target) are corpus files unchanged.
Input make_input(const Corpora& c, const std::vector<Target>& targets, std::uint64_t seed,
                 std::uint64_t index);

struct Verdict {
  enum Kind { Result, Diagnostic, Finding } kind = Result;
  std::string stage;   // where it ended (finding or diagnostic)
  std::string detail;  // the finding or the diagnostic
};

// Parse-level check (fast mode), in-process: the dialect's parser and the
// expansion, or sass encode/decode (and their round trip), or a cat parse
// and one evaluation, or a merge read (and the validity of what it accepted).
struct FastContext {
  std::map<std::string, std::string> cat_files;  // what `include "NAME"` reads in a Cat input
};
FastContext fast_context(const Corpora& c);
Verdict check_fast(const Input& in, const FastContext& ctx);

// The whole pipeline (full mode): every engine and analysis on each test, a
// cat model on a small test, z3 against enum. `file` holds in.text (xval
// reads it); `stage_seconds` gets the CPU time per stage.
struct FullContext {
  std::string file;
  FastContext fast;
  std::string cat_test;       // a small PTX test that Cat inputs are run on
  double budget_seconds = 0;  // a Budget per input (0: none) ...
  std::size_t budget_mb = 0;  // ... and its memory cap (--max-memory; 0: none)
  char* stage_out = nullptr;  // the stage running, for a killed child's report
  std::size_t stage_out_size = 0;
  std::map<std::string, double> stage_seconds;
  bool enum_skipped = false;
};
Verdict check_full(const Input& in, FullContext& ctx);

// The class of a finding for counting: target, stage and the message with
// numbers and quoted text blanked (so one bug is one class).
std::string finding_class(Target t, const Verdict& v);

double cpu_now();  // CPU seconds of this process

}  // namespace redscope::fuzz
