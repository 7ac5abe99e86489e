// herd7's cat language, parsed as herd7 7.58 parses it: the lexer of
// herdtools7 lib/modelLexer.mll (streamed, a few tokens of lookahead) and
// recursive descent over the rules of lib/modelParser.mly, its yacc
// precedences replayed by precedence climbing (base), so a text herd7
// rejects as a conflict (`~a*`, `a*b*c`) is rejected here too. Every node is
// located at its rule's first token. The parser's recursion and every tree's
// height are bounded by kMaxNesting, the nodes of a model by kMaxNodes: no
// input overflows the stack, here or in the walks over the tree.
#include "redscope/model/herd/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <utility>

#include "redscope/frontend/text_cursor.hpp"

namespace redscope::cat::herd {

namespace {

// ---- tokens (modelLexer.mll) -------------------------------------------------------

// clang-format off
enum class Tok : std::uint8_t {
  Eof, Var, TagName, String,
  LPar, RPar, LAcc, RAcc, LBrac, RBrac, Empty, Underscore,
  Alt, Land, Union, PlusPlus, Inter, Star, Comp, Plus, Hat, Inv, Diff, Opt, Equal, Semi,
  Comma, Arrow,
  // keywords
  Let, Rec, And, When, Acyclic, Irreflexive, Show, Unshow, TestEmpty, Subset, As, Fun, In,
  Requires, Flag, Assert, Include, Variant, Begin, End, Procedure, Call, Enum, Debug, Match,
  With, Forall, From, Do, Try, If, Then, Else, Catdep, Instructions, Default, Lnot,
};
// clang-format on

struct Token {
  Tok kind = Tok::Eof;
  std::string text;  // a name, tag, string or keyword; the spelling of punctuation
  SourceLoc loc;
};

// modelLexer.mll's do_check_keyword: the spellings of Tok::Let .. Tok::Lnot, in order.
Tok keyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "let",     "rec",    "and",     "when",    "acyclic", "irreflexive", "show",
      "unshow",  "empty",  "subset",  "as",      "fun",     "in",          "undefined_unless",
      "flag",    "assert", "include", "variant", "begin",   "end",         "procedure",
      "call",    "enum",   "debug",   "match",   "with",    "forall",      "from",
      "do",      "try",    "if",      "then",    "else",    "catdep",      "instructions",
      "default", "not"};
  static_assert(std::size(kWords) ==
                static_cast<std::size_t>(Tok::Lnot) - static_cast<std::size_t>(Tok::Let) + 1);
  for (std::size_t i = 0; i < std::size(kWords); ++i)
    if (kWords[i] == w) return static_cast<Tok>(static_cast<std::size_t>(Tok::Let) + i);
  return Tok::Var;
}

// name = '_'? alpha (alpha | digit | '_' | '.' | '-')* '\''?
bool name_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : c_(text, file) {}

  // The next token; Eof (again and again) at the end of the text.
  Token next() {
    skip_blanks();
    Token t;
    t.loc = c_.loc();
    if (!c_.done()) t.kind = lex_one(t.text);
    return t;
  }

 private:
  // Blanks are ' ', '\t', '\r', '\n'; comments `// ...`, `# ...` (to the end
  // of the line) and `(* ... *)` (nested, LexUtils.skip_comment).
  void skip_blanks() {
    for (;;) {
      c_.take_while([](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
      if (c_.at("//") || c_.at("#"))
        c_.skip_line_comment();
      else if (c_.at("(*"))
        c_.skip_block_comment("(*", "*)", true, "unterminated comment");
      else
        return;
    }
  }

  // A name (or keyword) at the cursor: `_` alone is Underscore.
  Tok lex_name(std::string& text) {
    const std::size_t from = c_.offset();
    if (c_.peek() == '_') c_.advance();
    if (!is_alpha(c_.peek())) return Tok::Underscore;
    c_.take_while(name_char);
    if (c_.peek() == '\'') c_.advance();
    text = c_.since(from);
    return keyword(text);
  }

  Tok lex_one(std::string& text) {
    // Longer spellings first: ocamllex takes the longest match.
    static constexpr std::pair<std::string_view, Tok> kPunct[] = {
        {"||", Tok::Alt},  {"&&", Tok::Land}, {"++", Tok::PlusPlus}, {"->", Tok::Arrow},
        {"-1", Tok::Inv},  {"(", Tok::LPar},  {")", Tok::RPar},      {"{", Tok::LAcc},
        {"}", Tok::RAcc},  {"[", Tok::LBrac}, {"]", Tok::RBrac},     {"|", Tok::Union},
        {"&", Tok::Inter}, {"*", Tok::Star},  {"~", Tok::Comp},      {"+", Tok::Plus},
        {"^", Tok::Hat},   {"\\", Tok::Diff}, {"?", Tok::Opt},       {"=", Tok::Equal},
        {";", Tok::Semi},  {",", Tok::Comma}, {"0", Tok::Empty}};
    const char c = c_.peek();
    if (is_alpha(c) || c == '_') {
      const Tok k = lex_name(text);
      if (k == Tok::Underscore) text = "_";
      return k;
    }
    if (c == '"') {
      text = c_.quoted(true);
      return Tok::String;
    }
    if (c == '\'' && (is_alpha(c_.peek(1)) || (c_.peek(1) == '_' && is_alpha(c_.peek(2))))) {
      c_.advance();
      lex_name(text);  // a tag may be spelled as a keyword: 'in is the tag "in"
      return Tok::TagName;
    }
    if (const auto p = c_.punctuation(kPunct)) {
      text = p->first;
      return p->second;
    }
    c_.fail(fmt::format("unexpected character '{}'", printable(std::string(1, c))));
  }

  TextCursor c_;
};

// How a message names a token.
std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::Eof: return "the end of the file";
    case Tok::String: return fmt::format("\"{}\"", printable(t.text));
    case Tok::TagName: return fmt::format("'{}", printable(t.text));
    default: return fmt::format("'{}'", printable(t.text));
  }
}

std::string at_text(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

// ---- precedences (modelParser.mly, lowest first) ----------------------------------
// %right UNION  %right PLUSPLUS  %right SEMI  %left DIFF  %right INTER
// %nonassoc STAR PLUS OPT COMP  %nonassoc HAT
constexpr int kPrefixLevel = 6;  // COMP, and the right operand of `base STAR base`

int level(Tok k) {
  switch (k) {
    case Tok::Union: return 1;
    case Tok::PlusPlus: return 2;
    case Tok::Semi: return 3;
    case Tok::Diff: return 4;
    case Tok::Inter: return 5;
    case Tok::Star:
    case Tok::Plus:
    case Tok::Opt: return 6;
    case Tok::Hat:
    case Tok::Inv: return 7;
    default: return 0;  // not an operator after a base
  }
}

// The first tokens of `simple`, and of `arg` (`VAR | simple`).
bool starts_simple(Tok k) {
  return k == Tok::Empty || k == Tok::TagName || k == Tok::LAcc || k == Tok::Underscore ||
         k == Tok::LPar || k == Tok::Begin || k == Tok::LBrac;
}
bool starts_arg(Tok k) { return k == Tok::Var || starts_simple(k); }

// The first tokens of `ins` (not `enum`, which only `topins` has).
bool starts_ins(Tok k) {
  switch (k) {
    case Tok::Let:
    case Tok::Match:
    case Tok::Show:
    case Tok::Unshow:
    case Tok::Include:
    case Tok::Procedure:
    case Tok::Call:
    case Tok::Debug:
    case Tok::Forall:
    case Tok::With:
    case Tok::If:
    case Tok::Instructions:
    case Tok::Default:
    case Tok::Acyclic:
    case Tok::Irreflexive:
    case Tok::TestEmpty:
    case Tok::Comp:
    case Tok::Requires:
    case Tok::Flag:
    case Tok::Assert: return true;
    default: return false;
  }
}

// `tuple_pat`: one formal is that name, others (none, or several) a tuple.
Pattern tuple_pat(std::vector<std::optional<std::string>> names) {
  Pattern p;
  p.tuple = names.size() != 1;
  p.names = std::move(names);
  return p;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, std::size_t& nodes)
      : file_(std::make_shared<const std::string>(file)),
        lex_(text, *file_),
        nodes_(nodes) {}

  // main: identity catdep topins_list EOF
  Program program() {
    Program p;
    p.file = *file_;
    identity(p);
    if (accept(Tok::Catdep)) p.catdep = true;
    while (peek().kind != Tok::Eof) {
      if (peek().kind == Tok::Enum) {
        p.body.push_back(enum_ins());
      } else if (starts_ins(peek().kind)) {
        p.body.push_back(ins());
      } else {
        fail(peek().loc, fmt::format("expected an instruction (let, include, a check, show, "
                                     "procedure, ...), found {}",
                                     describe(peek())));
      }
    }
    return p;
  }

 private:
  // ---- tokens ----------------------------------------------------------------------
  const Token& peek(std::size_t k = 0) {
    while (ahead_.size() <= k) ahead_.push_back(lex_.next());
    return ahead_[k];
  }
  Token next() {
    Token t = peek();
    if (t.kind != Tok::Eof) ahead_.pop_front();
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(SourceLoc at, std::string m) const {
    throw InputError(Diagnostic{*file_, at, std::move(m)});
  }
  Token expect(Tok k, std::string_view what) {
    if (peek().kind != k)
      fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())));
    return next();
  }
  // The token that closes `open` (e.g. 'end' for a 'match'), named in the error.
  Token close(Tok k, std::string_view closer, const Token& open) {
    if (peek().kind != k)
      fail(peek().loc, fmt::format("expected '{}' to close the '{}' at {}, found {}", closer,
                                   open.text, at_text(open.loc), describe(peek())));
    return next();
  }
  std::string expect_var(std::string_view what) { return expect(Tok::Var, what).text; }

  // ---- bounds ----------------------------------------------------------------------
  // One level of the parser's recursion (a bracket, a prefix, a nested form).
  struct Nest {
    Nest(Parser& p, SourceLoc at) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.fail(at, fmt::format("expression nested deeper than {}", kMaxNesting));
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    Parser& p_;
  };

  // Every node, instruction and listed name counts against kMaxNodes.
  void count(SourceLoc at) {
    if (++nodes_ > kMaxNodes) fail(at, fmt::format("more than {} nodes in one model", kMaxNodes));
  }
  Where where(SourceLoc at) const { return Where{file_, at}; }

  ExpPtr node(ExpKind k, SourceLoc at) {
    count(at);
    auto e = std::make_unique<Exp>();
    e->kind = k;
    e->at = where(at);
    return e;
  }

  int height(const ExpPtr& e) const {
    if (!e) return 0;
    const auto it = heights_.find(e.get());
    return it == heights_.end() ? 1 : it->second;
  }
  // A finished node: its height (1 + its highest child) stays within kMaxNesting.
  ExpPtr seal(ExpPtr e) {
    int h = std::max({height(e->body), height(e->deflt), height(e->elt.exp), height(e->cond.a),
                      height(e->cond.b)});
    for (const ExpPtr& a : e->args) h = std::max(h, height(a));
    for (const Binding& b : e->bindings) h = std::max(h, height(b.exp));
    for (const Clause& c : e->clauses) h = std::max(h, height(c.exp));
    if (h + 1 > kMaxNesting)
      fail(e->at.loc, fmt::format("expression nested deeper than {}", kMaxNesting));
    heights_[e.get()] = h + 1;
    return e;
  }

  ExpPtr op1(Op1 op, ExpPtr a, SourceLoc at) {
    ExpPtr e = node(ExpKind::Op1, at);
    e->op1 = op;
    e->args.push_back(std::move(a));
    return seal(std::move(e));
  }
  ExpPtr op2(Op2 op, std::vector<ExpPtr> args, SourceLoc at) {
    ExpPtr e = node(ExpKind::Op, at);
    e->op2 = op;
    e->args = std::move(args);
    return seal(std::move(e));
  }

  // ---- the file's head -------------------------------------------------------------
  // identity: VAR VAR | VAR STRING | VAR | STRING | (nothing). With two
  // words the first is the architecture; one word is the title.
  void identity(Program& p) {
    if (peek().kind == Tok::String) {
      p.title = next().text;
    } else if (peek().kind == Tok::Var) {
      const std::string first = next().text;
      if (peek().kind == Tok::Var || peek().kind == Tok::String) {
        p.arch = first;
        p.title = next().text;
      } else {
        p.title = first;
      }
    }
  }

  // ---- instructions (ins, topins) --------------------------------------------------
  // ins_list: ins*, up to a token no instruction starts with.
  std::vector<Ins> ins_list() {
    std::vector<Ins> out;
    while (starts_ins(peek().kind)) out.push_back(ins());
    return out;
  }

  Ins start_ins(InsKind k) {
    count(peek().loc);
    Ins i;
    i.kind = k;
    i.at = where(peek().loc);
    return i;
  }

  Ins ins() {
    switch (peek().kind) {
      case Tok::Let: return let_ins();
      case Tok::Match: return match_ins();
      case Tok::Show: return show_ins();
      case Tok::Unshow: {
        Ins i = start_ins(InsKind::UnShow);
        next();
        i.names = var_list();
        return i;
      }
      case Tok::Include: {
        Ins i = start_ins(InsKind::Include);
        next();
        i.name = expect(Tok::String, "a quoted file name after 'include'").text;
        return i;
      }
      case Tok::Procedure: return procedure_ins();
      case Tok::Call: return call_ins();
      case Tok::Debug: {
        Ins i = start_ins(InsKind::Debug);
        next();
        i.exp = exp();
        return i;
      }
      case Tok::Forall: return forall_ins();
      case Tok::With: return with_ins();
      case Tok::If: return if_ins();
      case Tok::Instructions:
      case Tok::Default: return events_ins();
      default: return test_ins();
    }
  }

  // LET pat_bind_list in_opt | LET REC pat_bind_list [WHEN app_test] in_opt
  Ins let_ins() {
    Ins i = start_ins(InsKind::Let);
    next();
    if (accept(Tok::Rec)) i.kind = InsKind::Rec;
    i.bindings = pat_bind_list();
    if (i.kind == InsKind::Rec && accept(Tok::When)) i.test = app_test();
    accept(Tok::In);
    return i;
  }

  // MATCH exp WITH altopt ins_clause_list END, where ins_clause_list is
  // `'tag -> ins_list` clauses separated by `||`, the last maybe `_ -> ins_list`.
  Ins match_ins() {
    Ins i = start_ins(InsKind::InsMatch);
    const Token kw = next();
    const Nest n(*this, kw.loc);
    i.exp = exp();
    expect(Tok::With, "'with' after the matched expression");
    accept(Tok::Alt);
    for (;;) {
      if (peek().kind == Tok::Underscore) {
        next();
        expect(Tok::Arrow, "'->' after '_'");
        i.deflt = ins_list();
        break;
      }
      const std::string tag = expect(Tok::TagName, "a clause ('tag -> ...) or '_ -> ...'").text;
      expect(Tok::Arrow, "'->' after the tag");
      i.clauses.emplace_back(tag, ins_list());
      if (!accept(Tok::Alt)) break;
    }
    close(Tok::End, "end", kw);
    return i;
  }

  // SHOW base AS VAR | SHOW var_list: a name followed by ',' or by what
  // cannot continue an expression is a var_list (yacc's lookahead).
  Ins show_ins() {
    Ins i = start_ins(InsKind::Show);
    next();
    const Tok after = peek(1).kind;
    const bool list =
        peek().kind == Tok::Var &&
        (after == Tok::Comma || !(starts_arg(after) || level(after) > 0 || after == Tok::As));
    if (list) {
      i.names = var_list();
      return i;
    }
    i.kind = InsKind::ShowAs;
    i.exp = base(0);
    expect(Tok::As, "'as' after the shown expression");
    i.name = expect_var("a name after 'as'");
    return i;
  }

  // var_list: VAR | VAR COMMA var_list
  std::vector<std::string> var_list() {
    std::vector<std::string> out;
    do {
      count(peek().loc);
      out.push_back(expect_var("a name"));
    } while (accept(Tok::Comma));
    return out;
  }

  // PROCEDURE [REC] VAR LPAR formals RPAR EQUAL ins_list END
  // PROCEDURE [REC] VAR pat0 EQUAL ins_list END
  Ins procedure_ins() {
    Ins i = start_ins(InsKind::Procedure);
    const Token kw = next();
    const Nest n(*this, kw.loc);
    i.rec = accept(Tok::Rec);
    i.name = expect_var("the procedure's name");
    if (peek().kind == Tok::LPar) {
      const Token open = next();
      i.pat = tuple_pat(formals(Tok::RPar));
      close(Tok::RPar, ")", open);
    } else {
      i.pat = tuple_pat({pat0()});
    }
    expect(Tok::Equal, "'=' before the procedure's body");
    i.body = ins_list();
    close(Tok::End, "end", kw);
    return i;
  }

  // CALL VAR simple optional_name
  Ins call_ins() {
    Ins i = start_ins(InsKind::Call);
    next();
    i.name = expect_var("the name of the procedure to call");
    if (!starts_simple(peek().kind))
      fail(peek().loc, fmt::format("expected the procedure's argument (in parentheses), found {}",
                                   describe(peek())));
    i.exp = simple();
    if (accept(Tok::As)) i.as = expect_var("a name after 'as'");
    return i;
  }

  // FORALL VAR IN exp DO ins_list END
  Ins forall_ins() {
    Ins i = start_ins(InsKind::Forall);
    const Token kw = next();
    const Nest n(*this, kw.loc);
    i.name = expect_var("a name after 'forall'");
    expect(Tok::In, "'in' after the variable of 'forall'");
    i.exp = exp();
    expect(Tok::Do, "'do' after the set of 'forall'");
    i.body = ins_list();
    close(Tok::End, "end", kw);
    return i;
  }

  // WITH VAR FROM exp
  Ins with_ins() {
    Ins i = start_ins(InsKind::WithFrom);
    next();
    i.name = expect_var("a name after 'with'");
    expect(Tok::From, "'from' after the variable of 'with'");
    i.exp = exp();
    return i;
  }

  // IF variant ins_list [ELSE ins_list] END
  Ins if_ins() {
    Ins i = start_ins(InsKind::IfVariant);
    const Token kw = next();
    const Nest n(*this, kw.loc);
    i.variant = variant().cond;
    i.body = ins_list();
    if (accept(Tok::Else)) i.else_body = ins_list();
    close(Tok::End, "end", kw);
    return i;
  }

  // INSTRUCTIONS VAR LBRAC args RBRAC | DEFAULT VAR LBRAC args RBRAC (bell files)
  Ins events_ins() {
    Ins i = start_ins(InsKind::Events);
    i.is_default = next().kind == Tok::Default;
    i.name = expect_var("the name of an instruction set");
    const Token open = expect(Tok::LBrac, "'['");
    const Nest n(*this, open.loc);
    i.args = args(Tok::RBrac);
    close(Tok::RBrac, "]", open);
    return i;
  }

  // topins: ENUM VAR EQUAL altopt alttags, alttags: TAG (ALT TAG)*
  Ins enum_ins() {
    Ins i = start_ins(InsKind::Enum);
    next();
    i.name = expect_var("the enumeration's name");
    expect(Tok::Equal, "'=' after the enumeration's name");
    accept(Tok::Alt);
    do {
      count(peek().loc);
      i.names.push_back(expect(Tok::TagName, "a tag ('name)").text);
    } while (accept(Tok::Alt));
    return i;
  }

  // deftest: test_type app_test; test_type: [undefined_unless | flag | assert]
  Ins test_ins() {
    Ins i = start_ins(InsKind::Test);
    TestType type = TestType::Check;
    if (accept(Tok::Requires))
      type = TestType::UndefinedUnless;
    else if (accept(Tok::Flag))
      type = TestType::Flagged;
    else if (accept(Tok::Assert))
      type = TestType::Assert;
    i.test = app_test();
    i.test->type = type;
    return i;
  }

  // app_test: test exp optional_name; test: [COMP] (ACYCLIC | IRREFLEXIVE | TESTEMPTY)
  AppTest app_test() {
    AppTest t;
    t.at = where(peek().loc);
    t.negated = accept(Tok::Comp);
    const Token k = next();
    if (k.kind == Tok::Acyclic)
      t.kind = TestKind::Acyclic;
    else if (k.kind == Tok::Irreflexive)
      t.kind = TestKind::Irreflexive;
    else if (k.kind == Tok::TestEmpty)
      t.kind = TestKind::Empty;
    else
      fail(k.loc,
           fmt::format("expected 'acyclic', 'irreflexive' or 'empty', found {}", describe(k)));
    t.exp = exp();
    if (accept(Tok::As)) t.name = expect_var("a name after 'as'");
    return t;
  }

  // ---- bindings and patterns -------------------------------------------------------
  // pat_bind_list: pat_bind (AND pat_bind)*
  std::vector<Binding> pat_bind_list() {
    std::vector<Binding> out;
    do out.push_back(pat_bind());
    while (accept(Tok::And));
    return out;
  }

  // pat_bind: LPAR formals RPAR EQUAL exp | formalsN EQUAL exp
  //         | VAR pat0 EQUAL exp | VAR LPAR formals RPAR EQUAL exp (functions)
  Binding pat_bind() {
    Binding b;
    const SourceLoc at = peek().loc;
    b.at = where(at);
    const Tok after = peek(1).kind;
    if (peek().kind == Tok::Var &&
        (after == Tok::LPar || after == Tok::Var || after == Tok::Underscore))
      return fun_bind(std::move(b));
    if (peek().kind == Tok::LPar) {
      const Token open = next();
      b.pat = tuple_pat(formals(Tok::RPar));
      close(Tok::RPar, ")", open);
    } else {
      b.pat = tuple_pat(formals_n());
    }
    expect(Tok::Equal, "'=' in the binding");
    b.exp = exp();
    return b;
  }

  // `f x = e`, `f(x, y) = e`: f bound to a Fun named f.
  Binding fun_bind(Binding b) {
    const std::string name = next().text;
    ExpPtr f = node(ExpKind::Fun, b.at.loc);
    f->name = name;
    if (peek().kind == Tok::LPar) {
      const Token open = next();
      f->pat = tuple_pat(formals(Tok::RPar));
      close(Tok::RPar, ")", open);
    } else {
      f->pat = tuple_pat({pat0()});
    }
    expect(Tok::Equal, fmt::format("'=' after the parameters of '{}'", printable(name)));
    f->body = exp();
    b.pat = tuple_pat({name});
    b.exp = seal(std::move(f));
    return b;
  }

  // pat0: UNDERSCORE | VAR
  std::optional<std::string> pat0() {
    count(peek().loc);
    if (accept(Tok::Underscore)) return std::nullopt;
    return expect_var("a name or '_'");
  }

  // formals: (nothing, before `closer`) | formalsN
  std::vector<std::optional<std::string>> formals(Tok closer) {
    if (peek().kind == closer) return {};
    return formals_n();
  }
  // formalsN: pat0 (COMMA pat0)*
  std::vector<std::optional<std::string>> formals_n() {
    std::vector<std::optional<std::string>> out;
    do out.push_back(pat0());
    while (accept(Tok::Comma));
    return out;
  }

  // ---- expressions (exp) -----------------------------------------------------------
  ExpPtr exp() {
    switch (peek().kind) {
      case Tok::Let: return let_exp();
      case Tok::Fun: return fun_exp();
      case Tok::Try: return try_exp();
      case Tok::If: return if_exp();
      case Tok::Match: return match_exp();
      default: return base_or_tuple();
    }
  }

  // LET [REC] pat_bind_list IN exp
  ExpPtr let_exp() {
    const Token kw = next();
    const Nest n(*this, kw.loc);
    ExpPtr e = node(accept(Tok::Rec) ? ExpKind::BindRec : ExpKind::Bind, kw.loc);
    e->bindings = pat_bind_list();
    expect(Tok::In, "'in' after the bindings of a 'let' in an expression");
    e->body = exp();
    return seal(std::move(e));
  }

  // FUN pat0 ARROW exp | FUN LPAR formals RPAR ARROW exp
  ExpPtr fun_exp() {
    const Token kw = next();
    const Nest n(*this, kw.loc);
    ExpPtr e = node(ExpKind::Fun, kw.loc);
    e->name = "*fun*";
    if (peek().kind == Tok::LPar) {
      const Token open = next();
      e->pat = tuple_pat(formals(Tok::RPar));
      close(Tok::RPar, ")", open);
    } else {
      e->pat = tuple_pat({pat0()});
    }
    expect(Tok::Arrow, "'->' after the parameters of 'fun'");
    e->body = exp();
    return seal(std::move(e));
  }

  // TRY exp WITH exp
  ExpPtr try_exp() {
    const Token kw = next();
    const Nest n(*this, kw.loc);
    ExpPtr e = node(ExpKind::Try, kw.loc);
    e->args.push_back(exp());
    expect(Tok::With, "'with' after the expression of 'try'");
    e->args.push_back(exp());
    return seal(std::move(e));
  }

  // IF cond THEN exp ELSE exp
  ExpPtr if_exp() {
    const Token kw = next();
    const Nest n(*this, kw.loc);
    ExpPtr e = node(ExpKind::If, kw.loc);
    e->cond = cond();
    expect(Tok::Then, "'then' after the condition of 'if'");
    e->args.push_back(exp());
    expect(Tok::Else, "'else' (an 'if' in an expression has both branches)");
    e->args.push_back(exp());
    return seal(std::move(e));
  }

  // cond: exp EQUAL exp | exp SUBSET exp | exp IN exp | variant. A variant
  // starts, after any '(', with a string, 'variant' or 'not'; an exp never does.
  Cond cond() {
    Cond c;
    std::size_t k = 0;
    while (peek(k).kind == Tok::LPar && k <= static_cast<std::size_t>(kMaxNesting)) ++k;
    const Tok first = peek(k).kind;
    if (first == Tok::String || first == Tok::Variant || first == Tok::Lnot) {
      c.kind = Cond::Kind::Variant;
      c.variant = variant().cond;
      return c;
    }
    c.a = exp();
    const Token op = next();
    if (op.kind == Tok::Equal)
      c.kind = Cond::Kind::Eq;
    else if (op.kind == Tok::Subset)
      c.kind = Cond::Kind::Subset;
    else if (op.kind == Tok::In)
      c.kind = Cond::Kind::In;
    else
      fail(op.loc, fmt::format("expected '=', 'subset' or 'in' in the condition of 'if', "
                               "found {}",
                               describe(op)));
    c.b = exp();
    return c;
  }

  // variant: VARIANT STRING | STRING | LNOT variant | variant LAND variant
  //        | variant ALT variant | LPAR variant RPAR, with %left ALT below
  // %left LAND below %nonassoc LNOT. Chains are loops; the height is bounded.
  struct Variant {
    VariantCond cond;
    int height = 1;
  };
  Variant variant() {
    Variant v = variant_and();
    while (peek().kind == Tok::Alt) {
      const SourceLoc at = next().loc;
      v = variant_join(VariantCond::Kind::Or, std::move(v), variant_and(), at);
    }
    return v;
  }
  Variant variant_and() {
    Variant v = variant_not();
    while (peek().kind == Tok::Land) {
      const SourceLoc at = next().loc;
      v = variant_join(VariantCond::Kind::And, std::move(v), variant_not(), at);
    }
    return v;
  }
  Variant variant_join(VariantCond::Kind k, Variant a, Variant b, SourceLoc at) {
    count(at);
    Variant v;
    v.cond.kind = k;
    v.height = std::max(a.height, b.height) + 1;
    if (v.height > kMaxNesting)
      fail(at, fmt::format("variant condition nested deeper than {}", kMaxNesting));
    v.cond.a = std::make_unique<VariantCond>(std::move(a.cond));
    v.cond.b = std::make_unique<VariantCond>(std::move(b.cond));
    return v;
  }
  Variant variant_not() {
    const Token t = next();
    count(t.loc);
    Variant v;
    if (t.kind == Tok::String) {
      v.cond.name = t.text;
    } else if (t.kind == Tok::Variant) {
      v.cond.name = expect(Tok::String, "a quoted variant name after 'variant'").text;
    } else if (t.kind == Tok::Lnot) {
      const Nest n(*this, t.loc);
      Variant a = variant_not();
      v.cond.kind = VariantCond::Kind::Not;
      v.cond.a = std::make_unique<VariantCond>(std::move(a.cond));
      v.height = a.height + 1;
    } else if (t.kind == Tok::LPar) {
      const Nest n(*this, t.loc);
      v = variant();
      close(Tok::RPar, ")", t);
    } else {
      fail(t.loc,
           fmt::format("expected a variant (a quoted name, 'not' or '('), found {}", describe(t)));
    }
    return v;
  }

  // MATCH exp WITH altopt clause_list END | MATCH exp WITH altopt set_clauses END.
  // Set clauses start with `{` or with `pat0 ++` / `pat0 |`.
  ExpPtr match_exp() {
    const Token kw = next();
    const Nest n(*this, kw.loc);
    ExpPtr e = node(ExpKind::Match, kw.loc);
    e->args.push_back(exp());
    expect(Tok::With, "'with' after the matched expression");
    accept(Tok::Alt);
    const Tok first = peek().kind, second = peek(1).kind;
    const bool on_set = first == Tok::LAcc || ((first == Tok::Var || first == Tok::Underscore) &&
                                               (second == Tok::PlusPlus || second == Tok::Union));
    if (on_set)
      set_clauses(*e);
    else
      tag_clauses(*e);
    close(Tok::End, "end", kw);
    return seal(std::move(e));
  }

  // clause_list: TAG ARROW exp (ALT ...)* [ALT] | UNDERSCORE ARROW exp (last)
  void tag_clauses(Exp& e) {
    for (;;) {
      if (accept(Tok::Underscore)) {
        expect(Tok::Arrow, "'->' after '_'");
        e.deflt = exp();
        return;
      }
      const Token tag = expect(Tok::TagName, "a clause ('tag -> e) or '_ -> e'");
      count(tag.loc);
      expect(Tok::Arrow, "'->' after the tag");
      e.clauses.push_back(Clause{tag.text, exp()});
      if (!accept(Tok::Alt)) return;
    }
  }

  // set_clauses: empty_clause ALT element_clause | element_clause ALT empty_clause
  void set_clauses(Exp& e) {
    e.kind = ExpKind::MatchSet;
    if (peek().kind == Tok::LAcc) {
      e.body = empty_clause();
      expect(Tok::Alt, "'||' and the clause of a non-empty set");
      e.elt = element_clause();
    } else {
      e.elt = element_clause();
      expect(Tok::Alt, "'||' and the clause of the empty set ('{} -> e')");
      e.body = empty_clause();
    }
  }

  // empty_clause: LACC RACC ARROW exp
  ExpPtr empty_clause() {
    expect(Tok::LAcc, "'{}'");
    expect(Tok::RAcc, "'}' ('{}' is the empty set)");
    expect(Tok::Arrow, "'->' after '{}'");
    return exp();
  }

  // element_clause: pat0 PLUSPLUS pat0 ARROW exp (EltRem)
  //               | pat0 UNION pat0 PLUSPLUS pat0 ARROW exp (PreEltPost)
  SetClause element_clause() {
    SetClause c;
    c.p1 = pat0();
    if (accept(Tok::Union)) {
      c.pre_elt_post = true;
      c.p2 = pat0();
      expect(Tok::PlusPlus, "'++' in 'pre | x ++ post'");
      c.p3 = pat0();
    } else {
      expect(Tok::PlusPlus, "'++' in 'x ++ rest'");
      c.p2 = pat0();
    }
    expect(Tok::Arrow, "'->' after the set pattern");
    c.exp = exp();
    return c;
  }

  // baseortuple: base | tupleargs (base COMMA base (COMMA base)*)
  ExpPtr base_or_tuple() {
    const SourceLoc at = peek().loc;
    ExpPtr b = base(0);
    if (peek().kind != Tok::Comma) return b;
    std::vector<ExpPtr> xs;
    xs.push_back(std::move(b));
    while (accept(Tok::Comma)) xs.push_back(base(0));
    return op2(Op2::Tuple, std::move(xs), at);
  }

  // args: (nothing, before `closer`) | base (COMMA base)*
  std::vector<ExpPtr> args(Tok closer) {
    std::vector<ExpPtr> out;
    if (peek().kind == closer) return out;
    do out.push_back(base(0));
    while (accept(Tok::Comma));
    return out;
  }

  // ---- base: the operators, by precedence climbing ---------------------------------
  // A base whose operators bind tighter than `pending` (the level of the
  // operator whose right operand it is, 0 for none). An operator of level L
  // is shifted when L > pending and ends this base when L < pending; at
  // L == pending a %nonassoc level is yacc's syntax error, else the caller's
  // loop takes it (left: DIFF; right: the chains).
  ExpPtr base(int pending) {
    const SourceLoc start = peek().loc;
    ExpPtr left = operand();
    for (;;) {
      const Tok k = peek().kind;
      const int l = level(k);
      if (l == 0 || l < pending) return left;
      if (l == pending) {
        if (l == kPrefixLevel) nonassoc(peek());
        return left;
      }
      left = shift(std::move(left), start);
    }
  }

  [[noreturn]] void nonassoc(const Token& t) {
    fail(t.loc, fmt::format("'{}' cannot follow '~e' or 'S * T' here (herd7's grammar makes "
                            "'*', '+', '?' and '~' non-associative): add parentheses",
                            t.text));
  }

  // The operator at the lookahead applied to `left` (base ... rules).
  ExpPtr shift(ExpPtr left, SourceLoc start) {
    const Token op = next();
    switch (op.kind) {
      case Tok::Hat:  // base HAT INV
        expect(Tok::Inv, "'-1' after '^'");
        return op1(Op1::Inv, std::move(left), start);
      case Tok::Inv:  // `r -1`: not herd7's (no rule), but libdir/uniproc-normw-cat.cat has it
        return op1(Op1::Inv, std::move(left), start);
      case Tok::Plus: return op1(Op1::Plus, std::move(left), start);
      case Tok::Opt: return op1(Op1::Opt, std::move(left), start);
      case Tok::Star: return star(std::move(left), start);
      case Tok::Diff: {  // base DIFF base, %left
        std::vector<ExpPtr> xs;
        xs.push_back(std::move(left));
        xs.push_back(base(level(Tok::Diff)));
        return op2(Op2::Diff, std::move(xs), start);
      }
      default: return chain(op.kind, std::move(left), start);
    }
  }

  // base STAR base | base STAR: after `*`, a token that starts a base is
  // shifted (cartesian product); `~` there is a %nonassoc conflict (an
  // error); anything else reduces `base STAR` (the closure).
  ExpPtr star(ExpPtr left, SourceLoc start) {
    if (peek().kind == Tok::Comp) nonassoc(peek());
    if (!starts_arg(peek().kind)) return op1(Op1::Star, std::move(left), start);
    std::vector<ExpPtr> xs;
    xs.push_back(std::move(left));
    xs.push_back(base(kPrefixLevel));
    return op2(Op2::Cartesian, std::move(xs), start);
  }

  // A %right chain `a op b op c` (the first `op` already read): UNION, SEMI
  // and INTER make one n-ary node, flattening operands of the same operator
  // (do_op); PLUSPLUS nests to the right (`a ++ (b ++ s)`).
  ExpPtr chain(Tok k, ExpPtr left, SourceLoc start) {
    std::vector<std::pair<SourceLoc, ExpPtr>> xs;
    xs.emplace_back(start, std::move(left));
    do {
      const SourceLoc at = peek().loc;
      xs.emplace_back(at, base(level(k)));
    } while (accept(k));
    if (k == Tok::PlusPlus) {
      ExpPtr e = std::move(xs.back().second);
      for (std::size_t i = xs.size() - 1; i-- > 0;) {
        std::vector<ExpPtr> two;
        two.push_back(std::move(xs[i].second));
        two.push_back(std::move(e));
        e = op2(Op2::Add, std::move(two), xs[i].first);
      }
      return e;
    }
    const Op2 op = k == Tok::Union ? Op2::Union : k == Tok::Semi ? Op2::Seq : Op2::Inter;
    std::vector<ExpPtr> flat;
    for (auto& [at, x] : xs) {
      if (x->kind == ExpKind::Op && x->op2 == op) {
        for (ExpPtr& a : x->args) flat.push_back(std::move(a));
      } else {
        flat.push_back(std::move(x));
      }
    }
    return op2(op, std::move(flat), start);
  }

  // COMP base (at the level of COMP) | simple | exp0
  ExpPtr operand() {
    const Token& t = peek();
    if (t.kind == Tok::Comp) {
      const SourceLoc at = next().loc;
      const Nest n(*this, at);
      return op1(Op1::Comp, base(kPrefixLevel), at);
    }
    if (t.kind == Tok::Var) return application();
    if (starts_simple(t.kind)) return simple();
    fail(t.loc, fmt::format("expected an expression, found {}", describe(t)));
  }

  // exp0: VAR | exp0 arg, with arg: VAR | simple (application, to the left).
  ExpPtr application() {
    const Token f = next();
    ExpPtr e = var(f);
    while (starts_arg(peek().kind)) {
      ExpPtr a = peek().kind == Tok::Var ? var(next()) : simple();
      ExpPtr app = node(ExpKind::App, f.loc);
      app->args.push_back(std::move(e));
      app->args.push_back(std::move(a));
      e = seal(std::move(app));
    }
    return e;
  }

  ExpPtr var(const Token& t) {
    ExpPtr e = node(ExpKind::Var, t.loc);
    e->name = t.text;
    return seal(std::move(e));
  }

  // simple: EMPTY | TAG | LACC args RACC | UNDERSCORE | LPAR RPAR
  //       | LPAR exp RPAR | BEGIN exp END | LBRAC exp RBRAC
  ExpPtr simple() {
    const Token t = next();
    switch (t.kind) {
      case Tok::Empty: return seal(node(ExpKind::Empty, t.loc));
      case Tok::Underscore: return seal(node(ExpKind::Universe, t.loc));
      case Tok::TagName: {
        ExpPtr e = node(ExpKind::Tag, t.loc);
        e->name = t.text;
        return seal(std::move(e));
      }
      default: break;
    }
    const Nest n(*this, t.loc);
    switch (t.kind) {
      case Tok::LAcc: {
        ExpPtr e = node(ExpKind::ExplicitSet, t.loc);
        e->args = args(Tok::RAcc);
        close(Tok::RAcc, "}", t);
        return seal(std::move(e));
      }
      case Tok::LPar: return parenthesized(t);
      case Tok::Begin: {
        ExpPtr e = exp();
        close(Tok::End, "end", t);
        return e;
      }
      case Tok::LBrac: {
        ExpPtr e = exp();
        close(Tok::RBrac, "]", t);
        return op1(Op1::ToId, std::move(e), t.loc);
      }
      default: fail(t.loc, fmt::format("expected an expression, found {}", describe(t)));
    }
  }

  // LPAR RPAR (the empty tuple) | LPAR exp RPAR
  ExpPtr parenthesized(const Token& open) {
    if (accept(Tok::RPar)) return op2(Op2::Tuple, {}, open.loc);
    ExpPtr e = exp();
    close(Tok::RPar, ")", open);
    return e;
  }

  std::shared_ptr<const std::string> file_;
  Lexer lex_;
  std::deque<Token> ahead_;
  std::size_t& nodes_;  // shared by the files of one model
  int depth_ = 0;
  std::unordered_map<const Exp*, int> heights_;  // of the sealed nodes
};

Program parse_counted(std::string_view text, const std::string& file, std::size_t& nodes) {
  return Parser(text, file, nodes).program();
}

// ---- includes ----------------------------------------------------------------------

class Loader {
 public:
  explicit Loader(const IncludeReader& reader) : reader_(reader) {}

  std::shared_ptr<const Program> load(std::string_view text, const std::string& name,
                                      const std::string& key) {
    done_.insert(key);
    active_.emplace_back(key, name);
    auto p = std::make_shared<Program>(parse_counted(text, name, nodes_));
    p->key = key;
    resolve(p->body, name);
    active_.pop_back();
    return p;
  }

 private:
  // Every `include` of a body, in file order (nested bodies too: herd7's
  // grammar allows an include wherever an instruction goes).
  void resolve(std::vector<Ins>& body, const std::string& from) {
    for (Ins& i : body) {
      if (i.kind == InsKind::Include) include(i, from);
      resolve(i.body, from);
      resolve(i.else_body, from);
      for (auto& clause : i.clauses) resolve(clause.second, from);
      if (i.deflt) resolve(*i.deflt, from);
    }
  }

  [[noreturn]] static void fail(const Ins& i, std::string m) {
    throw InputError(Diagnostic{*i.at.file, i.at.loc, std::move(m)});
  }

  // A file is read once: an include of a file already read is `repeat`; an
  // include of a file being read (directly or through others) is a cycle.
  void include(Ins& i, const std::string& from) {
    if (active_.size() > static_cast<std::size_t>(kMaxNesting))
      fail(i, fmt::format("includes nested deeper than {}", kMaxNesting));
    std::optional<IncludedFile> got;
    try {
      if (reader_) got = reader_(i.name, from);
    } catch (const InputError& e) {
      fail(i, fmt::format("cannot read included file \"{}\": {}", printable(i.name),
                          e.diagnostic().message));
    }
    if (!got) fail(i, fmt::format("cannot read included file \"{}\"", printable(i.name)));
    for (const auto& [key, name] : active_)
      if (key == got->key) fail(i, fmt::format("include cycle: {}", cycle_from(key)));
    if (done_.count(got->key)) {
      i.repeat = true;
      return;
    }
    if (done_.size() > kMaxIncludes)
      fail(i, fmt::format("more than {} files included by one model", kMaxIncludes));
    i.included = load(got->text, got->name, got->key);
  }

  // "a.cat includes b.cat, which includes a.cat": the active files from `key` on.
  std::string cycle_from(const std::string& key) const {
    const auto same = [&](const auto& a) { return a.first == key; };
    auto it = std::find_if(active_.begin(), active_.end(), same);
    const std::string first = printable(it->second);
    std::string out = first;
    for (++it; it != active_.end(); ++it) out += " includes " + printable(it->second) + ", which";
    return out + " includes " + first;
  }

  const IncludeReader& reader_;
  std::vector<std::pair<std::string, std::string>> active_;  // files being read: key, name
  std::set<std::string> done_;                               // keys of the files read
  std::size_t nodes_ = 0;
};

}  // namespace

Program parse_program(std::string_view text, const std::string& file) {
  std::size_t nodes = 0;
  Program p = parse_counted(text, file, nodes);
  p.key = file;
  return p;
}

std::shared_ptr<const Program> load_program(std::string_view text, const std::string& file,
                                            const IncludeReader& include,
                                            const std::string& top_key) {
  return Loader(include).load(text, file, top_key.empty() ? file : top_key);
}

}  // namespace redscope::cat::herd
