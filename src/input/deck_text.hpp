// Internal to src/input: the value grammar shared by the registry, the INI reader and the Deck. Strict
// conversions of deck text (the whole token must be consumed; locale independent), list splitting,
// canonical value text, and the wording of types and bounds in messages and help. Nothing outside
// src/input includes this header; option owners use deck.hpp and options.hpp.
#pragma once
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "input/deck.hpp"

namespace stratus::deck_text {

// The same whitespace set Boost trimmed from config-file lines (the deck grammar keeps it).
inline constexpr const char* kSpace = " \t\r\n";

std::string trim(const std::string& s);
std::string lower(std::string s);
/// Sections may nest ("io.hdf5.chunk" is key "chunk" of [io.hdf5]): the section is all before the last '.'.
std::string section_of(const std::string& key);
std::string key_name(const std::string& key);
/// Shortest text that reads back to the same double.
std::string format_real(double v);

template <class T>
std::string join(const std::vector<T>& v, const std::string& sep) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

enum class Conv { ok, invalid, out_of_range };
Conv to_int(const std::string& t, long long& out);
Conv to_real(const std::string& t, double& out);  // finite values only
bool to_bool(const std::string& t, bool& out);
/// List elements separated by whitespace and/or single commas; false for an empty element.
bool split_list(const std::string& t, std::vector<std::string>& out);

/// At most 80 characters of s, for quoting user text in a one-line message.
std::string shorten(const std::string& s);
/// The first control character (other than tab and line breaks) in s, or npos; and its "0x.." text.
std::size_t find_control(const std::string& s);
std::string control_text(const std::string& s, std::size_t at);

std::string type_name(const OptionSpec& s);
bool is_list(const OptionSpec& s);
/// "> 0 and <= 1"; empty without bounds.
std::string bounds_text(const OptionSpec& s);

/// Validates `text` as a value of `s` and returns its canonical deck text; `origin` names the source
/// ("deck 'x.ini'" or the override). Throws InputError with one line naming origin and key.
std::string canonical_value(const OptionSpec& s, const std::string& text, const std::string& origin);
/// The canonical text of an option's default, or nothing (required, or a list without default).
std::optional<std::string> default_value(const OptionSpec& s);
/// The sections of the declared keys, in order of first declaration.
std::vector<std::string> sections_in_order(const std::vector<OptionSpec>& specs);
/// " (did you mean 'grid.nx'?)", or the valid keys of a known section, or the known sections.
std::string suggestion(const OptionRegistry& reg, const std::string& key);

}  // namespace stratus::deck_text
