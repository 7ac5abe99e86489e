// Reading a request of the JSON API (request.hpp): one JSON type and the
// CLI's range per member and option, located refusals, bounded texts.
#include "wasm/request.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/input.hpp"
#include "redscope/engine/z3/z3.hpp"

namespace redscope::wasm {

namespace {

using Type = JsonNode::Type;

[[noreturn]] void fail(const JsonNode& at, const std::string& message) {
  throw InputError(Diagnostic{"request", {at.line(), at.col()}, message});
}

// A string as a message shows it: quoted, its first 40 bytes.
std::string in_quotes(std::string_view s) {
  return fmt::format("\"{}{}\"", s.substr(0, 40), s.size() > 40 ? "..." : "");
}

// A value as a message shows it: a string quoted, a number as written, a
// container by its kind.
std::string shown(const JsonNode& n) {
  switch (n.type()) {
    case Type::String: return in_quotes(n.text());
    case Type::Array: return "an array";
    case Type::Object: return "an object";
    case Type::Null: return "null";
    default: return n.text();  // a number's literal, true or false
  }
}

// Each member of the object `o`, in order; a name given twice is refused
// (a JSON reader would otherwise keep one of the two silently).
void each_member(const JsonNode& o, std::string_view what,
                 const std::function<void(const std::string&, const JsonNode&)>& fn) {
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < o.keys().size(); ++i) {
    if (!seen.insert(o.keys()[i]).second)
      fail(o.values()[i], fmt::format("{}{} is given twice", what, in_quotes(o.keys()[i])));
    fn(o.keys()[i], o.values()[i]);
  }
}

// "a, b or c", each quoted when `quote`.
std::string listed(std::span<const std::string_view> names, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    out += quote ? fmt::format("\"{}\"", names[i]) : std::string(names[i]);
  }
  return out;
}

bool among(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The request's own members.
constexpr std::string_view kMembers[] = {"command",    "test",       "file",   "model",
                                         "model_text", "model_file", "options"};

// Each command, the options it takes (as the CLI's commands take their
// flags: src/cli/main.cpp) and the engines its option `engine` may name.
constexpr std::string_view kRunOptions[] = {"engine", "max_outcomes", "observe_all",   "timeout_ms",
                                            "unroll", "verdict",      "max_file_size", "format"};
constexpr std::string_view kDotOptions[] = {"outcome",    "witness",      "row",
                                            "engine",     "max_outcomes", "observe_all",
                                            "timeout_ms", "unroll",       "max_file_size"};
constexpr std::string_view kExecutionsOptions[] = {
    "outcome", "row", "limit", "observe_all", "timeout_ms", "unroll", "max_file_size"};
constexpr std::string_view kExplainOptions[] = {"outcome",    "condition", "row",          "engine",
                                                "timeout_ms", "unroll",    "max_file_size"};
constexpr std::string_view kAtomicityOptions[] = {"row",        "engine", "verdict",
                                                  "timeout_ms", "unroll", "max_file_size"};
constexpr std::string_view kModelOptions[] = {"max_file_size"};
constexpr std::string_view kEngines[] = {"auto", "z3", "enum", "op"};  // the CLI's --engine

struct CommandSpec {
  std::string_view command;
  std::span<const std::string_view> options, engines;
};
constexpr CommandSpec kCommands[] = {
    {"run", kRunOptions, kEngines},
    {"dot", kDotOptions, kEngines},
    {"executions", kExecutionsOptions, {}},
    {"explain", kExplainOptions, std::span(kEngines).first(2)},      // auto, z3
    {"atomicity", kAtomicityOptions, std::span(kEngines).first(3)},  // not op
    {"check_model", kModelOptions, {}},
    {"models", {}, {}},
    {"version", {}, {}},
};

std::string command_names() {
  std::vector<std::string_view> names;
  for (const CommandSpec& c : kCommands) names.push_back(c.command);
  return listed(names, false);
}

const CommandSpec& spec_of(const JsonNode& root) {
  const JsonNode* c = root.find("command");
  if (!c) fail(root, fmt::format("a request needs \"command\" ({})", command_names()));
  if (!c->is(Type::String))
    fail(*c, fmt::format("\"command\" takes a string ({}), not {}", command_names(), shown(*c)));
  for (const CommandSpec& s : kCommands)
    if (s.command == c->text()) return s;
  fail(*c, fmt::format("unknown command {} ({})", shown(*c), command_names()));
}

bool flag(const std::string& key, const JsonNode& v) {
  if (!v.is(Type::Bool))
    fail(v, fmt::format("options.{} takes true or false, not {}", key, shown(v)));
  return v.truthy();
}

long long whole(const std::string& key, const JsonNode& v, long long lo, long long hi,
                std::string_view note = "") {
  const std::optional<long long> x = v.whole(lo, hi);
  if (!x)
    fail(v, fmt::format("options.{} takes a whole number from {} to {}{}, not {}", key, lo, hi,
                        note, shown(v)));
  return *x;
}

EngineKind engine_of(const CommandSpec& spec, const JsonNode& v) {
  if (!v.is(Type::String) || !among(spec.engines, v.text()))
    fail(v, fmt::format("options.engine takes {}, not {}", listed(spec.engines, true), shown(v)));
  if (v.text() == "z3" && !z3_available()) fail(v, no_z3_message("options.engine \"z3\""));
  return v.text() == "z3"     ? EngineKind::Z3
         : v.text() == "enum" ? EngineKind::Enum
         : v.text() == "op"   ? EngineKind::Op
                              : EngineKind::Auto;
}

// dot's witness: {"rf": [...], "co": [...]}, as run's JSON lists an
// outcome's witness (edges "A -> B" between witness labels).
const JsonNode& witness_of(const JsonNode& v) {
  const auto texts = [](const JsonNode* a) {
    return a && a->is(Type::Array) &&
           std::all_of(a->elements().begin(), a->elements().end(),
                       [](const JsonNode& x) { return x.is(Type::String); });
  };
  if (!v.is(Type::Object) || !texts(v.find("rf")) || !texts(v.find("co")))
    fail(v, fmt::format("options.witness takes an object {{\"rf\": [...], \"co\": [...]}} of "
                        "edge texts, as run's JSON lists a witness, not {}",
                        shown(v)));
  return v;
}

// dot's outcome: the values of one outcome, as run's JSON lists them.
const JsonNode& outcome_of(const CommandSpec& spec, const JsonNode& v) {
  if (spec.command == "explain") {
    if (!v.is(Type::String))
      fail(v, fmt::format("options.outcome takes a string (\"P0:r0=1; x=2\"), not {}", shown(v)));
    return v;
  }
  if (!v.is(Type::Object))
    fail(v, fmt::format("options.outcome takes an object of the outcome's values, as run's JSON "
                        "lists them ({{\"P0:r0\": \"1\"}}), not {}",
                        shown(v)));
  each_member(v, "options.outcome: ", [](const std::string& k, const JsonNode& x) {
    if (!x.is(Type::String))
      fail(x, fmt::format("options.outcome's {} takes a string (a value as run's JSON writes "
                          "it: \"1\"), not {}",
                          in_quotes(k), shown(x)));
  });
  return v;
}

void option(Request& q, const CommandSpec& spec, const std::string& key, const JsonNode& v) {
  if (!among(spec.options, key))
    fail(v, spec.options.empty()
                ? fmt::format("{} takes no option, not {}", spec.command, in_quotes(key))
                : fmt::format("{} takes no option {} (its options: {})", spec.command,
                              in_quotes(key), listed(spec.options, false)));
  if (key == "engine") q.engine = engine_of(spec, v);
  if (key == "observe_all") q.observe_all = flag(key, v);
  if (key == "verdict") q.verdict = flag(key, v);
  if (key == "condition") q.condition = flag(key, v);
  if (key == "format") {  // run: the CLI's --format json (default) or text (herd7's)
    if (!v.is(Type::String) || (v.text() != "json" && v.text() != "text"))
      fail(v, fmt::format("options.format takes \"json\" or \"text\", not {}", shown(v)));
    q.text = v.text() == "text";
  }
  if (key == "outcome") q.outcome = &outcome_of(spec, v);
  if (key == "witness") q.witness = &witness_of(v);
  if (key == "max_outcomes") {
    const long long n = whole(key, v, 0, kMaxOutcomesLimit, " (0: no limit)");
    q.max_outcomes = n == 0 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(n);
  }
  if (key == "limit")  // executions: at most this many
    q.limit = static_cast<std::size_t>(whole(key, v, 1, kMaxExecutions));
  if (key == "timeout_ms")
    q.seconds = static_cast<double>(whole(key, v, 0, kMaxTimeoutMs, " (0: none)")) / 1000;
  if (key == "unroll") q.unroll = static_cast<int>(whole(key, v, 0, kMaxUnroll));
  if (key == "max_file_size")
    q.max_file_bytes = static_cast<std::uint64_t>(whole(key, v, cli::kMaxFileSizeMinMb,
                                                        cli::kMaxFileSizeMaxMb, " (MiB)")) *
                       kMiB;
  if (key == "row") {
    if (!v.whole(0, std::numeric_limits<long long>::max()))
      fail(v, fmt::format("options.row takes a test's index, a whole number from 0, not {}",
                          shown(v)));
    q.row = &v;
  }
}

// The options every command needs one of (explain: exactly one).
void check_needed(const Request& q, const CommandSpec& spec, const JsonNode& at) {
  if ((spec.command == "dot" && !q.outcome && !q.witness) ||
      (spec.command == "executions" && !q.outcome))
    fail(at, fmt::format("{} needs options.outcome: the values of the outcome to draw, as run's "
                         "JSON lists them",
                         spec.command));
  if (spec.command == "explain" && (q.outcome != nullptr) == q.condition)
    fail(at,
         "explain needs exactly one of options.outcome (\"P0:r0=1; x=2\") and "
         "options.condition: true");
}

// A name for files in messages: a string, not empty.
std::string name_of(const std::string& key, const JsonNode& v) {
  if (!v.is(Type::String) || v.text().empty())
    fail(v, fmt::format("\"{}\" takes a file name (a non-empty string), not {}", key, shown(v)));
  return v.text();
}

std::string text_of(const std::string& key, const JsonNode& v, std::string_view what) {
  if (!v.is(Type::String))
    fail(v, fmt::format("\"{}\" takes a string ({}), not {}", key, what, shown(v)));
  return v.text();
}

// "model": a built-in cat model by name or file (a dialect's own semantics
// has no file and is not named here: the test chooses it).
ModelRef builtin_model(const JsonNode& v) {
  const std::string name = text_of("model", v, "a built-in model's name or file");
  std::string names;
  for (const BuiltinModel& m : kBuiltinModels) {
    if (m.file.empty()) continue;
    if (m.file == name || m.name == name) return &m;
    names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", m.name, m.file);
  }
  fail(v, fmt::format("\"model\" takes a built-in model by name or file: {}; not {}", names,
                      shown(v)));
}

void member(Request& q, const std::string& key, const JsonNode& v) {
  if (!among(kMembers, key))
    fail(v, fmt::format("a request has no member {} (its members: {})", in_quotes(key),
                        listed(kMembers, false)));
  if (key == "command" || v.is(Type::Null)) return;  // spec_of read it; null: left out
  if (key == "test") q.test = text_of(key, v, "the test's text");
  if (key == "file") q.file = name_of(key, v);
  if (key == "model") q.model = builtin_model(v);
  if (key == "model_text") q.model_text = text_of(key, v, "a cat model's text");
  if (key == "model_file") q.model_file = name_of(key, v);
  if (key == "options" && !v.is(Type::Object))
    fail(v, fmt::format("\"options\" takes an object, not {}", shown(v)));
}

// A text is bounded as the CLI bounds a file (read_input, --max-file-size).
void check_text(const Request& q, const JsonNode& root, std::string_view key) {
  const JsonNode* v = root.find(key);
  if (v && v->is(Type::String) && v->text().size() > q.max_file_bytes)
    fail(*v, fmt::format("\"{}\" of {} bytes is over the {}-byte input limit "
                         "(options.max_file_size: {} MiB, from {} to {})",
                         key, v->text().size(), q.max_file_bytes, q.max_file_bytes / kMiB,
                         cli::kMaxFileSizeMinMb, cli::kMaxFileSizeMaxMb));
}

}  // namespace

Request read_request(const JsonNode& root, std::size_t size) {
  if (!root.is(Type::Object))
    fail(root, fmt::format("a request is a JSON object, not {}", shown(root)));
  const CommandSpec& spec = spec_of(root);
  Request q;
  each_member(root, "", [&](const std::string& k, const JsonNode& v) { member(q, k, v); });
  q.command = spec.command;
  if (q.model && q.model_text)
    fail(*root.find("model_text"), "give either \"model\" or \"model_text\", not both");
  const JsonNode* options = root.find("options");
  if (options && options->is(Type::Object))
    each_member(*options, "options.",
                [&](const std::string& k, const JsonNode& v) { option(q, spec, k, v); });
  check_needed(q, spec, options && options->is(Type::Object) ? *options : root);
  check_text(q, root, "test");
  check_text(q, root, "model_text");
  if (size > request_bound(q.max_file_bytes))
    fail(root, fmt::format("a request of {} bytes is over its {}-byte limit (twice "
                           "options.max_file_size, {} MiB, and 1 MiB)",
                           size, request_bound(q.max_file_bytes), q.max_file_bytes / kMiB));
  // As the CLI reads a file (read_input's checks): no byte-order mark, no NUL.
  check_input_text(q.file, q.test, "litmus file");
  if (q.model_text) check_input_text(q.model_file, *q.model_text, "cat model");
  return q;
}

}  // namespace redscope::wasm
