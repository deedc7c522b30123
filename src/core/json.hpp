// JSON text for the files Stratus writes (the run report, the completion marker, JSON log lines): a
// writer that builds the text value by value, pretty-printed with a 2-space indent or compact, and a
// small reader for reading those files back (a restart appends a segment to the existing report). The
// reader accepts RFC 8259 JSON up to a nesting depth of 64; it keeps object keys in file order and
// refuses duplicate keys. Numbers are doubles on both sides; non-finite numbers are written as null.
// Neither side is meant for large documents or for untrusted input beyond reporting it as malformed.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace stratus {

/// Builds JSON text. Inside an object every value (and every begin_object/begin_array) must follow a
/// key(); inside an array or at the top level it must not. Misuse (a missing key, a mismatched end, a
/// second top-level value) throws stratus::Error: it is a bug in the caller.
class JsonValue;

class JsonWriter {
 public:
  /// `pretty`: one member per line, 2-space indent; otherwise no whitespace at all (one-line records).
  explicit JsonWriter(bool pretty = true);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The name of the next member of the enclosing object.
  JsonWriter& key(const std::string& name);

  /// A number in the shortest text that reads back as exactly `v`; NaN and infinities are written as null.
  JsonWriter& value(double v);
  JsonWriter& value(int v);
  JsonWriter& value(long v);
  JsonWriter& value(long long v);
  JsonWriter& value(unsigned v);
  JsonWriter& value(unsigned long v);
  JsonWriter& value(unsigned long long v);
  JsonWriter& value(bool v);
  /// A string: quotes, backslashes and control characters are escaped, valid UTF-8 passes through and
  /// each byte of an invalid UTF-8 sequence becomes U+FFFD.
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v);
  JsonWriter& value(std::nullptr_t);
  /// A parsed value as it is (e.g. one read back from an earlier file), arrays and objects included.
  JsonWriter& value(const JsonValue& v);

  /// The document (no trailing newline). Throws Error while an object or array is still open or when
  /// nothing has been written.
  std::string str() const;

 private:
  struct Level {
    bool object;
    std::size_t count;
  };
  void before_value();
  void newline();
  JsonWriter& raw(const std::string& text);
  JsonWriter& close(bool object);

  bool pretty_;
  bool key_pending_ = false;
  bool done_ = false;
  std::vector<Level> stack_;
  std::string out_;
};

/// The shortest "%.15g" .. "%.17g" text of a finite `v` that reads back as exactly `v` (0.1, not
/// 0.10000000000000001); shared by the JSON and the Prometheus writers.
std::string round_trip_number(double v);

/// A string escaped and quoted as a JSON string literal (the rules of JsonWriter::value(string)).
std::string json_quote(const std::string& s);

/// A parsed JSON value: null, a boolean, a number, a string, an array or an object whose members keep
/// the order of the text. Accessors of the wrong kind throw InputError ("expected a number, found a
/// string"); callers that know the file name should add it.
class JsonValue {
 public:
  enum class Type { null, boolean, number, string, array, object };
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  /// null.
  JsonValue() = default;
  explicit JsonValue(bool b);
  explicit JsonValue(double x);
  explicit JsonValue(std::string s);
  explicit JsonValue(const char* s) : JsonValue(std::string(s)) {}
  explicit JsonValue(Array a);
  explicit JsonValue(Object o);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::null; }
  bool is_bool() const { return type_ == Type::boolean; }
  bool is_number() const { return type_ == Type::number; }
  bool is_string() const { return type_ == Type::string; }
  bool is_array() const { return type_ == Type::array; }
  bool is_object() const { return type_ == Type::object; }

  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  /// Number of elements of an array or members of an object; throws InputError for other kinds.
  std::size_t size() const;
  /// Element `i` of an array; throws InputError when out of range or not an array.
  const JsonValue& at(std::size_t i) const;
  /// Member `name` of an object; throws InputError when absent or not an object.
  const JsonValue& at(const std::string& name) const;
  /// Member `name` of an object, or nullptr when absent or when this is not an object.
  const JsonValue* find(const std::string& name) const;

 private:
  Type type_ = Type::null;
  bool bool_ = false;
  double number_ = 0.0;
  std::string string_;
  Array array_;
  Object object_;
};

/// The name of a kind of value ("null", "boolean", "number", "string", "array", "object").
const char* json_type_name(JsonValue::Type t);

/// Parses `text` as one JSON document (surrounding whitespace allowed). Throws InputError naming `source`
/// (a file name, for the message) and the byte offset on malformed text, on nesting deeper than 64, on a
/// duplicate key, and on a number out of the range of a double.
JsonValue parse_json(const std::string& text, const std::string& source);

}  // namespace stratus
