// The PTO dialect: parses the seed's `pto.vecscope` syntax, checks types and
// masks, unrolls `scf.for` and folds constants into pto::Program (see
// pto_dialect.hpp; docs/litmus-format.md "PTO vector programs").
#include "redscope/dialects/pto/pto_dialect.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "dialects/pto/pto_lexer.hpp"
#include "redscope/dialects/pto/pto.hpp"
#include "redscope/frontend/container.hpp"
#include "redscope/frontend/lexer.hpp"

namespace redscope::detail {

namespace {

using pto_syntax::T;
using pto_syntax::Token;
namespace p = redscope::pto;

// Unrolled loops may not produce more operations than this (a typo in a
// bound must not run the machine out of memory), nor run more iterations
// per core (nested ones counted), whatever their bodies emit.
constexpr std::size_t kMaxOps = 20000;
constexpr std::size_t kMaxIterations = 200000;
// Loops nest at most this deep (the parser recurses per level), and a type
// or pattern longer than kMaxTypeText is refused before a regex reads it.
constexpr int kMaxLoopDepth = 64;
constexpr std::size_t kMaxTypeText = 200;
// Elaboration steps (a statement run once, or one loop iteration) over the
// whole test, every core: bounds the parse's time whatever the loops' bodies
// hold (zero-trip loops and constants emit no operation). The parser runs
// before any Budget is reachable, so this cap is its budget (issue 28).
constexpr std::size_t kMaxElaborationSteps = 1000000;
// Buffers: how many, and their elements together (the explorer copies
// memory per state).
constexpr std::size_t kMaxBuffers = 1024;
constexpr std::size_t kMaxBufferElements = 1u << 20;
// Integers in the program: at most 2^62, so that bounds and offsets add in
// 64 bits.
constexpr std::uint64_t kMaxInteger = 1ull << 62;

struct Name {
  std::string text;  // "%vec"
  SourceLoc loc;
};

// An index operand: a constant or an SSA name bound to one.
struct Index {
  std::optional<std::int64_t> value;
  Name name;
};

// A statement as written; `elaborate` runs it once per loop iteration.
struct Stmt {
  enum class K : std::uint8_t { Const, Pset, Load, Store, Reduce, Barrier, For } k = K::Barrier;
  SourceLoc loc;
  std::string text, mnemonic;
  Name result;
  std::int64_t value = 0;      // Const
  std::string pattern;         // Pset
  p::Mask pset_mask;           // Pset: the pattern's mask, built once
  unsigned mask_bytes = 4;     // Pset: 1, 2, 4 (pset_b8/b16/b32)
  Name src, mask, buffer;      // Load/Store/Reduce operands (empty text when absent)
  std::vector<Index> indices;  // Load/Store
  std::string dist;            // Load/Store {dist = "..."}
  SourceLoc dist_loc;
  std::optional<p::Elem> elem;  // the vreg type written, if any
  SourceLoc elem_loc;
  std::optional<unsigned> mask_type_bytes;  // !pto.mask<bK> written in the types
  SourceLoc mask_type_loc;
  std::optional<p::Elem> ptr_elem;  // !pto.ptr<T, ub>
  SourceLoc ptr_loc;
  p::Reduce reduce = p::Reduce::Add;
  Name iv;  // For
  Index lb, ub, step;
  std::vector<Stmt> body;
  std::size_t static_op = 0;
};

struct MaskValue {
  p::Mask mask;
  unsigned bytes = 4;  // granularity
  SourceLoc def;
};

// What a core's program may name: registers, masks and index constants.
struct Scope {
  std::map<std::string, std::int64_t> index;
  std::map<std::string, MaskValue> masks;
  std::map<std::string, std::pair<std::size_t, SourceLoc>> defs;  // name → defining statement
};

class PtoParser {
 public:
  PtoParser(std::string_view text, const std::string& file)
      : text_(text),
        file_(file),
        toks_(pto_syntax::tokenize(text, file)) {}

  LitmusTest parse() {
    test_.file = file_;
    test_.arch = "PTO";
    parse_header();
    if (at("{")) parse_init();
    parse_cores();
    finish_cores();
    parse_condition();
    check_condition();
    test_.program = std::make_shared<const p::Program>(std::move(prog_));
    return std::move(test_);
  }

 private:
  // ---- tokens ----------------------------------------------------------------
  const Token& cur() const { return toks_[pos_]; }
  const Token& look(std::size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(std::string_view punct) const {
    return (cur().kind == T::Punct || cur().kind == T::Ident) && cur().text == punct;
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }
  static std::string describe(const Token& t) {
    if (t.kind == T::End) return "end of file";
    if (t.kind == T::String) return fmt::format("\"{}\"", printable(t.text));
    return fmt::format("'{}'", printable(t.text));
  }
  void expect(std::string_view punct, std::string_view what) {
    if (!at(punct)) fail(cur().loc, fmt::format("expected {}, found {}", what, describe(cur())));
    next();
  }
  const Token& expect_kind(T k, std::string_view what) {
    if (cur().kind != k)
      fail(cur().loc, fmt::format("expected {}, found {}", what, describe(cur())));
    return next();
  }
  // An integer token (decimal or 0x hex), read by the shared checked reader.
  std::int64_t integer(const Token& t, bool negative = false) const {
    if (t.kind != T::Number) fail(t.loc, fmt::format("expected an integer, found {}", describe(t)));
    const auto v = static_cast<std::uint64_t>(integer_at(t.text, false, file_, t.loc));
    if (v > kMaxInteger)
      fail(t.loc, fmt::format("integer {} is out of range: at most 2^62", printable(t.text)));
    return negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  }

  // ---- header and init block -------------------------------------------------
  void parse_header() {
    const Token& w = next();
    if (w.kind != T::Ident || (w.text != "PTO" && w.text != "pto"))
      fail(w.loc, fmt::format("expected 'PTO' as the first word, found {}", describe(w)));
    const int line = w.loc.line;
    std::string name;
    while (cur().kind != T::End && cur().loc.line == line) name += next().text;
    if (name.empty()) fail(w.loc, "expected the test's name after 'PTO'");
    if (name.size() > pto_syntax::kMaxWordBytes)
      fail(w.loc,
           fmt::format("the test's name is longer than {} bytes", pto_syntax::kMaxWordBytes));
    test_.name = name;
    if (cur().kind == T::String) next();  // a herd-style comment line
  }

  void parse_init() {
    expect("{", "'{'");
    while (!at("}")) {
      if (cur().kind == T::End) fail(cur().loc, "unterminated init block: expected '}'");
      if (at(";")) {
        next();
        continue;
      }
      if (at("ub"))
        parse_buffer();
      else
        parse_register_init();
    }
    next();
  }

  // `ub f32 name[64] = {...};` or `ub f32 name[8][64];`
  void parse_buffer() {
    next();
    p::Buffer b;
    b.loc = cur().loc;
    const Token& ty = expect_kind(T::Ident, "an element type (i16, i32, i64, f16, f32)");
    const auto e = p::parse_elem(ty.text);
    if (!e)
      fail(ty.loc, fmt::format("unknown element type {}: expected i16, i32, i64, f16 or f32",
                               describe(ty)));
    b.elem = *e;
    const Token& n = expect_kind(T::Ident, "the buffer's name");
    b.name = n.text;
    b.loc = n.loc;
    if (!buffer_names_.insert(b.name).second)
      fail(n.loc, fmt::format("buffer '{}' declared twice", b.name));
    if (prog_.buffers.size() >= kMaxBuffers)
      fail(n.loc, fmt::format("more than {} buffers", kMaxBuffers));
    std::size_t size = 1;
    while (at("[")) {
      next();
      const Token& d = cur();
      const std::int64_t v = integer(next());
      if (v <= 0 || v > 65536) fail(d.loc, fmt::format("array dimension {} out of range", v));
      b.shape.push_back(static_cast<std::size_t>(v));
      size *= static_cast<std::size_t>(v);
      if (size > 65536) fail(d.loc, "buffer larger than 65536 elements");
      expect("]", "']'");
    }
    if (b.shape.empty()) b.shape.push_back(1);
    buffer_elements_ += size;
    if (buffer_elements_ > kMaxBufferElements)
      fail(n.loc,
           fmt::format("the buffers hold more than {} elements together", kMaxBufferElements));
    b.init.assign(size, 0);
    b.given.assign(size, false);
    if (at("=")) {
      next();
      b.init = values(b.elem, size, n.text);
      b.given.assign(size, true);
    }
    expect(";", "';' after the buffer");
    prog_.buffers.push_back(std::move(b));
  }

  // A core name `P<n>` (or `<n>`), as its index.
  std::optional<std::size_t> core_prefix() {
    if (!(look(1).kind == T::Punct && look(1).text == ":")) return std::nullopt;
    const Token& t = cur();
    std::string digits;
    if (t.kind == T::Ident && t.text.size() >= 2 && t.text[0] == 'P')
      digits = t.text.substr(1);
    else if (t.kind == T::Number)
      digits = t.text;
    else
      return std::nullopt;
    const std::optional<std::uint64_t> v = unsigned_integer(digits);
    if (!v || *v > 63 || digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0)
      fail(t.loc, fmt::format("bad core name {}: expected P0 ... P63", describe(t)));
    next();
    next();
    return static_cast<std::size_t>(*v);
  }

  // `P0:%v : !pto.vreg<64xf32> = {...};`, `P0:%m : !pto.mask<b32> = "PAT_VL4";`,
  // `P0:%n : index = 4;`
  void parse_register_init() {
    const SourceLoc at_loc = cur().loc;
    const auto core = core_prefix();
    if (!core)
      fail(at_loc, fmt::format("expected 'ub TYPE name[N]' or 'P<n>:%name : TYPE = ...', found {}",
                               describe(cur())));
    const Token& name = expect_kind(T::Value, "a %name");
    expect(":", "':' and the value's type");
    const Token& ty = cur();
    next();
    expect("=", "'='");
    PendingInit pi;
    pi.core = *core;
    pi.name = name;
    pi.type = ty;
    if (ty.kind == T::Ident && ty.text == "index") {
      const bool neg = at("-") ? (next(), true) : false;
      pi.index = integer(next(), neg);
    } else if (ty.kind == T::Type && ty.text.rfind("!pto.mask", 0) == 0) {
      const unsigned bytes = mask_granularity(ty, false).value_or(4);
      pi.mask = MaskValue{mask_init(bytes), bytes, name.loc};
    } else if (ty.kind == T::Type && ty.text.rfind("!pto.vreg", 0) == 0) {
      pi.elem = vreg_type(ty);
      pi.lanes = values(*pi.elem, p::lanes_of(*pi.elem), name.text);
    } else {
      fail(ty.loc,
           fmt::format("expected index, !pto.mask<bK> or !pto.vreg<NxT>, found {}", describe(ty)));
    }
    expect(";", "';'");
    inits_.push_back(std::move(pi));
  }

  // `{v, v, ...}` (exactly n values, or fewer followed by `...`: the rest 0),
  // `splat(v)` or `iota(a)` / `iota(a, step)`: a, a+step, ...
  p::Lanes values(p::Elem e, std::size_t n, const std::string& what) {
    p::Lanes out;
    const SourceLoc start = cur().loc;
    if (at("splat") || at("iota")) {
      const bool splat = next().text == "splat";
      expect("(", "'('");
      const auto [a, aloc] = literal(e);
      std::uint64_t step = 1;
      if (!splat && at(",")) {
        next();
        step = literal(e).first;
      } else if (!splat && p::is_float(e)) {
        step = *literal_bits("1", p::data_type(e));
      }
      expect(")", "')'");
      std::uint64_t v = a;
      for (std::size_t i = 0; i < n; ++i) {
        out.push_back(v);
        if (!splat) v = step_value(e, v, step);
      }
      return out;
    }
    expect("{", "'{', splat(v) or iota(a)");
    bool rest_zero = false;
    while (!at("}")) {
      if (at("...")) {
        next();
        rest_zero = true;
        break;
      }
      const SourceLoc vloc = cur().loc;
      out.push_back(literal(e).first);
      if (out.size() > n)
        fail(vloc, fmt::format("{} holds {} elements; this is element {}", what, n, out.size()));
      if (at(","))
        next();
      else if (!at("}") && !at("..."))
        fail(cur().loc, fmt::format("expected ',' or '}}', found {}", describe(cur())));
    }
    expect("}", "'}'");
    if (out.size() < n && !rest_zero)
      fail(start, fmt::format("{} holds {} elements but {} are given (end the list with '...' to "
                              "zero the rest)",
                              what, n, out.size()));
    out.resize(n, 0);
    return out;
  }

  std::uint64_t step_value(p::Elem e, std::uint64_t v, std::uint64_t step) const {
    if (p::is_float(e)) return float_add(p::float_format(e), v, step, false);
    const unsigned w = p::bits_of(e);
    return w >= 64 ? v + step : (v + step) & ((1ull << w) - 1);
  }

  // One literal at element type `e`: integers, floats, inf, nan, 0x bits.
  std::pair<std::uint64_t, SourceLoc> literal(p::Elem e) {
    const SourceLoc loc = cur().loc;
    std::string text;
    if (at("-") || at("+")) text = next().text;
    const Token& t = next();
    if (t.kind != T::Number && t.kind != T::Ident)
      fail(t.loc, fmt::format("expected a value, found {}", describe(t)));
    text += t.text;
    const auto bits = literal_bits(text, p::data_type(e));
    if (!bits)
      fail(loc, fmt::format("'{}' is not a value of type {}", printable(text), p::to_string(e)));
    return {*bits, loc};
  }

  // `{1, 0, 1, ...}` per lane at granularity `bytes`, or a pattern string.
  p::Mask mask_init(unsigned bytes) {
    if (cur().kind == T::String) {
      const Token& s = next();
      return pattern(s, bytes);
    }
    const unsigned lanes = p::kVregBytes / bytes;
    std::vector<bool> bits;
    const SourceLoc start = cur().loc;
    expect("{", "'{' or a pattern string");
    bool rest_zero = false;
    while (!at("}")) {
      if (at("...")) {
        next();
        rest_zero = true;
        break;
      }
      const Token& b = cur();
      const std::int64_t v = integer(next());
      if (v != 0 && v != 1) fail(b.loc, "a mask lane is 0 or 1");
      bits.push_back(v == 1);
      if (bits.size() > lanes) fail(b.loc, fmt::format("the mask has {} lanes", lanes));
      if (at(",")) next();
    }
    expect("}", "'}'");
    if (bits.size() < lanes && !rest_zero)
      fail(start, fmt::format("the mask has {} lanes but {} are given (end with '...' to clear "
                              "the rest)",
                              lanes, bits.size()));
    return p::mask_of(bits, bytes);
  }

  // pset patterns (docs/litmus-format.md), the tokens PTO's own predicate
  // documentation lists: PAT_ALL, PAT_ALLF (none), PAT_VLn (the first n
  // lanes, n in 1-4, 8, 16, 32, 64, 128), PAT_H and PAT_Q (the high half,
  // the upper quarter), PAT_M3 and PAT_M4 (the largest multiple of 3 / 4
  // lanes, as SVE's MUL3/MUL4).
  p::Mask pattern(const Token& s, unsigned bytes) const {
    if (s.text.size() > kMaxTypeText) fail(s.loc, fmt::format("{} is too long", describe(s)));
    const unsigned lanes = p::kVregBytes / bytes;
    unsigned count = 0, first = 0;  // lanes [first, first + count) are active
    const std::string& n = s.text;
    static const std::regex vl("PAT_VL([0-9]+)");
    std::smatch m;
    if (n == "PAT_ALL") {
      count = lanes;
    } else if (n == "PAT_ALLF") {
      count = 0;
    } else if (n == "PAT_H") {
      count = lanes / 2, first = lanes - count;
    } else if (n == "PAT_Q") {
      count = lanes / 4, first = lanes - count;
    } else if (n == "PAT_M3" || n == "PAT_M4") {
      const unsigned k = n.back() - '0';
      count = lanes / k * k;
    } else if (std::regex_match(n, m, vl)) {
      const std::uint64_t v =
          static_cast<std::uint64_t>(integer_at(m[1].str(), false, file_, s.loc));
      const bool known = (v >= 1 && v <= 4) || v == 8 || v == 16 || v == 32 || v == 64 || v == 128;
      if (!known)
        fail(s.loc, fmt::format("unknown pattern \"{}\": PAT_VLn takes n in 1-4, 8, 16, "
                                "32, 64, 128",
                                n));
      if (v > lanes)
        fail(s.loc,
             fmt::format("\"{}\" asks for {} lanes but a b{} mask has {}", n, v, bytes * 8, lanes));
      count = static_cast<unsigned>(v);
    } else {
      fail(s.loc, fmt::format("unknown pattern \"{}\": expected PAT_ALL, PAT_ALLF, PAT_VLn, PAT_H, "
                              "PAT_Q, PAT_M3 or PAT_M4",
                              printable(n)));
    }
    std::vector<bool> bits(lanes, false);
    std::fill(bits.begin() + first, bits.begin() + first + count, true);
    return p::mask_of(bits, bytes);
  }

  // ---- types -------------------------------------------------------------------
  // `!pto.vreg<NxT>`: T one of the element types, N*size exactly 256 bytes.
  p::Elem vreg_type(const Token& t) const {
    if (t.text.size() > kMaxTypeText) fail(t.loc, fmt::format("{} is too long", describe(t)));
    static const std::regex re(R"(!pto\.vreg<([0-9]+)x([a-z0-9]+)>)");
    std::smatch m;
    if (!std::regex_match(t.text, m, re))
      fail(t.loc, fmt::format("expected !pto.vreg<NxT>, found {}", describe(t)));
    const auto e = p::parse_elem(m[2].str());
    if (!e)
      fail(t.loc, fmt::format("unknown element type '{}' in {}: expected i16, i32, i64, f16 "
                              "or f32",
                              m[2].str(), t.text));
    const auto n = static_cast<std::uint64_t>(integer_at(m[1].str(), false, file_, t.loc));
    if (n != p::lanes_of(*e))
      fail(t.loc, fmt::format("{} holds {} bytes; a vector register is 256 bytes: "
                              "!pto.vreg<{}x{}>",
                              t.text,
                              n < (1ull << 32) ? fmt::format("{}", n * p::bits_of(*e) / 8)
                                               : std::string("too many"),
                              p::lanes_of(*e), p::to_string(*e)));
    return *e;
  }

  // `!pto.mask<b8|b16|b32>` → 1, 2, 4 bytes; the seed's placeholder `<G>`
  // (any other capitalised name) when allowed → nullopt.
  std::optional<unsigned> mask_granularity(const Token& t, bool placeholder_ok) const {
    if (t.text.size() > kMaxTypeText) fail(t.loc, fmt::format("{} is too long", describe(t)));
    static const std::regex re(R"(!pto\.mask<([A-Za-z0-9_]+)>)");
    std::smatch m;
    if (!std::regex_match(t.text, m, re))
      fail(t.loc, fmt::format("expected !pto.mask<b8|b16|b32>, found {}", describe(t)));
    const std::string g = m[1].str();
    if (g == "b8") return 1;
    if (g == "b16") return 2;
    if (g == "b32") return 4;
    if (placeholder_ok && std::isupper(static_cast<unsigned char>(g[0]))) return std::nullopt;
    fail(t.loc, fmt::format("unknown mask granularity '{}': expected b8, b16 or b32", g));
  }

  // ---- program -------------------------------------------------------------------
  void parse_cores() {
    std::size_t core = 0;
    bool any = false;
    while (!at_tail()) {
      if (const auto c = core_prefix()) core = *c;
      if (!at("pto.vecscope"))
        fail(cur().loc, fmt::format("expected 'pto.vecscope {{' (optionally after P<n>:), found {}",
                                    describe(cur())));
      next();
      expect("{", "'{' after pto.vecscope");
      std::vector<Stmt> body = block();
      if (regions_.size() <= core) regions_.resize(core + 1), has_region_.resize(core + 1);
      has_region_[core] = true;
      for (Stmt& s : body) regions_[core].push_back(std::move(s));
      any = true;
    }
    if (!any) fail(cur().loc, "expected a 'pto.vecscope { ... }' region");
  }

  bool at_tail() const {
    const Token& t = cur();
    if (t.kind == T::End) return true;
    if (t.kind == T::Punct && t.text == "~") return true;
    return t.kind == T::Ident && (t.text == "exists" || t.text == "forall" ||
                                  t.text == "locations" || t.text == "filter");
  }

  // Statements up to the matching '}'.
  std::vector<Stmt> block() {
    std::vector<Stmt> out;
    while (!at("}")) {
      if (cur().kind == T::End) fail(cur().loc, "unterminated region: expected '}'");
      out.push_back(statement());
    }
    next();
    return out;
  }

  // The source text of a statement from token `from` to the current one.
  std::string text_from(std::size_t from) const {
    const std::size_t b = toks_[from].offset;
    const std::size_t e = pos_ > from ? toks_[pos_ - 1].offset + toks_[pos_ - 1].text.size() : b;
    std::string s(text_.substr(b, std::min(e, text_.size()) - b));
    for (char& c : s)
      if (c == '\n' || c == '\t') c = ' ';
    return s.size() > 120 ? s.substr(0, 117) + "..." : s;
  }

  Stmt statement() {
    const std::size_t from = pos_;
    Stmt s;
    s.loc = cur().loc;
    if (cur().kind == T::Value && look(1).text == "=") {
      s.result = Name{cur().text, cur().loc};
      next();
      next();
    }
    const Token& op = expect_kind(T::Ident, "an operation");
    s.mnemonic = op.text;
    s.loc = op.loc;
    const auto need_result = [&](bool want) {
      if (want && s.result.text.empty())
        fail(op.loc, fmt::format("{} produces a value: write %name = {} ...", op.text, op.text));
      if (!want && !s.result.text.empty())
        fail(s.result.loc, fmt::format("{} produces no value", op.text));
    };
    if (op.text == "arith.constant") {
      need_result(true);
      constant(s);
    } else if (op.text.rfind("pto.pset_b", 0) == 0) {
      need_result(true);
      pset(s, op);
    } else if (op.text == "pto.vlds") {
      need_result(true);
      load(s);
    } else if (op.text == "pto.vsts") {
      need_result(false);
      store(s);
    } else if (const auto r = p::parse_reduce(op.text)) {
      need_result(true);
      s.k = Stmt::K::Reduce;
      s.reduce = *r;
      reduction(s);
    } else if (op.text == "pto.barrier") {
      need_result(false);
      barrier(s);
    } else if (op.text == "scf.for") {
      need_result(false);
      loop(s);
    } else if (op.text == "scf.yield") {
      need_result(false);
      s.k = Stmt::K::Barrier;
      s.mnemonic = "scf.yield";
    } else if (op.text == "pto.vccgmin") {
      fail(op.loc,
           "unknown operation 'pto.vccgmin': the seed names it once, in its execution "
           "model; the operation is pto.vcgmin");
    } else {
      fail(op.loc, fmt::format("unknown operation '{}' (docs/litmus-format.md lists the PTO "
                               "operations)",
                               printable(op.text)));
    }
    s.text = text_from(from);
    if (s.k != Stmt::K::For && s.mnemonic != "scf.yield") s.static_op = add_static(s);
    return s;
  }

  std::size_t add_static(const Stmt& s) {
    p::StaticOp st;
    st.loc = s.loc;
    st.text = s.text;
    st.mnemonic = s.mnemonic;
    st.reduce = s.reduce;
    st.elem = s.elem.value_or(p::Elem::F32);
    switch (s.k) {
      case Stmt::K::Load: st.kind = p::OpKind::Load; break;
      case Stmt::K::Store: st.kind = p::OpKind::Store; break;
      case Stmt::K::Reduce: st.kind = p::OpKind::Reduce; break;
      default: st.kind = p::OpKind::Barrier; break;
    }
    prog_.statics.push_back(std::move(st));
    return prog_.statics.size() - 1;
  }

  // `: type` trailers. Types are checked against the operands where the op
  // reads them; `: ...` (the seed's elision) leaves them to the operands.
  std::vector<Token> type_list() {
    std::vector<Token> out;
    if (!at(":")) return out;
    next();
    if (at("...")) {
      next();
      return out;
    }
    for (;;) {
      if (cur().kind != T::Type && cur().kind != T::Ident)
        fail(cur().loc, fmt::format("expected a type, found {}", describe(cur())));
      out.push_back(next());
      if (at(",") || at("->")) {
        next();
        continue;
      }
      return out;
    }
  }

  void constant(Stmt& s) {
    s.k = Stmt::K::Const;
    const bool neg = at("-") ? (next(), true) : false;
    s.value = integer(next(), neg);
    const auto types = type_list();
    for (const Token& t : types)
      if (t.text != "index" && t.text != "i32" && t.text != "i64")
        fail(t.loc, fmt::format("arith.constant here makes loop bounds and offsets: type index, "
                                "i32 or i64, not {}",
                                describe(t)));
  }

  void pset(Stmt& s, const Token& op) {
    s.k = Stmt::K::Pset;
    const std::string g = op.text.substr(std::string("pto.pset_").size());
    if (g != "b8" && g != "b16" && g != "b32")
      fail(op.loc, fmt::format("unknown operation '{}': expected pto.pset_b8, _b16 or _b32",
                               printable(op.text)));
    s.mask_bytes = g == "b8" ? 1 : g == "b16" ? 2 : 4;
    const Token& pat = expect_kind(T::String, "a pattern string such as \"PAT_ALL\"");
    s.pattern = pat.text;
    s.dist_loc = pat.loc;
    s.pset_mask = pattern(pat, s.mask_bytes);  // built once, not per iteration
    for (const Token& t : type_list()) {
      const auto b = mask_granularity(t, true);
      if (b && *b != s.mask_bytes)
        fail(t.loc, fmt::format("{} makes a b{} mask, not {}", op.text, s.mask_bytes * 8, t.text));
    }
  }

  Name value_name(std::string_view what) {
    const Token& t = expect_kind(T::Value, what);
    return Name{t.text, t.loc};
  }

  Index index_operand() {
    Index i;
    if (cur().kind == T::Number) {
      i.value = integer(cur());
      i.name.loc = cur().loc;
      next();
    } else {
      i.name = value_name("an index (%name or a number)");
    }
    return i;
  }

  void address(Stmt& s) {
    s.buffer = value_name("a buffer (%name)");
    expect("[", "'[' and an index");
    s.indices.push_back(index_operand());
    while (at(",")) {
      next();
      s.indices.push_back(index_operand());
    }
    expect("]", "']'");
  }

  // `{dist = "..."}`
  void attributes(Stmt& s) {
    if (!at("{")) return;
    next();
    while (!at("}")) {
      const Token& key = expect_kind(T::Ident, "an attribute name");
      expect("=", "'='");
      const Token& v = cur();
      next();
      if (key.text == "dist") {
        if (v.kind != T::String) fail(v.loc, "dist takes a string, as in {dist = \"NORM\"}");
        s.dist = v.text;
        s.dist_loc = v.loc;
      } else {
        fail(key.loc,
             fmt::format("unknown attribute '{}' (only dist is read)", printable(key.text)));
      }
      if (at(",")) next();
    }
    next();
  }

  // Reads the vreg, mask and ptr types among `types`.
  void read_types(Stmt& s, const std::vector<Token>& types) {
    for (const Token& t : types) {
      if (t.text.rfind("!pto.vreg", 0) == 0) {
        const p::Elem e = vreg_type(t);
        if (s.elem && *s.elem != e)
          fail(t.loc, fmt::format("{} does not match the operation's type !pto.vreg<{}x{}>", t.text,
                                  p::lanes_of(*s.elem), p::to_string(*s.elem)));
        s.elem = e;
        s.elem_loc = t.loc;
      } else if (t.text.rfind("!pto.mask", 0) == 0) {
        if (auto b = mask_granularity(t, true)) {
          s.mask_type_bytes = b;
          s.mask_type_loc = t.loc;
        }
      } else if (t.text.rfind("!pto.ptr", 0) == 0) {
        if (t.text.size() > kMaxTypeText) fail(t.loc, "type too long");
        static const std::regex re(R"(!pto\.ptr(<\s*([a-z0-9]+)\s*(,\s*ub\s*)?>)?)");
        std::smatch m;
        if (!std::regex_match(t.text, m, re))
          fail(t.loc, fmt::format("expected !pto.ptr or !pto.ptr<T, ub>, found {}", describe(t)));
        if (m[2].matched) {
          s.ptr_elem = p::parse_elem(m[2].str());
          if (!s.ptr_elem) fail(t.loc, fmt::format("unknown element type in {}", t.text));
          s.ptr_loc = t.loc;
        }
      } else {
        fail(t.loc, fmt::format("unexpected type {} for {}", describe(t), s.mnemonic));
      }
    }
  }

  void load(Stmt& s) {
    s.k = Stmt::K::Load;
    address(s);
    attributes(s);
    read_types(s, type_list());
    if (!s.elem) fail(s.loc, "pto.vlds needs its result type: ... -> !pto.vreg<NxT>");
  }

  // pto.vsts %v, %buf[%i]{, %mask} {dist = "..."} : types
  void store(Stmt& s) {
    s.k = Stmt::K::Store;
    s.src = value_name("the vector to store (%name)");
    expect(",", "','");
    address(s);
    if (at(",")) {
      next();
      s.mask = value_name("a mask (%name)");
    }
    attributes(s);
    read_types(s, type_list());
  }

  // %r = pto.vcXXX %in, %mask : !pto.vreg<NxT>, !pto.mask<G> -> !pto.vreg<NxT>
  void reduction(Stmt& s) {
    s.src = value_name("the input vector (%name)");
    expect(",", "',' and a mask");
    s.mask = value_name("a mask (%name)");
    read_types(s, type_list());
    if (s.elem && !p::takes(s.reduce, *s.elem))
      fail(s.elem_loc, fmt::format("{} takes {}, not {}", s.mnemonic, p::type_list(s.reduce),
                                   p::to_string(*s.elem)));
  }

  void barrier(Stmt& s) {
    s.k = Stmt::K::Barrier;
    const Token& a = expect_kind(T::Attr, "the pipe, as in pto.barrier #pto.pipe");
    if (a.text != "#pto.pipe" && a.text != "#pto.pipe<PIPE_V>" && a.text != "#pto.pipe<PIPE_ALL>")
      fail(a.loc, fmt::format("pto.barrier waits for #pto.pipe (PIPE_V), not {}", describe(a)));
  }

  // scf.for %i = %lb to %ub step %s { ... }
  void loop(Stmt& s) {
    s.k = Stmt::K::For;
    if (++loop_depth_ > kMaxLoopDepth)
      fail(s.loc, fmt::format("scf.for nested deeper than {} levels", kMaxLoopDepth));
    s.iv = value_name("the induction variable (%name)");
    expect("=", "'='");
    s.lb = index_operand();
    expect("to", "'to'");
    s.ub = index_operand();
    expect("step", "'step'");
    s.step = index_operand();
    expect("{", "'{'");
    s.body = block();
    --loop_depth_;
  }

  // ---- elaboration: constants folded, loops unrolled ---------------------------
  struct PendingInit {
    std::size_t core = 0;
    Token name, type;
    std::optional<std::int64_t> index;
    std::optional<MaskValue> mask;
    std::optional<p::Elem> elem;
    p::Lanes lanes;
  };

  void finish_cores() {
    for (const PendingInit& pi : inits_)
      if (pi.core >= regions_.size() || !has_region_[pi.core])
        fail(pi.name.loc, fmt::format("P{} has no pto.vecscope", pi.core));
    for (std::size_t c = 0; c < regions_.size(); ++c) {
      p::Core core;
      core.name = fmt::format("P{}", c);
      if (!has_region_[c])
        fail(cur().loc, fmt::format("cores are numbered from P0 without gaps: P{} has no "
                                    "pto.vecscope",
                                    c));
      Scope scope;
      for (const PendingInit& pi : inits_) {
        if (pi.core != c) continue;
        if (scope.defs.count(pi.name.text) || core.regs.count(pi.name.text))
          fail(pi.name.loc, fmt::format("{} is given twice", pi.name.text));
        scope.defs[pi.name.text] = {SIZE_MAX, pi.name.loc};
        if (pi.index) scope.index[pi.name.text] = *pi.index;
        if (pi.mask) scope.masks[pi.name.text] = *pi.mask;
        if (pi.elem) {
          core.regs[pi.name.text] = *pi.elem;
          core.init[pi.name.text] = pi.lanes;
        }
      }
      iterations_ = 0;
      elaborate(regions_[c], core, scope);
      prog_.cores.push_back(std::move(core));
      ThreadCode tc;
      tc.name = fmt::format("P{}", c);
      test_.threads.push_back(std::move(tc));
    }
  }

  std::int64_t index_of(const Index& i, const Scope& sc) const {
    if (i.value) return *i.value;
    const auto it = sc.index.find(i.name.text);
    if (it == sc.index.end())
      fail(i.name.loc, fmt::format("{} is not an index constant (arith.constant, a loop variable "
                                   "or `P0:{} : index = N;` in the init block)",
                                   i.name.text, i.name.text));
    return it->second;
  }

  void define(const Name& n, std::size_t stmt, Scope& sc) {
    const auto it = sc.defs.find(n.text);
    if (it != sc.defs.end() && it->second.first != stmt)
      fail(n.loc, fmt::format("{} is defined twice (first at {}:{})", n.text,
                              it->second.second.line, it->second.second.col));
    sc.defs[n.text] = {stmt, n.loc};
  }

  const MaskValue& mask_of(const Name& n, const Scope& sc) const {
    const auto it = sc.masks.find(n.text);
    if (it == sc.masks.end())
      fail(n.loc, fmt::format("{} is not a mask (pto.pset_bK, or `P0:{} : !pto.mask<b32> = ...;` "
                              "in the init block)",
                              n.text, n.text));
    return it->second;
  }

  p::Elem reg_of(const Name& n, const p::Core& core) const {
    const auto it = core.regs.find(n.text);
    if (it == core.regs.end())
      fail(n.loc, fmt::format("{} is not a vector register defined before this point in {} (or "
                              "given in the init block)",
                              n.text, core.name));
    return it->second;
  }

  // The mask a vector op of type `e` uses, checked for its granularity.
  p::Mask use_mask(const Stmt& s, p::Elem e, const Scope& sc) const {
    const unsigned need = std::min(4u, p::bits_of(e) / 8);
    if (s.mask_type_bytes && *s.mask_type_bytes != need)
      fail(s.mask_type_loc,
           fmt::format("a !pto.vreg<{}x{}> takes a b{} mask, not b{}", p::lanes_of(e),
                       p::to_string(e), need * 8, *s.mask_type_bytes * 8));
    if (s.mask.text.empty()) return p::Mask().set();
    const MaskValue& m = mask_of(s.mask, sc);
    if (m.bytes != need)
      fail(s.mask.loc, fmt::format("{} is a b{} mask (defined at {}:{}); a !pto.vreg<{}x{}> takes "
                                   "a b{} mask",
                                   s.mask.text, m.bytes * 8, m.def.line, m.def.col, p::lanes_of(e),
                                   p::to_string(e), need * 8));
    return m.mask;
  }

  void emit(p::Core& core, p::Op op) {
    if (core.ops.size() >= kMaxOps)
      fail(op.loc, fmt::format("{} runs more than {} operations once its loops are unrolled",
                               core.name, kMaxOps));
    ++prog_.statics[op.static_op].executions;
    prog_.statics[op.static_op].core = core.name;
    core.ops.push_back(std::move(op));
  }

  p::Op op_of(const Stmt& s, p::OpKind k) const {
    p::Op op;
    op.kind = k;
    op.loc = s.loc;
    op.text = s.text;
    op.static_op = s.static_op;
    return op;
  }

  // One elaboration step at `at` (a statement or a loop iteration), counted
  // against kMaxElaborationSteps.
  void step(SourceLoc at) {
    if (++steps_ > kMaxElaborationSteps)
      fail(at, fmt::format("the program runs more than {} statements and loop iterations once its "
                           "loops are unrolled (all cores together)",
                           kMaxElaborationSteps));
  }

  void elaborate(const std::vector<Stmt>& body, p::Core& core, Scope& sc) {
    for (const Stmt& s : body) {
      step(s.loc);
      switch (s.k) {
        case Stmt::K::Const:
          define(s.result, s.static_op, sc);
          sc.index[s.result.text] = s.value;
          break;
        case Stmt::K::Pset:
          define(s.result, s.static_op, sc);
          sc.masks[s.result.text] = MaskValue{s.pset_mask, s.mask_bytes, s.result.loc};
          break;
        case Stmt::K::Load: run_load(s, core, sc); break;
        case Stmt::K::Store: run_store(s, core, sc); break;
        case Stmt::K::Reduce: run_reduce(s, core, sc); break;
        case Stmt::K::Barrier:
          if (s.mnemonic == "pto.barrier") emit(core, op_of(s, p::OpKind::Barrier));
          break;
        case Stmt::K::For: run_for(s, core, sc); break;
      }
    }
  }

  void run_for(const Stmt& s, p::Core& core, Scope& sc) {
    const std::int64_t lb = index_of(s.lb, sc), ub = index_of(s.ub, sc),
                       step = index_of(s.step, sc);
    if (step <= 0) fail(s.step.name.loc, fmt::format("scf.for step {} is not positive", step));
    // In 128 bits: ub - lb of two int64 bounds can overflow 64.
    const p::Int128 span = static_cast<p::Int128>(ub) - lb;
    const p::Int128 trips = span <= 0 ? 0 : (span + step - 1) / step;
    if (trips > static_cast<p::Int128>(kMaxOps))
      fail(s.loc, fmt::format("scf.for runs {} iterations; at most {} are unrolled",
                              static_cast<unsigned long long>(trips), kMaxOps));
    // Loops whose bodies emit nothing (constants only) are bounded too: the
    // iterations of every loop of a core, nested ones multiplied out.
    iterations_ += static_cast<std::size_t>(trips);
    if (iterations_ > kMaxIterations)
      fail(s.loc, fmt::format("{}'s loops run more than {} iterations once unrolled", core.name,
                              kMaxIterations));
    define(s.iv, SIZE_MAX - 1 - s.static_op, sc);
    for (p::Int128 k = 0; k < trips; ++k) {
      this->step(s.loc);
      sc.index[s.iv.text] = static_cast<std::int64_t>(lb + k * step);
      elaborate(s.body, core, sc);
    }
    sc.index.erase(s.iv.text);
  }

  // The buffer a %name addresses (its name without the %) and the element
  // offset of `s.indices` in it: buf[i] on [R][C] is row i, buf[i, j] its
  // element j.
  std::pair<const p::Buffer*, std::size_t> buffer_address(const Stmt& s, const Scope& sc) const {
    const p::Buffer* b = prog_.buffer(s.buffer.text.substr(1));
    if (!b)
      fail(s.buffer.loc, fmt::format("{} names no buffer: declare `ub T {}[N];` in the init block",
                                     s.buffer.text, s.buffer.text.substr(1)));
    if (s.indices.size() > b->shape.size())
      fail(s.indices.back().name.loc,
           fmt::format("{} has {} dimension(s)", b->name, b->shape.size()));
    std::size_t offset = 0, stride = b->size();
    for (std::size_t d = 0; d < s.indices.size(); ++d) {
      stride /= b->shape[d];
      const std::int64_t i = index_of(s.indices[d], sc);
      if (i < 0 || static_cast<std::size_t>(i) >= b->shape[d])
        fail(s.indices[d].name.loc,
             fmt::format("index {} is outside {}'s dimension of {}", i, b->name, b->shape[d]));
      offset += static_cast<std::size_t>(i) * stride;
    }
    if (s.ptr_elem && *s.ptr_elem != b->elem)
      fail(s.ptr_loc, fmt::format("{} holds {}, not {}", b->name, p::to_string(b->elem),
                                  p::to_string(*s.ptr_elem)));
    return {b, offset};
  }

  p::Dist dist_of(const Stmt& s, p::Elem e, bool store) const {
    if (s.dist.empty() || s.dist == "NORM") return p::Dist::Norm;
    if (!store && (s.dist == "BRC_B32" || s.dist == "BRC_B16" || s.dist == "BRC_B8")) {
      const unsigned bits = s.dist == "BRC_B32" ? 32 : s.dist == "BRC_B16" ? 16 : 8;
      if (bits != p::bits_of(e))
        fail(s.dist_loc, fmt::format("{} broadcasts {}-bit elements; the vector holds {}", s.dist,
                                     bits, p::to_string(e)));
      return p::Dist::Broadcast;
    }
    if (store && s.dist == "1PT") return p::Dist::OnePoint;
    fail(s.dist_loc, fmt::format("unknown dist \"{}\" for {}: expected {}", printable(s.dist),
                                 s.mnemonic, store ? "NORM or 1PT" : "NORM, BRC_B16 or BRC_B32"));
  }

  void run_load(const Stmt& s, p::Core& core, Scope& sc) {
    const p::Elem e = *s.elem;
    const auto [b, offset] = buffer_address(s, sc);
    if (b->elem != e)
      fail(s.elem_loc, fmt::format("{} holds {}; it cannot load into a vector of {}", b->name,
                                   p::to_string(b->elem), p::to_string(e)));
    p::Op op = op_of(s, p::OpKind::Load);
    op.elem = e;
    op.dst = s.result.text;
    op.buffer = b->name;
    op.offset = offset;
    op.dist = dist_of(s, e, false);
    const std::size_t need = op.dist == p::Dist::Norm ? p::lanes_of(e) : 1;
    if (offset + need > b->size())
      fail(s.indices.front().name.loc,
           fmt::format("pto.vlds reads {}[{}..{}] but {} has {} elements", b->name, offset,
                       offset + need - 1, b->name, b->size()));
    set_register(s.result, s.static_op, e, s.elem_loc, core, sc);
    emit(core, std::move(op));
  }

  void set_register(const Name& n, std::size_t stmt, p::Elem e, SourceLoc type_loc, p::Core& core,
                    Scope& sc) {
    define(n, stmt, sc);
    const auto it = core.regs.find(n.text);
    if (it != core.regs.end() && it->second != e)
      fail(type_loc, fmt::format("{} is a vector of {}, not {}", n.text, p::to_string(it->second),
                                 p::to_string(e)));
    core.regs[n.text] = e;
  }

  void run_store(const Stmt& s, p::Core& core, Scope& sc) {
    const p::Elem e = reg_of(s.src, core);
    if (s.elem && *s.elem != e)
      fail(s.elem_loc, fmt::format("{} is a vector of {}, not {}", s.src.text, p::to_string(e),
                                   p::to_string(*s.elem)));
    const auto [b, offset] = buffer_address(s, sc);
    if (b->elem != e)
      fail(s.buffer.loc, fmt::format("{} holds {}; it cannot store a vector of {}", b->name,
                                     p::to_string(b->elem), p::to_string(e)));
    p::Op op = op_of(s, p::OpKind::Store);
    op.elem = e;
    op.src = s.src.text;
    op.buffer = b->name;
    op.offset = offset;
    op.dist = dist_of(s, e, true);
    op.mask = use_mask(s, e, sc);
    const std::size_t need = op.dist == p::Dist::Norm ? p::lanes_of(e) : 1;
    if (offset + need > b->size())
      fail(s.indices.front().name.loc,
           fmt::format("pto.vsts writes {}[{}..{}] but {} has {} elements", b->name, offset,
                       offset + need - 1, b->name, b->size()));
    emit(core, std::move(op));
  }

  void run_reduce(const Stmt& s, p::Core& core, Scope& sc) {
    const p::Elem in = reg_of(s.src, core);
    if (s.elem && *s.elem != in)
      fail(s.elem_loc, fmt::format("{} is a vector of {}, not {}", s.src.text, p::to_string(in),
                                   p::to_string(*s.elem)));
    if (!p::takes(s.reduce, in))
      fail(s.src.loc, fmt::format("{} takes {}, not {}", s.mnemonic, p::type_list(s.reduce),
                                  p::to_string(in)));
    p::Op op = op_of(s, p::OpKind::Reduce);
    op.reduce = s.reduce;
    op.elem = in;
    op.src = s.src.text;
    op.dst = s.result.text;
    op.mask = use_mask(s, in, sc);
    set_register(s.result, s.static_op, in, s.elem_loc, core, sc);
    prog_.statics[s.static_op].elem = in;
    emit(core, std::move(op));
  }

  // ---- condition -------------------------------------------------------------------
  void parse_condition() {
    if (cur().kind == T::End)
      fail(cur().loc, "missing final condition: expected 'exists', 'forall' or '~exists'");
    // The condition part is the litmus container's: hand it over with the
    // program blanked out, so its tokens keep their lines and columns.
    std::string tail(text_);
    for (std::size_t i = 0; i < cur().offset && i < tail.size(); ++i)
      if (tail[i] != '\n') tail[i] = ' ';
    ContainerOptions o;
    o.arch = "PTO";
    o.register_lanes = true;
    o.max_element_index = 65535;
    test_ = parse_condition_tail(tail, file_, std::move(test_), o);
  }

  // Every term names a register lane of its core or a buffer element.
  void check_term(const CondTerm& t) const {
    if (t.kind == CondTerm::Kind::Const) return;
    std::string base = t.name;
    std::size_t index = 0;
    const std::size_t br = base.find('[');
    if (br != std::string::npos) {
      // "name[N]", N checked by the container's condition reader.
      const std::string_view n = std::string_view(base).substr(br + 1);
      index = unsigned_integer(n.substr(0, n.find(']'))).value_or(SIZE_MAX);
      base = base.substr(0, br);
    }
    if (t.kind == CondTerm::Kind::Loc) {
      const p::Buffer* b = prog_.buffer(base);
      if (!b) fail(t.loc, fmt::format("'{}' is not a buffer of this test", base));
      if (index >= b->size())
        fail(t.loc, fmt::format("{} has {} elements; write {}[0] ... {}[{}] (flat index)", base,
                                b->size(), base, base, b->size() - 1));
      return;
    }
    if (t.thread < 0 || static_cast<std::size_t>(t.thread) >= prog_.cores.size())
      fail(t.loc, fmt::format("P{} is not a core of this test", t.thread));
    const p::Core& c = prog_.cores[t.thread];
    const auto it = c.regs.find(base);
    if (it == c.regs.end())
      fail(t.loc, fmt::format("{} is not a vector register of P{}", base, t.thread));
    if (br == std::string::npos) fail(t.loc, fmt::format("name a lane: P{}:{}[0]", t.thread, base));
    if (index >= p::lanes_of(it->second))
      fail(t.loc, fmt::format("{} has {} lanes", base, p::lanes_of(it->second)));
  }

  void check_condition() const {
    std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
      if (e.kind == CondExpr::Kind::Cmp) {
        check_term(e.lhs);
        check_term(e.rhs);
      }
      for (const CondExpr& k : e.kids) walk(k);
    };
    walk(test_.condition);
    if (test_.filter) walk(*test_.filter);
    for (const CondTerm& t : test_.locations) check_term(t);
  }

  std::string_view text_;
  const std::string& file_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  LitmusTest test_;
  p::Program prog_;
  std::vector<PendingInit> inits_;
  std::vector<std::vector<Stmt>> regions_;
  std::vector<bool> has_region_;  // cores with a pto.vecscope, even an empty one
  std::size_t iterations_ = 0;    // loop iterations unrolled so far for the current core
  std::size_t steps_ = 0;         // elaboration steps so far, every core
  std::set<std::string> buffer_names_;
  std::size_t buffer_elements_ = 0;
  int loop_depth_ = 0;
};

}  // namespace

std::vector<LitmusTest> parse_pto_litmus(std::string_view text, const std::string& file) {
  std::vector<LitmusTest> out;
  out.push_back(PtoParser(text, file).parse());
  return out;
}

}  // namespace redscope::detail
