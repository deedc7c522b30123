// The deck's INI grammar (see ini.hpp): one scan of the text, line by line.
#include "input/ini.hpp"

#include <sstream>

#include "core/error.hpp"
#include "input/deck_text.hpp"

namespace stratus {

std::vector<IniEntry> parse_ini(const std::string& text, const std::string& origin) {
  using deck_text::trim;
  std::vector<IniEntry> out;
  std::istringstream in(text);
  std::string raw, prefix;
  int bad_line = 0;
  std::string bad_text;
  for (int n = 1; std::getline(in, raw); ++n) {
    const std::string s = trim(raw.substr(0, raw.find('#')));
    if (s.empty()) continue;
    if (s.front() == '[' && s.back() == ']') {
      // The name is used untrimmed ("[ grid ]" is section " grid "), as it always was; an empty one
      // names no section at all, and is reported before any invalid line, wherever it stands.
      const std::string sec = s.substr(1, s.size() - 2);
      if (trim(sec).empty())
        throw InputError(origin + ": line " + std::to_string(n) + ": empty section name '" + s + "'");
      prefix = sec.back() == '.' ? sec : sec + ".";
    } else if (const auto eq = s.find('='); eq != std::string::npos) {
      out.push_back({prefix + trim(s.substr(0, eq)), trim(s.substr(eq + 1)), n});
    } else if (bad_line == 0) {
      bad_line = n;
      bad_text = s;
    }
  }
  if (bad_line > 0)
    throw InputError(origin + ": line " + std::to_string(bad_line) + ": invalid line '" + bad_text +
                     "' (expected '[section]' or 'key = value')");
  return out;
}

}  // namespace stratus
