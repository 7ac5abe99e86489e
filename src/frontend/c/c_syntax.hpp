// The pieces of C syntax the two C readers share (private to frontend/c):
// the tokens of a body and the C type names a declaration may use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/types.hpp"

namespace redscope::csrc::detail {

enum class CTok : std::uint8_t { Ident, Number, Punct, End };

struct CToken {
  CTok kind = CTok::End;
  std::string text;
  SourceLoc at;
  std::size_t begin = 0, end = 0;  // byte offsets in the lexed text
};

// The tokens of C text that starts at `at` in `file`, ending with a CTok::End
// token. Comments (`//`, `/* */`) are dropped; a number is a C pp-number
// (digits, letters, '.', exponent signs), judged by its reader. String and
// character literals and the preprocessor are located errors: no body needs them.
std::vector<CToken> lex_c(std::string_view text, const std::string& file, SourceLoc at);

// A scalar C type as redscope holds it. 128-bit integers (`__int128`,
// `__int128_t`, `__uint128_t`) are held as 64-bit values (`wide` set): a
// literal that does not fit 64 bits is a located error where it is written.
struct CType {
  DataType type = DataType::S32;
  bool wide = false;         // declared 128 bits wide, held in 64
  bool boolean = false;      // bool / _Bool: a predicate
  bool is_volatile = false;  // `volatile` among the words
  bool is_atomic = false;    // `_Atomic`, atomic_int, atomic_t ...
};

// Whether `w` may start or continue a type: a specifier (int, unsigned ...),
// a qualifier (const, volatile, _Atomic) or one of the type names below.
bool is_type_word(std::string_view w);

// The type the words name (`unsigned long long`, `const int`, `atomic_int`,
// `__int128_t`, `float` ...), or the reason it is none ("unexpected 'int128_t'")
// and the index of the word it is about.
struct TypeResult {
  std::optional<CType> type;
  std::string why;
  std::size_t bad = 0;  // the word the reason is about
};
TypeResult c_type(const std::vector<std::string>& words);

// Memory orders and thread scopes by the names C and libcu++ give them.
std::optional<MemOrder> memory_order_named(std::string_view name);     // memory_order_acquire ...
std::optional<ThreadScope> thread_scope_named(std::string_view name);  // thread_scope_block ...

// The PTX readings of a source order and scope (c_source.hpp).

}  // namespace redscope::csrc::detail
