// Option registry and input-deck parsing. The INI text is split into "section.key" = value pairs by
// Boost.Program_options (parse_config_file, unregistered keys allowed so that we report them ourselves
// with a suggestion); every value is then checked by strict conversions here (no trailing garbage, no
// silent truncation) and stored as canonical deck text, so that resolved_text() re-parses to the same
// values. Overrides ("section.key=value") are applied on top of the deck text. This file does not
// check relations between keys, does not log, and does not know any concrete option: the owners of the
// options declare them and read them back through get_*().
#include "input/deck.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <system_error>

#include "core/error.hpp"

namespace stratus {
namespace po = boost::program_options;

namespace {

// The same whitespace set Boost trims from config-file lines, so our line scan agrees with it.
constexpr const char* kSpace = " \t\r\n";

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

std::string name_of(const std::string& key) {
  const auto p = key.rfind('.');
  return p == std::string::npos ? key : key.substr(p + 1);
}

// Shortest text that reads back to the same double (std::to_chars guarantees the round trip).
std::string format_real(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

template <class T>
std::string join(const std::vector<T>& v, const std::string& sep) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

// --- Strict conversions: the whole token must be consumed; from_chars is locale independent. ---

enum class Conv { ok, invalid, out_of_range };

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

std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
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

// Validates `text` as a value of `s` and returns its canonical deck text (numbers reformatted, bools as
// true/false, list elements joined by one space). `origin` names the source: "deck 'x.ini'" or the
// override. Throws InputError with one line naming origin and key.
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

// The deck text of an option's default, or nothing. Lists with an empty default have no value (an
// absent list reads as empty); an empty String default is the empty string.
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

// " (did you mean 'grid.nx'?)", or the valid keys of a known section, or the known sections.
std::string suggestion(const OptionRegistry& reg, const std::string& key) {
  const auto& specs = reg.all();
  // No declared key is anywhere near this long: skip the edit-distance search (quadratic in the length).
  if (key.size() > 100) return {};
  const std::vector<std::string> sections = sections_in_order(specs);
  const std::string sec = section_of(key);
  const bool known_section =
      key.find('.') != std::string::npos && std::find(sections.begin(), sections.end(), sec) != sections.end();

  auto best_matches = [&](auto distance, std::size_t limit) {
    std::size_t best = limit + 1;
    std::vector<std::string> found;
    for (const auto& s : specs) {
      const std::size_t d = distance(s);
      if (d > limit) continue;
      if (d < best) best = d, found.clear();
      if (d == best && found.size() < 3) found.push_back(s.key);
    }
    return found;
  };
  // A typo anywhere in the full key ("grid.nxx", "grd.nx").
  std::vector<std::string> found = best_matches([&](const OptionSpec& s) { return levenshtein(key, s.key); },
                                                std::max<std::size_t>(2, key.size() / 3));
  // The right name in a wrong or missing section ("nx" at top level, "mesh.nx"); names are short, so
  // only close ones count.
  if (found.empty() && !known_section) {
    const std::string nm = name_of(key);
    found = best_matches([&](const OptionSpec& s) { return levenshtein(nm, name_of(s.key)); }, nm.size() / 3);
  }
  if (!found.empty()) {
    std::string t = " (did you mean ";
    for (std::size_t i = 0; i < found.size(); ++i) t += (i ? " or '" : "'") + found[i] + "'";
    return t + "?)";
  }
  if (known_section) {
    std::vector<std::string> names;
    for (const auto& s : specs)
      if (section_of(s.key) == sec) names.push_back(name_of(s.key));
    return " (valid keys in [" + sec + "]: " + join(names, ", ") + ")";
  }
  return sections.empty() ? std::string() : " (known sections: " + join(sections, ", ") + ")";
}

// One "key = value" line of the deck as Boost sees it, with its line number (Boost reports none).
struct DeckLine {
  std::string key;
  int line = 0;
};

// Mirrors the grammar of Boost's config-file parser ('#' starts a comment anywhere, "[section]"
// prefixes "section.", "key = value" lines, blank lines) to recover line numbers for messages. Also
// rejects an empty "[]" header up front, which Boost does not diagnose.
std::vector<DeckLine> scan_lines(const std::string& text, const std::string& origin, int& first_bad_line,
                                 std::string& first_bad_text) {
  std::vector<DeckLine> out;
  std::istringstream in(text);
  std::string raw, prefix;
  first_bad_line = 0;
  for (int n = 1; std::getline(in, raw); ++n) {
    std::string s = raw.substr(0, raw.find('#'));
    s = trim(s);
    if (s.empty()) continue;
    if (s.front() == '[' && s.back() == ']') {
      const std::string sec = s.substr(1, s.size() - 2);
      if (trim(sec).empty())
        throw InputError(origin + ": line " + std::to_string(n) + ": empty section name '" + s + "'");
      prefix = sec.back() == '.' ? sec : sec + ".";
    } else if (const auto eq = s.find('='); eq != std::string::npos) {
      out.push_back({prefix + trim(s.substr(0, eq)), n});
    } else if (first_bad_line == 0) {
      first_bad_line = n;
      first_bad_text = s;
    }
  }
  return out;
}

struct RawValue {
  std::string text;
  std::string origin;
};

}  // namespace

// ------------------------------------------------------------------------------------------------
// OptionRegistry

OptionSpec& OptionRegistry::add(OptionSpec s) {
  // Keys are "section.name" made of [A-Za-z0-9_-]; ',' and '*' would be read as syntax by Boost's
  // option names, and whitespace or '=' could not be written in a deck.
  const bool chars_ok = !s.key.empty() && std::all_of(s.key.begin(), s.key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  const auto dot = s.key.rfind('.');
  if (!chars_ok || dot == std::string::npos || dot == 0 || dot + 1 == s.key.size() || s.key.front() == '.' ||
      s.key.find("..") != std::string::npos)
    throw Error("invalid option key '" + s.key + "': expected section.name of letters, digits, '_' or '-'");
  if (find(s.key)) throw Error("option '" + s.key + "' is declared twice");
  specs_.push_back(std::move(s));
  return specs_.back();
}

OptionSpec& OptionRegistry::add_int(const std::string& key, long long def, const std::string& unit,
                                    const std::string& help) {
  OptionSpec s;
  s.key = key, s.type = OptionType::Int, s.default_text = std::to_string(def), s.unit = unit, s.help = help;
  return add(std::move(s));
}

OptionSpec& OptionRegistry::add_real(const std::string& key, double def, const std::string& unit,
                                     const std::string& help) {
  OptionSpec s;
  s.key = key, s.type = OptionType::Real, s.default_text = format_real(def), s.unit = unit, s.help = help;
  return add(std::move(s));
}

OptionSpec& OptionRegistry::add_string(const std::string& key, const std::string& def, const std::string& unit,
                                       const std::string& help) {
  OptionSpec s;
  s.key = key, s.type = OptionType::String, s.default_text = def, s.unit = unit, s.help = help;
  return add(std::move(s));
}

OptionSpec& OptionRegistry::add_bool(const std::string& key, bool def, const std::string& unit,
                                     const std::string& help) {
  OptionSpec s;
  s.key = key, s.type = OptionType::Bool, s.default_text = def ? "true" : "false", s.unit = unit, s.help = help;
  return add(std::move(s));
}

OptionSpec& OptionRegistry::add_ints(const std::string& key, const std::vector<long long>& def, const std::string& unit,
                                     const std::string& help) {
  OptionSpec s;
  s.key = key, s.type = OptionType::IntList, s.default_text = join(def, " "), s.unit = unit, s.help = help;
  return add(std::move(s));
}

OptionSpec& OptionRegistry::add_reals(const std::string& key, const std::vector<double>& def, const std::string& unit,
                                      const std::string& help) {
  std::vector<std::string> texts;
  for (double d : def) texts.push_back(format_real(d));
  OptionSpec s;
  s.key = key, s.type = OptionType::RealList, s.default_text = join(texts, " "), s.unit = unit, s.help = help;
  return add(std::move(s));
}

const OptionSpec* OptionRegistry::find(const std::string& key) const {
  for (const auto& s : specs_)
    if (s.key == key) return &s;
  return nullptr;
}

std::string OptionRegistry::help_text(const std::string& section) const {
  const std::vector<std::string> sections = sections_in_order(specs_);
  if (!section.empty() && std::find(sections.begin(), sections.end(), section) == sections.end())
    throw InputError("unknown deck section '" + section + "' (known sections: " + join(sections, ", ") + ")");
  std::ostringstream os;
  bool first = true;
  for (const auto& sec : sections) {
    if (!section.empty() && sec != section) continue;
    os << (first ? "" : "\n") << "[" << sec << "]\n";
    first = false;
    for (const auto& s : specs_) {
      if (section_of(s.key) != sec) continue;
      os << "  " << s.key << "  (" << type_name(s);
      if (s.required)
        os << "; required";
      else if (s.default_text.empty() && is_list(s))
        os << "; no default";
      else
        os << "; default " << (s.type == OptionType::String ? "'" + s.default_text + "'" : s.default_text);
      if (!s.unit.empty()) os << "; unit " << s.unit;
      const std::string b = bounds_text(s);
      if (!b.empty()) os << (is_list(s) ? "; each " : "; ") << b;
      if (!s.choices.empty()) os << "; one of: " << join(s.choices, ", ");
      os << ")\n";
      if (!s.help.empty()) os << "      " << s.help << "\n";
    }
  }
  return os.str();
}

// ------------------------------------------------------------------------------------------------
// Deck

Deck Deck::parse(const OptionRegistry& reg, const std::string& text, const std::string& source,
                 const std::vector<std::string>& overrides) {
  const std::string origin = "deck '" + source + "'";
  if (const std::size_t at = find_control(text); at != std::string::npos) {
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    throw InputError(origin + ": line " + std::to_string(line) + ": control character " + control_text(text, at) +
                     " (decks are plain text)");
  }
  for (const auto& o : overrides)
    if (const std::size_t at = find_control(o); at != std::string::npos)
      throw InputError("command line override '" + shorten(o) + "': control character " + control_text(o, at));
  int bad_line = 0;
  std::string bad_text;
  const std::vector<DeckLine> lines = scan_lines(text, origin, bad_line, bad_text);

  po::options_description desc;
  for (const auto& s : reg.all()) desc.add_options()(s.key.c_str(), po::value<std::string>(), s.help.c_str());

  po::parsed_options parsed(&desc);
  try {
    std::istringstream in(text);
    parsed = po::parse_config_file(in, desc, /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    if (bad_line > 0)
      throw InputError(origin + ": line " + std::to_string(bad_line) + ": invalid line '" + bad_text +
                       "' (expected '[section]' or 'key = value')");
    throw InputError(origin + ": " + e.what());
  }

  std::map<std::string, RawValue> raw;
  std::map<std::string, int> first_line;
  // Line numbers are only trusted when our scan saw exactly the entries Boost returned.
  const bool have_lines = lines.size() == parsed.options.size();
  for (std::size_t i = 0; i < parsed.options.size(); ++i) {
    const auto& opt = parsed.options[i];
    const std::string& key = opt.string_key;
    const std::string value = opt.value.empty() ? std::string() : opt.value.front();
    const int line = have_lines ? lines[i].line : 0;
    const std::string at = line > 0 ? " at line " + std::to_string(line) : std::string();
    if (key.empty() || key.back() == '.') throw InputError(origin + ": missing key name before '='" + at);
    if (!reg.find(key)) throw InputError(origin + ": unknown key '" + shorten(key) + "'" + suggestion(reg, key));
    if (raw.count(key)) {
      const int prev = first_line[key];
      throw InputError(origin + ": key '" + key + "' is given more than once" +
                       (prev > 0 && line > 0 ? " (lines " + std::to_string(prev) + " and " + std::to_string(line) + ")"
                                             : std::string()));
    }
    raw[key] = {value, origin};
    first_line[key] = line;
  }

  // Overrides apply in order, so a later --set of the same key wins, as usual on a command line.
  for (const auto& o : overrides) {
    const std::string where = "command line override '" + shorten(o) + "'";
    const auto eq = o.find('=');
    const std::string key = eq == std::string::npos ? std::string() : trim(o.substr(0, eq));
    const auto dot = key.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot == 0 || key.back() == '.')
      throw InputError(where + ": expected section.key=value");
    const std::string value = trim(o.substr(eq + 1));
    // A deck cannot hold these characters in a value, so resolved_text() could not record them.
    if (value.find_first_of("#\n\r") != std::string::npos)
      throw InputError(where + ": a value cannot contain '#' or a line break");
    if (!reg.find(key)) throw InputError(where + ": unknown key '" + shorten(key) + "'" + suggestion(reg, key));
    raw[key] = {value, where};
  }

  Deck d;
  d.reg_ = &reg;
  d.source_ = source;
  d.text_ = text;
  for (const auto& s : reg.all()) {
    const auto it = raw.find(s.key);
    if (it != raw.end()) {
      d.values_[s.key] = canonical_value(s, it->second.text, it->second.origin);
      d.given_.insert(s.key);
    } else if (s.required) {
      throw InputError(origin + ": missing required key '" + s.key + "'");
    } else if (auto def = default_value(s)) {
      d.values_[s.key] = *def;
    }
  }
  return d;
}

Deck Deck::from_file(const OptionRegistry& reg, const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("cannot read deck file '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read deck file '" + path + "': " + std::strerror(errno));
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw InputError("cannot read deck file '" + path + "': " + e.what());
  }
  if (in.bad()) throw InputError("cannot read deck file '" + path + "': read error");
  return parse(reg, text, path, overrides);
}

const OptionSpec& Deck::spec(const std::string& key) const {
  if (!reg_) throw Error("deck: get of '" + key + "' on a deck that was never parsed");
  const OptionSpec* s = reg_->find(key);
  if (!s) throw Error("deck: key '" + key + "' is not declared in the option registry");
  return *s;
}

namespace {

// The type check of every getter: asking for the wrong type is a bug in the reading code.
void expect_type(const OptionSpec& s, OptionType want, const char* getter) {
  if (s.type != want)
    throw Error(std::string("deck: ") + getter + "('" + s.key + "') on an option of type " + type_name(s));
}

const std::string* value_of(const std::map<std::string, std::string>& values, const std::string& key) {
  const auto it = values.find(key);
  return it == values.end() ? nullptr : &it->second;
}

// Values were validated when the deck was parsed, so a failure here is an internal inconsistency.
const std::string& scalar_text(const std::map<std::string, std::string>& values, const std::string& key) {
  const std::string* v = value_of(values, key);
  if (!v) throw Error("deck: key '" + key + "' has no value");
  return *v;
}

}  // namespace

long long Deck::get_int(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::Int, "get_int");
  read_->insert(key);
  long long v = 0;
  if (to_int(scalar_text(values_, key), v) != Conv::ok) throw Error("deck: stored value of '" + key + "' is corrupt");
  return v;
}

double Deck::get_real(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::Real, "get_real");
  read_->insert(key);
  double v = 0.0;
  if (to_real(scalar_text(values_, key), v) != Conv::ok) throw Error("deck: stored value of '" + key + "' is corrupt");
  return v;
}

const std::string& Deck::get_string(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::String, "get_string");
  read_->insert(key);
  return scalar_text(values_, key);
}

bool Deck::get_bool(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::Bool, "get_bool");
  read_->insert(key);
  bool v = false;
  if (!to_bool(scalar_text(values_, key), v)) throw Error("deck: stored value of '" + key + "' is corrupt");
  return v;
}

namespace {
int fit_int32(const std::string& key, long long v) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw InputError("key '" + key + "' = " + std::to_string(v) + " is out of range (it must lie within " +
                     std::to_string(std::numeric_limits<int>::min()) + " .. " +
                     std::to_string(std::numeric_limits<int>::max()) + ")");
  return static_cast<int>(v);
}
}  // namespace

int Deck::get_int32(const std::string& key) const { return fit_int32(key, get_int(key)); }

std::vector<int> Deck::get_ints32(const std::string& key) const {
  std::vector<int> out;
  for (long long v : get_ints(key)) out.push_back(fit_int32(key, v));
  return out;
}

std::vector<long long> Deck::get_ints(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::IntList, "get_ints");
  read_->insert(key);
  std::vector<long long> out;
  const std::string* text = value_of(values_, key);
  if (!text) return out;
  std::vector<std::string> toks;
  split_list(*text, toks);
  for (const auto& t : toks) {
    long long v = 0;
    if (to_int(t, v) != Conv::ok) throw Error("deck: stored value of '" + key + "' is corrupt");
    out.push_back(v);
  }
  return out;
}

std::vector<double> Deck::get_reals(const std::string& key) const {
  const OptionSpec& s = spec(key);
  expect_type(s, OptionType::RealList, "get_reals");
  read_->insert(key);
  std::vector<double> out;
  const std::string* text = value_of(values_, key);
  if (!text) return out;
  std::vector<std::string> toks;
  split_list(*text, toks);
  for (const auto& t : toks) {
    double v = 0.0;
    if (to_real(t, v) != Conv::ok) throw Error("deck: stored value of '" + key + "' is corrupt");
    out.push_back(v);
  }
  return out;
}

bool Deck::is_set(const std::string& key) const { return given_.count(key) > 0; }

std::vector<std::string> Deck::unused_keys() const {
  std::vector<std::string> out;
  for (const auto& k : given_)
    if (!read_->count(k)) out.push_back(k);
  return out;
}

std::string Deck::resolved_text() const {
  if (!reg_) return {};
  std::ostringstream os;
  bool first = true;
  for (const auto& sec : sections_in_order(reg_->all())) {
    bool header = false;
    for (const auto& s : reg_->all()) {
      if (section_of(s.key) != sec) continue;
      const std::string* v = value_of(values_, s.key);
      if (!v) continue;
      if (!header) {
        os << (first ? "" : "\n") << "[" << sec << "]\n";
        header = true;
        first = false;
      }
      os << name_of(s.key) << " =" << (v->empty() ? "" : " " + *v);
      if (!s.unit.empty()) os << "  # " << s.unit;
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace stratus
