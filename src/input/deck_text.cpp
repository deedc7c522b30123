// The value grammar of deck text (see deck_text.hpp): strict conversions, list splitting, canonical
// value text with the validation messages of every type, and the wording of types and bounds. It knows
// no INI syntax and no concrete option.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "input/deck_text.hpp"

namespace stratus::deck_text {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(kSpace);
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(kSpace);
  return s.substr(a, b - a + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Sections may nest ("io.hdf5.chunk" is key "chunk" of [io.hdf5]), as Boost prefixes the section name.
std::string section_of(const std::string& key) {
  const auto p = key.rfind('.');
  return p == std::string::npos ? std::string() : key.substr(0, p);
}

std::string key_name(const std::string& key) {
  const auto p = key.rfind('.');
  return p == std::string::npos ? key : key.substr(p + 1);
}

// Shortest text that reads back to the same double (std::to_chars guarantees the round trip).
std::string format_real(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}
// --- Strict conversions: the whole token must be consumed; from_chars is locale independent. ---

Conv to_int(const std::string& t, long long& out) {
  const char* first = t.data();
  const char* last = t.data() + t.size();
  // from_chars takes '-' but not '+'; a '+' must be followed by a digit ("+-1" is not a number).
  if (first != last && *first == '+' && ++first != last && *first == '-') return Conv::invalid;
  if (first == last) return Conv::invalid;
  const auto r = std::from_chars(first, last, out);
  if (r.ec == std::errc::result_out_of_range) return Conv::out_of_range;
  if (r.ec != std::errc() || r.ptr != last) return Conv::invalid;
  return Conv::ok;
}

Conv to_real(const std::string& t, double& out) {
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (first != last && *first == '+' && ++first != last && *first == '-') return Conv::invalid;
  if (first == last) return Conv::invalid;
  const auto r = std::from_chars(first, last, out, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) return Conv::out_of_range;
  if (r.ec != std::errc() || r.ptr != last) return Conv::invalid;
  // inf and nan parse, but no physical parameter wants them and they would poison a run silently.
  if (!std::isfinite(out)) return Conv::invalid;
  return Conv::ok;
}

bool to_bool(const std::string& t, bool& out) {
  const std::string s = lower(t);
  if (s == "true" || s == "yes" || s == "on" || s == "1") return out = true, true;
  if (s == "false" || s == "no" || s == "off" || s == "0") return out = false, true;
  return false;
}

// Elements are separated by whitespace and/or single commas ("2 2 1", "2,2,1", "2, 2, 1"). An empty
// element ("2,,1", ",2", "2,") is rejected rather than skipped: it is most likely a missing number.
bool split_list(const std::string& t, std::vector<std::string>& out) {
  out.clear();
  std::size_t i = 0;
  const std::size_t n = t.size();
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (i < n && is_space(t[i])) ++i;
  if (i == n) return true;
  while (true) {
    const std::size_t start = i;
    while (i < n && t[i] != ',' && !is_space(t[i])) ++i;
    if (i == start) return false;  // a comma where an element should be
    out.push_back(t.substr(start, i - start));
    while (i < n && is_space(t[i])) ++i;
    if (i == n) return true;
    if (t[i] == ',') {
      ++i;
      while (i < n && is_space(t[i])) ++i;
      if (i == n) return false;  // trailing comma
    }
  }
}

// At most 80 characters of s, for quoting user text in a one-line message.
std::string shorten(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 77) + "..."; }

// The first control character (other than tab and line breaks) in s, or npos: such a byte in a file
// name or value is never meant (a NUL would cut every path built from the value short).
std::size_t find_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
  }
  return std::string::npos;
}

std::string control_text(const std::string& s, std::size_t at) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(s[at])));
  return buf;
}


std::string type_name(const OptionSpec& s) {
  std::string t;
  switch (s.type) {
    case OptionType::Int: return "int";
    case OptionType::Real: return "real";
    case OptionType::String: return "string";
    case OptionType::Bool: return "bool";
    case OptionType::IntList: t = "list of int"; break;
    case OptionType::RealList: t = "list of real"; break;
  }
  if (s.list_size > 0) t += " (" + std::to_string(s.list_size) + " values)";
  return t;
}

bool is_list(const OptionSpec& s) { return s.type == OptionType::IntList || s.type == OptionType::RealList; }

// "> 0 and <= 1"; empty without bounds.
std::string bounds_text(const OptionSpec& s) {
  std::string t;
  if (s.min) t += (s.min_exclusive ? "> " : ">= ") + format_real(*s.min);
  if (s.max) t += (t.empty() ? "" : " and ") + std::string(s.max_exclusive ? "< " : "<= ") + format_real(*s.max);
  return t;
}

namespace {

bool in_bounds(const OptionSpec& s, double v) {
  if (s.min && (s.min_exclusive ? !(v > *s.min) : !(v >= *s.min))) return false;
  if (s.max && (s.max_exclusive ? !(v < *s.max) : !(v <= *s.max))) return false;
  return true;
}

// "1" (dimensionless) adds nothing to a range message, so it is left out there.
std::string unit_suffix(const OptionSpec& s) {
  return s.unit.empty() || s.unit == "1" ? std::string() : " [" + s.unit + "]";
}

enum class NumCheck { ok, invalid, overflow, out_of_bounds };

// Converts one number token of option `s` (an integer or a finite real) and checks its bounds;
// `canon` receives its canonical text. The callers word the message, which differs for lists.
NumCheck check_number(const OptionSpec& s, bool integer, const std::string& tok, std::string& canon) {
  double v = 0.0;
  if (integer) {
    long long i = 0;
    const Conv c = to_int(tok, i);
    if (c != Conv::ok) return c == Conv::out_of_range ? NumCheck::overflow : NumCheck::invalid;
    v = static_cast<double>(i);
    canon = std::to_string(i);
  } else {
    const Conv c = to_real(tok, v);
    if (c != Conv::ok) return c == Conv::out_of_range ? NumCheck::overflow : NumCheck::invalid;
    canon = format_real(v);
  }
  return in_bounds(s, v) ? NumCheck::ok : NumCheck::out_of_bounds;
}

const char* number_kind(bool integer) { return integer ? "an integer" : "a finite real number"; }

std::string overflow_note(bool integer) {
  return integer ? " (outside the 64-bit integer range)" : " (outside the range of a double)";
}

std::string range_rule(const OptionSpec& s) { return "must be " + bounds_text(s) + unit_suffix(s); }

}  // namespace

// Numbers are reformatted, bools become true/false, list elements are joined by one space.
std::string canonical_value(const OptionSpec& s, const std::string& text, const std::string& origin) {
  const std::string key_ref = origin + ": key '" + s.key + "' ";
  switch (s.type) {
    case OptionType::Int:
    case OptionType::Real: {
      const bool integer = s.type == OptionType::Int;
      std::string canon;
      switch (check_number(s, integer, text, canon)) {
        case NumCheck::ok: return canon;
        case NumCheck::invalid: throw InputError(key_ref + "expects " + number_kind(integer) + ", got '" + text + "'");
        case NumCheck::overflow:
          throw InputError(key_ref + "expects " + number_kind(integer) + ", got '" + text + "'" +
                           overflow_note(integer));
        case NumCheck::out_of_bounds:
          throw InputError(origin + ": key '" + s.key + "' = " + text + " is out of range: " + range_rule(s));
      }
      break;
    }
    case OptionType::Bool: {
      bool b = false;
      if (!to_bool(text, b))
        throw InputError(key_ref + "expects a bool (true/false, yes/no, on/off, 1/0), got '" + text + "'");
      return b ? "true" : "false";
    }
    case OptionType::String:
      if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), text) == s.choices.end())
        throw InputError(key_ref + "= '" + text + "' is not one of: " + join(s.choices, ", "));
      return text;
    case OptionType::IntList:
    case OptionType::RealList: {
      const bool integer = s.type == OptionType::IntList;
      std::vector<std::string> toks;
      if (!split_list(text, toks))
        throw InputError(key_ref + "has an empty element in '" + text +
                         "' (separate values by spaces or single commas)");
      if (s.list_size > 0 && static_cast<int>(toks.size()) != s.list_size)
        throw InputError(key_ref + "needs " + std::to_string(s.list_size) + (s.list_size == 1 ? " value" : " values") +
                         ", got " + std::to_string(toks.size()));
      if (toks.empty()) throw InputError(key_ref + "needs at least one value, got none");
      std::vector<std::string> canon(toks.size());
      for (std::size_t i = 0; i < toks.size(); ++i) {
        const std::string elem = "element " + std::to_string(i + 1) + " (" + toks[i] + ")";
        const std::string list_kind = integer ? "a list of integers" : "a list of real numbers";
        switch (check_number(s, integer, toks[i], canon[i])) {
          case NumCheck::ok: break;
          case NumCheck::invalid:
            throw InputError(key_ref + "expects " + list_kind + ", got '" + text + "' (" + elem + " is not " +
                             number_kind(integer) + ")");
          case NumCheck::overflow:
            throw InputError(key_ref + "expects " + list_kind + ", got '" + text + "' (" + elem +
                             overflow_note(integer) + ")");
          case NumCheck::out_of_bounds:
            throw InputError(origin + ": key '" + s.key + "' = '" + text + "' is out of range: " + elem + " " +
                             range_rule(s));
        }
      }
      return join(canon, " ");
    }
  }
  throw Error("option '" + s.key + "' has an unknown type");
}

// Lists with an empty default have no value (an absent list reads as empty); an empty String default
// is the empty string.
std::optional<std::string> default_value(const OptionSpec& s) {
  if (s.required) return std::nullopt;
  if (s.default_text.empty() && s.type != OptionType::String) return std::nullopt;
  try {
    return canonical_value(s, s.default_text, "option '" + s.key + "' default");
  } catch (const InputError& e) {
    // A default that fails its own validation is a bug in the declaring code, not bad input.
    throw Error(std::string("invalid declaration: ") + e.what());
  }
}
std::vector<std::string> sections_in_order(const std::vector<OptionSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) {
    const std::string sec = section_of(s.key);
    if (std::find(out.begin(), out.end(), sec) == out.end()) out.push_back(sec);
  }
  return out;
}

}  // namespace stratus::deck_text
