// The option registry: declarations (key, type, default, unit, help, validation) and the `stratus
// help-deck` text built from them. It parses no deck.
#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "input/deck.hpp"
#include "input/deck_text.hpp"

namespace stratus {

using namespace deck_text;

OptionSpec& OptionRegistry::add(OptionSpec s) {
  // Keys are "section.name" made of [A-Za-z0-9_-]: whitespace, "=", "#" or "]" could not be written
  // in a deck, and "," or "*" would read as list or pattern syntax in messages and on the command line.
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
      if (s.restart_may_change) os << "; may change on a restart";
      os << ")\n";
      if (!s.help.empty()) os << "      " << s.help << "\n";
    }
  }
  return os.str();
}

}  // namespace stratus
