// Tokenizer for litmus files (private to the frontend).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::detail {

enum class Tok {
  Ident,
  Number,
  String,
  Newline,
  End,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Semi,
  Bar,
  Comma,
  Colon,
  At,
  Amp,
  Plus,
  Minus,
  Assign,  // =
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  And,  // /\ .
  Or,   // \/ .
  Tilde,
  Bang,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
};

// Splits `text` into tokens. Comments `(* *)` and `//` are dropped; newlines
// are kept as tokens because litmus rows end at a line end. Throws InputError
// for characters that cannot start a token and for unterminated strings or
// comments.
std::vector<Token> tokenize(std::string_view text, const std::string& file);

std::string describe(const Token& t);

// `r0`, `r12` or `%anything`: a register rather than a location name.
bool is_register_name(std::string_view s);

// The integer a Number token spells (decimal or 0x hex), negated when
// `negative`; InputError at the token when it is not an integer or does not
// fit in 64 bits.
std::int64_t integer_value(const Token& t, bool negative, const std::string& file);

// The one reader of integers in input text: every dialect's numbers (litmus,
// SASS, .test holes, thread ids and immediates, PTO) and FILE#N addresses go
// through these two. `text` is decimal digits, or 0x/0X and hex digits;
// nullopt when it is not, or when its value does not fit in 64 bits.
std::optional<std::uint64_t> unsigned_integer(std::string_view text);

// The same, located: the value of `text`, negated when `negative`, as a
// 64-bit pattern ([-2^63, 2^64 - 1] fit; callers check narrower ranges).
// InputError at `at` in `file`: "expected an integer, found 'T'" or "number
// 'T' does not fit in 64 bits".
std::int64_t integer_at(std::string_view text, bool negative, const std::string& file,
                        SourceLoc at);

}  // namespace redscope::detail
