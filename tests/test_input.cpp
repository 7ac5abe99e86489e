// Issue 28 (hostile input): the one bounded reader (core/input.hpp), the
// strict JSON reader of `redscope merge`, expectation CSVs, path keys and
// address collection that survive a bad .test file.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/core/input.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/merge.hpp"
#include "redscope/report/report.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_input {

using namespace redscope;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh folder for one test case (unique per process and name).
fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("redscope_input_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("read_input: regular files only, bounded", "[input]") {
  const fs::path d = scratch("read");
  write(d / "a.txt", "hello");
  CHECK(read_input((d / "a.txt").string(), 5, "test file") == "hello");
  CHECK_THAT(error_of([&] { read_input((d / "a.txt").string(), 4, "test file"); }),
             Contains("a.txt: error: file of 5 bytes is over the 4-byte input limit"));
  CHECK_THAT(error_of([&] { read_input(d.string(), 100, "test file"); }),
             Contains("error: is a folder, not a test file"));
  CHECK_THAT(error_of([&] { read_input((d / "none").string(), 100, "test file"); }),
             Contains("none: error: cannot read test file"));
  CHECK_THAT(error_of([&] { read_input("", 100, "test file"); }), Contains("empty path"));
  // /dev/zero is endless: a device, rejected before a byte is read.
  CHECK_THAT(error_of([&] { read_input("/dev/zero", 100, "test file"); }),
             Contains("/dev/zero: error: not a regular file"));
  // A FIFO without a writer: rejected at once, never waited on.
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  CHECK_THAT(error_of([&] { read_input((d / "fifo").string(), 100, "test file"); }),
             Contains("not a regular file"));
  fs::remove_all(d);
}

TEST_CASE("read_input_stream: an endless stream stops at the bound", "[input]") {
  std::istringstream small("abc");
  CHECK(read_input_stream(small, "<stdin>", 3, "standard input") == "abc");
  std::istringstream big(std::string(1 << 20, 'x'));
  CHECK_THAT(error_of([&] { read_input_stream(big, "<stdin>", 1000, "standard input"); }),
             Contains("<stdin>: error: standard input is over the 1000-byte"));
  CHECK_THAT(error_of([] { check_input_text("f", "\xef\xbb\xbfx", "file"); }),
             Contains("byte-order mark"));
  CHECK_THAT(error_of([] { check_input_text("f", std::string("a\0b", 3), "file"); }),
             Contains("NUL byte at offset 1"));
}

// The smallest object `run --format json|jsonl` writes for a test (one_json,
// src/report/report.cpp), with `more` fields after "file".
std::string run_result(const std::string& file, const std::string& more = "") {
  return "{\"test\": \"t\", \"file\": \"" + file + "\"" + more +
         ", \"model\": \"ptx\", \"engine\": \"enum\", \"engine_reason\": null, \"condition\": "
         "null, "
         "\"observation\": null, \"outcomes\": [], \"witnesses\": [], \"incomplete_paths\": 0, "
         "\"seconds\": 0.0, \"error\": null, \"error_kind\": null}";
}

TEST_CASE("merge: strict JSON, bounded nesting, located errors", "[input][merge]") {
  auto merge = [](const std::string& text) { return merge_run_json({{"s.json", text}}); };
  const std::string ok = "[" + run_result("a\\u00e9\\ud83d\\ude00.litmus") + "]";
  CHECK(merge(ok).tests == 1);
  CHECK(merge(" [ ] ").tests == 0);
  CHECK(merge("[" + run_result("x", ", \"n\": -1.5e+3, \"v\": [0, true, {}]") + "]").tests == 1);
  // 100,000 nested arrays: an error at the 257th level (column 275), not a
  // stack overflow.
  const std::string deep = "[{\"file\": \"x\", \"a\": " + std::string(100000, '[');
  CHECK_THAT(error_of([&] { merge(deep); }),
             Contains("s.json:1:275: error: arrays and objects nested deeper than 256"));
  CHECK_THAT(error_of([&] { merge(std::string(100000, '[')); }),
             Contains("s.json:1:2: error: expected '{'"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"a\tb\"}]"}});
             }),
             Contains("s.json:1:13: error: a raw control character (byte 0x09)"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[\n{\"file\": \"a\xff\"}]"}});
             }),
             Contains("s.json:2:12: error: byte 0xff is not UTF-8"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"\xc0\x80\"}]"}});
             }),
             Contains("byte 0xc0 is not UTF-8"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"\\uZZZZ\"}]"}});
             }),
             Contains("s.json:1:14: error: \\u takes four hexadecimal digits"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"\\q\"}]"}});
             }),
             Contains("a bad escape"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"\\ud800\"}]"}});
             }),
             Contains("surrogate"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"x\", \"n\": 01}]"}});
             }),
             Contains("expected '}'"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[{\"file\": \"x\", \"n\": -}]"}});
             }),
             Contains("expected a JSON value"));
  CHECK_THAT(error_of([] {
               merge_run_json({{"s.json", "[" + run_result("x") + "]\f"}});
             }),
             Contains("text after the closing"));
  // A test in two shards: located at its object in the second.
  CHECK_THAT(error_of([] {
               merge_run_json({{"1.json", "[" + run_result("x") + "]"},
                               {"2.json", "[" + run_result("y") + ",\n " + run_result("x") + "]"}});
             }),
             Contains("2.json:2:2: error: x is also in 1.json: overlapping shards"));
}

// The JSON array `json` as JSON Lines: whitespace outside strings dropped, the
// array's brackets off, a line break for each comma between its elements.
std::string json_lines_of(const std::string& json) {
  std::string out;
  bool in_string = false;
  int depth = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"' && json[i - 1] != '\\') in_string = !in_string;
    if (in_string) {
      out += c;
      continue;
    }
    if (c == ' ' || c == '\n') continue;
    depth += c == '{' || c == '[' ? 1 : c == '}' || c == ']' ? -1 : 0;
    if ((c == '[' && depth == 1) || (c == ']' && depth == 0)) continue;
    out += c == ',' && depth == 1 ? '\n' : c;
  }
  return out + "\n";
}

// Issue 43 item 10: merge takes only what `run --format json|jsonl` writes.
// The JSON of xval, atomicity, explain or a matrix (whose objects also have
// "file") is refused, located and named, in a JSON array or as JSON Lines;
// so is an object without a field of run's results or with one of another
// type.
TEST_CASE("merge: only the results of run", "[input][merge]") {
  XvalResult x;
  x.test = "MP";
  x.file = "MP.litmus";
  AtomicityResult a;
  a.test = "MP";
  a.file = "MP.litmus";
  const std::string xval = render_xval_json({x}), atom = render_atomicity_json({a});
  const std::string matrix =
      "{\n  \"matrix\": \"mp\",\n  \"verdict\": \"condition\",\n  \"cells\": [\n    "
      "{\"cell\": {\"a\": \"x\"}, \"verdict\": \"allowed\", \"test\": \"t\", \"file\": "
      "\"t.litmus\", "
      "\"error_kind\": null, \"error\": null}\n  ]\n}\n";
  const std::string cells =
      "[{\"cell\": {\"a\": \"x\"}, \"verdict\": \"allowed\", \"test\": \"t\", \"file\": "
      "\"t.litmus\", \"error_kind\": null, \"error\": null}]";
  const struct {
    std::string name, text, error;
  } refused[] = {
      {"x.json", xval,
       "x.json:2:3: error: this is not a result of `redscope run` (it is an xval "
       "result, from `redscope xval --format json`)"},
      {"x.jsonl", json_lines_of(xval),
       "x.jsonl:1:1: error: this is not a result of `redscope run` (it "
       "is an xval result"},
      {"a.json", atom,
       "a.json:2:3: error: this is not a result of `redscope run` (it is an "
       "atomicity result, from `redscope atomicity --format json`)"},
      {"a.jsonl", "\n" + json_lines_of(atom),
       "a.jsonl:2:1: error: this is not a result of `redscope "
       "run` (it is an atomicity result"},
      {"m.json", matrix,
       "m.json:1:1: error: this is not a result of `redscope run` (it is a "
       "matrix, from `redscope report --matrix ... --format json`)"},
      {"m.jsonl", json_lines_of("[" + matrix + "]"),
       "m.jsonl:1:1: error: this is not a result of "
       "`redscope run` (it is a matrix,"},
      {"c.json", cells,
       "c.json:1:2: error: this is not a result of `redscope run` (it is a "
       "matrix cell"},
      {"f.json", "[{\"file\": \"x\"}]",
       "f.json:1:2: error: this is not a result of `redscope "
       "run` (it has no \"test\" field): merge joins the JSON "
       "of `redscope run --format json|jsonl`"},
      {"t.jsonl", run_result("x") + "\n{\"test\": null, \"file\": 5}\n",
       "t.jsonl:2:1: error: this is not a result of `redscope run` (its \"file\" is not a "
       "string)"},
      {"o.json", "[" + run_result("x", ", \"verdict\": 1") + "]", ""},
  };
  for (const auto& r : refused) {
    INFO(r.name << ":\n" << r.text);
    if (r.error.empty()) {
      CHECK(merge_run_json({{r.name, r.text}}).tests == 1);  // a field more is no matter
      continue;
    }
    CHECK_THAT(error_of([&] { merge_run_json({{r.name, r.text}}); }), Contains(r.error));
  }
  std::string no_outcomes = run_result("x");
  no_outcomes.replace(no_outcomes.find("\"outcomes\""), 10, "\"listed\"");
  CHECK_THAT(error_of([&] {
               merge_run_json({{"s.jsonl", no_outcomes}});
             }),
             Contains("it has no \"outcomes\" array (nor \"verdict_only\")"));
}

// `run --format jsonl` shards merge like `--format json` ones: the same
// output, in the JSON layout (the Slurm job array writes JSON Lines). The
// results are run's own (check_file, rendered by run's writers).
TEST_CASE("merge: JSON Lines shards, laid out as run's JSON", "[input][merge]") {
  const std::string dir = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/classic/";
  EngineOptions opts;
  const TestResult mp = check_file(dir + "MP.litmus", opts),
                   sb = check_file(dir + "SB.litmus", opts);
  TestResult bad;
  bad.test = "a";
  bad.file = "a";
  bad.parsed = false;
  bad.error = "a:1:1: error: x";
  REQUIRE(!mp.error);
  const std::string json = render_json({mp, sb}), line = render_json_line(mp);
  CHECK(merge_run_json({{"s.json", json}}).json == json);
  CHECK(merge_run_json({{"s.jsonl", line + render_json_line(sb)}}).json == json);
  CHECK(merge_run_json({{"2.jsonl", render_json_line(sb)}, {"1.json", render_json({mp})}}).json ==
        json);
  std::string a = render_json_line(bad);
  a.pop_back();  // the last line's '\n' may be missing
  const MergedRun two = merge_run_json({{"1.jsonl", line}, {"2.jsonl", a + "\r\n"}});
  CHECK(two.tests == 2);
  CHECK(two.errors == 1);  // "error" holds a message: the test could not be checked
  CHECK(two.json.find("MP.litmus") < two.json.find("\"file\": \"a\""));  // "/..." < "a"
  CHECK(merge_run_json({{"s.jsonl", ""}}).tests == 0);                   // a shard without tests
  CHECK(merge_run_json({{"s.json", "[]\n"}}).tests == 0);
  CHECK(merge_run_json({{"s.jsonl", line + a}}).tests == 2);
  CHECK_THAT(error_of([&] {
               merge_run_json({{"s.jsonl", line + "\n" + a}});
             }),
             Contains("s.jsonl:2:1: error: a blank line"));
  CHECK_THAT(error_of([&] {
               merge_run_json({{"s.jsonl", "{\"file\":\n \"a\"}"}});
             }),
             Contains("s.jsonl:1:9: error: expected a JSON value"));
  CHECK_THAT(error_of([&] {
               merge_run_json({{"s.jsonl", a + " " + a}});
             }),
             Contains("error: text after the object on its line"));
  CHECK_THAT(error_of([&] {
               merge_run_json({{"s.jsonl", line + "{\"file\": \"a\""}});
             }),
             Contains("s.jsonl:2:13: error: expected '}', found the end"));
}

TEST_CASE("read_expectations: bounded, regular file, located rows", "[input]") {
  const fs::path d = scratch("csv");
  CHECK_THAT(error_of([&] { read_expectations(d.string()); }),
             Contains("error: is a folder, not a expectation CSV file"));
  CHECK_THAT(error_of([] { read_expectations("/dev/zero"); }),
             Contains("/dev/zero: error: not a regular file"));
  write(d / "e.csv", "# comment\na.litmus,1\nb.litmus,2\n");
  CHECK_THAT(error_of([&] { read_expectations((d / "e.csv").string()); }),
             Contains("e.csv:3:1: error: expected 'path,1' or 'path,0'"));
  write(d / "e.csv", "a.litmus,1\n");
  CHECK_THAT(error_of([&] { read_expectations((d / "e.csv").string(), 4); }),
             Contains("over the 4-byte input limit"));
  // A row naming a path past NAME_MAX keeps a key instead of throwing.
  write(d / "e.csv", std::string(300, 'a') + ".test#1,1\n");
  const auto rows = read_expectations((d / "e.csv").string());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].resolved == path_key((d / (std::string(300, 'a') + ".test#1")).string()));
  fs::remove_all(d);
}

TEST_CASE("path_key: never throws, even past NAME_MAX", "[input]") {
  const std::string long_name = "/tmp/" + std::string(300, 'x') + ".test#2";
  CHECK_NOTHROW(path_key(long_name));
  CHECK(path_key(long_name) == long_name);
  CHECK(path_key("/tmp/./a/../b") == "/tmp/b");
}

TEST_CASE("collect_litmus_files: one bad .test file does not stop the others", "[input]") {
  const fs::path d = scratch("nvtest");
  const std::string good =
      ".global x;\n\nd0.b0.t0 {\n  st.relaxed.gpu [x], $0;\n  ld.relaxed.gpu r0, [x];\n}\n\n"
      "permit(r0 == $1) as r0;\n\n$$\n\n1 | 1\n2 | 2\n";
  write(d / "good.test", good);
  std::string bad = good;
  bad.replace(bad.find("1 | 1"), 5, "99999999999999999999999 | 1");
  write(d / "bad.test", bad);
  std::vector<Diagnostic> problems;
  std::vector<std::string> files;
  REQUIRE_NOTHROW(files = collect_litmus_files({d.string()}, &problems));
  CHECK(problems.empty());
  // The bad file is one address (its check reports the error); the good one two.
  CHECK(files == std::vector<std::string>{(d / "bad.test").string(),
                                          (d / "good.test").string() + "#1",
                                          (d / "good.test").string() + "#2"});
  fs::remove_all(d);
}

}  // namespace unit_input
