// The cat-subset parser: tokens, then recursive descent with herd7's
// precedences (lowest first: `|`, `;`, `\`, `&`, then the postfix and
// prefix operators). Every name is resolved to a slot and every expression
// typed while parsing, so an evaluator never meets an unknown name.
#include <fmt/format.h>

#include <cctype>
#include <map>

#include "redscope/model/cat.hpp"

namespace redscope::cat {
namespace {

enum class Tok : std::uint8_t {
  Name,
  String,
  LPar,
  RPar,
  LBrack,
  RBrack,
  Bar,
  Amp,
  Backslash,
  Semi,
  Inv,
  Plus,
  Star,
  Opt,
  Tilde,
  Equal,
  Zero,
  Underscore,
  End,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
};

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.loc = {line_, col_};
      if (i_ == s_.size()) {
        out.push_back(t);
        return out;
      }
      t.kind = lex_one(t.text);
      out.push_back(std::move(t));
    }
  }

 private:
  [[noreturn]] void fail(SourceLoc at, std::string m) const {
    throw InputError(Diagnostic{file_, at, std::move(m)});
  }
  void step() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  bool at(std::string_view w) const { return s_.substr(i_, w.size()) == w; }

  void skip_space() {
    for (;;) {
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) step();
      if (at("//")) {  // to the end of the line (Dat3M's cat files use them)
        while (i_ < s_.size() && s_[i_] != '\n') step();
        continue;
      }
      if (!at("(*")) return;
      skip_comment();
    }
  }

  // (* ... *), nested as in herd.
  void skip_comment() {
    const SourceLoc start{line_, col_};
    int depth = 0;
    do {
      if (i_ >= s_.size()) fail(start, "unterminated comment");
      if (at("(*")) {
        ++depth;
        step();
        step();
        continue;
      }
      if (at("*)")) {
        --depth;
        step();
        step();
        continue;
      }
      step();
    } while (depth > 0);
  }

  Tok lex_one(std::string& text) {
    const char c = s_[i_];
    if (name_start(c)) {
      while (i_ < s_.size() && name_char(s_[i_])) {
        text += s_[i_];
        step();
      }
      return text == "_" ? Tok::Underscore : Tok::Name;
    }
    if (c == '"') return lex_string(text);
    if (at("^-1")) {
      step();
      step();
      step();
      return Tok::Inv;
    }
    static constexpr std::pair<char, Tok> kOne[] = {
        {'(', Tok::LPar},  {')', Tok::RPar}, {'[', Tok::LBrack},     {']', Tok::RBrack},
        {'|', Tok::Bar},   {'&', Tok::Amp},  {'\\', Tok::Backslash}, {';', Tok::Semi},
        {'+', Tok::Plus},  {'*', Tok::Star}, {'?', Tok::Opt},        {'~', Tok::Tilde},
        {'=', Tok::Equal}, {'0', Tok::Zero}};
    for (const auto& [ch, kind] : kOne)
      if (c == ch) {
        text = c;
        step();
        return kind;
      }
    fail({line_, col_}, fmt::format("unexpected character '{}'", printable(std::string(1, c))));
  }

  Tok lex_string(std::string& text) {
    const SourceLoc start{line_, col_};
    step();
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\n') {
      text += s_[i_];
      step();
    }
    if (i_ >= s_.size() || s_[i_] != '"') fail(start, "unterminated string");
    step();
    return Tok::String;
  }

  std::string_view s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

bool is_keyword(const std::string& w) {
  static const char* const kWords[] = {"let",   "rec",  "and",     "as", "acyclic", "irreflexive",
                                       "empty", "flag", "include", "if", "then",    "else"};
  for (const char* k : kWords)
    if (w == k) return true;
  return false;
}

std::string_view type_name(Type t) { return t == Type::Set ? "a set" : "a relation"; }

using ExprPtr = std::unique_ptr<Expr>;

class Parser {
 public:
  Parser(Model& m, const IncludeReader& include, std::map<std::string, std::size_t>& scope)
      : m_(m),
        include_(include),
        scope_(scope) {}

  void file(std::string_view text, const std::string& name, int include_depth) {
    const std::string saved_file = file_;
    std::vector<Token> saved_toks = std::move(toks_);
    const std::size_t saved_pos = pos_;
    file_ = name;
    toks_ = Lexer(text, file_).run();
    pos_ = 0;
    title();
    while (peek().kind != Tok::End) statement(include_depth);
    file_ = saved_file;
    toks_ = std::move(saved_toks);
    pos_ = saved_pos;
  }

 private:
  // ---- tokens ----------------------------------------------------------------
  const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Token next() {
    Token t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool word(std::string_view w, std::size_t k = 0) const {
    return peek(k).kind == Tok::Name && peek(k).text == w;
  }
  [[noreturn]] void fail(SourceLoc at, std::string m) const {
    throw InputError(Diagnostic{file_, at, std::move(m)});
  }
  std::string describe(const Token& t) const {
    if (t.kind == Tok::End) return "the end of the file";
    return fmt::format("'{}'", printable(t.text));
  }
  Token expect(Tok k, std::string_view what) {
    if (peek().kind != k)
      fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())));
    return next();
  }
  void expect_word(std::string_view w) {
    if (!word(w)) fail(peek().loc, fmt::format("expected '{}', found {}", w, describe(peek())));
    next();
  }
  Token expect_name(std::string_view what) {
    if (peek().kind != Tok::Name || is_keyword(peek().text))
      fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())));
    return next();
  }

  // ---- statements --------------------------------------------------------------
  // herd: a model starts with its name, a quoted string or a bare word.
  void title() {
    if (peek().kind == Tok::String || (peek().kind == Tok::Name && !is_keyword(peek().text))) {
      const Token t = next();
      if (m_.title.empty()) m_.title = t.text;
    }
  }

  void statement(int include_depth) {
    const Token& t = peek();
    if (word("let")) return let();
    if (word("include")) return include(include_depth);
    if (word("flag") || word("acyclic") || word("irreflexive") || word("empty") ||
        t.kind == Tok::Tilde)
      return check();
    fail(t.loc, fmt::format("expected 'let', 'include' or a check (acyclic, irreflexive, empty), "
                            "found {}",
                            describe(t)));
  }

  void let() {
    next();
    Let l;
    l.rec = word("rec");
    if (l.rec) next();
    std::vector<Token> names;
    std::vector<ExprPtr> bodies;
    if (l.rec) {
      // Every name of the group is in scope in every body: relations.
      const std::size_t mark = pos_;
      do {
        if (!names.empty()) next();
        names.push_back(expect_name("a name to bind"));
        l.slots.push_back(add_slot(names.back().text, Type::Rel));
        skip_to_and();
      } while (word("and"));
      pos_ = mark;
    }
    std::size_t k = 0;
    do {
      if (k > 0) expect_word("and");
      const Token n = expect_name("a name to bind");
      expect(Tok::Equal, "'='");
      ExprPtr e = expr(0);
      if (l.rec && e->type != Type::Rel)
        fail(e->loc, fmt::format("'{}' in 'let rec' must be a relation", n.text));
      if (!l.rec) l.slots.push_back(add_slot(n.text, e->type));
      l.exprs.push_back(std::move(e));
      ++k;
    } while (word("and"));
    Stmt s;
    s.let = std::move(l);
    push(std::move(s));
  }

  // In a `let rec` group, skips one binding's `= body` to find the next name.
  void skip_to_and() {
    int depth = 0;
    next();  // '='
    while (peek().kind != Tok::End) {
      const Token& t = peek();
      if (t.kind == Tok::LPar || t.kind == Tok::LBrack) ++depth;
      if (t.kind == Tok::RPar || t.kind == Tok::RBrack) --depth;
      if (depth == 0 && t.kind == Tok::Name &&
          (t.text == "and" || t.text == "let" || t.text == "include" || t.text == "flag" ||
           t.text == "acyclic" || t.text == "irreflexive" || t.text == "empty"))
        return;
      next();
    }
  }

  std::size_t add_slot(const std::string& name, Type t) {
    m_.slots.push_back(Slot{name, t, false, 0});
    scope_[name] = m_.slots.size() - 1;
    return m_.slots.size() - 1;
  }

  void include(int include_depth) {
    const Token kw = next();
    const Token f = expect(Tok::String, "a quoted file name");
    if (include_depth >= kMaxNesting) fail(kw.loc, "includes nested deeper than 200");
    std::optional<std::string> text = include_ ? include_(f.text) : std::nullopt;
    if (!text) fail(f.loc, fmt::format("cannot read included file \"{}\"", printable(f.text)));
    file(*text, f.text, include_depth + 1);
  }

  void check() {
    Check c;
    c.loc = peek().loc;
    c.flag = word("flag");
    if (c.flag) next();
    c.negated = peek().kind == Tok::Tilde;
    if (c.negated) next();
    const Token k = expect(Tok::Name, "'acyclic', 'irreflexive' or 'empty'");
    if (k.text == "acyclic")
      c.kind = CheckKind::Acyclic;
    else if (k.text == "irreflexive")
      c.kind = CheckKind::Irreflexive;
    else if (k.text == "empty")
      c.kind = CheckKind::Empty;
    else
      fail(k.loc, fmt::format("expected 'acyclic', 'irreflexive' or 'empty', found '{}'", k.text));
    c.expr = expr(0);
    if (c.kind != CheckKind::Empty && c.expr->type != Type::Rel)
      fail(c.expr->loc, fmt::format("'{}' needs a relation, not a set", k.text));
    if (word("as")) {
      next();
      c.name = expect_name("a name after 'as'").text;
    }
    Stmt s;
    s.check = std::move(c);
    push(std::move(s));
  }

  void push(Stmt s) { m_.stmts.push_back(std::move(s)); }

  // ---- expressions -------------------------------------------------------------
  ExprPtr node(Op op, Type t, SourceLoc at) {
    auto e = std::make_unique<Expr>();
    e->op = op;
    e->type = t;
    e->loc = at;
    return e;
  }

  void nest(const SourceLoc& at, int depth) const {
    if (depth > kMaxNesting) fail(at, fmt::format("expression nested deeper than {}", kMaxNesting));
  }

  // `0` takes the type of the other operand.
  ExprPtr binary(Op op, ExprPtr a, ExprPtr b, SourceLoc at) {
    if (a->op == Op::Empty) a->type = b->type;
    if (b->op == Op::Empty) b->type = a->type;
    if (a->type != b->type)
      fail(at, fmt::format("operands of different types: {} and {}", type_name(a->type),
                           type_name(b->type)));
    if (op == Op::Seq && a->type != Type::Rel) fail(at, "';' composes relations, not sets");
    ExprPtr e = node(op, a->type, at);
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  // Precedence levels: 0 `|`, 1 `;`, 2 `\` (left), 3 `&`; then unary.
  ExprPtr expr(int depth) {
    nest(peek().loc, depth);
    if (word("if")) return conditional(depth);
    return infix(0, depth);
  }

  ExprPtr infix(int level, int depth) {
    static constexpr Tok kOps[] = {Tok::Bar, Tok::Semi, Tok::Backslash, Tok::Amp};
    static constexpr Op kKinds[] = {Op::Union, Op::Seq, Op::Diff, Op::Inter};
    if (level == 4) return unary(depth);
    ExprPtr lhs = infix(level + 1, depth + 1);
    while (peek().kind == kOps[level]) {
      const SourceLoc at = next().loc;
      ExprPtr rhs = infix(level + 1, depth + 1);
      lhs = binary(kKinds[level], std::move(lhs), std::move(rhs), at);
    }
    return lhs;
  }

  ExprPtr conditional(int depth) {
    const SourceLoc at = next().loc;
    ExprPtr e = node(Op::IfVariant, Type::Rel, at);
    e->variant = expect(Tok::String, "a quoted variant name after 'if'").text;
    expect_word("then");
    ExprPtr a = expr(depth + 1);
    expect_word("else");
    ExprPtr b = expr(depth + 1);
    ExprPtr both = binary(Op::Union, std::move(a), std::move(b), at);  // types agree
    e->type = both->type;
    e->args = std::move(both->args);
    return e;
  }

  bool starts_operand() const {
    const Tok k = peek(1).kind;
    return k == Tok::Name || k == Tok::LPar || k == Tok::LBrack || k == Tok::Underscore ||
           k == Tok::Tilde || k == Tok::Zero;
  }

  ExprPtr unary(int depth) {
    nest(peek().loc, depth);
    if (peek().kind == Tok::Tilde) {
      const SourceLoc at = next().loc;
      ExprPtr a = unary(depth + 1);
      ExprPtr e = node(Op::Complement, a->type, at);
      e->args.push_back(std::move(a));
      return e;
    }
    ExprPtr e = primary(depth);
    return postfix(std::move(e), depth);
  }

  ExprPtr postfix(ExprPtr e, int depth) {
    for (;;) {
      const Tok k = peek().kind;
      if (k == Tok::Star && starts_operand() && e->type == Type::Set) {
        const SourceLoc at = next().loc;
        ExprPtr rhs = unary(depth + 1);
        if (rhs->type != Type::Set) fail(at, "'S * T' needs two sets");
        ExprPtr c = node(Op::Cartesian, Type::Rel, at);
        c->args.push_back(std::move(e));
        c->args.push_back(std::move(rhs));
        e = std::move(c);
        continue;
      }
      Op op;
      if (k == Tok::Inv)
        op = Op::Inverse;
      else if (k == Tok::Plus)
        op = Op::Plus;
      else if (k == Tok::Star)
        op = Op::Star;
      else if (k == Tok::Opt)
        op = Op::Opt;
      else
        return e;
      const Token t = next();
      if (e->type != Type::Rel)
        fail(t.loc, fmt::format("'{}' applies to a relation, not a set", t.text));
      ExprPtr p = node(op, Type::Rel, t.loc);
      p->args.push_back(std::move(e));
      e = std::move(p);
    }
  }

  ExprPtr primary(int depth) {
    const Token t = next();
    switch (t.kind) {
      case Tok::LPar: {
        ExprPtr e = expr(depth + 1);
        expect(Tok::RPar, "')'");
        return e;
      }
      case Tok::LBrack: {
        ExprPtr s = expr(depth + 1);
        if (s->type != Type::Set) fail(t.loc, "'[S]' needs a set");
        expect(Tok::RBrack, "']'");
        ExprPtr e = node(Op::Identity, Type::Rel, t.loc);
        e->args.push_back(std::move(s));
        return e;
      }
      case Tok::Zero: return node(Op::Empty, Type::Rel, t.loc);
      case Tok::Underscore: return node(Op::Universe, Type::Set, t.loc);
      case Tok::Name: return named(t, depth);
      default: fail(t.loc, fmt::format("expected an expression, found {}", describe(t)));
    }
  }

  ExprPtr named(const Token& t, int depth) {
    if (t.text == "domain" || t.text == "range") {
      expect(Tok::LPar, "'('");
      ExprPtr r = expr(depth + 1);
      expect(Tok::RPar, "')'");
      if (r->type != Type::Rel) fail(t.loc, fmt::format("'{}' needs a relation", t.text));
      ExprPtr e = node(t.text == "domain" ? Op::Domain : Op::Range, Type::Set, t.loc);
      e->args.push_back(std::move(r));
      return e;
    }
    if (is_keyword(t.text)) fail(t.loc, fmt::format("expected an expression, found '{}'", t.text));
    auto it = scope_.find(t.text);
    if (it == scope_.end()) fail(t.loc, fmt::format("unknown name '{}'", printable(t.text)));
    ExprPtr e = node(Op::Ref, m_.slots[it->second].type, t.loc);
    e->slot = it->second;
    return e;
  }

  Model& m_;
  const IncludeReader& include_;
  std::map<std::string, std::size_t>& scope_;
  std::string file_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
};

// ---- levels ----------------------------------------------------------------------
int level_of(const Expr& e, const Model& m) {
  int l = e.op == Op::Ref ? m.slots[e.slot].level : 0;
  for (const auto& a : e.args) l = std::max(l, level_of(*a, m));
  return l;
}

void assign_levels(Model& m) {
  for (Stmt& s : m.stmts) {
    if (s.check) {
      s.level = level_of(*s.check->expr, m);
      continue;
    }
    int l = 0;
    // A recursive group reads its own slots: take the highest over its
    // bodies, repeating until stable (the bound slots start at 0).
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& e : s.let->exprs) l = std::max(l, level_of(*e, m));
      for (std::size_t slot : s.let->slots)
        if (m.slots[slot].level != l) {
          m.slots[slot].level = l;
          changed = true;
        }
    }
    s.level = l;
  }
}

}  // namespace

Model parse_cat(std::string_view text, const std::string& file,
                const std::vector<Primitive>& primitives, const IncludeReader& include) {
  Model m;
  m.file = file;
  std::map<std::string, std::size_t> scope;
  for (const Primitive& p : primitives) {
    m.slots.push_back(Slot{std::string(p.name), p.type, true, p.level});
    scope[std::string(p.name)] = m.slots.size() - 1;
  }
  Parser(m, include, scope).file(text, file, 0);
  assign_levels(m);
  return m;
}

}  // namespace redscope::cat

namespace redscope::cat {
namespace {

std::string_view infix(Op op) {
  switch (op) {
    case Op::Union: return " | ";
    case Op::Inter: return " & ";
    case Op::Diff: return " \\ ";
    case Op::Seq: return " ; ";
    default: return " * ";  // Cartesian
  }
}

// Needs no parentheses as an operand: names, brackets and postfix forms.
bool atomic(const Expr& e) {
  switch (e.op) {
    case Op::Ref:
    case Op::Empty:
    case Op::Universe:
    case Op::Identity:
    case Op::Inverse:
    case Op::Plus:
    case Op::Star:
    case Op::Opt:
    case Op::Domain:
    case Op::Range: return true;
    default: return false;
  }
}

std::string postfix(Op op) {
  switch (op) {
    case Op::Inverse: return "^-1";
    case Op::Plus: return "+";
    case Op::Star: return "*";
    default: return "?";  // Opt
  }
}

}  // namespace

std::string to_text(const Model& m, const Expr& e) {
  auto arg = [&](std::size_t i) {
    const Expr& a = *e.args[i];
    return atomic(a) || a.op == e.op ? to_text(m, a) : "(" + to_text(m, a) + ")";
  };
  switch (e.op) {
    case Op::Ref: return m.slots[e.slot].name;
    case Op::Empty: return "0";
    case Op::Universe: return "_";
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cartesian: return arg(0) + std::string(infix(e.op)) + arg(1);
    case Op::Inverse:
    case Op::Plus:
    case Op::Star:
    case Op::Opt: {
      const Expr& a = *e.args[0];
      const bool bare = atomic(a) && a.op != Op::Inverse && a.op != Op::Plus && a.op != Op::Star &&
                        a.op != Op::Opt;
      return (bare ? to_text(m, a) : "(" + to_text(m, a) + ")") + postfix(e.op);
    }
    case Op::Identity: return "[" + to_text(m, *e.args[0]) + "]";
    case Op::Domain: return "domain(" + to_text(m, *e.args[0]) + ")";
    case Op::Range: return "range(" + to_text(m, *e.args[0]) + ")";
    case Op::Complement: return "~" + arg(0);
    case Op::IfVariant:
      return "if \"" + e.variant + "\" then " + to_text(m, *e.args[0]) + " else " +
             to_text(m, *e.args[1]);
  }
  return "?";
}

}  // namespace redscope::cat
