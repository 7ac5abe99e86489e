// The cells of a matrix spec (docs/matrix-spec.md): the axes as an odometer,
// each cell rendered from the template, parsed by the PTX reader, skipped when
// a rule of the PTX ISA forbids it (contract 5 of issue 33: DiagnosticKind::
// IsaRule), an error in the spec otherwise.
#include "redscope/generate/matrix.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "generate/matrix_data.hpp"
#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope::generate {
namespace {

const std::string kGenerator = "redscope gen matrix";

// One cell being built: the labels chosen, its text, and where each piece of
// the template starts in the text (to map a parse error back to the spec).
class CellRenderer {
 public:
  explicit CellRenderer(const MatrixSpec& spec) : spec_(spec), data_(*spec.data) {
    hole_axis_.assign(data_.holes.size(), {0, 0});
    for (std::size_t a = 0; a < data_.axes.size(); ++a)
      for (std::size_t k = 0; k < data_.axes[a].holes.size(); ++k)
        hole_axis_[data_.axes[a].holes[k]] = {a, k};
  }

  // Renders the cell whose label of axis a is labels[a].
  void render(const std::vector<std::size_t>& labels) {
    cell_.coords.clear();
    cell_.name = spec_.name;
    coords_.clear();
    for (std::size_t a = 0; a < labels.size(); ++a) {
      const std::string& axis = spec_.axes[a].name;
      const std::string& label = spec_.axes[a].labels[labels[a]];
      cell_.coords.emplace_back(axis, label);
      cell_.name += "+" + label;
      coords_ += fmt::format("{}{}={}", a ? "," : "", axis, label);
    }
    std::string& t = cell_.text;
    t = fmt::format("{} {}\nMatrix={}\nCell={}\nGenerator={}\n", data_.arch, cell_.name, spec_.name,
                    coords_, kGenerator);
    header_ = t.size();
    starts_.clear();
    for (const TemplatePiece& p : data_.body) {
      starts_.push_back(t.size());
      t += p.hole < 0 ? p.text : value_of(labels, p.hole).first;
    }
    labels_ = labels;
  }

  const MatrixCell& cell() const { return cell_; }
  const std::string& coords() const { return coords_; }  // the Cell= line's value

  // Where in the spec the text at line:col of the cell comes from, and what
  // filled it when it came from a hole.
  std::pair<SourceLoc, std::string> origin(SourceLoc at) const {
    const std::size_t off = offset_in_text(at);
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), off);
    if (off < header_ || it == starts_.begin()) return {data_.ptx_line, ""};
    const auto k = static_cast<std::size_t>(it - starts_.begin()) - 1;
    const TemplatePiece& p = data_.body[k];
    if (p.hole < 0) return {data_.origin.at(p.offset + (off - starts_[k])), ""};
    const auto [value, where] = value_of(labels_, p.hole);
    const auto [axis, slot] = hole_axis_[p.hole];
    return {where, fmt::format(" (${{{}}} = \"{}\", from label '{}' of axis '{}')",
                               data_.holes[p.hole], printable(value),
                               spec_.axes[axis].labels[labels_[axis]], spec_.axes[axis].name)};
  }

 private:
  std::pair<const std::string&, SourceLoc> value_of(const std::vector<std::size_t>& labels,
                                                    int hole) const {
    const auto [axis, slot] = hole_axis_[hole];
    const LabelFill& f = data_.axes[axis].labels[labels[axis]];
    return {f.values[slot], f.at[slot]};
  }
  std::size_t offset_in_text(SourceLoc at) const {
    const std::string& t = cell_.text;
    std::size_t off = 0;
    for (int line = 1; line < at.line; ++line) {
      const std::size_t nl = t.find('\n', off);
      if (nl == std::string::npos) return t.size();
      off = nl + 1;
    }
    return std::min(t.size(), off + static_cast<std::size_t>(std::max(at.col, 1) - 1));
  }

  const MatrixSpec& spec_;
  const MatrixSpecData& data_;
  std::vector<std::pair<std::size_t, std::size_t>> hole_axis_;  // hole -> (axis, slot)
  MatrixCell cell_;
  std::string coords_;
  std::size_t header_ = 0;
  std::vector<std::size_t> starts_;  // where each template piece starts in the text
  std::vector<std::size_t> labels_;
};

// The next cell of the odometer (the last axis fastest); false after the last.
bool advance(const MatrixSpec& spec, std::vector<std::size_t>& labels) {
  for (std::size_t a = labels.size(); a-- > 0;) {
    if (++labels[a] < spec.axes[a].labels.size()) return true;
    labels[a] = 0;
  }
  return false;
}

// A cell the PTX reader rejects for anything but a rule of the ISA: the
// template (or a label's text) is wrong, an error in the spec.
[[noreturn]] void spec_error(const MatrixSpec& spec, const CellRenderer& r, const InputError& e) {
  const Diagnostic& d = e.diagnostic();
  const auto [at, filled] = r.origin(d.loc);
  throw InputError(
      Diagnostic{spec.file, at,
                 fmt::format("cell {} is not a litmus test: {}:{}:{}: {}{}", r.cell().name, d.file,
                             d.loc.line, d.loc.col, d.message, filled)});
}

// The generated test must carry the cell's own metadata (contract 1): a
// template line `Matrix=`, `Cell=` or `Generator=` would replace it.
void check_metadata(const MatrixSpec& spec, const CellRenderer& r, const LitmusTest& t) {
  const std::pair<const char*, const std::string&> ours[] = {
      {"Matrix", spec.name}, {"Cell", r.coords()}, {"Generator", kGenerator}};
  for (const auto& [key, value] : ours) {
    const auto it = t.metadata.find(key);
    if (it == t.metadata.end() || it->second != value)
      throw InputError(Diagnostic{spec.file, spec.data->ptx_line,
                                  fmt::format("the template sets metadata `{}=`, which gen "
                                              "matrix writes (the cell's origin)",
                                              key)});
  }
}

// Parses and expands the cell: the rule of the PTX ISA that forbids it (the
// reason it is skipped), or none when it is a test; InputError in the spec
// otherwise. Expansion applies the rules that relate accesses to where their
// memory lives (shared memory reached from another CTA or cluster; vector and
// cache-hinted reductions through generic addresses of shared memory).
std::optional<std::string> isa_skip(const MatrixSpec& spec, const CellRenderer& r) {
  try {
    // A cell of another dialect (a `CUDA` template) is read by its dialect,
    // above this stage, when it runs (docs/matrix-spec.md).
    if (spec.data->arch != "PTX") return std::nullopt;
    const LitmusTest t = parse_litmus(r.cell().text, r.cell().name + ".litmus");
    check_metadata(spec, r, t);
    (void)expand(t, ExpandOptions{});
    return std::nullopt;
  } catch (const InputError& e) {
    if (e.diagnostic().kind != DiagnosticKind::IsaRule) spec_error(spec, r, e);
    return e.diagnostic().rule;
  }
}

// Cell names are SPEC-NAME+LABEL+...: unique while no label holds '+'; with
// one that does, two cells can join to one name (`x+y`,`z` and `x`,`y+z`),
// and so to one file. Such specs keep the names made so far and refuse the
// second cell of a name, at its first label holding '+'.
class NameCheck {
 public:
  explicit NameCheck(const MatrixSpec& spec) : spec_(spec) {
    for (const MatrixAxis& a : spec.axes)
      for (const std::string& l : a.labels) on_ = on_ || l.find('+') != std::string::npos;
  }
  void add(const CellRenderer& r, const std::vector<std::size_t>& labels) {
    if (!on_) return;
    const auto [it, fresh] = names_.emplace(r.cell().name, r.coords());
    if (fresh) return;
    SourceLoc at{1, 1};
    for (std::size_t a = 0; a < labels.size(); ++a)
      if (spec_.axes[a].labels[labels[a]].find('+') != std::string::npos) {
        at = spec_.data->axes[a].label_at[labels[a]];
        break;
      }
    throw InputError(Diagnostic{
        spec_.file, at,
        fmt::format("cells {} and {} have one name, {} (labels joined by '+' where a label "
                    "holds '+'): give labels that tell the cells apart",
                    it->second, r.coords(), r.cell().name)});
  }

 private:
  const MatrixSpec& spec_;
  bool on_ = false;
  std::unordered_map<std::string, std::string> names_;  // name -> its cell's coordinates
};

}  // namespace

std::size_t matrix_cell_count(const MatrixSpec& spec) {
  std::size_t n = 1;
  for (const MatrixAxis& a : spec.axes) {
    if (n > std::numeric_limits<std::size_t>::max() / a.labels.size())
      throw InputError(Diagnostic{spec.file, {1, 1}, "the matrix has more cells than fit a count"});
    n *= a.labels.size();
  }
  return n;
}

MatrixCount for_each_cell(const MatrixSpec& spec,
                          const std::function<void(const MatrixCell&)>& emit) {
  return for_each_cell(spec, emit, {});
}

MatrixCount for_each_cell(const MatrixSpec& spec,
                          const std::function<void(const MatrixCell&)>& emit,
                          const std::function<void(std::size_t)>& visited) {
  if (!spec.data) throw std::invalid_argument("for_each_cell: a spec not made by read_matrix_spec");
  MatrixCount count;
  count.cells = matrix_cell_count(spec);
  std::size_t n = 0;
  CellRenderer r(spec);
  std::vector<std::size_t> labels(spec.axes.size(), 0);
  NameCheck names(spec);
  do {
    r.render(labels);
    names.add(r, labels);
    if (const std::optional<std::string> why = isa_skip(spec, r)) {
      ++count.skipped[*why];
    } else {
      emit(r.cell());
      ++count.written;
    }
    if (visited) visited(++n);
  } while (advance(spec, labels));
  return count;
}

}  // namespace redscope::generate
