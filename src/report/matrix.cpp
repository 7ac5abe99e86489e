// The matrix report's table model (redscope/report/matrix.hpp): cell
// coordinates from Cell= metadata, the table, and the layout of its axes.
#include "redscope/report/matrix.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"

namespace redscope {

std::string_view to_string(CellVerdict v) {
  switch (v) {
    case CellVerdict::Allowed: return "allowed";
    case CellVerdict::Forbidden: return "forbidden";
    case CellVerdict::Lost: return "lost";
    case CellVerdict::Safe: return "safe";
    case CellVerdict::Unknown: return "unknown";
    case CellVerdict::Ok: return "ok";
    case CellVerdict::Miscompiled: return "miscompiled";
    case CellVerdict::Racy: return "racy";
    case CellVerdict::Error: return "error";
  }
  return "error";
}

std::string_view to_string(VerdictKind k) {
  switch (k) {
    case VerdictKind::Condition: return "condition";
    case VerdictKind::Atomicity: return "atomicity";
    case VerdictKind::Mapping: return "mapping";
  }
  return "condition";
}

std::optional<VerdictKind> verdict_kind_named(std::string_view word) {
  for (VerdictKind k : {VerdictKind::Condition, VerdictKind::Atomicity, VerdictKind::Mapping})
    if (word == to_string(k)) return k;
  return std::nullopt;
}

std::vector<CellVerdict> verdicts_of(VerdictKind k) {
  switch (k) {
    case VerdictKind::Condition:
      return {CellVerdict::Allowed, CellVerdict::Forbidden, CellVerdict::Error};
    case VerdictKind::Atomicity:
      return {CellVerdict::Lost, CellVerdict::Safe, CellVerdict::Unknown, CellVerdict::Error};
    case VerdictKind::Mapping:
      return {CellVerdict::Miscompiled, CellVerdict::Ok, CellVerdict::Racy, CellVerdict::Error};
  }
  return {CellVerdict::Error};
}

CellVerdict mapping_verdict(std::string_view word) {
  for (CellVerdict v : {CellVerdict::Ok, CellVerdict::Miscompiled, CellVerdict::Racy})
    if (word == to_string(v)) return v;
  return CellVerdict::Error;
}

CellVerdict atomicity_verdict(bool any_lost, bool any_scope_unknown) {
  if (any_lost) return CellVerdict::Lost;
  return any_scope_unknown ? CellVerdict::Unknown : CellVerdict::Safe;
}

namespace {

bool is_name_char(char c, bool label) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         (label && (c == '.' || c == '+'));
}

bool all_of_kind(std::string_view s, bool label) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [&](char c) { return is_name_char(c, label); });
}

}  // namespace

CellCoords parse_cell_coords(std::string_view value, const std::string& where) {
  CellCoords out;
  std::set<std::string, std::less<>> seen;
  for (std::size_t at = 0; at <= value.size();) {
    std::size_t comma = value.find(',', at);
    if (comma == std::string_view::npos) comma = value.size();
    const std::string_view item = value.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    const std::string_view axis = item.substr(0, eq);
    const std::string_view label = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    if (!all_of_kind(axis, false) || !all_of_kind(label, true))
      throw MatrixError(fmt::format(
          "{}: Cell={}: '{}' is not AXIS=LABEL (axis [A-Za-z0-9_-]+, label [A-Za-z0-9_.+-]+)",
          where, printable(value), printable(item)));
    if (!seen.emplace(axis).second)
      throw MatrixError(
          fmt::format("{}: Cell={}: axis '{}' appears twice", where, printable(value), axis));
    out.emplace_back(std::string(axis), std::string(label));
    at = comma + 1;
  }
  return out;
}

MatrixRecord record_from_metadata(const std::map<std::string, std::string>& metadata,
                                  const std::string& where) {
  const auto cell = metadata.find("Cell");
  if (cell == metadata.end())
    throw MatrixError(fmt::format(
        "{}: the test has no Cell= metadata line, so it has no place in a matrix (tests "
        "written by `redscope gen matrix` carry Matrix= and Cell=; docs/matrix-spec.md)",
        where));
  MatrixRecord r;
  r.coords = parse_cell_coords(cell->second, where);
  if (const auto m = metadata.find("Matrix"); m != metadata.end()) r.matrix = m->second;
  return r;
}

MatrixRecord condition_record(const TestResult& r) {
  static const std::map<std::string, std::string> kNone;
  MatrixRecord m = record_from_metadata(r.source ? r.source->metadata : kNone,
                                        r.test.empty() ? r.file : r.file + " (" + r.test + ")");
  m.test = r.test;
  m.file = r.file;
  if (r.error) {
    m.verdict = CellVerdict::Error;
    m.error = *r.error;
    m.error_kind = r.error_kind.empty() ? "input" : r.error_kind;
  } else {
    m.verdict = r.observation == Observation::Never ? CellVerdict::Forbidden : CellVerdict::Allowed;
  }
  return m;
}

MatrixTable::MatrixTable(VerdictKind kind, std::string name, std::vector<MatrixAxisInfo> axes)
    : kind_(kind),
      name_(std::move(name)),
      axes_(std::move(axes)),
      fixed_axes_(!axes_.empty()) {}

std::size_t MatrixTable::label_index(std::size_t axis, const std::string& label, bool learn) {
  std::vector<std::string>& ls = axes_[axis].labels;
  const auto it = std::find(ls.begin(), ls.end(), label);
  if (it != ls.end()) return static_cast<std::size_t>(it - ls.begin());
  if (!learn) return ls.size();
  ls.push_back(label);
  return ls.size() - 1;
}

namespace {

std::string axis_names(const std::vector<MatrixAxisInfo>& axes) {
  std::string s;
  for (const MatrixAxisInfo& a : axes) s += (s.empty() ? "" : ",") + a.name;
  return s;
}

std::string axis_names(const CellCoords& coords) {
  std::string s;
  for (const auto& [axis, label] : coords) s += (s.empty() ? "" : ",") + axis;
  return s;
}

std::string who(const MatrixRecord& r) {
  return r.test.empty() || r.file.find(r.test) != std::string::npos
             ? r.file
             : fmt::format("{} ({})", r.file, r.test);
}

}  // namespace

void MatrixTable::add(MatrixRecord r) {
  if (axes_.empty() && cells_.empty() && !fixed_axes_) {
    for (const auto& [axis, label] : r.coords) axes_.push_back(MatrixAxisInfo{axis, {}});
    if (name_.empty()) name_ = r.matrix;
    first_ = who(r);
  }
  if (axis_names(r.coords) != axis_names(axes_))
    throw MatrixError(fmt::format(
        "{}: Cell= names the axes {}, but {} {}: one matrix has one list of axes", who(r),
        axis_names(r.coords), fixed_axes_ ? "the spec has" : first_ + " has", axis_names(axes_)));
  std::vector<std::size_t> key;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    key.push_back(label_index(a, r.coords[a].second, !fixed_axes_));
    if (key.back() == axes_[a].labels.size())
      throw MatrixError(fmt::format("{}: axis {} has no label '{}' in the spec", who(r),
                                    axes_[a].name, r.coords[a].second));
  }
  const auto [it, fresh] = cells_.try_emplace(std::move(key), std::move(r));
  if (!fresh) {
    std::string cell;
    for (const auto& [axis, label] : r.coords)
      cell += (cell.empty() ? "" : ",") + axis + "=" + label;
    throw MatrixError(
        fmt::format("two tests in one cell ({}): {} and {}", cell, who(it->second), who(r)));
  }
}

const MatrixRecord* MatrixTable::at(const std::vector<std::size_t>& labels) const {
  const auto it = cells_.find(labels);
  return it == cells_.end() ? nullptr : &it->second;
}

std::map<CellVerdict, std::size_t> MatrixTable::counts() const {
  std::map<CellVerdict, std::size_t> out;
  for (const auto& [key, r] : cells_) ++out[r.verdict];
  return out;
}

namespace {

std::vector<std::size_t> axes_named(const MatrixTable& t, std::string_view list,
                                    std::set<std::size_t>& used) {
  std::vector<std::size_t> out;
  if (list.empty() || list == "-") return out;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view name = list.substr(at, comma - at);
    const auto& axes = t.axes();
    const auto it = std::find_if(axes.begin(), axes.end(),
                                 [&](const MatrixAxisInfo& a) { return a.name == name; });
    if (it == axes.end())
      throw MatrixError(fmt::format("--matrix: unknown axis '{}' (the axes of {} are {})",
                                    printable(name), t.name().empty() ? "the matrix" : t.name(),
                                    axis_names(axes)));
    const auto i = static_cast<std::size_t>(it - axes.begin());
    if (!used.insert(i).second)
      throw MatrixError(fmt::format("--matrix: axis '{}' is named twice", name));
    out.push_back(i);
    at = comma + 1;
  }
  return out;
}

}  // namespace

MatrixLayout matrix_layout(const MatrixTable& t, std::string_view rows, std::string_view cols) {
  std::set<std::size_t> used;
  MatrixLayout l;
  l.rows = axes_named(t, rows, used);
  l.cols = axes_named(t, cols, used);
  for (std::size_t a = 0; a < t.axes().size(); ++a)
    if (!used.count(a)) l.sections.push_back(a);
  return l;
}

}  // namespace redscope
