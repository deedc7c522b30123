// The options of physics "euler": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"

namespace stratus::climate {

enum class EulerSplitting { alternating, unsplit };

// Defaults are those of the bindings in euler_options.cpp.
struct EulerParams {
  int test{};  // the test case: its index in euler_cases() (euler_cases.hpp)
  EulerSplitting splitting{};
  double hv_beta{};        // hyperviscosity strength (1 removes 2 dx noise in one stage)
  double cfl{};            // Courant number of the time step
  double max_speed{};      // [m/s] > 0: fixed dt = cfl min(dx) / max_speed (miniWeather); 0: from the state
  double nu{};             // kinematic viscosity [m^2/s]
  double kappa{};          // thermal diffusivity [m^2/s]
  double courant_limit{};  // stop the run when the measured Courant number exceeds this

  static EulerParams from_deck(const Deck& deck);
  /// One statement per [euler] key (input/options.hpp).
  template <class B>
  static void bind(B& o);
};

void declare_euler_options(OptionRegistry& reg);

}  // namespace stratus::climate
