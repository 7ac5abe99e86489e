// The one JSON writer (json.hpp): layouts, escaping, and output that stays
// valid JSON whatever bytes a litmus file held.
#include <catch2/catch.hpp>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/json.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_json {

using namespace redscope;

TEST_CASE("Json: the two layouts", "[json]") {
  Json t = Json::object();
  t.set("test", "MP").set("holds", false).set("n", std::size_t{3}).set("none", Json());
  t.set("outcomes", Json::array().push(Json::object().set("x", "1").set("r0", "0")));
  t.set("seconds", Json::number(0.01234, 4));
  CHECK(
      t.dump(Json::Layout::Line) ==
      R"({"test": "MP", "holds": false, "n": 3, "none": null, "outcomes": [{"x": "1", "r0": "0"}], "seconds": 0.0123})");
  const Json all = Json::array().push(t);
  CHECK(all.dump(Json::Layout::Nested) == R"([
  {
    "test": "MP",
    "holds": false,
    "n": 3,
    "none": null,
    "outcomes": [
      {"x": "1", "r0": "0"}
    ],
    "seconds": 0.0123
  }
])");
  CHECK(Json::array().dump(Json::Layout::Nested) == "[]");
  CHECK(Json::object().set("a", 1).set("b", 2).set("a", 3).dump(Json::Layout::Line) ==
        R"({"a": 3, "b": 2})");
  CHECK(Json::object().dump(Json::Layout::Line) == "{}");
}

TEST_CASE("Json: strings are escaped and always valid UTF-8", "[json]") {
  CHECK(Json("a\"b\\c\nd\te").dump(Json::Layout::Line) == R"("a\"b\\c\nd\te")");
  CHECK(Json(std::string("nul\0x", 5)).dump(Json::Layout::Line) == R"("nul\u0000x")");
  const std::string bad = Json(std::string("caf\xe9")).dump(Json::Layout::Line);
  CHECK(bad.find('\xe9') == std::string::npos);  // a stray Latin-1 byte is replaced
}

TEST_CASE("JsonNode: reads back what Json writes, with positions", "[json]") {
  Json t = Json::object();
  t.set("test", "a\"b\\\n\u00e9").set("holds", false).set("n", std::size_t{3}).set("none", Json());
  t.set("list", Json::array().push(1).push(Json::object().set("k", "v")));
  const JsonNode n = parse_json(t.dump(Json::Layout::Nested), "t.json");
  REQUIRE(n.is(JsonNode::Type::Object));
  CHECK(n.keys().size() == 5);
  CHECK(n.find("test")->text() == "a\"b\\\n\u00e9");
  CHECK(n.find("holds")->is(JsonNode::Type::Bool));
  CHECK_FALSE(n.find("holds")->truthy());
  CHECK(n.find("n")->text() == "3");
  CHECK(n.find("none")->is(JsonNode::Type::Null));
  CHECK(n.find("list")->elements().at(1).find("k")->text() == "v");
  CHECK(n.find("list")->line() == 6);
  CHECK(n.find("missing") == nullptr);
  CHECK(parse_json(R"("\u00e9\ud83d\ude00\ud800")", "s").text() == "\u00e9\U0001F600\uFFFD");
  CHECK(parse_json("-1.5e+3", "n").text() == "-1.5e+3");
}

TEST_CASE("JsonNode::whole: a number's exact value, never an exception", "[json]") {
  auto w = [](std::string_view literal, long long lo = -1000, long long hi = 1000) {
    return parse_json(literal, "n").whole(lo, hi);
  };
  CHECK(w("0") == 0);
  CHECK(w("-0") == 0);
  CHECK(w("1e3") == 1000);
  CHECK(w("10.0") == 10);
  CHECK(w("1.5e1") == 15);
  CHECK(w("1500e-3") == std::nullopt);  // 1.5
  CHECK(w("2000e-3") == 2);
  CHECK(w("0.000e999999999999999999") == 0);
  CHECK(w("-7") == -7);
  CHECK(w("1.5") == std::nullopt);
  CHECK(w("1001") == std::nullopt);
  CHECK(w("-1001") == std::nullopt);
  CHECK(w("1e400") == std::nullopt);
  CHECK(w("1e-400") == std::nullopt);
  CHECK(w("1e999999999999999999999") == std::nullopt);
  constexpr long long kMin = std::numeric_limits<long long>::min();
  constexpr long long kMax = std::numeric_limits<long long>::max();
  CHECK(w("9223372036854775807", kMin, kMax) == kMax);
  CHECK(w("9223372036854775808", kMin, kMax) == std::nullopt);
  CHECK(w("-9223372036854775808", kMin, kMax) == kMin);
  CHECK(w("2e19", kMin, kMax) == std::nullopt);  // past 2^64 too
  CHECK(w("1" + std::string(100000, '0') + "e-100000") == 1);
  CHECK(w("\"1\"") == std::nullopt);  // a string is not a number
  CHECK(w("true") == std::nullopt);
}

TEST_CASE("JsonNode: malformed JSON is a located error", "[json]") {
  auto error_of = [](std::string_view text) {
    try {
      parse_json(text, "bad.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("{\"a\": 1,\n  }") ==
        "bad.json:2:3: error: expected a member name in double quotes");
  CHECK(error_of("[1, 2") == "bad.json:1:6: error: expected ']' at the end of the text");
  CHECK(error_of("[01]").find("bad.json:1:3: error: expected ']'") == 0);
  CHECK(error_of("\"a\tb\"") == "bad.json:1:3: error: control character in a string");
  CHECK(error_of("\"\\x\"") == "bad.json:1:3: error: unknown escape in a string");
  CHECK(error_of("{} x") == "bad.json:1:4: error: text after the JSON value");
  CHECK(error_of("nul") == "bad.json:1:1: error: expected a JSON value");
  CHECK(error_of(std::string(100, '[')).find("nested deeper than 64") != std::string::npos);
}

TEST_CASE("JsonNode: an array's elements and JSON Lines one value at a time", "[json]") {
  std::vector<std::string> seen;
  auto collect = [&](JsonNode&& n) { seen.push_back(n.find("test")->text()); };
  for_each_json_value("[\n  {\"test\": \"a\"},\n  {\"test\": \"b\"}\n]\n", "r.json", collect);
  for_each_json_value("{\"test\": \"c\"}\n{\"test\": \"d\"}\n", "r.jsonl", collect);
  for_each_json_value("[]", "e.json", collect);
  CHECK(seen == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK_THROWS_AS(for_each_json_value("[{\"test\": \"a\"} {}]", "x.json", collect), InputError);
}

}  // namespace unit_json
