// The matrix report's model (redscope/report/matrix.hpp): Cell= lines,
// the table's rules, the layout, the renderers and result files read back.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/report/matrix.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_matrix_report {

using namespace redscope;

namespace {

MatrixRecord rec(const std::string& test, CellCoords coords, CellVerdict v) {
  MatrixRecord r;
  r.test = test;
  r.file = test + ".litmus";
  r.coords = std::move(coords);
  r.verdict = v;
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("matrix: Cell= lines parse back, bad ones are named", "[matrix]") {
  const CellCoords c = parse_cell_coords("rel=cta,place=2cta,t=sm_90", "t.litmus");
  REQUIRE(c.size() == 3);
  CHECK(c[1] == std::pair<std::string, std::string>{"place", "2cta"});
  CHECK(parse_cell_coords("w=cluster.dsmem,ops=atom+red", "x").at(1).second == "atom+red");
  CHECK(error_of([] { parse_cell_coords("rel=cta,,x=y", "t.litmus"); }) ==
        "t.litmus: Cell=rel=cta,,x=y: '' is not AXIS=LABEL (axis [A-Za-z0-9_-]+, label "
        "[A-Za-z0-9_.+-]+)");
  CHECK(error_of([] { parse_cell_coords("a=b c", "t"); }).find("'a=b c' is not") !=
        std::string::npos);
  CHECK(error_of([] { parse_cell_coords("a=1,a=2", "t"); }) ==
        "t: Cell=a=1,a=2: axis 'a' appears twice");
  CHECK(error_of([] {
          record_from_metadata({{"Matrix", "m"}}, "t.litmus (T)");
        }).find("t.litmus (T): the test has no Cell= metadata line") == 0);
  CHECK(record_from_metadata({{"Matrix", "m"}, {"Cell", "a=1"}}, "t").matrix == "m");
}

TEST_CASE("matrix: one test per cell, one list of axes", "[matrix]") {
  MatrixTable t(VerdictKind::Condition);
  t.add(rec("m+x+1", {{"a", "x"}, {"b", "1"}}, CellVerdict::Allowed));
  t.add(rec("m+y+1", {{"a", "y"}, {"b", "1"}}, CellVerdict::Forbidden));
  CHECK(t.axes().at(0).labels == std::vector<std::string>{"x", "y"});
  CHECK(error_of([&] {
          t.add(rec("dup", {{"a", "x"}, {"b", "1"}}, CellVerdict::Allowed));
        }) == "two tests in one cell (a=x,b=1): m+x+1.litmus and dup.litmus");
  CHECK(error_of([&] {
          t.add(rec("o", {{"b", "1"}, {"a", "x"}}, CellVerdict::Allowed));
        }) ==
        "o.litmus: Cell= names the axes b,a, but m+x+1.litmus has a,b: one matrix has one list "
        "of axes");
  MatrixTable spec(VerdictKind::Atomicity, "s", {{"a", {"x"}}});
  CHECK(error_of([&] {
          spec.add(rec("s+z", {{"a", "z"}}, CellVerdict::Lost));
        }) == "s+z.litmus: axis a has no label 'z' in the spec");
  CHECK(t.counts().at(CellVerdict::Allowed) == 1);
}

TEST_CASE("matrix: layouts, and the renderers", "[matrix]") {
  MatrixTable t(VerdictKind::Atomicity, "m");
  t.add(rec("m+cta+1cta", {{"s", "cta"}, {"p", "1cta"}}, CellVerdict::Safe));
  t.add(rec("m+cta+2cta", {{"s", "cta"}, {"p", "2cta"}}, CellVerdict::Lost));
  t.add(rec("m+gpu+2cta", {{"s", "gpu"}, {"p", "2cta"}}, CellVerdict::Safe));
  CHECK(error_of([&] { matrix_layout(t, "s,q", "p"); }) ==
        "--matrix: unknown axis 'q' (the axes of m are s,p)");
  CHECK(error_of([&] { matrix_layout(t, "s", "s"); }) == "--matrix: axis 's' is named twice");
  const MatrixLayout l = matrix_layout(t, "s", "p");
  CHECK(render_matrix_text(t, l) ==
        "Matrix m (atomicity verdict): rows s, columns p\n\n"
        "p    1cta  2cta\n"
        "s\n"
        "cta  safe  lost\n"
        "gpu  -     safe\n\n"
        "  lost: some allowed execution loses an update\n"
        "  safe: no allowed execution loses one\n"
        "  unknown: the model names no morally strong relation\n"
        "  error: the test could not be checked\n"
        "  -: no test in this cell\n"
        "3 tests: 1 lost, 2 safe, 0 unknown, 0 error\n");
  CHECK(render_matrix_text(t, matrix_layout(t, "", "s"))
            .find("p=2cta:\ns  cta   gpu\n   lost  safe\n") != std::string::npos);
  CHECK(render_matrix_csv(t) ==
        "s,p,verdict,test\ncta,1cta,safe,m+cta+1cta\ncta,2cta,lost,m+cta+2cta\n"
        "gpu,2cta,safe,m+gpu+2cta\n");
  const std::string json = render_matrix_json(t, l);
  CHECK(json.find("\"counts\": {\n    \"lost\": 1,\n    \"safe\": 2,") != std::string::npos);
  CHECK(render_matrix_svg(t, l) == render_matrix_svg(t, l));
  CHECK(render_matrix_html(t, l, "x").find("<td class=\"v lost\" title=\"m+cta+2cta\">lost") !=
        std::string::npos);
}

TEST_CASE("matrix: result files read back into records", "[matrix]") {
  std::vector<MatrixRecord> got;
  auto keep = [&](MatrixRecord&& r) { got.push_back(std::move(r)); };
  const std::string run =
      R"({"test": "a", "file": "a.litmus", "metadata": {"Cell": "s=cta"}, "observation": "Never", "error": null})"
      "\n"
      R"({"test": "b", "file": "b.litmus", "metadata": {"Cell": "s=gpu"}, "observation": null, "error": "b.litmus: timeout", "error_kind": "timeout"})"
      "\n";
  CHECK(read_matrix_results(run, "r.jsonl", keep) == VerdictKind::Condition);
  REQUIRE(got.size() == 2);
  CHECK(got[0].verdict == CellVerdict::Forbidden);
  CHECK(got[1].verdict == CellVerdict::Error);
  CHECK(got[1].error_kind == "timeout");
  got.clear();
  const std::string atom = R"([{"test": "c", "metadata": {"Cell": "s=sys"}, "error": null,
    "pairs": [{"lost_update": false, "mutually_in_scope": null}]}])";
  CHECK(read_matrix_results(atom, "a.json", keep) == VerdictKind::Atomicity);
  CHECK(got.at(0).verdict == CellVerdict::Unknown);
  CHECK(error_of([&] {
          read_matrix_results(R"([{"test": "x"}])", "o.json", keep);
        }).find("o.json:1:2: error: not a result of `redscope run") == 0);
  CHECK(error_of([&] {
          read_matrix_results(R"({"test": "x", "observation": "Never"})", "n.jsonl", keep);
        }).find("n.jsonl:1:1: x: the test has no Cell= metadata line") == 0);
  CHECK(atomicity_verdict(true, true) == CellVerdict::Lost);
  CHECK(atomicity_verdict(false, false) == CellVerdict::Safe);
}

}  // namespace unit_matrix_report
