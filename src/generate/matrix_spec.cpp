// Reading a matrix spec (docs/matrix-spec.md): TOML, through toml++ (Debian's
// libtomlplusplus-dev, header-only here). Every error is an InputError at
// SPEC:LINE:COL, from toml++'s source regions.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "generate/matrix_data.hpp"
#include "redscope/core/input.hpp"
#include "redscope/generate/matrix.hpp"

// toml++ 3.3 as Debian ships it (toml++/toml.h); exceptions on, header-only.
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

namespace redscope::generate {

SourceLoc TemplateOrigin::at(std::size_t offset) const {
  if (!exact) return quote;
  const auto it = std::lower_bound(newlines.begin(), newlines.end(), offset);
  const auto line = static_cast<int>(it - newlines.begin());
  if (line == 0) return {start.line, start.col + static_cast<int>(offset)};
  return {start.line + line, static_cast<int>(offset - *(it - 1))};
}

namespace {

// Axis names and hole names: [A-Za-z0-9_-]+; labels also take '.' and '+'
// (the Cell= metadata line of contract 1, include/redscope/generate/matrix.hpp).
bool is_word(std::string_view s, std::string_view extra) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || extra.find(c) != extra.npos;
  });
}
constexpr std::string_view kNameChars = "_-";
constexpr std::string_view kLabelChars = "_-.+";
constexpr std::string_view kSpecNameChars = "_-.";

class SpecReader {
 public:
  SpecReader(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

  MatrixSpec read() {
    toml::table top = parse();
    spec_.file = path_;
    data_ = std::make_shared<MatrixSpecData>();
    check_keys(top, {"name", "verdict", "rows", "cols", "template", "axis"}, "the spec");
    read_name(top);
    read_verdict(top);
    read_template(top);
    read_axes(top);
    bind_holes();
    spec_.rows = read_layout(top, "rows");
    spec_.cols = read_layout(top, "cols");
    check_layout(top);
    spec_.data = std::move(data_);
    return std::move(spec_);
  }

 private:
  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{path_, at, std::move(msg)});
  }
  static SourceLoc loc(const toml::source_position& p) {
    return {static_cast<int>(p.line), static_cast<int>(p.column)};
  }
  static SourceLoc loc(const toml::source_region& r) { return loc(r.begin); }
  static SourceLoc loc(const toml::node& n) { return loc(n.source()); }

  toml::table parse() {
    try {
      return toml::parse(std::string_view(text_), std::string_view(path_));
    } catch (const toml::parse_error& e) {
      // toml++'s descriptions may end with a newline or hold the bad bytes.
      std::string what(e.description());
      while (!what.empty() && std::isspace(static_cast<unsigned char>(what.back())))
        what.pop_back();
      std::replace(what.begin(), what.end(), '\n', ' ');
      fail(loc(e.source()), fmt::format("not TOML: {}", printable(what)));
    }
  }

  void check_keys(const toml::table& t, std::initializer_list<std::string_view> known,
                  std::string_view where) const {
    for (auto&& [key, value] : t) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string list;
      for (std::string_view k : known) list += fmt::format("{}`{}`", list.empty() ? "" : ", ", k);
      fail(loc(key.source()),
           fmt::format("unknown key `{}` in {} (it takes {})", printable(key.str()), where, list));
    }
  }

  // The string at t[key], or none when absent; InputError when not a string.
  std::optional<std::string> string_at(const toml::table& t, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(loc(*n), fmt::format("`{}` is a string", key));
    return n->as_string()->get();
  }

  void read_name(const toml::table& t) {
    if (auto name = string_at(t, "name")) {
      if (!is_word(*name, kSpecNameChars))
        fail(loc(*t.get("name")),
             fmt::format("the spec's name '{}' is not a word of letters, digits, '_', '-' and '.'",
                         printable(*name)));
      spec_.name = *name;
      return;
    }
    spec_.name = std::filesystem::path(path_).stem().string();
    if (!is_word(spec_.name, kSpecNameChars))
      fail({1, 1}, fmt::format("the file's stem '{}' is not a spec name (letters, digits, '_', "
                               "'-' and '.'): give one with `name = \"...\"`",
                               printable(spec_.name)));
  }

  void read_verdict(const toml::table& t) {
    const auto v = string_at(t, "verdict");
    if (!v || *v == "condition") return;
    if (*v != "atomicity" && *v != "mapping")
      fail(loc(*t.get("verdict")),
           fmt::format("`verdict` is \"condition\" or \"atomicity\" (or \"mapping\" for CUDA "
                       "cells), not \"{}\"",
                       printable(*v)));
    spec_.verdict = *v == "mapping" ? MatrixVerdict::Mapping : MatrixVerdict::Atomicity;
  }

  // ---- the template ---------------------------------------------------------
  void read_template(const toml::table& t) {
    const toml::node* n = t.get("template");
    if (!n) fail({1, 1}, "the spec has no `template` (the litmus test with ${holes})");
    if (!n->is_string()) fail(loc(*n), "`template` is a string (the litmus test with ${holes})");
    const std::string& value = n->as_string()->get();
    data_->origin = origin_of(n->source(), value);
    std::size_t body = skip_ptx_line(value);
    cut_holes(value, body);
  }

  // Where the value of a string written at `r` starts, when its bytes are the
  // spec's (no escapes): after the delimiter and the newline TOML trims
  // directly after a ''' or """.
  TemplateOrigin origin_of(const toml::source_region& r, const std::string& value) const {
    TemplateOrigin o;
    o.quote = loc(r);
    const std::size_t begin = offset_of(o.quote), end = offset_of(loc(r.end));
    const std::string_view raw = std::string_view(text_).substr(begin, end - begin);
    // A literal string ('...' or '''...''') has no escapes; a basic one is exact
    // only without a backslash.
    if (!raw.starts_with("'") && raw.find('\\') != std::string_view::npos) return o;
    std::size_t skip = raw.starts_with("'''") || raw.starts_with("\"\"\"") ? 3 : 1;
    if (skip == 3 && raw.substr(3).starts_with("\r\n"))
      skip += 2;
    else if (skip == 3 && raw.substr(3).starts_with("\n"))
      skip += 1;
    if (std::string_view(text_).substr(begin + skip, value.size()) != value) return o;
    o.exact = true;
    o.start = position_of(begin + skip);
    for (std::size_t i = 0; i < value.size(); ++i)
      if (value[i] == '\n') o.newlines.push_back(i);
    return o;
  }
  std::size_t offset_of(SourceLoc at) const {
    std::size_t off = 0;
    for (int line = 1; line < at.line && off < text_.size(); ++line) {
      const std::size_t nl = text_.find('\n', off);
      if (nl == std::string::npos) return text_.size();
      off = nl + 1;
    }
    return std::min(text_.size(), off + static_cast<std::size_t>(std::max(at.col, 1) - 1));
  }
  SourceLoc position_of(std::size_t offset) const {
    const std::string_view before = std::string_view(text_).substr(0, offset);
    const std::size_t nl = before.rfind('\n');
    const auto line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
    const std::size_t col = nl == std::string_view::npos ? offset + 1 : offset - nl;
    return {line, static_cast<int>(col)};
  }

  // The template's first non-blank line is `PTX` and a name: gen matrix writes
  // the cell's name there. Returns the offset of the line after it.
  std::size_t skip_ptx_line(const std::string& value) {
    std::size_t i = 0;
    while (i < value.size()) {
      std::size_t eol = value.find('\n', i);
      if (eol == std::string::npos) eol = value.size();
      const std::string_view line = std::string_view(value).substr(i, eol - i);
      const std::size_t a = line.find_first_not_of(" \t\r");
      if (a == std::string_view::npos) {
        i = eol + 1;
        continue;
      }
      const std::string_view word = line.substr(a, line.find_first_of(" \t\r", a) - a);
      if (word != "PTX" && word != "ptx" && word != "CUDA" && word != "cuda")
        fail(data_->origin.at(i + a),
             "the template starts with the line `PTX NAME` or `CUDA NAME` (gen matrix writes the "
             "cell's name there)");
      data_->arch = word == "CUDA" || word == "cuda" ? "CUDA" : "PTX";
      if (const std::size_t h = line.find("${"); h != std::string_view::npos)
        fail(
            data_->origin.at(i + h),
            "the template's `PTX` line takes no hole: gen matrix replaces it with the cell's name");
      data_->ptx_line = data_->origin.at(i + a);
      return std::min(eol + 1, value.size());
    }
    fail(data_->origin.quote, "the template is empty (expected a litmus test starting `PTX NAME`)");
  }

  // ${name} holes; a '$' not followed by '{' is text.
  void cut_holes(const std::string& value, std::size_t from) {
    std::size_t i = from;
    while (i < value.size()) {
      const std::size_t h = value.find("${", i);
      const std::size_t stop = h == std::string::npos ? value.size() : h;
      if (stop > i) data_->body.push_back({value.substr(i, stop - i), -1, i});
      if (h == std::string::npos) break;
      const std::size_t close = value.find('}', h);
      const std::size_t nl = value.find('\n', h);
      if (close == std::string::npos || close > nl)
        fail(data_->origin.at(h), "a hole `${` is closed by `}` on the same line");
      const std::string name = value.substr(h + 2, close - h - 2);
      if (!is_word(name, kNameChars))
        fail(data_->origin.at(h),
             fmt::format("hole '${{{}}}': a hole's name is letters, digits, '_' and '-'",
                         printable(name)));
      data_->body.push_back({"", hole_index(name), h});
      i = close + 1;
    }
  }
  int hole_index(const std::string& name) {
    auto& holes = data_->holes;
    const auto it = std::find(holes.begin(), holes.end(), name);
    if (it != holes.end()) return static_cast<int>(it - holes.begin());
    holes.push_back(name);
    return static_cast<int>(holes.size()) - 1;
  }

  // ---- the axes -------------------------------------------------------------
  void read_axes(const toml::table& t) {
    const toml::node* n = t.get("axis");
    if (!n) fail({1, 1}, "the spec has no axis (an [[axis]] table with `name` and `labels`)");
    const toml::array* axes = n->as_array();
    if (!axes || !axes->is_array_of_tables())
      fail(loc(*n), "`axis` is an array of tables: write each axis as [[axis]]");
    for (const toml::node& a : *axes) read_axis(*a.as_table());
  }

  void read_axis(const toml::table& t) {
    check_keys(t, {"name", "labels"}, "an axis");
    const std::string name = axis_name(t);
    const toml::node* labels = t.get("labels");
    if (!labels) fail(loc(t), fmt::format("axis '{}' has no `labels`", name));
    const toml::array* list = labels->as_array();
    if (!list || list->empty())
      fail(loc(*labels), fmt::format("axis '{}': `labels` is a non-empty array", name));
    MatrixAxis axis{name, {}};
    AxisData data;
    std::vector<std::string> holes;  // those the first label fills
    for (const toml::node& l : *list) add_label(axis, data, holes, l);
    // Errors point at the first label's text for the hole.
    for (std::size_t k = 0; k < holes.size(); ++k)
      data.holes.push_back(bound_hole(holes[k], name, data.labels.front().at[k]));
    spec_.axes.push_back(std::move(axis));
    data_->axes.push_back(std::move(data));
  }

  std::string axis_name(const toml::table& t) const {
    const auto name = string_at(t, "name");
    if (!name) fail(loc(t), "this axis has no `name`");
    const SourceLoc at = loc(*t.get("name"));
    if (!is_word(*name, kNameChars))
      fail(at, fmt::format("axis name '{}' is not letters, digits, '_' and '-'", printable(*name)));
    for (const MatrixAxis& other : spec_.axes)
      if (other.name == *name) fail(at, fmt::format("a second axis '{}'", *name));
    return *name;
  }

  // Appends label `l` to the axis: a new label, filling the same holes as the
  // axis's first label (`holes`, set by the first).
  void add_label(MatrixAxis& axis, AxisData& data, std::vector<std::string>& holes,
                 const toml::node& l) const {
    auto [label, fills] = read_label(axis.name, l);
    const auto& labels = axis.labels;
    if (std::find(labels.begin(), labels.end(), label) != labels.end())
      fail(loc(l), fmt::format("axis '{}' has label '{}' twice", axis.name, label));
    std::vector<std::string> mine;
    for (const auto& [hole, value] : fills) mine.push_back(hole);
    if (labels.empty()) holes = mine;
    if (mine != holes)
      fail(loc(l),
           fmt::format("label '{}' of axis '{}' fills {} but label '{}' fills {}: every "
                       "label of an axis fills the same holes",
                       label, axis.name, hole_list(mine), labels.front(), hole_list(holes)));
    LabelFill fill;
    for (const auto& [hole, value] : fills) {
      fill.values.push_back(value.first);
      fill.at.push_back(value.second);
    }
    axis.labels.push_back(std::move(label));
    data.labels.push_back(std::move(fill));
    data.label_at.push_back(loc(l));
  }

  static std::string hole_list(const std::vector<std::string>& holes) {
    std::string s;
    for (const std::string& h : holes) s += fmt::format("{}${{{}}}", s.empty() ? "" : ", ", h);
    return s;
  }

  using Fills = std::map<std::string, std::pair<std::string, SourceLoc>>;  // hole -> value, where

  // A label: "LABEL" fills the hole named like the axis with LABEL;
  // { label = "LABEL", fill = { HOLE = "TEXT", ... } } fills the holes given.
  std::pair<std::string, Fills> read_label(const std::string& axis, const toml::node& l) const {
    if (l.is_string()) {
      const std::string& label = l.as_string()->get();
      check_label(axis, label, loc(l));
      return {label, Fills{{axis, {label, loc(l)}}}};
    }
    const toml::table* t = l.as_table();
    if (!t)
      fail(loc(l), fmt::format("a label of axis '{}' is a string or a table {{ label = \"...\", "
                               "fill = {{ HOLE = \"...\" }} }}",
                               axis));
    check_keys(*t, {"label", "fill"}, "a label");
    const auto label = string_at(*t, "label");
    if (!label) fail(loc(l), fmt::format("a label of axis '{}' has no `label`", axis));
    check_label(axis, *label, loc(*t->get("label")));
    const toml::node* fill = t->get("fill");
    if (!fill) return {*label, Fills{{axis, {*label, loc(*t->get("label"))}}}};
    const toml::table* holes = fill->as_table();
    if (!holes || holes->empty())
      fail(loc(*fill), "`fill` is a table of holes and their text: { HOLE = \"TEXT\", ... }");
    Fills fills;
    for (auto&& [hole, text] : *holes) {
      if (!text.is_string())
        fail(loc(text), fmt::format("the text of hole '{}' is a string", printable(hole.str())));
      fills[std::string(hole.str())] = {text.as_string()->get(), loc(text)};
    }
    return {*label, fills};
  }
  void check_label(const std::string& axis, const std::string& label, SourceLoc at) const {
    if (!is_word(label, kLabelChars))
      fail(at, fmt::format("label '{}' of axis '{}' is not letters, digits, '_', '-', '.' and '+' "
                           "(it is part of the cell's name)",
                           printable(label), axis));
  }

  // The hole an axis fills: one the template has, filled by no other axis.
  int bound_hole(const std::string& hole, const std::string& axis, SourceLoc at) {
    const auto& holes = data_->holes;
    const auto it = std::find(holes.begin(), holes.end(), hole);
    if (it == holes.end())
      fail(at, fmt::format("axis '{}' fills ${{{}}}, which the template does not have", axis,
                           printable(hole)));
    const int h = static_cast<int>(it - holes.begin());
    for (std::size_t a = 0; a < data_->axes.size(); ++a)
      for (int other : data_->axes[a].holes)
        if (other == h)
          fail(at, fmt::format("${{{}}} is filled by axis '{}' and by axis '{}': a hole is "
                               "bound by exactly one axis",
                               hole, spec_.axes[a].name, axis));
    return h;
  }

  // Every hole of the template is filled by an axis.
  void bind_holes() const {
    std::set<int> bound;
    for (const AxisData& a : data_->axes) bound.insert(a.holes.begin(), a.holes.end());
    for (const TemplatePiece& p : data_->body)
      if (p.hole >= 0 && !bound.count(p.hole))
        fail(data_->origin.at(p.offset),
             fmt::format("no axis fills ${{{}}} (an axis fills the hole named like it, or the "
                         "holes its labels' `fill` tables name)",
                         data_->holes[p.hole]));
  }

  // ---- the layout report --matrix uses by default -----------------------------
  std::vector<std::string> read_layout(const toml::table& t, std::string_view key) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    const toml::array* list = n->as_array();
    if (!list) fail(loc(*n), fmt::format("`{}` is an array of axis names", key));
    for (const toml::node& a : *list) {
      if (!a.is_string()) fail(loc(a), fmt::format("`{}` is an array of axis names", key));
      const std::string& name = a.as_string()->get();
      const auto& axes = spec_.axes;
      if (std::none_of(axes.begin(), axes.end(),
                       [&](const MatrixAxis& x) { return x.name == name; }))
        fail(loc(a), fmt::format("`{}` names '{}', which is not an axis", key, printable(name)));
      if (std::find(out.begin(), out.end(), name) != out.end())
        fail(loc(a), fmt::format("`{}` names '{}' twice", key, name));
      out.push_back(name);
    }
    return out;
  }
  void check_layout(const toml::table& t) const {
    for (std::size_t i = 0; i < spec_.cols.size(); ++i)
      if (std::find(spec_.rows.begin(), spec_.rows.end(), spec_.cols[i]) != spec_.rows.end())
        fail(loc(*(*t.get("cols")->as_array()).get(i)),
             fmt::format("axis '{}' is in both `rows` and `cols`", spec_.cols[i]));
  }

  std::string path_;
  std::string text_;
  MatrixSpec spec_;
  std::shared_ptr<MatrixSpecData> data_;
};

}  // namespace

MatrixSpec read_matrix_spec(const std::string& path, std::size_t max_file_bytes) {
  std::string text = read_input(path, max_file_bytes, "matrix spec");
  check_input_text(path, text, "matrix spec");
  return SpecReader(path, std::move(text)).read();
}

}  // namespace redscope::generate
