// `redscope report --html DIR`: a static HTML report of a suite — an index
// page with a summary table and a page per test with its source, outcome
// table, witness pictures and explanation. Relative links only, CSS inline;
// open DIR/index.html from disk or serve the folder.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

struct ReportOptions {
  std::string dir;
  unsigned jobs = 1;
  bool xval = true;      // also run the operational machine (column "machine")
  bool pictures = true;  // witness pictures (SVG when Graphviz is present)
};

struct ReportSummary {
  std::size_t tests = 0, errors = 0, mismatches = 0, defects = 0;
};

// Checks `files` (z3 engine, plus the operational machine), reads the
// expected verdict of each test from an `expected.csv` in its folder when
// there is one, and writes the report. `started(i)` and `finished(i, error)`
// are called from the worker checking files[i] (for a progress line).
ReportSummary write_html_report(const std::vector<std::string>& files, const EngineOptions& opts,
                                const ReportOptions& ro,
                                const std::function<void(std::size_t)>& started = {},
                                const std::function<void(std::size_t, bool)>& finished = {});

// One test's page as the report writes it, DIR/tests/STEM.html (source,
// outcomes, witness pictures under DIR/pictures, explanation), for reports
// that write their own index (`report --matrix --html`). The test is read
// from `file`, or, when `text` is given, parsed from it (`file` names it).
struct TestPageRequest {
  std::string file, stem;
  std::string text;
  std::string extra_html;  // a section appended to the page
};
struct TestPage {
  TestResult result;  // the model's check (its error when it failed)
  std::string page;   // "tests/STEM.html", relative to DIR; empty when none was written
  bool machine_error = false;
  std::size_t defects = 0;  // outcomes the machine reached but the model forbids
};
TestPage write_test_page(const TestPageRequest& req, const EngineOptions& opts,
                         const ReportOptions& ro);

}  // namespace redscope
