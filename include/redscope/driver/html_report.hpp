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

std::string html_escape(std::string_view s);

}  // namespace redscope
