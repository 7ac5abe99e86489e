// Checked values of the command line, shared by the commands of src/cli/:
// every number a flag takes is parsed here (never std::stoul, which aborts on
// "99999999999999999999" or "abc"), and every input file is read by
// read_input (redscope/core/input.hpp).
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace redscope::cli {

// `v` as a whole number in [lo, hi]: decimal digits only (a leading '-' when
// lo < 0), the whole string, no overflow; nullopt otherwise.
inline std::optional<long long> parse_whole(std::string_view v, long long lo, long long hi) {
  long long x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi) return std::nullopt;
  return x;
}

// --max-file-size MB: from 1 to 4096 mebibytes.
constexpr long long kMaxFileSizeMinMb = 1, kMaxFileSizeMaxMb = 4096;
// --timeout SECONDS: 0 (none) to a day.
constexpr long long kMaxTimeoutSeconds = 86400;
// --max-tests N of the generators (gen cycle --size, gen matrix): 0 (none) to 10^8.
constexpr long long kMaxTestsBound = 100'000'000;

}  // namespace redscope::cli
