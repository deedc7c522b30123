// The example decks (inputs/ of the source tree), found by name from wherever stratus runs: installed
// (`cmake --install`) they are PREFIX/share/stratus/inputs, located from the executable's own path, so an
// installed tree still finds them after it is moved as a whole; a build-tree executable finds the source
// tree's inputs/. `stratus run md/lj_melt.ini` or `stratus run lj_melt` then works in any directory: a
// DECK argument that names no file there is looked up as an example (NAME, NAME.ini, and for a bare name
// */NAME.ini), and `stratus decks` lists them.
#pragma once
#include <string>
#include <vector>

namespace stratus {

/// The directories searched for example decks, in order, those that exist: the installed one next to the
/// executable, then the source tree's.
std::vector<std::string> example_deck_dirs();

/// `arg` itself when it names an existing path or no example matches; otherwise the example deck's path.
/// Throws InputError when a bare name matches more than one example (naming them).
std::string resolve_deck(const std::string& arg);

/// "NAME: first comment line" for every example deck (relative to its directory), sorted; and the
/// directory they came from as the first line.
std::vector<std::string> list_example_decks();

}  // namespace stratus
