// The options of physics "euler": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"

namespace stratus::climate {

enum class EulerSplitting { alternating, unsplit };

struct EulerParams {
  int test = 0;  // the test case: its index in euler_cases() (euler_cases.hpp)
  EulerSplitting splitting = EulerSplitting::alternating;
  double hv_beta = 0.25;       // hyperviscosity strength (1 removes 2 dx noise in one stage)
  double cfl = 1.5;            // Courant number of the time step
  double max_speed = 450;      // [m/s] > 0: fixed dt = cfl min(dx) / max_speed (miniWeather); 0: from the state
  double nu = 0.0;             // kinematic viscosity [m^2/s]
  double kappa = 0.0;          // thermal diffusivity [m^2/s]
  double courant_limit = 2.0;  // stop the run when the measured Courant number exceeds this

  static EulerParams from_deck(const Deck& deck);
};

void declare_euler_options(OptionRegistry& reg);

}  // namespace stratus::climate
