// Parser for the herd/Dat3M PTX litmus format plus real PTX instruction
// syntax (docs/litmus-format.md). Structure:
//   header → metadata → init block → thread row → instruction rows →
//   [locations] [filter] quantifier condition
#include "redscope/frontend.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "lexer.hpp"

namespace redscope {

std::string Diagnostic::render() const {
  return fmt::format("{}:{}:{}: error: {}", file, loc.line, loc.col, message);
}

std::string_view to_string(Quantifier q) {
  switch (q) {
    case Quantifier::Exists: return "exists";
    case Quantifier::Forall: return "forall";
    case Quantifier::NotExists: return "~exists";
  }
  return "?";
}

std::string_view to_string(CmpOp c) {
  switch (c) {
    case CmpOp::Eq: return "==";
    case CmpOp::Ne: return "!=";
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
  }
  return "?";
}

namespace {

using detail::Tok;
using detail::Token;

bool is_register_name(std::string_view s) {
  if (!s.empty() && s[0] == '%') return s.size() > 1;
  if (s.size() < 2 || s[0] != 'r') return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == '.') { parts.push_back(cur); cur.clear(); } else { cur += c; }
  }
  parts.push_back(cur);
  return parts;
}

// Qualifier classes of `ld/st/atom/red` (PTX §9.7.9, §9.7.13).
struct Qualifiers {
  std::optional<Sem> sem;
  bool is_volatile = false;
  std::optional<Scope> scope;
  std::optional<Space> space;
  std::optional<DataType> type;
  std::optional<RmwOp> op;
};

std::optional<RmwOp> parse_rmw_op(std::string_view s) {
  if (s == "add") return RmwOp::Add;
  if (s == "sub") return RmwOp::Sub;
  if (s == "mul") return RmwOp::Mul;
  if (s == "div") return RmwOp::Div;
  if (s == "and") return RmwOp::And;
  if (s == "or") return RmwOp::Or;
  if (s == "xor") return RmwOp::Xor;
  if (s == "exch") return RmwOp::Exch;
  if (s == "cas") return RmwOp::Cas;
  return std::nullopt;
}

std::optional<CmpOp> parse_branch(std::string_view s) {
  if (s == "beq") return CmpOp::Eq;
  if (s == "bne") return CmpOp::Ne;
  if (s == "blt") return CmpOp::Lt;
  if (s == "ble") return CmpOp::Le;
  if (s == "bgt") return CmpOp::Gt;
  if (s == "bge") return CmpOp::Ge;
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : file_(file), text_(text) {
    const std::string body = split_header();
    toks_ = detail::tokenize(body, file);
  }

  LitmusTest parse() {
    t_.file = file_;
    parse_init();
    parse_thread_row();
    parse_rows();
    parse_tail();
    return std::move(t_);
  }

 private:
  // ---- token helpers -------------------------------------------------------
  const Token& cur() const { return toks_[pos_]; }
  const Token& look(std::size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool at_ident(std::string_view s) const { return at(Tok::Ident) && cur().text == s; }
  const Token& next() { const Token& t = toks_[pos_]; if (pos_ + 1 < toks_.size()) ++pos_; return t; }
  void skip_newlines() { while (at(Tok::Newline)) next(); }

  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }
  [[noreturn]] void fail_here(std::string msg) const { fail(cur().loc, std::move(msg)); }

  const Token& expect(Tok k, std::string_view what) {
    if (!at(k)) fail_here(fmt::format("expected {}, found {}", what, detail::describe(cur())));
    return next();
  }

  std::int64_t number_value(const Token& t, bool negative) const {
    std::uint64_t v = 0;
    const char* b = t.text.data();
    const char* e = b + t.text.size();
    int base = 10;
    if (t.text.size() > 2 && t.text[0] == '0' && (t.text[1] == 'x' || t.text[1] == 'X')) { b += 2; base = 16; }
    auto [p, ec] = std::from_chars(b, e, v, base);
    if (ec != std::errc() || p != e) fail(t.loc, fmt::format("number '{}' does not fit in 64 bits", t.text));
    if (negative && v > (1ULL << 63)) fail(t.loc, fmt::format("number '-{}' does not fit in 64 bits", t.text));
    return negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  }

  // [-]NUMBER
  std::int64_t signed_number(std::string_view what) {
    bool neg = false;
    if (at(Tok::Minus)) { next(); neg = true; }
    const Token& t = expect(Tok::Number, what);
    return number_value(t, neg);
  }

  // ---- header ------------------------------------------------------------
  // The first line is `PTX name`. Everything after it up to the first '{' is
  // free text, as in Dat3M (quoted comments, command lines, ...), except lines
  // of the form `key=value`, which are metadata. The header is blanked out of
  // the text handed to the tokenizer so that line:col positions stay exact.
  std::string split_header() {
    std::string body(text_);
    std::size_t i = 0;
    int line = 1;
    auto blank = [&](std::size_t a, std::size_t b) { for (std::size_t k = a; k < b; ++k) if (body[k] != '\n') body[k] = ' '; };
    // Skip blank lines before the name line.
    while (i < body.size()) {
      std::size_t eol = body.find('\n', i);
      if (eol == std::string::npos) eol = body.size();
      const std::string_view l = std::string_view(body).substr(i, eol - i);
      if (l.find_first_not_of(" \t\r") != std::string_view::npos) {
        parse_name_line(l, line);
        blank(i, eol);
        i = eol;
        break;
      }
      i = eol + 1;
      ++line;
    }
    if (t_.arch.empty()) throw InputError(Diagnostic{file_, {1, 1}, "empty file: expected 'PTX <name>'"});
    const std::size_t brace = body.find('{', i);
    const std::size_t stop = brace == std::string::npos ? body.size() : brace;
    // Metadata lines between the name line and the brace.
    std::size_t k = i;
    int ln = line;
    while (k < stop) {
      std::size_t eol = body.find('\n', k);
      if (eol == std::string::npos || eol > stop) eol = stop;
      parse_metadata_line(std::string_view(body).substr(k, eol - k), ln);
      k = eol + 1;
      ++ln;
    }
    blank(i, stop);
    if (brace == std::string::npos) throw InputError(Diagnostic{file_, {ln, 1}, "expected '{' to open the init block"});
    return body;
  }

  void parse_name_line(std::string_view l, int line) {
    const std::size_t a = l.find_first_not_of(" \t\r");
    std::size_t b = l.find_first_of(" \t\r", a);
    if (b == std::string_view::npos) b = l.size();
    const std::string arch(l.substr(a, b - a));
    const SourceLoc at{line, static_cast<int>(a) + 1};
    if (arch != "PTX" && arch != "ptx")
      throw InputError(Diagnostic{file_, at, fmt::format("unsupported architecture '{}': redscope reads PTX litmus tests (first line 'PTX <name>')", arch)});
    t_.arch = "PTX";
    std::string name(l.substr(b));
    name.erase(0, name.find_first_not_of(" \t"));
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t' || name.back() == '\r')) name.pop_back();
    if (name.empty()) throw InputError(Diagnostic{file_, {line, static_cast<int>(b) + 1}, "expected a test name after 'PTX'"});
    t_.name = name;
  }

  void parse_metadata_line(std::string_view l, int line) {
    const std::size_t a = l.find_first_not_of(" \t\r");
    if (a == std::string_view::npos || l[a] == '"') return;
    std::size_t b = a;
    while (b < l.size() && (std::isalnum(static_cast<unsigned char>(l[b])) || l[b] == '_' || l[b] == '-')) ++b;
    std::size_t eq = l.find_first_not_of(" \t", b);
    if (b == a || eq == std::string_view::npos || l[eq] != '=') return;  // free text
    const std::string key(l.substr(a, b - a));
    std::string value(l.substr(eq + 1));
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.pop_back();
    const SourceLoc vloc{line, static_cast<int>(eq) + 2};
    if (value.empty()) throw InputError(Diagnostic{file_, vloc, fmt::format("metadata '{}' has no value", key)});
    t_.metadata[key] = value;
    if (key == "Target") {
      int sm = 0;
      const bool ok = value.size() > 3 && value.rfind("sm_", 0) == 0 &&
                      std::from_chars(value.data() + 3, value.data() + value.size(), sm).ec == std::errc() &&
                      sm > 0 && sm < 1000 && value.find_first_not_of("0123456789", 3) == std::string::npos;
      if (!ok) throw InputError(Diagnostic{file_, vloc, fmt::format("Target must look like sm_90, found '{}'", value)});
      t_.target_sm = sm;
    }
  }

  // ---- init block ----------------------------------------------------------
  void parse_init() {
    skip_newlines();
    expect(Tok::LBrace, "'{'");
    for (;;) {
      skip_newlines();
      if (at(Tok::RBrace)) { next(); break; }
      if (at(Tok::Semi)) { next(); continue; }
      if (at(Tok::End)) fail_here("unterminated init block: expected '}'");
      parse_init_entry();
      skip_newlines();
      if (!at(Tok::Semi) && !at(Tok::RBrace))
        fail_here(fmt::format("expected ';' or '}}' after an init entry, found {}", detail::describe(cur())));
    }
    if (at(Tok::Semi)) next();
  }

  // Parses `P0:r0` / `0:r0` and returns the thread index; the register token follows.
  std::optional<ThreadId> thread_prefix() {
    if (at(Tok::Ident) && look(1).kind == Tok::Colon) {
      const Token& p = cur();
      if (p.text.size() >= 2 && p.text[0] == 'P' &&
          std::all_of(p.text.begin() + 1, p.text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        next(); next();
        return thread_index(p, p.text.substr(1));
      }
    }
    if (at(Tok::Number) && look(1).kind == Tok::Colon) {
      const Token& p = next();
      next();
      return thread_index(p, p.text);
    }
    return std::nullopt;
  }

  ThreadId thread_index(const Token& at, const std::string& digits) const {
    int v = -1;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v < 0 || v > 4096)
      fail(at.loc, fmt::format("bad thread name '{}'", at.text));
    return v;
  }

  void parse_init_entry() {
    InitEntry e;
    e.loc = cur().loc;
    e.thread = thread_prefix();
    if (!at(Tok::Ident)) fail_here(fmt::format("expected a location or register name, found {}", detail::describe(cur())));
    const Token& name = next();
    if (at(Tok::At) && look(1).kind == Tok::Ident && (look(1).text == "cta" || look(1).text == "gpu" || look(1).text == "cluster"))
      fail(name.loc, "unterminated init block: expected '}' before the thread row");
    if (at(Tok::At)) fail(cur().loc, "proxies not supported yet: alias declarations ('@ ... aliases') need the proxy model");
    if (e.thread && !is_register_name(name.text))
      fail(name.loc, fmt::format("'{}' is not a register name (registers are r<N> or %name)", name.text));
    if (!e.thread && is_register_name(name.text))
      fail(name.loc, fmt::format("register '{}' needs a thread prefix, as in P0:{}", name.text, name.text));
    e.name = name.text;
    if (!at(Tok::Assign) && !at(Tok::EqEq)) fail_here(fmt::format("expected '=' after '{}'", name.text));
    next();
    if (at(Tok::Amp) || at(Tok::Ident))
      fail_here("address values are not supported: initialise locations and registers with integers");
    e.value = signed_number("an integer initial value");
    for (const InitEntry& o : t_.init)
      if (o.thread == e.thread && o.name == e.name)
        fail(e.loc, fmt::format("'{}' is initialised twice", e.name));
    t_.init.push_back(std::move(e));
  }

  // ---- thread declaration row ---------------------------------------------
  void parse_thread_row() {
    skip_newlines();
    for (;;) {
      ThreadCode tc;
      tc.loc = cur().loc;
      if (!at(Tok::Ident)) fail_here(fmt::format("expected a thread name such as P0, found {}", detail::describe(cur())));
      const Token& name = next();
      const std::string expected = fmt::format("P{}", t_.threads.size());
      if (name.text != expected)
        fail(name.loc, fmt::format("expected thread '{}' here, found '{}'", expected, name.text));
      tc.name = name.text;
      const int idx = static_cast<int>(t_.threads.size());
      tc.place = Placement{idx, idx, 0};
      if (at(Tok::At)) { next(); tc.place = parse_placement(); }
      t_.threads.push_back(std::move(tc));
      if (at(Tok::Bar)) { next(); continue; }
      if (at(Tok::Semi)) { next(); break; }
      fail_here(fmt::format("expected '|' or ';' in the thread row, found {}", detail::describe(cur())));
    }
    if (!at(Tok::Newline) && !at(Tok::End)) fail_here("expected the end of the line after the thread row");
  }

  // `cta N, [cluster C,] gpu G` in any order; cluster defaults to the CTA.
  Placement parse_placement() {
    std::optional<int> cta, cluster, gpu;
    const SourceLoc start = cur().loc;
    for (;;) {
      if (!at(Tok::Ident)) fail_here(fmt::format("expected 'cta', 'cluster' or 'gpu', found {}", detail::describe(cur())));
      const Token& key = next();
      std::optional<int>* slot = key.text == "cta" ? &cta : key.text == "cluster" ? &cluster : key.text == "gpu" ? &gpu : nullptr;
      if (!slot) fail(key.loc, fmt::format("unknown placement level '{}' (expected cta, cluster or gpu)", key.text));
      if (*slot) fail(key.loc, fmt::format("'{}' given twice", key.text));
      const std::int64_t v = signed_number(fmt::format("a {} number", key.text));
      if (v < 0 || v > 1'000'000) fail(key.loc, fmt::format("{} number out of range", key.text));
      *slot = static_cast<int>(v);
      if (at(Tok::Comma)) { next(); continue; }
      break;
    }
    if (!cta) fail(start, "placement needs 'cta N'");
    if (!gpu) fail(start, "placement needs 'gpu N'");
    // No cluster given: the CTA is a cluster of its own. Encode it as a
    // cluster id that cannot clash with explicit ones.
    const int cl = cluster ? *cluster : -1 - *cta;
    return Placement{*cta, cl, *gpu};
  }

  // ---- instruction rows ----------------------------------------------------
  bool at_tail_keyword() const {
    if (at(Tok::Tilde)) return look(1).kind == Tok::Ident && look(1).text == "exists";
    return at_ident("exists") || at_ident("forall") || at_ident("locations") || at_ident("filter");
  }

  void parse_rows() {
    for (;;) {
      skip_newlines();
      if (at(Tok::End) || at_tail_keyword()) break;
      parse_row();
    }
    for (ThreadCode& tc : t_.threads) check_labels(tc);
  }

  // A row holds one cell per thread, separated by '|', and ends with ';' at the
  // end of the line. A ';' directly before '|' or ';' ends an instruction.
  void parse_row() {
    std::size_t col = 0;
    std::vector<Token> cell;
    const SourceLoc row_start = cur().loc;
    for (;;) {
      if (at(Tok::End) || at(Tok::Newline)) fail_here("expected ';' at the end of the instruction row");
      if (at(Tok::Bar)) { add_cell(col, cell, cur().loc); cell.clear(); ++col; next(); continue; }
      if (at(Tok::Semi)) {
        const Tok after = look(1).kind;
        if (after == Tok::Bar || after == Tok::Semi) { next(); continue; }
        if (after == Tok::Newline || after == Tok::End) { const SourceLoc l = cur().loc; next(); add_cell(col, cell, l); break; }
        fail(look(1).loc, fmt::format("unexpected {} after ';' in an instruction row", detail::describe(look(1))));
      }
      cell.push_back(next());
    }
    (void)row_start;
  }

  void add_cell(std::size_t col, std::vector<Token>& cell, SourceLoc end) {
    if (col >= t_.threads.size()) {
      if (cell.empty()) return;
      fail(cell.front().loc, fmt::format("instruction in column {} but only {} thread(s) declared", col + 1, t_.threads.size()));
    }
    if (cell.empty()) return;
    cell.push_back(Token{Tok::End, "end of instruction", end});
    ThreadCode& tc = t_.threads[col];
    parse_instruction(tc, cell);
  }

  void check_labels(const ThreadCode& tc) const {
    for (const Instruction& in : tc.code)
      if ((in.kind == InstrKind::Branch || in.kind == InstrKind::Goto) && !tc.labels.count(in.label))
        fail(in.loc, fmt::format("label '{}' is not defined in thread {}", in.label, tc.name));
  }

  // ---- one instruction -----------------------------------------------------
  struct Cell {
    const std::vector<Token>& toks;
    std::size_t i = 0;
    const Token& cur() const { return toks[i]; }
    bool at(Tok k) const { return toks[i].kind == k; }
    const Token& next() { const Token& t = toks[i]; if (i + 1 < toks.size()) ++i; return t; }
  };

  std::string cell_text(const std::vector<Token>& toks) const {
    // Reconstruct readable text from the source line span.
    std::string s;
    for (const Token& t : toks) {
      if (t.kind == Tok::End) break;
      if (!s.empty() && t.kind != Tok::Comma && t.kind != Tok::RBracket && s.back() != '[' ) s += ' ';
      s += t.text;
    }
    return s;
  }

  void parse_instruction(ThreadCode& tc, const std::vector<Token>& toks) {
    Cell c{toks};
    Instruction in;
    in.loc = c.cur().loc;
    in.text = cell_text(toks);
    if (c.at(Tok::At)) fail(c.cur().loc, "predicated instructions (@p) are not supported yet");
    if (!c.at(Tok::Ident)) fail(c.cur().loc, fmt::format("expected an instruction, found {}", detail::describe(c.cur())));
    const Token& mn = c.next();
    if (c.at(Tok::Colon) && mn.text.find('.') == std::string::npos) {  // label
      c.next();
      if (!c.at(Tok::End)) fail(c.cur().loc, "a label must stand alone in its cell");
      if (tc.labels.count(mn.text)) fail(mn.loc, fmt::format("label '{}' defined twice in {}", mn.text, tc.name));
      tc.labels[mn.text] = tc.code.size();
      in.kind = InstrKind::Label;
      in.label = mn.text;
      tc.code.push_back(std::move(in));
      return;
    }
    const std::vector<std::string> parts = split_dots(mn.text);
    const std::string& base = parts[0];
    if (base == "ld") parse_ld(in, mn, parts, c);
    else if (base == "st") parse_st(in, mn, parts, c);
    else if (base == "atom") parse_atom(in, mn, parts, c);
    else if (base == "red") parse_red(in, mn, parts, c);
    else if (base == "fence") parse_fence(in, mn, parts);
    else if (base == "membar") parse_membar(in, mn, parts);
    else if (base == "bar" || base == "barrier") parse_barrier(in, mn, parts, c);
    else if (base == "add" || base == "sub" || base == "mul" || base == "div" || base == "mov") parse_local(in, mn, parts, c);
    else if (parse_branch(base)) parse_cond_branch(in, mn, parts, c);
    else if (base == "goto" || base == "bra") parse_goto(in, mn, parts, c);
    else if (base == "cold" || base == "tld" || base == "suld" || base == "sust" || base == "suatom" || base == "sured")
      fail(mn.loc, fmt::format("proxies not supported yet: '{}' accesses memory through a non-generic proxy", base));
    else fail(mn.loc, fmt::format("unknown instruction '{}'", mn.text));
    if (!c.at(Tok::End)) fail(c.cur().loc, fmt::format("unexpected {} after the operands of '{}'", detail::describe(c.cur()), mn.text));
    tc.code.push_back(std::move(in));
  }

  SourceLoc qual_loc(const Token& mn, const std::vector<std::string>& parts, std::size_t k) const {
    int col = mn.loc.col;
    for (std::size_t j = 0; j < k; ++j) col += static_cast<int>(parts[j].size()) + 1;
    return SourceLoc{mn.loc.line, col};
  }

  // Classifies qualifiers parts[1..]; `allowed` names the classes this
  // instruction takes ("sem", "scope", "space", "type", "op").
  Qualifiers qualifiers(const Token& mn, const std::vector<std::string>& parts, std::string_view allowed) {
    Qualifiers q;
    auto takes = [&](std::string_view cls) { return allowed.find(cls) != std::string_view::npos; };
    for (std::size_t k = 1; k < parts.size(); ++k) {
      const std::string& p = parts[k];
      const SourceLoc at = qual_loc(mn, parts, k);
      if (p.empty()) fail(at, fmt::format("empty qualifier in '{}'", mn.text));
      auto dup = [&](bool taken, std::string_view cls) {
        if (taken) fail(at, fmt::format("'{}' has more than one {} qualifier ('.{}')", mn.text, cls, p));
      };
      auto reject = [&](std::string_view cls) {
        if (!takes(cls)) fail(at, fmt::format("'{}' does not take a {} qualifier ('.{}')", parts[0], cls, p));
      };
      if (p == "volatile") {
        reject("sem"); dup(q.sem.has_value(), "memory-order");
        q.sem = Sem::Relaxed; q.is_volatile = true; q.scope = Scope::Sys;
      } else if (auto s = parse_sem(p)) {
        reject("sem"); dup(q.sem.has_value(), "memory-order"); q.sem = s;
      } else if (auto sc = parse_scope(p)) {
        reject("scope"); dup(q.scope.has_value() && !q.is_volatile, "scope"); q.scope = sc;
      } else if (p == "global" || p == "shared" || p == "shared::cta" || p == "shared::cluster") {
        reject("space"); dup(q.space.has_value(), "state-space");
        q.space = p == "global" ? Space::Global : p == "shared::cluster" ? Space::SharedCluster : Space::SharedCta;
      } else if (auto ty = parse_data_type(p)) {
        reject("type"); dup(q.type.has_value(), "type"); q.type = ty;
      } else if (auto op = parse_rmw_op(p)) {
        reject("op"); dup(q.op.has_value(), "operation"); q.op = op;
      } else if (p == "f32" || p == "f64" || p == "f16" || p == "f16x2" || p == "bf16" || p == "bf16x2" || p == "u16" || p == "s16" || p == "b16" || p == "u8" || p == "s8" || p == "b8") {
        fail(at, fmt::format("type '.{}' is not supported yet (integer .b32/.u32/.s32/.b64/.u64/.s64 only)", p));
      } else if (p == "min" || p == "max" || p == "inc" || p == "dec" || p == "noftz" || p.rfind("v", 0) == 0 || p.find("::") != std::string::npos) {
        fail(at, fmt::format("qualifier '.{}' of '{}' is not supported yet", p, parts[0]));
      } else if (p == "const" || p == "local" || p == "param") {
        fail(at, fmt::format("state space '.{}' is not supported (global, shared and generic only)", p));
      } else {
        fail(at, fmt::format("unknown qualifier '.{}' in '{}'", p, mn.text));
      }
    }
    if (q.is_volatile && q.scope != Scope::Sys) fail(mn.loc, "'.volatile' takes no scope");
    return q;
  }

  // A strong ld/st needs a scope; weak ones take none (PTX §9.7.9.8, §9.7.9.9).
  void memory_order(Instruction& in, const Token& mn, const Qualifiers& q) {
    in.sem = q.sem.value_or(Sem::Weak);
    if (in.sem == Sem::Weak) {
      if (q.scope) fail(mn.loc, fmt::format("'{}': a weak access takes no scope", mn.text));
      in.scope = Scope::Sys;
    } else {
      if (!q.scope) fail(mn.loc, fmt::format("'{}': .{} needs a scope (.cta, .cluster, .gpu or .sys)", mn.text, to_string(in.sem)));
      in.scope = *q.scope;
    }
    in.space = q.space.value_or(Space::Generic);
    in.type = q.type.value_or(DataType::S32);
  }

  Operand reg_operand(Cell& c, std::string_view what) {
    const Token& t = c.cur();
    if (t.kind != Tok::Ident || !is_register_name(t.text))
      fail(t.loc, fmt::format("expected {} (a register such as r0), found {}", what, detail::describe(t)));
    c.next();
    return Operand{Operand::Kind::Reg, t.text, 0, t.loc};
  }

  Operand value_operand(Cell& c, std::string_view what) {
    const Token& t = c.cur();
    if (t.kind == Tok::Ident && is_register_name(t.text)) { c.next(); return Operand{Operand::Kind::Reg, t.text, 0, t.loc}; }
    bool neg = false;
    if (c.at(Tok::Minus)) { c.next(); neg = true; }
    if (!c.at(Tok::Number))
      fail(c.cur().loc, fmt::format("expected {} (a register or an integer), found {}", what, detail::describe(c.cur())));
    const Token& n = c.next();
    return Operand{Operand::Kind::Imm, "", number_value(n, neg), t.loc};
  }

  // `x` or `[x]`; returns whether brackets were used.
  Operand address_operand(Cell& c, bool* bracketed = nullptr) {
    const SourceLoc start = c.cur().loc;
    bool br = false;
    if (c.at(Tok::LBracket)) { c.next(); br = true; }
    const Token& t = c.cur();
    if (t.kind != Tok::Ident) fail(t.loc, fmt::format("expected a memory location, found {}", detail::describe(t)));
    if (is_register_name(t.text)) fail(t.loc, fmt::format("register-indirect addresses ('{}') are not supported yet; name the location", t.text));
    c.next();
    if (br) {
      if (c.at(Tok::Plus)) fail(c.cur().loc, "address offsets are not supported yet");
      if (!c.at(Tok::RBracket)) fail(c.cur().loc, fmt::format("expected ']', found {}", detail::describe(c.cur())));
      c.next();
    }
    if (bracketed) *bracketed = br;
    return Operand{Operand::Kind::Loc, t.text, 0, start};
  }

  void comma(Cell& c, const Token& mn, std::string_view operands) {
    if (c.at(Tok::End)) fail(c.cur().loc, fmt::format("'{}' takes operands {}: operand missing", mn.text, operands));
    if (!c.at(Tok::Comma)) fail(c.cur().loc, fmt::format("expected ',' between operands of '{}', found {}", mn.text, detail::describe(c.cur())));
    c.next();
  }

  void no_operands_left(Cell& c, const Token& mn, std::string_view operands) {
    if (!c.at(Tok::End)) fail(c.cur().loc, fmt::format("too many operands: '{}' takes {}", mn.text, operands));
  }

  void parse_ld(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    // Dat3M's `ld r0, 1` / `ld r0, r1` is a register move, not a load.
    const bool bare = parts.size() == 1;
    Qualifiers q = qualifiers(mn, parts, "sem scope space type");
    in.dst = reg_operand(c, "a destination register");
    comma(c, mn, "'dst, [a]'");
    if (bare && (c.at(Tok::Number) || c.at(Tok::Minus) || (c.at(Tok::Ident) && is_register_name(c.cur().text)))) {
      in.kind = InstrKind::Local;
      in.op = RmwOp::Mov;
      in.srcs.push_back(value_operand(c, "a value"));
      no_operands_left(c, mn, "'dst, value'");
      return;
    }
    in.kind = InstrKind::Load;
    memory_order(in, mn, q);
    if (in.sem == Sem::Release || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail(qual_loc(mn, parts, 1), fmt::format("ld does not take .{} (PTX §9.7.9.8: .weak, .relaxed, .acquire, .volatile)", to_string(in.sem)));
    in.addr = address_operand(c);
    no_operands_left(c, mn, "'dst, [a]'");
  }

  void parse_st(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    Qualifiers q = qualifiers(mn, parts, "sem scope space type");
    in.kind = InstrKind::Store;
    memory_order(in, mn, q);
    if (in.sem == Sem::Acquire || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail(qual_loc(mn, parts, 1), fmt::format("st does not take .{} (PTX §9.7.9.9: .weak, .relaxed, .release, .volatile)", to_string(in.sem)));
    in.addr = address_operand(c);
    comma(c, mn, "'[a], value'");
    in.srcs.push_back(value_operand(c, "the stored value"));
    no_operands_left(c, mn, "'[a], value'");
  }

  // atom/red: .sem defaults to .relaxed and .scope to .gpu (PTX §9.7.13.5/6).
  void rmw_order(Instruction& in, const Qualifiers& q) {
    in.sem = q.sem.value_or(Sem::Relaxed);
    in.scope = q.scope.value_or(Scope::Gpu);
    in.space = q.space.value_or(Space::Generic);
    in.type = q.type.value_or(DataType::S32);
  }

  void parse_atom(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    Qualifiers q = qualifiers(mn, parts, "sem scope space type op");
    in.kind = InstrKind::Atom;
    if (!q.op) fail(mn.loc, fmt::format("'{}' needs an operation (.add, .and, .or, .xor, .exch, .cas, ...)", mn.text));
    in.op = *q.op;
    rmw_order(in, q);
    if (in.sem == Sem::Weak || in.sem == Sem::Sc)
      fail(mn.loc, fmt::format("atom does not take .{} (PTX: .relaxed, .acquire, .release, .acq_rel)", to_string(in.sem)));
    const bool cas = in.op == RmwOp::Cas;
    const std::string_view ops = cas ? "'dst, [a], compare, new'" : "'dst, [a], value'";
    in.dst = reg_operand(c, "a destination register");
    comma(c, mn, ops);
    in.addr = address_operand(c);
    comma(c, mn, ops);
    in.srcs.push_back(value_operand(c, cas ? "the compare value" : "the operand value"));
    if (cas) { comma(c, mn, ops); in.srcs.push_back(value_operand(c, "the new value")); }
    no_operands_left(c, mn, ops);
  }

  void parse_red(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    Qualifiers q = qualifiers(mn, parts, "sem scope space type op");
    in.kind = InstrKind::Red;
    if (!q.op) fail(mn.loc, fmt::format("'{}' needs an operation (.add, .and, .or, .xor, ...)", mn.text));
    in.op = *q.op;
    if (in.op == RmwOp::Exch || in.op == RmwOp::Cas)
      fail(mn.loc, fmt::format("red does not take .{}: use atom", in.op == RmwOp::Exch ? "exch" : "cas"));
    rmw_order(in, q);
    bool bracketed = false;
    const std::size_t save = c.i;
    if (c.at(Tok::Ident) && is_register_name(c.cur().text))
      fail(c.cur().loc, "red has no destination operand (it returns nothing); use atom to read the old value");
    in.addr = address_operand(c, &bracketed);
    (void)save;
    // The seed's syntax table allows only .relaxed and .release for red.
    // Dat3M's untyped shorthand also writes red.acq_rel; it is accepted in
    // that shorthand only (no type, no brackets), as an RMW with both halves.
    const bool dat3m_form = !q.type && !bracketed;
    if (in.sem == Sem::Acquire)
      fail(mn.loc, "red does not take .acquire: its syntax table allows only .relaxed and .release (the PTX red seed's example 'red.acquire' contradicts its own syntax table)");
    if ((in.sem == Sem::AcqRel && !dat3m_form) || in.sem == Sem::Weak || in.sem == Sem::Sc)
      fail(mn.loc, fmt::format("red does not take .{}: its syntax table allows only .relaxed and .release", to_string(in.sem)));
    comma(c, mn, "'[a], value'");
    in.srcs.push_back(value_operand(c, "the operand value"));
    no_operands_left(c, mn, "'[a], value'");
  }

  // fence{.sem}.scope with .sem ∈ {.sc, .acq_rel}, default .acq_rel (PTX §9.7.13.4).
  void parse_fence(Instruction& in, const Token& mn, const std::vector<std::string>& parts) {
    in.kind = InstrKind::Fence;
    if (parts.size() > 1 && parts[1] == "proxy")
      fail(mn.loc, fmt::format("proxies not supported yet: '{}' is a proxy fence", mn.text));
    Qualifiers q = qualifiers(mn, parts, "sem scope");
    in.sem = q.sem.value_or(Sem::AcqRel);
    if (in.sem != Sem::Sc && in.sem != Sem::AcqRel)
      fail(mn.loc, fmt::format("fence does not take .{} (only .sc and .acq_rel)", to_string(in.sem)));
    if (!q.scope) fail(mn.loc, fmt::format("'{}' needs a scope (.cta, .cluster, .gpu or .sys)", mn.text));
    in.scope = *q.scope;
  }

  // membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} (PTX §9.7.13.4).
  void parse_membar(Instruction& in, const Token& mn, const std::vector<std::string>& parts) {
    in.kind = InstrKind::Fence;
    in.sem = Sem::Sc;
    if (parts.size() != 2) fail(mn.loc, "membar takes exactly one level: membar.cta, membar.gl or membar.sys");
    const std::string& l = parts[1];
    if (l == "cta") in.scope = Scope::Cta;
    else if (l == "gl") in.scope = Scope::Gpu;
    else if (l == "sys") in.scope = Scope::Sys;
    else if (l == "proxy") fail(mn.loc, "proxies not supported yet: membar.proxy is a proxy fence");
    else fail(qual_loc(mn, parts, 1), fmt::format("unknown membar level '.{}' (cta, gl or sys)", l));
  }

  void parse_barrier(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    in.kind = InstrKind::Barrier;
    const bool dat3m = parts.size() == 3 && parts[0] == "bar" && parts[1] == "cta" &&
                       (parts[2] == "sync" || parts[2] == "arrive");
    if (!dat3m)
      fail(mn.loc, fmt::format("'{}': only Dat3M's bar.cta.sync / bar.cta.arrive are supported; PTX's bar.sync a{{, b}} (b = thread count) is not supported yet", mn.text));
    in.barrier.arrive_only = parts[2] == "arrive";
    in.scope = Scope::Cta;
    in.barrier.id = value_operand(c, "a barrier id");
    if (in.barrier.id.kind != Operand::Kind::Imm) fail(in.barrier.id.loc, "the first barrier operand must be a constant");
    if (c.at(Tok::Comma)) {
      c.next();
      in.barrier.logical_id = value_operand(c, "a logical barrier id");
      if (c.at(Tok::Comma)) {
        c.next();
        const Operand q = value_operand(c, "a quorum");
        if (q.kind != Operand::Kind::Imm || q.value < 1 || q.value > 4096)
          fail(q.loc, "the quorum must be a constant between 1 and 4096");
        in.barrier.quorum = q.value;
      }
    }
    no_operands_left(c, mn, "'id{, logical-id{, quorum}}'");
  }

  void parse_local(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    in.kind = InstrKind::Local;
    const std::string& base = parts[0];
    in.op = base == "add" ? RmwOp::Add : base == "sub" ? RmwOp::Sub : base == "mul" ? RmwOp::Mul
          : base == "div" ? RmwOp::Div : RmwOp::Mov;
    Qualifiers q = qualifiers(mn, parts, "type");
    in.type = q.type.value_or(DataType::S32);
    in.dst = reg_operand(c, "a destination register");
    const bool mov = in.op == RmwOp::Mov;
    const std::string_view ops = mov ? "'dst, value'" : "'dst, a, b'";
    comma(c, mn, ops);
    in.srcs.push_back(value_operand(c, "a value"));
    if (!mov) { comma(c, mn, ops); in.srcs.push_back(value_operand(c, "a value")); }
    no_operands_left(c, mn, ops);
  }

  std::string label_operand(Cell& c) {
    const Token& t = c.cur();
    if (t.kind != Tok::Ident) fail(t.loc, fmt::format("expected a label, found {}", detail::describe(t)));
    c.next();
    return t.text;
  }

  void parse_cond_branch(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    in.kind = InstrKind::Branch;
    in.cmp = *parse_branch(parts[0]);
    Qualifiers q = qualifiers(mn, parts, "type");
    in.type = q.type.value_or(DataType::S32);
    in.srcs.push_back(value_operand(c, "a value"));
    comma(c, mn, "'a, b, LABEL'");
    in.srcs.push_back(value_operand(c, "a value"));
    comma(c, mn, "'a, b, LABEL'");
    in.label = label_operand(c);
    no_operands_left(c, mn, "'a, b, LABEL'");
  }

  void parse_goto(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    in.kind = InstrKind::Goto;
    if (parts.size() > 2 || (parts.size() == 2 && (parts[0] != "bra" || parts[1] != "uni")))
      fail(mn.loc, fmt::format("unknown qualifier in '{}'", mn.text));
    in.label = label_operand(c);
    no_operands_left(c, mn, "'LABEL'");
  }

  // ---- locations, filter, condition ---------------------------------------
  void parse_tail() {
    skip_newlines();
    if (at_ident("locations")) { next(); parse_locations(); skip_newlines(); }
    if (at_ident("filter")) { next(); skip_newlines(); t_.filter = parse_or(); skip_newlines(); }
    if (at(Tok::End)) fail_here("missing final condition: expected 'exists', 'forall' or '~exists'");
    if (at(Tok::Tilde) && look(1).kind == Tok::Ident && look(1).text == "exists") { next(); next(); t_.quantifier = Quantifier::NotExists; }
    else if (at_ident("exists")) { next(); t_.quantifier = Quantifier::Exists; }
    else if (at_ident("forall")) { next(); t_.quantifier = Quantifier::Forall; }
    else fail_here(fmt::format("expected 'exists', 'forall' or '~exists', found {}", detail::describe(cur())));
    skip_newlines();
    t_.condition_loc = cur().loc;
    const std::size_t start = pos_;
    t_.condition = parse_or();
    std::string text;
    for (std::size_t k = start; k < pos_; ++k) {
      if (toks_[k].kind == Tok::Newline) continue;
      if (!text.empty() && toks_[k].kind != Tok::RParen && toks_[k].kind != Tok::Colon && text.back() != '(' && text.back() != ':') text += ' ';
      text += toks_[k].text;
    }
    t_.condition_text = text;
    skip_newlines();
    if (!at(Tok::End)) fail_here(fmt::format("unexpected {} after the final condition", detail::describe(cur())));
  }

  void parse_locations() {
    skip_newlines();
    expect(Tok::LBracket, "'[' after 'locations'");
    for (;;) {
      skip_newlines();
      if (at(Tok::RBracket)) { next(); break; }
      if (at(Tok::Semi)) { next(); continue; }
      if (at(Tok::End)) fail_here("unterminated 'locations [': expected ']'");
      CondTerm term = parse_term();
      if (term.kind == CondTerm::Kind::Const) fail(term.loc, "'locations' lists locations and registers, not constants");
      t_.locations.push_back(term);
    }
  }

  CondExpr parse_or() {
    CondExpr lhs = parse_and();
    while (skip_newlines(), at(Tok::Or)) {
      next();
      CondExpr e; e.kind = CondExpr::Kind::Or;
      e.kids.push_back(std::move(lhs));
      e.kids.push_back(parse_and());
      lhs = std::move(e);
    }
    return lhs;
  }

  CondExpr parse_and() {
    CondExpr lhs = parse_not();
    while (skip_newlines(), at(Tok::And)) {
      next();
      CondExpr e; e.kind = CondExpr::Kind::And;
      e.kids.push_back(std::move(lhs));
      e.kids.push_back(parse_not());
      lhs = std::move(e);
    }
    return lhs;
  }

  CondExpr parse_not() {
    skip_newlines();
    if (at(Tok::Tilde) || at(Tok::Bang) || at_ident("not")) {
      next();
      CondExpr e; e.kind = CondExpr::Kind::Not;
      e.kids.push_back(parse_not());
      return e;
    }
    return parse_atom();
  }

  CondExpr parse_atom() {
    skip_newlines();
    if (at(Tok::LParen)) {
      next();
      CondExpr e = parse_or();
      skip_newlines();
      expect(Tok::RParen, "')'");
      return e;
    }
    if (at_ident("true") || at_ident("false")) {
      CondExpr e; e.kind = cur().text == "true" ? CondExpr::Kind::True : CondExpr::Kind::False;
      next();
      return e;
    }
    CondExpr e; e.kind = CondExpr::Kind::Cmp;
    e.lhs = parse_term();
    switch (cur().kind) {
      case Tok::EqEq: case Tok::Assign: e.cmp = CmpOp::Eq; break;
      case Tok::NotEq: e.cmp = CmpOp::Ne; break;
      case Tok::Less: e.cmp = CmpOp::Lt; break;
      case Tok::LessEq: e.cmp = CmpOp::Le; break;
      case Tok::Greater: e.cmp = CmpOp::Gt; break;
      case Tok::GreaterEq: e.cmp = CmpOp::Ge; break;
      default: fail_here(fmt::format("expected a comparison ('==', '!=', '<', ...), found {}", detail::describe(cur())));
    }
    next();
    e.rhs = parse_term();
    return e;
  }

  CondTerm parse_term() {
    CondTerm t;
    t.loc = cur().loc;
    if (auto th = thread_prefix()) {
      if (!at(Tok::Ident) || !is_register_name(cur().text))
        fail_here(fmt::format("expected a register after '{}:', found {}", *th, detail::describe(cur())));
      t.kind = CondTerm::Kind::Reg;
      t.thread = *th;
      t.name = next().text;
      return t;
    }
    if (at(Tok::Number) || at(Tok::Minus)) {
      t.kind = CondTerm::Kind::Const;
      t.value = signed_number("an integer");
      return t;
    }
    bool br = false;
    if (at(Tok::LBracket)) { next(); br = true; }
    if (!at(Tok::Ident)) fail_here(fmt::format("expected a register, location or integer, found {}", detail::describe(cur())));
    if (is_register_name(cur().text)) fail_here(fmt::format("register '{}' needs a thread prefix, as in P0:{}", cur().text, cur().text));
    t.kind = CondTerm::Kind::Loc;
    t.name = next().text;
    if (br) expect(Tok::RBracket, "']'");
    return t;
  }

  const std::string& file_;
  std::string_view text_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  LitmusTest t_;
};

// Semantic checks that need the whole test: thread references in the init
// block and the condition, and registers read before any definition.
void check_references(const LitmusTest& t) {
  auto fail = [&](SourceLoc at, std::string msg) { throw InputError(Diagnostic{t.file, at, std::move(msg)}); };
  std::vector<std::set<std::string>> regs(t.threads.size());
  std::set<std::string> locs;
  for (const InitEntry& e : t.init) {
    if (e.thread) {
      if (*e.thread >= static_cast<int>(t.threads.size()))
        fail(e.loc, fmt::format("thread P{} is not declared", *e.thread));
      regs[*e.thread].insert(e.name);
    } else {
      locs.insert(e.name);
    }
  }
  for (std::size_t i = 0; i < t.threads.size(); ++i)
    for (const Instruction& in : t.threads[i].code) {
      if (in.dst) regs[i].insert(in.dst->name);
      if (in.addr) locs.insert(in.addr->name);
    }
  auto check_term = [&](const CondTerm& term) {
    if (term.kind == CondTerm::Kind::Reg) {
      if (term.thread >= static_cast<int>(t.threads.size()))
        fail(term.loc, fmt::format("thread P{} is not declared", term.thread));
      if (!regs[term.thread].count(term.name))
        fail(term.loc, fmt::format("register P{}:{} is neither initialised nor written by P{}", term.thread, term.name, term.thread));
    } else if (term.kind == CondTerm::Kind::Loc && !locs.count(term.name)) {
      fail(term.loc, fmt::format("location '{}' is neither initialised nor accessed by any thread", term.name));
    }
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) { check_term(e.lhs); check_term(e.rhs); }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  for (const CondTerm& term : t.locations) check_term(term);
}

}  // namespace

LitmusTest parse_litmus(std::string_view text, const std::string& file) {
  LitmusTest t = Parser(text, file).parse();
  check_references(t);
  return t;
}

LitmusTest parse_litmus_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(Diagnostic{path, {0, 0}, "cannot open file"});
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_litmus(ss.str(), path);
}

}  // namespace redscope
