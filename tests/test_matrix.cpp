// Parameter matrices (src/generate/matrix*.cpp, docs/matrix-spec.md): spec
// errors located at SPEC:LINE:COL, holes bound by exactly one axis, cells in
// odometer order with the metadata of contract 1, ISA-forbidden cells skipped
// and counted by rule, other cell errors located in the spec, and streaming.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "redscope/frontend/frontend.hpp"
#include "redscope/generate/matrix.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_matrix {

using namespace redscope;
using namespace redscope::generate;

namespace {

// A spec file in the temporary folder, removed at the end of the test.
class SpecFile {
 public:
  SpecFile(const std::string& stem, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("redscope-test-matrix-" + stem + "-" + std::to_string(::getpid()) + ".toml")) {
    std::ofstream(path_) << text;
  }
  ~SpecFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// A two-thread message-passing template with holes for the scopes, the
// placement and the target.
const std::string kTemplate = R"(name = "mp"
template = '''
PTX MP
Target=${target}
{
global u32 x = 0;
global u32 y = 0;
}
 P0@${p0}                          | P1@${p1}                             ;
 st.weak.global.u32 [x], 1         | ld.acquire.${acq}.global.u32 r0, [y] ;
 st.release.gpu.global.u32 [y], 1  | ld.weak.global.u32 r1, [x]           ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
'''
)";

const std::string kAxes = R"(
[[axis]]
name = "acq"
labels = ["cta", "cluster", "gpu"]

[[axis]]
name = "place"
labels = [
  { label = "1cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 0" } },
  { label = "2cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 1,gpu 0" } },
]

[[axis]]
name = "target"
labels = ["sm_70", "sm_90"]
)";

// The InputError reading `text` as a spec throws, rendered.
std::string spec_error(const std::string& text) {
  const SpecFile f("err", text);
  try {
    const MatrixSpec spec = read_matrix_spec(f.path(), kDefaultMaxInputBytes);
    for_each_cell(spec, [](const MatrixCell&) {});
  } catch (const InputError& e) {
    const std::string r = e.diagnostic().render();
    return r.substr(r.find(".toml:") + 6);  // LINE:COL: error: ...
  }
  return "no error";
}

}  // namespace

TEST_CASE("matrix: cells in odometer order, named and tagged by their labels", "[matrix]") {
  const SpecFile f("order", kTemplate + "rows = [\"acq\"]\ncols = [\"place\"]\n" + kAxes);
  const MatrixSpec spec = read_matrix_spec(f.path(), kDefaultMaxInputBytes);
  CHECK(spec.name == "mp");
  CHECK(spec.verdict == MatrixVerdict::Condition);
  REQUIRE(spec.axes.size() == 3);
  CHECK(spec.axes[0].name == "acq");
  CHECK(spec.axes[1].labels == std::vector<std::string>{"1cta", "2cta"});
  CHECK(spec.rows == std::vector<std::string>{"acq"});
  CHECK(spec.cols == std::vector<std::string>{"place"});
  std::vector<std::string> names;
  const MatrixCount count = for_each_cell(spec, [&](const MatrixCell& c) {
    names.push_back(c.name);
    const LitmusTest t = parse_litmus(c.text, c.name + ".litmus");
    CHECK(t.name == c.name);
    CHECK(t.metadata.at("Matrix") == "mp");
    CHECK(t.metadata.at("Generator") == "redscope gen matrix");
    std::string cell;
    for (const auto& [axis, label] : c.coords)
      cell += (cell.empty() ? "" : ",") + axis + "=" + label;
    CHECK(t.metadata.at("Cell") == cell);
    CHECK(t.metadata.at("Target") == c.coords[2].second);
    // The placement label fills both of its holes.
    CHECK(t.threads[1].place.cta == (c.coords[1].second == "2cta" ? 1 : 0));
  });
  CHECK(count.cells == 12);
  // .cluster scope needs sm_90 (PTX ISA §9.7.9.8 ld): acq=cluster at sm_70, two placements.
  CHECK(count.written == 10);
  REQUIRE(count.skipped.size() == 1);
  CHECK_THAT(count.skipped.begin()->first,
             Catch::StartsWith("ld/st's .cluster scope needs sm_90 or later (PTX ISA §9.7.9.8"));
  CHECK(count.skipped.begin()->second == 2);
  const std::vector<std::string> expected = {
      "mp+cta+1cta+sm_70",     "mp+cta+1cta+sm_90",     "mp+cta+2cta+sm_70", "mp+cta+2cta+sm_90",
      "mp+cluster+1cta+sm_90", "mp+cluster+2cta+sm_90", "mp+gpu+1cta+sm_70", "mp+gpu+1cta+sm_90",
      "mp+gpu+2cta+sm_70",     "mp+gpu+2cta+sm_90"};
  CHECK(names == expected);
}

TEST_CASE("matrix: spec errors are located at SPEC:LINE:COL", "[matrix]") {
  CHECK_THAT(spec_error("name = \"a\"\ntemplate = '''\nPTX a\n"),
             Catch::StartsWith("3:") && Catch::Contains("not TOML"));
  // toml++'s descriptions end with a newline at times: one line here.
  CHECK(spec_error("a = \n") ==
        "1:5: error: not TOML: Error while parsing key-value pair: "
        "expected value, saw '\\n'");
  CHECK_THAT(spec_error("nme = \"a\"\n"),
             Catch::StartsWith("1:1: error: unknown key `nme` in the spec"));
  CHECK_THAT(spec_error("name = \"a\"\n"),
             Catch::StartsWith("1:1: error: the spec has no `template`"));
  // Holes: unbound (at the hole, inside the template), bound twice, not in the template.
  CHECK(spec_error(kTemplate + R"(
[[axis]]
name = "acq"
labels = ["cta"]
)") == "4:8: error: no axis fills ${target} (an axis fills the hole named like it, or the holes "
       "its labels' `fill` tables name)");
  CHECK_THAT(spec_error(kTemplate + kAxes + "[[axis]]\nname = \"p0\"\nlabels = [\"x\"]\n"),
             Catch::StartsWith("31:11: error: ${p0} is filled by axis 'place' and by axis 'p0'"));
  CHECK_THAT(spec_error(kTemplate + kAxes + "[[axis]]\nname = \"extra\"\nlabels = [\"x\"]\n"),
             Catch::StartsWith("31:11: error: axis 'extra' fills ${extra}, which the template "
                               "does not have"));
  // Labels: their characters, the holes they fill, twice in an axis.
  CHECK_THAT(spec_error(kTemplate + "[[axis]]\nname = \"acq\"\nlabels = [\"c t a\"]\n"),
             Catch::StartsWith("16:11: error: label 'c t a' of axis 'acq' is not letters"));
  CHECK_THAT(spec_error(kTemplate + "[[axis]]\nname = \"acq\"\nlabels = [\"cta\", \"cta\"]\n"),
             Catch::StartsWith("16:18: error: axis 'acq' has label 'cta' twice"));
  CHECK_THAT(spec_error(kTemplate + R"([[axis]]
name = "place"
labels = [
  { label = "a", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 0" } },
  { label = "b", fill = { p0 = "cta 0,gpu 0" } },
]
)"),
             Catch::StartsWith("18:3: error: label 'b' of axis 'place' fills ${p0} but label 'a' "
                               "fills ${p0}, ${p1}"));
  CHECK_THAT(spec_error(kTemplate + "rows = [\"nope\"]\n" + kAxes),
             Catch::StartsWith("14:9: error: `rows` names 'nope', which is not an axis"));
  CHECK_THAT(spec_error(kTemplate + "verdict = \"maybe\"\n" + kAxes),
             Catch::StartsWith("14:11: error: `verdict` is \"condition\" or \"atomicity\""));
  CHECK_THAT(spec_error("template = '''\n{ x = 0; }\n'''\n" + kAxes),
             Catch::StartsWith("2:1: error: the template starts with the line `PTX NAME`"));
}

TEST_CASE("matrix: a cell that is not a test is an error in the spec, never a skip", "[matrix]") {
  // A label's text breaks the instruction: the error points at the label.
  std::string axes = kAxes;
  axes.replace(axes.find("\"gpu\"]"), 6, "\"gpux\"]");
  CHECK_THAT(spec_error(kTemplate + axes),
             Catch::StartsWith("17:29: error: cell mp+gpux+1cta+sm_70 is not a litmus test: "
                               "mp+gpux+1cta+sm_70.litmus:") &&
                 Catch::Contains("unknown qualifier '.gpux'") &&
                 Catch::EndsWith("(${acq} = \"gpux\", from label 'gpux' of axis 'acq')"));
  // The template's own text: the error points into the template.
  std::string broken = kTemplate;
  broken.replace(broken.find("[x], 1   "), 9, "[x] 1    ");
  CHECK_THAT(spec_error(broken + kAxes),
             Catch::StartsWith("10:25: error: cell mp+cta+1cta+sm_70 is not a litmus test"));
  // The template may not set the cell's own metadata.
  std::string meta = kTemplate;
  meta.replace(meta.find("Target="), 7, "Cell=x\nTarget=");
  CHECK_THAT(spec_error(meta + kAxes),
             Catch::Contains("the template sets metadata `Cell=`, which gen matrix writes"));
}

TEST_CASE("matrix: cells stream (one cell object reused), counted exactly", "[matrix]") {
  // 4 x 4 x 4 x 4 x 2 x 2 = 1024 cells.
  const std::string text = R"(name = "big"
template = '''
PTX big
Target=${target}
{
global u32 x = 0;
}
 P0@${p0}                           | P1@${p1}                             ;
 st.relaxed.${s0}.global.u32 [x], 1 | ld.acquire.${acq}.global.u32 r0, [x] ;
 st.relaxed.${s1}.global.u32 [x], 2 | ld.relaxed.${s2}.global.u32 r1, [x]  ;
exists (P1:r0 == 2 /\ P1:r1 == 1)
'''
[[axis]]
name = "acq"
labels = ["cta", "cluster", "gpu", "sys"]
[[axis]]
name = "s0"
labels = ["cta", "gpu", "sys", { label = "gpu.1", fill = { s0 = "gpu" } }]
[[axis]]
name = "s1"
labels = ["cta", "gpu", "sys", { label = "gpu.1", fill = { s1 = "gpu" } }]
[[axis]]
name = "s2"
labels = ["cta", "gpu", "sys", { label = "gpu.1", fill = { s2 = "gpu" } }]
[[axis]]
name = "place"
labels = [
  { label = "1cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 0" } },
  { label = "2cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 1,gpu 0" } },
]
[[axis]]
name = "target"
labels = ["sm_70", "sm_90"]
)";
  const SpecFile f("big", text);
  const MatrixSpec spec = read_matrix_spec(f.path(), kDefaultMaxInputBytes);
  const MatrixCell* first = nullptr;
  std::set<std::string> names;
  bool same_object = true;
  std::size_t visits = 0;
  const MatrixCount count = for_each_cell(
      spec,
      [&](const MatrixCell& c) {
        if (!first) first = &c;
        same_object = same_object && first == &c;
        names.insert(c.name);
      },
      [&](std::size_t n) { visits = n; });
  CHECK(same_object);
  CHECK(count.cells == 1024);
  CHECK(matrix_cell_count(spec) == 1024);
  CHECK(visits == 1024);
  // Skipped: acq=cluster at sm_70 (ld's .cluster scope needs sm_90, PTX ISA
  // §9.7.9.8), whatever s0, s1, s2 and place are: 4 * 4 * 4 * 2 = 128.
  REQUIRE(count.skipped.size() == 1);
  CHECK(count.skipped.begin()->second == 128);
  CHECK(count.written == 1024 - 128);
  CHECK(names.size() == count.written);
}

// Rules that relate an access to where its memory lives are checked when the
// cell is expanded, and skip as the reader's do: a CTA's shared memory is
// reached from another CTA only through .shared::cluster addressing, never
// from another cluster or GPU (PTX ISA, State Spaces: Shared).
TEST_CASE("matrix: shared memory reached from another CTA is an ISA skip", "[matrix]") {
  const SpecFile f("shared", R"(name = "rmw"
template = '''
PTX RMW
Target=sm_90
{
${space} u32 x = 0;
}
 P0@${p0}                            | P1@${p1}                            ;
 atom.relaxed.gpu.add.u32 r0, [x], 1 | atom.relaxed.gpu.add.u32 r0, [x], 1 ;
exists (x == 1)
'''
[[axis]]
name = "space"
labels = ["global", "shared"]
[[axis]]
name = "place"
labels = [
  { label = "1cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 0" } },
  { label = "2cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 1,gpu 0" } },
  { label = "2gpu", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 1" } },
]
)");
  const MatrixSpec spec = read_matrix_spec(f.path(), kDefaultMaxInputBytes);
  std::vector<std::string> names;
  const MatrixCount count =
      for_each_cell(spec, [&](const MatrixCell& c) { names.push_back(c.name); });
  CHECK(names == std::vector<std::string>{"rmw+global+1cta", "rmw+global+2cta", "rmw+global+2gpu",
                                          "rmw+shared+1cta"});
  REQUIRE(count.skipped.size() == 1);
  CHECK_THAT(count.skipped.begin()->first,
             Catch::StartsWith("another CTA reaches a CTA's shared memory only through "
                               ".shared::cluster addressing"));
  CHECK(count.skipped.begin()->second == 2);
}

}  // namespace unit_matrix
