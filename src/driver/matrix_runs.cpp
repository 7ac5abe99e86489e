// The runs behind `redscope report --matrix` (redscope/driver/matrix_runs.hpp).
#include "redscope/driver/matrix_runs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/report/dot.hpp"
#include "redscope/report/report.hpp"

namespace redscope {

namespace {

// One test to judge: a file, or a generated cell held in memory with its
// place already known.
struct CellJob {
  std::string file;  // the path, or the cell's name + ".litmus"
  std::string stem;  // its page's name (--html)
  std::string text;  // the source of a generated cell
  std::optional<CellCoords> coords;
  std::string matrix;
};

AtomicityResult atomicity_of(const CellJob& job, const EngineOptions& opts) {
  if (job.text.empty()) return check_atomicity_file(job.file, opts);
  AtomicityResult r;
  r.file = job.file;
  const auto failure = capture_failure(job.file, [&] {
    const LitmusTest t = parse_litmus(job.text, job.file);
    r.test = t.name;
    r.metadata = t.metadata;
    r = with_budget(opts, [&](const EngineOptions& o) { return check_atomicity(t, o); });
  });
  if (failure) {
    r.error = failure->message;
    r.error_kind = failure->kind;
  }
  return r;
}

// `r` (verdict, test, file) placed by the job's coordinates or the test's
// Cell= line; without either, the problem says why it has no place.
MatrixJudged place(const CellJob& job, const std::map<std::string, std::string>* metadata,
                   MatrixRecord r) {
  MatrixJudged j;
  const std::string who = r.test.empty() ? job.file : fmt::format("{} ({})", job.file, r.test);
  try {
    if (job.coords) {
      r.coords = *job.coords;
      r.matrix = job.matrix;
    } else if (metadata || r.verdict != CellVerdict::Error) {
      const static std::map<std::string, std::string> kNone;
      MatrixRecord m = record_from_metadata(metadata ? *metadata : kNone, who);
      r.coords = std::move(m.coords);
      r.matrix = std::move(m.matrix);
    } else {
      j.problem = fmt::format("{}: could not be checked, so it has no place in the matrix: {}",
                              job.file, r.error);
      return j;
    }
  } catch (const MatrixError& e) {
    j.problem = e.what();
    return j;
  }
  j.record = std::move(r);
  return j;
}

MatrixRecord error_record(MatrixRecord r, const std::optional<std::string>& error,
                          const std::string& kind) {
  if (!error) return r;
  r.verdict = CellVerdict::Error;
  r.error = *error;
  r.error_kind = kind.empty() ? "input" : kind;
  return r;
}

std::string atomicity_html(const AtomicityResult& a) {
  return "<h2>Atomicity (the matrix's verdict)</h2><pre>" + html_escape(render_atomicity_text(a)) +
         "</pre>";
}

MatrixJudged judge_atomicity(const CellJob& job, const MatrixRunOptions& o) {
  const AtomicityResult a = atomicity_of(job, o.engine);
  MatrixRecord r;
  r.test = a.test;
  r.file = job.file;
  const bool lost = std::any_of(a.pairs.begin(), a.pairs.end(),
                                [](const AtomicityPair& p) { return p.lost_update; });
  const bool unknown = std::any_of(a.pairs.begin(), a.pairs.end(),
                                   [](const AtomicityPair& p) { return !p.scope_known; });
  r.verdict = atomicity_verdict(lost, unknown);
  r = error_record(std::move(r), a.error, a.error_kind);
  bool defect = false;
  if (o.html && !a.error) {
    const TestPage p =
        write_test_page({job.file, job.stem, job.text, atomicity_html(a)}, o.engine, *o.html);
    r.page = p.page;
    defect = p.defects > 0;
  }
  MatrixJudged j = place(job, a.test.empty() ? nullptr : &a.metadata, std::move(r));
  j.defect = defect;
  return j;
}

MatrixJudged judge_condition(const CellJob& job, const MatrixRunOptions& o) {
  TestResult res;
  std::string page;
  bool defect = false;
  if (o.html) {
    TestPage p = write_test_page({job.file, job.stem, job.text, ""}, o.engine, *o.html);
    res = std::move(p.result);
    page = std::move(p.page);
    defect = p.defects > 0;
  } else {
    // Only the verdict is needed: a verdict-only run (docs/cli.md
    // "Verdict-only runs"), unless the condition is a forall, whose verdict
    // does not say whether any outcome satisfies its proposition (the cell's
    // question): then the full run.
    EngineOptions eo = o.engine;
    eo.verdict_only = true;
    const auto check = [&](const EngineOptions& e) {
      return job.text.empty() ? check_file(job.file, e) : check_text(job.text, job.file, e);
    };
    res = check(eo);
    if (!res.error && !seeks_satisfying(res.quantifier)) res = check(o.engine);
  }
  MatrixRecord r;
  r.test = res.test;
  r.file = res.file;
  r.page = page;
  r.verdict = res.observation == Observation::Never ? CellVerdict::Forbidden : CellVerdict::Allowed;
  r = error_record(std::move(r), res.error, res.error_kind);
  MatrixJudged j = place(job, res.source ? &res.source->metadata : nullptr, std::move(r));
  j.defect = defect;
  return j;
}

// Judges `jobs` on o.jobs threads; hooks see indices from `base`.
void run_jobs(const std::vector<CellJob>& jobs, std::size_t base, const MatrixRunOptions& o,
              const MatrixRunHooks& hooks) {
  run_ordered<MatrixJudged>(
      jobs.size(), o.jobs,
      [&](std::size_t i) {
        if (hooks.stop && hooks.stop()) return MatrixJudged{};
        if (hooks.started) hooks.started(base + i, jobs[i].stem);
        MatrixJudged j = o.verdict == VerdictKind::Atomicity ? judge_atomicity(jobs[i], o)
                                                             : judge_condition(jobs[i], o);
        if (hooks.finished)
          hooks.finished(base + i, !j.record || j.record->verdict == CellVerdict::Error);
        return j;
      },
      [&](std::size_t, MatrixJudged&& j) {
        if ((j.record || !j.problem.empty()) && hooks.judged) hooks.judged(std::move(j));
      });
}

}  // namespace

void run_matrix_files(const std::vector<std::string>& files, const MatrixRunOptions& o,
                      const MatrixRunHooks& hooks) {
  const std::vector<std::string> stems = unique_stems(files);
  std::vector<CellJob> jobs;
  for (std::size_t i = 0; i < files.size(); ++i)
    jobs.push_back(CellJob{files[i], stems[i], "", std::nullopt, ""});
  run_jobs(jobs, 0, o, hooks);
}

generate::MatrixCount run_matrix_spec(const generate::MatrixSpec& spec, const MatrixRunOptions& o,
                                      const MatrixRunHooks& hooks) {
  // Cells are checked in batches as they are generated: memory holds one
  // batch of texts, whatever the matrix's size.
  const std::size_t batch_size = std::max<std::size_t>(64, std::size_t{16} * o.jobs);
  std::vector<CellJob> batch;
  std::size_t base = 0;
  auto flush = [&] {
    run_jobs(batch, base, o, hooks);
    base += batch.size();
    batch.clear();
  };
  std::size_t emitted = 0, skipped = 0;
  const auto emit = [&](const generate::MatrixCell& c) {
    ++emitted;
    if (hooks.stop && hooks.stop()) return;
    batch.push_back(CellJob{c.name + ".litmus", c.name, c.text, c.coords, spec.name});
    if (batch.size() >= batch_size) flush();
  };
  const auto visited = [&](std::size_t n) {
    if (n - emitted == skipped) return;
    skipped = n - emitted;
    if (hooks.skipped) hooks.skipped(skipped);
  };
  const generate::MatrixCount n = generate::for_each_cell(spec, emit, visited);
  flush();
  return n;
}

VerdictKind verdict_kind_of(const generate::MatrixSpec& spec) {
  return spec.verdict == generate::MatrixVerdict::Atomicity ? VerdictKind::Atomicity
                                                            : VerdictKind::Condition;
}

MatrixTable matrix_table_of(const generate::MatrixSpec& spec, VerdictKind kind) {
  std::vector<MatrixAxisInfo> axes;
  for (const generate::MatrixAxis& a : spec.axes) axes.push_back(MatrixAxisInfo{a.name, a.labels});
  return MatrixTable(kind, spec.name, std::move(axes));
}

}  // namespace redscope
