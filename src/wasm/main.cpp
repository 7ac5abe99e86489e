// The module's export (redscope_call, for Module.ccall) and, natively, the
// program redscope-call: one request on stdin, its answer on stdout, so
// that the same code can be tried and tested without emscripten.
#include <iostream>
#include <iterator>
#include <string>

#include "wasm/api.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>

#include "redscope/registry/registry.hpp"

constexpr std::string_view kNoNvccHere =
    "the playground has no nvcc: a CUDA test runs here only from PTX compiled ahead, which the "
    "page ships for litmus/cuda's examples as written; this test is not one of them (edited, or "
    "new). Check it with the command line: redscope run FILE (docs/cuda.md)";

// The answer stays valid until the next call: ccall copies it into a JS
// string at once. The module runs one call at a time on one thread (the
// page's Worker), so one buffer is enough.
extern "C" EMSCRIPTEN_KEEPALIVE const char* redscope_call(const char* request) {
  // A browser has no nvcc: CUDA tests run from PTX compiled ahead, which the
  // worker writes to /cuda-ptx (scripts/build-web.sh, docs/cuda.md).
  static const bool compiler = [] {
    redscope::use_compiler_settings(redscope::CompilerSettings{
        .precompiled = true, .cache_dir = "/cuda-ptx", .missing = std::string(kNoNvccHere)});
    return true;
  }();
  (void)compiler;
  static std::string answer;
  answer = redscope::wasm::call(request ? request : "");
  return answer.c_str();
}
#else
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "redscope/core/allocator.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/input.hpp"
#include "wasm/request.hpp"

// `redscope-call [--max-file-size MB]`: standard input is read as the CLI
// reads it (read_input_stream: an endless stream stops at the bound), up to
// the size of a request whose texts hold MB MiB each (request_bound: 33 MiB
// for the default 16; the request's options.max_file_size cannot raise it).
// A bad command line: a message on stderr, exit 2; else the answer, exit 0.
int main(int argc, char** argv) {
  redscope::tune_allocator();  // before any thread starts
  using namespace redscope;
  long long mb = 16;
  const std::string a = argc > 1 ? argv[1] : "";
  if (argc == 3 && a == "--max-file-size") {
    const std::optional<long long> v =
        cli::parse_whole(argv[2], cli::kMaxFileSizeMinMb, cli::kMaxFileSizeMaxMb);
    if (!v) {
      fmt::print(stderr,
                 "redscope-call: --max-file-size takes a whole number from {} to {}, "
                 "not '{}'\n",
                 cli::kMaxFileSizeMinMb, cli::kMaxFileSizeMaxMb, printable(argv[2]));
      return 2;
    }
    mb = *v;
  } else if (argc != 1) {
    fmt::print(stderr, "usage: redscope-call [--max-file-size MB] < REQUEST.json\n");
    return 2;
  }
  std::string request;
  try {
    request = read_input_stream(
        std::cin, "<stdin>",
        static_cast<std::size_t>(wasm::request_bound(static_cast<std::uint64_t>(mb) * wasm::kMiB)),
        "request");
  } catch (const InputError& e) {
    std::cout << wasm::error_answer(e.diagnostic()) << "\n";
    return 0;
  }
  std::cout << wasm::call(request) << "\n";
  return 0;
}
#endif
