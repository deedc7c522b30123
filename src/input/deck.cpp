// Deck: the INI text read by parse_ini() (one grammar, one pass, line numbers kept), its keys checked
// against the registry (unknown keys with a "did you mean" suggestion, repeated keys with both lines),
// command-line overrides ("section.key=value") applied on top, and every value validated by the strict
// conversions of deck_text and stored as canonical deck text, so that resolved_text() re-parses to the
// same values. The typed getters and the unused-key record live here too. This file does not check
// relations between keys, does not log, and does not know any concrete option.
#include "input/deck.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>

#include "core/error.hpp"
#include "input/deck_text.hpp"
#include "input/ini.hpp"

namespace stratus {

using namespace deck_text;

namespace {

struct RawValue {
  std::string text;
  std::string origin;
};

}  // namespace

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
  std::map<std::string, RawValue> raw;
  std::map<std::string, int> first_line;
  for (const IniEntry& e : parse_ini(text, origin)) {
    const std::string& key = e.key;
    const std::string at = " at line " + std::to_string(e.line);
    if (key.empty() || key.back() == '.') throw InputError(origin + ": missing key name before '='" + at);
    if (!reg.find(key)) throw InputError(origin + ": unknown key '" + shorten(key) + "'" + suggestion(reg, key));
    if (raw.count(key))
      throw InputError(origin + ": key '" + key + "' is given more than once (lines " +
                       std::to_string(first_line[key]) + " and " + std::to_string(e.line) + ")");
    raw[key] = {e.value, origin};
    first_line[key] = e.line;
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
      os << key_name(s.key) << " =" << (v->empty() ? "" : " " + *v);
      if (!s.unit.empty()) os << "  # " << s.unit;
      os << "\n";
    }
  }
  return os.str();
}

std::vector<Deck::Change> Deck::physics_changes(const std::string& other, const std::string& other_source) const {
  STRATUS_REQUIRE(reg_ != nullptr, "physics_changes on a deck without a registry");
  const Deck o = parse(*reg_, other, other_source);
  std::vector<Change> out;
  for (const auto& s : reg_->all()) {
    if (s.restart_may_change) continue;
    const std::string* a = value_of(values_, s.key);
    const std::string* b = value_of(o.values_, s.key);
    const std::string av = a ? *a : std::string(), bv = b ? *b : std::string();
    if (av != bv) out.push_back({s.key, av, bv});
  }
  return out;
}

}  // namespace stratus
