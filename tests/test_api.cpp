// The playground's JSON API (src/wasm/api.cpp, natively redscope-call;
// docs/playground.md "The module's JSON API"), issue 43 item 12: every
// member and option is checked as the CLI checks its flag (one JSON type,
// the same range, 0 meaning what it means there), a refusal is located at
// the offending value, and the request is bounded as the CLI bounds a file.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include <sys/mman.h>

#include <fmt/format.h>

#include "cpu_clock.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/json.hpp"
#include "wasm/api.hpp"
#include "wasm/request.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_api {

using namespace redscope;

namespace {

constexpr std::string_view kMp =
    "PTX MP\n{ x=0; y=0; }\n"
    " P0@cta 0,gpu 0       | P1@cta 1,gpu 0        ;\n"
    " st.weak x, 1         | ld.acquire.gpu r0, y  ;\n"
    " st.release.gpu y, 1  | ld.weak r1, x         ;\n"
    "exists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

// A request for MP with `rest` after the test (more members), as one line.
std::string mp_request(std::string_view command, std::string_view rest) {
  return fmt::format(R"({{"command": "{}", "test": "{}", "file": "MP.litmus"{}}})", command,
                     json_escape(kMp), rest);
}

// The answer's error text ("FILE:LINE:COL: error: MESSAGE"), or "" for none.
std::string error_of(std::string_view request) {
  const JsonNode a = parse_json(wasm::call(request), "answer");
  // A run's object has "error": null; an answer that is an error, an object.
  const JsonNode* e = a.is(JsonNode::Type::Object) ? a.find("error") : nullptr;
  return e && e->is(JsonNode::Type::Object) ? e->find("text")->text() : "";
}

// The error text of MP's run with `options` (an object's JSON).
std::string run_error(std::string_view options) {
  return error_of(mp_request("run", fmt::format(R"(, "options": {})", options)));
}

// Where `needle` starts in run_error's request for `options`: the column a
// located refusal names ("request:1:COL: error: ...").
std::string at(std::string_view options, std::string_view needle) {
  const std::string q = mp_request("run", fmt::format(R"(, "options": {})", options));
  return fmt::format("request:1:{}: error: ", q.find(needle) + 1);
}

}  // namespace

TEST_CASE("JSON API: numbers are whole, in the CLI's range, read exactly", "[api]") {
  // timeout_ms 1e13 overflowed the deadline and timed out at once; 1e400
  // answered {"message": "stod"}, unlocated.
  CHECK(run_error(R"({"timeout_ms": 1e13})") ==
        at(R"({"timeout_ms": 1e13})", "1e13") +
            "options.timeout_ms takes a whole number from 0 to 86400000 (0: none), not 1e13");
  CHECK(run_error(R"({"timeout_ms": 1e400})") ==
        at(R"({"timeout_ms": 1e400})", "1e400") +
            "options.timeout_ms takes a whole number from 0 to 86400000 (0: none), not 1e400");
  CHECK(run_error(R"({"timeout_ms": 2.5})").find("options.timeout_ms takes a whole number") !=
        std::string::npos);
  // 1e30 and 2e19 became 0 through an undefined cast, and -1 passed.
  for (const char* bad : {"1e30", "2e19", "-1", "1.5", "100000001", "-0.5"}) {
    const std::string o = fmt::format(R"({{"max_outcomes": {}}})", bad);
    CHECK(run_error(o) == at(o, bad) +
                              "options.max_outcomes takes a whole number from 0 to 100000000 "
                              "(0: no limit), not " +
                              bad);
  }
  for (const char* bad : {"65", "-1", "2.5"})
    CHECK(run_error(fmt::format(R"({{"unroll": {}}})", bad))
              .find("options.unroll takes a whole number from 0 to 64, not") != std::string::npos);
  CHECK(run_error(R"({"max_file_size": 0})")
            .find("options.max_file_size takes a whole number from 1 to 4096 (MiB), not 0") !=
        std::string::npos);
}

TEST_CASE("JSON API: 0 means what it means on the CLI; whole literals pass", "[api]") {
  // max_outcomes 0 failed every test ("beyond 0 outcomes"); the CLI's 0 is no limit.
  const std::string ok = wasm::call(mp_request("run", R"(, "options": {"max_outcomes": 0})"));
  CHECK(ok.find("\"error\": null") != std::string::npos);
  CHECK(ok.find("{\"P1:r0\": \"1\", \"P1:r1\": \"1\"}") != std::string::npos);
  // 1e3 and 4.0 are whole numbers; timeout_ms 0 is no deadline.
  CHECK(run_error(R"({"max_outcomes": 1e3, "timeout_ms": 0, "unroll": 4.0})").empty());
  CHECK(run_error(R"({"max_outcomes": 100000000, "timeout_ms": 86400000, "unroll": 64,
                      "max_file_size": 4096, "engine": "enum", "observe_all": true,
                      "verdict": false})")
            .empty());
  // A limit the test passes is still the CLI's error.
  CHECK(run_error(R"({"max_outcomes": 1, "engine": "enum"})").find("outcomes") !=
        std::string::npos);
}

TEST_CASE("JSON API: a value of the wrong type is refused where it stands", "[api]") {
  // These were silently ignored.
  CHECK(run_error(R"({"max_outcomes": "1"})") ==
        at(R"({"max_outcomes": "1"})", "\"1\"") +
            "options.max_outcomes takes a whole number from 0 to 100000000 (0: no limit), not "
            "\"1\"");
  CHECK(run_error(R"({"verdict": "yes"})") ==
        at(R"({"verdict": "yes"})", "\"yes\"") +
            "options.verdict takes true or false, not \"yes\"");
  CHECK(run_error("5") == at("5", "5}") + "\"options\" takes an object, not 5");
  CHECK(run_error(R"({"observe_all": 1})").find("options.observe_all takes true or false, not 1") !=
        std::string::npos);
  CHECK(run_error(R"({"engine": 5})")
            .find(R"(options.engine takes "auto", "z3", "enum" or "op", not 5)") !=
        std::string::npos);
  CHECK(run_error(R"({"engine": "fast"})").find(R"(not "fast")") != std::string::npos);
  CHECK(error_of(R"({"command": "run", "test": 5})") ==
        "request:1:28: error: \"test\" takes a string (the test's text), not 5");
  CHECK(error_of(R"({"command": 1})") ==
        "request:1:13: error: \"command\" takes a string (run, dot, executions, explain, "
        "atomicity, check_model, models or version), not 1");
  CHECK(error_of(R"({"command": "walk"})").find("unknown command \"walk\"") != std::string::npos);
  CHECK(error_of(R"({"test": "x"})").find("a request needs \"command\"") != std::string::npos);
  CHECK(error_of("[1]") == "request:1:1: error: a request is a JSON object, not an array");
  CHECK(error_of(R"({"command": "run", "file": ""})").find("\"file\" takes a file name") !=
        std::string::npos);
  CHECK(error_of(R"({"command": "run", "model": "nope"})")
            .find("\"model\" takes a built-in model by name or file: ptx (ptx.cat)") !=
        std::string::npos);
  CHECK(error_of(R"({"command": "run", "model": "ptx", "model_text": ""})")
            .find("give either \"model\" or \"model_text\", not both") != std::string::npos);
  // null leaves an optional member out, as the page sends it.
  CHECK(error_of(mp_request("run", R"(, "model": null, "model_text": null, "options": null)"))
            .empty());
}

TEST_CASE("JSON API: unknown members, options a command does not take, repeats", "[api]") {
  const std::string typo = mp_request("run", R"(, "optoins": {})");
  CHECK(error_of(typo) ==
        fmt::format("request:1:{}: error: a request has no member \"optoins\" (its members: "
                    "command, test, file, model, model_text, model_file or options)",
                    typo.rfind("{}") + 1));
  CHECK(run_error(R"({"max_outcome": 5})") ==
        at(R"({"max_outcome": 5})", "5}") +
            "run takes no option \"max_outcome\" (its options: engine, max_outcomes, "
            "observe_all, timeout_ms, unroll, verdict, max_file_size or format)");
  CHECK(run_error(R"({"row": 0})").find("run takes no option \"row\"") != std::string::npos);
  CHECK(error_of(R"({"command": "models", "options": {"verdict": true}})")
            .find("models takes no option, not \"verdict\"") != std::string::npos);
  CHECK(error_of(mp_request("atomicity", R"(, "options": {"engine": "op"})"))
            .find(R"(options.engine takes "auto", "z3" or "enum", not "op")") != std::string::npos);
  CHECK(run_error(R"({"verdict": true, "verdict": "x"})")
            .find("options.\"verdict\" is given twice") != std::string::npos);
  CHECK(error_of(R"({"command": "run", "command": "run"})") ==
        "request:1:31: error: \"command\" is given twice");
}

TEST_CASE("JSON API: what a command needs, and its row", "[api]") {
  CHECK(error_of(mp_request("explain", "")).find("explain needs exactly one of options.outcome") !=
        std::string::npos);
  CHECK(error_of(mp_request("explain", R"(, "options": {"outcome": "P1:r0=1", "condition": true})"))
            .find("explain needs exactly one") != std::string::npos);
  CHECK(error_of(mp_request("explain", R"(, "options": {"outcome": {}})"))
            .find("options.outcome takes a string") != std::string::npos);
  CHECK(error_of(mp_request("explain", R"(, "options": {"condition": true})")).empty());
  CHECK(error_of(mp_request("dot", "")).find("dot needs options.outcome") != std::string::npos);
  CHECK(error_of(mp_request("executions", "")).find("executions needs options.outcome") !=
        std::string::npos);
  CHECK(error_of(mp_request("dot", R"(, "options": {"witness": {"rf": [1], "co": []}})"))
            .find("options.witness takes an object") != std::string::npos);
  CHECK(error_of(mp_request("run", R"(, "options": {"format": "xml"})"))
            .find(R"(options.format takes "json" or "text", not "xml")") != std::string::npos);
  CHECK(error_of(mp_request("dot", R"(, "options": {"outcome": {"P1:r0": 1}})"))
            .find("options.outcome's \"P1:r0\" takes a string") != std::string::npos);
  CHECK(error_of(mp_request("atomicity", R"(, "options": {"row": "0"})"))
            .find("options.row takes a test's index, a whole number from 0, not \"0\"") !=
        std::string::npos);
  CHECK(error_of(mp_request("atomicity", R"(, "options": {"row": 1})"))
            .find("options.row takes a test's index, from 0 to 0 (the file holds 1 test), not 1") !=
        std::string::npos);
  CHECK(
      error_of(mp_request("atomicity", R"(, "options": {"row": 0, "timeout_ms": 60000})")).empty());
}

TEST_CASE("JSON API: the request is bounded as the CLI bounds a file", "[api]") {
  const std::size_t mib = std::size_t{1} << 20;
  // A test one byte over 16 MiB (it ran before: 200 MiB did), then the same
  // with max_file_size 17: past the bound, the test is read.
  const std::string big = std::string(kMp) + std::string(16 * mib + 1 - kMp.size(), ' ');
  const std::string q =
      fmt::format(R"({{"command": "run", "test": "{}", "file": "MP.litmus"}})", json_escape(big));
  CHECK(error_of(q) ==
        "request:1:28: error: \"test\" of 16777217 bytes is over the "
        "16777216-byte input limit (options.max_file_size: 16 MiB, from 1 to 4096)");
  const double t0 = testing::process_cpu_seconds();
  CHECK(error_of(fmt::format(R"({{"command": "run", "test": "{}", "file": "MP.litmus", )"
                             R"("options": {{"max_file_size": 17}}}})",
                             json_escape(big)))
            .empty());
  CHECK(testing::process_cpu_seconds() - t0 < 20.0);
  // The model's text too, and the whole request (2 x max_file_size + 1 MiB).
  CHECK(error_of(fmt::format(R"({{"command": "check_model", "model_text": "{}"}})",
                             std::string(16 * mib + 1, ' ')))
            .find("\"model_text\" of 16777217 bytes is over the 16777216-byte input limit") !=
        std::string::npos);
  const std::string outcome(wasm::request_bound(mib) + 1, 'x');
  CHECK(error_of(mp_request("explain", fmt::format(R"(, "options": {{"outcome": "{}", )"
                                                   R"("max_file_size": 1}})",
                                                   outcome)))
            .find("is over its 3145728-byte limit (twice options.max_file_size, 1 MiB, and 1 "
                  "MiB)") != std::string::npos);
  // Past the bound of the largest max_file_size it is refused unread: 8 GiB
  // of address space, never touched, so never backed by memory.
  const std::size_t huge = wasm::kMaxRequestBytes + 1;
  void* p = mmap(nullptr, huge, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    CHECK(error_of(std::string_view(static_cast<const char*>(p), huge))
              .find("request: error: a request of 8590983169 bytes is over the 8590983168-byte "
                    "limit") == 0);
    munmap(p, huge);
  }
  // As the CLI reads a file: no NUL byte, no byte-order mark.
  CHECK(error_of(mp_request("run", "").replace(28, 0, "\\u0000"))
            .find("MP.litmus: error: is not text (a NUL byte at offset 0)") == 0);
}

// Issue 49: the page's calls. run's format "text" is herd7's output (the
// bytes `redscope run` prints); dot draws a given witness without running
// the test again; executions lists every execution of an outcome.
TEST_CASE("JSON API: herd7's text, a witness drawn as given, every execution", "[api]") {
  const JsonNode text =
      parse_json(wasm::call(mp_request("run", R"(, "options": {"format": "text"})")), "answer");
  REQUIRE(text.find("text"));
  CHECK(text.find("text")->text().rfind("Test MP Allowed\nStates 3\n", 0) == 0);
  const std::string rf =
      R"(["init y -> P1#0 ld.acquire.gpu r0, y", "init x -> P1#1 ld.weak r1, x"])";
  const JsonNode dot = parse_json(
      wasm::call(mp_request(
          "dot", fmt::format(R"(, "options": {{"witness": {{"rf": {}, "co": []}}}})", rf))),
      "answer");
  REQUIRE(dot.find("dot"));
  CHECK(dot.find("dot")->text().find("headlabel=rf") != std::string::npos);
  CHECK(error_of(mp_request("dot", R"(, "options": {"witness": {"rf": ["a -> b"], "co": []}})"))
            .find("names events of no path") != std::string::npos);
  const JsonNode all = parse_json(
      wasm::call(mp_request(
          "executions", R"(, "options": {"outcome": {"P1:r0": "1", "P1:r1": "1"}, "limit": 5})")),
      "answer");
  REQUIRE(all.find("executions"));
  CHECK(all.find("executions")->elements().size() == 1);
  CHECK(all.find("complete")->truthy());
}

}  // namespace unit_api
