// The dialect registry: herd/Dat3M PTX litmus files, NVIDIA's .test files,
// SASS litmus files and PTO vector programs. Adding a dialect is its folder
// and one row in kDialects.
#include "redscope/registry/registry.hpp"

#include <algorithm>
#include <array>

#include "dialects/pto/pto_dialect.hpp"
#include "dialects/sass/sass_command.hpp"
#include "dialects/sass/sass_litmus.hpp"
#include "frontend/nvtest/nv_test.hpp"

namespace redscope {

namespace {

// Whether the first word of `head`, after blank space and `//` and `(* *)`
// comments, is `word` (as written or in lower case), followed by a blank.
bool first_word_is(std::string_view head, std::string_view word) {
  std::size_t i = 0;
  for (;;) {
    i = head.find_first_not_of(" \t\r\n", i);
    if (i == std::string_view::npos) return false;
    if (head.substr(i, 2) == "//") {
      i = head.find('\n', i);
    } else if (head.substr(i, 2) == "(*") {
      i = head.find("*)", i);
      if (i != std::string_view::npos) i += 2;
    } else {
      break;
    }
    if (i == std::string_view::npos) return false;
  }
  const std::string_view w = head.substr(i, word.size());
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (w != word && w != lower) return false;
  return i + word.size() < head.size() &&
         (head[i + word.size()] == ' ' || head[i + word.size()] == '\t');
}

std::vector<LitmusTest> one_litmus_test(std::string_view text, const std::string& file) {
  std::vector<LitmusTest> out;
  out.push_back(parse_litmus(text, file));
  return out;
}

// herd/Dat3M PTX litmus tests (docs/litmus-format.md), NVIDIA's mixed-proxy
// tests (".test files"), SASS litmus tests (docs/sass.md) and PTO vector
// programs (docs/litmus-format.md "PTO vector programs").
constexpr std::array kDialects{
    Dialect{.name = "ptx-litmus", .accepts = ".litmus", .parse = one_litmus_test},
    Dialect{.name = "nvidia-test",
            .accepts = ".test",
            .parse = detail::parse_nv_test,
            .parse_nth = detail::parse_nv_test_nth},
    Dialect{.name = "sass-litmus",
            .accepts = ".litmus",
            .first_word = "SASS",
            .parse = detail::parse_sass_litmus,
            .command = "sass",
            .run_command = cli::run_sass},
    Dialect{.name = "pto-litmus",
            .accepts = ".litmus",
            .first_word = "PTO",
            .parse = detail::parse_pto_litmus},
};

}  // namespace

bool Dialect::claims(const std::filesystem::path& path, std::string_view head) const {
  return path.extension() == accepts && (first_word.empty() || first_word_is(head, first_word));
}

std::span<const Dialect> dialects() { return kDialects; }

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

std::string accepted_files() {
  std::vector<std::string_view> kinds;
  for (const Dialect& d : dialects())
    if (std::find(kinds.begin(), kinds.end(), d.accepts) == kinds.end()) kinds.push_back(d.accepts);
  std::string s;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) s += i + 1 == kinds.size() ? " or " : ", ";
    s += kinds[i];
  }
  return s;
}

}  // namespace redscope
