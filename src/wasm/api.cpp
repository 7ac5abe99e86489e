// The playground's one call (api.hpp). Every answer is what the CLI prints
// for the same command, made by the same functions: run's object is
// report's render_json_item of check_source's result (check_file's path),
// explain's and atomicity's their render_json. Errors are the CLI's located
// diagnostics, split into their parts.
#include "wasm/api.hpp"
#include "wasm/progress.hpp"
#include "wasm/request.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/outcome_executions.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"
#include "redscope/core/model.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/dot.hpp"
#include "redscope/report/report.hpp"

#ifndef REDSCOPE_VERSION
#define REDSCOPE_VERSION "unknown"
#endif

namespace redscope::wasm {

namespace {

Json error_json(const Diagnostic& d) {
  return Json::object().set("error", Json::object()
                                         .set("file", d.file)
                                         .set("line", static_cast<std::size_t>(d.loc.line))
                                         .set("column", static_cast<std::size_t>(d.loc.col))
                                         .set("message", d.message)
                                         .set("text", d.render()));
}

// The model a request names: its own text (parsed here: its errors are
// located in model_file), a built-in one (read_request found it), or the
// test's.
void set_model(const Request& q, EngineOptions& o) {
  if (q.model_text) {
    o.user_model = std::make_shared<const cat::Model>(
        cat::parse_model_builtin_includes(*q.model_text, q.model_file));
    o.model_file = q.model_file;
    return;
  }
  if (q.model) o.model = *q.model;
}

EngineOptions options_of(const Request& q) {
  EngineOptions o;
  o.engine = q.engine;
  o.observe_all = q.observe_all;
  o.verdict_only = q.verdict;
  o.max_outcomes = q.max_outcomes;
  o.limits.seconds = q.seconds;
  o.expand.unroll = q.unroll;
  // The module's size_t has 32 bits: 4096 MiB is past it (and past its memory).
  o.max_file_bytes = static_cast<std::size_t>(
      std::min<std::uint64_t>(q.max_file_bytes, std::numeric_limits<std::size_t>::max()));
  o.workers = 1;                 // no threads in the module (cmake/wasm/libcxx_compat.hpp)
  o.progress = page_progress();  // Module.onProgress, when the page set it
  set_model(q, o);
  return o;
}

// Which of the file's tests a command about one test means: options.row
// (0-based, as run's array of a .test template lists them), default 0.
std::size_t row_of(const Request& q, std::size_t n) {
  if (n == 0) throw InputError(Diagnostic{q.file, {0, 0}, "holds no test"});
  if (!q.row) return 0;
  const std::optional<long long> v = q.row->whole(0, static_cast<long long>(n) - 1);
  if (!v)
    throw InputError(Diagnostic{
        "request",
        {q.row->line(), q.row->col()},
        fmt::format("options.row takes a test's index, from 0 to {} (the file holds {} test{}), "
                    "not {}",
                    n - 1, n, n == 1 ? "" : "s", q.row->text())});
  return static_cast<std::size_t>(*v);
}

// The test the request means: the text's only one, or its options.row.
LitmusTest one_test(const Request& q) {
  std::vector<LitmusTest> tests = parse_litmus_text(q.test, q.file);
  if (tests.empty()) throw InputError(Diagnostic{q.file, {0, 0}, "holds no test"});
  return std::move(tests[row_of(q, tests.size())]);
}

TestResult checked(const Request& q, std::size_t n, const EngineOptions& o) {
  TestResult r = check_source(q.test, q.file, n, o);
  if (r.error) throw InputError(r.error_at ? *r.error_at : Diagnostic{q.file, {0, 0}, *r.error});
  return r;
}

TestResult checked(const Request& q, std::size_t n) { return checked(q, n, options_of(q)); }

// run: the object `redscope run --format json` prints for the test (an
// array of them for a file holding several, as a .test template may). As
// the CLI does, the enumerator lists outcomes packed (a listing) and the
// JSON is written from them, not from a TestResult holding every outcome
// with its witness texts (IRIW with 8 readers: 1.2 s to 0.15 s natively).
std::string run(const Request& q) {
  const std::size_t n = parse_litmus_text(q.test, q.file).size();
  EngineOptions o = options_of(q);
  if (!o.verdict_only) o.listing = ListingOptions{};  // spills to /tmp (memory) past 256 MiB
  if (q.text) {  // {"text": herd7's output}, each test's as `redscope run` prints it
    std::string text;
    for (std::size_t i = 0; i < n; ++i)
      write_text(checked(q, i, o), [&](std::string_view piece) { text += piece; });
    return Json::object().set("text", text).dump(Json::Layout::Line);
  }
  std::string out = n == 1 ? "" : "[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ",";
    write_json_item(checked(q, i, o), [&](std::string_view piece) { out += piece; });
  }
  return n == 1 ? out : out + "]";
}

// Whether outcome `o` of `r` has the values of `want` ({"P0:r0": "1", ...},
// as run's JSON writes them).
bool has_values(const TestResult& r, const Outcome& o, const JsonNode& want) {
  for (std::size_t k = 0; k < r.observables.size(); ++k) {
    const JsonNode* v = want.find(r.observables[k].label);
    if (!v || v->text() != format_value(o.values[k], r.observables[k].type)) return false;
  }
  return true;
}

// executions: every allowed execution of the outcome `options.outcome` (at
// most options.limit), each with its rf, co and picture, as dot draws one.
std::string executions(const Request& q) {
  const LitmusTest test = one_test(q);
  std::map<std::string, std::string> values;
  for (std::size_t k = 0; k < q.outcome->keys().size(); ++k)
    values[q.outcome->keys()[k]] = q.outcome->values()[k].text();
  EngineOptions o = options_of(q);
  const OutcomeExecutions found = outcome_executions(test, o, values, q.limit);
  Json list = Json::array();
  for (std::size_t i = 0; i < found.executions.size(); ++i) {
    const OutcomeExecution& x = found.executions[i];
    list.push(Json::object()
                  .set("rf", Json::strings(x.witness.rf.texts()))
                  .set("co", Json::strings(x.witness.co.texts()))
                  .set("dot", witness_dot(found.paths[x.path], x.witness,
                                          fmt::format("{}: execution {}", test.name, i + 1))));
  }
  return Json::object()
      .set("executions", std::move(list))
      .set("complete", found.complete)
      .dump(Json::Layout::Line);
}

// The edge texts of a JSON array ("A -> B").
std::vector<std::string> texts_of(const JsonNode& a) {
  std::vector<std::string> out;
  for (const JsonNode& x : a.elements()) out.push_back(x.text());
  return out;
}

// dot with options.witness: that witness drawn on the path whose events its
// edges name, without running the test again (a run of 65,536 outcomes
// draws any of them at once).
std::string dot_of_witness(const Request& q) {
  const LitmusTest test = one_test(q);
  const EngineOptions o = options_of(q);
  const Expansion ex = expand(test, o.expand);
  const std::vector<std::string> rf = texts_of(*q.witness->find("rf")),
                                 co = texts_of(*q.witness->find("co"));
  Witness w;
  for (const std::string& t : rf) w.rf.push_back(t);
  for (const std::string& t : co) w.co.push_back(t);
  for (std::size_t i = 0; i < ex.skeletons.size(); ++i) {
    const Skeleton& sk = ex.skeletons[i];
    std::set<std::string> labels;
    for (EventId e = 0; e < sk.size(); ++e) labels.insert(witness_label(sk, e));
    const auto named = [&](const std::string& edge) {
      const std::size_t arrow = edge.find(" -> ");
      return arrow != std::string::npos && labels.count(edge.substr(0, arrow)) &&
             labels.count(edge.substr(arrow + 4));
    };
    if (std::all_of(rf.begin(), rf.end(), named) && std::all_of(co.begin(), co.end(), named)) {
      w.skeleton = i;
      const std::string engine(
          to_string(o.engine == EngineKind::Auto ? EngineKind::Enum : o.engine));
      return Json::object()
          .set("dot", witness_dot(sk, w, fmt::format("{} ({} engine)", test.name, engine)))
          .dump(Json::Layout::Line);
    }
  }
  throw InputError(
      Diagnostic{q.file, {0, 0}, "options.witness names events of no path of the test"});
}

// dot: the witness of the outcome `options.outcome` as run --dot draws it.
std::string dot(const Request& q) {
  if (q.witness) return dot_of_witness(q);
  const TestResult r = checked(q, row_of(q, parse_litmus_text(q.test, q.file).size()));
  for (const Outcome& o : r.outcomes) {
    if (!has_values(r, o, *q.outcome)) continue;
    if (!r.expansion) break;
    const std::string text = witness_dot(r.expansion->skeletons.at(o.witness.skeleton), o.witness,
                                         fmt::format("{} ({} engine)", r.test, r.engine));
    return Json::object().set("dot", text).dump(Json::Layout::Line);
  }
  throw InputError(Diagnostic{q.file, {0, 0}, "no such outcome with a witness to draw"});
}

std::string explain_answer(const Request& q) {
  const LitmusTest t = one_test(q);
  ExplainRequest req;
  if (q.outcome) req.outcome = q.outcome->text();  // else options.condition (read_request)
  const Explanation e = with_budget(options_of(q), [&](const EngineOptions& o) {
    try {
      return explain(t, o, req);
    } catch (const std::invalid_argument& x) {  // a malformed outcome: the CLI's usage error
      throw InputError(Diagnostic{"request", {q.outcome->line(), q.outcome->col()}, x.what()});
    }
  });
  return render_json(e);
}

std::string atomicity_answer(const Request& q) {
  const LitmusTest t = one_test(q);
  return render_atomicity_json_item(
      with_budget(options_of(q), [&](const EngineOptions& o) { return check_atomicity(t, o); }));
}

std::string models() {
  Json list = Json::array();
  std::vector<std::string_view> seen;  // variants share their file (ptx, ptx-sm6x)
  for (const BuiltinModel& m : kBuiltinModels)
    if (!m.file.empty() && std::find(seen.begin(), seen.end(), m.file) == seen.end()) {
      seen.push_back(m.file);
      list.push(std::string(m.file));
    }
  return Json::object().set("models", std::move(list)).dump(Json::Layout::Line);
}

std::string version() {
  Json engines = Json::array();
  if (z3_available()) engines.push("z3");
  engines.push("enum").push("op");
  return Json::object()
      .set("version", REDSCOPE_VERSION)
      .set("z3", z3_available())
      .set("engines", std::move(engines))
      .dump(Json::Layout::Line);
}

std::string answer(const Request& q) {
  if (q.command == "run") return run(q);
  if (q.command == "dot") return dot(q);
  if (q.command == "explain") return explain_answer(q);
  if (q.command == "executions") return executions(q);
  if (q.command == "atomicity") return atomicity_answer(q);
  if (q.command == "check_model") {
    (void)cat::parse_model_builtin_includes(q.model_text.value_or(""), q.model_file);
    return Json::object().set("ok", true).dump(Json::Layout::Line);
  }
  if (q.command == "models") return models();
  return version();  // read_request knows no other command
}

}  // namespace

std::string call(std::string_view request) {
  std::string file = "request";
  try {
    if (std::uint64_t{request.size()} > kMaxRequestBytes)  // unread: no option allows more
      throw InputError(Diagnostic{
          "request",
          {0, 0},
          fmt::format("a request of {} bytes is over the {}-byte limit (twice the largest "
                      "options.max_file_size, {} MiB, and 1 MiB)",
                      request.size(), kMaxRequestBytes, cli::kMaxFileSizeMaxMb)});
    const JsonNode root = parse_json(request, "request");
    const Request q = read_request(root, request.size());
    file = q.file;
    return answer(q);
  } catch (const InputError& e) {
    return error_answer(e.diagnostic());
  } catch (
      const std::bad_alloc&) {  // the heap's cap (2 GiB in the module): say so, not "bad_alloc"
    return error_answer(Diagnostic{file, {0, 0}, std::string(kOutOfMemory)});
  } catch (const std::exception& e) {  // over budget, or a defect: still a located answer
    return error_answer(Diagnostic{file, {0, 0}, e.what()});
  }
}

std::string error_answer(const Diagnostic& d) { return error_json(d).dump(Json::Layout::Line); }

}  // namespace redscope::wasm
