#include "redscope/report/report.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/core/json.hpp"
#include "redscope/results/outcome_store.hpp"

#include <array>
#include <unordered_map>

#include <fmt/format.h>

namespace redscope {

// Text in HTML and SVG (XML 1.0): & < > " as entities; bytes that are not
// UTF-8 as U+FFFD; C0 control characters other than tab, newline and
// carriage return, and DEL, as the text \xNN (XML 1.0 §2.2 "Char" admits
// none of them, even as a character reference); U+FFFE and U+FFFF, which
// XML excludes too, as U+FFFD. A result file's metadata reaches reports
// through here whatever bytes it holds (issue 43).
std::string html_escape(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\t':
      case '\n':
      case '\r': o += c; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          o += fmt::format("\\x{:02x}", static_cast<unsigned>(u));
        } else if (u == 0xef && s.compare(i + 1, 2, "\xbf\xbe") == 0) {
          o += "\xef\xbf\xbd";  // U+FFFE
          i += 2;
        } else if (u == 0xef && s.compare(i + 1, 2, "\xbf\xbf") == 0) {
          o += "\xef\xbf\xbd";  // U+FFFF
          i += 2;
        } else {
          o += c;
        }
    }
  }
  return o;
}

namespace {

std::string_view kind_word(Quantifier q) {
  switch (q) {
    case Quantifier::Exists:
    case Quantifier::Permit:
    case Quantifier::Check: return "Allowed";
    case Quantifier::NotExists: return "Forbidden";
    case Quantifier::Forall:
    case Quantifier::Assert: return "Required";
  }
  return "?";
}

// The status of executions that may end early is shown only when they do.
bool is_status(const Observable& o) { return o.is_register && o.reg.thread == kStatusThread; }

std::string values_line(const TestResult& r, const std::vector<std::uint64_t>& values) {
  if (auto st = r.status_of(values)) return *st;
  std::string s;
  for (std::size_t k = 0; k < r.observables.size(); ++k)
    if (!is_status(r.observables[k]))
      s += fmt::format("{}={}; ", r.observables[k].label,
                       format_value(values[k], r.observables[k].type));
  if (!s.empty()) s.pop_back();
  return s;
}

std::string state_line(const TestResult& r, std::size_t i) {
  return values_line(r, r.outcomes[i].values);
}

// A verdict-only run, as herd7 -speedcheck prints one: the deciding outcome
// as the only state ("States 0" when none exists), then the verdict, and
// the counts of deciding outcomes found (satisfying, violating).
std::string verdict_text(const TestResult& r) {
  const Outcome* w = r.verdict_witness ? &*r.verdict_witness : nullptr;
  std::string out = fmt::format("Test {} {}\n", r.test, kind_word(r.quantifier));
  out += fmt::format("States {}\n", w ? 1 : 0);
  if (w) out += fmt::format("{}{}\n", w->satisfies ? "*> " : "   ", values_line(r, w->values));
  out += r.holds ? "Ok\n" : "No\n";
  out += w ? fmt::format("Verdict witness ({})\n", r.engine)
           : fmt::format("Verdict proof: {} ({})\n", proof_words(r.verdict_by), r.engine);
  for (const std::string& f : r.flags) out += fmt::format("Flag {}\n", f);
  out += fmt::format("Condition {} {}\n", to_string(r.quantifier), r.condition_text);
  const int pos = w && w->satisfies ? 1 : 0, neg = w && !w->satisfies ? 1 : 0;
  out += fmt::format("Observation {} {} {} {}\n", r.test, to_string(r.observation), pos, neg);
  return out;
}

// What render_text writes after the outcomes, the verdict and the counts.
std::string text_tail(const TestResult& r) {
  std::string out;
  if (r.incomplete.total() > 0)
    out += fmt::format(
        "Incomplete {} (cut by unroll bound: {}, barrier never completes: {}): possible hang\n",
        r.incomplete.total(), r.incomplete.bound_cut, r.incomplete.barrier_deadlock);
  for (const std::string& n : r.notes) out += fmt::format("Note {}\n", n);
  out += fmt::format("Time {} {:.2f}\n\n", r.test, r.seconds);
  return out;
}

}  // namespace

std::string render_text(const TestResult& r) {
  if (r.error) {
    return render_failure_text(r.file, *r.error, r.error_kind);
  }
  if (r.listing) {
    std::string out;
    write_text(r, [&](std::string_view s) { out += s; });
    return out;
  }
  std::string out;
  if (r.verdict_only) {
    out = verdict_text(r);
  } else {
    out = fmt::format("Test {} {}\n", r.test, kind_word(r.quantifier));
    out += fmt::format("States {}\n", r.outcomes.size());
    for (std::size_t i = 0; i < r.outcomes.size(); ++i)
      out += fmt::format("{}{}\n", r.outcomes[i].satisfies ? "*> " : "   ", state_line(r, i));
    out += r.holds ? "Ok\n" : "No\n";
    const auto sat = static_cast<std::size_t>(std::count_if(
        r.outcomes.begin(), r.outcomes.end(), [](const Outcome& o) { return o.satisfies; }));
    for (const std::string& f : r.flags) out += fmt::format("Flag {}\n", f);
    out += fmt::format("Condition {} {}\n", to_string(r.quantifier), r.condition_text);
    out += fmt::format("Observation {} {} {} {}\n", r.test, to_string(r.observation), sat,
                       r.outcomes.size() - sat);
  }
  return out + text_tail(r);
}

Json json_test_head(const std::string& test, const std::string& file, bool parsed, ModelRef model,
                    std::optional<int> target_sm) {
  Json o = Json::object();
  o.set("test", parsed || !test.empty() ? Json(test) : Json()).set("file", file);
  o.set("model", parsed ? Json(to_string(model)) : Json());
  // A dialect's own model may not run on an NVIDIA GPU (PTO programs run on
  // an Ascend vector core): then no sm_NN applies.
  const bool nvidia = parsed && model->nvidia_target;
  if (target_sm) o.set("target", nvidia ? Json(fmt::format("sm_{}", *target_sm)) : Json());
  return o;
}

Json& set_json_metadata(Json& o, const std::map<std::string, std::string>& metadata) {
  if (metadata.empty()) return o;
  Json m = Json::object();
  for (const auto& [key, value] : metadata) m.set(key, value);
  return o.set("metadata", std::move(m));
}

// A CUDA test's threads: the C++ body as written and nvcc's PTX of it.
void set_json_compiled(Json& o, const LitmusTest& t) {
  Json threads = Json::array();
  for (const ThreadCode& tc : t.threads)
    if (!tc.compiled.empty())
      threads.push(Json::object()
                       .set("thread", tc.name)
                       .set("source", tc.source_text)
                       .set("ptx", tc.compiled));
  if (!t.threads.empty() && !t.threads.front().compiled.empty()) o.set("compiled", threads);
}

Json& set_json_error(Json& o, const std::optional<std::string>& error, const std::string& kind) {
  if (!error) return o.set("error", Json()).set("error_kind", Json());
  return o.set("error", *error).set("error_kind", kind.empty() ? "input" : kind);
}

namespace {

Json json_values(const TestResult& r, const std::vector<std::uint64_t>& vals) {
  Json values = Json::object();
  if (auto st = r.status_of(vals)) {
    const bool trap = *st == "trap";
    values.set("status", trap ? "trap" : "undefined");
    if (!trap) values.set("reason", st->substr(std::string("undefined: ").size()));
  } else {
    for (std::size_t k = 0; k < r.observables.size(); ++k)
      if (!is_status(r.observables[k]))
        values.set(r.observables[k].label, format_value(vals[k], r.observables[k].type));
  }
  return values;
}

Json json_witness(const Witness& w) {
  Json wj =
      Json::object().set("rf", Json::strings(w.rf.texts())).set("co", Json::strings(w.co.texts()));
  if (!w.choices.empty()) wj.set("choices", Json::strings(w.choices));
  return wj;
}

// A verdict-only run (docs/cli.md "Verdict-only runs"): no "outcomes" nor
// "witnesses"; "verdict_by" is "witness" (then "witness" holds its values,
// whether they satisfy the proposition, and its execution) or "proof" (then
// "proof" says how: "one solver query per path", "enumeration exhausted",
// "every outcome listed").
void set_json_verdict(Json& o, const TestResult& r) {
  o.set("verdict_only", true).set("verdict_by", verdict_by_word(r.verdict_by));
  if (!r.verdict_witness) {
    o.set("proof", proof_words(r.verdict_by)).set("witness", Json());
    return;
  }
  const Outcome& w = *r.verdict_witness;
  o.set("proof", Json());
  o.set("witness", json_witness(w.witness)
                       .set("values", json_values(r, w.values))
                       .set("satisfies", w.satisfies));
}

// Where a listing's two arrays go in its object's text: control characters,
// which the writer escapes in every string, so they occur nowhere else.
constexpr std::string_view kOutcomesMark = "\x01outcomes\x01";
constexpr std::string_view kWitnessesMark = "\x01witnesses\x01";

Json one_json(const TestResult& r) {
  Json o = json_test_head(r.test, r.file, r.parsed, r.model, r.target_sm);
  if (!r.model_file.empty()) o.set("model", r.model_file);  // replaces the built-in model's name
  if (r.source) set_json_metadata(o, r.source->metadata);
  if (r.source) set_json_compiled(o, *r.source);
  o.set("engine", r.engine.empty() ? Json() : Json(r.engine));
  o.set("engine_reason", r.engine_reason.empty() ? Json() : Json(r.engine_reason));
  if (r.error) {
    o.set("condition", Json()).set("observation", Json());
    o.set("outcomes", Json::array()).set("witnesses", Json::array());
    o.set("incomplete_paths", 0);
    o.set("seconds", Json::number(r.seconds, 4));
    return set_json_error(o, r.error, r.error_kind);
  }
  o.set("condition", Json::object()
                         .set("quantifier", to_string(r.quantifier))
                         .set("text", r.condition_text)
                         .set("holds", r.holds));
  o.set("observation", to_string(r.observation));
  if (r.verdict_only) {
    set_json_verdict(o, r);
  } else if (r.listing) {  // written in their place, outcome by outcome (write_json)
    o.set("outcomes", Json::raw(std::string(kOutcomesMark)))
        .set("witnesses", Json::raw(std::string(kWitnessesMark)));
  } else {
    Json outcomes = Json::array(), witnesses = Json::array();
    for (const Outcome& out : r.outcomes) {
      outcomes.push(json_values(r, out.values));
      witnesses.push(json_witness(out.witness));
    }
    o.set("outcomes", std::move(outcomes)).set("witnesses", std::move(witnesses));
  }
  o.set("incomplete_paths", r.incomplete.total());
  o.set("incomplete", Json::object()
                          .set("unroll_bound", r.incomplete.bound_cut)
                          .set("barrier_deadlock", r.incomplete.barrier_deadlock));
  if (!r.notes.empty()) o.set("notes", Json::strings(r.notes));
  if (!r.flags.empty()) o.set("flags", Json::strings(r.flags));
  o.set("seconds", Json::number(r.seconds, 4));
  return set_json_error(o, r.error, r.error_kind);
}

}  // namespace

namespace {
// A listing result written whole (render_json_item, render_json_line).
std::string gathered(const TestResult& r, void (*write)(const TestResult&, const TextSink&)) {
  std::string out;
  write(r, [&](std::string_view s) { out += s; });
  return out;
}
}  // namespace

std::string render_json_item(const TestResult& r) {
  if (r.listing && !r.error) return gathered(r, write_json_item);
  return "  " + one_json(r).dump(Json::Layout::Nested, 1);
}

std::string render_json_line(const TestResult& r) {
  if (r.listing && !r.error) return gathered(r, write_json_line);
  return one_json(r).dump(Json::Layout::Line) + "\n";
}

// ---- a listing, outcome by outcome -------------------------------------------

namespace {

// Output gathered into blocks of about a megabyte, each handed on.
class Blocks {
 public:
  explicit Blocks(const TextSink& out) : out_(out) { buf_.reserve(kBlock + 4096); }
  std::string& buf() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= kBlock) flush();
  }
  void flush() {
    if (!buf_.empty()) out_(buf_);
    buf_.clear();
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  const TextSink& out_;
  std::string buf_;
};

// A value as format_value writes it; integers without a string each.
void append_value(std::string& out, std::uint64_t v, DataType t) {
  if (is_packed(t) || float_format(t)) {
    out += format_value(v, t);
    return;
  }
  const unsigned w = width_of(t);
  v &= w == 64 ? ~0ULL : ((1ULL << w) - 1);
  if (v < 10 && !is_signed(t)) {  // most litmus values
    out += static_cast<char>('0' + v);
    return;
  }
  const fmt::format_int text =
      !is_signed(t) ? fmt::format_int(v)
      : w == 64     ? fmt::format_int(static_cast<std::int64_t>(v))
                    : fmt::format_int(static_cast<std::int64_t>(v << (64 - w)) >> (64 - w));
  out.append(text.data(), text.size());
}

// An array of `n` elements as Json::write lays it out at `depth`.
template <class Element>
void write_array(Blocks& b, bool nested, int depth, std::size_t n, Element each) {
  if (n == 0) {
    b.buf() += "[]";
    return;
  }
  const bool spread = nested && depth < 3;  // json.cpp: kInlineDepth
  const std::string indent(static_cast<std::size_t>(2 * (depth + 1)), ' ');
  b.buf() += '[';
  std::size_t i = 0;
  each([&] {
    if (i) b.buf() += ',';
    if (spread)
      b.buf() += '\n' + indent;
    else if (i)
      b.buf() += ' ';
    ++i;
  });
  if (spread) b.buf() += '\n' + std::string(static_cast<std::size_t>(2 * depth), ' ');
  b.buf() += ']';
}

// The outcomes and witnesses of a listing in its object's text (one_json's
// marks), `nested` at depth 1 (an element of run's array) or on one line.
void write_json(const TestResult& r, bool nested, const TextSink& sink) {
  const OutcomeStore& l = *r.listing;
  const std::string head = nested ? "  " + one_json(r).dump(Json::Layout::Nested, 1)
                                  : one_json(r).dump(Json::Layout::Line) + "\n";
  const std::size_t o = head.find(kOutcomesMark), w = head.find(kWitnessesMark);
  Blocks b(sink);
  b.buf().append(head, 0, o);
  std::vector<std::string> keys;
  for (const Observable& ob : r.observables) keys.push_back(json_quoted(ob.label) + ": ");
  const int depth = nested ? 2 : 1;
  write_array(b, nested, depth, l.size(), [&](const auto& separate) {
    l.for_each([&](const OutcomeStore::Entry& e) {
      separate();
      std::string& s = b.buf();
      s += '{';
      for (std::size_t k = 0; k < keys.size(); ++k) {
        if (is_status(r.observables[k])) continue;
        if (s.back() != '{') s += ", ";
        s += keys[k];
        s += '"';
        if (is_packed(r.observables[k].type) || float_format(r.observables[k].type))
          s += json_escape(format_value(e.values[k], r.observables[k].type));
        else
          append_value(s, e.values[k], r.observables[k].type);
        s += '"';
      }
      s += '}';
      b.maybe_flush();
    });
  });
  b.buf().append(head, o + kOutcomesMark.size(), w - o - kOutcomesMark.size());
  std::unordered_map<std::uint64_t, std::string> texts;  // quoted edge texts
  auto edges = [&](std::uint32_t sk, std::span<const EdgeCode> es) {
    std::string& s = b.buf();
    s += '[';
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i) s += ", ";
      const std::uint64_t key =
          (std::uint64_t{sk} << 40) | (std::uint64_t{es[i].from} << 20) | es[i].to;
      auto [it, fresh] = texts.try_emplace(key);
      if (fresh) it->second = json_quoted(l.edge_text(sk, es[i]));
      s += it->second;
    }
    s += ']';
  };
  write_array(b, nested, depth, l.size(), [&](const auto& separate) {
    l.for_each([&](const OutcomeStore::Entry& e) {
      separate();
      b.buf() += "{\"rf\": ";
      edges(e.skeleton, e.rf);
      b.buf() += ", \"co\": ";
      edges(e.skeleton, e.co);
      b.buf() += '}';
      b.maybe_flush();
    });
  });
  b.buf().append(head, w + kWitnessesMark.size());
  b.flush();
}

}  // namespace

void write_text(const TestResult& r, const TextSink& sink) {
  if (!r.listing || r.error) {
    sink(render_text(r));
    return;
  }
  const OutcomeStore& l = *r.listing;
  Blocks b(sink);
  b.buf() += fmt::format("Test {} {}\nStates {}\n", r.test, kind_word(r.quantifier), l.size());
  // "P0:r0=", and "P0:r0=V; " made once for the values 0 to 9.
  std::vector<std::string> prefix;
  std::vector<std::array<std::string, 10>> small(r.observables.size());
  for (std::size_t k = 0; k < r.observables.size(); ++k) {
    const Observable& o = r.observables[k];
    prefix.push_back(o.label + "=");
    for (std::uint64_t v = 0; v < 10; ++v) {
      small[k][v] = prefix[k];
      append_value(small[k][v], v, o.type);
      small[k][v] += "; ";
    }
  }
  l.for_each([&](const OutcomeStore::Entry& e) {
    std::string& s = b.buf();
    s += e.satisfies ? "*> " : "   ";
    const std::size_t start = s.size();
    for (std::size_t k = 0; k < prefix.size(); ++k) {
      if (is_status(r.observables[k])) continue;
      if (e.values[k] < 10) {
        s += small[k][e.values[k]];
        continue;
      }
      s += prefix[k];
      append_value(s, e.values[k], r.observables[k].type);
      s += "; ";
    }
    if (s.size() > start) s.pop_back();
    s += '\n';
    b.maybe_flush();
  });
  std::string& s = b.buf();
  s += r.holds ? "Ok\n" : "No\n";
  for (const std::string& f : r.flags) s += fmt::format("Flag {}\n", f);
  s += fmt::format("Condition {} {}\n", to_string(r.quantifier), r.condition_text);
  s += fmt::format("Observation {} {} {} {}\n", r.test, to_string(r.observation), l.satisfying(),
                   l.size() - l.satisfying());
  s += text_tail(r);
  b.flush();
}

void write_json_item(const TestResult& r, const TextSink& sink) {
  if (!r.listing || r.error) {
    sink(render_json_item(r));
    return;
  }
  write_json(r, true, sink);
}

void write_json_line(const TestResult& r, const TextSink& sink) {
  if (!r.listing || r.error) {
    sink(render_json_line(r));
    return;
  }
  write_json(r, false, sink);
}

std::string render_json(const std::vector<TestResult>& results) {
  std::string o = "[";
  for (std::size_t i = 0; i < results.size(); ++i)
    o += (i ? ",\n" : "\n") + render_json_item(results[i]);
  return o + (results.empty() ? "]\n" : "\n]\n");
}

}  // namespace redscope
