// The matrix report's renderers (redscope/report/matrix.hpp): one layout of
// the table (sheets of rows and columns) drawn as text, SVG and HTML, and
// the table's cells as CSV and JSON. Output depends on the cells only.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "redscope/core/json.hpp"
#include "redscope/report/matrix.hpp"
#include "redscope/report/report.hpp"

namespace redscope {

namespace {

using Key = std::vector<std::size_t>;

// One section of the table: the combinations of the row and column axes'
// labels that some test occupies (in the axes' order), and the cells.
struct Sheet {
  std::string title;  // "target=sm_60, space=shared", or "" without sections
  std::vector<Key> rows, cols;
  std::vector<std::vector<const MatrixRecord*>> cells;  // [row][col], null: no test
};

Key project(const Key& k, const std::vector<std::size_t>& axes) {
  Key out;
  for (std::size_t a : axes) out.push_back(k[a]);
  return out;
}

std::string labels_text(const MatrixTable& t, const std::vector<std::size_t>& axes, const Key& k) {
  std::string s;
  for (std::size_t i = 0; i < axes.size(); ++i)
    s += fmt::format("{}{}={}", i ? ", " : "", t.axes()[axes[i]].name,
                     t.axes()[axes[i]].labels[k[i]]);
  return s;
}

std::vector<Sheet> sheets_of(const MatrixTable& t, const MatrixLayout& l) {
  std::set<Key> sections, rows, cols;
  for (const auto& [k, r] : t.cells()) {
    sections.insert(project(k, l.sections));
    rows.insert(project(k, l.rows));
    cols.insert(project(k, l.cols));
  }
  std::vector<Sheet> out;
  for (const Key& s : sections) {
    Sheet sh;
    sh.title = labels_text(t, l.sections, s);
    sh.rows.assign(rows.begin(), rows.end());
    sh.cols.assign(cols.begin(), cols.end());
    for (const Key& r : sh.rows) {
      sh.cells.emplace_back();
      for (const Key& c : sh.cols) {
        Key full(t.axes().size());
        for (std::size_t i = 0; i < l.sections.size(); ++i) full[l.sections[i]] = s[i];
        for (std::size_t i = 0; i < l.rows.size(); ++i) full[l.rows[i]] = r[i];
        for (std::size_t i = 0; i < l.cols.size(); ++i) full[l.cols[i]] = c[i];
        sh.cells.back().push_back(t.at(full));
      }
    }
    out.push_back(std::move(sh));
  }
  return out;
}

// Whether header level `level` of entry `i` starts a new span: the first
// entry, or a label at this level or above differs from the previous entry.
bool starts_span(const std::vector<Key>& keys, std::size_t i, std::size_t level) {
  if (i == 0) return true;
  for (std::size_t v = 0; v <= level; ++v)
    if (keys[i][v] != keys[i - 1][v]) return true;
  return false;
}

std::string cell_word(const MatrixRecord* r) {
  return r ? std::string(to_string(r->verdict)) : "-";
}

std::string what_title(const MatrixTable& t, const MatrixLayout& l) {
  auto names = [&](const std::vector<std::size_t>& axes) {
    std::string s;
    for (std::size_t a : axes) s += (s.empty() ? "" : ",") + t.axes()[a].name;
    return s.empty() ? std::string("(none)") : s;
  };
  return fmt::format("Matrix {} ({} verdict): rows {}, columns {}",
                     t.name().empty() ? "(unnamed)" : t.name(), to_string(t.kind()), names(l.rows),
                     names(l.cols));
}

std::string_view meaning(CellVerdict v) {
  switch (v) {
    case CellVerdict::Allowed: return "some allowed execution satisfies the condition";
    case CellVerdict::Forbidden: return "no allowed execution satisfies it";
    case CellVerdict::Lost: return "some allowed execution loses an update";
    case CellVerdict::Safe: return "no allowed execution loses one";
    case CellVerdict::Unknown: return "the model names no morally strong relation";
    case CellVerdict::Ok: return "every outcome of the compiled PTX is one of the source's";
    case CellVerdict::Miscompiled: return "the compiled PTX reaches an outcome the source forbids";
    case CellVerdict::Racy: return "the source has a heterogeneous race (no meaning in C++)";
    case CellVerdict::Error: return "the test could not be checked";
  }
  return "";
}

// "N tests: ..." and, when the generator skipped cells, a line per reason.
std::vector<std::string> summary_lines(const MatrixTable& t) {
  const auto counts = t.counts();
  std::string s = fmt::format("{} tests:", t.size());
  for (CellVerdict v : verdicts_of(t.kind())) {
    const auto it = counts.find(v);
    s += fmt::format(" {} {}", it == counts.end() ? 0 : it->second, to_string(v));
    s += v == CellVerdict::Error ? "" : ",";
  }
  std::vector<std::string> out{s};
  std::size_t skipped = 0;
  for (const auto& [reason, n] : t.skipped) skipped += n;
  if (skipped) out.push_back(fmt::format("{} cells skipped by the ISA:", skipped));
  for (const auto& [reason, n] : t.skipped) out.push_back(fmt::format("  {} {}", n, reason));
  return out;
}

std::string summary_text(const MatrixTable& t) {
  std::string s;
  for (const std::string& line : summary_lines(t)) s += line + "\n";
  return s;
}

std::vector<std::string> legend_lines(const MatrixTable& t) {
  std::vector<std::string> out;
  for (CellVerdict v : verdicts_of(t.kind()))
    out.push_back(fmt::format("{}: {}", to_string(v), meaning(v)));
  out.push_back("-: no test in this cell");
  return out;
}

// ---- text ------------------------------------------------------------------

const char* ansi(CellVerdict v) {
  switch (v) {
    case CellVerdict::Allowed:
    case CellVerdict::Lost:
    case CellVerdict::Miscompiled: return "\x1b[31m";
    case CellVerdict::Forbidden:
    case CellVerdict::Safe:
    case CellVerdict::Ok: return "\x1b[32m";
    case CellVerdict::Unknown:
    case CellVerdict::Racy: return "\x1b[33m";
    case CellVerdict::Error: return "\x1b[35m";
  }
  return "";
}

std::string pad(const std::string& s, std::size_t w) {
  return s + std::string(w > s.size() ? w - s.size() : 0, ' ');
}

std::string text_sheet(const MatrixTable& t, const MatrixLayout& l, const Sheet& sh,
                       const MatrixTextStyle& style) {
  const auto& axes = t.axes();
  // Widths: one column per row axis, then one per column of cells.
  std::vector<std::size_t> rw(l.rows.size());
  for (std::size_t i = 0; i < l.rows.size(); ++i) {
    rw[i] = axes[l.rows[i]].name.size();
    for (const Key& r : sh.rows) rw[i] = std::max(rw[i], axes[l.rows[i]].labels[r[i]].size());
  }
  std::size_t left = 0;
  for (std::size_t w : rw) left += w + 2;
  for (std::size_t a : l.cols) left = std::max(left, axes[a].name.size() + 2);
  std::vector<std::size_t> cw(sh.cols.size(), 1);
  for (std::size_t c = 0; c < sh.cols.size(); ++c) {
    for (std::size_t i = 0; i < l.cols.size(); ++i)
      cw[c] = std::max(cw[c], axes[l.cols[i]].labels[sh.cols[c][i]].size());
    for (const auto& row : sh.cells) cw[c] = std::max(cw[c], cell_word(row[c]).size());
  }
  std::string o = sh.title.empty() ? "" : sh.title + ":\n";
  for (std::size_t i = 0; i < l.cols.size(); ++i) {
    std::string line = pad(axes[l.cols[i]].name, left);
    for (std::size_t c = 0; c < sh.cols.size(); ++c)
      line +=
          pad(starts_span(sh.cols, c, i) ? axes[l.cols[i]].labels[sh.cols[c][i]] : "", cw[c] + 2);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    o += line + "\n";
  }
  std::string names;
  for (std::size_t i = 0; i < l.rows.size(); ++i) names += pad(axes[l.rows[i]].name, rw[i] + 2);
  while (!names.empty() && names.back() == ' ') names.pop_back();
  if (!names.empty()) o += names + "\n";
  for (std::size_t r = 0; r < sh.rows.size(); ++r) {
    std::string line;
    for (std::size_t i = 0; i < l.rows.size(); ++i)
      line +=
          pad(starts_span(sh.rows, r, i) ? axes[l.rows[i]].labels[sh.rows[r][i]] : "", rw[i] + 2);
    line = pad(line, left);
    for (std::size_t c = 0; c < sh.cols.size(); ++c) {
      const MatrixRecord* rec = sh.cells[r][c];
      const std::string word = cell_word(rec);
      const std::string gap(cw[c] + 2 - word.size(), ' ');
      line += style.colour && rec ? fmt::format("{}{}\x1b[0m{}", ansi(rec->verdict), word, gap)
                                  : word + gap;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    o += line + "\n";
  }
  return o;
}

}  // namespace

std::string render_matrix_text(const MatrixTable& t, const MatrixLayout& l,
                               const MatrixTextStyle& style) {
  std::string o = what_title(t, l) + "\n\n";
  for (const Sheet& sh : sheets_of(t, l)) o += text_sheet(t, l, sh, style) + "\n";
  for (const std::string& line : legend_lines(t)) o += "  " + line + "\n";
  return o + summary_text(t);
}

// ---- CSV and JSON -----------------------------------------------------------

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

std::string render_matrix_csv(const MatrixTable& t) {
  std::string o;
  for (const MatrixAxisInfo& a : t.axes()) o += csv_field(a.name) + ",";
  o += "verdict,test\n";
  for (const auto& [k, r] : t.cells()) {
    for (std::size_t a = 0; a < k.size(); ++a) o += csv_field(t.axes()[a].labels[k[a]]) + ",";
    o += fmt::format("{},{}\n", to_string(r.verdict), csv_field(r.test));
  }
  return o;
}

std::string render_matrix_json(const MatrixTable& t, const MatrixLayout& l) {
  auto names = [&](const std::vector<std::size_t>& axes) {
    Json a = Json::array();
    for (std::size_t i : axes) a.push(t.axes()[i].name);
    return a;
  };
  Json axes = Json::array();
  for (const MatrixAxisInfo& a : t.axes())
    axes.push(Json::object().set("name", a.name).set("labels", Json::strings(a.labels)));
  Json counts = Json::object();
  const auto n = t.counts();
  for (CellVerdict v : verdicts_of(t.kind()))
    counts.set(std::string(to_string(v)), n.count(v) ? n.at(v) : std::size_t{0});
  Json skipped = Json::object();
  for (const auto& [reason, k] : t.skipped) skipped.set(reason, k);
  Json cells = Json::array();
  for (const auto& [k, r] : t.cells()) {
    Json cell = Json::object();
    for (std::size_t a = 0; a < k.size(); ++a) cell.set(t.axes()[a].name, t.axes()[a].labels[k[a]]);
    Json c = Json::object().set("cell", std::move(cell)).set("verdict", to_string(r.verdict));
    c.set("test", r.test).set("file", r.file);
    c.set("error_kind", r.error_kind.empty() ? Json() : Json(r.error_kind));
    cells.push(c.set("error", r.error.empty() ? Json() : Json(r.error)));
  }
  Json o = Json::object().set("matrix", t.name()).set("verdict", to_string(t.kind()));
  o.set("axes", std::move(axes)).set("rows", names(l.rows)).set("cols", names(l.cols));
  o.set("sections", names(l.sections)).set("counts", std::move(counts));
  o.set("skipped", std::move(skipped)).set("cells", std::move(cells));
  return o.dump(Json::Layout::Nested) + "\n";
}

// ---- SVG and HTML -------------------------------------------------------------

namespace {

// Fill colours: red where the weak behaviour (or a lost update, or a
// miscompilation) is possible, green where it is not, yellow unknown, amber
// racy, violet errors.
const char* fill(const MatrixRecord* r) {
  if (!r) return "#f2f2f2";
  switch (r->verdict) {
    case CellVerdict::Allowed:
    case CellVerdict::Lost:
    case CellVerdict::Miscompiled: return "#f4c7c3";
    case CellVerdict::Forbidden:
    case CellVerdict::Safe:
    case CellVerdict::Ok: return "#c9e7c9";
    case CellVerdict::Unknown: return "#fff0b3";
    case CellVerdict::Racy: return "#fcd49a";
    case CellVerdict::Error: return "#e3ccf0";
  }
  return "#ffffff";
}

// A picture in pixels of a monospace font (12 px: 7.2 px per character).
class SvgCanvas {
 public:
  static constexpr int kRow = 20, kPad = 6;
  static int width_of(std::size_t chars) { return static_cast<int>(chars * 36 / 5) + 2 * kPad; }

  void text(int x, int y, std::string_view s, bool bold = false) {
    body_ += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>\n", x + kPad, y + 14,
                         bold ? " font-weight=\"bold\"" : "", html_escape(s));
    grow(x + width_of(s.size()), y + kRow);
  }
  void box(int x, int y, int w, const char* colour, int h = kRow) {
    body_ += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#999\"/>\n", x, y,
        w, h, colour);
    grow(x + w, y + h);
  }
  std::string done() const {
    return fmt::format(
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
               "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans Mono,monospace\" "
               "font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
               w_ + 10, h_ + 10) +
           body_ + "</svg>\n";
  }

 private:
  void grow(int x, int y) {
    w_ = std::max(w_, x);
    h_ = std::max(h_, y);
  }
  std::string body_;
  int w_ = 0, h_ = 0;
};

// Draws one sheet at `y`; returns the y below it.
int svg_sheet(SvgCanvas& c, const MatrixTable& t, const MatrixLayout& l, const Sheet& sh, int y) {
  const auto& axes = t.axes();
  std::vector<int> rw;
  for (std::size_t i = 0; i < l.rows.size(); ++i) {
    std::size_t w = axes[l.rows[i]].name.size();
    for (const Key& r : sh.rows) w = std::max(w, axes[l.rows[i]].labels[r[i]].size());
    rw.push_back(SvgCanvas::width_of(w));
  }
  int left = 10;
  for (int w : rw) left += w;
  for (std::size_t a : l.cols) left = std::max(left, 10 + SvgCanvas::width_of(axes[a].name.size()));
  std::vector<int> cw;
  for (std::size_t k = 0; k < sh.cols.size(); ++k) {
    std::size_t w = 9;  // "forbidden"
    for (CellVerdict v : verdicts_of(t.kind())) w = std::max(w, to_string(v).size());
    for (std::size_t i = 0; i < l.cols.size(); ++i)
      w = std::max(w, axes[l.cols[i]].labels[sh.cols[k][i]].size());
    cw.push_back(SvgCanvas::width_of(w));
  }
  if (!sh.title.empty()) c.text(10, y, sh.title, true), y += SvgCanvas::kRow;
  for (std::size_t i = 0; i < l.cols.size(); ++i, y += SvgCanvas::kRow) {
    c.text(10, y, axes[l.cols[i]].name, true);
    int x = left;
    for (std::size_t k = 0; k < sh.cols.size(); x += cw[k], ++k)
      if (starts_span(sh.cols, k, i)) c.text(x, y, axes[l.cols[i]].labels[sh.cols[k][i]]);
  }
  int x = 10;
  for (std::size_t i = 0; i < l.rows.size(); x += rw[i], ++i)
    c.text(x, y, axes[l.rows[i]].name, true);
  y += SvgCanvas::kRow;
  for (std::size_t r = 0; r < sh.rows.size(); ++r, y += SvgCanvas::kRow) {
    x = 10;
    for (std::size_t i = 0; i < l.rows.size(); x += rw[i], ++i)
      if (starts_span(sh.rows, r, i)) c.text(x, y, axes[l.rows[i]].labels[sh.rows[r][i]]);
    x = left;
    for (std::size_t k = 0; k < sh.cols.size(); x += cw[k], ++k) {
      c.box(x, y, cw[k], fill(sh.cells[r][k]));
      c.text(x, y, cell_word(sh.cells[r][k]));
    }
  }
  return y + SvgCanvas::kRow / 2;
}

}  // namespace

std::string render_matrix_svg(const MatrixTable& t, const MatrixLayout& l) {
  SvgCanvas c;
  int y = 10;
  c.text(10, y, what_title(t, l), true);
  y += SvgCanvas::kRow * 3 / 2;
  for (const Sheet& sh : sheets_of(t, l)) y = svg_sheet(c, t, l, sh, y);
  for (CellVerdict v : verdicts_of(t.kind())) {
    MatrixRecord r;
    r.verdict = v;
    c.box(12, y + 3, 14, fill(&r), 14);
    c.text(30, y, fmt::format("{}: {}", to_string(v), meaning(v)));
    y += SvgCanvas::kRow;
  }
  c.box(12, y + 3, 14, fill(nullptr), 14);
  c.text(30, y, "-: no test in this cell");
  for (const std::string& line : summary_lines(t)) c.text(10, y += SvgCanvas::kRow, line);
  return c.done();
}

namespace {

constexpr const char* kMatrixStyle = R"(<style>
body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #bbb;padding:.25em .6em;font-size:14px}
th{background:#f0f0f0;text-align:left}td.v{text-align:center}td.v a{color:inherit;text-decoration:none}
td.allowed,td.lost,td.miscompiled{background:#f4c7c3}
td.forbidden,td.safe,td.ok{background:#c9e7c9}td.unknown{background:#fff0b3}
td.racy{background:#fcd49a}td.error{background:#e3ccf0}td.none{background:#f2f2f2;color:#999}
</style>
)";

std::string html_sheet(const MatrixTable& t, const MatrixLayout& l, const Sheet& sh) {
  const auto& axes = t.axes();
  std::string h = sh.title.empty() ? "" : "<h2>" + html_escape(sh.title) + "</h2>";
  h += "<table class=matrix>";
  const std::size_t head_cols = std::max<std::size_t>(1, l.rows.size());
  for (std::size_t i = 0; i < l.cols.size(); ++i) {
    h += fmt::format("<tr><th colspan={}>{}</th>", head_cols, html_escape(axes[l.cols[i]].name));
    for (std::size_t k = 0; k < sh.cols.size(); ++k) {
      if (!starts_span(sh.cols, k, i)) continue;
      std::size_t span = 1;
      while (k + span < sh.cols.size() && !starts_span(sh.cols, k + span, i)) ++span;
      h += fmt::format("<th colspan={}>{}</th>", span,
                       html_escape(axes[l.cols[i]].labels[sh.cols[k][i]]));
    }
    h += "</tr>";
  }
  h += "<tr>";
  for (std::size_t a : l.rows) h += "<th>" + html_escape(axes[a].name) + "</th>";
  if (l.rows.empty()) h += "<th></th>";
  h += fmt::format("<th colspan={}></th></tr>", sh.cols.size());
  for (std::size_t r = 0; r < sh.rows.size(); ++r) {
    h += "<tr>";
    for (std::size_t i = 0; i < l.rows.size(); ++i)
      h += "<th>" + html_escape(axes[l.rows[i]].labels[sh.rows[r][i]]) + "</th>";
    if (l.rows.empty()) h += "<th></th>";
    for (const MatrixRecord* rec : sh.cells[r]) {
      const std::string word = cell_word(rec);
      if (!rec) {
        h += "<td class=\"v none\">-</td>";
        continue;
      }
      const std::string title =
          html_escape(rec->test + (rec->error.empty() ? "" : ": " + rec->error));
      h += fmt::format("<td class=\"v {}\" title=\"{}\">{}</td>", word, title,
                       rec->page.empty()
                           ? word
                           : fmt::format("<a href=\"{}\">{}</a>", html_escape(rec->page), word));
    }
    h += "</tr>";
  }
  return h + "</table>\n";
}

}  // namespace

std::string render_matrix_html(const MatrixTable& t, const MatrixLayout& l,
                               const std::string& summary) {
  std::string h = fmt::format(
      "<!doctype html><html><head><meta charset=utf-8><title>{0}</title>{1}</head><body>"
      "<h1>{0}</h1><p id=summary>{2}</p>\n",
      html_escape(what_title(t, l)), kMatrixStyle, html_escape(summary));
  for (const Sheet& sh : sheets_of(t, l)) h += html_sheet(t, l, sh);
  h += "<ul id=legend>";
  for (const std::string& line : legend_lines(t)) h += "<li>" + html_escape(line) + "</li>";
  return h + "</ul><pre id=counts>" + html_escape(summary_text(t)) + "</pre></body></html>\n";
}

}  // namespace redscope
