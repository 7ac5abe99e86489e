// `redscope xval`: classify every outcome of two formulations of a test,
// those its semantics names (see xval.hpp): the Z3 engine and the
// operational machine for event graphs, or a program's Z3 twin and
// explicit explorer.
#include "redscope/analysis/xval.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"
#include "redscope/model/cat.hpp"

#include <chrono>

#include <fmt/format.h>

#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"
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

std::string to_string(const XvalPair& p) { return fmt::format("{} vs {}", p.reaching, p.allowing); }

bool XvalResult::defect() const {
  return count(XvalStatus::ReachedForbidden) > 0 || count(XvalStatus::AllowedUnreached) > 0;
}

std::size_t XvalResult::count(XvalStatus s) const {
  return static_cast<std::size_t>(std::count_if(
      outcomes.begin(), outcomes.end(), [&](const XvalOutcome& o) { return o.status == s; }));
}

namespace {

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& l : v) s += l + "\n";
  return s;
}

// Sorts every outcome `allowed` has or `reached` (values -> the reaching
// side's witness) has into the three classes; `forbidden_by` names what
// forbids a reached outcome `allowed` lacks.
void classify(XvalResult& x, const TestResult& allowed,
              const std::map<std::vector<std::uint64_t>, std::string>& reached,
              const std::function<std::vector<std::string>(const std::vector<std::uint64_t>&)>&
                  forbidden_by) {
  x.model = allowed.model;
  for (const Observable& o : allowed.observables) x.labels.push_back(o.label);
  std::map<std::vector<std::uint64_t>, XvalOutcome> all;
  auto render = [&](const std::vector<std::uint64_t>& v) {
    std::vector<std::string> s;
    for (std::size_t i = 0; i < v.size(); ++i)
      s.push_back(format_value(v[i], allowed.observables[i].type));
    return s;
  };
  for (const Outcome& o : allowed.outcomes)
    all[o.values] = XvalOutcome{
        render(o.values), XvalStatus::AllowedUnreached, "", {}, lines(o.witness.choices)};
  for (const auto& [vals, trace] : reached) {
    auto it = all.find(vals);
    if (it != all.end()) {
      it->second.status = XvalStatus::AllowedReached;
      it->second.trace = trace;
      continue;
    }
    all[vals] =
        XvalOutcome{render(vals), XvalStatus::ReachedForbidden, trace, forbidden_by(vals), ""};
  }
  for (auto& [v, o] : all) x.outcomes.push_back(std::move(o));
}

// The test's semantics' two formulations: event graphs' Z3 engine (the cat
// model) allows and the machine reaches; a program's symbolic twin allows
// and its explorer reaches, and nothing but the twin forbids.
XvalResult xval_test(const LitmusTest& t, const Semantics& sem, const EngineOptions& opts) {
  XvalResult x;
  x.test = t.name;
  x.file = t.file;
  x.pair = sem.formulations();
  EngineOptions z = opts;
  z.engine = EngineKind::Z3;
  const TestResult allowed = sem.allowed(t, z);
  std::map<std::vector<std::uint64_t>, std::string> traces;
  (void)sem.reached(t, z, &traces);
  if (sem.has_model_axioms()) x.model_file = opts.model_file;
  // The axioms that forbid a reached outcome are found by the solver over
  // the typed subset; a model in herd7's full language names none.
  const bool typed = !sem.has_model_axioms() || model_of(z, t)->typed();
  classify(x, allowed, traces, [&](const std::vector<std::uint64_t>& vals) {
    if (!sem.has_model_axioms() || !typed) return std::vector<std::string>{};
    return forbidding_axioms(t, z, allowed.observables, vals);
  });
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

TestResult run_reaching_side(const LitmusTest& t, const EngineOptions& opts) {
  return semantics_of(t).reached(t, opts, nullptr);
}

XvalResult xval_file(const std::string& path, const EngineOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  XvalResult r;
  r.file = path;
  const auto failure = capture_failure(path, [&] {
    const LitmusTest t = parse_litmus_file(path, opts.max_file_bytes);
    // Known from here on, also if the pair cannot check the test.
    const Semantics& sem = semantics_of(t);
    r.test = t.name;
    r.pair = sem.formulations();
    r.model = sem.has_model_axioms() ? opts.model_for(t) : model_for_test(t);
    if (sem.has_model_axioms()) r.model_file = opts.model_file;
    // One budget for the pair (Z3 engine, machine): report inherits it too.
    r = with_budget(opts, [&](const EngineOptions& o) { return xval_test(t, sem, o); });
  });
  if (failure) {
    r.error = failure->message;
    r.error_kind = failure->kind;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {

// The pair in a test's header: "ptx", "sass-sm30; sass, via lowering to PTX
// events", "pto: explorer vs z3 twin".
std::string pair_text(const XvalResult& r) {
  const std::string model = model_name(r.model, r.model_file);
  if (!r.pair) return model;
  if (r.pair->exact) return fmt::format("{}: {}", r.pair->label, to_string(*r.pair));
  if (!r.pair->via.empty()) return fmt::format("{}; {}, via {}", model, r.pair->label, r.pair->via);
  return model;
}

// `text`'s lines, each indented by `indent`; `none` when there are none.
std::string indented(const std::string& text, std::string_view indent, std::string_view none) {
  if (text.empty()) return none.empty() ? "" : fmt::format("{}{}\n", indent, none);
  std::string o;
  for (std::size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    o += fmt::format("{}{}\n", indent, text.substr(a, b - a));
  }
  return o;
}

}  // namespace

std::string render_xval_text(const XvalResult& r) {
  if (r.error) return render_failure_text(r.file, *r.error, r.error_kind);
  // Exact pairs: what forbids is the allowing side itself, and an outcome's
  // witness on either side is its choices.
  const bool exact = r.pair && r.pair->exact;
  std::string o = fmt::format(
      "Xval {} ({}): allowed-reached {}, allowed-never-reached {}, reached-but-forbidden {}\n",
      r.test, pair_text(r), r.count(XvalStatus::AllowedReached),
      r.count(XvalStatus::AllowedUnreached), r.count(XvalStatus::ReachedForbidden));
  for (const XvalOutcome& x : r.outcomes) {
    if (x.status == XvalStatus::AllowedReached) continue;
    o += fmt::format("  {} {}\n", to_string(x.status), state(r, x));
    if (exact && x.status == XvalStatus::AllowedUnreached) {
      o += fmt::format("    {} choices:\n", r.pair->allowing) +
           indented(x.z3_choices, "      ", "(none: one run)");
      continue;
    }
    if (x.status != XvalStatus::ReachedForbidden) continue;
    if (exact) {
      o += fmt::format(
               "    forbidden by: the {} (no run of its encoding gives these values)\n"
               "    {} choices:\n",
               r.pair->allowing, r.pair->reaching) +
           indented(x.trace, "      ", "(none: one run)");
      continue;
    }
    std::string axioms;
    for (const std::string& a : x.forbidden_by)
      axioms += fmt::format("{}{}", axioms.empty() ? "" : ", ", a);
    o += fmt::format("    forbidden by: {}\n    machine trace:\n",
                     axioms.empty() ? "(no single skeleton core)" : axioms);
    o += indented(x.trace, "      ", "");
  }
  return o + "\n";
}

void XvalSummary::add(const XvalResult& r) {
  ++tests;
  if (r.error) {
    ++errors;
    return;
  }
  allowed_reached += r.count(XvalStatus::AllowedReached);
  const std::size_t u = r.count(XvalStatus::AllowedUnreached);
  allowed_unreached += u;
  tests_unreached += u > 0;
  reached_forbidden += r.count(XvalStatus::ReachedForbidden);
}

std::string XvalSummary::render() const {
  return fmt::format(
      "Total {} tests ({} not checked): allowed-reached {}, allowed-never-reached {} (in {} "
      "tests), reached-but-forbidden {}\n",
      tests, errors, allowed_reached, allowed_unreached, tests_unreached, reached_forbidden);
}

std::string render_xval_summary(const std::vector<XvalResult>& rs) {
  XvalSummary s;
  for (const XvalResult& r : rs) s.add(r);
  return s.render();
}

std::string render_xval_json_item(const XvalResult& r) {
  Json t = json_test_head(r.test, r.file, !r.test.empty(), r.model, std::nullopt);
  if (!r.model_file.empty()) t.set("model", r.model_file);
  t.set("pair", r.pair ? Json(to_string(*r.pair)) : Json());
  t.set("via", r.pair && !r.pair->via.empty() ? Json(std::string(r.pair->via)) : Json());
  set_json_error(t, r.error, r.error_kind);
  Json outcomes = Json::array();
  for (const XvalOutcome& x : r.outcomes) {
    Json values = Json::object();
    for (std::size_t j = 0; j < r.labels.size(); ++j) values.set(r.labels[j], x.values[j]);
    Json axioms = Json::array();
    for (const std::string& a : x.forbidden_by) axioms.push(a);
    Json o = Json::object()
                 .set("values", std::move(values))
                 .set("status", to_string(x.status))
                 .set("forbidden_by", std::move(axioms))
                 .set("trace", x.trace);
    if (r.pair && r.pair->exact) o.set("z3_choices", x.z3_choices);
    outcomes.push(std::move(o));
  }
  return "  " + t.set("outcomes", std::move(outcomes)).dump(Json::Layout::Nested, 1);
}

std::string render_xval_json(const std::vector<XvalResult>& rs) {
  std::string o = "[";
  for (std::size_t i = 0; i < rs.size(); ++i)
    o += (i ? ",\n" : "\n") + render_xval_json_item(rs[i]);
  return o + (rs.empty() ? "]\n" : "\n]\n");
}

}  // namespace redscope
