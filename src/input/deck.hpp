// Input decks. Every option is declared once in an OptionRegistry (key "section.name", type, default,
// unit, help, and validation); a Deck is an INI file (grammar in ini.hpp) checked against that
// registry, with command-line overrides ("section.key=value") applied on top. Parsing validates
// everything up front: unknown keys (with a "did you mean" suggestion), wrong types, missing required
// keys and out-of-range values throw InputError naming the key and the file. Cross-key checks (e.g.
// that a decomposition divides the grid) belong to the code that owns both keys. Kernels never see the
// deck: parameters flow deck -> XParams::from_deck() -> a small struct. Option owners normally declare
// and read their keys through the one-statement-per-key bindings of options.hpp.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stratus {

enum class OptionType { Int, Real, String, Bool, IntList, RealList };

/// One declared option. Built through OptionRegistry::add_*; the chained setters add validation.
struct OptionSpec {
  std::string key;  // "section.name"
  OptionType type = OptionType::String;
  std::string default_text;  // default as deck text ("" with required = true: no default)
  std::string unit;          // e.g. "m", "s", "m/s", "cells", "1" (dimensionless), "" (not a quantity)
  std::string help;
  bool required = false;
  std::optional<double> min, max;  // numeric bounds (each list element), inclusive unless *_exclusive
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> choices;  // allowed values of a String option (empty: any)
  int list_size = 0;                 // exact element count of a list option (0: any, at least one)
  bool restart_may_change = false;   // a restart may continue with another value (cadence, end, output)

  OptionSpec& at_least(double v) {
    min = v;
    min_exclusive = false;
    return *this;
  }
  OptionSpec& greater_than(double v) {
    min = v;
    min_exclusive = true;
    return *this;
  }
  OptionSpec& at_most(double v) {
    max = v;
    max_exclusive = false;
    return *this;
  }
  OptionSpec& less_than(double v) {
    max = v;
    max_exclusive = true;
    return *this;
  }
  OptionSpec& one_of(std::vector<std::string> c) {
    choices = std::move(c);
    return *this;
  }
  OptionSpec& size(int n) {
    list_size = n;
    return *this;
  }
  OptionSpec& require() {
    required = true;
    return *this;
  }
  /// The key does not change the physics (an end, a cadence, an output or parallel setting): a run may
  /// continue from a checkpoint with another value. Every other key must keep its checkpointed value.
  OptionSpec& may_change_on_restart() {
    restart_may_change = true;
    return *this;
  }
};

class OptionRegistry {
 public:
  OptionSpec& add_int(const std::string& key, long long def, const std::string& unit, const std::string& help);
  OptionSpec& add_real(const std::string& key, double def, const std::string& unit, const std::string& help);
  OptionSpec& add_string(const std::string& key, const std::string& def, const std::string& unit,
                         const std::string& help);
  OptionSpec& add_bool(const std::string& key, bool def, const std::string& unit, const std::string& help);
  OptionSpec& add_ints(const std::string& key, const std::vector<long long>& def, const std::string& unit,
                       const std::string& help);
  OptionSpec& add_reals(const std::string& key, const std::vector<double>& def, const std::string& unit,
                        const std::string& help);

  const OptionSpec* find(const std::string& key) const;
  const std::vector<OptionSpec>& all() const { return specs_; }
  /// Every key (of one section, or all when section is empty) with type, default, unit and help.
  /// Throws InputError for an unknown section.
  std::string help_text(const std::string& section = "") const;

 private:
  OptionSpec& add(OptionSpec s);
  std::vector<OptionSpec> specs_;
};

class Deck {
 public:
  /// Parses INI text; `source` names it in messages (a path, or "<built-in>"). overrides are
  /// "section.key=value" strings from the command line and win over the text. Throws InputError.
  static Deck parse(const OptionRegistry& reg, const std::string& text, const std::string& source,
                    const std::vector<std::string>& overrides = {});
  /// Reads the file (InputError naming it if unreadable) and parses it.
  static Deck from_file(const OptionRegistry& reg, const std::string& path,
                        const std::vector<std::string>& overrides = {});

  long long get_int(const std::string& key) const;
  /// get_int for a value the reading code holds in an int: InputError naming the key when it does not fit.
  int get_int32(const std::string& key) const;
  /// get_ints for values the reading code holds in ints (InputError naming the key when one does not fit).
  std::vector<int> get_ints32(const std::string& key) const;
  double get_real(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  std::vector<long long> get_ints(const std::string& key) const;
  std::vector<double> get_reals(const std::string& key) const;

  /// True when the key was given in the deck text or an override (not just defaulted).
  bool is_set(const std::string& key) const;
  /// Keys given in the deck or overrides that no get_*() has read so far (for an "unused" warning).
  std::vector<std::string> unused_keys() const;

  const std::string& source() const { return source_; }
  /// The deck text exactly as read (provenance).
  const std::string& text() const { return text_; }
  /// Every declared key with its resolved value as INI text, sections in order (provenance, `check`).
  std::string resolved_text() const;
  /// A key whose value differs between this deck and another of the same registry.
  struct Change {
    std::string key, value, other;  // canonical deck text of this deck's value and the other's ("" if unset)
  };
  /// The keys that must not change on a restart (OptionSpec::restart_may_change false) whose resolved
  /// values differ between this deck and the resolved deck text `other` (as resolved_text() wrote it,
  /// e.g. the copy stored in a checkpoint). Throws InputError naming `other_source` when that text does
  /// not parse with this deck's registry (a checkpoint of another version).
  std::vector<Change> physics_changes(const std::string& other, const std::string& other_source) const;

 private:
  const OptionSpec& spec(const std::string& key) const;  // Error for an undeclared key (a bug)
  const OptionRegistry* reg_ = nullptr;
  std::string source_, text_;
  std::map<std::string, std::string> values_;  // resolved deck text of every declared key with a value
  std::set<std::string> given_;                // keys given in the deck or overrides
  std::shared_ptr<std::set<std::string>> read_ = std::make_shared<std::set<std::string>>();
};

}  // namespace stratus
