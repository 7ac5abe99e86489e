// NVIDIA .test files (see nv_test.hpp). The text is cut into tokens that keep
// their file positions; a template's holes are replaced by the tokens of the
// row's cells (lexed where the cells stand), so every error is located in
// the file, in the template or in the row.
#include "redscope/frontend/nvtest/nv_test.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope::detail {
namespace {

enum class T : std::uint8_t {
  Ident,
  Number,
  Dot,
  Comma,
  Semi,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  EqEq,
  NotEq,
  AndAnd,
  OrOr,
  Hole,  // $N in a template
  End,
};

struct Tok {
  T kind = T::End;
  std::string text;
  SourceLoc loc;
  std::size_t hole = 0;  // Hole: N
};

// Limits on hostile input (docs/litmus-format.md, docs/cli.md "Input
// limits"): each part of a thread id dD.bB.tT, and the tokens a template
// expands to over all its rows (each row's test is the template with its
// holes filled: rows x template tokens, which a small file can make huge).
constexpr std::int64_t kMaxThreadPart = 99999;
constexpr std::size_t kMaxExpandedTokens = 1000000;
// Tokens of one piece of text (the test, or a cell): about 60 bytes each.
constexpr std::size_t kMaxTokens = 2000000;
// Names (addresses, registers, qualifiers, claims): a template copies each
// token per row, so the expansion cap counts tokens of bounded size.
constexpr std::size_t kMaxNameBytes = 256;

[[noreturn]] void fail(const std::string& file, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{file, at, std::move(msg)});
}

// Tokens of `text`, which starts at `start` in the file. `//` comments run to
// the end of the line.
std::vector<Tok> lex(std::string_view text, SourceLoc start, const std::string& file) {
  static constexpr std::pair<std::string_view, T> kPunct[] = {
      {"==", T::EqEq},    {"!=", T::NotEq}, {"&&", T::AndAnd}, {"||", T::OrOr},  {".", T::Dot},
      {",", T::Comma},    {";", T::Semi},   {"{", T::LBrace},  {"}", T::RBrace}, {"[", T::LBracket},
      {"]", T::RBracket}, {"(", T::LParen}, {")", T::RParen}};
  std::vector<Tok> out;
  TextCursor c(text, file, start);
  while (!c.done()) {
    const char ch = c.peek();
    const SourceLoc at = c.loc();
    if (is_space(ch)) {
      c.advance();
      continue;
    }
    if (c.at("//")) {
      c.skip_line_comment();
      continue;
    }
    Tok t;
    t.loc = at;
    if (is_alpha(ch) || ch == '_') {
      t.kind = T::Ident;
      t.text = c.take_while([](char k) { return is_alnum(k) || k == '_'; });
      if (t.text.size() > kMaxNameBytes)
        fail(file, at,
             fmt::format("a name of {} bytes: names are at most {}", t.text.size(), kMaxNameBytes));
    } else if (is_digit(ch) || (ch == '-' && is_digit(c.peek(1)))) {
      const std::size_t from = c.offset();
      c.advance();
      c.take_while(is_digit);
      t.kind = T::Number;
      t.text = c.since(from);
      // Past 21 characters no number fits in 64 bits: refused here, where
      // it is read once, not copied into every row of a template first.
      if (t.text.size() > 21)
        integer_at(std::string_view(t.text).substr(ch == '-' ? 1 : 0), ch == '-', file, at);
    } else if (ch == '$') {
      const std::size_t from = c.offset();
      c.advance();
      c.take_while(is_digit);
      if (c.offset() == from + 1) fail(file, at, "'$' must be followed by a hole number, as in $0");
      t.kind = T::Hole;
      t.text = c.since(from);
      t.hole = static_cast<std::size_t>(integer_at(t.text.substr(1), false, file, at));
    } else if (const auto p = c.punctuation(kPunct)) {
      t.kind = p->second;
      t.text = p->first;
    } else {
      fail(file, at, fmt::format("unexpected character '{}'", ch));
    }
    if (out.size() >= kMaxTokens)
      fail(file, t.loc, fmt::format("more than {} tokens in the file", kMaxTokens));
    out.push_back(std::move(t));
  }
  out.push_back(Tok{T::End, "", c.loc(), 0});
  return out;
}

// A template table row: its cells, each with where its text starts.
struct Cell {
  std::string text;
  SourceLoc loc;
};
struct Row {
  int line = 0;
  std::vector<Cell> cells;
};

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Splits the file at its `$$` line: the test above, the rows below.
struct Split {
  std::string_view body;
  std::optional<int> table_line;
  std::vector<Row> rows;
};

Split split_template(std::string_view text) {
  Split s;
  s.body = text;
  std::size_t pos = 0;
  int line = 1;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view ln =
        text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    if (!s.table_line && trim(ln) == "$$") {
      s.body = text.substr(0, pos);
      s.table_line = line;
    } else if (s.table_line && !trim(ln).empty() && trim(ln).rfind("//", 0) != 0) {
      Row r;
      r.line = line;
      std::size_t c = 0;
      for (;;) {
        const std::size_t bar = ln.find('|', c);
        const std::string_view cell = ln.substr(c, bar == ln.npos ? ln.npos : bar - c);
        std::size_t lead = 0;
        while (lead < cell.size() && std::isspace(static_cast<unsigned char>(cell[lead]))) ++lead;
        r.cells.push_back(Cell{trim(cell), SourceLoc{line, static_cast<int>(c + lead + 1)}});
        if (bar == ln.npos) break;
        c = bar + 1;
      }
      s.rows.push_back(std::move(r));
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  return s;
}

// One test instance's tokens parsed into LitmusTests (one per claim).
class Parser {
 public:
  Parser(std::vector<Tok> toks, const std::string& file, std::string name)
      : toks_(std::move(toks)),
        file_(file),
        name_(std::move(name)) {}

  std::vector<LitmusTest> parse() {
    t_.file = file_;
    t_.arch = "PTX";
    t_.name = name_;
    while (at(T::Dot)) address();
    while (at(T::Ident) && thread_id(cur()).has_value()) thread();
    if (t_.threads.empty())
      fail_here(fmt::format("expected a thread such as d0.b0.t0 {{ ... }}, found {}", what()));
    std::vector<LitmusTest> out;
    while (at(T::Ident) &&
           (cur().text == "permit" || cur().text == "assert" || cur().text == "check"))
      out.push_back(claim());
    if (!at(T::End))
      fail_here(fmt::format("expected a claim (permit, assert or check), found {}", what()));
    if (out.empty())
      fail_here("a .test file makes at least one claim: permit(...), assert(...) or check(...)");
    if (out.size() > 1)
      for (LitmusTest& t : out) t.name += ":" + t.metadata.at("claim");
    return out;
  }

 private:
  // ---- tokens ---------------------------------------------------------------
  const Tok& cur() const { return toks_[pos_]; }
  bool at(T k) const { return cur().kind == k; }
  bool at_word(std::string_view w) const { return at(T::Ident) && cur().text == w; }
  const Tok& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  std::string what() const {
    return at(T::End) ? "the end of the test" : fmt::format("'{}'", cur().text);
  }
  [[noreturn]] void fail_here(std::string msg) const { fail(file_, cur().loc, std::move(msg)); }
  // A Number token's value (`-` and decimal digits): the shared checked
  // reader, so a value past 64 bits is a located error.
  std::int64_t number(const Tok& n) const {
    const bool neg = !n.text.empty() && n.text[0] == '-';
    return integer_at(std::string_view(n.text).substr(neg ? 1 : 0), neg, file_, n.loc);
  }
  const Tok& expect(T k, std::string_view desc) {
    if (!at(k)) fail_here(fmt::format("expected {}, found {}", desc, what()));
    return next();
  }
  void expect_word(std::string_view w) {
    if (!at_word(w)) fail_here(fmt::format("expected '{}', found {}", w, what()));
    next();
  }

  // ---- declarations -----------------------------------------------------------
  // `.global x;`, `.shared x;`, `.global y physically aliases x;`,
  // `.texref t virtually aliases x;`, `.surfref s virtually aliases x;`.
  void address() {
    next();  // .
    const Tok& kind = expect(T::Ident, "global, shared, texref or surfref");
    const Tok& name = expect(T::Ident, "a name");
    if (declared_.count(name.text))
      fail(file_, name.loc, fmt::format("'{}' is declared twice", name.text));
    declared_.insert(name.text);
    if (kind.text == "texref" || kind.text == "surfref") {
      expect_word("virtually");
      expect_word("aliases");
      const Tok& target = aliased(name);
      t_.aliases.push_back(AliasDecl{name.text, target.text,
                                     kind.text == "texref" ? Proxy::Texture : Proxy::Surface,
                                     name.loc});
    } else if (kind.text == "global" || kind.text == "shared") {
      if (at_word("physically")) {
        next();
        expect_word("aliases");
        const Tok& target = aliased(name);
        t_.aliases.push_back(AliasDecl{name.text, target.text, Proxy::Generic, name.loc});
      } else {
        InitEntry e;
        e.name = name.text;
        e.space = kind.text == "global" ? Space::Global : Space::SharedCta;
        e.values.push_back(Literal{"0", name.loc});
        e.loc = name.loc;
        t_.init.push_back(std::move(e));
      }
    } else {
      fail(file_, kind.loc,
           fmt::format("unknown declaration '.{}' (global, shared, texref or surfref)", kind.text));
    }
    expect(T::Semi, "';'");
  }

  const Tok& aliased(const Tok& name) {
    const Tok& target = expect(T::Ident, "the aliased address");
    if (!declared_.count(target.text) || target.text == name.text)
      fail(file_, target.loc,
           fmt::format("'{}' aliases '{}', which is not declared before it", name.text,
                       target.text));
    return target;
  }

  // ---- threads ---------------------------------------------------------------
  // "d0" -> 0 for the parts of a thread id dD.bB.tT.
  // Each part is at most kMaxThreadPart (docs/litmus-format.md).
  std::optional<int> part(const Tok& t, char c) const {
    if (t.kind != T::Ident || t.text.size() < 2 || t.text[0] != c) return std::nullopt;
    for (std::size_t i = 1; i < t.text.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(t.text[i]))) return std::nullopt;
    const std::int64_t v = integer_at(std::string_view(t.text).substr(1), false, file_, t.loc);
    if (v < 0 || v > kMaxThreadPart)
      fail(file_, t.loc,
           fmt::format("'{}' in a thread id: {}N takes N from 0 to {}", t.text, c, kMaxThreadPart));
    return static_cast<int>(v);
  }
  std::optional<int> thread_id(const Tok& t) const { return part(t, 'd'); }

  void thread() {
    const SourceLoc loc = cur().loc;
    const int d = *part(next(), 'd');
    expect(T::Dot, "'.' in a thread id dD.bB.tT");
    const std::optional<int> b = part(cur(), 'b');
    if (!b)
      fail_here(fmt::format("expected the block bN of a thread id dD.bB.tT, found {}", what()));
    next();
    expect(T::Dot, "'.' in a thread id dD.bB.tT");
    const std::optional<int> th = part(cur(), 't');
    if (!th)
      fail_here(fmt::format("expected the thread tN of a thread id dD.bB.tT, found {}", what()));
    next();
    ThreadCode tc;
    tc.name = fmt::format("d{}.b{}.t{}", d, *b, *th);
    tc.loc = loc;
    if (!thread_names_.insert(tc.name).second)
      fail(file_, loc, fmt::format("thread {} is declared twice", tc.name));
    // Device = GPU, block = CTA (a cluster of its own).
    tc.place = Placement{*b, *b, d};
    expect(T::LBrace, "'{' after the thread id");
    const auto tid = static_cast<ThreadId>(t_.threads.size());
    while (!at(T::RBrace)) {
      if (at(T::End)) fail_here(fmt::format("unterminated thread {}: expected '}}'", tc.name));
      instruction(tc, tid);
    }
    next();
    if (tc.code.empty()) fail(file_, loc, fmt::format("thread {} has no instruction", tc.name));
    t_.threads.push_back(std::move(tc));
  }

  struct Quals {
    std::optional<Sem> sem;
    bool is_volatile = false;
    std::optional<Scope> scope;
    SourceLoc sem_at, scope_at;
    std::vector<Tok> rest;  // qualifiers that are neither
  };

  Quals qualifiers(std::string& text) {
    Quals q;
    while (at(T::Dot)) {
      next();
      const Tok& w = expect(T::Ident, "a qualifier");
      text += "." + w.text;
      if (auto s = parse_sem(w.text); s && !q.sem && !q.is_volatile) {
        q.sem = s;
        q.sem_at = w.loc;
      } else if (w.text == "volatile" && !q.sem && !q.is_volatile) {
        q.is_volatile = true;
        q.sem_at = w.loc;
      } else if (auto sc = parse_scope(w.text); sc && *sc != Scope::Cluster && !q.scope) {
        q.scope = sc;
        q.scope_at = w.loc;
      } else {
        q.rest.push_back(w);
      }
    }
    return q;
  }

  // A memory order as ld/st take it (the transformer of NVIDIA's tool
  // rejects a scope on .weak and .volatile): weak without a scope, volatile
  // = relaxed.sys, a strong order with one.
  void memory_order(Instruction& in, const Quals& q, const Tok& mn) {
    if (q.is_volatile || !q.sem || *q.sem == Sem::Weak) {
      if (q.scope)
        fail(file_, q.scope_at,
             fmt::format("'{}': a {} access takes no scope", mn.text,
                         q.is_volatile ? ".volatile" : "weak"));
      in.sem = q.is_volatile ? Sem::Relaxed : Sem::Weak;
      in.scope = Scope::Sys;
      return;
    }
    if (!q.scope)
      fail(file_, mn.loc,
           fmt::format("'{}': .{} needs a scope (.cta, .gpu or .sys)", mn.text, to_string(*q.sem)));
    in.sem = *q.sem;
    in.scope = *q.scope;
  }

  void no_rest(const Quals& q, const Tok& mn) {
    if (!q.rest.empty())
      fail(file_, q.rest.front().loc,
           fmt::format("unknown qualifier '.{}' in '{}'", q.rest.front().text, mn.text));
  }

  void instruction(ThreadCode& tc, ThreadId tid) {
    const Tok& mn = expect(T::Ident, "an instruction");
    Instruction in;
    in.loc = mn.loc;
    in.type = DataType::S32;
    in.text = mn.text;
    const std::string& m = mn.text;
    if (m == "fence") {
      fence(in, mn);
    } else if (m == "ld" || m == "tld" || m == "suld" || m == "ldc") {
      load(in, mn, tid);
    } else if (m == "st" || m == "sust") {
      store(in, mn, tid);
    } else if (m == "atom" || m == "red") {
      rmw(in, mn, tid);
    } else if (m == "suatom" || m == "sured") {
      fail(file_, mn.loc,
           fmt::format("'{}' (a surface read-modify-write) is not supported yet", m));
    } else {
      fail(file_, mn.loc, fmt::format("unknown instruction '{}'", m));
    }
    expect(T::Semi, "';' after the instruction");
    tc.code.push_back(std::move(in));
  }

  void fence(Instruction& in, const Tok& mn) {
    if (at(T::Dot) && toks_[pos_ + 1].kind == T::Ident &&
        (toks_[pos_ + 1].text == "proxy" || toks_[pos_ + 1].text == "alias")) {
      next();
      const Tok& w = next();
      in.kind = InstrKind::ProxyFence;
      in.text += "." + w.text;
      if (w.text == "alias") return;  // fence.alias = fence.proxy.alias
      expect(T::Dot, "'.' and a proxy after fence.proxy");
      const Tok& k = expect(T::Ident, "alias, surface, texture or constant");
      in.text += "." + k.text;
      static constexpr std::pair<std::string_view, ProxyFence> kinds[] = {
          {"alias", ProxyFence::Alias},
          {"surface", ProxyFence::Surface},
          {"texture", ProxyFence::Texture},
          {"constant", ProxyFence::Constant}};
      for (const auto& [n, f] : kinds)
        if (k.text == n) {
          in.fenced = f;
          if (at(T::Dot)) fail_here("a proxy fence names one proxy");
          return;
        }
      fail(file_, k.loc,
           fmt::format("unknown proxy '{}' (alias, surface, texture or constant)", k.text));
    }
    in.kind = InstrKind::Fence;
    const Quals q = qualifiers(in.text);
    no_rest(q, mn);
    in.sem = q.is_volatile ? Sem::Weak : q.sem.value_or(Sem::AcqRel);
    if (q.is_volatile || (in.sem != Sem::Sc && in.sem != Sem::AcqRel))
      fail(file_, q.sem_at, "fence takes .sc or .acq_rel");
    if (!q.scope) fail(file_, mn.loc, "fence needs a scope (.cta, .gpu or .sys)");
    in.scope = *q.scope;
  }

  Operand address_operand() {
    expect(T::LBracket, "'[' before an address");
    const Tok& a = expect(T::Ident, "an address");
    if (!declared_.count(a.text))
      fail(file_, a.loc, fmt::format("'{}' is not declared (.global {};)", a.text, a.text));
    expect(T::RBracket, "']' after the address");
    return Operand{Operand::Kind::Loc, a.text, 0, 0, a.loc, {}};
  }

  static bool is_reg(const Tok& t) {
    if (t.kind != T::Ident || t.text.size() < 2 || t.text[0] != 'r') return false;
    return std::all_of(t.text.begin() + 1, t.text.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  }

  // A destination register: NVIDIA's registers are global names, so each
  // belongs to the one thread that writes it.
  Operand dst_register(ThreadId tid) {
    if (!is_reg(cur())) fail_here(fmt::format("expected a register rN, found {}", what()));
    const Tok& r = next();
    auto [it, fresh] = owner_.emplace(r.text, tid);
    if (!fresh && it->second != tid)
      fail(file_, r.loc,
           fmt::format("register {} is already written by {}: registers name one thread's "
                       "values",
                       r.text, t_.threads[it->second].name));
    return Operand{Operand::Kind::Reg, r.text, 0, 0, r.loc, {}};
  }

  Operand value(ThreadId tid) {
    if (at(T::Number)) {
      const Tok& n = next();
      return Operand{Operand::Kind::Imm, n.text, number(n), 0, n.loc, {}};
    }
    if (is_reg(cur())) {
      const Tok& r = next();
      auto it = owner_.find(r.text);
      if (it == owner_.end() || it->second != tid)
        fail(file_, r.loc, fmt::format("register {} is read before this thread writes it", r.text));
      return Operand{Operand::Kind::Reg, r.text, 0, 0, r.loc, {}};
    }
    fail_here(fmt::format("expected a value (a number or a register), found {}", what()));
  }

  // `ld r0, [flag] == 1`: executions where r0 is not 1 are discarded (a
  // filter, as herd's `filter`), not an outcome to report.
  void return_value(const Operand& dst, ThreadId tid) {
    if (!at(T::EqEq)) return;
    next();
    const Tok& n = expect(T::Number, "the value a load must return");
    number(n);
    CondExpr c;
    c.kind = CondExpr::Kind::Cmp;
    c.cmp = CmpOp::Eq;
    c.lhs = CondTerm{CondTerm::Kind::Reg, tid, dst.name, {}, dst.loc};
    c.rhs = CondTerm{CondTerm::Kind::Const, 0, "", Literal{n.text, n.loc}, n.loc};
    // All return values together: one n-ary conjunction (no depth).
    if (!t_.filter) {
      t_.filter = c;
    } else if (t_.filter->kind == CondExpr::Kind::And) {
      t_.filter->kids.push_back(std::move(c));
    } else {
      CondExpr both;
      both.kind = CondExpr::Kind::And;
      both.kids = {std::move(*t_.filter), std::move(c)};
      t_.filter = std::move(both);
    }
  }

  void load(Instruction& in, const Tok& mn, ThreadId tid) {
    in.kind = InstrKind::Load;
    in.proxy = mn.text == "ld"     ? Proxy::Generic
               : mn.text == "tld"  ? Proxy::Texture
               : mn.text == "suld" ? Proxy::Surface
                                   : Proxy::Constant;
    const Quals q = qualifiers(in.text);
    no_rest(q, mn);
    memory_order(in, q, mn);
    if ((in.proxy == Proxy::Texture || in.proxy == Proxy::Constant) && in.sem != Sem::Weak)
      fail(file_, q.sem_at,
           fmt::format("'{}' reads through the read-only {} path: weak loads only", mn.text,
                       to_string(in.proxy)));
    if (in.sem == Sem::Release || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail(file_, q.sem_at, fmt::format("'{}' does not take .{}", mn.text, to_string(in.sem)));
    in.dst = dst_register(tid);
    expect(T::Comma, "',' after the destination");
    in.addr = address_operand();
    in.text += fmt::format(" {}, [{}]", in.dst->name, in.addr->name);
    return_value(*in.dst, tid);
  }

  void store(Instruction& in, const Tok& mn, ThreadId tid) {
    in.kind = InstrKind::Store;
    in.proxy = mn.text == "st" ? Proxy::Generic : Proxy::Surface;
    const Quals q = qualifiers(in.text);
    no_rest(q, mn);
    memory_order(in, q, mn);
    if (in.sem == Sem::Acquire || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail(file_, q.sem_at, fmt::format("'{}' does not take .{}", mn.text, to_string(in.sem)));
    in.addr = address_operand();
    expect(T::Comma, "',' after the address");
    in.srcs.push_back(value(tid));
    in.text += fmt::format(" [{}], {}", in.addr->name, in.srcs.back().name);
  }

  // atom.add{.sem}{.scope} r, [a], v and red.add{.sem}{.scope} [a], v: PTX's
  // defaults, .relaxed and .gpu.
  void rmw(Instruction& in, const Tok& mn, ThreadId tid) {
    const bool red = mn.text == "red";
    in.kind = red ? InstrKind::Red : InstrKind::Atom;
    Quals q = qualifiers(in.text);
    if (q.rest.empty() || q.rest.front().text != "add")
      fail(file_, q.rest.empty() ? mn.loc : q.rest.front().loc,
           fmt::format("'{}' takes the operation .add (the only one of this format)", mn.text));
    q.rest.erase(q.rest.begin());
    no_rest(q, mn);
    in.op = RmwOp::Add;
    if (q.is_volatile) fail(file_, q.sem_at, fmt::format("'{}' does not take .volatile", mn.text));
    in.sem = q.sem.value_or(Sem::Relaxed);
    in.scope = q.scope.value_or(Scope::Gpu);
    if (in.sem == Sem::Weak || in.sem == Sem::Sc || (red && in.sem == Sem::Acquire) ||
        (red && in.sem == Sem::AcqRel))
      fail(file_, q.sem_at, fmt::format("'{}' does not take .{}", mn.text, to_string(in.sem)));
    if (!red) {
      in.dst = dst_register(tid);
      expect(T::Comma, "',' after the destination");
    }
    in.addr = address_operand();
    expect(T::Comma, "',' after the address");
    in.srcs.push_back(value(tid));
    in.text += red ? fmt::format(" [{}], {}", in.addr->name, in.srcs.back().name)
                   : fmt::format(" {}, [{}], {}", in.dst->name, in.addr->name, in.srcs.back().name);
    if (!red) return_value(*in.dst, tid);
  }

  // ---- claims ----------------------------------------------------------------
  LitmusTest claim() {
    const Tok& kind = next();
    LitmusTest t = t_;
    t.quantifier = kind.text == "permit"   ? Quantifier::Permit
                   : kind.text == "assert" ? Quantifier::Assert
                                           : Quantifier::Check;
    t.condition_loc = kind.loc;
    expect(T::LParen, "'(' after the claim");
    const std::size_t from = pos_;
    t.condition = disjunction();
    for (std::size_t i = from; i < pos_; ++i)
      t.condition_text +=
          (i > from && toks_[i - 1].kind != T::LParen && toks_[i].kind != T::RParen ? " " : "") +
          toks_[i].text;
    expect(T::RParen, "')' after the condition");
    expect_word("as");
    const Tok& name = expect(T::Ident, "the claim's name");
    expect(T::Semi, "';' after the claim");
    t.metadata["claim"] = name.text;
    return t;
  }

  // As the litmus dialect's conditions: a chain of && or || is one n-ary
  // node, `not` and parentheses nest at most kMaxConditionDepth levels.
  CondExpr disjunction() { return chain(T::OrOr, CondExpr::Kind::Or); }
  CondExpr conjunction() { return chain(T::AndAnd, CondExpr::Kind::And); }

  CondExpr chain(T op, CondExpr::Kind kind) {
    CondExpr first = op == T::OrOr ? conjunction() : comparison();
    if (!at(op)) return first;
    CondExpr e;
    e.kind = kind;
    e.kids.push_back(std::move(first));
    while (at(op)) {
      next();
      e.kids.push_back(op == T::OrOr ? conjunction() : comparison());
    }
    return e;
  }

  // Enters one level of `not` or parentheses.
  void deeper() {
    if (++depth_ > kMaxConditionDepth)
      fail_here(fmt::format("condition nested deeper than {} levels of 'not' and parentheses",
                            kMaxConditionDepth));
  }

  CondExpr comparison() {
    if (at_word("not")) {
      deeper();
      next();
      CondExpr n;
      n.kind = CondExpr::Kind::Not;
      n.kids = {comparison()};
      --depth_;
      return n;
    }
    if (at(T::LParen)) {
      deeper();
      next();
      CondExpr e = disjunction();
      expect(T::RParen, "')'");
      --depth_;
      return e;
    }
    CondExpr c;
    c.kind = CondExpr::Kind::Cmp;
    c.lhs = term();
    if (!at(T::EqEq) && !at(T::NotEq))
      fail_here(fmt::format("expected '==' or '!=', found {}", what()));
    c.cmp = next().kind == T::EqEq ? CmpOp::Eq : CmpOp::Ne;
    c.rhs = term();
    return c;
  }
  CondTerm term() {
    if (at(T::Number)) {
      const Tok& n = next();
      number(n);
      return CondTerm{CondTerm::Kind::Const, 0, "", Literal{n.text, n.loc}, n.loc};
    }
    if (is_reg(cur())) {
      const Tok& r = next();
      auto it = owner_.find(r.text);
      if (it == owner_.end())
        fail(file_, r.loc,
             fmt::format("the claim names register {}, which no thread writes", r.text));
      return CondTerm{CondTerm::Kind::Reg, it->second, r.text, {}, r.loc};
    }
    fail_here(fmt::format("expected a register rN or a number, found {}", what()));
  }

  std::vector<Tok> toks_;
  std::size_t pos_ = 0;
  const std::string& file_;
  std::string name_;
  LitmusTest t_;
  std::set<std::string> declared_;
  std::set<std::string> thread_names_;     // dD.bB.tT declared so far
  std::map<std::string, ThreadId> owner_;  // register -> the thread writing it
  int depth_ = 0;                          // `not` and parentheses entered
};

// The template's tokens with every hole filled from `row`.
std::vector<Tok> fill(const std::vector<Tok>& tmpl, const Row& row, const std::string& file) {
  std::vector<Tok> out;
  for (const Tok& t : tmpl) {
    if (t.kind != T::Hole) {
      out.push_back(t);
      continue;
    }
    std::vector<Tok> cell = lex(row.cells[t.hole].text, row.cells[t.hole].loc, file);
    cell.pop_back();  // End
    out.insert(out.end(), cell.begin(), cell.end());
  }
  return out;
}

}  // namespace

namespace {

// A file's template, checked: holes against columns, every row's columns.
struct Template {
  Split split;
  std::vector<Tok> body;
  std::string stem;
};

// The tokens every row's test has once its holes are filled, summed over
// the rows, are at most kMaxExpandedTokens: InputError at the first row
// past it. Each cell is lexed once here (its errors located in the row).
void check_expansion(const Template& t, std::size_t columns, const std::string& file) {
  std::vector<std::size_t> uses(columns, 0);
  std::size_t fixed = 0;
  for (const Tok& k : t.body) {
    if (k.kind == T::Hole)
      ++uses[k.hole];
    else
      ++fixed;
  }
  std::size_t total = 0;
  for (const Row& r : t.split.rows) {
    std::size_t n = fixed;
    for (std::size_t c = 0; c < columns; ++c)
      if (uses[c]) n += uses[c] * (lex(r.cells[c].text, r.cells[c].loc, file).size() - 1);
    total += n;
    if (total > kMaxExpandedTokens)
      fail(file, SourceLoc{r.line, 1},
           fmt::format("the template's rows up to this one expand to {} tokens (rows x template "
                       "with the holes filled); at most {}",
                       total, kMaxExpandedTokens));
  }
}

Template load(std::string_view text, const std::string& file) {
  Template t{split_template(text), {}, std::filesystem::path(file).stem().string()};
  const Split& s = t.split;
  t.body = lex(s.body, SourceLoc{1, 1}, file);
  const auto first_hole =
      std::find_if(t.body.begin(), t.body.end(), [](const Tok& k) { return k.kind == T::Hole; });
  if (!s.table_line) {
    if (first_hole != t.body.end())
      fail(file, first_hole->loc,
           fmt::format("hole {} outside a template: a template ends with a '$$' line and its "
                       "table",
                       first_hole->text));
    return t;
  }
  if (s.rows.empty()) fail(file, SourceLoc{*s.table_line, 1}, "the '$$' table has no row");
  const std::size_t columns = s.rows.front().cells.size();
  for (const Tok& k : t.body)
    if (k.kind == T::Hole && k.hole >= columns)
      fail(file, k.loc,
           fmt::format("hole {} has no column: the table's rows have {} (holes $0 to ${})", k.text,
                       columns, columns - 1));
  for (const Row& r : s.rows)
    if (r.cells.size() != columns)
      fail(file, SourceLoc{r.line, 1},
           fmt::format("this row has {} columns, the first row {}: every row fills the same "
                       "holes",
                       r.cells.size(), columns));
  check_expansion(t, columns, file);
  return t;
}

// The tests of row i (from 0), or of the whole file when it is no template.
std::vector<LitmusTest> row_tests(const Template& t, std::size_t i, const std::string& file) {
  if (!t.split.table_line) return Parser(t.body, file, t.stem).parse();
  return Parser(fill(t.body, t.split.rows[i], file), file, fmt::format("{}#{}", t.stem, i + 1))
      .parse();
}

}  // namespace

std::vector<LitmusTest> parse_nv_test(std::string_view text, const std::string& file) {
  const Template t = load(text, file);
  const std::size_t rows = t.split.table_line ? t.split.rows.size() : 1;
  std::vector<LitmusTest> out;
  for (std::size_t i = 0; i < rows; ++i)
    for (LitmusTest& x : row_tests(t, i, file)) out.push_back(std::move(x));
  return out;
}

std::optional<LitmusTest> parse_nv_test_nth(std::string_view text, const std::string& file,
                                            std::size_t n) {
  const Template t = load(text, file);
  std::vector<LitmusTest> first = row_tests(t, 0, file);
  if (n == 0) return std::nullopt;
  // Every row makes the same claims unless a hole holds one: the row holding
  // test n follows from the first row's count; when that row disagrees, the
  // whole table decides.
  const std::size_t per_row = first.size(), row = (n - 1) / per_row;
  if (!t.split.table_line || row == 0) {
    if (n > per_row) return std::nullopt;
    return std::move(first[n - 1]);
  }
  if (row < t.split.rows.size()) {
    std::vector<LitmusTest> tests = row_tests(t, row, file);
    if (tests.size() == per_row) return std::move(tests[(n - 1) % per_row]);
  }
  std::vector<LitmusTest> all = parse_nv_test(text, file);
  if (n > all.size()) return std::nullopt;
  return std::move(all[n - 1]);
}

}  // namespace redscope::detail
