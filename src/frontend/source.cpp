// Reading input files: size, kind and encoding checked before parsing.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "frontend/lexer.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/input.hpp"
#include "redscope/frontend/dialect.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope {

std::string read_litmus_source(const std::string& path, std::size_t max_bytes) {
  std::string text = read_input(path, max_bytes, "litmus file");
  check_input_text(path, text, "litmus file");
  return text;
}

// The dialect that claims the file reads it; a file named explicitly that no
// dialect claims is read by the first one (PTX litmus), whatever its name.
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

namespace {

// "FILE#N" -> (FILE, N) when FILE is not itself a file and N a number.
std::optional<std::pair<std::string, std::size_t>> split_address(const std::string& a) {
  const std::size_t hash = a.rfind('#');
  if (hash == std::string::npos || hash + 1 == a.size()) return std::nullopt;
  std::error_code ec;
  if (std::filesystem::exists(a, ec)) return std::nullopt;
  const std::string n = a.substr(hash + 1);
  if (n.size() > 6 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::make_pair(a.substr(0, hash),
                        static_cast<std::size_t>(detail::unsigned_integer(n).value_or(0)));
}

}  // namespace

LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes) {
  const auto addr = split_address(path);
  const std::string file = addr ? addr->first : path;
  if (addr) {
    const std::string text = read_litmus_source(file, max_bytes);
    const Dialect& d = reader_of(file, text);
    if (d.parse_nth)
      if (std::optional<LitmusTest> t = d.parse_nth(text, file, addr->second)) return std::move(*t);
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

std::string address_file(const std::string& address) {
  const auto a = split_address(address);
  return a ? a->first : address;
}

std::string address_stem(const std::string& address) {
  const auto a = split_address(address);
  const std::string stem = std::filesystem::path(a ? a->first : address).stem().string();
  return a ? fmt::format("{}#{}", stem, a->second) : stem;
}

}  // namespace redscope
