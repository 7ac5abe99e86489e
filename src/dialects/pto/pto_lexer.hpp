// Tokens of PTO programs (MLIR's generic spelling as the seed writes it):
// `%ssa` values, `!pto.vreg<64xf32>` types (one token, angle brackets
// balanced), `#pto.pipe` attributes, "strings", numbers, dotted identifiers
// (`pto.vcadd`, `scf.for`), `...` and punctuation. Private to the dialect.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::detail::pto_syntax {

enum class T : std::uint8_t {
  Ident,   // pto.vcadd, scf.for, f32, ub, P0, exists
  Value,   // %vec
  Type,    // !pto.vreg<64xf32>
  Attr,    // #pto.pipe
  Number,  // 64, 0x10, 1.5, 1e-3
  String,  // "PAT_ALL" (text without the quotes)
  Punct,   // { } [ ] ( ) , : = ; < > -> ... -
  Other,   // a character no PTO token starts with (the condition's /\ ...)
  End,
};

struct Token {
  T kind = T::End;
  std::string text;
  SourceLoc loc;
  std::size_t offset = 0;  // byte offset of the token in the file
};

// Names (identifiers, %values, #attributes) are at most this long: they are
// map keys the elaboration and the explorer compare and copy per step.
constexpr std::size_t kMaxWordBytes = 256;
// Tokens in a file (about 60 bytes each: a 16 MiB file of punctuation would
// hold a gigabyte of them).
constexpr std::size_t kMaxTokens = 2000000;

// Every token of `text`; comments `//` and `(* *)` are dropped. Throws
// InputError for an unterminated string, comment or type, and for a name
// longer than kMaxWordBytes.
std::vector<Token> tokenize(std::string_view text, const std::string& file);

}  // namespace redscope::detail::pto_syntax
