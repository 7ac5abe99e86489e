#include "redscope/driver/suite.hpp"
#include "redscope/core/failure.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "redscope/core/input.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"

namespace fs = std::filesystem;

namespace redscope {

namespace {

// Whether a registered dialect claims the folder entry `it`.
bool claimed(const fs::directory_entry& it) {
  std::error_code ec;
  const std::string head = it.is_regular_file(ec) ? read_head(it.path()) : std::string();
  return dialect_for(it.path(), head) != nullptr;
}

// Every file below `dir` that a registered dialect claims (today: *.litmus),
// recursively; folders that cannot be read and claimed entries that are
// dangling links become problems.
void walk_folder(const fs::path& dir, std::vector<std::string>& found,
                 std::vector<Diagnostic>& problems) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    problems.push_back(
        Diagnostic{dir.string(), {0, 0}, fmt::format("cannot read folder: {}", ec.message())});
    return;
  }
  std::vector<fs::path> subdirs;
  for (fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    std::error_code e2;
    if (it->is_directory(e2) && !it->is_symlink(e2)) {
      subdirs.push_back(p);
      continue;
    }
    if (!claimed(*it)) continue;
    if (it->is_regular_file(e2))
      found.push_back(p.string());
    else if (it->is_symlink(e2) && !fs::exists(p, e2))
      problems.push_back(Diagnostic{p.string(), {0, 0}, "dangling symbolic link"});
    else
      found.push_back(p.string());  // a FIFO or device a dialect claims: reading it reports why
  }
  if (ec)
    problems.push_back(
        Diagnostic{dir.string(), {0, 0}, fmt::format("cannot read folder: {}", ec.message())});
  for (const fs::path& d : subdirs) walk_folder(d, found, problems);
}

}  // namespace

std::vector<std::string> collect_litmus_files(const std::vector<std::string>& paths,
                                              std::vector<Diagnostic>* problems,
                                              std::size_t max_bytes) {
  std::vector<std::string> out;
  std::vector<Diagnostic> local;
  std::vector<Diagnostic>& probs = problems ? *problems : local;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      walk_folder(p, found, probs);
      std::sort(found.begin(), found.end());
      for (const std::string& f : found)
        for (std::string& a : test_addresses(f, max_bytes)) out.push_back(std::move(a));
    } else if (fs::exists(p, ec)) {
      for (std::string& a : test_addresses(p, max_bytes)) out.push_back(std::move(a));
    } else if (address_file(p) != p && fs::is_regular_file(address_file(p), ec)) {
      out.push_back(p);  // FILE#N: one test of a file holding several
    } else {
      probs.push_back(Diagnostic{p, {0, 0}, "no such file or folder"});
    }
    if (!problems && !local.empty()) throw InputError(local.front());
  }
  return out;
}

namespace {

// Parses (with `parse`) and checks one test under one budget: reading,
// parsing, expansion, static relations, estimates and the engine all count
// (issue 28); any failure becomes the result's error.
TestResult check_parsed(const std::string& path,
                        const std::function<LitmusTest(const EngineOptions&)>& parse,
                        const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  TestResult r;
  r.file = path;
  r.test = fs::path(path).stem().string();
  r.parsed = false;
  std::optional<TestResult> done;
  const auto failure = capture_failure(path, [&] {
    done = with_budget(opts, [&](const EngineOptions& o) {
      const auto source = std::make_shared<const LitmusTest>(parse(o));
      const LitmusTest& t = *source;
      r.source = source;  // kept when the check fails: its metadata places a matrix cell
      r.parsed = true;
      r.test = t.name;
      r.model = o.model_for(t);
      r.target_sm = t.target_sm;
      o.budget->check();
      TestResult res = run_engine(t, o);
      res.source = source;
      res.file = path;  // FILE#N for one test of a file holding several
      return res;
    });
  });
  if (done) return std::move(*done);
  r.error = failure->message;
  r.error_at = failure->diagnostic;
  r.error_kind = failure->kind;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

TestResult check_file(const std::string& path, const EngineOptions& opts) {
  return check_parsed(
      path, [&](const EngineOptions& o) { return parse_litmus_file(path, o.max_file_bytes); },
      opts);
}

TestResult check_text(const std::string& text, const std::string& name, const EngineOptions& opts) {
  // Through the registry, by the text's first word, as a file of this name
  // would be read (a CUDA cell is compiled by nvcc).
  return check_source(text, name, 0, opts);
}

TestResult check_source(const std::string& text, const std::string& file, std::size_t n,
                        const EngineOptions& opts) {
  return check_parsed(
      file, [&](const EngineOptions&) { return parse_litmus_text(text, file).at(n); }, opts);
}

std::vector<TestResult> run_suite(const std::vector<std::string>& files, const EngineOptions& opts,
                                  unsigned jobs) {
  std::vector<TestResult> results(files.size());
  (void)prepare_test_files(files, opts.max_file_bytes);  // a missing tool: each test says so
  parallel_for(files.size(), jobs, [&](std::size_t i) { results[i] = check_file(files[i], opts); });
  return results;
}

std::string path_key(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  if (!ec) return p.string();
  p = fs::absolute(path, ec);  // a name over NAME_MAX, a loop of links, ...
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

std::vector<Expectation> read_expectations(const std::string& csv_path, std::size_t max_bytes) {
  // The one bounded reader: a folder, a FIFO or /dev/zero is a located error.
  std::istringstream in(read_input(csv_path, max_bytes, "expectation CSV file"));
  const fs::path dir = fs::path(csv_path).parent_path();
  std::vector<Expectation> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.rfind(',');
    const std::string v = comma == std::string::npos ? "" : line.substr(comma + 1);
    if (comma == std::string::npos || (v != "0" && v != "1"))
      throw InputError(Diagnostic{csv_path, {n, 1}, "expected 'path,1' or 'path,0'"});
    Expectation e;
    e.path = line.substr(0, comma);
    e.resolved = path_key((dir / e.path).string());
    e.holds = v == "1";
    e.line = n;
    out.push_back(std::move(e));
  }
  return out;
}

ExpectTally::ExpectTally(std::vector<Expectation> exp) : exp_(std::move(exp)), rows_(exp_.size()) {
  for (std::size_t i = 0; i < exp_.size(); ++i) rows_of_[exp_[i].resolved].push_back(i);
}

void ExpectTally::add(const TestResult& r) {
  const std::string key = path_key(r.file);
  const auto named = rows_of_.find(key);
  if (named != rows_of_.end()) {
    for (const std::size_t i : named->second) {
      const Expectation& e = exp_[i];
      Row& row = rows_[i];
      row.line.clear();
      if (r.error) {
        row.verdict = Row::Verdict::Error;
        row.line = fmt::format("ERROR {}: {}", e.path, *r.error);
      } else if (r.holds != e.holds) {
        row.verdict = Row::Verdict::Failed;
        row.line = fmt::format(
            "MISMATCH {}: expected {} ({}), redscope says {} ({} {}, observation {})", e.path,
            e.holds ? 1 : 0, e.holds ? "holds" : "does not hold", r.holds ? 1 : 0,
            to_string(r.quantifier), r.condition_text, to_string(r.observation));
      } else {
        row.verdict = Row::Verdict::Passed;
      }
    }
  }
  if (r.error && exp_.empty())
    error_lines_.push_back(fmt::format("ERROR {}: {}", r.file, *r.error));
  if (r.error || !is_claim(r.quantifier) || named != rows_of_.end()) return;
  any_claim_ = true;
  if (r.holds) {
    ++claims_passed_;
    return;
  }
  ++claims_failed_;
  const std::string claim = r.source && r.source->metadata.count("claim")
                                ? r.source->metadata.at("claim")
                                : std::string(to_string(r.quantifier));
  claim_lines_.push_back(fmt::format("CLAIM NOT MET {}: {} ({}) as {}: {}", r.file,
                                     to_string(r.quantifier), r.condition_text, claim,
                                     r.quantifier == Quantifier::Assert
                                         ? "some allowed execution does not satisfy the condition"
                                         : "no allowed execution satisfies the condition"));
}

ExpectReport ExpectTally::compared() const {
  ExpectReport rep;
  for (const Row& row : rows_) {
    switch (row.verdict) {
      case Row::Verdict::NotRun: ++rep.not_run; break;
      case Row::Verdict::Passed: ++rep.passed; break;
      case Row::Verdict::Failed: ++rep.failed; break;
      case Row::Verdict::Error: ++rep.errors; break;
    }
    if (!row.line.empty()) rep.lines.push_back(row.line);
  }
  return rep;
}

bool ExpectTally::add_claims(ExpectReport& rep) const {
  if (!any_claim_) return false;
  rep.passed += claims_passed_;
  rep.failed += claims_failed_;
  rep.lines.insert(rep.lines.end(), claim_lines_.begin(), claim_lines_.end());
  rep.errors += error_lines_.size();  // only kept when there are no rows
  rep.lines.insert(rep.lines.end(), error_lines_.begin(), error_lines_.end());
  return true;
}

ExpectReport compare_expectations(const std::vector<Expectation>& exp,
                                  const std::vector<TestResult>& results) {
  ExpectTally tally(exp);
  for (const TestResult& r : results) tally.add(r);
  return tally.compared();
}

bool add_claims(ExpectReport& rep, const std::vector<Expectation>& exp,
                const std::vector<TestResult>& results) {
  ExpectTally tally(exp);
  for (const TestResult& r : results) tally.add(r);
  return tally.add_claims(rep);
}

}  // namespace redscope
