#include "redscope/suite.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <z3++.h>

#include "redscope/frontend.hpp"

namespace fs = std::filesystem;

namespace redscope {

std::vector<std::string> collect_litmus_files(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".litmus") found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      out.push_back(p);
    } else {
      throw InputError(Diagnostic{p, {0, 0}, "no such file or folder"});
    }
  }
  return out;
}

TestResult check_file(const std::string& path, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  TestResult r;
  r.file = path;
  r.test = fs::path(path).stem().string();
  r.model = opts.model.value_or(ModelKind::Ptx);
  try {
    return run_engine(parse_litmus_file(path), opts);
  } catch (const InputError& e) {
    r.error = e.diagnostic().render();
  } catch (const z3::exception& e) {
    r.error = fmt::format("{}:0:0: error: internal solver error: {}", path, e.msg());
  } catch (const std::exception& e) {
    r.error = fmt::format("{}:0:0: error: internal error: {}", path, e.what());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
  };
  jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(1, n))));
  std::vector<std::jthread> pool;
  for (unsigned k = 1; k < jobs; ++k) pool.emplace_back(worker);
  worker();
}

std::vector<TestResult> run_suite(const std::vector<std::string>& files, const EngineOptions& opts, unsigned jobs,
                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<TestResult> results(files.size());
  std::mutex mu;
  std::size_t done = 0, failed = 0;
  parallel_for(files.size(), jobs, [&](std::size_t i) {
    results[i] = check_file(files[i], opts);
    std::lock_guard<std::mutex> lock(mu);
    ++done;
    if (results[i].error) ++failed;
    if (progress) progress(done, failed);
  });
  return results;
}

std::vector<Expectation> read_expectations(const std::string& csv_path) {
  std::ifstream in(csv_path);
  if (!in) throw InputError(Diagnostic{csv_path, {0, 0}, "cannot open expectation file"});
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
    e.resolved = fs::weakly_canonical(dir / e.path).string();
    e.holds = v == "1";
    e.line = n;
    out.push_back(std::move(e));
  }
  return out;
}

ExpectReport compare_expectations(const std::vector<Expectation>& exp, const std::vector<TestResult>& results) {
  std::map<std::string, const TestResult*> by_path;
  for (const TestResult& r : results) by_path[fs::weakly_canonical(r.file).string()] = &r;
  ExpectReport rep;
  for (const Expectation& e : exp) {
    auto it = by_path.find(e.resolved);
    if (it == by_path.end()) { ++rep.not_run; continue; }
    const TestResult& r = *it->second;
    if (r.error) {
      ++rep.failed;
      rep.lines.push_back(fmt::format("ERROR {}: {}", e.path, *r.error));
    } else if (r.holds != e.holds) {
      ++rep.failed;
      rep.lines.push_back(fmt::format("MISMATCH {}: expected {} ({}), redscope says {} ({} {}, observation {})", e.path,
                                      e.holds ? 1 : 0, e.holds ? "holds" : "does not hold", r.holds ? 1 : 0,
                                      to_string(r.quantifier), r.condition_text, to_string(r.observation)));
    } else {
      ++rep.passed;
    }
  }
  return rep;
}

}  // namespace redscope
