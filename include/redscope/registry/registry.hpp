// The dialect registry (docs/architecture.md "Dialects"): the one list of the
// kinds of test file redscope reads. A dialect is a folder (src/frontend/
// for the PTX IR's own, src/dialects/<name>/ for the others) and a row here;
// file discovery, the file reader and the commands consult the rows instead
// of naming a dialect. The registry sits above every dialect folder, so no
// stage below it knows which dialects exist.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/core/model.hpp"
#include "redscope/engine/semantics.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/generate/cycle.hpp"

namespace redscope {

// A named option of a dialect's semantics: `--<name> VALUE` on the command
// line, EngineOptions::semantics_options[name] for the semantics.
struct SemanticsOption {
  std::string_view name;                     // "pto-order"
  std::span<const std::string_view> values;  // the values it takes: tree, sequential, both
  // "tree, sequential or both", for messages.
  std::string values_text() const;
};

// How a dialect whose tests a compiler lowers (CUDA) reads them without
// running its compiler: as their source says, under the source model
// (`redscope cuda-check`'s reference side), and from a compiler output the
// user gives (`--ptx MODULE.ptx`).
struct CompiledReadings {
  std::vector<LitmusTest> (*source)(std::string_view text, const std::string& file);
  std::vector<LitmusTest> (*with_output)(std::string_view text, const std::string& file,
                                         const std::string& output);
};

struct Dialect {
  std::string_view name;     // "ptx-litmus"
  std::string_view accepts;  // the file name's extension, also for messages: ".litmus"
  // Empty: every file with the extension. Else only the files whose first
  // word (after `//` and `(* *)` comments) is this word, upper or lower case
  // ("SASS" or "sass"). Such a dialect is consulted before one that takes
  // any file of its extension (dialect_for).
  std::string_view first_word = {};
  // The tests in a file's text (a template file may yield many); throws
  // InputError at the offending position. (parse() adds the default model.)
  std::vector<LitmusTest> (*read)(std::string_view text, const std::string& file);
  // Test n (from 1) alone, without building the others (a template's row),
  // or none when there are fewer; null when `parse` is as cheap.
  std::optional<LitmusTest> (*parse_nth)(std::string_view text, const std::string& file,
                                         std::size_t n) = nullptr;
  // What its tests mean: event graphs under a cat model, or a program the
  // dialect's own semantics runs (redscope/engine/semantics.hpp).
  const Semantics* semantics = nullptr;
  // The model its tests are checked against by default (a row of
  // kBuiltinModels, or the semantics' own); null: the model their target
  // selects (model_for_target).
  const BuiltinModel* default_model = nullptr;
  // Work done once for all the files of a run before any is read (CUDA
  // tests: one nvcc call for them all), given the files the dialect claims;
  // none when each file is read on its own. Returns why none of them can be
  // checked here (no nvcc), or nothing.
  std::optional<std::string> (*prepare)(const std::vector<std::string>& files,
                                        std::size_t max_bytes) = nullptr;
  // Options its semantics reads (none, or one `--<name> VALUE` flag).
  std::optional<SemanticsOption> option = std::nullopt;
  // The dialect's own command, `redscope <command> ...` (argv[1] is the
  // command; returns the exit status), or none.
  std::string_view command = {};
  int (*run_command)(int argc, char** argv, TestFileReader read) = nullptr;
  // Its tests' other readings, when a compiler lowers them (null: none).
  const CompiledReadings* compiled = nullptr;
  // The language `gen cycle --lang` writes its tests in (null: none).
  const generate::CycleLanguage* (*cycle_language)() = nullptr;

  // read(), each test given the dialect's default model.
  std::vector<LitmusTest> parse(std::string_view text, const std::string& file) const;
  // Test n alone (parse_nth), given the dialect's default model.
  std::optional<LitmusTest> parse_one(std::string_view text, const std::string& file,
                                      std::size_t n) const;

  // Whether the dialect reads the file at `path`; `head` holds its first
  // kDialectHeadBytes bytes, or fewer (empty when unread or unreadable).
  bool claims(const std::filesystem::path& path, std::string_view head) const;
};

inline constexpr std::size_t kDialectHeadBytes = 256;

// The first kDialectHeadBytes bytes of a regular file, for Dialect::claims;
// empty when it cannot be read (reading it later reports why).
std::string read_head(const std::filesystem::path& path);

// Every registered dialect, in the order they are listed; the first one also
// reads files named explicitly that no dialect claims.
std::span<const Dialect> dialects();

// The dialect that claims the file, or null: first those that name a first
// word, then those that take any file of their extension, each in list order.
const Dialect* dialect_for(const std::filesystem::path& path, std::string_view head);

// The semantics of a test: that of the dialect whose first word is the
// test's architecture (LitmusTest::arch), else event graphs (the first row's).
const Semantics& semantics_of(const LitmusTest& test);

// The semantics option a flag names ("--pto-order"), or null.
const SemanticsOption* semantics_option(std::string_view flag);

// The dialect whose command is `name`, or null.
const Dialect* dialect_with_command(std::string_view name);

// The language `gen cycle --lang NAME` names, or null; and every such name.
const generate::CycleLanguage* cycle_language(std::string_view name);
std::vector<std::string_view> cycle_languages();

// What the registered dialects accept, for messages: ".litmus or .test".
std::string accepted_files();

// The settings of the compilers some dialects run before their tests can be
// checked (CUDA tests: nvcc, docs/cuda.md), from the command line or the
// playground. Installed once, before any test is read.
struct CompilerSettings {
  std::optional<std::string> path;  // --nvcc PATH; none: looked up
  bool use_cache = true;            // --no-cache: false
  double seconds = 300;             // --timeout, per test
  std::size_t memory_mb = 0;        // --max-memory: the compiler's address space
  // No compiler here (the playground): read what was compiled ahead into
  // `cache_dir`, and say `missing` of a test that was not.
  bool precompiled = false;
  std::string cache_dir, missing;
  // --source: read tests as their source says, compiling nothing.
  bool source_level = false;
  // cuda-check --arch sm_XX: compile for this target, whatever a test's
  // Target= line says.
  std::optional<int> target_sm;
};
void use_compiler_settings(const CompilerSettings& settings);

// Each dialect's prepare step over the files of a run it claims (before
// they are read, one at a time or on many threads).
// Returns why some of them cannot be checked on this machine (a tool a
// dialect needs is missing), one message per dialect, or none.
std::vector<std::string> prepare_test_files(const std::vector<std::string>& files,
                                            std::size_t max_bytes = kDefaultMaxFileBytes);

// Every test of a file (a .test template holds one per table row).
std::vector<LitmusTest> parse_litmus_tests(const std::string& path,
                                           std::size_t max_bytes = kDefaultMaxFileBytes);

// Every test of `text`, read as the file named `file` would be (the page's
// editor, where no file exists).
std::vector<LitmusTest> parse_litmus_text(std::string_view text, const std::string& file);

// One test: `path` is a file holding one test, or FILE#N for the N-th test
// (from 1) of a file holding several. A file holding several, named without
// #N, is an input error that lists the addresses to use.
LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes);

// The addresses of a file's tests: the file itself when it holds one test (or
// cannot be parsed: the error is reported when it is checked), else FILE#1,
// FILE#2, ... Only files of dialects that may hold several tests are parsed.
std::vector<std::string> test_addresses(const std::string& file,
                                        std::size_t max_bytes = kDefaultMaxFileBytes);

}  // namespace redscope
