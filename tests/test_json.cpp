// The one JSON writer (json.hpp): layouts, escaping, and output that stays
// valid JSON whatever bytes a litmus file held.
#include <catch2/catch.hpp>

#include <string>

#include "redscope/core/json.hpp"

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
