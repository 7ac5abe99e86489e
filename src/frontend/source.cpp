// Reading input files: size, kind and encoding checked before parsing.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/input.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/lexer.hpp"

namespace redscope {

std::string read_litmus_source(const std::string& path, std::size_t max_bytes) {
  std::string text = read_input(path, max_bytes, "litmus file");
  check_input_text(path, text, "litmus file");
  return text;
}

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
