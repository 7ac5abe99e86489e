// The dialect registry: herd/Dat3M PTX litmus files, SASS litmus files,
// NVIDIA's .test files and PTO vector programs.
#include "redscope/frontend/dialect.hpp"

#include <algorithm>
#include <array>

#include "frontend/nvtest/nv_test.hpp"
#include "frontend/pto/pto_dialect.hpp"
#include "frontend/sass/sass_litmus.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope {

namespace {

// SASS litmus tests: *.litmus files whose first word is SASS (comment lines
// `//` and `(* *)` before it are skipped).
bool sass_head(std::string_view head) {
  return first_word_is(head, "SASS") || first_word_is(head, "sass");
}

bool sass_claims(const std::filesystem::path& path, std::string_view head) {
  return path.extension() == ".litmus" && sass_head(head);
}

// PTO vector programs: *.litmus files whose first word is PTO.
bool pto_claims(const std::filesystem::path& path, std::string_view head) {
  return path.extension() == ".litmus" && detail::pto_head(head);
}

// herd/Dat3M PTX litmus tests: files named *.litmus (docs/litmus-format.md),
// unless their first word is SASS or PTO.
bool ptx_claims(const std::filesystem::path& path, std::string_view head) {
  return path.extension() == ".litmus" && !sass_head(head) && !detail::pto_head(head);
}

std::vector<LitmusTest> ptx_parse(std::string_view text, const std::string& file) {
  std::vector<LitmusTest> out;
  out.push_back(parse_litmus(text, file));
  return out;
}

// NVIDIA's mixed-proxy tests (docs/litmus-format.md "NVIDIA .test files").
bool nv_claims(const std::filesystem::path& path, std::string_view /*head*/) {
  return path.extension() == ".test";
}

constexpr std::array kDialects{
    Dialect{"ptx-litmus", ".litmus", ptx_claims, ptx_parse},
    Dialect{"nvidia-test", ".test", nv_claims, detail::parse_nv_test, detail::parse_nv_test_nth},
    Dialect{"sass-litmus", ".litmus", sass_claims, detail::parse_sass_litmus},
    Dialect{"pto-litmus", ".litmus", pto_claims, detail::parse_pto_litmus},
};

}  // namespace

std::span<const Dialect> dialects() { return kDialects; }

const Dialect* dialect_for(const std::filesystem::path& path, std::string_view head) {
  for (const Dialect& d : dialects())
    if (d.claims(path, head)) return &d;
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
