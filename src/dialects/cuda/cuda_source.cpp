// Reading a CUDA litmus test as written (docs/litmus-format.md "CUDA C++
// tests", docs/cuda.md): the header, metadata, the init block of C variable
// declarations, each thread's placement and body, and the final condition
// (the PTX tests' grammar, frontend/container.hpp). No compiler runs here.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "dialects/cuda/body_scan.hpp"
#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/frontend/container.hpp"
#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope::cuda {

namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_'; }
bool ident_char(char c) { return is_alnum(c) || c == '_'; }

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : text_(text), c_(text, file) {}

  CudaSource read() {
    header();
    preamble();
    init_block();
    while (skip_blank(), c_.peek() == 'P' && is_digit(c_.peek(1))) thread();
    if (src_.threads.empty()) c_.fail("expected a thread such as 'P0@cta 0,gpu 0 { ... }'");
    tail();
    observed_locals();
    return std::move(src_);
  }

 private:
  // Blank space and comments (`//`, `/* */` and herd's `(* *)`).
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
  void skip_line_blank() {
    c_.take_while([](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; });
  }

  std::string_view word() { return c_.take_while(ident_char); }

  std::string name_here(std::string_view what) {
    if (!ident_start(c_.peek())) c_.fail(fmt::format("expected {}", what));
    return std::string(word());
  }

  std::int64_t integer_here(std::string_view what) {
    const SourceLoc at = c_.loc();
    const std::string_view digits = c_.take_while(is_alnum);
    if (digits.empty()) c_.fail(fmt::format("expected {}", what));
    return redscope::detail::integer_at(digits, false, c_.file(), at);
  }

  void expect(char ch, std::string_view what) {
    skip_blank();
    if (c_.peek() != ch) c_.fail(fmt::format("expected '{}' {}", ch, what));
    c_.advance();
  }

  // `CUDA NAME` on the first line.
  void header() {
    skip_blank();
    const SourceLoc at = c_.loc();
    if (word() != "CUDA") c_.fail(at, "a CUDA test starts with 'CUDA NAME'");
    skip_line_blank();
    const std::string_view name = c_.take_while([](char ch) { return ch != '\n'; });
    std::string trimmed(name);
    while (!trimmed.empty() && is_space(trimmed.back())) trimmed.pop_back();
    if (trimmed.empty()) c_.fail("expected the test's name after 'CUDA'");
    LitmusTest& t = src_.skeleton;
    t.file = c_.file();
    t.arch = "CUDA";
    t.name = trimmed;
  }

  // `key=value` metadata lines and the quoted description, up to `{`.
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
      if (c_.peek() != '=')
        c_.fail(at, fmt::format("expected 'key=value' or '{{', found '{}'", key));
      c_.advance();
      std::string value(c_.take_while([](char ch) { return ch != '\n'; }));
      while (!value.empty() && is_space(value.back())) value.pop_back();
      src_.skeleton.metadata[key] = value;
      if (key == "Target") target(value, at);
    }
  }

  // nvcc 13 compiles for sm_75 and later (`nvcc --list-gpu-arch`).
  void target(const std::string& value, SourceLoc at) {
    const SourceLoc v{at.line, at.col + 7};
    if (!value.starts_with("sm_") || value.size() < 5 || value.size() > 6 ||
        !std::all_of(value.begin() + 3, value.end(), is_digit))
      c_.fail(v, fmt::format("expected Target=sm_NN, found '{}'", printable(value)));
    const int sm = std::stoi(value.substr(3));
    if (sm < kMinCudaTarget)
      c_.fail(v, fmt::format("nvcc 13 compiles for sm_{} and later; this test's Target is sm_{}",
                             kMinCudaTarget, sm));
    src_.skeleton.target_sm = sm;
  }

  // `{ int x = 0; __shared__ unsigned s; }`
  void init_block() {
    expect('{', "to open the init block");
    for (;;) {
      skip_blank();
      if (c_.peek() == '}') {
        c_.advance();
        return;
      }
      declaration();
    }
  }

  // `[__shared__] TYPE NAME [= VALUE];` or herd's `NAME = VALUE;` (an int).
  void declaration() {
    CudaLocation loc;
    loc.loc = c_.loc();
    std::vector<std::string> words;
    std::vector<SourceLoc> at;
    while (skip_blank(), ident_start(c_.peek())) {
      at.push_back(c_.loc());
      words.emplace_back(word());
    }
    if (words.empty()) c_.fail("expected a declaration such as 'int x = 0;'");
    if (words.front() == "__shared__") {
      loc.shared = true;
      words.erase(words.begin());
      at.erase(at.begin());
    }
    if (words.empty()) c_.fail("expected a type and a name after '__shared__'");
    loc.name = words.back();
    const SourceLoc name_at = at.back();
    words.pop_back();
    std::string type_words;
    for (const std::string& w : words) type_words += (type_words.empty() ? "" : " ") + w;
    if (!words.empty()) {
      const std::optional<CType> t = c_type_named(type_words);
      if (!t)
        c_.fail(at.front(), fmt::format("unknown type '{}' (int, unsigned, long long, unsigned "
                                        "long long, float or double)",
                                        printable(type_words)));
      loc.type = *t;
    }
    check_new_name(loc.name, name_at);
    skip_blank();
    loc.value = Literal{"0", c_.loc()};
    if (c_.peek() == '=') {
      c_.advance();
      skip_blank();
      loc.value = literal();
    }
    expect(';', fmt::format("after the declaration of '{}'", loc.name));
    add_location(std::move(loc));
  }

  void check_new_name(const std::string& name, SourceLoc at) {
    if (name.starts_with("redscope_") || name.starts_with("__"))
      c_.fail(at, fmt::format("the name '{}' is reserved (redscope_ and __ names are the "
                              "kernels' own)",
                              name));
    for (const CudaLocation& l : src_.locations)
      if (l.name == name)
        c_.fail(at, fmt::format("'{}' is declared twice (first at line {})", name, l.loc.line));
  }

  Literal literal() {
    Literal lit;
    lit.loc = c_.loc();
    const std::size_t from = c_.offset();
    if (c_.peek() == '-') c_.advance();
    c_.number(false);
    lit.text = std::string(c_.since(from));
    if (lit.text.empty() || lit.text == "-") c_.fail(lit.loc, "expected a number");
    // C suffixes (1u, 2ull, 1.5f) are the declaration's type, already known.
    c_.take_while([](char ch) {
      return ch == 'u' || ch == 'U' || ch == 'l' || ch == 'L' || ch == 'f' || ch == 'F';
    });
    return lit;
  }

  void add_location(CudaLocation loc) {
    InitEntry e;
    e.name = loc.name;
    e.type = data_type(loc.type);
    e.space = loc.shared ? Space::SharedCta : Space::Global;
    e.values.push_back(loc.value);
    e.loc = loc.loc;
    src_.skeleton.init.push_back(std::move(e));
    src_.locations.push_back(std::move(loc));
  }

  // `P0@cta 0,gpu 0 { ... }` or herd's `P0(int *x, int *y) { ... }`.
  void thread() {
    CudaThread th;
    th.loc = c_.loc();
    th.name = std::string(word());
    const std::size_t idx = src_.threads.size();
    if (th.name != fmt::format("P{}", idx))
      c_.fail(th.loc, fmt::format("expected thread 'P{}' here, found '{}'", idx, th.name));
    const int i = static_cast<int>(idx);
    th.place = Placement{i, -1 - i, 0};  // as PTX tests: a CTA and a cluster of its own
    skip_blank();
    if (c_.peek() == '@') {
      c_.advance();
      th.place = placement();
    }
    skip_blank();
    if (c_.peek() == '(') herd_parameters();
    expect('{', fmt::format("to open the body of {}", th.name));
    th.body_at = c_.loc();
    const std::size_t from = c_.offset();
    detail::skip_body(c_);  // the cursor at the closing brace
    th.body = std::string(c_.since(from));
    c_.advance();
    ThreadCode header;
    header.name = th.name;
    header.place = th.place;
    header.loc = th.loc;
    src_.skeleton.threads.push_back(std::move(header));
    src_.threads.push_back(std::move(th));
  }

  // `cta N, [cluster C,] gpu G` in any order (the PTX tests' placement).
  Placement placement() {
    std::optional<int> cta, cluster, gpu;
    const SourceLoc start = c_.loc();
    for (;;) {
      skip_line_blank();
      const SourceLoc at = c_.loc();
      const std::string key(word());
      std::optional<int>* slot = key == "cta"       ? &cta
                                 : key == "cluster" ? &cluster
                                 : key == "gpu"     ? &gpu
                                                    : nullptr;
      if (!slot)
        c_.fail(at, fmt::format("expected 'cta', 'cluster' or 'gpu', found '{}'", printable(key)));
      if (*slot) c_.fail(at, fmt::format("'{}' given twice", key));
      skip_line_blank();
      const std::int64_t v = integer_here(fmt::format("a {} number", key));
      if (v < 0 || v > 1'000'000) c_.fail(at, fmt::format("{} number out of range", key));
      *slot = static_cast<int>(v);
      skip_line_blank();
      if (c_.peek() != ',') break;
      c_.advance();
    }
    if (!cta) c_.fail(start, "placement needs 'cta N'");
    if (!gpu) c_.fail(start, "placement needs 'gpu N'");
    if (cluster && src_.skeleton.target_sm < 90 && *cluster != *cta)
      c_.fail(start, fmt::format("clusters of several CTAs need sm_90 or later (PTX ISA §2.2.2); "
                                 "this test's Target is sm_{}",
                                 src_.skeleton.target_sm));
    return Placement{*cta, cluster ? *cluster : -1 - *cta, *gpu};
  }

  // herd's `(int *x, volatile int *y)`: each parameter one of the global
  // locations, in any order; the kernel's own parameters replace them.
  void herd_parameters() {
    c_.advance();
    for (;;) {
      skip_blank();
      if (c_.peek() == ')') {
        c_.advance();
        return;
      }
      SourceLoc last_at = c_.loc();
      std::string last;
      while (skip_blank(), ident_start(c_.peek()) || c_.peek() == '*') {
        if (c_.peek() == '*') {
          c_.advance();
          continue;
        }
        last_at = c_.loc();
        last = std::string(word());
      }
      const auto it = std::find_if(src_.locations.begin(), src_.locations.end(),
                                   [&](const CudaLocation& l) { return l.name == last; });
      if (last.empty() || it == src_.locations.end() || it->shared)
        c_.fail(last_at, fmt::format("parameter '{}' is not a global location of the init block",
                                     printable(last)));
      skip_blank();
      if (c_.peek() == ',')
        c_.advance();
      else if (c_.peek() != ')')
        c_.fail("expected ',' or ')' in the parameter list");
    }
  }

  // `[locations ...] [filter ...] exists (...)`: the PTX tests' grammar,
  // read from the file with everything before it blanked.
  void tail() {
    std::string rest(text_);
    for (std::size_t k = 0; k < c_.offset(); ++k)
      if (rest[k] != '\n') rest[k] = ' ';
    src_.skeleton = redscope::detail::parse_condition_tail(
        rest, c_.file(), std::move(src_.skeleton), {.arch = "CUDA", .default_target_sm = 90});
  }

  // The locals the condition names, per thread in order of first appearance,
  // each with the type of its top-level declaration in the body.
  void observed_locals() {
    std::vector<const CondTerm*> terms;
    collect(src_.skeleton.condition, terms);
    if (src_.skeleton.filter) collect(*src_.skeleton.filter, terms);
    for (const CondTerm& t : src_.skeleton.locations) terms.push_back(&t);
    for (const CondTerm* t : terms) {
      if (t->kind == CondTerm::Kind::Loc) check_location_term(*t);
      if (t->kind != CondTerm::Kind::Reg) continue;
      if (t->thread < 0 || static_cast<std::size_t>(t->thread) >= src_.threads.size())
        c_.fail(t->loc, fmt::format("thread P{} is not declared", t->thread));
      CudaThread& th = src_.threads[static_cast<std::size_t>(t->thread)];
      if (std::any_of(th.observed.begin(), th.observed.end(),
                      [&](const ObservedLocal& o) { return o.name == t->name; }))
        continue;
      const std::optional<detail::LocalDecl> d =
          detail::top_level_local(th.body, th.body_at, t->name);
      if (!d)
        c_.fail(t->loc, fmt::format("P{0}:{1}: '{1}' is not a local declared at the top level of "
                                    "P{0}'s body (as 'int {1} = ...;')",
                                    t->thread, t->name));
      const std::optional<CType> type = c_type_named(d->type_words);
      if (!type)
        c_.fail(d->at, fmt::format("the observed local '{}' needs one of the types int, unsigned, "
                                   "long long, unsigned long long, float or double (found '{}')",
                                   t->name, printable(d->type_words)));
      th.observed.push_back(ObservedLocal{t->name, *type, d->at});
    }
  }

  void check_location_term(const CondTerm& t) {
    const std::string base = t.name.substr(0, t.name.find('['));
    if (std::none_of(src_.locations.begin(), src_.locations.end(),
                     [&](const CudaLocation& l) { return l.name == base; }))
      c_.fail(t.loc, fmt::format("location '{}' is not declared in the init block", t.name));
    if (base != t.name) c_.fail(t.loc, fmt::format("'{}' is a scalar, not an array", base));
  }

  static void collect(const CondExpr& e, std::vector<const CondTerm*>& out) {
    if (e.kind == CondExpr::Kind::Cmp) {
      out.push_back(&e.lhs);
      out.push_back(&e.rhs);
    }
    for (const CondExpr& k : e.kids) collect(k, out);
  }

  std::string_view text_;
  TextCursor c_;
  CudaSource src_;
};

}  // namespace

CudaSource read_cuda_source(std::string_view text, const std::string& file) {
  CudaSource s = Reader(text, file).read();
  for (const CudaThread& th : s.threads) detail::check_body(th.body, th.body_at, file);
  return s;
}

}  // namespace redscope::cuda
