// The herd/Dat3M litmus container grammar (docs/litmus-format.md), shared
// by litmus dialects; instruction cells go to the dialect's parser
// (frontend/ptx_instructions.cpp for PTX). Structure:
//   header → metadata → init block → thread row → instruction rows →
//   [locations] [filter] quantifier condition
#include "redscope/frontend/frontend.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/frontend/container.hpp"
#include "redscope/frontend/lexer.hpp"

namespace redscope {

namespace {

using detail::Tok;
using detail::Token;

using detail::InstructionCell;
using detail::InstructionParser;
using detail::is_register_name;

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const InstructionParser& instructions,
         const detail::ContainerOptions& options)
      : file_(file),
        text_(text),
        instructions_(instructions),
        options_(options) {
    t_.target_sm = options.default_target_sm;
    const std::string body = split_header();
    toks_ = detail::tokenize(body, file);
  }

  // The final part alone (`locations`, `filter`, the condition), for
  // dialects with their own program syntax: `tail` is the whole file with
  // everything before that part blanked out, so locations stay true.
  struct TailOnly {};
  Parser(TailOnly, std::string_view tail, const std::string& file,
         const InstructionParser& instructions, LitmusTest& t)
      : file_(file),
        text_(tail),
        instructions_(instructions),
        t_(std::move(t)) {
    toks_ = detail::tokenize(tail, file);
  }

  void set_options(const detail::ContainerOptions& o) { options_ = o; }

  LitmusTest parse_tail_only() {
    parse_tail();
    return std::move(t_);
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
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    if (pos_ % kTokensPerCheck == 0) check(budget_);
    return t;
  }
  void skip_newlines() {
    while (at(Tok::Newline)) next();
  }

  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }
  [[noreturn]] void fail_here(std::string msg) const { fail(cur().loc, std::move(msg)); }

  const Token& expect(Tok k, std::string_view what) {
    if (!at(k)) fail_here(fmt::format("expected {}, found {}", what, detail::describe(cur())));
    return next();
  }

  std::int64_t number_value(const Token& t, bool negative) const {
    return detail::integer_value(t, negative, file_);
  }

  // [-]NUMBER
  std::int64_t signed_number(std::string_view what) {
    bool neg = false;
    if (at(Tok::Minus)) {
      next();
      neg = true;
    }
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
    auto blank = [&](std::size_t a, std::size_t b) {
      for (std::size_t k = a; k < b; ++k)
        if (body[k] != '\n') body[k] = ' ';
    };
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
    if (t_.arch.empty())
      throw InputError(Diagnostic{
          file_, {1, 1}, fmt::format("empty file: expected '{} <name>'", options_.arch)});
    const std::size_t brace = first_brace_outside_quotes(body, i);
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
    if (brace == std::string::npos)
      throw InputError(Diagnostic{file_, {ln, 1}, "expected '{' to open the init block"});
    return body;
  }

  // The init block's '{': the first one not inside a "quoted comment".
  static std::size_t first_brace_outside_quotes(const std::string& body, std::size_t from) {
    bool quoted = false;
    for (std::size_t k = from; k < body.size(); ++k) {
      if (body[k] == '"')
        quoted = !quoted;
      else if (body[k] == '{' && !quoted)
        return k;
    }
    return std::string::npos;
  }

  void parse_name_line(std::string_view l, int line) {
    const std::size_t a = l.find_first_not_of(" \t\r");
    std::size_t b = l.find_first_of(" \t\r", a);
    if (b == std::string_view::npos) b = l.size();
    const std::string arch(l.substr(a, b - a));
    const SourceLoc at{line, static_cast<int>(a) + 1};
    std::string upper = arch;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper != options_.arch)
      throw InputError(Diagnostic{
          file_, at,
          fmt::format("unsupported architecture '{}': this dialect reads {} litmus tests (first "
                      "line '{} <name>')",
                      printable(arch), options_.arch, options_.arch)});
    t_.arch = std::string(options_.arch);
    std::string name(l.substr(b));
    name.erase(0, name.find_first_not_of(" \t"));
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t' || name.back() == '\r'))
      name.pop_back();
    if (name.empty())
      throw InputError(Diagnostic{file_,
                                  {line, static_cast<int>(b) + 1},
                                  fmt::format("expected a test name after '{}'", options_.arch)});
    t_.name = name;
  }

  void parse_metadata_line(std::string_view l, int line) {
    const std::size_t a = l.find_first_not_of(" \t\r");
    if (a == std::string_view::npos || l[a] == '"') return;
    std::size_t b = a;
    while (b < l.size() &&
           (std::isalnum(static_cast<unsigned char>(l[b])) || l[b] == '_' || l[b] == '-'))
      ++b;
    std::size_t eq = l.find_first_not_of(" \t", b);
    if (b == a || eq == std::string_view::npos || l[eq] != '=') return;  // free text
    const std::string key(l.substr(a, b - a));
    std::string value(l.substr(eq + 1));
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
      value.pop_back();
    const SourceLoc vloc{line, static_cast<int>(eq) + 2};
    if (value.empty())
      throw InputError(Diagnostic{file_, vloc, fmt::format("metadata '{}' has no value", key)});
    t_.metadata[key] = value;
    if (key == "Target") {
      int sm = 0;
      const bool ok =
          value.size() > 3 && value.rfind("sm_", 0) == 0 &&
          std::from_chars(value.data() + 3, value.data() + value.size(), sm).ec == std::errc() &&
          sm > 0 && sm < 1000 && value.find_first_not_of("0123456789", 3) == std::string::npos;
      if (!ok)
        throw InputError(
            Diagnostic{file_, vloc, fmt::format("Target must look like sm_90, found '{}'", value)});
      t_.target_sm = sm;
    }
  }

  // ---- init block ----------------------------------------------------------
  void parse_init() {
    skip_newlines();
    expect(Tok::LBrace, "'{'");
    for (;;) {
      skip_newlines();
      if (at(Tok::RBrace)) {
        next();
        break;
      }
      if (at(Tok::Semi)) {
        next();
        continue;
      }
      if (at(Tok::End)) fail_here("unterminated init block: expected '}'");
      parse_init_entry();
      skip_newlines();
      if (!at(Tok::Semi) && !at(Tok::RBrace))
        fail_here(fmt::format("expected ';' or '}}' after an init entry, found {}",
                              detail::describe(cur())));
    }
    if (at(Tok::Semi)) next();
  }

  // Parses `P0:r0` / `0:r0` and returns the thread index; the register token follows.
  std::optional<ThreadId> thread_prefix() {
    if (at(Tok::Ident) && look(1).kind == Tok::Colon) {
      const Token& p = cur();
      if (p.text.size() >= 2 && p.text[0] == 'P' &&
          std::all_of(p.text.begin() + 1, p.text.end(),
                      [](char c) { return c >= '0' && c <= '9'; })) {
        next();
        next();
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

  // `[global|shared] [type] name = value;`, `type name[N] = {v, ...};`,
  // untyped `x = 1;` and registers `P0:r0 = 1;`.
  void parse_init_entry() {
    InitEntry e;
    e.loc = cur().loc;
    e.thread = thread_prefix();
    if (!e.thread) parse_declaration_prefix(e);
    if (!at(Tok::Ident))
      fail_here(
          fmt::format("expected a location or register name, found {}", detail::describe(cur())));
    const Token& name = next();
    if (at(Tok::At) && look(1).kind == Tok::Ident &&
        (look(1).text == "cta" || look(1).text == "gpu" || look(1).text == "cluster"))
      fail(name.loc, "unterminated init block: expected '}' before the thread row");
    if (at(Tok::At)) {
      if (e.thread || e.type || e.space)
        fail(cur().loc, "an alias declaration is `name @ PROXY aliases location;`, nothing more");
      return parse_alias(name);
    }
    if (!e.thread && is_register_name(name.text))
      fail(name.loc,
           fmt::format("register '{}' needs a thread prefix, as in P0:{}", name.text, name.text));
    if (name.text.find('.') != std::string::npos)
      fail(name.loc, fmt::format("'{}' is not a valid name", name.text));
    e.name = name.text;
    if (e.surface)
      parse_surface_dims(e, name);
    else if (at(Tok::LBracket))
      parse_array_size(e);
    const bool declared = e.type || e.space || e.count;
    if (at(Tok::Assign) || at(Tok::EqEq)) {
      next();
      parse_init_values(e);
    } else if (!declared) {
      fail_here(fmt::format("expected '=' after '{}'", name.text));
    }
    // Sets, not scans: 100,000 init entries were quadratic (issue 28).
    if (!init_names_.emplace(e.thread.value_or(-1), e.name).second)
      fail(e.loc, fmt::format("'{}' is initialised twice", e.name));
    if (e.surface) surfaces_.insert(e.name);
    t_.init.push_back(std::move(e));
  }

  // Dat3M's `y @ generic aliases x;` (another virtual address of x's memory)
  // and `s @ surface|texture|constant aliases x;` (x's address, reached
  // through that proxy); resolved at expansion (events/aliases.hpp).
  void parse_alias(const Token& name) {
    next();  // @
    AliasDecl a;
    a.name = name.text;
    a.loc = name.loc;
    if (!at(Tok::Ident))
      fail_here(
          fmt::format("expected a proxy (generic, surface, texture or constant) after '@', "
                      "found {}",
                      detail::describe(cur())));
    const Token& proxy = next();
    static constexpr std::pair<std::string_view, Proxy> kinds[] = {{"generic", Proxy::Generic},
                                                                   {"surface", Proxy::Surface},
                                                                   {"texture", Proxy::Texture},
                                                                   {"constant", Proxy::Constant}};
    bool known = false;
    for (const auto& [n, p] : kinds)
      if (proxy.text == n) {
        a.proxy = p;
        known = true;
      }
    if (!known)
      fail(proxy.loc,
           fmt::format("unknown proxy '{}' (generic, surface, texture or constant)", proxy.text));
    if (!at(Tok::Ident) || cur().text != "aliases")
      fail_here(fmt::format("expected 'aliases' after '@ {}', found {}", proxy.text,
                            detail::describe(cur())));
    next();
    if (!at(Tok::Ident))
      fail_here(fmt::format("expected the aliased location, found {}", detail::describe(cur())));
    const Token& target = next();
    a.target = target.text;
    const bool declared = init_names_.count({-1, a.target}) || aliases_.count(a.target);
    if (!declared)
      fail(target.loc,
           fmt::format("'{}' aliases '{}', which is not declared before it", a.name, a.target));
    aliases_.insert(a.name);
    t_.aliases.push_back(std::move(a));
  }

  void parse_declaration_prefix(InitEntry& e) {
    if (at(Tok::Ident) && cur().text == "multimem" && look(1).kind == Tok::LParen) {
      // multimem(G0, G1, ...) TYPE name[N]: a replica on each GPU listed.
      next();
      next();
      for (;;) {
        const Token& g = expect(Tok::Number, "a GPU number");
        const std::int64_t v = number_value(g, false);
        if (v < 0 || v > 63) fail(g.loc, "a GPU number is between 0 and 63");
        if (std::find(e.replicas.begin(), e.replicas.end(), v) != e.replicas.end())
          fail(g.loc, fmt::format("GPU {} is listed twice", v));
        e.replicas.push_back(static_cast<int>(v));
        if (at(Tok::Comma)) {
          next();
          continue;
        }
        expect(Tok::RParen, "',' or ')' after the GPUs of a multimem range");
        break;
      }
      e.space = Space::Global;
      if (!at(Tok::Ident) || !parse_data_type(cur().text))
        fail_here(fmt::format("expected the element type of the multimem range, found {}",
                              detail::describe(cur())));
      e.type = parse_data_type(next().text);
      return;
    }
    if (at(Tok::Ident) && cur().text == "surface" && look(1).kind == Tok::Ident) {
      // surface FORMAT name[W][H][D]: samples in global memory.
      e.surface = true;
      e.space = Space::Global;
      next();
      const Token& f = cur();
      e.type = parse_data_type(f.text);
      if (!e.type || (*e.type != DataType::U32 && *e.type != DataType::S32 &&
                      *e.type != DataType::U64 && *e.type != DataType::S64))
        fail(f.loc, fmt::format("surface sample format '{}': u32 or u64 (UINT data), s32 or s64 "
                                "(SINT data)",
                                f.text));
      next();
      return;
    }
    if (at(Tok::Ident) && look(1).kind == Tok::Ident) {
      const std::string& w = cur().text;
      if (w == "global")
        e.space = Space::Global;
      else if (w == "shared" || w == "shared::cta")
        e.space = Space::SharedCta;
      else if (w == "shared::cluster")
        e.space = Space::SharedCluster;
      if (e.space) next();
    }
    if (at(Tok::Ident) && look(1).kind == Tok::Ident) {
      e.type = parse_data_type(cur().text);
      if (!e.type)
        fail_here(
            fmt::format("unknown type '{}' in a declaration (b16..b64, u16..u64, s16..s64, f16, "
                        "bf16, f16x2, bf16x2, f32, f64)",
                        cur().text));
      next();
    }
  }

  // s[W], s[W][H] or s[W][H][D]: at most 64 samples in all.
  void parse_surface_dims(InitEntry& e, const Token& name) {
    if (!at(Tok::LBracket))
      fail_here(fmt::format("a surface has a size: {}[W], {}[W][H] or {}[W][H][D]", name.text,
                            name.text, name.text));
    std::size_t total = 1;
    while (at(Tok::LBracket)) {
      if (e.dims.size() == 3) fail_here("a surface has at most three dimensions");
      next();
      const Token& n = expect(Tok::Number, "a surface dimension");
      const std::int64_t v = number_value(n, false);
      if (v < 1 || v > 64) fail(n.loc, "a surface dimension is between 1 and 64");
      e.dims.push_back(static_cast<std::size_t>(v));
      total *= static_cast<std::size_t>(v);
      if (total > 64) fail(n.loc, "a surface holds at most 64 samples");
      expect(Tok::RBracket, "']'");
    }
    e.count = total;
  }

  void parse_array_size(InitEntry& e) {
    next();
    const Token& n = expect(Tok::Number, "an array length");
    const std::int64_t v = number_value(n, false);
    if (v < 1 || v > 64) fail(n.loc, "array length must be between 1 and 64");
    e.count = static_cast<std::size_t>(v);
    expect(Tok::RBracket, "']'");
  }

  void parse_init_values(InitEntry& e) {
    // A register may hold a surface (indirect sured): `P0:rs = sA;`.
    if (e.thread && at(Tok::Ident) && surfaces_.count(cur().text)) {
      const Token& n = next();
      e.values.push_back(Literal{n.text, n.loc});
      return;
    }
    // SASS: a register may hold a location's address (`P0:R2 = x;`).
    if (options_.address_registers && e.thread && at(Tok::Ident) && cur().text != "inf" &&
        cur().text != "nan") {
      const Token& n = next();
      e.values.push_back(Literal{n.text, n.loc});
      return;
    }
    if (at(Tok::Amp) || (at(Tok::Ident) && cur().text != "inf" && cur().text != "nan"))
      fail_here(
          "address values are not supported: initialise locations and registers with numbers "
          "(a register may hold a surface declared before it)");
    if (!at(Tok::LBrace)) {
      if (e.count) fail_here(fmt::format("initialise the array '{}' with {{v0, v1, ...}}", e.name));
      e.values.push_back(literal("an initial value"));
      return;
    }
    const SourceLoc start = cur().loc;
    if (!e.count)
      fail(start, fmt::format("'{}' is not an array: declare it as {}[N]", e.name, e.name));
    next();
    for (;;) {
      e.values.push_back(literal("an initial value"));
      if (at(Tok::Comma)) {
        next();
        continue;
      }
      expect(Tok::RBrace, "',' or '}'");
      break;
    }
    if (e.values.size() != *e.count)
      fail(start, fmt::format("'{}' has {} element(s) but {} initial value(s)", e.name, *e.count,
                              e.values.size()));
  }

  // [-]NUMBER | inf | nan, kept as text: its bits depend on the type it is read at.
  Literal literal(std::string_view what) {
    Literal l{"", cur().loc};
    if (at(Tok::Minus)) {
      next();
      l.text = "-";
    }
    if (!at(Tok::Number) && !(at(Tok::Ident) && (cur().text == "inf" || cur().text == "nan")))
      fail_here(fmt::format("expected {} (a number), found {}", what, detail::describe(cur())));
    l.text += next().text;
    return l;
  }

  // ---- thread declaration row ---------------------------------------------
  void parse_thread_row() {
    skip_newlines();
    for (;;) {
      ThreadCode tc;
      tc.loc = cur().loc;
      if (!at(Tok::Ident))
        fail_here(
            fmt::format("expected a thread name such as P0, found {}", detail::describe(cur())));
      const Token& name = next();
      const std::string expected = fmt::format("P{}", t_.threads.size());
      if (name.text != expected)
        fail(name.loc, fmt::format("expected thread '{}' here, found '{}'", expected, name.text));
      tc.name = name.text;
      const int idx = static_cast<int>(t_.threads.size());
      tc.place = Placement{idx, -1 - idx, 0};  // a CTA of its own, a cluster of its own
      if (at(Tok::At)) {
        next();
        tc.place = parse_placement();
      }
      cluster_at_.push_back(last_cluster_at_.value_or(tc.loc));
      t_.threads.push_back(std::move(tc));
      if (at(Tok::Bar)) {
        next();
        continue;
      }
      if (at(Tok::Semi)) {
        next();
        break;
      }
      fail_here(
          fmt::format("expected '|' or ';' in the thread row, found {}", detail::describe(cur())));
    }
    if (!at(Tok::Newline) && !at(Tok::End))
      fail_here("expected the end of the line after the thread row");
    check_placements();
  }

  // A CTA runs in exactly one cluster of one GPU (PTX "Cluster of
  // Cooperative Thread Arrays"): threads that name the same CTA must agree on
  // its cluster, and a CTA placed without a cluster is a cluster of its own.
  void check_placements() const {
    std::map<std::pair<int, int>, const ThreadCode*> ctas;
    for (const ThreadCode& tc : t_.threads) {
      const auto [it, fresh] = ctas.emplace(std::make_pair(tc.place.gpu, tc.place.cta), &tc);
      const Placement& o = it->second->place;
      if (fresh || o.cluster == tc.place.cluster) continue;
      auto where = [](const Placement& p) {
        return p.cluster < 0 ? std::string("without a cluster (a cluster of its own)")
                             : fmt::format("in cluster {}", p.cluster);
      };
      fail(tc.loc, fmt::format("CTA {} of GPU {} is placed {} here but {} by {} (line {}): a CTA "
                               "belongs to exactly one cluster",
                               tc.place.cta, tc.place.gpu, where(tc.place), where(o),
                               it->second->name, it->second->loc.line));
    }
    check_cluster_target();
  }

  // Clusters of several CTAs exist from sm_90 (PTX ISA §2.2.2: "Cluster level
  // is applicable only on target architecture sm_90 or higher ... otherwise it
  // will be treated as implicit cluster launch with default dimension 1x1x1";
  // %clusterid: "Requires sm_90 or higher."); before, every CTA is an implicit
  // cluster of one. So below sm_90 a `cluster N` is valid only as the CTA's own
  // (N = its CTA number), which is what no cluster says. A rule of the machine
  // the placement row describes, so the container's, whatever the dialect.
  void check_cluster_target() const {
    constexpr int kClusterSm = 90;
    if (t_.target_sm >= kClusterSm) return;
    for (std::size_t i = 0; i < t_.threads.size(); ++i) {
      const Placement& p = t_.threads[i].place;
      if (p.cluster < 0 || p.cluster == p.cta) continue;  // implicit, or the CTA's own
      throw InputError(
          Diagnostic{file_, cluster_at_.at(i),
                     fmt::format("{} needs sm_{} or later ({}); this test's Target is sm_{}{}",
                                 detail::kSharedClusterFeature, kClusterSm,
                                 detail::kSharedClusterSource, t_.target_sm,
                                 "; before sm_90 each CTA is an implicit cluster of its own: drop "
                                 "`cluster N` or give each CTA its own number (cta N, cluster N)"),
                     DiagnosticKind::IsaRule,
                     fmt::format("{} needs sm_{} or later ({})", detail::kSharedClusterFeature,
                                 kClusterSm, detail::kSharedClusterSource)});
    }
  }

  // `cta N, [cluster C,] gpu G` in any order; cluster defaults to the CTA.
  Placement parse_placement() {
    std::optional<int> cta, cluster, gpu;
    const SourceLoc start = cur().loc;
    last_cluster_at_.reset();
    for (;;) {
      if (!at(Tok::Ident))
        fail_here(
            fmt::format("expected 'cta', 'cluster' or 'gpu', found {}", detail::describe(cur())));
      const Token& key = next();
      std::optional<int>* slot = key.text == "cta"       ? &cta
                                 : key.text == "cluster" ? &cluster
                                 : key.text == "gpu"     ? &gpu
                                                         : nullptr;
      if (!slot)
        fail(key.loc,
             fmt::format("unknown placement level '{}' (expected cta, cluster or gpu)", key.text));
      if (*slot) fail(key.loc, fmt::format("'{}' given twice", key.text));
      if (slot == &cluster) last_cluster_at_ = key.loc;
      const std::int64_t v = signed_number(fmt::format("a {} number", key.text));
      if (v < 0 || v > 1'000'000) fail(key.loc, fmt::format("{} number out of range", key.text));
      *slot = static_cast<int>(v);
      if (at(Tok::Comma)) {
        next();
        continue;
      }
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
      if (at(Tok::End) || at(Tok::Newline))
        fail_here("expected ';' at the end of the instruction row");
      if (at(Tok::Bar)) {
        add_cell(col, cell, cur().loc);
        cell.clear();
        ++col;
        next();
        continue;
      }
      if (at(Tok::Semi)) {
        const Tok after = look(1).kind;
        if (after == Tok::Bar || after == Tok::Semi) {
          next();
          continue;
        }
        if (after == Tok::Newline || after == Tok::End) {
          const SourceLoc l = cur().loc;
          next();
          add_cell(col, cell, l);
          break;
        }
        fail(look(1).loc, fmt::format("unexpected {} after ';' in an instruction row",
                                      detail::describe(look(1))));
      }
      cell.push_back(next());
    }
    (void)row_start;
  }

  void add_cell(std::size_t col, std::vector<Token>& cell, SourceLoc end) {
    if (col >= t_.threads.size()) {
      if (cell.empty()) return;
      fail(cell.front().loc, fmt::format("instruction in column {} but only {} thread(s) declared",
                                         col + 1, t_.threads.size()));
    }
    if (cell.empty()) return;
    cell.push_back(Token{Tok::End, "end of instruction", end});
    instructions_(InstructionCell{cell, file_, t_.target_sm, t_}, t_.threads[col]);
  }

  void check_labels(const ThreadCode& tc) const {
    for (const Instruction& in : tc.code)
      if ((in.kind == InstrKind::Branch || in.kind == InstrKind::Goto) &&
          !tc.labels.count(in.label))
        fail(in.loc, fmt::format("label '{}' is not defined in thread {}", in.label, tc.name));
  }

  // ---- locations, filter, condition ---------------------------------------
  void parse_tail() {
    skip_newlines();
    if (at_ident("locations")) {
      next();
      parse_locations();
      skip_newlines();
    }
    if (at_ident("filter")) {
      next();
      skip_newlines();
      t_.filter = parse_or();
      skip_newlines();
    }
    if (at(Tok::End))
      fail_here("missing final condition: expected 'exists', 'forall' or '~exists'");
    if (at(Tok::Tilde) && look(1).kind == Tok::Ident && look(1).text == "exists") {
      next();
      next();
      t_.quantifier = Quantifier::NotExists;
    } else if (at_ident("exists")) {
      next();
      t_.quantifier = Quantifier::Exists;
    } else if (at_ident("forall")) {
      next();
      t_.quantifier = Quantifier::Forall;
    } else
      fail_here(fmt::format("expected 'exists', 'forall' or '~exists', found {}",
                            detail::describe(cur())));
    skip_newlines();
    t_.condition_loc = cur().loc;
    const std::size_t start = pos_;
    t_.condition = parse_or();
    std::string text;
    for (std::size_t k = start; k < pos_; ++k) {
      if (toks_[k].kind == Tok::Newline) continue;
      const Tok kind = toks_[k].kind;
      if (!text.empty() && kind != Tok::RParen && kind != Tok::Colon && kind != Tok::LBracket &&
          kind != Tok::RBracket && text.back() != '(' && text.back() != ':' && text.back() != '[')
        text += ' ';
      text += toks_[k].text;
    }
    t_.condition_text = text;
    skip_newlines();
    if (!at(Tok::End))
      fail_here(fmt::format("unexpected {} after the final condition", detail::describe(cur())));
  }

  void parse_locations() {
    skip_newlines();
    expect(Tok::LBracket, "'[' after 'locations'");
    for (;;) {
      skip_newlines();
      if (at(Tok::RBracket)) {
        next();
        break;
      }
      if (at(Tok::Semi)) {
        next();
        continue;
      }
      if (at(Tok::End)) fail_here("unterminated 'locations [': expected ']'");
      CondTerm term = parse_term();
      if (term.kind == CondTerm::Kind::Const)
        fail(term.loc, "'locations' lists locations and registers, not constants");
      t_.locations.push_back(term);
    }
  }

  // `a /\ b /\ c` is one n-ary node, so long conjunctions add no depth; `~`
  // and parentheses do, up to kMaxConditionDepth (litmus.hpp).

  CondExpr parse_or() { return parse_chain(Tok::Or, CondExpr::Kind::Or); }

  CondExpr parse_and() { return parse_chain(Tok::And, CondExpr::Kind::And); }

  CondExpr parse_chain(Tok op, CondExpr::Kind kind) {
    CondExpr first = op == Tok::Or ? parse_and() : parse_not();
    if (!(skip_newlines(), at(op))) return first;
    CondExpr e;
    e.kind = kind;
    e.kids.push_back(std::move(first));
    while (skip_newlines(), at(op)) {
      next();
      e.kids.push_back(op == Tok::Or ? parse_and() : parse_not());
    }
    return e;
  }

  // Enters one level of `~` or parentheses.
  void deeper() {
    if (++cond_depth_ > kMaxConditionDepth)
      fail_here(fmt::format("condition nested deeper than {} levels of '~' and parentheses",
                            kMaxConditionDepth));
  }

  CondExpr parse_not() {
    skip_newlines();
    if (at(Tok::Tilde) || at(Tok::Bang) || at_ident("not")) {
      deeper();
      next();
      CondExpr e;
      e.kind = CondExpr::Kind::Not;
      e.kids.push_back(parse_not());
      --cond_depth_;
      return e;
    }
    return parse_atom();
  }

  CondExpr parse_atom() {
    skip_newlines();
    if (at(Tok::LParen)) {
      deeper();
      next();
      CondExpr e = parse_or();
      skip_newlines();
      expect(Tok::RParen, "')'");
      --cond_depth_;
      return e;
    }
    if (at_ident("true") || at_ident("false")) {
      CondExpr e;
      e.kind = cur().text == "true" ? CondExpr::Kind::True : CondExpr::Kind::False;
      next();
      return e;
    }
    CondExpr e;
    e.kind = CondExpr::Kind::Cmp;
    e.lhs = parse_term();
    switch (cur().kind) {
      case Tok::EqEq:
      case Tok::Assign: e.cmp = CmpOp::Eq; break;
      case Tok::NotEq: e.cmp = CmpOp::Ne; break;
      case Tok::Less: e.cmp = CmpOp::Lt; break;
      case Tok::LessEq: e.cmp = CmpOp::Le; break;
      case Tok::Greater: e.cmp = CmpOp::Gt; break;
      case Tok::GreaterEq: e.cmp = CmpOp::Ge; break;
      default:
        fail_here(fmt::format("expected a comparison ('==', '!=', '<', ...), found {}",
                              detail::describe(cur())));
    }
    next();
    e.rhs = parse_term();
    return e;
  }

  CondTerm parse_term() {
    CondTerm t;
    t.loc = cur().loc;
    if (auto th = thread_prefix()) {
      if (!at(Tok::Ident) || cur().text == "inf" || cur().text == "nan")
        fail_here(
            fmt::format("expected a register after '{}:', found {}", *th, detail::describe(cur())));
      t.kind = CondTerm::Kind::Reg;
      t.thread = *th;
      t.name = next().text;
      if (options_.register_lanes && at(Tok::LBracket) && look(1).kind == Tok::Number) {
        next();  // a lane of a vector register: P0:%v[3]
        t.name += fmt::format("[{}]", number_value(next(), false));
        expect(Tok::RBracket, "']'");
      }
      return t;
    }
    if (at(Tok::Number) || at(Tok::Minus) || at_ident("inf") || at_ident("nan")) {
      t.kind = CondTerm::Kind::Const;
      t.value = literal("a value");
      return t;
    }
    bool br = false;
    if (at(Tok::LBracket)) {
      next();
      br = true;
    }
    if (!at(Tok::Ident))
      fail_here(fmt::format("expected a register, location or number, found {}",
                            detail::describe(cur())));
    if (is_register_name(cur().text))
      fail_here(
          fmt::format("register '{}' needs a thread prefix, as in P0:{}", cur().text, cur().text));
    t.kind = CondTerm::Kind::Loc;
    t.name = next().text;
    if (at(Tok::LBracket) && look(1).kind == Tok::Number) {  // array element v[1]
      next();
      const std::int64_t i = number_value(next(), false);
      if (i > options_.max_element_index)
        fail(t.loc, fmt::format("element index {} out of range", i));
      t.name += fmt::format("[{}]", i);
      expect(Tok::RBracket, "']'");
    }
    if (br) expect(Tok::RBracket, "']'");
    return t;
  }

  const std::string& file_;
  std::string_view text_;
  const InstructionParser& instructions_;
  detail::ContainerOptions options_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  int cond_depth_ = 0;  // levels of `~` and parentheses being parsed
  LitmusTest t_;
  // The running test's budget (core/budget.hpp: ambient_budget), checked
  // every kTokensPerCheck tokens: the budget starts before parsing.
  const Budget* budget_ = ambient_budget();
  static constexpr std::size_t kTokensPerCheck = 4096;
  // Names declared so far, for the checks at each new one: (thread or -1,
  // name) of the init entries, the aliases, the surfaces.
  std::set<std::pair<int, std::string>> init_names_;
  std::set<std::string> aliases_, surfaces_;
  std::vector<SourceLoc> cluster_at_;         // per thread: its `cluster` keyword (or name)
  std::optional<SourceLoc> last_cluster_at_;  // the placement being parsed
};

// Semantic checks that need the whole test: thread references in the init
// block and the condition, and registers read before any definition.
void check_references_impl(const LitmusTest& t) {
  auto fail = [&](SourceLoc at, std::string msg) {
    throw InputError(Diagnostic{t.file, at, std::move(msg)});
  };
  std::vector<std::set<std::string>> regs(t.threads.size());
  std::set<std::string> locs;
  for (const InitEntry& e : t.init) {
    if (e.thread) {
      if (*e.thread >= static_cast<int>(t.threads.size()))
        fail(e.loc, fmt::format("thread P{} is not declared", *e.thread));
      regs[*e.thread].insert(e.name);
    } else {
      locs.insert(e.name);
      for (int g : e.replicas) locs.insert(replica_name(e.name, g));
    }
  }
  // Aliases name locations once some location is declared (they must alias one).
  if (!locs.empty())
    for (const AliasDecl& a : t.aliases) locs.insert(a.name);
  for (std::size_t i = 0; i < t.threads.size(); ++i)
    for (const Instruction& in : t.threads[i].code) {
      if (in.dst) regs[i].insert(in.dst->name);
      for (const Operand& d : in.dsts) regs[i].insert(d.name);
      if (in.addr) locs.insert(in.addr->name);
    }
  // Every register an instruction reads is initialised or written somewhere
  // in its thread: with free register names a typo must not read as 0.
  for (std::size_t i = 0; i < t.threads.size(); ++i)
    for (const Instruction& in : t.threads[i].code) {
      std::vector<const Operand*> used;
      for (const Operand& o : in.srcs) used.push_back(&o);
      if (in.guard) used.push_back(&*in.guard);
      if (in.cache_policy) used.push_back(&*in.cache_policy);
      if (in.barrier.logical_id) used.push_back(&*in.barrier.logical_id);
      for (const Operand* o : used)
        if (o->kind == Operand::Kind::Reg && !regs[i].count(o->name))
          fail(o->loc,
               fmt::format("register '{}' is read by {} but never initialised or written there",
                           o->name, t.threads[i].name));
    }
  auto check_term = [&](const CondTerm& term) {
    if (term.kind == CondTerm::Kind::Reg) {
      if (term.thread >= static_cast<int>(t.threads.size()))
        fail(term.loc, fmt::format("thread P{} is not declared", term.thread));
      if (!regs[term.thread].count(term.name))
        fail(term.loc, fmt::format("register P{}:{} is neither initialised nor written by P{}",
                                   term.thread, term.name, term.thread));
    } else if (term.kind == CondTerm::Kind::Loc &&
               !locs.count(term.name.substr(0, term.name.find('[')))) {
      fail(term.loc, fmt::format("location '{}' is neither initialised nor accessed by any thread",
                                 term.name));
    }
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      check_term(e.lhs);
      check_term(e.rhs);
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  for (const CondTerm& term : t.locations) check_term(term);
}

}  // namespace

namespace detail {

LitmusTest parse_container(std::string_view text, const std::string& file,
                           const InstructionParser& instructions, const ContainerOptions& options) {
  return Parser(text, file, instructions, options).parse();
}

void check_references(const LitmusTest& t) { check_references_impl(t); }

LitmusTest parse_condition_tail(std::string_view tail, const std::string& file, LitmusTest t,
                                const ContainerOptions& options) {
  const InstructionParser none = [](const InstructionCell&, ThreadCode&) {};
  Parser p(Parser::TailOnly{}, tail, file, none, t);
  p.set_options(options);
  return p.parse_tail_only();
}

}  // namespace detail

}  // namespace redscope
