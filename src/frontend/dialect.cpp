// The dialect registry: herd/Dat3M PTX litmus files and NVIDIA's .test files.
#include "redscope/frontend/dialect.hpp"

#include <array>

#include "frontend/nvtest/nv_test.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope {

namespace {

// herd/Dat3M PTX litmus tests: files named *.litmus (docs/litmus-format.md).
bool ptx_claims(const std::filesystem::path& path, std::string_view /*head*/) {
  return path.extension() == ".litmus";
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
};

}  // namespace

std::span<const Dialect> dialects() { return kDialects; }

const Dialect* dialect_for(const std::filesystem::path& path, std::string_view head) {
  for (const Dialect& d : dialects())
    if (d.claims(path, head)) return &d;
  return nullptr;
}

std::string accepted_files() {
  std::string s;
  const std::span<const Dialect> all = dialects();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) s += i + 1 == all.size() ? " or " : ", ";
    s += all[i].accepts;
  }
  return s;
}

}  // namespace redscope
