// What the MD engine's test files share: decks from text, one step at the clock, the reference data.
#pragma once
#include <string>

#include "input/deck.hpp"
#include "md/md_options.hpp"
#include "md/md_simulation.hpp"

namespace stratus::test {

/// The directory of the reference data files (tests/data/md/).
inline const std::string kMdData = STRATUS_TEST_DATA "/md/";

/// MD parameters from the body of an [md] section.
inline md::MDParams md_params(const std::string& text) {
  OptionRegistry reg;
  md::declare_md_options(reg);
  const Deck deck = Deck::parse(reg, "[md]\n" + text, "<test>");
  return md::MDParams::from_deck(deck);
}

/// Two types, shifted, a mixed pair with a cutoff of its own (tests/data/md/lj_mixture.data).
inline std::string mixture_deck() {
  return "data_file = " + kMdData +
         "lj_mixture.data\nshift = true\nepsilon = 1.0 0.5\nsigma = 1.0 0.88\npair_coeff = 1 2 1.5 0.8 2.0\n";
}

/// One step at the clock, then the clock ticks (as the run loop does).
inline void md_step(md::MDSimulation& sim, Clock& clock, double dt) {
  sim.advance(clock, dt);
  clock.tick(dt);
}

}  // namespace stratus::test
