// A reader of nvcc's PTX modules: the `.file` table, one `.entry`, and the
// statements of its body (PTX ISA, syntax: statements end with `;`,
// labels with `:`; `.loc` and `.file` are debugging directives without
// one; `{ }` opens a nested scope whose `.reg` declarations shadow).
#include "dialects/cuda/ptx_module.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "redscope/frontend/lexer.hpp"

namespace redscope::cuda::detail {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }
// PTX identifiers: [a-zA-Z_$%][a-zA-Z0-9_$]* (PTX ISA: identifiers).
bool ptx_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '%';
}

std::string collapse_blanks(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (blank(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The `.file N "PATH"` lines naming the test's file: `line_file` itself, or
// a path ending in /line_file (nvcc makes a relative #line name absolute
// against its working directory: observed with nvcc 13.0).
std::set<long> test_file_ids(std::string_view module, std::string_view line_file) {
  std::set<long> ids;
  if (line_file.empty()) return ids;
  std::size_t pos = 0;
  while ((pos = module.find(".file", pos)) != std::string_view::npos) {
    const std::size_t eol = std::min(module.find('\n', pos), module.size());
    const std::string_view line = module.substr(pos + 5, eol - pos - 5);
    pos = eol;
    const std::size_t q1 = line.find('"');
    const std::size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
    if (q2 == std::string_view::npos) continue;
    const std::string_view path = line.substr(q1 + 1, q2 - q1 - 1);
    const std::string suffix = "/" + std::string(line_file);
    const bool match = path == line_file || (line_file[0] != '/' && path.size() > suffix.size() &&
                                             path.substr(path.size() - suffix.size()) == suffix);
    if (!match) continue;
    if (auto n = redscope::detail::unsigned_integer(collapse_blanks(line.substr(0, q1))))
      ids.insert(static_cast<long>(*n));
  }
  return ids;
}

class EntryReader {
 public:
  EntryReader(std::string_view module, const ModuleSite& site)
      : m_(module),
        site_(site),
        test_files_(test_file_ids(module, site.line_file)) {
    for (std::size_t i = 0; i < m_.size(); ++i)
      if (m_[i] == '\n') newlines_.push_back(i);
  }

  PtxEntry read(std::string_view name) {
    PtxEntry e;
    e.name = std::string(name);
    const std::size_t open = find_entry(name);
    std::size_t p = read_params(open, e.params);
    p = find_body(p);
    read_body(p, e.body);
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(Diagnostic{site_.file, site_.header, msg});
  }
  [[noreturn]] void cut_short(std::string_view where) const {
    fail(fmt::format("nvcc's PTX module ends inside {} (the module is cut short or garbled)",
                     where));
  }
  int line_of(std::size_t pos) const {
    return static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), pos) -
                            newlines_.begin()) +
           1;
  }
  bool in_comment(std::size_t pos) const {
    const std::size_t bol = pos == 0 ? 0 : m_.rfind('\n', pos - 1);
    const std::size_t from = bol == std::string_view::npos ? 0 : bol;
    return m_.substr(from, pos - from).find("//") != std::string_view::npos;
  }

  // The `(` after `.entry NAME`.
  std::size_t find_entry(std::string_view name) const {
    for (std::size_t pos = m_.find(".entry"); pos != std::string_view::npos;
         pos = m_.find(".entry", pos + 1)) {
      std::size_t p = pos + 6;
      if (p >= m_.size() || !blank(m_[p]) || (pos > 0 && !blank(m_[pos - 1])) || in_comment(pos))
        continue;
      while (p < m_.size() && blank(m_[p])) ++p;
      std::size_t q = p;
      while (q < m_.size() && ptx_ident_char(m_[q])) ++q;
      if (m_.substr(p, q - p) != name) continue;
      while (q < m_.size() && blank(m_[q])) ++q;
      if (q < m_.size() && m_[q] == '(') return q;
    }
    fail(
        fmt::format("nvcc's PTX has no kernel '{}' (.entry {}): the module does not hold "
                    "this thread",
                    printable(name), printable(name)));
  }

  std::size_t read_params(std::size_t open, std::vector<std::string>& params) const {
    const std::size_t close = m_.find(')', open);
    if (close == std::string_view::npos) cut_short("the parameter list of the kernel");
    std::string_view list = m_.substr(open + 1, close - open - 1);
    while (!list.empty()) {
      const std::size_t comma = std::min(list.find(','), list.size());
      const std::string item = collapse_blanks(list.substr(0, comma));
      list.remove_prefix(std::min(comma + 1, list.size()));
      if (item.empty()) continue;
      const std::size_t sp = item.rfind(' ');
      params.push_back(sp == std::string::npos ? item : item.substr(sp + 1));
    }
    return close + 1;
  }

  // The `{` of the body, past performance directives (.maxntid 1, 1, 1).
  std::size_t find_body(std::size_t p) const {
    while (p < m_.size() && m_[p] != '{') {
      if (m_[p] == ';') fail("nvcc's PTX declares the kernel without a body");
      ++p;
    }
    if (p >= m_.size()) cut_short("the kernel's header");
    return p + 1;
  }

  struct Block {
    int id = 0;
    std::set<std::string> regs;  // declared in it (only nested blocks rename)
  };

  void read_body(std::size_t p, std::vector<PtxStatement>& out) {
    std::vector<Block> blocks{Block{}};
    int next_block = 1;
    SourceLoc at = site_.header;
    while (true) {
      while (p < m_.size() && blank(m_[p])) ++p;
      if (p >= m_.size()) cut_short("the kernel's body");
      if (m_.substr(p, 2) == "//") {
        p = std::min(m_.find('\n', p), m_.size());
      } else if (m_.substr(p, 2) == "/*") {
        const std::size_t e = m_.find("*/", p + 2);
        if (e == std::string_view::npos) cut_short("a comment");
        p = e + 2;
      } else if (m_[p] == '{') {
        blocks.push_back(Block{next_block++, {}});
        ++p;
      } else if (m_[p] == '}') {
        blocks.pop_back();
        ++p;
        if (blocks.empty()) return;
      } else if (m_.substr(p, 4) == ".loc" && p + 4 < m_.size() && blank(m_[p + 4])) {
        const std::size_t eol = std::min(m_.find('\n', p), m_.size());
        read_loc(m_.substr(p + 4, eol - p - 4), at);
        p = eol;
      } else {
        p = read_statement(p, blocks, at, out);
      }
    }
  }

  // `.loc F L C[, ...]`: the test's line:col when F is the test's file.
  void read_loc(std::string_view rest, SourceLoc& at) const {
    const std::string words = collapse_blanks(rest.substr(0, rest.find(',')));
    std::vector<std::string> w;
    for (std::size_t s = 0; s <= words.size();) {
      const std::size_t e = std::min(words.find(' ', s), words.size());
      w.push_back(words.substr(s, e - s));
      s = e + 1;
    }
    if (w.size() < 3) return;
    const auto f = redscope::detail::unsigned_integer(w[0]);
    const auto l = redscope::detail::unsigned_integer(w[1]);
    const auto c = redscope::detail::unsigned_integer(w[2]);
    if (!f || !l || !c || !test_files_.count(static_cast<long>(*f)) || *l == 0 || *l > 1u << 30 ||
        *c > 1u << 30)
      return;
    at = SourceLoc{static_cast<int>(*l), std::max(1, static_cast<int>(*c))};
  }

  std::size_t read_statement(std::size_t p, std::vector<Block>& blocks, SourceLoc at,
                             std::vector<PtxStatement>& out) {
    if (out.size() >= kMaxEntryStatements)
      fail(fmt::format("the kernel has more than {} PTX statements: too long for a litmus thread",
                       kMaxEntryStatements));
    std::size_t q = p;
    while (q < m_.size() && ptx_ident_char(m_[q])) ++q;
    std::size_t r = q;
    while (r < m_.size() && (m_[r] == ' ' || m_[r] == '\t')) ++r;
    const bool label = q > p && m_[p] != '%' && r < m_.size() && m_[r] == ':' &&
                       (r + 1 >= m_.size() || m_[r + 1] != ':');
    PtxStatement s;
    s.line = line_of(p);
    s.at = at;
    if (label) {
      s.kind = PtxStatement::Kind::Label;
      s.text = s.code = std::string(m_.substr(p, q - p));
      out.push_back(std::move(s));
      return r + 1;
    }
    const std::size_t semi = m_.find(';', p);
    if (semi == std::string_view::npos) cut_short("a statement");
    const std::string_view text = m_.substr(p, semi - p);
    if (text.find('\n') != std::string_view::npos && text.find('}') != std::string_view::npos)
      fail(
          fmt::format("nvcc's PTX line {} holds a statement without its ';' (the module is "
                      "garbled)",
                      s.line));
    if (m_[p] == '.') {
      directive(collapse_blanks(text), blocks);
      return semi + 1;
    }
    s.text = collapse_blanks(text);
    s.code = rename(s.text, blocks);
    out.push_back(std::move(s));
    return semi + 1;
  }

  // `.reg .b64 %tmp;` in a nested block: its registers are the block's own.
  static void directive(const std::string& d, std::vector<Block>& blocks) {
    if (blocks.size() < 2 || d.rfind(".reg ", 0) != 0) return;
    std::string_view rest = d;
    while (!rest.empty()) {
      std::size_t s = rest.find('%');
      if (s == std::string_view::npos) break;
      std::size_t e = s + 1;
      while (e < rest.size() && ptx_ident_char(rest[e])) ++e;
      blocks.back().regs.insert(std::string(rest.substr(s, e - s)));
      rest.remove_prefix(e);
    }
  }

  // Registers declared in enclosing nested blocks get the block's suffix
  // (`.bN`, which no PTX identifier can end with), so each scope's %tmp is
  // its own register.
  static std::string rename(const std::string& text, const std::vector<Block>& blocks) {
    if (blocks.size() < 2) return text;
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
      if (text[i] != '%' || (i > 0 && ptx_ident_char(text[i - 1]))) {
        out += text[i++];
        continue;
      }
      std::size_t e = i + 1;
      while (e < text.size() && ptx_ident_char(text[e])) ++e;
      const std::string reg = text.substr(i, e - i);
      out += reg;
      for (auto b = blocks.rbegin(); b != blocks.rend(); ++b)
        if (b->id != 0 && b->regs.count(reg)) {
          out += fmt::format(".b{}", b->id);
          break;
        }
      i = e;
    }
    return out;
  }

  std::string_view m_;
  const ModuleSite& site_;
  std::set<long> test_files_;
  std::vector<std::size_t> newlines_;
};

}  // namespace

PtxEntry read_entry(std::string_view module, std::string_view name, const ModuleSite& site) {
  return EntryReader(module, site).read(name);
}

}  // namespace redscope::cuda::detail
