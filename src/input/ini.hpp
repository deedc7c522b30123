// The INI grammar of decks, read in one pass that keeps line numbers: '#' starts a comment anywhere on
// a line; blank lines are skipped; "[section]" makes the following keys "section.key" (a header ending
// in '.' is used as is, so "[io.hdf5.]" also prefixes "io.hdf5."); "key = value" splits at the first
// '='; key, value and lines are trimmed of spaces, tabs and line breaks. This is the grammar of Boost's
// config-file parser, which decks were read with before, so every deck reads as it did. The reader
// knows nothing of declared keys: checking keys and values is the Deck's job.
#pragma once
#include <string>
#include <vector>

namespace stratus {

struct IniEntry {
  std::string key;    // "section.key" (the key as written, prefixed by the section header)
  std::string value;  // trimmed text after the first '='
  int line = 0;       // 1-based line number in the text
};

/// The "key = value" entries of `text` in order. `origin` ("deck 'x.ini'") starts every message.
/// Throws InputError for an empty section header ("[]", "[ ]"; the first one) or else for the first
/// line that is neither a header nor "key = value" (naming its line).
std::vector<IniEntry> parse_ini(const std::string& text, const std::string& origin);

}  // namespace stratus
