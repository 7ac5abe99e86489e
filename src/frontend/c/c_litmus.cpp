// herd7's C litmus tests (c_source.hpp read_c_litmus; docs/litmus-format.md
// "C tests (herd7's C format)"): the header and metadata, the init block in
// herd7's forms, the threads `P0 (int *x, atomic_int *y) { ... }` (each body
// lowered by lower_body, herd7's C11 library), and the final part, read by the
// shared condition grammar (frontend/container.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "frontend/c/c_syntax.hpp"
#include "redscope/frontend/c/c_source.hpp"
#include "redscope/frontend/container.hpp"
#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope::csrc {

namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_'; }
bool ident_char(char c) { return is_alnum(c) || c == '_'; }

// A location of the init block as written.
struct InitDecl {
  std::string name;
  SourceLoc loc;
  std::optional<detail::CType> type;
  SourceLoc type_at;
  std::optional<Literal> value;
};

// A parameter of a thread: a pointer naming a location.
struct Param {
  std::string name;
  SourceLoc at;
  detail::CType type;
  SourceLoc type_at;
};

struct CThread {
  std::string name;
  SourceLoc loc;
  std::vector<Param> params;
  SourceLoc body_at;
  std::string body;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : text_(text), c_(text, file) {}

  LitmusTest read() {
    header();
    preamble();
    init_block();
    while (skip_blank(), thread_ahead()) thread();
    if (threads_.empty()) c_.fail("expected a thread such as 'P0 (int *x) { ... }'");
    locations();
    for (std::size_t i = 0; i < threads_.size(); ++i) lower(i);
    tail();
    redscope::detail::check_references(t_);
    return std::move(t_);
  }

 private:
  // Blank space and comments: herd's `(* *)` and C's `//`, `/* */`.
  void skip_blank() {
    for (;;) {
      c_.take_while(is_space);
      if (c_.at("//")) {
        c_.skip_line_comment();
      } else if (c_.at("/*")) {
        c_.skip_block_comment("/*", "*/", false, "unterminated comment");
      } else if (c_.at("(*")) {
        c_.skip_block_comment("(*", "*)", true, "unterminated comment");
      } else {
        return;
      }
    }
  }

  std::string_view word() { return c_.take_while(ident_char); }

  void expect(char ch, std::string_view what) {
    skip_blank();
    if (c_.peek() != ch) c_.fail(fmt::format("expected '{}' {}, found {}", ch, what, found()));
    c_.advance();
  }

  std::string found() const {
    if (c_.done()) return "the end of the file";
    return fmt::format("'{}'", printable(std::string(1, c_.peek())));
  }

  // `C NAME` on the first line.
  void header() {
    skip_blank();
    const SourceLoc at = c_.loc();
    if (word() != "C" || (c_.peek() != ' ' && c_.peek() != '\t'))
      c_.fail(at, "a C test starts with 'C NAME'");
    c_.take_while([](char ch) { return ch == ' ' || ch == '\t'; });
    std::string name(c_.take_while([](char ch) { return ch != '\n'; }));
    while (!name.empty() && is_space(name.back())) name.pop_back();
    if (name.empty()) c_.fail("expected the test's name after 'C'");
    t_.file = c_.file();
    t_.arch = "C";
    t_.name = name;
  }

  // Quoted descriptions and `key=value` lines (Variant=S128 ...), up to `{`.
  void preamble() {
    for (;;) {
      skip_blank();
      if (c_.peek() == '"') {
        c_.quoted(true);
        continue;
      }
      if (!ident_start(c_.peek())) return;
      const SourceLoc at = c_.loc();
      const std::string key(word());
      c_.take_while([](char ch) { return ch == ' ' || ch == '\t'; });
      if (c_.peek() != '=')
        c_.fail(at, fmt::format("expected 'key=value' or '{{', found '{}'", printable(key)));
      c_.advance();
      std::string value(c_.take_while([](char ch) { return ch != '\n'; }));
      while (!value.empty() && is_space(value.back())) value.pop_back();
      while (!value.empty() && is_space(value.front())) value.erase(value.begin());
      t_.metadata[key] = value;
    }
  }

  // herd7's forms: `x = 1;`, `[x] = 0;`, `int x = 0;`, `__int128 y;`,
  // `_Atomic __int128 z = 0;`, `atomic_t x = ATOMIC_INIT(0);`, the last `;`
  // optional.
  void init_block() {
    expect('{', "to open the init block");
    for (;;) {
      skip_blank();
      if (c_.peek() == '}') {
        c_.advance();
        return;
      }
      if (c_.peek() == ';') {
        c_.advance();
        continue;
      }
      if (c_.done()) c_.fail("unterminated init block: expected '}'");
      init_entry();
      skip_blank();
      if (c_.peek() != ';' && c_.peek() != '}')
        c_.fail(fmt::format("expected ';' or '}}' after the declaration, found {}", found()));
    }
  }

  void init_entry() {
    InitDecl d;
    d.loc = c_.loc();
    if (is_digit(c_.peek()))
      c_.fail("registers are not initialised in a C test: declare the local in its thread");
    std::vector<std::string> words;
    std::vector<SourceLoc> at;
    bool bracket = false;
    for (;;) {
      skip_blank();
      if (c_.peek() == '[' && words.empty()) {
        c_.advance();
        bracket = true;
        skip_blank();
        continue;
      }
      if (c_.peek() == '*') c_.fail("pointer locations are not read: a location holds an integer");
      if (!ident_start(c_.peek())) break;
      at.push_back(c_.loc());
      words.emplace_back(word());
      if (c_.peek() == ':' && c_.peek(1) != ':')
        c_.fail(at.back(),
                "registers are not initialised in a C test: declare the local in its thread");
    }
    if (words.empty()) c_.fail(fmt::format("expected a location, found {}", found()));
    d.name = words.back();
    const SourceLoc name_at = at.back();
    words.pop_back();
    at.pop_back();
    if (bracket) {
      if (!words.empty()) c_.fail(at.front(), "'[x]' takes no type");
      expect(']', "after the location");
    }
    if (!words.empty()) {
      const detail::TypeResult tr = detail::c_type(words);
      if (!tr.type) c_.fail(at[std::min(tr.bad, at.size() - 1)], tr.why);
      if (tr.type->boolean) c_.fail(at.front(), "a bool location is not read");
      d.type = tr.type;
      d.type_at = at.front();
    }
    if (std::any_of(decls_.begin(), decls_.end(),
                    [&](const InitDecl& o) { return o.name == d.name; }))
      c_.fail(name_at, fmt::format("'{}' is initialised twice", d.name));
    skip_blank();
    if (c_.peek() == '=') {
      c_.advance();
      skip_blank();
      d.value = value();
    }
    d.loc = name_at;
    decls_.push_back(std::move(d));
  }

  // An integer, or ATOMIC_INIT(integer) (herd7's Linux spelling).
  Literal value() {
    const SourceLoc at = c_.loc();
    if (ident_start(c_.peek())) {
      const std::string w(word());
      if (w != "ATOMIC_INIT")
        c_.fail(at, fmt::format("'{}' is not read as an initial value: write an integer",
                                printable(w)));
      expect('(', "after ATOMIC_INIT");
      skip_blank();
      Literal lit = integer();
      expect(')', "after the value of ATOMIC_INIT");
      return lit;
    }
    return integer();
  }

  Literal integer() {
    Literal lit;
    lit.loc = c_.loc();
    const std::size_t from = c_.offset();
    if (c_.peek() == '-') c_.advance();
    c_.take_while(is_alnum);
    lit.text = std::string(c_.since(from));
    const bool neg = lit.text.starts_with("-");
    const std::string digits = neg ? lit.text.substr(1) : lit.text;
    if (digits.empty() || !is_digit(digits[0]))
      c_.fail(lit.loc, fmt::format("expected an integer, found {}", found()));
    redscope::detail::integer_at(digits, neg, c_.file(), lit.loc);  // 64 bits at most
    return lit;
  }

  bool thread_ahead() {
    if (c_.peek() == 'P' && is_digit(c_.peek(1))) return true;
    return c_.at("void") && !ident_char(c_.peek(4));
  }

  // `[void] P0 (const int* x, volatile int *y, atomic_int* z) { body }`.
  void thread() {
    if (c_.at("void")) {
      word();
      skip_blank();
    }
    CThread th;
    th.loc = c_.loc();
    th.name = std::string(word());
    const std::size_t idx = threads_.size();
    if (th.name != fmt::format("P{}", idx))
      c_.fail(th.loc,
              fmt::format("expected thread 'P{}' here, found '{}'", idx, printable(th.name)));
    expect('(', fmt::format("after {}: its parameters", th.name));
    for (;;) {
      skip_blank();
      if (c_.peek() == ')') {
        c_.advance();
        break;
      }
      th.params.push_back(parameter(th));
      skip_blank();
      if (c_.peek() == ',') {
        c_.advance();
      } else if (c_.peek() != ')') {
        c_.fail(
            fmt::format("expected ',' or ')' in the parameters of {}, found {}", th.name, found()));
      }
    }
    expect('{', fmt::format("to open the body of {}", th.name));
    th.body_at = c_.loc();
    const std::size_t from = c_.offset();
    body_end(th.loc);
    th.body = std::string(c_.since(from));
    c_.advance();  // the closing brace
    threads_.push_back(std::move(th));
  }

  // `T *name`: the location `name`, of type T.
  Param parameter(const CThread& th) {
    std::vector<std::string> words;
    std::vector<SourceLoc> at;
    int stars = 0;
    SourceLoc star_at{};
    for (;;) {
      skip_blank();
      if (c_.peek() == '*') {
        if (!stars) star_at = c_.loc();
        ++stars;
        c_.advance();
        continue;
      }
      if (!ident_start(c_.peek())) break;
      at.push_back(c_.loc());
      words.emplace_back(word());
    }
    if (words.empty())
      c_.fail(
          fmt::format("expected a parameter such as 'int *x' in {}, found {}", th.name, found()));
    Param p;
    p.name = words.back();
    p.at = at.back();
    words.pop_back();
    at.pop_back();
    if (words.empty()) c_.fail(p.at, fmt::format("parameter '{}' has no type", p.name));
    // Qualifiers may stand before or after the type (herd7: `volatile int`, `int volatile`).
    const detail::TypeResult tr = detail::c_type(words);
    if (!tr.type) c_.fail(at[std::min(tr.bad, at.size() - 1)], tr.why);
    if (stars != 1)
      c_.fail(stars ? star_at : p.at,
              fmt::format("parameter '{}' must be a pointer to its location ('T *{}')", p.name,
                          p.name));
    if (tr.type->boolean) c_.fail(at.front(), "a bool location is not read");
    for (const Param& q : th.params)
      if (q.name == p.name) c_.fail(p.at, fmt::format("parameter '{}' is named twice", p.name));
    p.type = *tr.type;
    p.type_at = at.front();
    return p;
  }

  // The cursor at the brace that closes the body (C comments skipped).
  void body_end(SourceLoc start) {
    int depth = 0;
    for (;;) {
      if (c_.done()) c_.fail(start, "this thread's body has no closing '}'");
      if (c_.at("//")) {
        c_.skip_line_comment();
        continue;
      }
      if (c_.at("/*")) {
        c_.skip_block_comment("/*", "*/", false, "unterminated comment");
        continue;
      }
      const char ch = c_.peek();
      if (ch == '}' && depth == 0) return;
      if (ch == '{') ++depth;
      if (ch == '}') --depth;
      c_.advance();
    }
  }

  // Each location's type: its declaration's, else its first parameter's
  // (threads in order), else int; every parameter naming it must agree. A
  // location only parameters name gets an init entry of its type, value 0.
  void locations() {
    for (const CThread& th : threads_)
      for (const Param& p : th.params) {
        auto it = std::find_if(decls_.begin(), decls_.end(),
                               [&](const InitDecl& d) { return d.name == p.name; });
        if (it == decls_.end()) {
          InitDecl d;
          d.name = p.name;
          d.loc = p.at;
          decls_.push_back(d);
          it = std::prev(decls_.end());
        }
        if (!it->type) {
          it->type = p.type;
          it->type_at = p.type_at;
          continue;
        }
        if (it->type->type != p.type.type)
          c_.fail(p.type_at,
                  fmt::format("'{}' is {} here but {} at line {}", p.name, to_string(p.type.type),
                              to_string(it->type->type), it->type_at.line));
      }
    for (const InitDecl& d : decls_) {
      InitEntry e;
      e.name = d.name;
      e.loc = d.loc;
      const detail::CType ty = d.type.value_or(detail::CType{});
      e.type = ty.type;
      Literal v = d.value.value_or(Literal{"0", d.loc});
      if (!literal_bits(v.text, ty.type))
        c_.fail(v.loc, ty.wide ? fmt::format("'{}' does not fit in 64 bits: redscope holds "
                                             "128-bit values in 64-bit cells",
                                             v.text)
                               : fmt::format("'{}' is not a value of the location's type ({})",
                                             v.text, to_string(ty.type)));
      e.values.push_back(std::move(v));
      t_.init.push_back(std::move(e));
    }
  }

  // herd7's C has no scopes and its atomics are system-scoped, so where a
  // thread runs does not matter: P_i in CTA i of GPU 0, a cluster of its own
  // (the PTX reader's default).
  void lower(std::size_t i) {
    const CThread& th = threads_[i];
    ThreadCode tc;
    tc.name = th.name;
    tc.loc = th.loc;
    const int n = static_cast<int>(i);
    tc.place = Placement{n, -1 - n, 0};
    BodyContext ctx;
    ctx.library = Library::StdAtomic;
    ctx.test = &t_;
    for (const Param& p : th.params) {
      const auto it = std::find_if(t_.init.begin(), t_.init.end(),
                                   [&](const InitEntry& e) { return e.name == p.name; });
      ctx.memory.push_back(MemoryName{p.name, p.name, *it->type, true, p.type.is_volatile});
    }
    t_.threads.push_back(std::move(tc));
    lower_body(th.body, th.body_at, c_.file(), ctx, t_.threads.back());
  }

  // `[locations [...]] [filter ...] quantifier condition`, the shared
  // grammar, read from the file with everything before it blanked; herd7's
  // `regions: ...` line (memory regions of its bell models) is accepted and
  // ignored, and a test without a condition is herd7's `forall (true)`.
  void tail() {
    skip_blank();
    std::string rest(text_);
    for (std::size_t k = 0; k < c_.offset(); ++k)
      if (rest[k] != '\n') rest[k] = ' ';
    blank_regions(rest);
    if (!has_quantifier(rest)) rest += "\nforall (true)\n";
    t_ = redscope::detail::parse_condition_tail(rest, c_.file(), std::move(t_),
                                                {.arch = "C", .default_target_sm = 90});
  }

  void blank_regions(std::string& rest) const {
    TextCursor c(rest, c_.file());
    for (;;) {
      c.take_while(is_space);
      if (c.at("(*")) {
        c.skip_block_comment("(*", "*)", true, "unterminated comment");
        continue;
      }
      if (c.at("//")) {
        c.skip_line_comment();
        continue;
      }
      if (!c.at("regions")) return;
      const std::size_t from = c.offset();
      c.take_while([](char ch) { return ch != '\n'; });
      for (std::size_t k = from; k < c.offset(); ++k) rest[k] = ' ';
    }
  }

  // Whether the final part names a quantifier (outside comments).
  static bool has_quantifier(std::string_view rest) {
    std::size_t i = 0;
    while (i < rest.size()) {
      if (rest.substr(i, 2) == "(*") {
        const std::size_t e = rest.find("*)", i + 2);
        i = e == std::string_view::npos ? rest.size() : e + 2;
        continue;
      }
      if (rest.substr(i, 2) == "//") {
        const std::size_t e = rest.find('\n', i);
        i = e == std::string_view::npos ? rest.size() : e;
        continue;
      }
      if (ident_start(rest[i])) {
        std::size_t j = i;
        while (j < rest.size() && ident_char(rest[j])) ++j;
        const std::string_view w = rest.substr(i, j - i);
        if (w == "exists" || w == "forall") return true;
        i = j;
        continue;
      }
      ++i;
    }
    return false;
  }

  std::string_view text_;
  TextCursor c_;
  LitmusTest t_;
  std::vector<InitDecl> decls_;
  std::vector<CThread> threads_;
};

}  // namespace

LitmusTest read_c_litmus(std::string_view text, const std::string& file) {
  return Reader(text, file).read();
}

}  // namespace redscope::csrc
