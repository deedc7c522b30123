// Unit tests of core/json: the exact pretty and compact text of a small document, number text (shortest
// round trip, non-finite as null), string escaping (control characters, quotes, backslashes, UTF-8 kept,
// invalid bytes replaced), misuse of the writer, written documents read back with key order kept, and
// malformed or too deeply nested text refused with the source name and byte offset. One rank, milliseconds.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

using Catch::Matchers::Contains;
using stratus::json_quote;
using stratus::JsonValue;
using stratus::JsonWriter;
using stratus::parse_json;

namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_json(text, "report.json");
  } catch (const stratus::InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError for: " << text);
  return {};
}

void small_document(JsonWriter& w) {
  w.begin_object();
  w.key("name").value("run");
  w.key("step").value(42);
  w.key("dt").value(0.1);
  w.key("ok").value(true);
  w.key("none").value(nullptr);
  w.key("segments").begin_array();
  w.begin_object().key("index").value(0LL).end_object();
  w.value(-1.5e-300);
  w.end_array();
  w.key("empty_object").begin_object().end_object();
  w.key("empty_array").begin_array().end_array();
  w.end_object();
}

}  // namespace

TEST_CASE("JsonWriter pretty-prints with a two-space indent", "[json]") {
  JsonWriter w;
  small_document(w);
  CHECK(w.str() ==
        "{\n"
        "  \"name\": \"run\",\n"
        "  \"step\": 42,\n"
        "  \"dt\": 0.1,\n"
        "  \"ok\": true,\n"
        "  \"none\": null,\n"
        "  \"segments\": [\n"
        "    {\n"
        "      \"index\": 0\n"
        "    },\n"
        "    -1.5e-300\n"
        "  ],\n"
        "  \"empty_object\": {},\n"
        "  \"empty_array\": []\n"
        "}");
}

TEST_CASE("JsonWriter writes compact text on request", "[json]") {
  JsonWriter w(false);
  small_document(w);
  CHECK(w.str() ==
        "{\"name\":\"run\",\"step\":42,\"dt\":0.1,\"ok\":true,\"none\":null,\"segments\":[{\"index\":0},-1.5e-300],"
        "\"empty_object\":{},\"empty_array\":[]}");
  JsonWriter scalar;
  scalar.value(std::size_t{7});
  CHECK(scalar.str() == "7");
}

TEST_CASE("JsonWriter numbers: shortest round trip, non-finite as null", "[json]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  JsonWriter w(false);
  w.begin_array().value(nan).value(inf).value(-inf).value(1.0).value(1e21).value(0.30000000000000004).end_array();
  CHECK(w.str() == "[null,null,null,1,1e+21,0.30000000000000004]");
  for (double x : {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 1.7976931348623157e308, -2.5, 123456789012345678.0}) {
    JsonWriter one;
    one.value(x);
    CHECK(parse_json(one.str(), "t").as_number() == x);
  }
  JsonWriter ints(false);
  ints.begin_array().value(-9223372036854775807LL - 1).value(18446744073709551615ULL).value(-3).end_array();
  CHECK(ints.str() == "[-9223372036854775808,18446744073709551615,-3]");
}

TEST_CASE("JSON strings are escaped and UTF-8 passes through", "[json]") {
  CHECK(json_quote("plain") == "\"plain\"");
  CHECK(json_quote("q\"b\\s/") == "\"q\\\"b\\\\s/\"");
  CHECK(json_quote("\n\t\r\b\f") == "\"\\n\\t\\r\\b\\f\"");
  CHECK(json_quote(std::string("\x01\x1f\x7f", 3)) == "\"\\u0001\\u001f\x7f\"");
  CHECK(json_quote(std::string("a\0b", 3)) == "\"a\\u0000b\"");
  const std::string utf8 = "\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E";  // e-acute, euro sign, G clef
  CHECK(json_quote(utf8) == "\"" + utf8 + "\"");
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(json_quote("\xFF") == "\"" + fffd + "\"");
  CHECK(json_quote("a\xC3") == "\"a" + fffd + "\"");                                 // truncated sequence
  CHECK(json_quote("\xC0\xAF") == "\"" + fffd + fffd + "\"");                        // overlong '/'
  CHECK(json_quote("\xED\xA0\x80") == "\"" + fffd + fffd + fffd + "\"");             // a surrogate
  CHECK(json_quote("\xF4\x90\x80\x80") == "\"" + fffd + fffd + fffd + fffd + "\"");  // above U+10FFFF
  // Every string survives a round trip (apart from replaced invalid bytes).
  const std::string all_ascii = [] {
    std::string s;
    for (int c = 0; c < 128; ++c) s += static_cast<char>(c);
    return s;
  }();
  for (const std::string& s : {all_ascii, utf8, std::string("key with \"quotes\"")}) {
    JsonWriter w;
    w.begin_object().key(s).value(s).end_object();
    const JsonValue v = parse_json(w.str(), "t");
    REQUIRE(v.size() == 1);
    CHECK(v.as_object()[0].first == s);
    CHECK(v.at(s).as_string() == s);
  }
}

TEST_CASE("JsonWriter refuses misuse", "[json]") {
  CHECK_THROWS_AS(JsonWriter().begin_object().value(1), stratus::Error);  // no key
  CHECK_THROWS_AS(JsonWriter().begin_array().key("k"), stratus::Error);   // key in an array
  CHECK_THROWS_AS(JsonWriter().key("k"), stratus::Error);                 // key at the top
  CHECK_THROWS_AS(JsonWriter().begin_object().end_array(), stratus::Error);
  CHECK_THROWS_AS(JsonWriter().begin_object().key("a").end_object(), stratus::Error);  // key without value
  CHECK_THROWS_AS(JsonWriter().end_object(), stratus::Error);
  CHECK_THROWS_AS(JsonWriter().value(1).value(2), stratus::Error);  // two top-level values
  CHECK_THROWS_AS(JsonWriter().str(), stratus::Error);              // nothing written
  JsonWriter open;
  open.begin_array();
  CHECK_THROWS_AS(open.str(), stratus::Error);
}

TEST_CASE("parse_json reads a written document back in order", "[json]") {
  JsonWriter w;
  small_document(w);
  const JsonValue v = parse_json(w.str(), "report.json");
  REQUIRE(v.is_object());
  std::vector<std::string> keys;
  for (const auto& m : v.as_object()) keys.push_back(m.first);
  CHECK(keys ==
        std::vector<std::string>{"name", "step", "dt", "ok", "none", "segments", "empty_object", "empty_array"});
  CHECK(v.at("name").as_string() == "run");
  CHECK(v.at("step").as_number() == 42);
  CHECK(v.at("dt").as_number() == 0.1);
  CHECK(v.at("ok").as_bool());
  CHECK(v.at("none").is_null());
  const JsonValue& seg = v.at("segments");
  REQUIRE(seg.size() == 2);
  CHECK(seg.at(0).at("index").as_number() == 0);
  CHECK(seg.at(1).as_number() == -1.5e-300);
  CHECK(v.at("empty_object").size() == 0);
  CHECK(v.at("empty_array").as_array().empty());
  CHECK(v.find("missing") == nullptr);
  CHECK(seg.find("index") == nullptr);  // not an object
  CHECK_THROWS_WITH(v.at("missing"), Contains("'missing'"));
  CHECK_THROWS_WITH(v.at("name").as_number(), Contains("expected a JSON number, found string"));
  CHECK_THROWS_AS(seg.at(2), stratus::InputError);
  CHECK_THROWS_AS(v.at("dt").size(), stratus::InputError);
}

TEST_CASE("parse_json reads standard JSON", "[json]") {
  const JsonValue v = parse_json(" \t\r\n[\"\\u00e9\\u20ac\\ud834\\udd1e\\/\\\"\", -0, 1E+2, 2.5e-1, false] \n", "t");
  REQUIRE(v.size() == 5);
  CHECK(v.at(0).as_string() == "\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E/\"");
  CHECK(v.at(1).as_number() == 0.0);
  CHECK(std::signbit(v.at(1).as_number()));
  CHECK(v.at(2).as_number() == 100.0);
  CHECK(v.at(3).as_number() == 0.25);
  CHECK_FALSE(v.at(4).as_bool());
  CHECK(parse_json("\"x\"", "t").as_string() == "x");
  CHECK(parse_json("null", "t").is_null());
}

TEST_CASE("parse_json refuses malformed text, naming the source and the byte", "[json]") {
  const std::vector<std::string> bad = {"",
                                        "   ",
                                        "{",
                                        "[1,]",
                                        "[1 2]",
                                        "{\"a\" 1}",
                                        "{\"a\":1,}",
                                        "{a:1}",
                                        "{\"a\":1,\"a\":2}",
                                        "\"unterminated",
                                        "\"tab\there\"",
                                        "\"bad \\x escape\"",
                                        "\"\\u12\"",
                                        "\"\\ud834\"",
                                        "\"\\udd1e\"",
                                        "01",
                                        "1.",
                                        ".5",
                                        "-",
                                        "1e",
                                        "+1",
                                        "1e999",
                                        "NaN",
                                        "Infinity",
                                        "tru",
                                        "nul",
                                        "[true false]",
                                        "{} {}",
                                        "[1] x",
                                        std::string("[1]\0", 4)};
  for (const std::string& text : bad) {
    INFO("text: " << text);
    const std::string e = parse_error(text);
    CHECK_THAT(e, Contains("report.json") && Contains("malformed JSON at byte"));
  }
  CHECK_THAT(parse_error("[1,]"), Contains("at byte 3"));
  CHECK_THAT(parse_error("{\"a\":1,\"a\":2}"), Contains("at byte 7") && Contains("duplicate key 'a'"));
  CHECK_THAT(parse_error("1e999"), Contains("out of range"));
}

TEST_CASE("parse_json refuses nesting deeper than 64 levels", "[json]") {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(parse_json(nested(64), "t").is_array());
  CHECK_THAT(parse_error(nested(65)), Contains("nesting deeper than 64"));
  CHECK_THAT(parse_error(std::string(1000000, '[')), Contains("nesting deeper than 64"));
  std::string objects;
  for (int i = 0; i < 100; ++i) objects += "{\"k\":";
  CHECK_THAT(parse_error(objects), Contains("nesting deeper than 64"));
}

TEST_CASE("JsonWriter writes a parsed value back as it was", "[json]") {
  const std::string text = R"({"a":[1,2.5,null,true,false],"b":{"c":"x\"y","d":{}},"e":[],"f":-1e-300})";
  JsonWriter w(false);
  w.value(parse_json(text, "<text>"));
  CHECK(w.str() == text);
  // inside a document, after a key
  JsonWriter outer(false);
  outer.begin_object().key("copy").value(parse_json("[0.1,\"z\"]", "<text>")).end_object();
  CHECK(outer.str() == R"({"copy":[0.1,"z"]})");
}
