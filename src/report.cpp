#include "redscope/failure.hpp"
#include "redscope/report.hpp"

#include <fmt/format.h>

namespace redscope {

namespace {

std::string_view kind_word(Quantifier q) {
  switch (q) {
    case Quantifier::Exists: return "Allowed";
    case Quantifier::NotExists: return "Forbidden";
    case Quantifier::Forall: return "Required";
  }
  return "?";
}

std::string state_line(const TestResult& r, std::size_t i) {
  std::string s;
  for (std::size_t k = 0; k < r.observables.size(); ++k)
    s += fmt::format("{}={}; ", r.observables[k].label, r.render_value(i, k));
  if (!s.empty()) s.pop_back();
  return s;
}

}  // namespace

std::string render_text(const TestResult& r) {
  if (r.error) {
    return render_failure_text(r.file, *r.error, r.error_kind);
  }
  std::string out = fmt::format("Test {} {}\n", r.test, kind_word(r.quantifier));
  out += fmt::format("States {}\n", r.outcomes.size());
  for (std::size_t i = 0; i < r.outcomes.size(); ++i)
    out += fmt::format("{}{}\n", r.outcomes[i].satisfies ? "*> " : "   ", state_line(r, i));
  out += r.holds ? "Ok\n" : "No\n";
  const auto sat = static_cast<std::size_t>(std::count_if(r.outcomes.begin(), r.outcomes.end(), [](const Outcome& o) { return o.satisfies; }));
  out += fmt::format("Condition {} {}\n", to_string(r.quantifier), r.condition_text);
  out += fmt::format("Observation {} {} {} {}\n", r.test, to_string(r.observation), sat, r.outcomes.size() - sat);
  if (r.incomplete.total() > 0)
    out += fmt::format("Incomplete {} (cut by unroll bound: {}, barrier never completes: {}): possible hang\n",
                       r.incomplete.total(), r.incomplete.bound_cut, r.incomplete.barrier_deadlock);
  out += fmt::format("Time {} {:.2f}\n\n", r.test, r.seconds);
  return out;
}

std::string json_escape(std::string_view raw) {
  const std::string s = valid_utf8(raw);  // JSON is UTF-8: never echo a stray byte
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else o += c;
    }
  }
  return o;
}

namespace {

std::string q(std::string_view s) { return "\"" + json_escape(s) + "\""; }

std::string string_list(const std::vector<std::string>& v) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + q(v[i]);
  return o + "]";
}

std::string one_json(const TestResult& r) {
  std::string o = "  {\n";
  o += fmt::format("    \"test\": {},\n    \"file\": {},\n", q(r.test), q(r.file));
  if (r.parsed) o += fmt::format("    \"model\": {},\n    \"target\": {},\n", q(to_string(r.model)), q(fmt::format("sm_{}", r.target_sm)));
  else o += "    \"model\": null,\n    \"target\": null,\n";  // the file never parsed
  if (r.error) {
    o += "    \"condition\": null,\n    \"observation\": null,\n    \"outcomes\": [],\n    \"witnesses\": [],\n";
    o += "    \"incomplete_paths\": 0,\n";
    o += fmt::format("    \"seconds\": {:.4f},\n    \"error\": {},\n    \"error_kind\": {}\n  }}", r.seconds, q(*r.error),
                     q(r.error_kind.empty() ? "input" : r.error_kind));
    return o;
  }
  o += fmt::format("    \"condition\": {{\"quantifier\": {}, \"text\": {}, \"holds\": {}}},\n",
                   q(to_string(r.quantifier)), q(r.condition_text), r.holds ? "true" : "false");
  o += fmt::format("    \"observation\": {},\n", q(to_string(r.observation)));
  o += "    \"outcomes\": [";
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    o += i ? ",\n      {" : "\n      {";
    for (std::size_t k = 0; k < r.observables.size(); ++k)
      o += fmt::format("{}{}: {}", k ? ", " : "", q(r.observables[k].label), q(r.render_value(i, k)));
    o += "}";
  }
  o += r.outcomes.empty() ? "],\n" : "\n    ],\n";
  o += "    \"witnesses\": [";
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    const Witness& w = r.outcomes[i].witness;
    o += fmt::format("{}\n      {{\"rf\": {}, \"co\": {}}}", i ? "," : "", string_list(w.rf), string_list(w.co));
  }
  o += r.outcomes.empty() ? "],\n" : "\n    ],\n";
  o += fmt::format("    \"incomplete_paths\": {},\n", r.incomplete.total());
  o += fmt::format("    \"incomplete\": {{\"unroll_bound\": {}, \"barrier_deadlock\": {}}},\n",
                   r.incomplete.bound_cut, r.incomplete.barrier_deadlock);
  o += fmt::format("    \"seconds\": {:.4f},\n    \"error\": null,\n    \"error_kind\": null\n  }}", r.seconds);
  return o;
}

}  // namespace

std::string render_json_item(const TestResult& r) { return one_json(r); }

std::string render_json_line(const TestResult& r) {
  const std::string pretty = one_json(r);
  std::string o;  // strings hold no raw newline (escaped), so dropping them and the indent is safe
  for (std::size_t i = 0; i < pretty.size(); ++i) {
    if (pretty[i] != '\n') { o += pretty[i]; continue; }
    while (i + 1 < pretty.size() && pretty[i + 1] == ' ') ++i;
  }
  const std::size_t b = o.find_first_not_of(' ');
  return o.substr(b) + "\n";
}

std::string render_json(const std::vector<TestResult>& results) {
  std::string o = "[\n";
  for (std::size_t i = 0; i < results.size(); ++i) o += (i ? ",\n" : "") + one_json(results[i]);
  return o + (results.empty() ? "]\n" : "\n]\n");
}

}  // namespace redscope
