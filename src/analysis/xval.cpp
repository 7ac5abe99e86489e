// `redscope xval`: classify every outcome of the Z3 engine and the
// operational machine (see xval.hpp).
#include "redscope/analysis/xval.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"

#include <chrono>

#include <fmt/format.h>
#include <z3++.h>

#include "redscope/frontend/frontend.hpp"
#include "redscope/report/report.hpp"

namespace redscope {

std::string_view to_string(XvalStatus s) {
  switch (s) {
    case XvalStatus::AllowedReached: return "allowed-reached";
    case XvalStatus::AllowedUnreached: return "allowed-never-reached";
    case XvalStatus::ReachedForbidden: return "reached-but-forbidden";
  }
  return "?";
}

std::size_t XvalResult::count(XvalStatus s) const {
  return static_cast<std::size_t>(std::count_if(
      outcomes.begin(), outcomes.end(), [&](const XvalOutcome& o) { return o.status == s; }));
}

namespace {

XvalResult xval_test(const LitmusTest& t, const EngineOptions& opts) {
  XvalResult x;
  x.test = t.name;
  x.file = t.file;
  EngineOptions z = opts;
  z.engine = EngineKind::Z3;
  const TestResult allowed = run_z3(t, z);
  std::map<std::vector<std::uint64_t>, std::string> traces;
  const TestResult reached = run_op(t, z, &traces);
  x.model = allowed.model;
  x.model_file = opts.model_file;
  for (const Observable& o : allowed.observables) x.labels.push_back(o.label);
  std::map<std::vector<std::uint64_t>, XvalOutcome> all;
  auto render = [&](const std::vector<std::uint64_t>& v) {
    std::vector<std::string> s;
    for (std::size_t i = 0; i < v.size(); ++i)
      s.push_back(format_value(v[i], allowed.observables[i].type));
    return s;
  };
  for (const Outcome& o : allowed.outcomes)
    all[o.values] = XvalOutcome{render(o.values), XvalStatus::AllowedUnreached, "", {}};
  for (const auto& [vals, trace] : traces) {
    auto it = all.find(vals);
    if (it != all.end()) {
      it->second.status = XvalStatus::AllowedReached;
      it->second.trace = trace;
      continue;
    }
    all[vals] = XvalOutcome{render(vals), XvalStatus::ReachedForbidden, trace,
                            forbidding_axioms(t, z, allowed.observables, vals)};
  }
  for (auto& [v, o] : all) x.outcomes.push_back(std::move(o));
  return x;
}

std::string state(const XvalResult& r, const XvalOutcome& o) {
  std::string s;
  for (std::size_t i = 0; i < r.labels.size(); ++i)
    s += fmt::format("{}={}; ", r.labels[i], o.values[i]);
  if (!s.empty()) s.pop_back();
  return s;
}

}  // namespace

XvalResult xval_file(const std::string& path, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  XvalResult r;
  r.file = path;
  const auto failure = capture_failure(path, [&] {
    const LitmusTest t = parse_litmus_file(path, opts.max_file_bytes);
    // One budget for the pair (Z3 engine, machine): report inherits it too.
    r = with_budget(opts, [&](const EngineOptions& o) { return xval_test(t, o); });
  });
  if (failure) {
    r.error = failure->message;
    r.error_kind = failure->kind;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string render_xval_text(const XvalResult& r) {
  if (r.error) return render_failure_text(r.file, *r.error, r.error_kind);
  std::string o = fmt::format(
      "Xval {} ({}): allowed-reached {}, allowed-never-reached {}, reached-but-forbidden {}\n",
      r.test, model_name(r.model, r.model_file), r.count(XvalStatus::AllowedReached),
      r.count(XvalStatus::AllowedUnreached), r.count(XvalStatus::ReachedForbidden));
  for (const XvalOutcome& x : r.outcomes) {
    if (x.status == XvalStatus::AllowedReached) continue;
    o += fmt::format("  {} {}\n", to_string(x.status), state(r, x));
    if (x.status != XvalStatus::ReachedForbidden) continue;
    std::string axioms;
    for (const std::string& a : x.forbidden_by)
      axioms += fmt::format("{}{}", axioms.empty() ? "" : ", ", a);
    o += fmt::format("    forbidden by: {}\n    machine trace:\n",
                     axioms.empty() ? "(no single skeleton core)" : axioms);
    for (std::size_t a = 0, b; a < x.trace.size(); a = b + 1) {
      b = x.trace.find('\n', a);
      o += "      " + x.trace.substr(a, b - a) + "\n";
    }
  }
  return o + "\n";
}

std::string render_xval_summary(const std::vector<XvalResult>& rs) {
  std::size_t ar = 0, un = 0, rf = 0, tests_un = 0, errors = 0;
  for (const XvalResult& r : rs) {
    if (r.error) {
      ++errors;
      continue;
    }
    ar += r.count(XvalStatus::AllowedReached);
    const std::size_t u = r.count(XvalStatus::AllowedUnreached);
    un += u;
    tests_un += u > 0;
    rf += r.count(XvalStatus::ReachedForbidden);
  }
  return fmt::format(
      "Total {} tests ({} not checked): allowed-reached {}, allowed-never-reached {} (in {} "
      "tests), reached-but-forbidden {}\n",
      rs.size(), errors, ar, un, tests_un, rf);
}

std::string render_xval_json(const std::vector<XvalResult>& rs) {
  Json all = Json::array();
  for (const XvalResult& r : rs) {
    Json t = json_test_head(r.test, r.file, !r.test.empty(), r.model, std::nullopt);
    if (!r.model_file.empty()) t.set("model", r.model_file);
    set_json_error(t, r.error, r.error_kind);
    Json outcomes = Json::array();
    for (const XvalOutcome& x : r.outcomes) {
      Json values = Json::object();
      for (std::size_t j = 0; j < r.labels.size(); ++j) values.set(r.labels[j], x.values[j]);
      Json axioms = Json::array();
      for (const std::string& a : x.forbidden_by) axioms.push(a);
      outcomes.push(Json::object()
                        .set("values", std::move(values))
                        .set("status", to_string(x.status))
                        .set("forbidden_by", std::move(axioms))
                        .set("trace", x.trace));
    }
    all.push(t.set("outcomes", std::move(outcomes)));
  }
  return all.dump(Json::Layout::Nested) + "\n";
}

}  // namespace redscope
