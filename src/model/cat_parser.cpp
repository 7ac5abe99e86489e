// The cat-subset parser: a streaming lexer (one token of lookahead, so a
// file's tokens are never all held at once), then recursive descent with
// herd7's precedences (lowest first: `|`, `;`, `\`, `&`, then the postfix
// and prefix operators). Every name is resolved to a slot and every
// expression typed while parsing, so an evaluator never meets an unknown
// name. Chains of one infix operator become one n-ary node, and every tree's
// height and the parser's own recursion are bounded by kMaxNesting, so no
// walk over a model (here, the evaluators, explain, destructors) recurses
// deeper than that whatever the file holds.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>

#include "redscope/frontend/text_cursor.hpp"
#include "redscope/model/cat.hpp"

namespace redscope::cat {

namespace {

// Morally strong was a primitive before it was written in models/ptx.cat: a
// model of that time reads it unbound (docs/model.md "Morally strong").
constexpr std::string_view kMsHint =
    " (morally strong is defined in models/ptx.cat, not provided by the engine: copy its "
    "lines from `let incl` to `let ms` into this model; docs/model.md)";

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

bool name_start(char c) { return is_alpha(c) || c == '_'; }
bool name_char(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : c_(text, file) {}

  // The next token; End (again and again) at the end of the text.
  Token next() {
    skip_space();
    Token t;
    t.loc = c_.loc();
    if (!c_.done()) t.kind = lex_one(t.text);
    return t;
  }

 private:
  void skip_space() {
    for (;;) {
      c_.take_while(is_space);
      if (c_.at("//"))  // to the end of the line (Dat3M's cat files use them)
        c_.skip_line_comment();
      else if (c_.at("(*"))  // nested, as in herd
        c_.skip_block_comment("(*", "*)", true, "unterminated comment");
      else
        return;
    }
  }

  Tok lex_one(std::string& text) {
    static constexpr std::pair<std::string_view, Tok> kPunct[] = {
        {"^-1", Tok::Inv},  {"(", Tok::LPar},  {")", Tok::RPar}, {"[", Tok::LBrack},
        {"]", Tok::RBrack}, {"|", Tok::Bar},   {"&", Tok::Amp},  {"\\", Tok::Backslash},
        {";", Tok::Semi},   {"+", Tok::Plus},  {"*", Tok::Star}, {"?", Tok::Opt},
        {"~", Tok::Tilde},  {"=", Tok::Equal}, {"0", Tok::Zero}};
    const char c = c_.peek();
    if (name_start(c)) {
      text = c_.take_while(name_char);
      return text == "_" ? Tok::Underscore : Tok::Name;
    }
    if (c == '"') {
      text = c_.quoted(false);
      return Tok::String;
    }
    if (const auto p = c_.punctuation(kPunct)) {
      if (p->second != Tok::Inv) text = p->first;
      return p->second;
    }
    c_.fail(fmt::format("unexpected character '{}'", printable(std::string(1, c))));
  }

  TextCursor c_;
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
        scope_(scope),
        primitives_(m.slots.size()) {}

  // Parses one file (the model or an included one) onto the model; `key`
  // identifies it for include cycles.
  void file(std::string_view text, const std::string& name, const std::string& key) {
    const std::string saved_file = file_;
    std::optional<Lexer> saved_lex = std::move(lex_);
    std::deque<Token> saved_ahead = std::move(ahead_);
    file_ = name;
    lex_.emplace(text, file_);
    ahead_.clear();
    active_.push_back({key, name});
    title();
    while (peek().kind != Tok::End) statement();
    active_.pop_back();
    file_ = saved_file;
    lex_ = std::move(saved_lex);
    ahead_ = std::move(saved_ahead);
  }

 private:
  // ---- tokens ----------------------------------------------------------------
  // One token of lookahead beyond the current one (peek(1)); End repeats.
  const Token& peek(std::size_t k = 0) {
    while (ahead_.size() <= k) ahead_.push_back(lex_->next());
    return ahead_[k];
  }
  Token next() {
    Token t = peek();
    if (t.kind != Tok::End) ahead_.pop_front();
    return t;
  }
  // A point to come back to (a `let rec` group is read twice).
  struct Mark {
    Lexer lex;
    std::deque<Token> ahead;
  };
  Mark mark() const { return {*lex_, ahead_}; }
  void reset(Mark m) {
    lex_ = std::move(m.lex);
    ahead_ = std::move(m.ahead);
  }
  bool word(std::string_view w, std::size_t k = 0) {
    return peek(k).kind == Tok::Name && peek(k).text == w;
  }
  [[noreturn]] void fail(SourceLoc at, std::string m) const {
    throw InputError(Diagnostic{file_, at, std::move(m)});
  }
  static std::string describe(const Token& t) {
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

  void statement() {
    const Token& t = peek();
    if (word("let")) return let();
    if (word("include")) return include();
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
      Mark start = mark();
      do {
        if (!names.empty()) next();
        names.push_back(expect_name("a name to bind"));
        l.slots.push_back(add_slot(names.back(), Type::Rel));
        skip_to_and();
      } while (word("and"));
      reset(std::move(start));
    }
    std::size_t k = 0;
    do {
      if (k > 0) expect_word("and");
      const Token n = expect_name("a name to bind");
      expect(Tok::Equal, "'='");
      ExprPtr e = expr(0);
      if (l.rec && e->type != Type::Rel)
        fail(e->loc, fmt::format("'{}' in 'let rec' must be a relation", n.text));
      if (!l.rec) l.slots.push_back(add_slot(n, e->type));
      l.exprs.push_back(std::move(e));
      ++k;
    } while (word("and"));
    if (l.rec)
      for (const ExprPtr& e : l.exprs) monotone(l, *e, true);
    Stmt s;
    s.let = std::move(l);
    push(std::move(s));
  }

  // A `let rec` group is the least fixed point of its bodies, computed by
  // iterating from empty; that exists and the iteration ends only when
  // every body is monotone in the group's names (Knaster-Tarski; herd7's
  // interpreter iterates the same way and does not check, so `let rec r =
  // ~r` never ends there). So a name of the group may occur only in
  // positive positions: under an even number of complements `~` and right
  // operands of `\` (the only antitone operators of the subset).
  void monotone(const Let& l, const Expr& e, bool positive) const {
    if (e.op == Op::Ref) {
      const bool bound = std::find(l.slots.begin(), l.slots.end(), e.slot) != l.slots.end();
      if (bound && !positive)
        fail(e.loc, fmt::format("'{}' is defined by this 'let rec' and occurs here in a "
                                "non-monotone position (under '~' or on the right of '\\'): "
                                "its least fixed point may not exist",
                                m_.slots[e.slot].name));
      return;
    }
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      const bool flips = e.op == Op::Complement || (e.op == Op::Diff && i > 0);
      monotone(l, *e.args[i], flips ? !positive : positive);
    }
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

  std::size_t add_slot(const Token& name, Type t) {
    // One value per name, n x n bits each in the enumerator: a located
    // error rather than a model no test could be checked with.
    if (m_.slots.size() - primitives_ >= kMaxBindings)
      fail(name.loc, fmt::format("more than {} names bound by 'let' in one model", kMaxBindings));
    m_.slots.push_back(Slot{name.text, t, false, 0});
    scope_[name.text] = m_.slots.size() - 1;
    return m_.slots.size() - 1;
  }

  // A file is included once: a later `include` of the same file (same
  // canonical path) is skipped, as its bindings are already in scope (herd7
  // reads it again; then a chain of files each including the next twice
  // doubles per link). Including a file from itself, directly or through
  // others, is an error: its bindings would not be defined yet.
  void include() {
    const Token kw = next();
    const Token f = expect(Tok::String, "a quoted file name");
    if (active_.size() > static_cast<std::size_t>(kMaxNesting))
      fail(kw.loc, fmt::format("includes nested deeper than {}", kMaxNesting));
    std::optional<IncludedFile> got;
    try {
      if (include_) got = include_(f.text, file_);
    } catch (const InputError& e) {
      fail(f.loc, fmt::format("cannot read included file \"{}\": {}", printable(f.text),
                              e.diagnostic().message));
    }
    if (!got) fail(f.loc, fmt::format("cannot read included file \"{}\"", printable(f.text)));
    for (const auto& [key, name] : active_)
      if (key == got->key) fail(f.loc, fmt::format("include cycle: {}", cycle_from(key)));
    if (done_.count(got->key)) return;
    if (done_.size() >= kMaxIncludes)
      fail(f.loc, fmt::format("more than {} files included by one model", kMaxIncludes));
    done_.insert(got->key);
    file(got->text, got->name, got->key);
  }

  // "a.cat includes b.cat, which includes a.cat": the active includes from `key` on.
  std::string cycle_from(const std::string& key) const {
    auto it =
        std::find_if(active_.begin(), active_.end(), [&](const auto& a) { return a.first == key; });
    const std::string first = printable(it->second);
    std::string out = first;
    for (++it; it != active_.end(); ++it) out += " includes " + printable(it->second) + ", which";
    return out + " includes " + first;
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
  // Every node is counted: a model's tree stays within kMaxNodes (about
  // 100 bytes each), whatever the size of the file.
  ExprPtr node(Op op, Type t, SourceLoc at) {
    if (++nodes_ > kMaxNodes)
      fail(at, fmt::format("more than {} operators and operands in one model", kMaxNodes));
    auto e = std::make_unique<Expr>();
    e->op = op;
    e->type = t;
    e->loc = at;
    return e;
  }

  // Makes `a` an argument of `e`, keeping the tree's height within bounds
  // (located at the node that would exceed it: the 201st `^-1` of a chain).
  void adopt(Expr& e, ExprPtr a) {
    e.height = std::max(e.height, a->height + 1);
    if (e.height > kMaxNesting)
      fail(e.loc, fmt::format("expression nested deeper than {}", kMaxNesting));
    e.args.push_back(std::move(a));
  }

  // The parser's own recursion: parentheses, brackets, prefix operators.
  void nest(const SourceLoc& at, int depth) const {
    if (depth > kMaxNesting) fail(at, fmt::format("expression nested deeper than {}", kMaxNesting));
  }

  // Operands of one type; `0` takes the type of the other operand.
  void unify(Expr& a, Expr& b, SourceLoc at) const {
    if (a.op == Op::Empty) a.type = b.type;
    if (b.op == Op::Empty) b.type = a.type;
    if (a.type != b.type)
      fail(at, fmt::format("operands of different types: {} and {}", type_name(a.type),
                           type_name(b.type)));
  }

  // `a op b` as one n-ary node: a chain `a | b | c`, `(a | b) | c` and
  // `a | (b | c)` are one Union of three (likewise `;` and `&`, which are
  // associative); `a \ b \ c` is one Diff (args[0] minus the others), but
  // `a \ (b \ c)` keeps its right operand.
  ExprPtr binary(Op op, ExprPtr a, ExprPtr b, SourceLoc at) {
    unify(*a, *b, at);
    if (op == Op::Seq && a->type != Type::Rel) fail(at, "';' composes relations, not sets");
    ExprPtr e;
    if (a->op == op) {
      e = std::move(a);
    } else {
      e = node(op, a->type, at);
      adopt(*e, std::move(a));
    }
    if (b->op == op && op != Op::Diff) {
      for (ExprPtr& arg : b->args) adopt(*e, std::move(arg));
    } else {
      adopt(*e, std::move(b));
    }
    return e;
  }

  // Precedence levels: 0 `|`, 1 `;`, 2 `\` (left), 3 `&`; then unary. A
  // level calls the next once per operand (a loop, not a recursion per
  // operator), so a chain of any length is parsed at constant depth.
  ExprPtr expr(int depth) {
    nest(peek().loc, depth);
    if (word("if")) return conditional(depth);
    return infix(0, depth);
  }

  ExprPtr infix(int level, int depth) {
    static constexpr Tok kOps[] = {Tok::Bar, Tok::Semi, Tok::Backslash, Tok::Amp};
    static constexpr Op kKinds[] = {Op::Union, Op::Seq, Op::Diff, Op::Inter};
    if (level == 4) return unary(depth);
    ExprPtr lhs = infix(level + 1, depth);
    while (peek().kind == kOps[level]) {
      const SourceLoc at = next().loc;
      ExprPtr rhs = infix(level + 1, depth);
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
    unify(*a, *b, at);
    e->type = a->type;
    adopt(*e, std::move(a));
    adopt(*e, std::move(b));
    return e;
  }

  bool starts_operand() {
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
      adopt(*e, std::move(a));
      return e;
    }
    ExprPtr e = primary(depth);
    return postfix(std::move(e), depth);
  }

  // Postfix operators loop (no recursion); each adds a node, so a chain of
  // them counts against the height bound.
  ExprPtr postfix(ExprPtr e, int depth) {
    for (;;) {
      const Tok k = peek().kind;
      if (k == Tok::Star && e->type == Type::Set && starts_operand()) {
        const SourceLoc at = next().loc;
        ExprPtr rhs = unary(depth + 1);
        if (rhs->type != Type::Set) fail(at, "'S * T' needs two sets");
        ExprPtr c = node(Op::Cartesian, Type::Rel, at);
        adopt(*c, std::move(e));
        adopt(*c, std::move(rhs));
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
      adopt(*p, std::move(e));
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
        adopt(*e, std::move(s));
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
      adopt(*e, std::move(r));
      return e;
    }
    if (is_keyword(t.text)) fail(t.loc, fmt::format("expected an expression, found '{}'", t.text));
    auto it = scope_.find(t.text);
    if (it == scope_.end())
      fail(t.loc, fmt::format("unknown name '{}'{}", printable(t.text),
                              t.text == "ms" ? kMsHint : std::string_view{}));
    ExprPtr e = node(Op::Ref, m_.slots[it->second].type, t.loc);
    e->slot = it->second;
    return e;
  }

  Model& m_;
  const IncludeReader& include_;
  std::map<std::string, std::size_t>& scope_;
  std::size_t primitives_;  // slots before the first binding
  std::string file_;
  std::optional<Lexer> lex_;
  std::deque<Token> ahead_;
  std::vector<std::pair<std::string, std::string>> active_;  // files being read: key, name
  std::set<std::string> done_;                               // keys of files included
  std::size_t nodes_ = 0;                                    // Expr nodes made
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

// Numbers every node and gives it its level (after assign_levels).
int number_exprs(Expr& e, const Model& m, std::size_t& next) {
  e.id = next++;
  e.level = e.op == Op::Ref ? m.slots[e.slot].level : 0;
  for (const auto& a : e.args) e.level = std::max(e.level, number_exprs(*a, m, next));
  return e.level;
}

void number_exprs(Model& m) {
  std::size_t next = 0;
  for (Stmt& s : m.stmts) {
    if (s.check) number_exprs(*s.check->expr, m, next);
    if (s.let)
      for (const auto& e : s.let->exprs) number_exprs(*e, m, next);
  }
  m.exprs = next;
}

}  // namespace

Model parse_cat(std::string_view text, const std::string& file,
                const std::vector<Primitive>& primitives, const IncludeReader& include,
                const std::string& top_key) {
  Model m;
  m.file = file;
  std::map<std::string, std::size_t> scope;
  for (const Primitive& p : primitives) {
    if (!p.same_as.empty()) continue;
    m.slots.push_back(Slot{std::string(p.name), p.type, true, p.level});
    scope[std::string(p.name)] = m.slots.size() - 1;
  }
  for (const Primitive& p : primitives)
    if (!p.same_as.empty()) scope[std::string(p.name)] = scope.at(std::string(p.same_as));
  Parser(m, include, scope).file(text, file, top_key.empty() ? file : top_key);
  assign_levels(m);
  number_exprs(m);
  for (std::size_t i = 0; i < m.slots.size() && m.slots[i].primitive; ++i)
    m.primitives_by_name.push_back(i);
  std::sort(m.primitives_by_name.begin(), m.primitives_by_name.end(),
            [&m](std::size_t a, std::size_t b) { return m.slots[a].name < m.slots[b].name; });
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
    return atomic(a) ? to_text(m, a) : "(" + to_text(m, a) + ")";
  };
  switch (e.op) {
    case Op::Ref: return m.slots[e.slot].name;
    case Op::Empty: return "0";
    case Op::Universe: return "_";
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cartesian: {  // n-ary (a same-operator operand is a Diff's right: parenthesized)
      std::string out = arg(0);
      for (std::size_t i = 1; i < e.args.size(); ++i) out += std::string(infix(e.op)) + arg(i);
      return out;
    }
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
