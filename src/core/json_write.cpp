// The JSON writer of core/json.hpp: a stack of open containers handles separators, indentation and
// misuse in one place; strings are escaped with UTF-8 validation so the output is always valid JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/json.hpp"

namespace stratus {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (2 to 4), or 0 when the bytes there are not one.
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

std::string format_number(double v) { return std::isfinite(v) ? round_trip_number(v) : "null"; }

}  // namespace

std::string round_trip_number(double v) {
  // 17 significant digits always read back exactly; fewer usually do and read better.
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// --- Writer.

std::string json_quote(const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        ++i;
      } else {
        out.append(s, i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

JsonWriter::JsonWriter(bool pretty) : pretty_(pretty) {}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
  if (done_) throw Error("JsonWriter: a second value at the top level");
  if (stack_.empty()) return;
  Level& top = stack_.back();
  if (top.object) {
    if (!key_pending_) throw Error("JsonWriter: a value inside an object without a key");
    key_pending_ = false;
    return;
  }
  if (top.count > 0) out_ += ',';
  ++top.count;
  newline();
}

JsonWriter& JsonWriter::raw(const std::string& text) {
  before_value();
  out_ += text;
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  stack_.push_back({true, 0});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  stack_.push_back({false, 0});
  return *this;
}

JsonWriter& JsonWriter::close(bool object) {
  if (stack_.empty() || stack_.back().object != object) {
    throw Error(std::string("JsonWriter: ") + (object ? "end_object" : "end_array") + " without its begin");
  }
  if (key_pending_) throw Error("JsonWriter: a key without a value");
  const std::size_t count = stack_.back().count;
  stack_.pop_back();
  if (count > 0) newline();
  out_ += object ? '}' : ']';
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_object() { return close(true); }
JsonWriter& JsonWriter::end_array() { return close(false); }

JsonWriter& JsonWriter::key(const std::string& name) {
  if (stack_.empty() || !stack_.back().object) throw Error("JsonWriter: key '" + name + "' outside an object");
  if (key_pending_) throw Error("JsonWriter: key '" + name + "' after a key without a value");
  Level& top = stack_.back();
  if (top.count > 0) out_ += ',';
  ++top.count;
  newline();
  out_ += json_quote(name);
  out_ += pretty_ ? ": " : ":";
  key_pending_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double v) { return raw(format_number(v)); }
JsonWriter& JsonWriter::value(int v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(long v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(long long v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(unsigned v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(unsigned long v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(unsigned long long v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(bool v) { return raw(v ? "true" : "false"); }
JsonWriter& JsonWriter::value(const std::string& v) { return raw(json_quote(v)); }
JsonWriter& JsonWriter::value(const char* v) { return v ? raw(json_quote(v)) : raw("null"); }
JsonWriter& JsonWriter::value(std::nullptr_t) { return raw("null"); }

JsonWriter& JsonWriter::value(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::null:
      return value(nullptr);
    case JsonValue::Type::boolean:
      return value(v.as_bool());
    case JsonValue::Type::number:
      return value(v.as_number());
    case JsonValue::Type::string:
      return value(v.as_string());
    case JsonValue::Type::array:
      begin_array();
      for (const auto& e : v.as_array()) value(e);
      return end_array();
    case JsonValue::Type::object:
      begin_object();
      for (const auto& [k, e] : v.as_object()) key(k).value(e);
      return end_object();
  }
  return *this;
}

std::string JsonWriter::str() const {
  if (!stack_.empty()) throw Error("JsonWriter: the document has an open object or array");
  if (!done_) throw Error("JsonWriter: the document is empty");
  return out_;
}

}  // namespace stratus
