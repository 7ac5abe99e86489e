// The fuzz harness's checks (tests/fuzz.hpp): what one input may do. An
// input may only end with a result or a located diagnostic; anything else
// (another exception, a diagnostic without file:line:col, an internal error,
// a round trip that does not hold, JSON accepted or written invalid, z3 and
// enum disagreeing) is a finding. Crashes and hangs are caught by the caller.
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <z3++.h>

#include "fuzz.hpp"
#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/input.hpp"
#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/dialects/pto/pto_cycles.hpp"
#include "redscope/dialects/sass/sass.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/machine/machine.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/text_cursor.hpp"
#include "redscope/generate/cycle.hpp"
#include "redscope/generate/matrix.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/cat_eval.hpp"
#include "redscope/model/herd/interp.hpp"
#include "redscope/model/herd_subset.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/dot.hpp"
#include "redscope/report/matrix.hpp"
#include "redscope/report/merge.hpp"
#include "redscope/report/report.hpp"
#include "wasm/api.hpp"

namespace redscope::fuzz {

namespace fs = std::filesystem;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {

// Stop a check with a finding, or with an acceptable diagnostic that is not
// an InputError (caught by guarded()).
struct Found {
  std::string detail;
};
struct Diag {
  std::string detail;
};

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    const auto c1 = static_cast<unsigned char>(n > 1 ? s[i + 1] : 0);
    if ((n == 3 && c == 0xe0 && c1 < 0xa0) || (n == 3 && c == 0xed && c1 >= 0xa0) ||
        (n == 4 && c == 0xf0 && c1 < 0x90) || (n == 4 && (c > 0xf4 || (c == 0xf4 && c1 >= 0x90))))
      return false;
    i += n;
  }
  return true;
}

// `d` without its quoted parts ('...'): what the program says, not what it
// quotes of the input.
std::string unquoted(const std::string& d) {
  std::string out;
  bool in = false;
  for (char c : d) {
    if (c == '\'') in = !in;
    if (!in) out += c;
  }
  return out;
}

const std::regex kLocated(R"(^([^\n]+?):([0-9]+):([0-9]+): error: [^\n]*)");

// Why a rendered diagnostic is not acceptable, or nothing: it must name one
// of `files` at line >= 1 (or at no line when `unlocated` is allowed), not
// say "internal", and be short, printable UTF-8 (Diagnostic's printable()).
std::optional<std::string> bad_diagnostic(const std::string& d,
                                          const std::vector<std::string>& files,
                                          bool unlocated = false) {
  if (!valid_utf8(d)) return "diagnostic is not valid UTF-8: " + d.substr(0, 200);
  if (std::any_of(d.begin(), d.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
      }))
    return "diagnostic holds a control byte";
  if (d.size() > 10000)
    return fmt::format("diagnostic of {} bytes: {}", d.size(), d.substr(0, 200));
  // capture_failure's words for what is not an input error (failure.cpp).
  if (unquoted(d).find("error: internal") != std::string::npos) return "internal error: " + d;
  std::smatch m;
  const bool named = std::any_of(files.begin(), files.end(),
                                 [&](const std::string& f) { return d.rfind(f + ":", 0) == 0; });
  if (named && std::regex_search(d, m, kLocated)) {
    if (m[2] == "0") return "diagnostic at line 0: " + d;
    return std::nullopt;
  }
  if (named && unlocated) return std::nullopt;
  return "diagnostic without file:line:col: " + d.substr(0, 300);
}

// Runs `body`, turning what it throws into a verdict; `stage` is where it was.
template <class F>
Verdict guarded(std::string& stage, const std::vector<std::string>& files, F body) {
  try {
    body();
    return {Verdict::Result, "", ""};
  } catch (const Found& f) {
    return {Verdict::Finding, stage, f.detail};
  } catch (const Diag& d) {
    return {Verdict::Diagnostic, stage, d.detail};
  } catch (const InputError& e) {
    const std::string d = e.diagnostic().render();
    if (auto bad = bad_diagnostic(d, files)) return {Verdict::Finding, stage, *bad};
    return {Verdict::Diagnostic, stage, d};
  } catch (const BudgetExceeded& e) {
    return {Verdict::Diagnostic, stage, std::string("budget: ") + e.what()};
  } catch (const z3::exception& e) {
    return {Verdict::Finding, stage, std::string("z3::exception: ") + e.msg()};
  } catch (const std::bad_alloc&) {
    return {Verdict::Finding, stage, "std::bad_alloc (memory)"};
  } catch (const std::exception& e) {
    return {Verdict::Finding, stage, std::string("unexpected exception: ") + e.what()};
  } catch (const EnumGaveWay&) {
    return {Verdict::Finding, stage, "EnumGaveWay escaped"};
  } catch (...) {
    return {Verdict::Finding, stage, "unexpected non-std exception"};
  }
}

// ---- strict JSON (RFC 8259), iterative so that depth costs no stack --------

class JsonCheck {
 public:
  explicit JsonCheck(std::string_view t) : t_(t) {}
  // Why `t` is not one JSON value, or nothing.
  std::optional<std::string> run() {
    std::vector<char> stack;  // '[' or '{'
    ws();
    for (;;) {
      if (!value(stack)) return err_;
      for (;;) {  // after a value: close containers, or a comma
        ws();
        if (stack.empty()) {
          if (p_ != t_.size()) return at("text after the value");
          return std::nullopt;
        }
        const char close = stack.back() == '[' ? ']' : '}';
        if (p_ < t_.size() && t_[p_] == close) {
          ++p_;
          stack.pop_back();
          continue;
        }
        if (p_ >= t_.size() || t_[p_] != ',') return at("expected ',' or a closing bracket");
        ++p_;
        ws();
        if (stack.back() == '{' && !key()) return err_;
        break;
      }
    }
  }

 private:
  std::optional<std::string> at(const std::string& why) {
    return fmt::format("{} at byte {}", why, p_);
  }
  bool fail(const std::string& why) {
    err_ = *at(why);
    return false;
  }
  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }
  bool key() {
    if (p_ >= t_.size() || t_[p_] != '"') return fail("expected a key");
    if (!string()) return false;
    ws();
    if (p_ >= t_.size() || t_[p_] != ':') return fail("expected ':'");
    ++p_;
    ws();
    return true;
  }
  // One value; an opened container is pushed with its first key read.
  bool value(std::vector<char>& stack) {
    for (;;) {
      if (p_ >= t_.size()) return fail("expected a value");
      const char c = t_[p_];
      if (c == '[' || c == '{') {
        ++p_;
        ws();
        if (p_ < t_.size() && t_[p_] == (c == '[' ? ']' : '}')) {
          ++p_;
          return true;
        }
        stack.push_back(c);
        if (c == '{' && !key()) return false;
        continue;
      }
      if (c == '"') return string();
      for (std::string_view lit : {"true", "false", "null"})
        if (t_.substr(p_, lit.size()) == lit) {
          p_ += lit.size();
          return true;
        }
      return number();
    }
  }
  bool number() {
    const std::size_t s = p_;
    auto digits = [&] {
      const std::size_t b = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ > b;
    };
    if (p_ < t_.size() && t_[p_] == '-') ++p_;
    if (p_ < t_.size() && t_[p_] == '0')
      ++p_;
    else if (!digits())
      return fail("expected a value");
    if (p_ < t_.size() && t_[p_] == '.' && (++p_, !digits())) return fail("bad fraction");
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      if (!digits()) return fail("bad exponent");
    }
    return p_ > s;
  }
  bool string() {
    const std::size_t start = ++p_;
    while (p_ < t_.size() && t_[p_] != '"') {
      const auto c = static_cast<unsigned char>(t_[p_]);
      if (c < 0x20) return fail("raw control character in a string");
      if (c == '\\') {
        if (++p_ >= t_.size()) return fail("unterminated escape");
        const char e = t_[p_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (p_ + k >= t_.size() || !std::isxdigit(static_cast<unsigned char>(t_[p_ + k])))
              return fail("bad \\u escape");
          p_ += 4;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return fail("bad escape");
        }
      }
      ++p_;
    }
    if (p_ >= t_.size()) return fail("unterminated string");
    if (!valid_utf8(t_.substr(start, p_ - start))) return fail("string is not valid UTF-8");
    ++p_;
    return true;
  }

  std::string_view t_;
  std::size_t p_ = 0;
  std::string err_;
};

// ---- fast checks -----------------------------------------------------------

std::string file_for(Target t) { return "mutant" + std::string(extension(t)); }

const Dialect& dialect_of(const std::string& file, std::string_view text) {
  const Dialect* d = dialect_for(file, text.substr(0, kDialectHeadBytes));
  return d ? *d : dialects().front();
}

// The CLI's path for a test file, from text: the text checks of the reader,
// the dialect's parser, then per test (a few) the expansion or, for PTO, the
// cycle tables. A text the reader rejects is still parsed (no crash allowed).
Verdict fast_cuda(const Input& in);

// The reader's text checks (errors of the whole file), then `read(stage)`
// under guarded(): a text they reject is still read (no crash allowed), and
// its verdict is the rejection unless reading found a defect.
template <class F>
Verdict checked_then_read(const std::string& file, const std::string& text, F read) {
  std::string stage = "read";
  std::optional<Verdict> rejected;
  try {
    check_input_text(file, text, "litmus file");
  } catch (const InputError& e) {
    const std::string d = e.diagnostic().render();
    if (auto bad = bad_diagnostic(d, {file}, true)) return {Verdict::Finding, stage, *bad};
    rejected = Verdict{Verdict::Diagnostic, stage, d};
  }
  Verdict v = guarded(stage, {file}, [&] { read(stage); });
  if (rejected && v.kind != Verdict::Finding) return *rejected;
  return v;
}

Verdict fast_litmus(const Input& in) {
  // A mutant that became a CUDA test is read, never compiled (fast_cuda).
  if (dialect_of(file_for(in.target), in.text).name == "cuda-litmus") return fast_cuda(in);
  const std::string file = file_for(in.target);
  return checked_then_read(file, in.text, [&](std::string& stage) {
    stage = "parse";
    const Dialect& d = dialect_of(file, in.text);
    const std::vector<LitmusTest> tests = d.parse(in.text, file);
    if (d.parse_nth) {
      stage = "parse_nth";
      (void)d.parse_nth(in.text, file, 1);
      if (d.parse_nth(in.text, file, tests.size() + 1))
        throw Found{fmt::format("parse_nth finds a test #{} past the {} of parse", tests.size() + 1,
                                tests.size())};
    }
    for (std::size_t i = 0; i < std::min<std::size_t>(tests.size(), 4); ++i) {
      const LitmusTest& t = tests[i];
      if (const pto::Program* program = pto::program_of(t)) {
        stage = "pto_cycles";
        (void)render_cycles_text(pto_cycles(*program, PtoArch::A2A3), file);
        (void)render_cycles_json(pto_cycles(*program, PtoArch::A5), file).dump(Json::Layout::Line);
      } else {
        stage = "expand";
        (void)expand(t, ExpandOptions{1, 16});
      }
    }
  });
}

// Each instruction that parses prints to a text that parses to it again.
void check_print_parse(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const sass::ParseResult p = sass::parse(line);
    if (!p.instr || p.instr->target.kind == sass::Target::Kind::Label) continue;
    const std::string printed = sass::print(*p.instr);
    const sass::ParseResult q = sass::parse(printed);
    if (!q.instr)
      throw Found{fmt::format("print gives '{}' for '{}', which does not parse: {}", printed,
                              printable(line), q.error.message)};
    if (!(*q.instr == *p.instr))
      throw Found{fmt::format("'{}' prints as '{}', which parses to another instruction",
                              printable(line), printed)};
  }
}

// `sass encode` on a listing; what it encodes must decode (`sass decode`).
Verdict fast_sass_asm(const Input& in) {
  const std::string file = file_for(in.target);
  std::string stage = "encode_listing";
  return guarded(stage, {file}, [&] {
    const sass::Listing l = sass::encode_listing(in.text, file);
    for (const Diagnostic& d : l.errors)
      if (auto bad = bad_diagnostic(d.render(), {file})) throw Found{*bad};
    if (!l.errors.empty()) throw InputError(l.errors.front());
    stage = "print/parse";
    check_print_parse(in.text);
    stage = "encode/decode";
    std::string words;
    for (const std::string& w : l.lines) words += w + "\n";
    const sass::Listing back = sass::decode_listing(words, "encoded.words");
    if (!back.errors.empty())
      throw Found{"sass decode refuses what sass encode wrote: " + back.errors.front().render()};
  });
}

// A word's instruction, printed, parsed and encoded again, decodes to itself.
void check_word(std::uint64_t w) {
  const sass::DecodeResult r = sass::decode(w);
  if (!r.instr) return;
  const std::string text = sass::print(*r.instr);
  const sass::ParseResult p = sass::parse(text);
  if (!p.instr)
    throw Found{fmt::format("{} decodes to '{}', which does not parse: {}", sass::word_text(w),
                            text, p.error.message)};
  const sass::EncodeResult e = sass::encode(*p.instr);
  if (e.error)
    throw Found{fmt::format("{} decodes to '{}', which does not encode: {}", sass::word_text(w),
                            text, e.error->message)};
  const sass::DecodeResult again = sass::decode(e.word);
  if (!again.instr || !(*again.instr == *r.instr))
    throw Found{
        fmt::format("{} decodes to '{}', encoded as {}, which decodes to another instruction",
                    sass::word_text(w), text, sass::word_text(e.word))};
}

// `sass decode` on a listing of words, and each word's round trip.
Verdict fast_sass_words(const Input& in) {
  const std::string file = file_for(in.target);
  std::string stage = "decode_listing";
  return guarded(stage, {file}, [&] {
    const sass::Listing l = sass::decode_listing(in.text, file);
    for (const Diagnostic& d : l.errors)
      if (auto bad = bad_diagnostic(d.render(), {file})) throw Found{*bad};
    stage = "word round trip";
    std::size_t start = 0;
    while (start < in.text.size()) {
      std::size_t end = in.text.find('\n', start);
      if (end == std::string::npos) end = in.text.size();
      const std::string line = in.text.substr(start, end - start);
      start = end + 1;
      const std::size_t x = line.find("0x");
      if (x == std::string::npos) continue;
      std::size_t n = 0;
      while (x + 2 + n < line.size() && std::isxdigit(static_cast<unsigned char>(line[x + 2 + n])))
        ++n;
      if (n >= 1 && n <= 16) check_word(std::stoull(line.substr(x + 2, n), nullptr, 16));
    }
    stage = "decode_listing";
    if (!l.errors.empty()) throw InputError(l.errors.front());
  });
}

// A cat model's includes: the mutant itself, or a corpus model by name.
cat::IncludeReader include_reader(const Input& in, const FastContext& ctx) {
  return [&](const std::string& name, const std::string&) -> std::optional<cat::IncludedFile> {
    if (name == file_for(Target::Cat)) return cat::IncludedFile{in.text, name, name};
    const auto it = ctx.cat_files.find(fs::path(name).filename().string());
    if (it == ctx.cat_files.end()) return std::nullopt;
    return cat::IncludedFile{it->second, it->first, it->first};
  };
}

std::vector<std::string> cat_files(const FastContext& ctx) {
  // The prelude of herd7-language models: an error inside one of its
  // functions (called with a value of the wrong type) is located there.
  std::vector<std::string> files{file_for(Target::Cat), "models/herd-stdlib.cat"};
  for (const auto& [name, text] : ctx.cat_files) files.push_back(name);
  return files;
}

// A quarter of its tosses come up true (xorshift64 from a seed).
struct Coin {
  std::uint64_t x;
  bool operator()() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (x & 3) == 0;
  }
};

// One evaluation of a model over 5 events with primitives drawn from the text.
void evaluate_once(const cat::Model& m, std::size_t seed) {
  constexpr std::size_t n = 5;
  cat::Evaluator ev(m, n, {"sm6x"}, [](std::string_view) { return true; });
  Coin bit{seed | 1};
  for (const cat::Primitive& p : cat::ptx_primitives()) {
    if (!ev.uses(p.name)) continue;
    if (p.type == cat::Type::Rel) {
      BitRel& r = ev.rel(p.name);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) r.set(i, j, bit());
    } else {
      cat::Bits& b = ev.set(p.name);
      for (std::size_t i = 0; i < n; ++i)
        if (bit()) b[i / 64] |= std::uint64_t{1} << (i % 64);
    }
  }
  ev.update(0);
  (void)ev.consistent();
  (void)ev.failing();
  (void)cat::shortcuts(m, [](std::string_view) { return true; });
}

// One run of a model in herd7's language (cat.hpp parse_model) on 5 events
// with herd7's names drawn from the text, under a one-second budget.
void interpret_once(const cat::Model& m, std::size_t seed) {
  constexpr std::size_t n = 5;
  Coin bit{seed | 1};
  cat::herd::Execution ex;
  ex.n = n;
  for (const auto& [name, type] : cat::herd::execution_bindings()) {
    if (type == cat::Type::Rel) {
      BitRel r(n);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) r.set(i, j, bit());
      ex.rels.emplace_back(name, std::move(r));
    } else {
      cat::herd::EventBits b(1, 0);
      for (std::size_t i = 0; i < n; ++i)
        if (bit()) b[0] |= std::uint64_t{1} << i;
      ex.sets.emplace_back(name, std::move(b));
    }
  }
  const cat::herd::Interpreter interp(cat::herd_prelude(), m.herd, {"sm6x"},
                                      [](std::string_view) { return true; });
  const Budget budget(BudgetLimits{1, 512});
  (void)interp.run(ex, &budget);
}

Verdict fast_cat(const Input& in, const FastContext& ctx) {
  std::string stage = "parse_cat";
  return guarded(stage, cat_files(ctx), [&] {
    const cat::Model m = cat::parse_model(in.text, file_for(Target::Cat), include_reader(in, ctx));
    stage = "evaluate";
    if (!m.typed()) return interpret_once(m, std::hash<std::string>{}(in.text));
    evaluate_once(m, std::hash<std::string>{}(in.text));
    for (const cat::Stmt& s : m.stmts)
      if (s.check) (void)cat::to_text(m, *s.check->expr);
  });
}

// Why `t` is neither one JSON value nor JSON Lines (one value on each line;
// no line at all is a shard without tests), or nothing.
std::optional<std::string> json_or_lines(std::string_view t) {
  auto whole = JsonCheck(t).run();
  if (!whole || t.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  for (std::size_t p = 0, line = 1; p < t.size(); ++line) {
    const std::size_t end = std::min(t.find('\n', p), t.size());
    if (auto why = JsonCheck(t.substr(p, end - p)).run())
      return fmt::format("{} (as JSON Lines: line {}: {})", *whole, line, *why);
    p = end + 1;
  }
  return std::nullopt;
}

// `redscope merge` on one shard: what it accepts must be JSON or JSON Lines,
// and what it writes JSON.
Verdict fast_merge(const Input& in) {
  const std::string file = file_for(in.target);
  std::string stage = "merge";
  return guarded(stage, {file}, [&] {
    const MergedRun m = merge_run_json({{file, in.text}});
    stage = "merge-output";
    if (auto why = json_or_lines(in.text)) throw Found{"merge accepted invalid JSON: " + *why};
    if (auto why = JsonCheck(m.json).run()) throw Found{"merge wrote invalid JSON: " + *why};
  });
}

// A `gen cycle` argument: a located error ("cycle 1:1:COL") or a test the
// PTX reader accepts (generate_cycle parses what it makes), whose program is
// what test_program says.
Verdict fast_cycle(const Input& in) {
  std::string stage = "parse_cycle";
  const std::string source = "cycle 1";
  return guarded(stage, {source}, [&] {
    const std::vector<generate::Edge> cycle = generate::parse_cycle(in.text, source);
    stage = "generate_cycle";
    const generate::GeneratedTest t = generate::generate_cycle(cycle, {}, source);
    if (generate::test_program(t).empty() || t.name.empty())
      throw Found{"gen cycle made a test without a name or a program"};
  });
}

// XML 1.0 text (the SVG and HTML of `report --matrix`): valid UTF-8 and no
// character XML excludes.
std::optional<std::string> bad_xml_text(std::string_view t) {
  if (!valid_utf8(t)) return "not valid UTF-8";
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
      return fmt::format("a raw control character 0x{:02x} at byte {}", c, i);
    if (t.compare(i, 3, "\xef\xbf\xbe") == 0 || t.compare(i, 3, "\xef\xbf\xbf") == 0)
      return fmt::format("U+FFFE or U+FFFF at byte {}", i);
  }
  return std::nullopt;
}

// A CUDA test as its reader sees it, and the kernels nvcc would be given;
// nvcc itself is not fuzzed (seconds a call; its input is bounded by the
// reader's checks, docs/cuda.md "Limits").
Verdict fast_cuda(const Input& in) {
  const std::string file = file_for(in.target);
  return checked_then_read(file, in.text, [&](std::string& stage) {
    stage = "read_cuda_source";
    const cuda::CudaSource src = cuda::read_cuda_source(in.text, file);
    stage = "kernel_source";
    (void)cuda::kernel_source(src, 0, "t0.litmus");
  });
}

bool spec_is_cuda(std::string_view cell) { return first_word_is(cell, "CUDA"); }

// A `gen matrix` spec: a diagnostic located in the spec, or cells that each
// parse, with names that are unique (one file each). Specs of more than 256
// cells are only read.
Verdict fast_spec(const Input& in) {
  const fs::path file =
      fs::temp_directory_path() / fmt::format("redscope-fuzz-{}.toml", ::getpid());
  std::string stage = "read";
  try {  // the reader's text checks (a NUL byte, a BOM): errors of the whole file
    check_input_text(file.string(), in.text, "matrix spec");
  } catch (const InputError& e) {
    const std::string d = e.diagnostic().render();
    if (auto bad = bad_diagnostic(d, {file.string()}, true)) return {Verdict::Finding, stage, *bad};
    return {Verdict::Diagnostic, stage, d};
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << in.text;
  stage = "read_matrix_spec";
  const Verdict v = guarded(stage, {file.string()}, [&] {
    const generate::MatrixSpec spec =
        generate::read_matrix_spec(file.string(), kDefaultMaxInputBytes);
    if (generate::matrix_cell_count(spec) > 256) return;
    stage = "cells";
    // gen matrix's --timeout, shortened: a template of thousands of rows is
    // slow, not wrong (the budget error is a diagnostic).
    const Budget budget(BudgetLimits{2, 0});
    const AmbientBudget ambient(&budget);
    std::set<std::string> names;
    generate::for_each_cell(
        spec,
        [&](const generate::MatrixCell& cell) {
          if (!names.insert(cell.name).second) throw Found{"two cells named " + cell.name};
          // gen matrix writes a CUDA cell as filled in (its dialect reads it when it runs).
          if (!spec_is_cuda(cell.text)) (void)parse_litmus(cell.text, cell.name + ".litmus");
        },
        [&](std::size_t) { budget.check(); });
  });
  std::error_code ec;
  fs::remove(file, ec);
  return v;
}

// `report --matrix` over a result file: a located diagnostic, or a table
// whose every rendering is sound (JSON valid; SVG and HTML valid XML text).
Verdict fast_report(const Input& in) {
  const std::string file = file_for(in.target);
  std::string stage = "read_matrix_results";
  return guarded(stage, {file}, [&] {
    std::optional<MatrixTable> table;
    std::optional<VerdictKind> kind;
    try {
      kind = read_matrix_results(in.text, file, [&](MatrixRecord&& r) {
        if (!table) table.emplace(VerdictKind::Condition);
        try {
          table->add(std::move(r));
        } catch (const MatrixError&) {  // two tests in a cell, other axes: reported, skipped
        }
      });
    } catch (const MatrixError& e) {  // a test without Cell=: the CLI's problem line
      throw Diag{e.what()};
    }
    if (!table || table->size() == 0 || table->axes().empty()) return;
    if (kind) table->set_kind(*kind);
    stage = "render";
    const auto& axes = table->axes();
    const MatrixLayout l =
        matrix_layout(*table, axes[0].name, axes.size() > 1 ? axes[1].name : std::string());
    if (auto why = JsonCheck(render_matrix_json(*table, l)).run())
      throw Found{"report --matrix wrote invalid JSON: " + *why};
    if (auto why = bad_xml_text(render_matrix_svg(*table, l)))
      throw Found{"report --matrix wrote an SVG that is not XML: " + *why};
    if (auto why = bad_xml_text(render_matrix_html(*table, l, "summary")))
      throw Found{"report --matrix wrote HTML that is not XML text: " + *why};
    (void)render_matrix_text(*table, l, MatrixTextStyle{});
    (void)render_matrix_csv(*table);
  });
}

// A request to the JSON API: the answer is one JSON value, and an error in
// it is not an internal one (issue 43: options of the wrong type, numbers
// past their range and oversized requests must be located refusals).
Verdict fast_api(const Input& in) {
  std::string stage = "call";
  return guarded(stage, {}, [&] {
    const std::string answer = wasm::call(in.text);
    stage = "answer";
    if (auto why = JsonCheck(answer).run()) throw Found{"the API answered invalid JSON: " + *why};
    if (answer.find("error: internal") != std::string::npos ||
        answer.find("\"kind\": \"internal\"") != std::string::npos)
      throw Found{"the API answered an internal error: " + answer.substr(0, 300)};
    if (answer.rfind("{\"error\"", 0) == 0) throw Diag{answer.substr(0, 300)};
  });
}

}  // namespace

bool has_full_check(Target t) {
  switch (t) {
    case Target::SassAsm:
    case Target::SassWords:
    case Target::Merge:
    case Target::Cycle:
    case Target::Spec:
    case Target::Report:
    case Target::Cuda:
    case Target::Api: return false;
    default: return true;
  }
}

FastContext fast_context(const Corpora& c) {
  FastContext ctx;
  const Corpus& cats = c[static_cast<std::size_t>(Target::Cat)];
  for (std::size_t i = 0; i < cats.files.size(); ++i)
    ctx.cat_files.emplace(fs::path(cats.files[i]).filename().string(), cats.texts[i]);
  return ctx;
}

Verdict check_fast(const Input& in, const FastContext& ctx) {
  switch (in.target) {
    case Target::SassAsm: return fast_sass_asm(in);
    case Target::SassWords: return fast_sass_words(in);
    case Target::Cat: return fast_cat(in, ctx);
    case Target::Merge: return fast_merge(in);
    case Target::Cycle: return fast_cycle(in);
    case Target::Spec: return fast_spec(in);
    case Target::Report: return fast_report(in);
    case Target::Api: return fast_api(in);
    case Target::Cuda: return fast_cuda(in);
    default: return fast_litmus(in);
  }
}

// ---- full checks -----------------------------------------------------------

namespace {

template <class F>
auto timed(FullContext& ctx, const std::string& stage, F&& f) {
  if (ctx.stage_out && ctx.stage_out_size > 0) {
    const std::size_t n = std::min(stage.size(), ctx.stage_out_size - 1);
    std::copy_n(stage.data(), n, ctx.stage_out);
    ctx.stage_out[n] = '\0';
  }
  struct Add {
    std::map<std::string, double>& m;
    const std::string& s;
    double t0;
    ~Add() { m[s] += cpu_now() - t0; }
  } add{ctx.stage_seconds, stage, cpu_now()};
  return f();
}

// The enumerator's --enum-limit counts rf candidates only; its coherence,
// fence-SC and barrier choices (3 per pair of writes to a cell, 2 per pair
// of fence.sc or barriers) are not bounded, so inputs whose estimate exceeds
// 2^18 skip run_enum (docs/testing.md).
constexpr double kEnumMaxLog2 = 18;
double enum_search_log2(const Expansion& ex) {
  double worst = 0;
  for (const Skeleton& sk : ex.skeletons) {
    std::map<std::string, double> writes;
    double fences = 0, barriers = 0;
    for (EventId e = 0; e < sk.size(); ++e) {
      const Event& ev = sk.ev(e);
      if (ev.is_write() && !ev.is_init) writes[ev.loc] += 1;
      if (ev.is_sc_fence()) fences += 1;
      if (ev.is_barrier()) barriers += 1;
    }
    double l = fences * (fences - 1) / 2 + barriers * (barriers - 1) / 2;
    for (const auto& [loc, w] : writes) l += w * (w - 1) / 2 * 1.585;
    worst = std::max(worst, l);
  }
  return worst;
}

EngineOptions small_options() {
  EngineOptions o;
  o.expand.unroll = 1;
  o.expand.max_paths = 16;
  o.max_outcomes = 64;
  o.enum_limit = 20000;
  o.workers = 1;
  return o;
}

std::set<std::vector<std::uint64_t>> outcome_set(const TestResult& r) {
  std::set<std::vector<std::uint64_t>> s;
  for (const Outcome& o : r.outcomes) s.insert(o.values);
  return s;
}

// z3, enum (when its search is small) and a comparison of their outcomes;
// the witness pictures of a few z3 outcomes (--dot).
// Engine `k` on the test's semantics (PTO programs run their own engines).
TestResult run_as(const LitmusTest& t, EngineOptions o, EngineKind k) {
  o.engine = k;
  return semantics_of(t).run(t, o);
}

void engines(const LitmusTest& t, const EngineOptions& o, FullContext& ctx, std::string& stage) {
  stage = "run_z3";
  const TestResult z = timed(ctx, stage, [&] { return run_as(t, o, EngineKind::Z3); });
  (void)render_text(z);
  (void)render_json({z});
  stage = "dot";
  for (std::size_t i = 0; i < std::min<std::size_t>(z.outcomes.size(), 2); ++i) {
    const Witness& w = z.outcomes[i].witness;
    if (z.expansion && !w.executed.empty() && w.skeleton < z.expansion->skeletons.size())
      (void)witness_dot(z.expansion->skeletons[w.skeleton], w, t.name);
  }
  stage = "expand";
  const double log2_co =
      t.program ? 0 : timed(ctx, stage, [&] { return enum_search_log2(expand(t, o.expand)); });
  if (log2_co > kEnumMaxLog2) {
    ctx.enum_skipped = true;
    return;
  }
  stage = "run_enum";
  const TestResult e = timed(ctx, stage, [&] { return run_as(t, o, EngineKind::Enum); });
  (void)render_text(e);
  stage = "z3 vs enum";
  if (!z.error && !e.error && z.incomplete.total() == e.incomplete.total() &&
      (outcome_set(z) != outcome_set(e) || z.holds != e.holds))
    throw Found{fmt::format("z3 finds {} outcome(s) (holds: {}), enum {} (holds: {})",
                            z.outcomes.size(), z.holds, e.outcomes.size(), e.holds)};
}

// Runs one analysis of a test that parsed: a located refusal (the machine
// does not model proxies, say) ends that analysis only.
template <class F>
void analysis(const LitmusTest& t, FullContext& ctx, std::string& stage, const char* name, F f) {
  stage = name;
  try {
    timed(ctx, stage, f);
  } catch (const InputError& e) {
    if (auto bad = bad_diagnostic(e.diagnostic().render(), {t.file})) throw Found{*bad};
  }
}

void full_test(const LitmusTest& t, const EngineOptions& o, FullContext& ctx, std::string& stage) {
  engines(t, o, ctx, stage);
  if (!t.program)  // the machine runs PTX event graphs only (a located refusal)
    analysis(t, ctx, stage, "run_op", [&] { return render_text(run_op(t, o)); });
  analysis(t, ctx, stage, "atomicity", [&] {
    const AtomicityResult a = check_atomicity(t, o);
    return render_atomicity_text(a) + render_atomicity_json({a});
  });
  if (t.program) return;  // explain refuses PTO programs (a usage error, explain.cpp)
  analysis(t, ctx, stage, "explain", [&] {
    const Explanation x = explain(t, o, ExplainRequest{});
    return render_text(x) + render_json(x);
  });
}

Verdict full_litmus(const Input& in, FullContext& ctx) {
  if (dialect_of(ctx.file, in.text).name == "cuda-litmus") return fast_cuda(in);
  const std::string& file = ctx.file;
  std::string stage = "parse";
  EngineOptions opts = small_options();
  opts.limits = BudgetLimits{ctx.budget_seconds, ctx.budget_mb};
  return guarded(stage, {file}, [&] {
    with_budget(opts, [&](const EngineOptions& o) {
      const std::vector<LitmusTest> tests =
          timed(ctx, stage, [&] { return dialect_of(file, in.text).parse(in.text, file); });
      for (std::size_t i = 0; i < std::min<std::size_t>(tests.size(), 3); ++i)
        full_test(tests[i], o, ctx, stage);
      stage = "xval";  // PTO programs: the explorer against the Z3 twin
      const std::string address = tests.size() > 1 ? file + "#1" : file;
      const XvalResult v = timed(ctx, stage, [&] { return xval_file(address, o); });
      (void)render_xval_text(v);
      (void)render_xval_json({v});
      if (v.error) {
        if (v.error_kind == "internal") throw Found{"xval internal error: " + *v.error};
        if (auto bad = bad_diagnostic(*v.error, {file}, true)) throw Found{*bad};
        throw Diag{*v.error};
      }
      return 0;
    });
  });
}

// A mutated model as the user's model (--cat) on a small PTX test: enum and
// z3 evaluate it and must agree.
Verdict full_cat(const Input& in, FullContext& ctx) {
  std::string stage = "parse_cat";
  EngineOptions opts = small_options();
  opts.limits = BudgetLimits{ctx.budget_seconds, ctx.budget_mb};
  std::vector<std::string> files = cat_files(ctx.fast);
  files.push_back("small.litmus");  // the test it runs on: its limits are located there
  return guarded(stage, files, [&] {
    with_budget(opts, [&](const EngineOptions& b) {
      EngineOptions o = b;
      o.user_model = std::make_shared<const cat::Model>(timed(ctx, stage, [&] {
        return cat::parse_model(in.text, file_for(Target::Cat), include_reader(in, ctx.fast));
      }));
      stage = "parse";
      const LitmusTest t = parse_litmus(ctx.cat_test, "small.litmus");
      engines(t, o, ctx, stage);
      if (!o.user_model->typed()) return 0;  // explain reads the typed subset only
      stage = "explain";
      (void)render_text(timed(ctx, stage, [&] { return explain(t, o, ExplainRequest{}); }));
      return 0;
    });
  });
}

}  // namespace

Verdict check_full(const Input& in, FullContext& ctx) {
  if (!has_full_check(in.target)) {  // no deeper pipeline than the fast check's
    const double t0 = cpu_now();
    Verdict v = check_fast(in, ctx.fast);
    ctx.stage_seconds[std::string(name(in.target))] += cpu_now() - t0;
    return v;
  }
  return in.target == Target::Cat ? full_cat(in, ctx) : full_litmus(in, ctx);
}

std::string finding_class(Target t, const Verdict& v) {
  std::string d;
  char quote = 0;
  for (char c : v.detail.substr(0, 400)) {
    if (quote) {
      if (c == quote) {
        d += c;
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      d += c;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (d.empty() || d.back() != 'N') d += 'N';
      continue;
    }
    d += c;
  }
  // The message after "mutant.x:N:N: error: " says what; keep its start.
  const std::size_t e = d.find("error: ");
  if (e != std::string::npos) d = d.substr(0, d.find(": ") + 2) + d.substr(e + 7);
  if (d.size() > 80) d.resize(80);
  return fmt::format("{} / {} / {}", name(t), v.stage, d);
}

}  // namespace redscope::fuzz
