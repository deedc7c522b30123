// The JSON values and reader of core/json.hpp: a recursive-descent parser whose depth is bounded
// (kMaxDepth), so hostile nesting is refused long before the stack is at risk; numbers are checked
// against the JSON grammar before strtod converts them, and \u escapes (with surrogate pairs) become UTF-8.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "core/error.hpp"
#include "core/json.hpp"

namespace stratus {
namespace {

constexpr int kMaxDepth = 64;

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

// --- Values.

JsonValue::JsonValue(bool b) : type_(Type::boolean), bool_(b) {}
JsonValue::JsonValue(double x) : type_(Type::number), number_(x) {}
JsonValue::JsonValue(std::string s) : type_(Type::string), string_(std::move(s)) {}
JsonValue::JsonValue(Array a) : type_(Type::array), array_(std::move(a)) {}
JsonValue::JsonValue(Object o) : type_(Type::object), object_(std::move(o)) {}

const char* json_type_name(JsonValue::Type t) {
  switch (t) {
    case JsonValue::Type::null:
      return "null";
    case JsonValue::Type::boolean:
      return "boolean";
    case JsonValue::Type::number:
      return "number";
    case JsonValue::Type::string:
      return "string";
    case JsonValue::Type::array:
      return "array";
    case JsonValue::Type::object:
      return "object";
  }
  return "?";
}

namespace {
void expect_type(JsonValue::Type have, JsonValue::Type want) {
  if (have != want) {
    throw InputError(std::string("expected a JSON ") + json_type_name(want) + ", found " + json_type_name(have));
  }
}
}  // namespace

bool JsonValue::as_bool() const {
  expect_type(type_, Type::boolean);
  return bool_;
}
double JsonValue::as_number() const {
  expect_type(type_, Type::number);
  return number_;
}
const std::string& JsonValue::as_string() const {
  expect_type(type_, Type::string);
  return string_;
}
const JsonValue::Array& JsonValue::as_array() const {
  expect_type(type_, Type::array);
  return array_;
}
const JsonValue::Object& JsonValue::as_object() const {
  expect_type(type_, Type::object);
  return object_;
}

std::size_t JsonValue::size() const {
  if (type_ == Type::object) return object_.size();
  expect_type(type_, Type::array);
  return array_.size();
}

const JsonValue& JsonValue::at(std::size_t i) const {
  const Array& a = as_array();
  if (i >= a.size()) {
    throw InputError("JSON array index " + std::to_string(i) + " out of range (size " + std::to_string(a.size()) + ")");
  }
  return a[i];
}

const JsonValue& JsonValue::at(const std::string& name) const {
  as_object();
  const JsonValue* v = find(name);
  if (!v) throw InputError("JSON object has no member '" + name + "'");
  return *v;
}

const JsonValue* JsonValue::find(const std::string& name) const {
  if (type_ != Type::object) return nullptr;
  for (const auto& m : object_) {
    if (m.first == name) return &m.second;
  }
  return nullptr;
}

// --- Reader.

namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : t_(text), source_(source) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_space();
    if (pos_ != t_.size()) fail("unexpected text after the value", pos_);
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what, std::size_t at) const {
    throw InputError(source_ + ": malformed JSON at byte " + std::to_string(at) + ": " + what);
  }

  static std::string show(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", u);
    return buf;
  }

  void skip_space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }

  JsonValue value(int depth) {
    skip_space();
    if (pos_ >= t_.size()) fail("unexpected end of text, expected a value", pos_);
    const char c = t_[pos_];
    switch (c) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        return JsonValue(string());
      case 't':
        literal("true");
        return JsonValue(true);
      case 'f':
        literal("false");
        return JsonValue(false);
      case 'n':
        literal("null");
        return JsonValue();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return JsonValue(number());
        fail("unexpected character " + show(c) + ", expected a value", pos_);
    }
  }

  void enter(int depth) const {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels", pos_);
  }

  JsonValue object(int depth) {
    enter(depth);
    ++pos_;  // '{'
    JsonValue::Object members;
    std::unordered_set<std::string> seen;
    skip_space();
    if (pos_ < t_.size() && t_[pos_] == '}') {
      ++pos_;
      return JsonValue(std::move(members));
    }
    for (;;) {
      skip_space();
      if (pos_ >= t_.size()) fail("unexpected end of text inside an object", pos_);
      if (t_[pos_] != '"') fail("expected a string key, found " + show(t_[pos_]), pos_);
      const std::size_t key_at = pos_;
      std::string name = string();
      if (!seen.insert(name).second) fail("duplicate key '" + name + "'", key_at);
      skip_space();
      if (pos_ >= t_.size() || t_[pos_] != ':') fail("expected ':' after a key", pos_);
      ++pos_;
      JsonValue v = value(depth);
      members.emplace_back(std::move(name), std::move(v));
      skip_space();
      if (pos_ >= t_.size()) fail("unexpected end of text inside an object", pos_);
      if (t_[pos_] == '}') {
        ++pos_;
        return JsonValue(std::move(members));
      }
      if (t_[pos_] != ',') fail("expected ',' or '}', found " + show(t_[pos_]), pos_);
      ++pos_;
    }
  }

  JsonValue array(int depth) {
    enter(depth);
    ++pos_;  // '['
    JsonValue::Array items;
    skip_space();
    if (pos_ < t_.size() && t_[pos_] == ']') {
      ++pos_;
      return JsonValue(std::move(items));
    }
    for (;;) {
      items.push_back(value(depth));
      skip_space();
      if (pos_ >= t_.size()) fail("unexpected end of text inside an array", pos_);
      if (t_[pos_] == ']') {
        ++pos_;
        return JsonValue(std::move(items));
      }
      if (t_[pos_] != ',') fail("expected ',' or ']', found " + show(t_[pos_]), pos_);
      ++pos_;
    }
  }

  void literal(const char* word) {
    const std::string w(word);
    if (t_.compare(pos_, w.size(), w) != 0) fail("invalid literal, expected '" + w + "'", pos_);
    pos_ += w.size();
  }

  unsigned hex4(std::size_t at) const {
    if (at + 4 > t_.size()) fail("truncated \\u escape", at);
    unsigned v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = t_[k];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("invalid hexadecimal digit " + show(c) + " in a \\u escape", k);
      }
    }
    return v;
  }

  std::string string() {
    const std::size_t start = pos_;
    ++pos_;  // '"'
    std::string out;
    for (;;) {
      if (pos_ >= t_.size()) fail("unterminated string", start);
      const char c = t_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character " + show(c) + " in a string", pos_);
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= t_.size()) fail("unterminated string", start);
      const char e = t_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const std::size_t at = pos_ - 2;
          unsigned long cp = hex4(pos_);
          pos_ += 4;
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in a \\u escape", at);
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (pos_ + 1 >= t_.size() || t_[pos_] != '\\' || t_[pos_ + 1] != 'u') {
              fail("high surrogate without its low surrogate", at);
            }
            const unsigned lo = hex4(pos_ + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) fail("high surrogate without its low surrogate", at);
            pos_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail("invalid escape '\\" + std::string(1, e) + "'", pos_ - 2);
      }
    }
  }

  double number() {
    const std::size_t start = pos_;
    const auto digit = [&](std::size_t k) { return k < t_.size() && t_[k] >= '0' && t_[k] <= '9'; };
    std::size_t p = pos_;
    if (t_[p] == '-') ++p;
    if (!digit(p)) fail("expected a digit", p);
    if (t_[p] == '0') {
      ++p;
    } else {
      while (digit(p)) ++p;
    }
    if (p < t_.size() && t_[p] == '.') {
      ++p;
      if (!digit(p)) fail("expected a digit after the decimal point", p);
      while (digit(p)) ++p;
    }
    if (p < t_.size() && (t_[p] == 'e' || t_[p] == 'E')) {
      ++p;
      if (p < t_.size() && (t_[p] == '+' || t_[p] == '-')) ++p;
      if (!digit(p)) fail("expected a digit in the exponent", p);
      while (digit(p)) ++p;
    }
    const std::string text = t_.substr(start, p - start);
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v)) fail("number '" + text + "' is out of range", start);
    pos_ = p;
    return v;
  }

  const std::string& t_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text, const std::string& source) { return Parser(text, source).document(); }

}  // namespace stratus
