#include "redscope/driver/html_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/mapping_check.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/core/output.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/dot.hpp"
#include "redscope/report/report.hpp"

namespace redscope {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;font-size:14px}
th{background:#f0f0f0}tr.mismatch td{background:#fde2e2}tr.error td{background:#fff3cd}
.ok{color:#1a7f37;font-weight:bold}.bad{color:#c62828;font-weight:bold}.muted{color:#777}
pre{white-space:pre-wrap;background:#f7f7f7;border:1px solid #ddd;padding:1em;overflow-x:auto}img{max-width:100%;border:1px solid #eee;margin:.5em 0}
</style>
)";

// One test's results, computed on a worker.
struct Entry {
  std::string file, stem;
  std::string text;        // the source, when held in memory (a matrix cell); else read from file
  std::string extra_html;  // a section after the explanation (a matrix cell's atomicity)
  TestResult z3;
  std::set<std::vector<std::uint64_t>> reached;  // by the operational machine
  bool machine_ran = false;
  std::string machine_error;    // the machine failed: counted as an error
  std::string machine_skipped;  // the machine does not model the test: not checked
  std::optional<bool> expected;
  std::string explanation_html;
  std::vector<std::string> pictures;  // per outcome (relative path) or ""
};

std::map<std::string, bool> expectations_near(const std::vector<std::string>& files) {
  std::map<std::string, bool> out;
  std::set<fs::path> seen;
  for (const std::string& f : files) {
    const fs::path csv = fs::path(f).parent_path() / "expected.csv";
    if (!seen.insert(csv).second || !fs::exists(csv)) continue;
    try {
      for (const Expectation& e : read_expectations(csv.string())) out[e.resolved] = e.holds;
    } catch (const InputError&) {}
  }
  return out;
}

std::string verdict(const TestResult& r) {
  if (r.error) return "error";
  return r.holds ? "Ok" : "No";
}

// A compiled test's page says what cuda-check says of its compiler's
// mapping (docs/cuda.md "Checking the compiler"): its source's reading
// against the compiled test the page is about. Empty for other tests.
std::string mapping_html(const Entry& e, const LitmusTest& compiled, const EngineOptions& opts) {
  const std::string text =
      e.text.empty() ? read_litmus_source(e.file, opts.max_file_bytes) : e.text;
  const Dialect* d = dialect_for(e.file, text.substr(0, 4096));
  if (!d || !d->compiled) return "";
  std::string body;
  try {
    const LitmusTest source = d->compiled->source(text, e.file).front();
    const MappingCheck m = with_budget(opts, [&](const EngineOptions& b) {
      return mapping_check(source, compiled, b, run_engine);
    });
    body = "<pre>" + html_escape(render_text(m)) + "</pre>";
  } catch (const std::exception& x) {
    body = "<p class=muted>not checked: " + html_escape(x.what()) + "</p>";
  }
  return "<h2>The compiler's mapping (cuda-check)</h2>" + body;
}

void check_one(Entry& e, const EngineOptions& opts, const ReportOptions& ro) {
  e.z3 = e.text.empty() ? check_file(e.file, opts) : check_text(e.text, e.file, opts);
  if (e.z3.error || !e.z3.source) return;
  const LitmusTest& t = *e.z3.source;
  e.extra_html += mapping_html(e, t, opts);
  if (ro.xval) {
    try {
      // The pair's reaching side (the machine; a PTO program's explorer) and
      // the explanation get their own budgets (--timeout).
      const TestResult m =
          with_budget(opts, [&](const EngineOptions& b) { return run_reaching_side(t, b); });
      for (const Outcome& x : m.outcomes) e.reached.insert(x.values);
      e.machine_ran = true;
    } catch (const InputError& x) {
      e.machine_skipped = x.diagnostic().message;  // a test the machine does not model
    } catch (const std::exception& x) {
      e.machine_error = x.what();  // a timeout, a memory cap: an error of the report
    }
  }
  try {
    const Explanation ex =
        with_budget(opts, [&](const EngineOptions& b) { return explain(t, b, ExplainRequest{}); });
    e.explanation_html = "<pre>" + html_escape(render_text(ex)) + "</pre>";
    if (ro.pictures) {
      const std::string dir = (fs::path(ro.dir) / "pictures").string();
      for (const Breach& b : ex.breaches) {
        const auto files =
            write_picture(dir, fmt::format("{}-{}", e.stem, file_stem(b.axiom)),
                          witness_dot(ex.expansion->skeletons[b.execution.skeleton], b.execution,
                                      fmt::format("{} breaks {}", ex.outcome, b.axiom), b.edges));
        e.explanation_html += fmt::format("<img alt=\"{}\" src=\"../pictures/{}\">", b.axiom,
                                          fs::path(files.back()).filename().string());
      }
    }
  } catch (const std::exception& x) {
    e.explanation_html = "<p class=muted>no explanation: " + html_escape(x.what()) + "</p>";
  }
  if (!ro.pictures || !e.z3.expansion) return;  // (a PTO program has no event graph)
  const Expansion& ex = *e.z3.expansion;
  for (std::size_t k = 0; k < e.z3.outcomes.size(); ++k) {
    const Witness& w = e.z3.outcomes[k].witness;
    if (w.skeleton >= ex.skeletons.size()) {
      e.pictures.push_back("");
      continue;
    }
    const auto files = write_picture(
        (fs::path(ro.dir) / "pictures").string(), fmt::format("{}-{}", e.stem, k + 1),
        witness_dot(ex.skeletons[w.skeleton], w, fmt::format("{} outcome {}", e.z3.test, k + 1)));
    e.pictures.push_back("../pictures/" + fs::path(files.back()).filename().string());
  }
}

std::string machine_cell(const Entry& e) {
  if (!e.machine_ran && !e.machine_error.empty())
    return "<span class=bad>error: " + html_escape(e.machine_error) + "</span>";
  if (!e.machine_ran)
    return e.machine_skipped.empty() ? "<span class=muted>-</span>"
                                     : "<span class=muted title=\"" +
                                           html_escape(e.machine_skipped) + "\">not checked</span>";
  std::size_t reached_allowed = 0, forbidden = 0;
  std::set<std::vector<std::uint64_t>> allowed;
  for (const Outcome& o : e.z3.outcomes) allowed.insert(o.values);
  for (const auto& v : e.reached) (allowed.count(v) ? reached_allowed : forbidden) += 1;
  if (forbidden) return fmt::format("<span class=bad>{} reached but forbidden</span>", forbidden);
  return fmt::format("<span class=ok>agree</span> ({}/{} reached)", reached_allowed,
                     allowed.size());
}

// A CUDA test: each thread's C++ beside the PTX nvcc made of it.
std::string compiled_html(const TestResult& r) {
  if (!r.source) return {};
  std::string h;
  for (const ThreadCode& tc : r.source->threads) {
    if (tc.compiled.empty()) continue;
    h += fmt::format("<tr><td><b>{}</b></td><td><pre>{}</pre></td><td><pre>{}</pre></td></tr>",
                     tc.name, html_escape(tc.source_text), html_escape(tc.compiled));
  }
  if (h.empty()) return {};
  return "<h2>Compiled by nvcc</h2><table id=compiled><tr><th>thread</th><th>CUDA C++</th>"
         "<th>PTX (nvcc)</th></tr>" +
         h + "</table>";
}

std::string test_page(const Entry& e) {
  const TestResult& r = e.z3;
  std::string h = fmt::format(
      "<!doctype html><html><head><meta charset=utf-8><title>{0}</title>{1}</head><body>"
      "<p><a href=\"../index.html\">&larr; all tests</a></p><h1>{0}</h1>",
      html_escape(r.test), kStyle);
  h += fmt::format(
      "<p>File <code>{}</code>, model <b>{}</b>, condition <code>{}</code>: <b>{}</b> ({}).</p>",
      html_escape(e.file), model_name(r.model, r.model_file), html_escape(r.condition_text),
      r.holds ? "holds" : "does not hold", to_string(r.observation));
  std::string source = e.text;
  if (source.empty()) {
    std::ifstream in(address_file(e.file));
    std::stringstream src;
    src << in.rdbuf();
    source = src.str();
  }
  h += "<h2>Source</h2><pre>" + html_escape(source) + "</pre>" + compiled_html(r) +
       "<h2>Outcomes</h2><table id=outcomes><tr><th>#</th>";
  for (const Observable& o : r.observables) h += "<th>" + html_escape(o.label) + "</th>";
  h += "<th>condition</th><th>model</th><th>machine</th><th>witness</th></tr>";
  for (std::size_t k = 0; k < r.outcomes.size(); ++k) {
    h += fmt::format("<tr><td>{}</td>", k + 1);
    for (std::size_t i = 0; i < r.observables.size(); ++i)
      h += "<td>" + html_escape(r.render_value(k, i)) + "</td>";
    const bool reached = e.reached.count(r.outcomes[k].values) > 0;
    h += fmt::format("<td>{}</td><td>allowed</td><td>{}</td><td>{}</td></tr>",
                     r.outcomes[k].satisfies ? "satisfies" : "",
                     !e.machine_ran ? "-"
                     : reached      ? "reached"
                                    : "<span class=muted>never reached</span>",
                     k < e.pictures.size() && !e.pictures[k].empty()
                         ? fmt::format("<a href=\"{}\">picture</a>", e.pictures[k])
                         : "");
  }
  h += "</table><p class=muted>Every outcome the model allows is listed; any other combination of "
       "values is forbidden.</p>";
  h += "<h2>Why (the condition)</h2>" + e.explanation_html + e.extra_html + "</body></html>\n";
  return h;
}

// What the index keeps of a test once its page is written: its table row
// and its share of the summary (a report keeps no test's results).
struct IndexRow {
  std::string html;
  bool error = false, mismatch = false;
  std::size_t defects = 0;
};

IndexRow index_row(const Entry& e) {
  const TestResult& r = e.z3;
  IndexRow row;
  // A machine that failed (a timeout, a memory cap) is an error of the
  // report too: its cross-check did not happen.
  row.error = r.error || !e.machine_error.empty();
  row.mismatch = e.expected && !r.error && *e.expected != r.holds;
  for (const auto& v : e.reached)
    if (std::none_of(r.outcomes.begin(), r.outcomes.end(),
                     [&](const Outcome& o) { return o.values == v; }))
      ++row.defects;
  const std::string name = html_escape(r.test.empty() ? e.file : r.test);
  row.html = fmt::format(
      "<tr "
      "class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
      "td><td>{:.2f}</td></tr>",
      r.error        ? "error"
      : row.mismatch ? "mismatch"
                     : "",
      r.error ? name : fmt::format("<a href=\"tests/{}.html\">{}</a>", e.stem, name),
      model_name(r.model, r.model_file), r.error ? "<span class=bad>error</span>" : verdict(r),
      e.expected ? (*e.expected ? "Ok" : "No") : "<span class=muted>-</span>",
      r.error ? "" : std::to_string(r.outcomes.size()),
      r.error ? html_escape(*r.error) : machine_cell(e), r.seconds);
  return row;
}

std::string index_page(const std::vector<IndexRow>& rows, const ReportSummary& s) {
  std::string h = fmt::format(
      "<!doctype html><html><head><meta charset=utf-8><title>redscope report</title>{}</head><body>"
      "<h1>redscope report</h1><p id=summary>{} tests, {} errors, {} verdicts differ from the "
      "expected, "
      "{} outcomes reached by the machine but forbidden.</p>",
      kStyle, s.tests, s.errors, s.mismatches, s.defects);
  h += "<table "
       "id=tests><tr><th>test</th><th>model</th><th>verdict</th><th>expected</th><th>outcomes</"
       "th><th>machine (xval)</th><th>time (s)</th></tr>";
  for (const IndexRow& row : rows) h += row.html;
  return h + "</table></body></html>\n";
}

std::size_t defects_of(const Entry& e) {
  std::size_t n = 0;
  for (const auto& v : e.reached)
    if (std::none_of(e.z3.outcomes.begin(), e.z3.outcomes.end(),
                     [&](const Outcome& o) { return o.values == v; }))
      ++n;
  return n;
}

void write_page(const Entry& e, const ReportOptions& ro) {
  if (e.z3.error) return;
  // Whole or not at all, and a link at the page's name is replaced, never
  // written through (write_file_replacing).
  write_file_replacing((fs::path(ro.dir) / "tests" / (e.stem + ".html")).string(), test_page(e));
}

}  // namespace

TestPage write_test_page(const TestPageRequest& req, const EngineOptions& opts,
                         const ReportOptions& ro) {
  fs::create_directories(fs::path(ro.dir) / "tests");
  Entry e;
  e.file = req.file;
  e.stem = req.stem;
  e.text = req.text;
  e.extra_html = req.extra_html;
  try {
    check_one(e, opts, ro);
    write_page(e, ro);
  } catch (const std::exception& x) {  // a picture or page that cannot be written
    e.z3.error = x.what();
  }
  TestPage p;
  p.machine_error = !e.machine_error.empty();
  p.defects = defects_of(e);
  p.page = e.z3.error ? "" : "tests/" + e.stem + ".html";
  p.result = std::move(e.z3);
  return p;
}

ReportSummary write_html_report(const std::vector<std::string>& files, const EngineOptions& opts,
                                const ReportOptions& ro,
                                const std::function<void(std::size_t)>& started,
                                const std::function<void(std::size_t, bool)>& finished) {
  fs::create_directories(fs::path(ro.dir) / "tests");
  const auto expected = expectations_near(files);
  const std::vector<std::string> stems = unique_stems(files);  // one page per test
  // Each test's page is written by the worker that checked it, which keeps
  // only the index row: memory does not grow with the tests' results.
  std::vector<IndexRow> rows(files.size());
  parallel_for(files.size(), ro.jobs, [&](std::size_t i) {
    if (started) started(i);
    Entry e;
    e.file = files[i];
    e.stem = stems[i];
    auto it = expected.find(path_key(files[i]));
    if (it != expected.end()) e.expected = it->second;
    try {
      check_one(e, opts, ro);
    } catch (const std::exception& x) {  // a picture or page that cannot be written
      e.z3.error = x.what();
    }
    // A .test claim is its own expectation: it must hold.
    if (!e.expected && !e.z3.error && is_claim(e.z3.quantifier)) e.expected = true;
    try {
      write_page(e, ro);
    } catch (const std::exception& x) {  // the page cannot be written: the test's error
      e.z3.error = x.what();
    }
    rows[i] = index_row(e);
    if (finished) finished(i, e.z3.error.has_value());
  });
  ReportSummary s;
  s.tests = rows.size();
  for (const IndexRow& row : rows) {
    s.errors += row.error ? 1 : 0;
    s.mismatches += row.mismatch;
    s.defects += row.defects;
  }
  write_file_replacing((fs::path(ro.dir) / "index.html").string(), index_page(rows, s));
  return s;
}

}  // namespace redscope
