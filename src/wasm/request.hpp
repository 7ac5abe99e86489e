// A request of the playground's JSON API (api.hpp), read and checked as the
// CLI checks its command line (src/cli/main.cpp parse_run): every member and
// option has one JSON type and the CLI flag's range, 0 means what it means
// there, an unknown member or an option the command does not take is
// refused, and each refusal is located at the offending value
// ("request:LINE:COL: error: ..."). The texts are bounded as the CLI bounds
// a file (--max-file-size). docs/playground.md "The module's JSON API".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "redscope/core/cli_args.hpp"
#include "redscope/core/json.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope::wasm {

// The CLI's ranges (src/cli/main.cpp parse_run): --timeout 0 to 86400 s (here
// in milliseconds), --max-outcomes 0 to 10^8, --unroll 0 to 64,
// --max-file-size 1 to 4096 MiB (cli_args.hpp).
constexpr long long kMaxTimeoutMs = 86'400'000;
constexpr long long kMaxOutcomesLimit = 100'000'000;
constexpr long long kMaxUnroll = 64;

// A request holds two texts (test, model_text) of at most max_file_size
// each, and 1 MiB for the rest (names, options). In 64 bits: the module's
// size_t has 32, and 2 x 4096 MiB would wrap there.
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t request_bound(std::uint64_t max_file_bytes) {
  return 2 * max_file_bytes + kMiB;
}
// The bound at the largest max_file_size: checked before the request is read.
constexpr std::uint64_t kMaxRequestBytes =
    request_bound(static_cast<std::uint64_t>(cli::kMaxFileSizeMaxMb) * kMiB);

constexpr long long kMaxExecutions = 10000;  // executions' options.limit

struct Request {
  std::string command;
  std::string test;
  std::string file = "test.litmus";
  std::optional<ModelRef> model;  // "model": a built-in one
  std::optional<std::string> model_text;
  std::string model_file = "model.cat";

  // The options, checked; absent ones have the CLI's defaults.
  EngineKind engine = EngineKind::Auto;
  bool observe_all = false, verdict = false, condition = false;
  std::size_t limit = 100;  // executions: at most this many (1 to kMaxExecutions)
  bool text = false;        // run's format "text": herd7's output, as `redscope run` prints it
  std::size_t max_outcomes = 10000;          // 0 in the request: no limit
  double seconds = 300;                      // timeout_ms / 1000; 0: none
  int unroll = 2;                            // --unroll
  std::uint64_t max_file_bytes = 16 * kMiB;  // max_file_size MiB
  // Checked against the file's tests when they are known (row_of, api.cpp).
  const JsonNode* row = nullptr;
  std::size_t row_value = 0;
  // dot: an object of the outcome's values (strings); explain: a string.
  const JsonNode* outcome = nullptr;
  // dot: the witness to draw ({"rf": [...], "co": [...]}), instead of
  // running the test again to find the outcome's.
  const JsonNode* witness = nullptr;
};

// The request `root` (parsed from `size` bytes) means, every member and
// option checked; InputError at "request" (LINE:COL of the value) otherwise.
// The node must outlive the request (it points into it).
Request read_request(const JsonNode& root, std::size_t size);

}  // namespace redscope::wasm
