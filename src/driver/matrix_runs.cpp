// The runs behind `redscope report --matrix` (redscope/driver/matrix_runs.hpp).
#include "redscope/driver/matrix_runs.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/mapping_check.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"
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
  // The folder its cell was prepared in (prepare_cells), whose path an
  // error found then names; the cell's name stands for it.
  std::string scratch;
};

AtomicityResult atomicity_of(const CellJob& job, const EngineOptions& opts) {
  if (job.text.empty()) return check_atomicity_file(job.file, opts);
  AtomicityResult r;
  r.file = job.file;
  const auto failure = capture_failure(job.file, [&] {
    // Read as a file of this name would be: by its first word (a CUDA cell
    // compiled by nvcc, prepared for the whole spec by run_matrix_spec).
    const LitmusTest t = parse_litmus_text(job.text, job.file).at(0);
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
                          const std::string& kind, const CellJob& job) {
  if (!error) return r;
  r.verdict = CellVerdict::Error;
  r.error = *error;
  r.error_kind = kind.empty() ? "input" : kind;
  if (!job.scratch.empty())
    for (std::size_t at; (at = r.error.find(job.scratch)) != std::string::npos;)
      r.error.erase(at, job.scratch.size());
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
  r = error_record(std::move(r), a.error, a.error_kind, job);
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

// The compiler's mapping (`redscope cuda-check`, docs/cuda.md "Checking the
// compiler"): the test as its source says against the test as compiled,
// read through the dialect's CompiledReadings as cuda-check reads them.
MatrixJudged judge_mapping(const CellJob& job, const MatrixRunOptions& o) {
  MatrixRecord r;
  r.file = job.file;
  r.test = std::filesystem::path(address_file(job.file)).stem().string();  // until it is read
  std::optional<std::map<std::string, std::string>> metadata;
  std::string verdict;
  const auto failure = capture_failure(job.file, [&] {
    const std::string file = address_file(job.file);
    const std::string text =
        job.text.empty() ? read_litmus_source(file, o.engine.max_file_bytes) : job.text;
    const Dialect* d = dialect_for(file, std::string_view(text).substr(0, kDialectHeadBytes));
    if (!d || !d->compiled)
      throw InputError(Diagnostic{file,
                                  {1, 1},
                                  "not a CUDA test: the mapping verdict compares a compiled test "
                                  "with its source, as `redscope cuda-check` does (the first "
                                  "word is CUDA)"});
    with_budget(o.engine, [&](const EngineOptions& e) {
      const LitmusTest source = d->compiled->source(text, file).at(0);
      r.test = source.name;
      metadata = source.metadata;
      const LitmusTest compiled = d->parse(text, file).at(0);
      verdict = mapping_check(source, compiled, e, run_engine).verdict();
      return 0;
    });
  });
  r.verdict = mapping_verdict(verdict);
  if (failure) r = error_record(std::move(r), failure->message, failure->kind, job);
  bool defect = false;
  if (o.html && !failure) {
    // The test's page has cuda-check's answer for a CUDA test already.
    const TestPage p = write_test_page({job.file, job.stem, job.text, ""}, o.engine, *o.html);
    r.page = p.page;
    defect = p.defects > 0;
  }
  MatrixJudged j = place(job, metadata ? &*metadata : nullptr, std::move(r));
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
      return job.text.empty() ? check_file(job.file, e) : check_source(job.text, job.file, 0, e);
    };
    res = check(eo);
    if (!res.error && !seeks_satisfying(res.quantifier)) res = check(o.engine);
  }
  MatrixRecord r;
  r.test = res.test;
  r.file = res.file;
  r.page = page;
  r.verdict = res.observation == Observation::Never ? CellVerdict::Forbidden : CellVerdict::Allowed;
  r = error_record(std::move(r), res.error, res.error_kind, job);
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
                         : o.verdict == VerdictKind::Mapping ? judge_mapping(jobs[i], o)
                                                             : judge_condition(jobs[i], o);
        if (hooks.finished)
          hooks.finished(base + i, !j.record || j.record->verdict == CellVerdict::Error);
        return j;
      },
      [&](std::size_t, MatrixJudged&& j) {
        if ((j.record || !j.problem.empty()) && hooks.judged) hooks.judged(std::move(j));
      });
}

// A folder of its own under the system's temporary folder, removed with
// everything in it when the object goes.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "redscope-matrix-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw std::filesystem::filesystem_error("cannot make a scratch folder", pattern,
                                              std::error_code(errno, std::generic_category()));
    path_ = pattern;
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The reading of a cell whose dialect has a prepare step (CUDA: nvcc) needs
// the work done once for all the spec's cells before any is read: one nvcc
// call per target for the whole matrix instead of one per cell. The step
// takes files, so the cells are written to a scratch folder under their own
// names, prepared together, and the folder removed; each cell is then read
// from memory, where the compiler finds it prepared (its entries are keyed
// by the kernels' source, not by the file). A failure in the cells (an
// error in the spec, no nvcc) is left to the run, which reports it; without
// a scratch folder each cell is compiled alone as it is read.
// Returns the folder's path and a '/' (an error nvcc found names it), or "".
std::string prepare_cells(const generate::MatrixSpec& spec, const EngineOptions& opts) {
  struct NothingToPrepare {};
  std::optional<ScratchFolder> scratch;
  std::vector<std::string> files;
  try {
    (void)generate::for_each_cell(spec, [&](const generate::MatrixCell& c) {
      const std::string name = c.name + ".litmus";
      // Every cell has the template's first word, so its first cell decides.
      if (!scratch) {
        const Dialect* d = dialect_for(name, std::string_view(c.text).substr(0, kDialectHeadBytes));
        if (!d || !d->prepare) throw NothingToPrepare{};
        try {
          scratch.emplace();
        } catch (const std::filesystem::filesystem_error&) {
          throw NothingToPrepare{};  // each cell is compiled alone when read
        }
      }
      const std::string path = (scratch->path() / name).string();
      std::ofstream out(path, std::ios::binary);
      out << c.text;
      if (!out.flush()) throw NothingToPrepare{};  // read alone, as if not prepared
      files.push_back(path);
    });
  } catch (const NothingToPrepare&) {
    return "";
  } catch (const InputError&) {
    return "";  // the run meets it at its cell and reports it
  }
  // A dialect that cannot run here (no nvcc) says so in each cell's error.
  (void)prepare_test_files(files, opts.max_file_bytes);
  return scratch ? (scratch->path() / "").string() : "";
}

}  // namespace

void run_matrix_files(const std::vector<std::string>& files, const MatrixRunOptions& o,
                      const MatrixRunHooks& hooks) {
  // Work a dialect does once for all its files (CUDA: one nvcc call per
  // target); a dialect that cannot run here says so in each test's error.
  (void)prepare_test_files(files, o.engine.max_file_bytes);
  const std::vector<std::string> stems = unique_stems(files);
  std::vector<CellJob> jobs;
  for (std::size_t i = 0; i < files.size(); ++i)
    jobs.push_back(CellJob{files[i], stems[i], "", std::nullopt, "", ""});
  run_jobs(jobs, 0, o, hooks);
}

generate::MatrixCount run_matrix_spec(const generate::MatrixSpec& spec, const MatrixRunOptions& o,
                                      const MatrixRunHooks& hooks) {
  const std::string scratch = prepare_cells(spec, o.engine);
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
    batch.push_back(CellJob{c.name + ".litmus", c.name, c.text, c.coords, spec.name, scratch});
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
  switch (spec.verdict) {
    case generate::MatrixVerdict::Condition: return VerdictKind::Condition;
    case generate::MatrixVerdict::Atomicity: return VerdictKind::Atomicity;
    case generate::MatrixVerdict::Mapping: return VerdictKind::Mapping;
  }
  return VerdictKind::Condition;
}

MatrixTable matrix_table_of(const generate::MatrixSpec& spec, VerdictKind kind) {
  std::vector<MatrixAxisInfo> axes;
  for (const generate::MatrixAxis& a : spec.axes) axes.push_back(MatrixAxisInfo{a.name, a.labels});
  return MatrixTable(kind, spec.name, std::move(axes));
}

}  // namespace redscope
