#include "redscope/report/merge.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "redscope/core/litmus.hpp"

namespace redscope {
namespace {

// A minimal JSON scanner: checks the syntax and returns the raw text of
// values, enough to split an array of objects and read string fields.
class Scanner {
 public:
  Scanner(std::string_view text, const std::string& file) : t_(text), file_(file) {}

  struct Element {
    std::string raw;
    std::map<std::string, std::string> strings;  // top-level string fields
    bool has_error = false;                      // "error" is not null
  };

  std::vector<Element> array_of_objects() {
    std::vector<Element> out;
    ws();
    expect('[');
    ws();
    if (peek() == ']') {
      ++p_;
      return finish(out);
    }
    for (;;) {
      ws();
      out.push_back(object());
      ws();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      expect(']');
      return finish(out);
    }
  }

 private:
  std::vector<Element> finish(std::vector<Element>& out) {
    ws();
    if (p_ != t_.size()) fail("text after the closing ']'");
    return std::move(out);
  }

  Element object() {
    Element e;
    const std::size_t start = p_;
    expect('{');
    ws();
    if (peek() == '}') {
      ++p_;
      e.raw = std::string(t_.substr(start, p_ - start));
      return e;
    }
    for (;;) {
      ws();
      const std::string key = string();
      ws();
      expect(':');
      ws();
      if (peek() == '"') {
        e.strings[key] = string();
      } else {
        const std::size_t v = p_;
        value();
        if (key == "error" && t_.substr(v, p_ - v) != "null") e.has_error = true;
      }
      ws();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      expect('}');
      e.raw = std::string(t_.substr(start, p_ - start));
      return e;
    }
  }

  void value() {
    const char c = peek();
    if (c == '"') {
      string();
      return;
    }
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++p_;
      ws();
      if (peek() == close) {
        ++p_;
        return;
      }
      for (;;) {
        ws();
        if (c == '{') {
          string();
          ws();
          expect(':');
          ws();
        }
        value();
        ws();
        if (peek() == ',') {
          ++p_;
          continue;
        }
        expect(close);
        return;
      }
    }
    for (std::string_view lit : {"null", "true", "false"})
      if (t_.substr(p_, lit.size()) == lit) {
        p_ += lit.size();
        return;
      }
    const std::size_t s = p_;
    while (p_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[p_])) ||
                              std::string_view("+-.eE").find(t_[p_]) != std::string_view::npos))
      ++p_;
    if (p_ == s) fail("expected a JSON value");
  }

  std::string string() {
    expect('"');
    std::string s;
    while (p_ < t_.size() && t_[p_] != '"') {
      if (t_[p_] == '\\') {
        if (++p_ >= t_.size()) break;
        const char e = t_[p_];
        s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        if (e == 'u') p_ += 4;
      } else {
        s += t_[p_];
      }
      ++p_;
    }
    expect('"');
    return s;
  }

  void ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void expect(char c) {
    if (peek() != c)
      fail(p_ < t_.size() ? fmt::format("expected '{}', found '{}'", c, t_[p_])
                          : fmt::format("expected '{}', found the end", c));
    ++p_;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < p_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError(Diagnostic{file_, SourceLoc{line, col},
                                msg + " (expected the JSON of `redscope run --format json`)"});
  }

  std::string_view t_;
  const std::string& file_;
  std::size_t p_ = 0;
};

}  // namespace

MergedRun merge_run_json(const std::vector<std::pair<std::string, std::string>>& named_texts) {
  struct Item {
    std::string file, raw, from;
    bool error;
  };
  std::vector<Item> items;
  std::map<std::string, std::string> seen;
  for (const auto& [name, text] : named_texts) {
    for (auto& e : Scanner(text, name).array_of_objects()) {
      auto f = e.strings.find("file");
      if (f == e.strings.end())
        throw InputError(Diagnostic{name, SourceLoc{1, 1}, "a result without a \"file\" field"});
      if (auto [it, fresh] = seen.emplace(f->second, name); !fresh)
        throw InputError(
            Diagnostic{name, SourceLoc{1, 1},
                       fmt::format("{} is also in {}: overlapping shards", f->second, it->second)});
      items.push_back({f->second, std::move(e.raw), name, e.has_error});
    }
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.file < b.file; });
  MergedRun m;
  m.json = "[\n";
  for (std::size_t i = 0; i < items.size(); ++i) m.json += (i ? ",\n  " : "  ") + items[i].raw;
  m.json += items.empty() ? "]\n" : "\n]\n";
  m.tests = items.size();
  m.errors = static_cast<std::size_t>(
      std::count_if(items.begin(), items.end(), [](const Item& x) { return x.error; }));
  return m;
}

}  // namespace redscope
