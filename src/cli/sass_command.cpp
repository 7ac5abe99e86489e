// `redscope sass encode [FILE]` and `redscope sass decode [FILE]`: the
// sm_30 encoder and decoder on text (docs/cli.md, docs/sass.md).
#include "cli/sass_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "redscope/frontend/sass.hpp"

namespace redscope::cli {

namespace {

constexpr const char* kSassUsage = R"(Usage:
  redscope sass encode [FILE]   one SASS instruction per line (stdin when no
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
(exit 1). docs/sass.md lists the instructions, their fields and where the
encodings depart from the seed.
)";

}  // namespace

int run_sass(int argc, char** argv) {
  if (argc >= 3 && (std::string(argv[2]) == "-h" || std::string(argv[2]) == "--help")) {
    fmt::print("{}", kSassUsage);
    return 0;
  }
  if (argc < 3 || argc > 4) {
    fmt::print(stderr, "redscope: sass takes encode or decode and at most one FILE\n{}",
               kSassUsage);
    return 2;
  }
  const std::string mode = argv[2];
  if (mode != "encode" && mode != "decode") {
    fmt::print(stderr, "redscope: unknown sass command '{}' (encode or decode)\n{}", mode,
               kSassUsage);
    return 2;
  }
  std::string file = argc == 4 ? argv[3] : "-";
  std::stringstream ss;
  if (file == "-") {
    ss << std::cin.rdbuf();
    file = "<stdin>";
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "{}: error: cannot open file\n", file);
      return 1;
    }
    ss << in.rdbuf();
  }
  const std::string text = ss.str();
  const sass::Listing out =
      mode == "encode" ? sass::encode_listing(text, file) : sass::decode_listing(text, file);
  for (const Diagnostic& d : out.errors) fmt::print(stderr, "{}\n", d.render());
  if (!out.errors.empty()) return 1;
  for (const std::string& l : out.lines) fmt::print("{}\n", l);
  return 0;
}

}  // namespace redscope::cli
