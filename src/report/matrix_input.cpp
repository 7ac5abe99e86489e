// Result files read back into matrix records (redscope/report/matrix.hpp):
// the objects of `run --format json|jsonl` (docs/cli.md "JSON output") and
// the entries of `atomicity --format json`, placed by their "metadata".
#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/json.hpp"
#include "redscope/report/matrix.hpp"

namespace redscope {

namespace {

[[noreturn]] void bad(const std::string& file, const JsonNode& at, const std::string& msg) {
  throw InputError(Diagnostic{file, {at.line(), at.col()}, msg});
}

std::string string_member(const JsonNode& o, std::string_view key) {
  const JsonNode* v = o.find(key);
  return v && v->is(JsonNode::Type::String) ? v->text() : std::string();
}

std::map<std::string, std::string> metadata_of(const std::string& file, const JsonNode& o) {
  std::map<std::string, std::string> out;
  const JsonNode* m = o.find("metadata");
  if (!m) return out;
  if (!m->is(JsonNode::Type::Object)) bad(file, *m, "\"metadata\" is not an object");
  for (std::size_t i = 0; i < m->keys().size(); ++i) {
    if (!m->values()[i].is(JsonNode::Type::String))
      bad(file, m->values()[i], fmt::format("metadata \"{}\" is not a string", m->keys()[i]));
    out[m->keys()[i]] = m->values()[i].text();
  }
  return out;
}

// An atomicity entry's verdict: contract 3 on its pairs.
CellVerdict atomicity_of(const std::string& file, const JsonNode& pairs) {
  if (!pairs.is(JsonNode::Type::Array)) bad(file, pairs, "\"pairs\" is not an array");
  bool lost = false, unknown = false;
  for (const JsonNode& p : pairs.elements()) {
    const JsonNode* l = p.is(JsonNode::Type::Object) ? p.find("lost_update") : nullptr;
    if (!l || !l->is(JsonNode::Type::Bool)) bad(file, p, "a pair without \"lost_update\"");
    lost = lost || l->truthy();
    const JsonNode* m = p.find("mutually_in_scope");
    unknown = unknown || (m && m->is(JsonNode::Type::Null));
  }
  return atomicity_verdict(lost, unknown);
}

MatrixRecord record_of(const std::string& file, const JsonNode& o, VerdictKind kind) {
  const std::string test = string_member(o, "test"), path = string_member(o, "file");
  MatrixRecord r = record_from_metadata(
      metadata_of(file, o),
      fmt::format("{}:{}:{}: {}", file, o.line(), o.col(), test.empty() ? path : test));
  r.test = test;
  r.file = path;
  if (const JsonNode* e = o.find("error"); e && !e->is(JsonNode::Type::Null)) {
    r.verdict = CellVerdict::Error;
    r.error = e->text();
    r.error_kind = string_member(o, "error_kind");
    if (r.error_kind.empty()) r.error_kind = "input";
  } else if (kind == VerdictKind::Atomicity) {
    r.verdict = atomicity_of(file, *o.find("pairs"));
  } else {
    // "Never": no allowed outcome satisfies the condition's proposition.
    const JsonNode* obs = o.find("observation");
    if (!obs || !obs->is(JsonNode::Type::String)) bad(file, o, "a result without \"observation\"");
    // A verdict-only forall that found a violating outcome has not looked
    // for a satisfying one, which is the cell's question (docs/cli.md
    // "Verdict-only runs").
    const JsonNode* by = o.find("verdict_by");
    const JsonNode* cond = o.find("condition");
    const JsonNode* q =
        cond && cond->is(JsonNode::Type::Object) ? cond->find("quantifier") : nullptr;
    if (by && by->is(JsonNode::Type::String) && by->text() == "witness" && q &&
        q->is(JsonNode::Type::String) && (q->text() == "forall" || q->text() == "assert"))
      bad(file, o,
          "a verdict-only forall result (--verdict) does not say whether any outcome satisfies "
          "the condition's proposition: run the test without --verdict");
    r.verdict = obs->text() == "Never" ? CellVerdict::Forbidden : CellVerdict::Allowed;
  }
  return r;
}

}  // namespace

std::optional<VerdictKind> read_matrix_results(std::string_view text, const std::string& file,
                                               const std::function<void(MatrixRecord&&)>& emit) {
  std::optional<VerdictKind> kind;
  for_each_json_value(text, file, [&](JsonNode&& o) {
    if (!o.is(JsonNode::Type::Object) || (!o.find("pairs") && !o.find("observation")))
      bad(file, o,
          "not a result of `redscope run --format json|jsonl` or `redscope atomicity "
          "--format json` (an object per test with \"observation\" or \"pairs\")");
    const VerdictKind k = o.find("pairs") ? VerdictKind::Atomicity : VerdictKind::Condition;
    if (kind && *kind != k) bad(file, o, "results of `run` and of `atomicity` mixed in one file");
    kind = k;
    emit(record_of(file, o, k));
  });
  return kind;
}

}  // namespace redscope
