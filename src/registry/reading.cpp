// Reading test files through the registry: the dialect that claims a file
// parses it; a file named explicitly that no dialect claims is read by the
// first one (PTX litmus), whatever its name.
#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope {

namespace {

// The dialect that reads a file's text (the first one when none claims it).
const Dialect& reader_of(const std::string& path, std::string_view text) {
  const Dialect* d = dialect_for(path, text.substr(0, kDialectHeadBytes));
  return d ? *d : dialects().front();
}

}  // namespace

std::vector<LitmusTest> parse_litmus_tests(const std::string& path, std::size_t max_bytes) {
  const std::string text = read_litmus_source(path, max_bytes);
  return reader_of(path, text).parse(text, path);
}

std::vector<LitmusTest> parse_litmus_text(std::string_view text, const std::string& file) {
  return reader_of(file, text).parse(text, file);
}

LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes) {
  const auto addr = split_address(path);
  const std::string file = addr ? addr->first : path;
  if (addr) {
    const std::string text = read_litmus_source(file, max_bytes);
    const Dialect& d = reader_of(file, text);
    if (d.parse_nth)
      if (std::optional<LitmusTest> t = d.parse_one(text, file, addr->second)) return std::move(*t);
  }
  std::vector<LitmusTest> tests = parse_litmus_tests(file, max_bytes);
  if (addr) {
    if (addr->second == 0 || addr->second > tests.size())
      throw InputError(
          Diagnostic{file,
                     {0, 0},
                     fmt::format("holds {} test(s): #{} is not one of them (#1 to #{})",
                                 tests.size(), addr->second, tests.size())});
    return std::move(tests[addr->second - 1]);
  }
  if (tests.size() != 1)
    throw InputError(
        Diagnostic{path,
                   {0, 0},
                   fmt::format("holds {} tests: name one as {}#1 ... {}#{}, or run the whole file",
                               tests.size(), path, path, tests.size())});
  return std::move(tests.front());
}

std::vector<std::string> test_addresses(const std::string& file, std::size_t max_bytes) {
  if (split_address(file)) return {file};
  const Dialect* d = dialect_for(file, {});
  if (!d || d == &dialects().front()) return {file};  // one test per .litmus file
  std::size_t n = 1;
  // Any failure (bad input, a parser's own defect) stays with this file: it
  // is reported when the file is checked, and the other files still run.
  try {
    n = parse_litmus_tests(file, max_bytes).size();
  } catch (const std::exception&) {
    return {file};
  }
  if (n == 1) return {file};
  std::vector<std::string> out;
  for (std::size_t i = 1; i <= n; ++i) out.push_back(fmt::format("{}#{}", file, i));
  return out;
}

}  // namespace redscope
