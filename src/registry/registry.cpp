// The dialect registry: herd/Dat3M PTX litmus files, NVIDIA's .test files,
// SASS litmus files and PTO vector programs. Adding a dialect is its folder
// and one row in kDialects.
#include "redscope/registry/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <memory>
#include <span>

#include "redscope/dialects/cuda/compile.hpp"
#include "redscope/dialects/pto/pto_command.hpp"
#include "redscope/dialects/pto/pto_dialect.hpp"
#include "redscope/dialects/pto/pto_semantics.hpp"
#include "redscope/dialects/sass/sass_command.hpp"
#include "redscope/dialects/sass/sass_litmus.hpp"
#include "redscope/frontend/c/c_source.hpp"
#include "redscope/frontend/nvtest/nv_test.hpp"
#include "redscope/frontend/text_cursor.hpp"
#include "registry/event_graphs.hpp"

namespace redscope {

namespace {

// Whether the first word of `head` (after blank space and `//` and `(* *)`
// comments) is `word` as written or in lower case, followed by a blank.
bool first_word_either_case(std::string_view head, std::string_view word) {
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return first_word_is(head, word) || first_word_is(head, lower);
}

// "a", "a or b", "a, b or c": a list of choices in a message.
std::string or_list(std::span<const std::string_view> items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " or " : ", ";
    s += items[i];
  }
  return s;
}

std::vector<LitmusTest> one_litmus_test(std::string_view text, const std::string& file) {
  std::vector<LitmusTest> out;
  out.push_back(parse_litmus(text, file));
  return out;
}

// The PTX IR's events under a cat model, and the same events reached by
// lowering SASS, or compiling CUDA C++ with nvcc, onto them (named so in
// xval's header).
const EventGraphs kEventGraphs;
const EventGraphs kLoweredSass{"sass", "lowering to PTX events"};
const EventGraphs kCompiledCuda{"cuda", "nvcc's PTX"};
const EventGraphs kSourceC{"c", "source-level events"};

std::vector<LitmusTest> one_c_test(std::string_view text, const std::string& file) {
  std::vector<LitmusTest> out;
  out.push_back(csrc::read_c_litmus(text, file));
  return out;
}

const CompiledReadings kCudaReadings{cuda::read_cuda_as_source, cuda::read_cuda_with_module};

}  // namespace

std::span<const Dialect> dialects() {
  // herd/Dat3M PTX litmus tests (docs/litmus-format.md), NVIDIA's
  // mixed-proxy tests (".test files"), SASS litmus tests (docs/sass.md) and
  // PTO vector programs (docs/litmus-format.md "PTO vector programs").
  static const std::array kDialects{
      Dialect{.name = "ptx-litmus",
              .accepts = ".litmus",
              .read = one_litmus_test,
              .semantics = &kEventGraphs},
      Dialect{.name = "nvidia-test",
              .accepts = ".test",
              .read = detail::parse_nv_test,
              .parse_nth = detail::parse_nv_test_nth,
              .semantics = &kEventGraphs},
      Dialect{.name = "sass-litmus",
              .accepts = ".litmus",
              .first_word = "SASS",
              .read = detail::parse_sass_litmus,
              .semantics = &kLoweredSass,
              .default_model = builtin_model_named("sass-sm30"),
              .command = "sass",
              .run_command = cli::run_sass},
      Dialect{.name = "cuda-litmus",
              .accepts = ".litmus",
              .first_word = "CUDA",
              .read = cuda::read_cuda_litmus,
              .semantics = &kCompiledCuda,
              .prepare = cuda::prepare_cuda_files,
              .compiled = &kCudaReadings,
              .cycle_language = [] { return &cuda::cycle_language(); }},
      // herd7's C litmus tests (docs/litmus-format.md "C tests").
      Dialect{.name = "c-litmus",
              .accepts = ".litmus",
              .first_word = "C",
              .read = one_c_test,
              .semantics = &kSourceC,
              .default_model = builtin_model_named("scoped-cpp")},
      Dialect{.name = "pto-litmus",
              .accepts = ".litmus",
              .first_word = "PTO",
              .read = detail::parse_pto_litmus,
              .semantics = &pto::semantics(),
              .default_model = &pto::kModel,
              .option = SemanticsOption{pto::kOrderOption, pto::kOrderValues},
              .command = "pto",
              .run_command = cli::run_pto},
  };
  return kDialects;
}

std::vector<LitmusTest> Dialect::parse(std::string_view text, const std::string& file) const {
  std::vector<LitmusTest> tests = read(text, file);
  // A reader may choose the model itself (CUDA tests read as source).
  for (LitmusTest& t : tests)
    if (!t.default_model) t.default_model = default_model;
  return tests;
}

std::optional<LitmusTest> Dialect::parse_one(std::string_view text, const std::string& file,
                                             std::size_t n) const {
  std::optional<LitmusTest> t = parse_nth(text, file, n);
  if (t && !t->default_model) t->default_model = default_model;
  return t;
}

bool Dialect::claims(const std::filesystem::path& path, std::string_view head) const {
  return path.extension() == accepts &&
         (first_word.empty() || first_word_either_case(head, first_word));
}

std::string SemanticsOption::values_text() const { return or_list(values); }

const Semantics& semantics_of(const LitmusTest& test) {
  for (const Dialect& d : dialects())
    if (!d.first_word.empty() && d.first_word == test.arch) return *d.semantics;
  return *dialects().front().semantics;
}

const SemanticsOption* semantics_option(std::string_view flag) {
  if (!flag.starts_with("--")) return nullptr;
  for (const Dialect& d : dialects())
    if (d.option && d.option->name == flag.substr(2)) return &*d.option;
  return nullptr;
}

const Dialect* dialect_for(const std::filesystem::path& path, std::string_view head) {
  for (const bool by_word : {true, false})
    for (const Dialect& d : dialects())
      if (d.first_word.empty() != by_word && d.claims(path, head)) return &d;
  return nullptr;
}

const Dialect* dialect_with_command(std::string_view name) {
  for (const Dialect& d : dialects())
    if (d.run_command && d.command == name) return &d;
  return nullptr;
}

const generate::CycleLanguage* cycle_language(std::string_view name) {
  for (const Dialect& d : dialects())
    if (d.cycle_language && d.cycle_language()->name == name) return d.cycle_language();
  return nullptr;
}

std::vector<std::string_view> cycle_languages() {
  std::vector<std::string_view> out;
  for (const Dialect& d : dialects())
    if (d.cycle_language) out.push_back(d.cycle_language()->name);
  return out;
}

void use_compiler_settings(const CompilerSettings& s) {
  cuda::use_compiler(
      std::make_shared<cuda::Compiler>(cuda::CompilerOptions{.nvcc = s.path,
                                                             .use_cache = s.use_cache,
                                                             .cache_dir = s.cache_dir,
                                                             .seconds = s.seconds,
                                                             .memory_mb = s.memory_mb,
                                                             .precompiled = s.precompiled,
                                                             .precompiled_missing = s.missing,
                                                             .source_level = s.source_level,
                                                             .target_sm = s.target_sm}));
}

std::string read_head(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};  // a FIFO would block
  std::string head(kDialectHeadBytes, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

std::vector<std::string> prepare_test_files(const std::vector<std::string>& files,
                                            std::size_t max_bytes) {
  std::vector<std::string> missing;
  for (const Dialect& d : dialects()) {
    if (!d.prepare) continue;
    std::vector<std::string> mine;
    for (const std::string& f : files)
      if (d.claims(address_file(f), read_head(address_file(f)))) mine.push_back(f);
    if (mine.empty()) continue;
    if (std::optional<std::string> why = d.prepare(mine, max_bytes))
      missing.push_back(fmt::format("{} {} test(s): {}", mine.size(), d.name, *why));
  }
  return missing;
}

std::string accepted_files() {
  std::vector<std::string_view> kinds;
  for (const Dialect& d : dialects())
    if (std::find(kinds.begin(), kinds.end(), d.accepts) == kinds.end()) kinds.push_back(d.accepts);
  return or_list(kinds);
}

}  // namespace redscope
