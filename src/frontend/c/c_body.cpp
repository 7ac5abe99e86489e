// A C or CUDA C++ thread body read as source (c_source.hpp, docs/litmus-format.md
// "C tests (herd7's C format)"): a hand-written parser of the statements and
// expressions a litmus body uses, lowered as it reads into the PTX IR's
// instructions. Each memory access and fence carries Instruction::source (the
// order and scope as written) and the PTX reading of them in `sem` and
// `scope`; locals are registers of their own names; control flow becomes
// labels and branches, so loops are bounded by the expansion as PTX loops are.
//
// The instructions are made here rather than written as PTX cells for
// parse_ptx_instruction: the PTX cell syntax reads any identifier that is not
// `rN` or `%name` as a location in 64-bit moves and address arithmetic, while C
// locals may have any name, and no PTX spelling gives a load or store the
// order seq_cst. Each instruction gets the fields the PTX reader gives its
// PTX counterpart (ld/st/atom/fence/setp/bra/mov/add...).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/c/c_syntax.hpp"
#include "redscope/frontend/c/c_source.hpp"
#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope::csrc {

namespace {

using detail::CTok;
using detail::CToken;

// Nesting of statements and expressions (every walk recurses), and the
// instructions one body may become.
constexpr int kMaxDepth = 500;
constexpr std::size_t kMaxInstructions = 100'000;

// ---- values and types ----------------------------------------------------------

std::uint64_t mask_to(std::uint64_t v, unsigned w) {
  return w >= 64 ? v : v & ((std::uint64_t{1} << w) - 1);
}

// An integer of type t as 64 bits: truncated to t's width, then sign- or
// zero-extended by t's signedness (C's conversion to t, C11 6.3.1.3).
std::uint64_t canonical(std::uint64_t v, DataType t) {
  const unsigned w = width_of(t);
  v = mask_to(v, w);
  if (is_signed(t) && w < 64 && (v >> (w - 1)) & 1) v |= ~std::uint64_t{0} << w;
  return v;
}

// C's integer promotions (C11 6.3.1.1): short and bool become int.
DataType promote(DataType t) {
  if (t == DataType::S16 || t == DataType::U16 || t == DataType::Pred) return DataType::S32;
  return t;
}

// The usual arithmetic conversions of two promoted integer types (C11
// 6.3.1.8) with LP64 widths: 64 bits beat 32, and at one width unsigned wins.
DataType common_int(DataType a, DataType b) {
  a = promote(a);
  b = promote(b);
  if (a == DataType::U64 || b == DataType::U64) return DataType::U64;
  if (a == DataType::S64 || b == DataType::S64) return DataType::S64;
  if (a == DataType::U32 || b == DataType::U32) return DataType::U32;
  return DataType::S32;
}

std::string_view c_name(DataType t) {
  switch (t) {
    case DataType::S16: return "short";
    case DataType::U16: return "unsigned short";
    case DataType::S32: return "int";
    case DataType::U32: return "unsigned int";
    case DataType::S64: return "long long";
    case DataType::U64: return "unsigned long long";
    case DataType::F32: return "float";
    case DataType::F64: return "double";
    case DataType::Pred: return "bool";
    default: return to_string(t);
  }
}

std::optional<CmpOp> comparison(std::string_view op) {
  if (op == "==") return CmpOp::Eq;
  if (op == "!=") return CmpOp::Ne;
  if (op == "<") return CmpOp::Lt;
  if (op == "<=") return CmpOp::Le;
  if (op == ">") return CmpOp::Gt;
  if (op == ">=") return CmpOp::Ge;
  return std::nullopt;
}

CmpOp negated(CmpOp c) {
  switch (c) {
    case CmpOp::Eq: return CmpOp::Ne;
    case CmpOp::Ne: return CmpOp::Eq;
    case CmpOp::Lt: return CmpOp::Ge;
    case CmpOp::Le: return CmpOp::Gt;
    case CmpOp::Gt: return CmpOp::Le;
    case CmpOp::Ge: return CmpOp::Lt;
  }
  return c;
}

// What C's memory orders allow where (C11 7.17.7.1-7.17.7.4, C++
// [atomics.ref.ops]): no acquire part on a store, no release part on a
// load or on a failed compare-exchange.
bool has_release_part(MemOrder o) { return o == MemOrder::Release || o == MemOrder::AcqRel; }
bool has_acquire_part(MemOrder o) {
  return o == MemOrder::Acquire || o == MemOrder::Consume || o == MemOrder::AcqRel;
}

// The order a compare-exchange's read has on its own: the failure order
// C++ derives from a single order ([atomics.types.operations]: acq_rel ->
// acquire, release -> relaxed, else the order itself).
MemOrder read_part(MemOrder o) {
  if (o == MemOrder::AcqRel) return MemOrder::Acquire;
  if (o == MemOrder::Release) return MemOrder::Relaxed;
  return o;
}

std::string order_name(MemOrder o) { return std::string(to_string(o)); }

// ---- expressions ----------------------------------------------------------------

enum class AOp : std::uint8_t { Load, Store, Rmw, Cas, AddUnless, Fence, Barrier };

// An expression as parsed, its names resolved (to a local's register, a
// memory location of the context, a memory order ...).
struct Expr {
  enum class K : std::uint8_t {
    Int,        // integer constant: bits (canonical at type), type
    Float,      // floating constant: name = its digits, type F32/F64
    Local,      // a local: name = its register, type (Pred for bool)
    AddrLocal,  // &local (herd7's C: a compare-exchange's expected)
    Mem,        // a location accessed plainly: mem, vol
    Ptr,        // a location's address (`x` of a pointer parameter, `&s`): mem
    Order,      // a memory_order constant
    Scope,      // a thread_scope constant
    Unary,      // name: - + ~ !
    Binary,     // name: * / % + - << >> < <= > >= == != & ^ | && ||
    Cast,       // (type) e: type; name "void" for (void) e, "bool" for a bool
    Cond,       // c ? a : b
    Atomic,     // an atomic operation, fence or barrier: aop, rmw, mem, orders, scope
    Assign,     // lhs op rhs; name: = += -= ... ++ --
  };
  K k = K::Int;
  SourceLoc at;
  std::string name;
  std::uint64_t bits = 0;
  DataType type = DataType::S32;
  std::size_t mem = 0;
  bool vol = false;
  AOp aop = AOp::Load;
  RmwOp rmw = RmwOp::Add;
  MemOrder order = MemOrder::SeqCst;
  MemOrder fail = MemOrder::SeqCst;
  ThreadScope scope = ThreadScope::System;
  int depth = 1;
  std::vector<Expr> kids;
};

// A value as lowered: a constant, or a register of a type. A Pred register
// (a truth value, `neg` when it holds the opposite) is read only as a guard
// or by setp; where a number is wanted it becomes 0 or 1 (as_int), as PTX
// has no conversion from .pred (nvcc writes selp).
struct Val {
  enum class K : std::uint8_t { None, Int, Float, Reg };
  K k = K::None;
  std::uint64_t bits = 0;  // Int: canonical at type
  std::string text;        // Float: digits; Reg: the register
  DataType type = DataType::S32;
  bool neg = false;  // Pred: the value is !text
};

Val int_val(std::uint64_t v, DataType t) { return Val{Val::K::Int, canonical(v, t), {}, t, false}; }
Val reg_val(std::string r, DataType t) { return Val{Val::K::Reg, 0, std::move(r), t, false}; }
bool is_pred(const Val& v) { return v.k == Val::K::Reg && v.type == DataType::Pred; }

struct Dest {
  std::string reg;
  DataType type;
};

struct LocalVar {
  std::string reg;
  DataType type = DataType::S32;  // Pred for bool
};

struct Loop {
  std::string cont, end;
};

class Lowerer {
 public:
  Lowerer(std::string_view body, SourceLoc at, const std::string& file, const BodyContext& ctx,
          ThreadCode& thread)
      : body_(body),
        file_(file),
        ctx_(ctx),
        th_(thread),
        toks_(detail::lex_c(body, file, at)) {
    for (const Instruction& in : th_.code)
      if (in.dst) registers_.insert(in.dst->name);
  }

  void run() {
    scopes_.emplace_back();
    while (!at_end()) statement();
    scopes_.pop_back();
    for (const auto& [reg, at] : reads_)
      if (!written_.count(reg))
        fail(at, fmt::format("'{}' is read but never assigned (C: the value of an uninitialised "
                             "local is indeterminate)",
                             reg));
  }

 private:
  // ---- tokens --------------------------------------------------------------------
  const CToken& cur() const { return toks_[pos_]; }
  const CToken& look(std::size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at_end() const { return cur().kind == CTok::End; }
  bool is_punct(const CToken& t, std::string_view p) const {
    return t.kind == CTok::Punct && t.text == p;
  }
  bool at_punct(std::string_view p) const { return is_punct(cur(), p); }
  bool at_ident(std::string_view w) const { return cur().kind == CTok::Ident && cur().text == w; }
  const CToken& next() {
    const CToken& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  std::string describe(const CToken& t) const {
    return t.kind == CTok::End ? "the end of the body" : fmt::format("'{}'", printable(t.text));
  }
  void expect(std::string_view p, std::string_view what) {
    if (!at_punct(p))
      fail(cur().at, fmt::format("expected '{}' {}, found {}", p, what, describe(cur())));
    next();
  }
  [[noreturn]] void fail(SourceLoc at, const std::string& msg) const {
    throw InputError(Diagnostic{file_, at, msg});
  }

  // The source text from token `from` to the token before the cursor, its
  // blank space collapsed (what reports show of a statement).
  std::string text_from(std::size_t from) const {
    const std::size_t to = pos_ > from ? pos_ - 1 : from;
    const std::string_view raw = body_.substr(toks_[from].begin, toks_[to].end - toks_[from].begin);
    std::string out;
    bool blank = false;
    for (char c : raw) {
      if (is_space(c)) {
        blank = !out.empty();
        continue;
      }
      if (blank) out += ' ';
      blank = false;
      out += c;
    }
    if (out.size() > 160) out = out.substr(0, 157) + "...";
    return out;
  }

  struct DepthGuard {
    explicit DepthGuard(Lowerer& l, SourceLoc at) : l_(l) {
      if (++l_.depth_ > kMaxDepth)
        l_.fail(at,
                fmt::format("statements and expressions nested deeper than {} levels", kMaxDepth));
    }
    ~DepthGuard() { --l_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Lowerer& l_;
  };

  // ---- names -----------------------------------------------------------------------
  const LocalVar* local(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end()) return &f->second;
    return nullptr;
  }
  std::optional<std::size_t> memory(const std::string& name) const {
    for (std::size_t i = 0; i < ctx_.memory.size(); ++i)
      if (ctx_.memory[i].name == name) return i;
    return std::nullopt;
  }
  // Whether the body's library is CUDA C++'s (libcu++ and the CUDA built-ins).
  bool libcu() const { return ctx_.library == Library::Libcuxx; }
  const MemoryName& mem(const Expr& e) const { return ctx_.memory[e.mem]; }

  // A local's register: its own name, unless a local of that name is
  // visible here (the new one shadows it): then a fresh `name#N`, which no C
  // name can be, so the outer local keeps its name for the condition. Locals
  // of one name in sibling blocks share the register (herd7's registers are
  // per thread, with no blocks at all).
  std::string register_for(const std::string& name) {
    if (!local(name)) return name;
    for (int n = 2;; ++n) {
      std::string r = fmt::format("{}#{}", name, n);
      if (!registers_.count(r)) {
        registers_.insert(r);
        return r;
      }
    }
  }

  // ---- statements --------------------------------------------------------------
  void statement() {
    const DepthGuard guard(*this, cur().at);
    const CToken& t = cur();
    if (at_punct("{")) {
      next();
      scopes_.emplace_back();
      while (!at_punct("}")) {
        if (at_end()) fail(t.at, "this block has no closing '}'");
        statement();
      }
      next();
      scopes_.pop_back();
      return;
    }
    if (at_punct(";")) {
      next();
      return;
    }
    if (t.kind == CTok::Ident) {
      if (t.text == "if") return if_statement();
      if (t.text == "while") return while_statement();
      if (t.text == "do") return do_statement();
      if (t.text == "for") return for_statement();
      if (t.text == "break" || t.text == "continue") return jump_statement();
      if (t.text == "return" || t.text == "goto" || t.text == "switch" || t.text == "case" ||
          t.text == "default" || t.text == "asm" || t.text == "__asm__" || t.text == "static" ||
          t.text == "extern" || t.text == "typedef" || t.text == "struct" || t.text == "union" ||
          t.text == "enum" || t.text == "sizeof")
        fail(t.at, fmt::format("'{}' is not read by the source semantics", t.text));
      if (declaration_start()) return declaration();
    }
    const std::size_t from = pos_;
    Expr e = assignment_expr();
    expect(";", "at the end of the statement");
    text_ = text_from(from);
    effect(e);
  }

  bool declaration_start() const {
    const CToken& t = cur();
    if (t.kind != CTok::Ident || local(t.text) || memory(t.text)) return false;
    return detail::is_type_word(t.text) || t.text == "auto";
  }

  // `T a = e, b;`: each declarator with an initialiser is an assignment; one
  // without sets nothing (herd7's CSem: DeclReg).
  void declaration() {
    const std::size_t from = pos_;
    const CToken& first = cur();
    if (first.text == "auto")
      fail(first.at, "'auto' is not read: declare the local with its type (int, unsigned ...)");
    std::vector<std::string> words;
    std::vector<SourceLoc> where;
    while (cur().kind == CTok::Ident && detail::is_type_word(cur().text)) {
      where.push_back(cur().at);
      words.push_back(next().text);
    }
    const detail::TypeResult tr = detail::c_type(words);
    if (!tr.type) fail(where[std::min(tr.bad, where.size() - 1)], tr.why);
    const detail::CType ty = *tr.type;
    if (ty.is_atomic)
      fail(first.at,
           "an atomic local is not read: locals are registers (atomics act on locations)");
    for (;;) {
      if (at_punct("*"))
        fail(cur().at, "pointer locals are not read: name the location's parameter (*x)");
      if (cur().kind != CTok::Ident)
        fail(cur().at, fmt::format("expected the name of the local, found {}", describe(cur())));
      const CToken& name = next();
      if (detail::is_type_word(name.text) || name.text == "auto")
        fail(name.at, fmt::format("'{}' is not read here: one type per declaration", name.text));
      if (memory(name.text))
        fail(name.at, fmt::format("'{}' names a location of the test: a local needs another name",
                                  name.text));
      if (scopes_.back().count(name.text))
        fail(name.at, fmt::format("'{}' is declared twice in one block", name.text));
      if (at_punct("[")) fail(cur().at, "arrays are not read by the source semantics");
      LocalVar v{register_for(name.text), ty.type};
      registers_.insert(v.reg);
      // The local is visible from its declarator on (C11 6.2.1p7), so an
      // initialiser naming it reads the new local, which holds no value yet.
      scopes_.back()[name.text] = v;
      std::optional<Expr> init;
      if (at_punct("=")) {
        next();
        init = conditional_expr();
      }
      if (init) {
        Expr lhs;
        lhs.k = Expr::K::Local;
        lhs.at = name.at;
        lhs.name = v.reg;
        lhs.type = v.type;
        text_ = text_upto_end_of_declaration(from);
        write_local(lhs, eval(*init, Dest{v.reg, v.type}), init->at);
      }
      if (at_punct(",")) {
        next();
        continue;
      }
      expect(";", "at the end of the declaration");
      return;
    }
  }

  // The declaration's text up to its `;` (for reports), the cursor unmoved.
  std::string text_upto_end_of_declaration(std::size_t from) {
    const std::size_t save = pos_;
    while (!at_end() && !at_punct(";")) next();
    if (at_punct(";")) next();
    std::string s = text_from(from);
    pos_ = save;
    return s;
  }

  void if_statement() {
    const std::size_t from = pos_;
    next();
    expect("(", "after 'if'");
    Expr c = expression();
    expect(")", "after the condition of 'if'");
    const std::string head = text_from(from);
    const SourceLoc at = toks_[from].at;
    text_ = head;
    const std::string l_else = new_label(), l_end = new_label();
    branch_if(c, false, l_else);
    scoped_statement();
    text_ = head;
    if (at_ident("else")) {
      emit_goto(l_end, cur().at);
      place(l_else, cur().at);
      next();
      scoped_statement();
      text_ = head;
      place(l_end, at);
    } else {
      place(l_else, at);
    }
  }

  // A statement in a scope of its own (C11 6.8.4p3, 6.8.5p5).
  void scoped_statement() {
    scopes_.emplace_back();
    statement();
    scopes_.pop_back();
  }

  void while_statement() {
    const std::size_t from = pos_;
    const SourceLoc at = cur().at;
    next();
    expect("(", "after 'while'");
    Expr c = expression();
    expect(")", "after the condition of 'while'");
    const std::string head = text_from(from);
    const std::string l_top = new_label(), l_end = new_label();
    text_ = head;
    place(l_top, at);
    branch_if(c, false, l_end);
    loops_.push_back(Loop{l_top, l_end});
    scoped_statement();
    loops_.pop_back();
    text_ = head;
    emit_goto(l_top, at);
    place(l_end, at);
  }

  void do_statement() {
    const SourceLoc at = cur().at;
    next();
    const std::string l_top = new_label(), l_cont = new_label(), l_end = new_label();
    text_ = "do";
    place(l_top, at);
    loops_.push_back(Loop{l_cont, l_end});
    scoped_statement();
    loops_.pop_back();
    const std::size_t from = pos_;
    if (!at_ident("while"))
      fail(cur().at,
           fmt::format("expected 'while' after the body of 'do', found {}", describe(cur())));
    next();
    expect("(", "after 'while'");
    Expr c = expression();
    expect(")", "after the condition of 'do ... while'");
    expect(";", "after 'do ... while (...)'");
    text_ = text_from(from);
    place(l_cont, at);
    branch_if(c, true, l_top);
    place(l_end, at);
  }

  void for_statement() {
    const std::size_t from = pos_;
    const SourceLoc at = cur().at;
    next();
    expect("(", "after 'for'");
    scopes_.emplace_back();
    if (declaration_start()) {
      declaration();  // reads its ';'
    } else if (!at_punct(";")) {
      const std::size_t init_from = pos_;
      Expr init = assignment_expr();
      text_ = text_from(init_from);
      effect(init);
      expect(";", "after the initialisation of 'for'");
    } else {
      next();
    }
    std::optional<Expr> c, step;
    if (!at_punct(";")) c = expression();
    expect(";", "after the condition of 'for'");
    if (!at_punct(")")) step = assignment_expr();
    expect(")", "after the clauses of 'for'");
    const std::string head = text_from(from);
    const std::string l_top = new_label(), l_cont = new_label(), l_end = new_label();
    text_ = head;
    place(l_top, at);
    if (c) branch_if(*c, false, l_end);
    loops_.push_back(Loop{l_cont, l_end});
    scoped_statement();
    loops_.pop_back();
    text_ = head;
    place(l_cont, at);
    if (step) effect(*step);
    text_ = head;
    emit_goto(l_top, at);
    place(l_end, at);
    scopes_.pop_back();
  }

  void jump_statement() {
    const std::size_t from = pos_;
    const CToken& t = next();
    expect(";", fmt::format("after '{}'", t.text));
    if (loops_.empty()) fail(t.at, fmt::format("'{}' outside a loop", t.text));
    text_ = text_from(from);
    emit_goto(t.text == "break" ? loops_.back().end : loops_.back().cont, t.at);
  }

  // ---- expressions: parsing ----------------------------------------------------
  // C's grammar (C11 6.5) for the operators the IR computes; names are
  // resolved as they are read, so the expression means what it means here.

  Expr expression() {
    Expr e = conditional_expr();
    if (at_punct(",")) fail(cur().at, "the comma operator is not read by the source semantics");
    if (assignment_op(cur()))
      fail(cur().at, fmt::format("'{}' inside an expression is not read: write the assignment "
                                 "as a statement",
                                 cur().text));
    return e;
  }

  static bool assignment_op(const CToken& t) {
    static constexpr std::string_view kOps[] = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    return t.kind == CTok::Punct &&
           std::find(std::begin(kOps), std::end(kOps), t.text) != std::end(kOps);
  }

  // An expression statement's expression: an assignment, or any expression.
  Expr assignment_expr() {
    Expr lhs = conditional_expr();
    if (!assignment_op(cur())) {
      if (at_punct(",")) fail(cur().at, "the comma operator is not read by the source semantics");
      return lhs;
    }
    const CToken& op = next();
    check_lvalue(lhs, op);
    Expr rhs = conditional_expr();
    if (assignment_op(cur()))
      fail(cur().at, "chained assignments are not read: write one assignment per statement");
    Expr e;
    e.k = Expr::K::Assign;
    e.at = op.at;
    e.name = op.text;
    e.depth = std::max(lhs.depth, rhs.depth) + 1;
    e.kids.push_back(std::move(lhs));
    e.kids.push_back(std::move(rhs));
    return e;
  }

  void check_lvalue(const Expr& lhs, const CToken& op) const {
    if (lhs.k == Expr::K::Local || lhs.k == Expr::K::Mem) return;
    if (lhs.k == Expr::K::Ptr)
      fail(lhs.at, fmt::format("'{}' is a pointer parameter: write to the location as *{}",
                               mem(lhs).name, mem(lhs).name));
    fail(op.at, fmt::format("the left of '{}' is not a local or a location", op.text));
  }

  Expr conditional_expr() {
    Expr c = binary_expr(0);
    if (!at_punct("?")) return c;
    const CToken& q = next();
    Expr a = expression();
    expect(":", "in '?:'");
    Expr b = conditional_expr();
    Expr e;
    e.k = Expr::K::Cond;
    e.at = q.at;
    e.depth = std::max({c.depth, a.depth, b.depth}) + 1;
    check_depth(e);
    e.kids.push_back(std::move(c));
    e.kids.push_back(std::move(a));
    e.kids.push_back(std::move(b));
    return e;
  }

  // Binary operators by C's precedence, loosest first.
  static int precedence(const CToken& t) {
    if (t.kind != CTok::Punct) return -1;
    static constexpr std::pair<std::string_view, int> kLevels[] = {
        {"||", 0}, {"&&", 1}, {"|", 2},  {"^", 3}, {"&", 4},  {"==", 5},
        {"!=", 5}, {"<", 6},  {"<=", 6}, {">", 6}, {">=", 6}, {"<<", 7},
        {">>", 7}, {"+", 8},  {"-", 8},  {"*", 9}, {"/", 9},  {"%", 9}};
    for (const auto& [op, level] : kLevels)
      if (t.text == op) return level;
    return -1;
  }

  Expr binary_expr(int min_level) {
    const DepthGuard guard(*this, cur().at);
    Expr lhs = unary_expr();
    for (;;) {
      const int level = precedence(cur());
      if (level < min_level) return lhs;
      const CToken& op = next();
      Expr rhs = binary_expr(level + 1);
      Expr e;
      e.k = Expr::K::Binary;
      e.at = op.at;
      e.name = op.text;
      e.depth = std::max(lhs.depth, rhs.depth) + 1;
      check_depth(e);
      e.kids.push_back(std::move(lhs));
      e.kids.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  void check_depth(const Expr& e) const {
    if (e.depth > kMaxDepth)
      fail(e.at, fmt::format("an expression nested deeper than {} levels", kMaxDepth));
  }

  bool cast_ahead() const {
    if (!at_punct("(")) return false;
    const CToken& t = look(1);
    return t.kind == CTok::Ident && !local(t.text) && !memory(t.text) &&
           detail::is_type_word(t.text);
  }

  // `(words *...)`: the type words and the number of '*'.
  std::pair<detail::CType, int> cast_type(SourceLoc* void_at) {
    expect("(", "to open the cast");
    std::vector<std::string> words;
    std::vector<SourceLoc> where;
    while (cur().kind == CTok::Ident && detail::is_type_word(cur().text)) {
      where.push_back(cur().at);
      words.push_back(next().text);
    }
    int stars = 0;
    while (at_punct("*") || at_ident("const") || at_ident("volatile")) {
      if (at_punct("*")) ++stars;
      next();
    }
    expect(")", "to close the cast");
    if (words.size() == 1 && words[0] == "void" && stars == 0) {
      *void_at = where[0];
      return {detail::CType{}, -1};
    }
    const detail::TypeResult tr = detail::c_type(words);
    if (!tr.type) fail(where[std::min(tr.bad, where.size() - 1)], tr.why);
    return {*tr.type, stars};
  }

  Expr unary_expr() {
    const DepthGuard guard(*this, cur().at);
    const CToken& t = cur();
    if (cast_ahead()) {
      SourceLoc void_at{};
      const auto [ty, stars] = cast_type(&void_at);
      if (stars > 0)
        fail(t.at, "pointer casts are not read: only *(volatile T *)x reads a location");
      Expr kid = unary_expr();
      Expr e;
      e.k = Expr::K::Cast;
      e.at = t.at;
      e.name = stars < 0 ? "void" : ty.boolean ? "bool" : "";
      e.type = ty.type;
      e.depth = kid.depth + 1;
      e.kids.push_back(std::move(kid));
      return e;
    }
    if (t.kind == CTok::Punct) {
      if (t.text == "*") return deref();
      if (t.text == "&") return address_of();
      if (t.text == "++" || t.text == "--") {
        next();
        Expr lhs = unary_expr();
        check_lvalue(lhs, t);
        return inc_dec(std::move(lhs), t);
      }
      if (t.text == "-" || t.text == "+" || t.text == "~" || t.text == "!") {
        next();
        Expr kid = unary_expr();
        if (t.text == "-" && kid.k == Expr::K::Int) {  // a negative constant, folded
          kid.bits = canonical(0 - kid.bits, kid.type);
          kid.at = t.at;
          return kid;
        }
        if (t.text == "-" && kid.k == Expr::K::Float) {
          kid.name = kid.name.starts_with("-") ? kid.name.substr(1) : "-" + kid.name;
          kid.at = t.at;
          return kid;
        }
        Expr e;
        e.k = Expr::K::Unary;
        e.at = t.at;
        e.name = t.text;
        e.depth = kid.depth + 1;
        e.kids.push_back(std::move(kid));
        return e;
      }
    }
    if (t.kind == CTok::Ident && t.text == "sizeof")
      fail(t.at, "'sizeof' is not read by the source semantics");
    return postfix_expr();
  }

  Expr inc_dec(Expr lhs, const CToken& op) {
    Expr e;
    e.k = Expr::K::Assign;
    e.at = op.at;
    e.name = op.text;
    e.depth = lhs.depth + 1;
    e.kids.push_back(std::move(lhs));
    return e;
  }

  // `*x` (x a pointer parameter), `*(x)`, or `*(volatile T *)x`.
  Expr deref() {
    const CToken& star = next();
    bool vol = false;
    std::optional<detail::CType> cast;
    SourceLoc cast_at = cur().at;
    if (cast_ahead()) {
      SourceLoc void_at{};
      const auto [ty, stars] = cast_type(&void_at);
      if (stars != 1)
        fail(cast_at, "only a cast to a pointer, *(volatile T *)x, is read before a location");
      cast = ty;
      vol = ty.is_volatile;
    }
    bool paren = false;
    if (!cast && at_punct("(") && look(1).kind == CTok::Ident && is_punct(look(2), ")")) {
      next();
      paren = true;
    }
    const CToken& name = cur();
    const std::optional<std::size_t> m =
        name.kind == CTok::Ident ? memory(name.text) : std::nullopt;
    if (!m || !ctx_.memory[*m].by_pointer || local(name.text)) {
      if (name.kind == CTok::Ident && local(name.text))
        fail(name.at,
             fmt::format("'{}' is a local, not a pointer: pointer locals are not read", name.text));
      if (name.kind == CTok::Ident && m)
        fail(name.at, fmt::format("'{}' is a variable, not a pointer: write {} itself", name.text,
                                  name.text));
      fail(star.at,
           "only '*x', x a pointer parameter naming a location, is read (no pointer "
           "arithmetic, no pointers in locals)");
    }
    next();
    if (paren) expect(")", "after the pointer");
    Expr e;
    e.k = Expr::K::Mem;
    e.at = star.at;
    e.mem = *m;
    e.vol = vol;
    e.type = ctx_.memory[*m].type;
    if (cast && cast->type != e.type)
      fail(cast_at, fmt::format("the cast reads '{}', a {} location, as {}: casts that change a "
                                "location's type are not read",
                                ctx_.memory[*m].name, c_name(e.type), c_name(cast->type)));
    if (at_punct("[") || at_punct("->") || at_punct("."))
      fail(cur().at, fmt::format("'{}' after a location is not read", cur().text));
    if (!paren && !cast && (at_punct("++") || at_punct("--")))
      fail(cur().at, fmt::format("*{0}{1} is *({0}{1}) in C, pointer arithmetic, which is not "
                                 "read: write (*{0}){1}",
                                 ctx_.memory[*m].name, cur().text));
    return e;
  }

  // `&s` (s a __shared__ variable) or, in herd7's C, `&r` (a local) as a
  // compare-exchange's expected.
  Expr address_of() {
    const CToken& amp = next();
    const CToken& name = cur();
    if (name.kind != CTok::Ident) fail(amp.at, "'&' is read only before a variable's name");
    Expr e;
    e.at = amp.at;
    if (const LocalVar* v = local(name.text)) {
      e.k = Expr::K::AddrLocal;
      e.name = v->reg;
      e.type = v->type;
    } else if (const auto m = memory(name.text); m && !ctx_.memory[*m].by_pointer) {
      e.k = Expr::K::Ptr;
      e.mem = *m;
      e.type = ctx_.memory[*m].type;
    } else if (m) {
      fail(name.at, fmt::format("'&{}' is the address of the parameter itself, which is not "
                                "read: pass {} (the location's address)",
                                name.text, name.text));
    } else {
      fail(name.at, fmt::format("unknown name '{}'", printable(name.text)));
    }
    next();
    return e;
  }

  // A name with its `::` qualifiers, as written.
  std::string qualified_name() {
    std::string q = next().text;
    while (at_punct("::") && look(1).kind == CTok::Ident) {
      next();
      q += "::" + next().text;
    }
    return q;
  }

  Expr postfix_expr() {
    const CToken& t = cur();
    Expr e = primary_expr();
    if (at_punct("++") || at_punct("--")) {
      const CToken& op = next();
      check_lvalue(e, op);
      return inc_dec(std::move(e), op);
    }
    if (at_punct("[")) fail(cur().at, "arrays and subscripts are not read by the source semantics");
    if (at_punct("->") || at_punct("."))
      fail(cur().at, fmt::format("'{}' is not read here: members are read only as "
                                 "cuda::atomic_ref<T, S>(*x).op(...)",
                                 cur().text));
    if (at_punct("(") && e.k != Expr::K::Atomic)
      fail(t.at,
           "only the atomic operations, fences and barriers of the source semantics are "
           "called");
    return e;
  }

  Expr primary_expr() {
    const CToken& t = cur();
    if (at_punct("(")) {
      next();
      Expr e = expression();
      expect(")", "to close the parenthesis");
      return e;
    }
    if (t.kind == CTok::Number) return number();
    if (t.kind != CTok::Ident)
      fail(t.at, fmt::format("expected an expression, found {}", describe(t)));
    if (is_punct(look(1), "{") && t.text.starts_with("__")) {
      if (t.text != "__atomic_add_unless" || libcu()) fail(t.at, linux_primitive(t.text));
      return add_unless();
    }
    const std::string q = qualified_name();
    if (q == "cuda::atomic_ref" || q == "cuda::std::atomic_ref") {
      if (!libcu()) fail(t.at, fmt::format("'{}' is CUDA C++, not C", q));
      return atomic_ref(q, t.at);
    }
    if (at_punct("(")) return call(q, t.at);
    if (auto o = order_constant(q)) {
      Expr e;
      e.k = Expr::K::Order;
      e.at = t.at;
      e.order = *o;
      e.name = q;
      return e;
    }
    if (auto s = scope_constant(q)) {
      Expr e;
      e.k = Expr::K::Scope;
      e.at = t.at;
      e.scope = *s;
      e.name = q;
      return e;
    }
    if (q == "true" || q == "false") {
      Expr e;
      e.k = Expr::K::Int;
      e.at = t.at;
      e.bits = q == "true" ? 1 : 0;
      return e;
    }
    if (const LocalVar* v = local(q)) {
      Expr e;
      e.k = Expr::K::Local;
      e.at = t.at;
      e.name = v->reg;
      e.type = v->type;
      return e;
    }
    if (const auto m = memory(q)) {
      Expr e;
      e.k = ctx_.memory[*m].by_pointer ? Expr::K::Ptr : Expr::K::Mem;
      e.at = t.at;
      e.mem = *m;
      e.type = ctx_.memory[*m].type;
      return e;
    }
    if (q.find("memory_order") != std::string::npos || q.find("thread_scope") != std::string::npos)
      fail(t.at, fmt::format("'{}' is not a memory order or thread scope of {}", printable(q),
                             libcu() ? "CUDA C++ (cuda::std::memory_order_..., "
                                       "cuda::thread_scope_...)"
                                     : "C11 (memory_order_...)"));
    fail(t.at, fmt::format("unknown name '{}'", printable(q)));
  }

  std::optional<MemOrder> order_constant(const std::string& q) const {
    std::string n = q;
    if (libcu()) {
      for (std::string_view p : {"cuda::std::", "cuda::"})
        if (n.starts_with(p)) {
          n = n.substr(p.size());
          break;
        }
      if (n == q) return std::nullopt;  // CUDA C++ names its orders in a namespace
      if (n.starts_with("memory_order::")) n = "memory_order_" + n.substr(14);
    }
    return detail::memory_order_named(n);
  }

  std::optional<ThreadScope> scope_constant(const std::string& q) const {
    if (!libcu() || !q.starts_with("cuda::")) return std::nullopt;
    return detail::thread_scope_named(q.substr(6));
  }

  // herd7's `__atomic_add_unless{annotations}(x, a, u)` (lib/CParser.mly;
  // herd/CSem.ml AtomicAddUnless): adds a to *x unless *x is u, its value
  // whether it added. The annotations are herd7's Linux-kernel ones, not
  // C11 orders (herd7 reads the accesses as `once`, which C11's sets count as
  // non-atomic, and puts `mb` fences, which no C11 order names, around a
  // success): they are read and left aside.
  Expr add_unless() {
    const CToken& name = next();
    expect("{", "after __atomic_add_unless");
    while (!at_punct("}")) {
      if (cur().kind != CTok::Ident && !at_punct(",") && !at_punct("-"))
        fail(cur().at, fmt::format("expected herd7's annotations, such as {{mb}}, found {}",
                                   describe(cur())));
      next();
    }
    next();
    std::vector<Expr> args = call_args();
    const std::string fn = "__atomic_add_unless";
    arity(args, 3, 3, fn, name.at);
    Expr e = atomic(AOp::AddUnless, name.at, fn);
    e.mem = pointer_arg(args[0], fn);
    e.type = ctx_.memory[e.mem].type;
    e.order = MemOrder::NonAtomic;
    if (is_float(e.type))
      fail(args[0].at, fmt::format("'{}' on a {} location is not read", fn, c_name(e.type)));
    e.kids.push_back(std::move(args[1]));
    e.kids.push_back(std::move(args[2]));
    return e;
  }

  // herd7's other Linux-kernel primitives (`__load{once}(x)`, ...): not C11.
  std::string linux_primitive(const std::string& name) const {
    return fmt::format(
        "herd7's Linux-kernel primitive '{}{{...}}' is not read by the source "
        "semantics (C11's <stdatomic.h> and CUDA C++ only)",
        printable(name));
  }

  Expr number() {
    const CToken& t = next();
    const std::string& s = t.text;
    const bool hex = s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const bool floating =
        !hex && (s.find('.') != std::string::npos || s.find_first_of("eE") != std::string::npos);
    if (hex && s.find_first_of(".pP") != std::string::npos)
      fail(t.at, fmt::format("hexadecimal floating constant '{}' is not read", printable(s)));
    Expr e;
    e.at = t.at;
    if (floating) {
      std::string digits = s;
      DataType ty = DataType::F64;
      if (!digits.empty() && (digits.back() == 'f' || digits.back() == 'F')) {
        ty = DataType::F32;
        digits.pop_back();
      } else if (!digits.empty() && (digits.back() == 'l' || digits.back() == 'L')) {
        fail(t.at, "long double is not read by the source semantics");
      }
      if (!literal_bits(digits, ty) ||
          digits.find_first_not_of("0123456789.eE+-") != std::string::npos)
        fail(t.at, fmt::format("'{}' is not a {} constant", printable(s), c_name(ty)));
      e.k = Expr::K::Float;
      e.name = digits;
      e.type = ty;
      return e;
    }
    std::size_t end = s.size();
    while (end > 0 &&
           (s[end - 1] == 'u' || s[end - 1] == 'U' || s[end - 1] == 'l' || s[end - 1] == 'L'))
      --end;
    const std::string digits = s.substr(0, end), suffix = s.substr(end);
    std::string sfx;
    for (char c : suffix) sfx += static_cast<char>(c == 'U' ? 'u' : c);
    const bool uns = sfx.find('u') != std::string::npos;
    std::string ls = sfx;
    std::erase(ls, 'u');
    if (sfx.size() > 3 || std::count(sfx.begin(), sfx.end(), 'u') > 1 ||
        !(ls.empty() || ls == "l" || ls == "L" || ls == "ll" || ls == "LL") ||
        (sfx.size() == 3 && sfx[1] == 'u'))
      fail(t.at, fmt::format("'{}' is not an integer constant", printable(s)));
    if (!hex && digits.size() > 1 && digits[0] == '0')
      fail(t.at, fmt::format("octal constant '{}' is not read: write it in decimal or "
                             "hexadecimal",
                             printable(s)));
    const std::uint64_t v =
        static_cast<std::uint64_t>(redscope::detail::integer_at(digits, false, file_, t.at));
    // C11 6.4.4.1p5: the first type of the list that holds the value.
    const bool long_sfx = !ls.empty();
    const bool fits_s32 = v <= 0x7fffffffULL, fits_u32 = v <= 0xffffffffULL;
    const bool fits_s64 = v <= 0x7fffffffffffffffULL;
    DataType ty;
    if (uns) {
      ty = !long_sfx && fits_u32 ? DataType::U32 : DataType::U64;
    } else if (!long_sfx && fits_s32) {
      ty = DataType::S32;
    } else if (!long_sfx && hex && fits_u32) {
      ty = DataType::U32;
    } else if (fits_s64) {
      ty = DataType::S64;
    } else if (hex) {
      ty = DataType::U64;
    } else {
      fail(t.at, fmt::format("'{}' is too large for long long: write it with a 'u' suffix",
                             printable(s)));
    }
    e.k = Expr::K::Int;
    e.bits = canonical(v, ty);
    e.type = ty;
    return e;
  }

  std::vector<Expr> call_args() {
    expect("(", "to open the arguments");
    std::vector<Expr> args;
    if (at_punct(")")) {
      next();
      return args;
    }
    for (;;) {
      args.push_back(conditional_expr());
      if (at_punct(",")) {
        next();
        continue;
      }
      expect(")", "after the arguments");
      return args;
    }
  }

  // ---- atomic operations: resolved as parsed ----------------------------------

  Expr atomic(AOp op, SourceLoc at, std::string name) {
    Expr e;
    e.k = Expr::K::Atomic;
    e.aop = op;
    e.at = at;
    e.name = std::move(name);
    return e;
  }

  void arity(const std::vector<Expr>& args, std::size_t lo, std::size_t hi, const std::string& fn,
             SourceLoc at) const {
    if (args.size() < lo || args.size() > hi)
      fail(at, lo == hi
                   ? fmt::format("'{}' takes {} argument(s), not {}", fn, lo, args.size())
                   : fmt::format("'{}' takes {} to {} arguments, not {}", fn, lo, hi, args.size()));
  }

  // The location an atomic operation acts on: `x` (a pointer parameter) or
  // `&s` (a __shared__ variable).
  std::size_t pointer_arg(const Expr& a, const std::string& fn) const {
    if (a.k == Expr::K::Ptr) return a.mem;
    if (a.k == Expr::K::Mem && mem(a).by_pointer)
      fail(a.at, fmt::format("'{}' takes the location's address: write {}, not *{}", fn,
                             mem(a).name, mem(a).name));
    if (a.k == Expr::K::Mem)
      fail(a.at, fmt::format("'{}' takes the location's address: write &{}", fn, mem(a).name));
    fail(a.at, fmt::format("'{}' takes a pointer parameter naming a location", fn));
  }

  MemOrder order_arg(const Expr& a, const std::string& fn) const {
    if (a.k != Expr::K::Order)
      fail(a.at, fmt::format("'{}' takes a memory order constant here ({})", fn,
                             libcu() ? "cuda::std::memory_order_..." : "memory_order_..."));
    return a.order;
  }

  ThreadScope scope_arg(const Expr& a, const std::string& fn) const {
    if (a.k != Expr::K::Scope)
      fail(a.at,
           fmt::format("'{}' takes a thread scope constant here (cuda::thread_scope_...)", fn));
    return a.scope;
  }

  void check_load_order(MemOrder o, SourceLoc at) const {
    if (has_release_part(o))
      fail(at,
           fmt::format("a load cannot be {} (C11 7.17.7.2, C++ [atomics.ref.ops])", order_name(o)));
  }
  void check_store_order(MemOrder o, SourceLoc at) const {
    if (has_acquire_part(o))
      fail(at, fmt::format("a store cannot be {} (C11 7.17.7.1, C++ [atomics.ref.ops])",
                           order_name(o)));
  }

  // A compare-exchange carries one order: its read, when it fails, has the
  // read part of the success order. A failure order that differs from it is
  // refused rather than read as something else (docs: "C tests").
  void check_failure_order(MemOrder success, MemOrder failure, SourceLoc at) const {
    if (has_release_part(failure))
      fail(at, fmt::format("a compare-exchange's failure order cannot be {} (C11 7.17.7.4p2, "
                           "C++ [atomics.types.operations])",
                           order_name(failure)));
    if (failure != read_part(success))
      fail(at,
           fmt::format("a failure order ({}) other than the one {} implies ({}) is not read: "
                       "the IR gives a compare-exchange one order, which its read carries "
                       "whether it succeeds or fails",
                       order_name(failure), order_name(success), order_name(read_part(success))));
  }

  void rmw_type(RmwOp op, DataType t, const std::string& fn, SourceLoc at) const {
    if (is_float(t) && op != RmwOp::Add && op != RmwOp::Exch && op != RmwOp::Cas)
      fail(at, fmt::format("'{}' on a {} location is not read: the IR's floating-point "
                           "read-modify-writes are add and exchange",
                           fn, c_name(t)));
  }

  Expr call(const std::string& fn, SourceLoc at) {
    if (!known_function(fn)) unknown_function(fn, at);
    std::vector<Expr> args = call_args();
    return libcu() ? libcu_call(fn, at, std::move(args)) : c11_call(fn, at, std::move(args));
  }

  // C11's <stdatomic.h> as herd7 reads it (lib/CLexer.mll, lib/CParser.mly,
  // herd/libdir/c11.def: the forms without _explicit are seq_cst).
  Expr c11_call(const std::string& fn, SourceLoc at, std::vector<Expr> args) {
    std::string base = fn;
    const bool explicit_form = base.ends_with("_explicit");
    if (explicit_form) base = base.substr(0, base.size() - 9);
    static constexpr std::pair<std::string_view, RmwOp> kFetch[] = {
        {"atomic_fetch_add", RmwOp::Add}, {"atomic_fetch_sub", RmwOp::Sub},
        {"atomic_fetch_or", RmwOp::Or},   {"atomic_fetch_xor", RmwOp::Xor},
        {"atomic_fetch_and", RmwOp::And}, {"atomic_exchange", RmwOp::Exch}};
    const std::size_t k = explicit_form ? 1 : 0;
    if (base == "atomic_thread_fence" && explicit_form == false) {
      arity(args, 1, 1, fn, at);
      Expr e = atomic(AOp::Fence, at, fn);
      e.order = order_arg(args[0], fn);
      return e;
    }
    if (base == "atomic_load") {
      arity(args, 1 + k, 1 + k, fn, at);
      Expr e = atomic(AOp::Load, at, fn);
      e.mem = pointer_arg(args[0], fn);
      if (explicit_form) e.order = order_arg(args[1], fn);
      check_load_order(e.order, explicit_form ? args[1].at : at);
      e.type = ctx_.memory[e.mem].type;
      return e;
    }
    if (base == "atomic_store") {
      arity(args, 2 + k, 2 + k, fn, at);
      Expr e = atomic(AOp::Store, at, fn);
      e.mem = pointer_arg(args[0], fn);
      if (explicit_form) e.order = order_arg(args[2], fn);
      check_store_order(e.order, explicit_form ? args[2].at : at);
      e.type = ctx_.memory[e.mem].type;
      e.kids.push_back(std::move(args[1]));
      return e;
    }
    for (const auto& [name, op] : kFetch)
      if (base == name) {
        arity(args, 2 + k, 2 + k, fn, at);
        Expr e = atomic(AOp::Rmw, at, fn);
        e.rmw = op;
        e.mem = pointer_arg(args[0], fn);
        if (explicit_form) e.order = order_arg(args[2], fn);
        e.type = ctx_.memory[e.mem].type;
        rmw_type(op, e.type, fn, at);
        e.kids.push_back(std::move(args[1]));
        return e;
      }
    if (base == "atomic_compare_exchange_strong" || base == "atomic_compare_exchange_weak") {
      arity(args, 3 + 2 * k, 3 + 2 * k, fn, at);
      Expr e = atomic(AOp::Cas, at, fn);
      e.mem = pointer_arg(args[0], fn);
      e.type = ctx_.memory[e.mem].type;
      if (explicit_form) {
        e.order = order_arg(args[3], fn);
        e.fail = order_arg(args[4], fn);
        check_failure_order(e.order, e.fail, args[4].at);
      }
      expected_arg(args[1], e, fn);
      e.kids.push_back(std::move(args[1]));
      e.kids.push_back(std::move(args[2]));
      return e;
    }
    unknown_function(fn, at);
  }

  // The functions of the body's library (checked before the arguments, so
  // that another library's call is named as such).
  bool known_function(const std::string& fn) const {
    if (libcu()) {
      static constexpr std::string_view kLibcu[] = {"__syncthreads",
                                                    "__threadfence",
                                                    "__threadfence_block",
                                                    "__threadfence_system",
                                                    "cuda::atomic_thread_fence",
                                                    "cuda::std::atomic_thread_fence"};
      if (std::find(std::begin(kLibcu), std::end(kLibcu), fn) != std::end(kLibcu)) return true;
      std::string base = fn;
      for (std::string_view sfx : {"_block", "_system"})
        if (base.ends_with(sfx)) base = base.substr(0, base.size() - sfx.size());
      static constexpr std::string_view kAtomic[] = {
          "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
          "atomicDec", "atomicAnd", "atomicOr",   "atomicXor", "atomicCAS"};
      return std::find(std::begin(kAtomic), std::end(kAtomic), base) != std::end(kAtomic);
    }
    std::string base = fn;
    if (base.ends_with("_explicit")) base = base.substr(0, base.size() - 9);
    static constexpr std::string_view kC11[] = {"atomic_load",
                                                "atomic_store",
                                                "atomic_exchange",
                                                "atomic_fetch_add",
                                                "atomic_fetch_sub",
                                                "atomic_fetch_or",
                                                "atomic_fetch_xor",
                                                "atomic_fetch_and",
                                                "atomic_compare_exchange_strong",
                                                "atomic_compare_exchange_weak"};
    return fn == "atomic_thread_fence" ||
           std::find(std::begin(kC11), std::end(kC11), base) != std::end(kC11);
  }

  [[noreturn]] void unknown_function(const std::string& fn, SourceLoc at) const {
    if (fn == "atomic_init" || fn == "atomic_signal_fence" || fn.starts_with("atomic_flag") ||
        fn == "kill_dependency" || fn == "lock" || fn == "unlock" || fn == "mtx_lock" ||
        fn == "mtx_unlock" || fn == "spin_lock" || fn == "spin_unlock" || fn == "WCAS" ||
        fn == "SCAS" || fn == "__syncwarp" || fn.starts_with("__shfl") ||
        fn.starts_with("cooperative_groups"))
      fail(at, fmt::format("'{}' is not read by the source semantics", printable(fn)));
    if (libcu())
      fail(at, fmt::format("unknown function '{}' (the source semantics reads cuda::atomic_ref's "
                           "operations, atomicAdd and the other atomic functions, "
                           "__threadfence*, cuda::atomic_thread_fence and __syncthreads)",
                           printable(fn)));
    fail(at, fmt::format("unknown function '{}' (the source semantics reads C11's atomic_load, "
                         "atomic_store, atomic_exchange, atomic_fetch_{{add,sub,or,xor,and}}, "
                         "atomic_compare_exchange_{{strong,weak}} (and their _explicit forms) "
                         "and atomic_thread_fence)",
                         printable(fn)));
  }

  // A compare-exchange's expected: a pointer to a location (herd7's C),
  // `&r` of a local (C), or a local (CUDA C++'s reference).
  void expected_arg(const Expr& a, const Expr& op, const std::string& fn) const {
    DataType t;
    if (a.k == Expr::K::Ptr && !libcu()) {
      t = mem(a).type;
    } else if ((a.k == Expr::K::AddrLocal && !libcu()) || (a.k == Expr::K::Local && libcu())) {
      t = a.type;
    } else {
      fail(a.at, libcu() ? fmt::format("'{}' takes a local as its expected value", fn)
                         : fmt::format("'{}' takes a pointer to the expected value: a pointer "
                                       "parameter, or &r of a local r",
                                       fn));
    }
    if (t != op.type)
      fail(a.at, fmt::format("the expected value is a {}, the location a {}: they must have one "
                             "type",
                             c_name(t), c_name(op.type)));
  }

  // `cuda::atomic_ref<T, cuda::thread_scope_S>(*x).op(...)` and
  // `cuda::std::atomic_ref<T>(*x).op(...)` (system scope: libcu++'s
  // cuda::std::atomic_ref is cuda::atomic_ref<T, thread_scope_system>).
  Expr atomic_ref(const std::string& q, SourceLoc start) {
    expect("<", fmt::format("after '{}'", q));
    std::vector<std::string> words;
    std::vector<SourceLoc> where;
    const SourceLoc type_at = cur().at;
    while (cur().kind == CTok::Ident && detail::is_type_word(cur().text)) {
      where.push_back(cur().at);
      words.push_back(next().text);
    }
    if (words.empty())
      fail(cur().at, fmt::format("expected the type of {}<T>, found {}", q, describe(cur())));
    const detail::TypeResult tr = detail::c_type(words);
    if (!tr.type) fail(where[std::min(tr.bad, where.size() - 1)], tr.why);
    ThreadScope scope = ThreadScope::System;
    if (at_punct(",")) {
      next();
      const SourceLoc scope_at = cur().at;
      if (q != "cuda::atomic_ref")
        fail(scope_at, "cuda::std::atomic_ref<T> takes no scope: write cuda::atomic_ref<T, S>");
      if (cur().kind != CTok::Ident)
        fail(scope_at, fmt::format("expected cuda::thread_scope_..., found {}", describe(cur())));
      const std::string s = qualified_name();
      const auto sc = scope_constant(s);
      if (!sc)
        fail(scope_at, fmt::format("'{}' is not a thread scope (cuda::thread_scope_thread, "
                                   "_block, _cluster, _device, _system)",
                                   printable(s)));
      scope = *sc;
    }
    expect(">", fmt::format("to close {}<...>", q));
    if (!at_punct("("))
      fail(cur().at, fmt::format("expected '(' after the type {}<...>: named atomic_ref "
                                 "objects are not read, write {}<...>(*x).op(...)",
                                 q, q));
    next();
    const CToken& obj = cur();
    std::optional<std::size_t> m;
    if (at_punct("*") && look(1).kind == CTok::Ident) {
      m = memory(look(1).text);
      if (!m || !ctx_.memory[*m].by_pointer || local(look(1).text))
        fail(look(1).at, fmt::format("'{}' is not a pointer parameter naming a location",
                                     printable(look(1).text)));
      next();
    } else if (obj.kind == CTok::Ident) {
      m = memory(obj.text);
      if (!m || ctx_.memory[*m].by_pointer || local(obj.text))
        fail(obj.at,
             m && ctx_.memory[*m].by_pointer
                 ? fmt::format("{}<...> refers to the location itself: write *{}", q, obj.text)
                 : fmt::format("'{}' is not a location", printable(obj.text)));
    } else {
      fail(obj.at, fmt::format("{}<...> takes the location, *x or a __shared__ variable", q));
    }
    next();
    expect(")", fmt::format("after the object of {}<...>", q));
    if (tr.type->type != ctx_.memory[*m].type || tr.type->boolean)
      fail(type_at,
           fmt::format("{}<{}> of '{}', a {} location: the types must agree", q,
                       c_name(tr.type->type), ctx_.memory[*m].name, c_name(ctx_.memory[*m].type)));
    expect(".", fmt::format("after {}<...>(...)", q));
    if (cur().kind != CTok::Ident)
      fail(cur().at, fmt::format("expected an operation of atomic_ref, found {}", describe(cur())));
    const CToken& method = next();
    std::vector<Expr> args = call_args();
    Expr e = atomic_ref_op(method, *m, scope, std::move(args));
    e.at = start;  // the operation stands where its expression starts
    return e;
  }

  Expr atomic_ref_op(const CToken& method, std::size_t m, ThreadScope scope,
                     std::vector<Expr> args) {
    const std::string& fn = method.text;
    const SourceLoc at = method.at;
    Expr e;
    e.k = Expr::K::Atomic;
    e.at = at;
    e.name = fn;
    e.mem = m;
    e.scope = scope;
    e.type = ctx_.memory[m].type;
    // The order argument when given (C++: the default is seq_cst).
    auto order_at = [&](std::size_t i) {
      if (args.size() > i) e.order = order_arg(args[i], fn);
      return args.size() > i ? args[i].at : at;
    };
    static constexpr std::pair<std::string_view, RmwOp> kFetch[] = {
        {"exchange", RmwOp::Exch}, {"fetch_add", RmwOp::Add}, {"fetch_sub", RmwOp::Sub},
        {"fetch_and", RmwOp::And}, {"fetch_or", RmwOp::Or},   {"fetch_xor", RmwOp::Xor},
        {"fetch_min", RmwOp::Min}, {"fetch_max", RmwOp::Max}};
    if (fn == "load") {
      arity(args, 0, 1, fn, at);
      e.aop = AOp::Load;
      check_load_order(e.order, order_at(0));
      return e;
    }
    if (fn == "store") {
      arity(args, 1, 2, fn, at);
      e.aop = AOp::Store;
      check_store_order(e.order, order_at(1));
      e.kids.push_back(std::move(args[0]));
      return e;
    }
    for (const auto& [name, op] : kFetch)
      if (fn == name) {
        arity(args, 1, 2, fn, at);
        e.aop = AOp::Rmw;
        e.rmw = op;
        order_at(1);
        rmw_type(op, e.type, fn, at);
        e.kids.push_back(std::move(args[0]));
        return e;
      }
    if (fn == "compare_exchange_strong" || fn == "compare_exchange_weak") {
      arity(args, 2, 4, fn, at);
      e.aop = AOp::Cas;
      order_at(2);
      e.fail = read_part(e.order);
      if (args.size() == 4) {
        e.fail = order_arg(args[3], fn);
        check_failure_order(e.order, e.fail, args[3].at);
      }
      expected_arg(args[0], e, fn);
      e.kids.push_back(std::move(args[0]));
      e.kids.push_back(std::move(args[1]));
      return e;
    }
    fail(at, fmt::format("'{}' of cuda::atomic_ref is not read (load, store, exchange, "
                         "fetch_{{add,sub,and,or,xor,min,max}}, compare_exchange_{{strong,weak}})",
                         printable(fn)));
  }

  // CUDA C++'s functions (CUDA C++ Programming Guide, "Atomic Functions",
  // "Memory Fence Functions", "Synchronization Functions") and libcu++'s
  // fences.
  Expr libcu_call(const std::string& fn, SourceLoc at, std::vector<Expr> args) {
    if (fn == "__syncthreads") {
      arity(args, 0, 0, fn, at);
      return atomic(AOp::Barrier, at, fn);
    }
    if (fn == "__threadfence" || fn == "__threadfence_block" || fn == "__threadfence_system") {
      arity(args, 0, 0, fn, at);
      Expr e = atomic(AOp::Fence, at, fn);
      e.order = MemOrder::SeqCst;
      e.scope = fn == "__threadfence"         ? ThreadScope::Device
                : fn == "__threadfence_block" ? ThreadScope::Block
                                              : ThreadScope::System;
      return e;
    }
    if (fn == "cuda::atomic_thread_fence") {
      arity(args, 2, 2, fn, at);
      Expr e = atomic(AOp::Fence, at, fn);
      e.order = order_arg(args[0], fn);
      e.scope = scope_arg(args[1], fn);
      return e;
    }
    if (fn == "cuda::std::atomic_thread_fence") {
      arity(args, 1, 1, fn, at);
      Expr e = atomic(AOp::Fence, at, fn);
      e.order = order_arg(args[0], fn);
      e.scope = ThreadScope::System;
      return e;
    }
    // atomicOP{,_block,_system}: relaxed, device scope (_block: block,
    // _system: system). Their overloads (the guide's list) name the types.
    struct Fn {
      std::string_view name;
      RmwOp op;
      std::vector<DataType> types;
    };
    using enum DataType;
    static const Fn kFns[] = {
        {"atomicAdd", RmwOp::Add, {S32, U32, U64, F32, F64}},
        {"atomicSub", RmwOp::Sub, {S32, U32}},
        {"atomicExch", RmwOp::Exch, {S32, U32, U64, F32}},
        {"atomicMin", RmwOp::Min, {S32, U32, S64, U64}},
        {"atomicMax", RmwOp::Max, {S32, U32, S64, U64}},
        {"atomicInc", RmwOp::Inc, {U32}},
        {"atomicDec", RmwOp::Dec, {U32}},
        {"atomicAnd", RmwOp::And, {S32, U32, U64}},
        {"atomicOr", RmwOp::Or, {S32, U32, U64}},
        {"atomicXor", RmwOp::Xor, {S32, U32, U64}},
        {"atomicCAS", RmwOp::Cas, {S32, U32, U64}},
    };
    std::string base = fn;
    ThreadScope scope = ThreadScope::Device;
    if (base.ends_with("_block")) {
      base = base.substr(0, base.size() - 6);
      scope = ThreadScope::Block;
    } else if (base.ends_with("_system")) {
      base = base.substr(0, base.size() - 7);
      scope = ThreadScope::System;
    }
    for (const Fn& f : kFns)
      if (base == f.name) {
        const std::size_t n = f.op == RmwOp::Cas ? 3 : 2;
        arity(args, n, n, fn, at);
        Expr e = atomic(AOp::Rmw, at, fn);
        e.rmw = f.op;
        e.mem = pointer_arg(args[0], fn);
        e.type = ctx_.memory[e.mem].type;
        e.order = MemOrder::Relaxed;
        e.scope = scope;
        if (std::find(f.types.begin(), f.types.end(), e.type) == f.types.end())
          fail(args[0].at, fmt::format("'{}' has no overload for a {} location (CUDA C++ "
                                       "Programming Guide, Atomic Functions)",
                                       fn, c_name(e.type)));
        for (std::size_t i = 1; i < n; ++i) e.kids.push_back(std::move(args[i]));
        return e;
      }
    unknown_function(fn, at);
  }

  // ---- lowering ------------------------------------------------------------------

  std::string temp() { return fmt::format("%t{}", ++temps_); }
  std::string temp_pred() { return fmt::format("%p{}", ++temps_); }
  std::string new_label() { return fmt::format("$L{}", ++labels_); }

  Instruction base(InstrKind k, SourceLoc at) const {
    Instruction in;
    in.kind = k;
    in.loc = at;
    in.text = text_;
    return in;
  }

  void push(Instruction in) {
    if (th_.code.size() >= kMaxInstructions)
      fail(in.loc, fmt::format("the body becomes more than {} instructions", kMaxInstructions));
    if (in.dst) {
      written_.insert(in.dst->name);
      registers_.insert(in.dst->name);
    }
    th_.code.push_back(std::move(in));
  }

  static Operand reg_operand(const std::string& r, SourceLoc at) {
    return Operand{Operand::Kind::Reg, r, 0, 0, at, {}};
  }
  static Operand loc_operand(const std::string& loc, SourceLoc at) {
    return Operand{Operand::Kind::Loc, loc, 0, 0, at, {}};
  }

  // `v` as an operand of type t, converted as C converts (C11 6.3): integers
  // by truncation and sign or zero extension (which the IR does when it
  // reads a register at another width), constants at compile time;
  // conversions between floating and integer values, or float and double,
  // are refused.
  Operand operand(const Val& v, DataType t, SourceLoc at) const {
    if (v.k == Val::K::None) fail(at, "this has no value (it is a void operation)");
    if (v.k == Val::K::Reg) {
      if (is_pred(v))  // every caller converts a truth value first (as_int)
        throw std::logic_error("frontend/c: a predicate read as a number");
      const bool vf = is_float(v.type), tf = is_float(t);
      if (vf != tf || (vf && v.type != t))
        fail(at, fmt::format("the conversion of a {} value to {} is not read by the source "
                             "semantics",
                             c_name(v.type), c_name(t)));
      return reg_operand(v.text, at);
    }
    if (v.k == Val::K::Int) {
      if (is_float(t)) {
        const std::string text = is_signed(v.type)
                                     ? fmt::format("{}", static_cast<std::int64_t>(v.bits))
                                     : fmt::format("{}", v.bits);
        const auto bits = literal_bits(text, t);
        if (!bits) fail(at, fmt::format("{} is not a {} value", text, c_name(t)));
        return Operand{Operand::Kind::Imm, text, static_cast<std::int64_t>(*bits), 0, at, {}};
      }
      const std::uint64_t bits = mask_to(v.bits, width_of(t));
      const std::string text = is_signed(v.type)
                                   ? fmt::format("{}", static_cast<std::int64_t>(v.bits))
                                   : fmt::format("{}", v.bits);
      return Operand{Operand::Kind::Imm, text, static_cast<std::int64_t>(bits), 0, at, {}};
    }
    if (!is_float(t))
      fail(at, fmt::format("the conversion of the floating constant {} to {} is not read by the "
                           "source semantics",
                           v.text, c_name(t)));
    const auto bits = literal_bits(v.text, t);
    if (!bits) fail(at, fmt::format("{} is not a {} value", v.text, c_name(t)));
    return Operand{Operand::Kind::Imm, v.text, static_cast<std::int64_t>(*bits), 0, at, {}};
  }

  std::string dest_reg(const std::optional<Dest>& dest, DataType t) {
    return dest && dest->type == t ? dest->reg : (t == DataType::Pred ? temp_pred() : temp());
  }

  Val local_op(RmwOp op, DataType t, const Val& a, const Val* b, SourceLoc at,
               const std::optional<Dest>& dest = std::nullopt) {
    Instruction in = base(InstrKind::Local, at);
    in.op = op;
    in.type = t;
    in.srcs.push_back(operand(a, t, at));
    if (b) in.srcs.push_back(operand(*b, t, at));
    const std::string d = dest_reg(dest, t);
    in.dst = reg_operand(d, at);
    push(std::move(in));
    return reg_val(d, t);
  }

  Val mov(DataType t, const Val& a, SourceLoc at, const std::optional<Dest>& dest = std::nullopt) {
    return local_op(RmwOp::Mov, t, a, nullptr, at, dest);
  }

  // setp.cmp.t: a predicate.
  Val setp(CmpOp c, DataType t, const Val& a, const Val& b, SourceLoc at,
           const std::optional<Dest>& dest = std::nullopt) {
    Instruction in = base(InstrKind::Setp, at);
    in.cmp = c;
    in.type = t;
    in.srcs.push_back(operand(a, t, at));
    in.srcs.push_back(operand(b, t, at));
    const std::string d = dest_reg(dest, DataType::Pred);
    in.dst = reg_operand(d, at);
    push(std::move(in));
    return reg_val(d, DataType::Pred);
  }

  Val zero_of(DataType t) const {
    if (is_float(t)) return Val{Val::K::Float, 0, "0.0", t};
    return int_val(0, t);
  }

  void place(const std::string& label, SourceLoc at) {
    th_.labels[label] = th_.code.size();
    Instruction in = base(InstrKind::Label, at);
    in.label = label;
    push(std::move(in));
  }

  void emit_goto(const std::string& label, SourceLoc at, const Val* guard = nullptr,
                 bool negated = false) {
    Instruction in = base(InstrKind::Goto, at);
    in.label = label;
    if (guard) {
      in.guard = reg_operand(guard->text, at);
      in.guard_negated = negated != guard->neg;
    }
    push(std::move(in));
  }

  // A truth value as the int 0 or 1 (C11 6.5.8p6: a comparison's value is
  // an int): two guarded movs, nvcc's selp.
  Val as_int(const Val& v, SourceLoc at, const std::optional<Dest>& dest = std::nullopt) {
    if (!is_pred(v)) return v;
    const DataType t = dest ? dest->type : DataType::S32;
    const std::string r = dest ? dest->reg : temp();
    for (const bool holds : {true, false}) {
      Instruction in = base(InstrKind::Local, at);
      in.op = RmwOp::Mov;
      in.type = t;
      in.guard = reg_operand(v.text, at);
      in.guard_negated = !holds;
      in.srcs.push_back(operand(int_val(holds != v.neg ? 1 : 0, t), t, at));
      in.dst = reg_operand(r, at);
      push(std::move(in));
    }
    return reg_val(r, t);
  }

  // An expression's value as a number.
  Val ival(const Expr& e, const std::optional<Dest>& dest = std::nullopt) {
    return as_int(eval(e, dest), e.at);
  }

  void emit_branch(CmpOp c, DataType t, const Val& a, const Val& b, const std::string& label,
                   SourceLoc at) {
    Instruction in = base(InstrKind::Branch, at);
    in.cmp = c;
    in.type = t;
    in.srcs.push_back(operand(a, t, at));
    in.srcs.push_back(operand(b, t, at));
    in.label = label;
    push(std::move(in));
  }

  // The memory order and scope of a plain or volatile access. herd7 reads
  // volatile as plain (its C08 and C11 are racy: "Undef"); in CUDA C++ a
  // volatile access is ld.volatile / st.volatile, which the PTX ISA reads as
  // relaxed.sys (§8.3 "volatile"), and the CUDA C++ Programming Guide's
  // memory-fence example relies on it.
  SourceOrder plain_order(const Expr& m) const {
    if (libcu() && (m.vol || mem(m).is_volatile))
      return SourceOrder{MemOrder::Relaxed, ThreadScope::System};
    return SourceOrder{MemOrder::NonAtomic, ThreadScope::System};
  }

  void set_order(Instruction& in, SourceOrder so) const {
    in.source = so;
    in.sem = ptx_sem(so.order);
    in.scope = ptx_scope(so.scope);
    if (so.order == MemOrder::NonAtomic) in.scope = Scope::Sys;  // as PTX's weak accesses
  }

  Val emit_load(std::size_t m, SourceOrder so, SourceLoc at, const std::optional<Dest>& dest) {
    const MemoryName& mn = ctx_.memory[m];
    Instruction in = base(InstrKind::Load, at);
    in.type = mn.type;
    in.addr = loc_operand(mn.location, at);
    set_order(in, so);
    const std::string d = dest_reg(dest, mn.type);
    in.dst = reg_operand(d, at);
    push(std::move(in));
    return reg_val(d, mn.type);
  }

  void emit_store(std::size_t m, SourceOrder so, const Val& v, SourceLoc at,
                  const Val* guard = nullptr, bool negated = false) {
    const MemoryName& mn = ctx_.memory[m];
    Instruction in = base(InstrKind::Store, at);
    in.type = mn.type;
    in.addr = loc_operand(mn.location, at);
    in.srcs.push_back(operand(v, mn.type, at));
    set_order(in, so);
    if (guard) {
      in.guard = reg_operand(guard->text, at);
      in.guard_negated = negated != guard->neg;
    }
    push(std::move(in));
  }

  // ---- expressions: lowering -----------------------------------------------------
  // Operands are read left to right, each read of memory a load of its own
  // into a fresh register, in program order: C leaves the operands of one
  // operator unsequenced (C11 6.5p3), and herd7's CSem makes their events
  // unordered (`>>|`); one order is chosen and written down (docs).

  // Whether evaluating `e` reads memory or calls anything (so that `&&` and
  // `||` must not evaluate their right operand unconditionally).
  static bool pure(const Expr& e) {
    if (e.k == Expr::K::Mem || e.k == Expr::K::Atomic || e.k == Expr::K::Assign) return false;
    return std::all_of(e.kids.begin(), e.kids.end(), [](const Expr& k) { return pure(k); });
  }

  Val eval(const Expr& e, const std::optional<Dest>& dest = std::nullopt) {
    switch (e.k) {
      case Expr::K::Int: return int_val(e.bits, e.type);
      case Expr::K::Float: return Val{Val::K::Float, 0, e.name, e.type};
      case Expr::K::Local:
        if (!written_.count(e.name)) reads_.emplace(e.name, e.at);
        return reg_val(e.name, e.type);
      case Expr::K::Mem: return emit_load(e.mem, plain_order(e), e.at, dest);
      case Expr::K::Ptr:
        fail(e.at, fmt::format("'{0}' is a pointer: its value (an address) is not read; write "
                               "*{0} for the location's value",
                               mem(e).name));
      case Expr::K::AddrLocal:
        fail(e.at, "'&' of a local is read only as a compare-exchange's expected");
      case Expr::K::Order:
      case Expr::K::Scope:
        fail(e.at, fmt::format("'{}' is read only as an argument of an atomic operation", e.name));
      case Expr::K::Unary: return unary(e, dest);
      case Expr::K::Binary: return binary(e, dest);
      case Expr::K::Cast: return cast(e, dest);
      case Expr::K::Cond: return conditional(e, dest);
      case Expr::K::Atomic: {
        Val v = atomic_op(e, dest);
        if (v.k == Val::K::None) fail(e.at, fmt::format("'{}' has no value to read", e.name));
        return v;
      }
      case Expr::K::Assign:
        fail(e.at,
             fmt::format("'{}' inside an expression is not read: write it as a statement", e.name));
    }
    return {};
  }

  static bool float_val(const Val& v) { return v.k == Val::K::Float || is_float(v.type); }

  void no_float(const Val& v, const Expr& e) const {
    if (float_val(v))
      fail(e.at, fmt::format("floating-point arithmetic ('{}') is not read by the source "
                             "semantics: the IR computes no floating-point arithmetic in "
                             "registers",
                             e.name));
  }

  Val unary(const Expr& e, const std::optional<Dest>& dest) {
    if (e.name == "!") return negate(truth(eval(e.kids[0]), e.at), e.at);
    const Val a = ival(e.kids[0]);
    no_float(a, e);
    const DataType t = promote(a.type);
    if (e.name == "+") return a.k == Val::K::Int ? int_val(a.bits, t) : a;
    if (a.k == Val::K::Int)  // ~c, folded (-c was folded as read)
      return int_val(e.name == "~" ? ~a.bits : 0 - a.bits, t);
    if (e.name == "-") {
      const Val zero = int_val(0, t);
      return local_op(RmwOp::Sub, t, zero, &a, e.at, dest);
    }
    const Val ones = int_val(~std::uint64_t{0}, t);  // ~a = a ^ all ones
    return local_op(RmwOp::Xor, t, a, &ones, e.at, dest);
  }

  // A predicate (or a constant 0/1) that holds when `v` is non-zero (C's
  // truth, C11 6.8.4.1): a float NaN is true, so a float is `!(v == 0)`.
  Val truth(const Val& v, SourceLoc at) {
    switch (v.k) {
      case Val::K::Int: return int_val(v.bits != 0 ? 1 : 0, DataType::S32);
      case Val::K::Float: {
        const auto bits = literal_bits(v.text, v.type);
        const std::uint64_t mag = bits ? mask_to(*bits, width_of(v.type) - 1) : 1;
        return int_val(mag != 0 ? 1 : 0, DataType::S32);
      }
      case Val::K::Reg:
        if (v.type == DataType::Pred) return v;
        if (is_float(v.type)) return negate(setp(CmpOp::Eq, v.type, v, zero_of(v.type), at), at);
        return setp(CmpOp::Ne, v.type, v, zero_of(v.type), at);
      case Val::K::None: fail(at, "this has no value (it is a void operation)");
    }
    return v;
  }

  // !p of a predicate or a constant 0/1.
  Val negate(const Val& p, SourceLoc) {
    if (p.k == Val::K::Int) return int_val(p.bits != 0 ? 0 : 1, DataType::S32);
    Val n = p;
    n.neg = !p.neg;
    return n;
  }

  DataType common_of(const Val& a, const Val& b, const Expr& e) const {
    const bool fa = float_val(a), fb = float_val(b);
    if (fa || fb) {
      // Constants take the other side's type; two float types must agree.
      if (fa && fb && a.k != Val::K::Float && b.k != Val::K::Float && a.type != b.type)
        fail(e.at, fmt::format("'{}' between a float and a double is not read by the source "
                               "semantics",
                               e.name));
      if (fa && !fb && b.k != Val::K::Int)
        fail(e.at, fmt::format("'{}' between a floating and an integer value is not read by the "
                               "source semantics",
                               e.name));
      if (fb && !fa && a.k != Val::K::Int)
        fail(e.at, fmt::format("'{}' between an integer and a floating value is not read by the "
                               "source semantics",
                               e.name));
      if (fa && a.k != Val::K::Float) return a.type;
      if (fb && b.k != Val::K::Float) return b.type;
      return fa ? a.type : b.type;
    }
    return common_int(a.type, b.type);
  }

  Val binary(const Expr& e, const std::optional<Dest>& dest) {
    const std::string& op = e.name;
    if (op == "&&" || op == "||") return logical(e, dest);
    if (const auto c = comparison(op)) {
      const Val a = ival(e.kids[0]), b = ival(e.kids[1]);
      return compare(*c, a, b, e);
    }
    const Val a = ival(e.kids[0]), b = ival(e.kids[1]);
    no_float(a, e);
    no_float(b, e);
    if (op == "<<" || op == ">>") return shift(e, a, b, dest);
    const DataType t = common_int(a.type, b.type);
    if (op == "%") {  // a - (a / b) * b: C's remainder (C11 6.5.5p6)
      const Val q = local_op(RmwOp::Div, t, a, &b, e.at);
      const Val p = local_op(RmwOp::Mul, t, q, &b, e.at);
      return local_op(RmwOp::Sub, t, a, &p, e.at, dest);
    }
    const RmwOp r = op == "+"   ? RmwOp::Add
                    : op == "-" ? RmwOp::Sub
                    : op == "*" ? RmwOp::Mul
                    : op == "/" ? RmwOp::Div
                    : op == "&" ? RmwOp::And
                    : op == "|" ? RmwOp::Or
                                : RmwOp::Xor;
    return local_op(r, t, a, &b, e.at, dest);
  }

  // By a constant: a << k is a * 2^k, and, for an unsigned a, a >> k is
  // a / 2^k. A signed >> rounds unlike a division, and a shift by a value
  // computed at run time has no IR operation: both refused.
  Val shift(const Expr& e, const Val& a, const Val& b, const std::optional<Dest>& dest) {
    const DataType t = promote(a.type);
    if (b.k != Val::K::Int)
      fail(e.kids[1].at, fmt::format("'{}' by a value computed at run time is not read by the "
                                     "source semantics",
                                     e.name));
    const auto k = static_cast<std::int64_t>(b.bits);
    if (k < 0 || k >= static_cast<std::int64_t>(width_of(t)))
      fail(e.kids[1].at,
           fmt::format("a shift by {} of a {} is undefined (C11 6.5.7p3)", k, c_name(t)));
    if (e.name == ">>" && is_signed(t))
      fail(e.at,
           "'>>' of a signed value is not read by the source semantics (it rounds unlike a "
           "division)");
    const Val pow = int_val(std::uint64_t{1} << k, t);
    if (a.k == Val::K::Int)
      return int_val(e.name == "<<" ? a.bits << k : mask_to(a.bits, width_of(t)) >> k, t);
    return local_op(e.name == "<<" ? RmwOp::Mul : RmwOp::Div, t, a, &pow, e.at, dest);
  }

  // A comparison's value: a predicate. Float comparisons are ordered (as
  // C's: false with a NaN), and C's != of floats is !(==), true with a NaN.
  Val compare(CmpOp c, const Val& a, const Val& b, const Expr& e) {
    const DataType t = common_of(a, b, e);
    if (is_float(t) && c == CmpOp::Ne) return negate(setp(CmpOp::Eq, t, a, b, e.at), e.at);
    return setp(c, t, a, b, e.at);
  }

  // `a && b`, `a || b` as a value (0 or 1): without memory reads on the
  // right, both truths combined; else by branches, the right operand
  // evaluated only when C evaluates it (C11 6.5.13p4, 6.5.14p4).
  Val logical(const Expr& e, const std::optional<Dest>& dest) {
    const bool conj = e.name == "&&";
    if (pure(e.kids[1])) {
      const Val a = as_int(truth(eval(e.kids[0]), e.at), e.at);
      const Val b = as_int(truth(eval(e.kids[1]), e.at), e.at);
      if (a.k == Val::K::Int && b.k == Val::K::Int)
        return int_val(conj ? (a.bits && b.bits) : (a.bits || b.bits), DataType::S32);
      return local_op(conj ? RmwOp::And : RmwOp::Or, DataType::S32, a, &b, e.at, dest);
    }
    // A register of its own: the destination may be read by the operands.
    const std::string r = temp();
    const std::string skip = new_label();
    mov(DataType::S32, int_val(0, DataType::S32), e.at, Dest{r, DataType::S32});
    branch_if(e, false, skip);
    mov(DataType::S32, int_val(1, DataType::S32), e.at, Dest{r, DataType::S32});
    place(skip, e.at);
    return reg_val(r, DataType::S32);
  }

  // (T) v: integers converted as C converts them; constants at compile
  // time; a register between floating and integer types refused (operand).
  Val cast(const Expr& e, const std::optional<Dest>& dest) {
    if (e.name == "void") fail(e.at, "'(void)' has no value: it is read only as a statement");
    const Val p = eval(e.kids[0]);
    if (e.name == "bool") return truth(p, e.at);
    const Val v = as_int(p, e.at);
    const DataType t = e.type;
    if (v.k == Val::K::Int && !is_float(t)) return int_val(v.bits, t);
    if (v.k == Val::K::Int || v.k == Val::K::Float) {
      const Operand o = operand(v, t, e.at);  // a float constant to an integer: refused
      return Val{Val::K::Float, 0, o.name, t};
    }
    if (v.type == t) return v;
    return mov(t, v, e.at, dest);
  }

  Val conditional(const Expr& e, const std::optional<Dest>& dest) {
    const DataType ta = static_type(e.kids[1]), tb = static_type(e.kids[2]);
    DataType t;
    if (is_float(ta) || is_float(tb)) {
      if (ta != tb)
        fail(e.at, "'?:' between values of different floating or integer types is not read");
      t = ta;
    } else {
      t = common_int(ta, tb);
    }
    const std::string r = dest && dest->type == t ? dest->reg : temp();
    const std::string l_else = new_label(), l_end = new_label();
    branch_if(e.kids[0], false, l_else);
    mov(t, ival(e.kids[1]), e.kids[1].at, Dest{r, t});
    emit_goto(l_end, e.at);
    place(l_else, e.at);
    mov(t, ival(e.kids[2]), e.kids[2].at, Dest{r, t});
    place(l_end, e.at);
    return reg_val(r, t);
  }

  // The type an expression has (C11 6.5), without lowering it.
  DataType static_type(const Expr& e) const {
    switch (e.k) {
      case Expr::K::Int:
      case Expr::K::Float:
      case Expr::K::Local:
      case Expr::K::Mem: return e.type;
      case Expr::K::Cast: return e.name == "bool" ? DataType::S32 : e.type;
      case Expr::K::Unary: return e.name == "!" ? DataType::S32 : promote(static_type(e.kids[0]));
      case Expr::K::Binary: {
        if (comparison(e.name) || e.name == "&&" || e.name == "||") return DataType::S32;
        if (e.name == "<<" || e.name == ">>") return promote(static_type(e.kids[0]));
        const DataType a = static_type(e.kids[0]), b = static_type(e.kids[1]);
        if (is_float(a)) return a;
        if (is_float(b)) return b;
        return common_int(a, b);
      }
      case Expr::K::Cond: {
        const DataType a = static_type(e.kids[1]), b = static_type(e.kids[2]);
        return is_float(a) ? a : is_float(b) ? b : common_int(a, b);
      }
      case Expr::K::Atomic:
        if (e.aop == AOp::Cas || e.aop == AOp::AddUnless) return DataType::S32;
        if (e.aop == AOp::Load || e.aop == AOp::Rmw) return e.type;
        fail(e.at, fmt::format("'{}' has no value to read", e.name));
      default: break;
    }
    return const_cast<Lowerer*>(this)->eval(e).type;  // reports why it has no value
  }

  // ---- atomic operations: lowering ---------------------------------------------

  SourceOrder atomic_order(const Expr& e) const {
    // herd7's C has no scopes: its atomics are system-scoped (ISO C).
    return SourceOrder{e.order, libcu() ? e.scope : ThreadScope::System};
  }

  Val atomic_op(const Expr& e, const std::optional<Dest>& dest) {
    switch (e.aop) {
      case AOp::Barrier: {
        // __syncthreads(): bar.sync 0, every thread of the block (nvcc's
        // bar.sync 0 is the IR's bar.cta.sync 0, compiled_ptx.cpp).
        Instruction in = base(InstrKind::Barrier, e.at);
        in.scope = Scope::Cta;
        in.barrier.id = Operand{Operand::Kind::Imm, "0", 0, 0, e.at, {}};
        push(std::move(in));
        return {};
      }
      case AOp::Fence: {
        Instruction in = base(InstrKind::Fence, e.at);
        set_order(in, atomic_order(e));
        push(std::move(in));
        return {};
      }
      case AOp::Load: return emit_load(e.mem, atomic_order(e), e.at, dest);
      case AOp::Store: {
        const Val v = ival(e.kids[0]);
        emit_store(e.mem, atomic_order(e), v, e.at);
        return {};
      }
      case AOp::Rmw: {
        std::vector<Val> vals;
        for (const Expr& k : e.kids) vals.push_back(ival(k));
        return emit_rmw(e, e.rmw, vals, dest);
      }
      case AOp::Cas: return compare_exchange(e);
      case AOp::AddUnless: return add_unless_op(e);
    }
    return {};
  }

  Val emit_rmw(const Expr& e, RmwOp op, const std::vector<Val>& vals,
               const std::optional<Dest>& dest) {
    const MemoryName& mn = mem(e);
    Instruction in = base(InstrKind::Atom, e.at);
    in.op = op;
    in.type = mn.type;
    in.addr = loc_operand(mn.location, e.at);
    for (std::size_t i = 0; i < vals.size(); ++i)
      in.srcs.push_back(operand(vals[i], mn.type, i < e.kids.size() ? e.kids[i].at : e.at));
    set_order(in, atomic_order(e));
    const std::string d = dest_reg(dest, mn.type);
    in.dst = reg_operand(d, e.at);
    push(std::move(in));
    return reg_val(d, mn.type);
  }

  // compare_exchange: one compare-and-swap (IR: atom.cas, a failed one only
  // reads), its value whether it succeeded. The expected value is read
  // first; on failure it receives the value read: a CUDA C++ local (which
  // receives it unconditionally, the same value on success), or herd7's
  // pointer, written plainly only on failure (herd/CSem.ml ECas).
  // compare_exchange_weak is read as strong: a spurious failure is not
  // modelled (herd7 models it; docs).
  Val compare_exchange(const Expr& e) {
    const Expr& exp = e.kids[0];
    const Val desired = ival(e.kids[1]);
    const DataType t = mem(e).type;
    Val expected;
    if (exp.k == Expr::K::Ptr) {
      expected = emit_load(exp.mem, SourceOrder{MemOrder::NonAtomic, ThreadScope::System}, exp.at,
                           std::nullopt);
    } else {
      if (!written_.count(exp.name)) reads_.emplace(exp.name, exp.at);
      expected = reg_val(exp.name, exp.type);
    }
    const Val old = emit_rmw(e, RmwOp::Cas, {expected, desired}, std::nullopt);
    // Success is equal bits, as the IR's cas compares (and C++: the value
    // representations), not float equality: -0.0 is not 0.0, a NaN can match.
    const DataType bits = !is_float(t) ? t : width_of(t) == 64 ? DataType::U64 : DataType::U32;
    Instruction in = base(InstrKind::Setp, e.at);
    in.cmp = CmpOp::Eq;
    in.type = bits;
    in.srcs.push_back(reg_operand(old.text, e.at));
    in.srcs.push_back(operand(expected, t, e.at));
    const std::string p = temp_pred();
    in.dst = reg_operand(p, e.at);
    push(std::move(in));
    const Val ok = reg_val(p, DataType::Pred);
    if (exp.k == Expr::K::Ptr)
      emit_store(exp.mem, SourceOrder{MemOrder::NonAtomic, ThreadScope::System}, old, exp.at, &ok,
                 true);
    else
      mov(t, old, exp.at, Dest{exp.name, t});
    return ok;
  }

  // __atomic_add_unless(x, a, u): herd7 chooses between a read of u (no
  // write, value 0) and a read-modify-write from v != u to v + a (value 1).
  // The IR's only read-modify-write whose write depends on the value read
  // is a compare-and-swap, so it is Linux's own reading (atomic_add_unless:
  // read, then cmpxchg from the value read):
  //
  //   c = *x;  if (c == u) done(0);  if (cas(x, c, c + a) == c) done(1);
  //   else: the path ends here, cut (a self-loop the unroll bound cuts)
  //
  // The accesses are non-atomic, as herd7 reads them. In an execution
  // without a race on x the cas reads what the first read read, so the
  // events are herd7's plus that read, and the outcome is herd7's. The cas
  // fails only when a write to x came between the two reads, which races
  // with them (nothing between them synchronises), and the program is
  // racy on every execution with that write: such a path is cut (reported
  // as incomplete) rather than retried, as Linux's loop would, so that the
  // paths stay few (a retry loop multiplies them per unrolling).
  // herd7's AtomicAddUnless (herd/CSem.ml): one read-modify-write of *x
  // whose write of old + a exists only when old != u (RmwOp::AddUnless, as a
  // failed CAS is a read only); its value is whether it added.
  Val add_unless_op(const Expr& e) {
    const DataType t = mem(e).type;
    const Val a = ival(e.kids[0]), u = ival(e.kids[1]);
    const Val old = emit_rmw(e, RmwOp::AddUnless, {a, u}, std::nullopt);
    return setp(CmpOp::Ne, t, old, u, e.at);
  }

  // ---- statements: lowering ------------------------------------------------------

  // An expression statement.
  void effect(const Expr& e) {
    if (e.k == Expr::K::Assign) return assign(e);
    if (e.k == Expr::K::Cast && e.name == "void") return effect(e.kids[0]);
    if (e.k == Expr::K::Atomic) {
      atomic_op(e, std::nullopt);
      return;
    }
    (void)eval(e);
  }

  void assign(const Expr& e) {
    const Expr& lhs = e.kids[0];
    if (e.name == "=") {
      const Expr& rhs = e.kids[1];
      if (lhs.k == Expr::K::Local)
        return write_local(lhs, eval(rhs, Dest{lhs.name, lhs.type}), rhs.at);
      const Val v = ival(rhs);
      emit_store(lhs.mem, plain_order(lhs), v, lhs.at);
      return;
    }
    // a op= b is a = a op b, a read once (C11 6.5.16.2p3); ++a, a++ are a += 1.
    Expr op;
    op.k = Expr::K::Binary;
    op.at = e.at;
    op.name = e.name == "++" ? "+" : e.name == "--" ? "-" : e.name.substr(0, e.name.size() - 1);
    op.kids.push_back(lhs);
    if (e.kids.size() > 1) {
      op.kids.push_back(e.kids[1]);
    } else {
      Expr one;
      one.k = Expr::K::Int;
      one.at = e.at;
      one.bits = 1;
      op.kids.push_back(one);
    }
    if (lhs.k == Expr::K::Local) return write_local(lhs, eval(op, Dest{lhs.name, lhs.type}), e.at);
    const Val v = ival(op);
    emit_store(lhs.mem, plain_order(lhs), v, lhs.at);
  }

  // local = v, converted to the local's type (a bool is v != 0).
  void write_local(const Expr& lhs, const Val& v, SourceLoc at) {
    if (v.k == Val::K::Reg && v.text == lhs.name && v.type == lhs.type) {
      written_.insert(lhs.name);
      return;
    }
    const Dest d{lhs.name, lhs.type};
    if (lhs.type == DataType::Pred) {  // a bool: v != 0 (C11 6.3.1.2)
      if (v.k == Val::K::Reg && !is_pred(v) && !is_float(v.type)) {
        setp(CmpOp::Ne, v.type, v, int_val(0, v.type), at, d);
        return;
      }
      const Val i = as_int(truth(v, at), at);
      setp(CmpOp::Ne, DataType::S32, i, int_val(0, DataType::S32), at, d);
      return;
    }
    if (is_pred(v)) {
      as_int(v, at, d);
      return;
    }
    mov(lhs.type, v, at, d);
  }

  // ---- conditions ----------------------------------------------------------------

  // Jumps to `label` when `e` is true (sense) or false (!sense), the
  // operands of && and || evaluated only as C evaluates them.
  void branch_if(const Expr& e, bool sense, const std::string& label) {
    const DepthGuard guard(*this, e.at);
    if (e.k == Expr::K::Unary && e.name == "!") return branch_if(e.kids[0], !sense, label);
    if (e.k == Expr::K::Binary && (e.name == "&&" || e.name == "||")) {
      const bool conj = e.name == "&&";
      if (conj != sense) {  // either operand decides: (a && b) false, (a || b) true
        branch_if(e.kids[0], sense, label);
        branch_if(e.kids[1], sense, label);
      } else {  // both decide: (a && b) true, (a || b) false
        const std::string skip = new_label();
        branch_if(e.kids[0], !sense, skip);
        branch_if(e.kids[1], sense, label);
        place(skip, e.at);
      }
      return;
    }
    if (e.k == Expr::K::Binary) {
      if (const auto c = comparison(e.name)) {
        const Val a = ival(e.kids[0]), b = ival(e.kids[1]);
        const DataType t = common_of(a, b, e);
        if (!is_float(t)) return emit_branch(sense ? *c : negated(*c), t, a, b, label, e.at);
        const Val p = compare(*c, a, b, e);  // ordered: negate the predicate, not the test
        return emit_goto(label, e.at, &p, !sense);
      }
    }
    const Val v = truth(eval(e), e.at);
    if (v.k == Val::K::Int) {
      if ((v.bits != 0) == sense) emit_goto(label, e.at);
      return;
    }
    emit_goto(label, e.at, &v, !sense);
  }

  std::string_view body_;
  const std::string& file_;
  const BodyContext& ctx_;
  ThreadCode& th_;
  std::vector<CToken> toks_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::map<std::string, LocalVar>> scopes_;
  std::vector<Loop> loops_;
  std::set<std::string> registers_;         // every register name given out
  std::set<std::string> written_;           // registers some instruction writes
  std::map<std::string, SourceLoc> reads_;  // locals read before any write, first read
  std::string text_;                        // the statement being lowered
  int temps_ = 0;
  int labels_ = 0;
};

}  // namespace

void lower_body(std::string_view body, SourceLoc at, const std::string& file,
                const BodyContext& ctx, ThreadCode& thread) {
  Lowerer(body, at, file, ctx, thread).run();
}

}  // namespace redscope::csrc
