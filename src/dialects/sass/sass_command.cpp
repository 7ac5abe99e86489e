// `redscope sass encode [FILE]` and `redscope sass decode [FILE]`: the
// sm_30 encoder and decoder on text (docs/cli.md, docs/sass.md).
#include "redscope/dialects/sass/sass_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "redscope/core/cli_args.hpp"
#include "redscope/core/input.hpp"
#include "redscope/dialects/sass/sass.hpp"

namespace redscope::cli {

namespace {

constexpr const char* kSassUsage = R"(Usage:
  redscope sass encode [FILE] [--max-file-size MB]
                                one SASS instruction per line (stdin when no
                                FILE or FILE is -) -> one 64-bit word per line,
                                0x and 16 lowercase hex digits (bit 0 is the
                                least significant bit: the first character of
                                the seed's templates); a line `name:` labels
                                the next instruction (8 bytes each, from 0x0).
                                Branch targets (BRA SSY CAL PBK PCNT PRET
                                PLONGJMP) are relative to the next instruction,
                                the seed's syntax; on a line of cuobjdump's
                                listing, `/*00d0*/ @P0 BRA 0x70;`, the address
                                prefix is the instruction's address and the
                                target is absolute, as cuobjdump prints it
  redscope sass decode [FILE]   one word per line (or a listing line's last
                                `/* 0x... */`) -> the instruction's canonical
                                text, the spelling encode reads; a line with
                                an address prefix keeps it, target absolute
Every bad line is reported as FILE:LINE:COL and nothing is printed on stdout
(exit 1). A FILE (or standard input) that cannot be read, is not a regular
file (a folder, FIFO or device) or holds more than --max-file-size MB
(default 16) is an error, exit 2. docs/sass.md lists the instructions, their
fields and where the encodings depart from the seed.
)";

int usage(const std::string& msg) {
  fmt::print(stderr, "redscope: {}\n{}", msg, kSassUsage);
  return 2;
}

// The text to encode or decode: FILE, or standard input when there is none
// or it is "-", read by read_input (a regular file, or a stream cut at the
// bound). Throws InputError when it cannot be read.
std::string sass_input(std::string& file, std::size_t max_bytes) {
  if (file != "-") return read_input(file, max_bytes, "SASS text or word file");
  file = "<stdin>";
  return read_input_stream(std::cin, file, max_bytes, "standard input");
}

}  // namespace

int run_sass(int argc, char** argv, TestFileReader /*read: the command reads listings*/) {
  if (argc >= 3 && (std::string(argv[2]) == "-h" || std::string(argv[2]) == "--help")) {
    fmt::print("{}", kSassUsage);
    return 0;
  }
  const std::string mode = argc >= 3 ? argv[2] : "";
  if (mode != "encode" && mode != "decode") {
    fmt::print(stderr, "redscope: unknown sass command '{}' (encode or decode)\n{}",
               printable(mode), kSassUsage);
    return 2;
  }
  std::optional<std::string> named;
  std::size_t max_bytes = kDefaultMaxInputBytes;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    std::optional<long long> mb;
    if (a == "--max-file-size" && i + 1 < argc)
      mb = parse_whole(argv[++i], kMaxFileSizeMinMb, kMaxFileSizeMaxMb);
    if (a == "--max-file-size" && !mb)
      return usage(fmt::format("--max-file-size takes a whole number from {} to {}",
                               kMaxFileSizeMinMb, kMaxFileSizeMaxMb));
    if (mb)
      max_bytes = static_cast<std::size_t>(*mb) << 20;
    else if (named || (a.size() > 1 && a[0] == '-'))
      return usage(
          fmt::format("sass takes encode or decode and at most one FILE, not '{}'", printable(a)));
    else
      named = a;
  }
  std::string file = named.value_or("-");
  std::string text;
  try {
    text = sass_input(file, max_bytes);
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return 2;
  }
  const sass::Listing out =
      mode == "encode" ? sass::encode_listing(text, file) : sass::decode_listing(text, file);
  for (const Diagnostic& d : out.errors) fmt::print(stderr, "{}\n", d.render());
  if (!out.errors.empty()) return 1;
  for (const std::string& l : out.lines) fmt::print("{}\n", l);
  return 0;
}

}  // namespace redscope::cli
