// The C tokens and type names of the C readers (c_syntax.hpp).
#include "frontend/c/c_syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "redscope/frontend/text_cursor.hpp"

namespace redscope::csrc::detail {

namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_'; }
bool ident_char(char c) { return is_alnum(c) || c == '_'; }

// C's punctuators that a body may use, longest first (C11 6.4.6).
constexpr std::array<std::string_view, 47> kPunct{
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "{",
    "}",   "[",   "]",   "(",  ")",  "<",  ">",  ";",  ",",  ".",  ":",  "?",
    "!",   "~",   "+",   "-",  "*",  "/",  "%",  "&",  "|",  "^",  "="};

}  // namespace

std::vector<CToken> lex_c(std::string_view text, const std::string& file, SourceLoc at) {
  TextCursor c(text, file, at);
  std::vector<CToken> out;
  for (;;) {
    c.take_while(is_space);
    if (c.at("//")) {
      c.skip_line_comment();
      continue;
    }
    if (c.at("/*")) {
      c.skip_block_comment("/*", "*/", false, "unterminated comment");
      continue;
    }
    CToken t;
    t.at = c.loc();
    t.begin = c.offset();
    if (c.done()) {
      t.end = t.begin;
      out.push_back(std::move(t));
      return out;
    }
    const char ch = c.peek();
    if (ident_start(ch)) {
      t.kind = CTok::Ident;
      c.take_while(ident_char);
    } else if (is_digit(ch) || (ch == '.' && is_digit(c.peek(1)))) {
      t.kind = CTok::Number;  // a pp-number (C11 6.4.8)
      const std::size_t from = c.offset();
      while (!c.done()) {
        const char d = c.peek();
        const std::string_view so_far = c.since(from);
        const bool sign = (d == '+' || d == '-') && !so_far.empty() &&
                          (so_far.back() == 'e' || so_far.back() == 'E' || so_far.back() == 'p' ||
                           so_far.back() == 'P');
        if (!ident_char(d) && d != '.' && !sign) break;
        c.advance();
      }
    } else if (ch == '"' || ch == '\'') {
      c.fail("string and character literals are not read by the source semantics");
    } else if (ch == '#') {
      c.fail("the preprocessor ('#') is not read by the source semantics");
    } else {
      t.kind = CTok::Punct;
      const auto p =
          std::find_if(kPunct.begin(), kPunct.end(), [&](std::string_view s) { return c.at(s); });
      if (p == kPunct.end())
        c.fail(fmt::format("unexpected character '{}'", printable(std::string(1, ch))));
      c.advance(p->size());
    }
    t.end = c.offset();
    t.text = std::string(text.substr(t.begin, t.end - t.begin));
    out.push_back(std::move(t));
  }
}

namespace {

// Type names (typedefs) of <stdint.h>, <stdatomic.h>, herd7's C lexer
// (lib/CLexer.mll: int8_t ... __uint128, intptr_t, atomic_t, atomic_int)
// and the scalar types they stand for.
struct NamedType {
  std::string_view name;
  DataType type;
  bool wide;
  bool atomic;
};
constexpr std::array<NamedType, 27> kNamed{{
    {"int16_t", DataType::S16, false, false},        {"uint16_t", DataType::U16, false, false},
    {"int32_t", DataType::S32, false, false},        {"uint32_t", DataType::U32, false, false},
    {"int64_t", DataType::S64, false, false},        {"uint64_t", DataType::U64, false, false},
    {"intptr_t", DataType::S64, false, false},       {"uintptr_t", DataType::U64, false, false},
    {"size_t", DataType::U64, false, false},         {"ptrdiff_t", DataType::S64, false, false},
    {"__int128_t", DataType::S64, true, false},      {"__uint128_t", DataType::U64, true, false},
    {"__int128", DataType::S64, true, false},        {"__uint128", DataType::U64, true, false},
    {"atomic_t", DataType::S32, false, true},        {"atomic_int", DataType::S32, false, true},
    {"atomic_uint", DataType::U32, false, true},     {"atomic_long", DataType::S64, false, true},
    {"atomic_ulong", DataType::U64, false, true},    {"atomic_llong", DataType::S64, false, true},
    {"atomic_ullong", DataType::U64, false, true},   {"atomic_short", DataType::S16, false, true},
    {"atomic_ushort", DataType::U16, false, true},   {"atomic_int32_t", DataType::S32, false, true},
    {"atomic_uint32_t", DataType::U32, false, true}, {"atomic_int64_t", DataType::S64, false, true},
    {"atomic_uint64_t", DataType::U64, false, true},
}};

constexpr std::array<std::string_view, 16> kSpecifiers{
    "const", "volatile", "_Atomic", "signed", "unsigned", "short",    "int",      "long",
    "char",  "float",    "double",  "bool",   "_Bool",    "__int128", "register", "void"};

// 8-bit types: the IR has no 8-bit access (docs/litmus-format.md).
constexpr std::array<std::string_view, 5> kEightBit{"char", "int8_t", "uint8_t", "atomic_char",
                                                    "atomic_schar"};

}  // namespace

bool is_type_word(std::string_view w) {
  return std::find(kSpecifiers.begin(), kSpecifiers.end(), w) != kSpecifiers.end() ||
         std::find(kEightBit.begin(), kEightBit.end(), w) != kEightBit.end() ||
         std::any_of(kNamed.begin(), kNamed.end(), [&](const NamedType& n) { return n.name == w; });
}

TypeResult c_type(const std::vector<std::string>& words) {
  TypeResult r;
  CType t;
  int longs = 0, shorts = 0, ints = 0, sign = 0;  // sign: 1 signed, 2 unsigned
  bool flt = false, dbl = false, boolean = false, i128 = false;
  std::optional<std::size_t> named;
  auto fail = [&](std::size_t k, std::string why) {
    r.why = std::move(why);
    r.bad = k;
    return r;
  };
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string& w = words[k];
    if (w == "const" || w == "register") continue;
    if (w == "volatile") {
      t.is_volatile = true;
    } else if (w == "_Atomic") {
      t.is_atomic = true;
    } else if (w == "signed" || w == "unsigned") {
      if (sign) return fail(k, fmt::format("'{}' twice in one type", w));
      sign = w == "signed" ? 1 : 2;
    } else if (w == "short") {
      ++shorts;
    } else if (w == "long") {
      ++longs;
    } else if (w == "int") {
      ++ints;
    } else if (w == "float") {
      flt = true;
    } else if (w == "double") {
      dbl = true;
    } else if (w == "bool" || w == "_Bool") {
      boolean = true;
    } else if (w == "__int128") {
      i128 = true;
    } else if (w == "void") {
      return fail(k, "'void' is not a type a location or a local may have");
    } else if (std::find(kEightBit.begin(), kEightBit.end(), w) != kEightBit.end()) {
      return fail(k, fmt::format("'{}' is an 8-bit type: redscope has no 8-bit accesses", w));
    } else if (std::any_of(kNamed.begin(), kNamed.end(),
                           [&](const NamedType& n) { return n.name == w; })) {
      if (named) return fail(k, fmt::format("unexpected '{}' after '{}'", w, words[*named]));
      named = k;
    } else {
      return fail(k, fmt::format("unexpected '{}': not a C type redscope reads (int, unsigned, "
                                 "long long, __int128, atomic_int, float, double ...)",
                                 printable(w)));
    }
  }
  const int kinds =
      (named ? 1 : 0) + (flt ? 1 : 0) + (dbl ? 1 : 0) + (boolean ? 1 : 0) + (i128 ? 1 : 0);
  const bool integer_words = longs || shorts || ints || sign;
  if (kinds > 1 || (kinds == 1 && integer_words && !i128) || longs > 2 || shorts > 1 || ints > 1 ||
      (shorts && longs))
    return fail(0, "these words do not name one C type");
  if (named) {
    const NamedType& n = *std::find_if(kNamed.begin(), kNamed.end(),
                                       [&](const NamedType& x) { return x.name == words[*named]; });
    t.type = n.type;
    t.wide = n.wide;
    t.is_atomic = t.is_atomic || n.atomic;
    t.boolean = n.type == DataType::Pred;
  } else if (flt || dbl) {
    t.type = flt ? DataType::F32 : DataType::F64;
  } else if (boolean) {
    t.type = DataType::Pred;
    t.boolean = true;
  } else if (i128) {
    if (longs || shorts || ints) return fail(0, "these words do not name one C type");
    t.type = sign == 2 ? DataType::U64 : DataType::S64;
    t.wide = true;
  } else if (integer_words) {
    // LP64, as nvcc and herd7's hosts: long is 64 bits.
    const bool u = sign == 2;
    t.type = shorts  ? (u ? DataType::U16 : DataType::S16)
             : longs ? (u ? DataType::U64 : DataType::S64)
                     : (u ? DataType::U32 : DataType::S32);
  } else {
    return fail(0, "expected a type");
  }
  r.type = t;
  return r;
}

std::optional<MemOrder> memory_order_named(std::string_view name) {
  static constexpr std::pair<std::string_view, MemOrder> kOrders[] = {
      {"memory_order_relaxed", MemOrder::Relaxed}, {"memory_order_consume", MemOrder::Consume},
      {"memory_order_acquire", MemOrder::Acquire}, {"memory_order_release", MemOrder::Release},
      {"memory_order_acq_rel", MemOrder::AcqRel},  {"memory_order_seq_cst", MemOrder::SeqCst}};
  for (const auto& [n, o] : kOrders)
    if (n == name) return o;
  return std::nullopt;
}

std::optional<ThreadScope> thread_scope_named(std::string_view name) {
  static constexpr std::pair<std::string_view, ThreadScope> kScopes[] = {
      {"thread_scope_thread", ThreadScope::Thread},
      {"thread_scope_block", ThreadScope::Block},
      {"thread_scope_cluster", ThreadScope::Cluster},
      {"thread_scope_device", ThreadScope::Device},
      {"thread_scope_system", ThreadScope::System}};
  for (const auto& [n, s] : kScopes)
    if (n == name) return s;
  return std::nullopt;
}

}  // namespace redscope::csrc::detail
